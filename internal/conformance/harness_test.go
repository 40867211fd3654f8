package conformance

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"reflect"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/tablekit/tablekit/ddbmem"
	"github.com/tablekit/tablekit/entity"
	"github.com/tablekit/tablekit/internal/testenv"
)

// engineMissing lists operations the engine does not implement yet. A case
// that uses one of them runs against DynamoDB Local only (its expectations
// are asserted) and logs the engine's differences instead of failing.
// Entries are removed as the engine lands them.
var engineMissing = map[string]bool{}

// tc is one conformance case. Each case gets its own tables (logical names
// such as "T" are replaced by unique names on both targets), runs its steps
// against DynamoDB Local and against a fresh engine, and compares every
// result. At the end the contents of every table created by the case are
// compared (a full Scan, sorted).
type tc struct {
	name string
	// tables are created (on both targets) before the steps run, and
	// deleted when the case ends. TableName holds the logical name.
	tables []*dynamodb.CreateTableInput
	// items are put into the first table before the steps run.
	items []I
	steps []step
	// engineBug, when set, names the /work/engine-diffs.md entry that
	// explains why the engine currently differs: the case then asserts only
	// DynamoDB Local's expected results and logs the engine's differences.
	engineBug string
}

// stepMode selects how a step is called and compared.
type stepMode int

const (
	modeCall     stepMode = iota // one call, compare output or error
	modeScanAll                  // page through a Scan (all segments), compare the sorted union
	modeQueryAll                 // page through a Query, compare every page
	modeListAll                  // page through ListTables, keep the case's own tables
)

// step is one operation. in is a *dynamodb.XxxInput with logical table
// names. err is the error kind DynamoDB Local must return ("" for success);
// msg also compares the error message text.
type step struct {
	in   any
	err  string
	msg  bool
	mode stepMode
	// localDiffers says why DynamoDB Local differs from DynamoDB here. On
	// a queryAll step only the concatenated items and the total count are
	// compared (DynamoDB Local pages differently). On a single call,
	// DynamoDB Local's result is only logged, the engine must return err
	// (DynamoDB's behaviour), and the final table comparison is skipped.
	localDiffers string
	// tiesUnordered, on a queryAll step, compares the pages' count, the
	// total count and the items as a set: an index's items of equal keys
	// come in an order DynamoDB does not document (DynamoDB Local's is
	// neither the table key's nor the writes').
	tiesUnordered bool
	// docWant, with localDiffers on a single call, is the normalized
	// result DynamoDB documents (a JSON text of result); the engine's
	// result must equal it.
	docWant string
	// capacity also compares the ConsumedCapacity of the output.
	capacity bool
	// noMsg leaves the error message out of the comparison (TestConformance
	// compares the message of every error unless a step says noMsg).
	noMsg bool
}

// Error kinds.
const (
	eCond     = "ConditionalCheckFailed"
	eTxn      = "TransactionCanceled"
	eNotFound = "ResourceNotFound"
	eInUse    = "ResourceInUse"
	eValid    = "Validation"
	// eDup is PartiQL's INSERT of an existing key: DynamoDB's
	// DuplicateItemException, which DynamoDB Local sends with the code
	// DuplicateItem.
	eDup = "DuplicateItem"
)

func do(in any) step                   { return step{in: in} }
func fail(kind string, in any) step    { return step{in: in, err: kind} }
func failMsg(kind string, in any) step { return step{in: in, err: kind, msg: true} }
func scanAll(in *dynamodb.ScanInput) step {
	return step{in: in, mode: modeScanAll}
}
func queryAll(in *dynamodb.QueryInput) step {
	return step{in: in, mode: modeQueryAll}
}

// queryAllTies is queryAll of an index with equal keys (tiesUnordered).
func queryAllTies(in *dynamodb.QueryInput) step {
	return step{in: in, mode: modeQueryAll, tiesUnordered: true}
}
func listAll() step { return step{in: &dynamodb.ListTablesInput{}, mode: modeListAll} }

// ---------------------------------------------------------------------------
// Attribute value builders.

// I is an item.
type I = map[string]types.AttributeValue

func S(s string) types.AttributeValue { return &types.AttributeValueMemberS{Value: s} }
func N(s string) types.AttributeValue { return &types.AttributeValueMemberN{Value: s} }
func B(b ...byte) types.AttributeValue {
	if b == nil {
		b = []byte{} // nil would be sent as an empty attribute value
	}
	return &types.AttributeValueMemberB{Value: b}
}
func SS(s ...string) types.AttributeValue { return &types.AttributeValueMemberSS{Value: s} }
func NS(s ...string) types.AttributeValue { return &types.AttributeValueMemberNS{Value: s} }
func BS(b ...[]byte) types.AttributeValue { return &types.AttributeValueMemberBS{Value: b} }
func L(v ...types.AttributeValue) types.AttributeValue {
	if v == nil {
		v = []types.AttributeValue{}
	}
	return &types.AttributeValueMemberL{Value: v}
}
func M(m I) types.AttributeValue       { return &types.AttributeValueMemberM{Value: m} }
func BOOL(b bool) types.AttributeValue { return &types.AttributeValueMemberBOOL{Value: b} }
func NULL() types.AttributeValue       { return &types.AttributeValueMemberNULL{Value: true} }

// Names and values maps for expressions.
type names = map[string]string
type vals = map[string]types.AttributeValue

func str(s string) *string { return aws.String(s) }

// ---------------------------------------------------------------------------
// Table specs.

type attr struct{ name, typ string }

func hs(name string, typ string) attr { return attr{name, typ} }

// table returns a PAY_PER_REQUEST CreateTableInput with a hash key and an
// optional range key (zero attr for none).
func table(name string, hash, rng attr) *dynamodb.CreateTableInput {
	in := &dynamodb.CreateTableInput{
		TableName:   str(name),
		BillingMode: types.BillingModePayPerRequest,
	}
	in.KeySchema, in.AttributeDefinitions = keySchema(hash, rng)
	return in
}

func keySchema(hash, rng attr) ([]types.KeySchemaElement, []types.AttributeDefinition) {
	ks := []types.KeySchemaElement{{AttributeName: str(hash.name), KeyType: types.KeyTypeHash}}
	ad := []types.AttributeDefinition{{AttributeName: str(hash.name), AttributeType: types.ScalarAttributeType(hash.typ)}}
	if rng.name != "" {
		ks = append(ks, types.KeySchemaElement{AttributeName: str(rng.name), KeyType: types.KeyTypeRange})
		ad = append(ad, types.AttributeDefinition{AttributeName: str(rng.name), AttributeType: types.ScalarAttributeType(rng.typ)})
	}
	return ks, ad
}

// tPK is table T with a string hash key pk.
func tPK() *dynamodb.CreateTableInput { return table("T", hs("pk", "S"), attr{}) }

// tPKSK is table T with string keys pk and sk.
func tPKSK() *dynamodb.CreateTableInput { return table("T", hs("pk", "S"), hs("sk", "S")) }

func projection(typ types.ProjectionType, nonKey ...string) *types.Projection {
	return &types.Projection{ProjectionType: typ, NonKeyAttributes: nonKey}
}

// withGSI adds a GSI to the table spec.
func withGSI(in *dynamodb.CreateTableInput, name string, hash, rng attr, p *types.Projection) *dynamodb.CreateTableInput {
	ks, ad := keySchema(hash, rng)
	in.GlobalSecondaryIndexes = append(in.GlobalSecondaryIndexes, types.GlobalSecondaryIndex{
		IndexName: str(name), KeySchema: ks, Projection: p,
	})
	in.AttributeDefinitions = mergeDefs(in.AttributeDefinitions, ad)
	return in
}

// withLSI adds an LSI (same hash key as the table) to the table spec.
func withLSI(in *dynamodb.CreateTableInput, name string, rng attr, p *types.Projection) *dynamodb.CreateTableInput {
	hash := attr{aws.ToString(in.KeySchema[0].AttributeName), ""}
	for _, d := range in.AttributeDefinitions {
		if aws.ToString(d.AttributeName) == hash.name {
			hash.typ = string(d.AttributeType)
		}
	}
	ks, ad := keySchema(hash, rng)
	in.LocalSecondaryIndexes = append(in.LocalSecondaryIndexes, types.LocalSecondaryIndex{
		IndexName: str(name), KeySchema: ks, Projection: p,
	})
	in.AttributeDefinitions = mergeDefs(in.AttributeDefinitions, ad)
	return in
}

func mergeDefs(a, b []types.AttributeDefinition) []types.AttributeDefinition {
	for _, d := range b {
		found := false
		for _, e := range a {
			if aws.ToString(e.AttributeName) == aws.ToString(d.AttributeName) {
				found = true
			}
		}
		if !found {
			a = append(a, d)
		}
	}
	return a
}

// ---------------------------------------------------------------------------
// Running.

var (
	localOnce   sync.Once
	localClient entity.Client
)

func local(t *testing.T) entity.Client {
	t.Helper()
	ep := testenv.DynamoEndpoint(t) // fails under CI=true when unset
	localOnce.Do(func() { localClient = testenv.NewDynamoClient(ep) })
	return localClient
}

// nameMap maps logical table names (and client request tokens) to unique
// real names, and back.
type nameMap struct {
	mu   sync.Mutex
	real map[string]string
	back map[string]string
	// canonNumbers makes the normalizer compare numbers by value (in
	// DynamoDB's canonical text) instead of by their returned text.
	canonNumbers bool
}

func newNameMap() *nameMap {
	return &nameMap{real: map[string]string{}, back: map[string]string{}}
}

func (n *nameMap) get(logical string) string {
	if raw, ok := strings.CutPrefix(logical, "="); ok {
		return raw // "=name" is used literally
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	if r, ok := n.real[logical]; ok {
		return r
	}
	r := testenv.UniqueName("conf")
	n.real[logical] = r
	n.back[r] = logical
	return r
}

func (n *nameMap) ptr(p *string) *string {
	if p == nil {
		return nil
	}
	return aws.String(n.get(*p))
}

func (n *nameMap) logical(s string) string {
	n.mu.Lock()
	defer n.mu.Unlock()
	if l, ok := n.back[s]; ok {
		return l
	}
	return s
}

// rewrite returns a shallow copy of the input with real table names.
func (n *nameMap) rewrite(in any) any {
	switch v := in.(type) {
	case *dynamodb.PutItemInput:
		c := *v
		c.TableName = n.ptr(v.TableName)
		return &c
	case *dynamodb.GetItemInput:
		c := *v
		c.TableName = n.ptr(v.TableName)
		return &c
	case *dynamodb.UpdateItemInput:
		c := *v
		c.TableName = n.ptr(v.TableName)
		return &c
	case *dynamodb.DeleteItemInput:
		c := *v
		c.TableName = n.ptr(v.TableName)
		return &c
	case *dynamodb.QueryInput:
		c := *v
		c.TableName = n.ptr(v.TableName)
		return &c
	case *dynamodb.ScanInput:
		c := *v
		c.TableName = n.ptr(v.TableName)
		return &c
	case *dynamodb.CreateTableInput:
		c := *v
		c.TableName = n.ptr(v.TableName)
		return &c
	case *dynamodb.DeleteTableInput:
		c := *v
		c.TableName = n.ptr(v.TableName)
		return &c
	case *dynamodb.UpdateTableInput:
		c := *v
		c.TableName = n.ptr(v.TableName)
		return &c
	case *dynamodb.DescribeTableInput:
		c := *v
		c.TableName = n.ptr(v.TableName)
		return &c
	case *dynamodb.UpdateTimeToLiveInput:
		c := *v
		c.TableName = n.ptr(v.TableName)
		return &c
	case *dynamodb.DescribeTimeToLiveInput:
		c := *v
		c.TableName = n.ptr(v.TableName)
		return &c
	case *dynamodb.ListTablesInput:
		c := *v
		return &c
	case *dynamodb.DescribeLimitsInput:
		c := *v
		return &c
	case *dynamodb.BatchGetItemInput:
		c := *v
		if v.RequestItems != nil {
			c.RequestItems = map[string]types.KeysAndAttributes{}
			for k, r := range v.RequestItems {
				c.RequestItems[n.get(k)] = r
			}
		}
		return &c
	case *dynamodb.BatchWriteItemInput:
		c := *v
		if v.RequestItems != nil {
			c.RequestItems = map[string][]types.WriteRequest{}
			for k, r := range v.RequestItems {
				c.RequestItems[n.get(k)] = r
			}
		}
		return &c
	case *dynamodb.TransactWriteItemsInput:
		c := *v
		c.ClientRequestToken = n.ptr(v.ClientRequestToken)
		c.TransactItems = make([]types.TransactWriteItem, len(v.TransactItems))
		for i, it := range v.TransactItems {
			if it.Put != nil {
				p := *it.Put
				p.TableName = n.ptr(p.TableName)
				it.Put = &p
			}
			if it.Update != nil {
				p := *it.Update
				p.TableName = n.ptr(p.TableName)
				it.Update = &p
			}
			if it.Delete != nil {
				p := *it.Delete
				p.TableName = n.ptr(p.TableName)
				it.Delete = &p
			}
			if it.ConditionCheck != nil {
				p := *it.ConditionCheck
				p.TableName = n.ptr(p.TableName)
				it.ConditionCheck = &p
			}
			c.TransactItems[i] = it
		}
		return &c
	case *dynamodb.ExecuteStatementInput:
		c := *v
		c.Statement = n.statement(v.Statement)
		return &c
	case *ExecuteStatementAllInput:
		c := *v
		c.In = n.rewrite(v.In).(*dynamodb.ExecuteStatementInput)
		return &c
	case *dynamodb.BatchExecuteStatementInput:
		c := *v
		if v.Statements != nil {
			c.Statements = make([]types.BatchStatementRequest, len(v.Statements))
			for i, st := range v.Statements {
				st.Statement = n.statement(st.Statement)
				c.Statements[i] = st
			}
		}
		return &c
	case *dynamodb.ExecuteTransactionInput:
		c := *v
		c.ClientRequestToken = n.ptr(v.ClientRequestToken)
		if v.TransactStatements != nil {
			c.TransactStatements = make([]types.ParameterizedStatement, len(v.TransactStatements))
			for i, st := range v.TransactStatements {
				st.Statement = n.statement(st.Statement)
				c.TransactStatements[i] = st
			}
		}
		return &c
	case *dynamodb.TransactGetItemsInput:
		c := *v
		c.TransactItems = make([]types.TransactGetItem, len(v.TransactItems))
		for i, it := range v.TransactItems {
			if it.Get != nil {
				p := *it.Get
				p.TableName = n.ptr(p.TableName)
				it.Get = &p
			}
			c.TransactItems[i] = it
		}
		return &c
	}
	panic(fmt.Sprintf("conformance: unknown input type %T", in))
}

// statementTable is a table named in a PartiQL statement: a double-quoted
// identifier right after FROM, INTO or UPDATE (DELETE FROM and
// EXISTS(SELECT ... FROM included). An index part ("T"."byX") follows the
// match and is kept.
var statementTable = regexp.MustCompile(`(?i)\b(FROM|INTO|UPDATE)(\s+)"([^"]*)"`)

// statement returns a PartiQL statement with the real names of its
// tables (cases write every table as a double-quoted identifier after
// FROM, INTO or UPDATE).
func (n *nameMap) statement(p *string) *string {
	if p == nil {
		return nil
	}
	return aws.String(statementTable.ReplaceAllStringFunc(*p, func(m string) string {
		g := statementTable.FindStringSubmatch(m)
		return g[1] + g[2] + `"` + n.get(g[3]) + `"`
	}))
}

// ExecuteStatementAllInput pages through an ExecuteStatement (following
// NextToken). Its output lists every page, or, with Sorted, the sorted
// union of the pages' items and the page count: a SELECT that scans
// returns items in the implementation's hash order, as a Scan does.
type ExecuteStatementAllInput struct {
	In     *dynamodb.ExecuteStatementInput
	Sorted bool
}

type executeStatementAllOutput struct {
	Pages  []*dynamodb.ExecuteStatementOutput
	Sorted bool
}

func executeStatementAll(ctx context.Context, c entity.Client, in *ExecuteStatementAllInput) (any, error) {
	out := &executeStatementAllOutput{Sorted: in.Sorted}
	p := *in.In
	for {
		o, err := call(ctx, c, &p)
		if err != nil {
			return nil, err
		}
		page := o.(*dynamodb.ExecuteStatementOutput)
		out.Pages = append(out.Pages, page)
		if page.NextToken == nil {
			return out, nil
		}
		if len(out.Pages) >= 100 {
			return nil, errors.New("conformance: ExecuteStatement: too many pages")
		}
		p.NextToken = page.NextToken
	}
}

// opName is the operation name of an input ("PutItem").
func opName(in any) string {
	return strings.TrimSuffix(reflect.TypeOf(in).Elem().Name(), "Input")
}

// call runs one operation. A panic in the client becomes an error, so a
// crashing engine fails its case instead of the whole suite.
func call(ctx context.Context, c entity.Client, in any) (out any, err error) {
	defer func() {
		if r := recover(); r != nil {
			out, err = nil, fmt.Errorf("panic: %v", r)
		}
	}()
	switch v := in.(type) {
	case *dynamodb.PutItemInput:
		return c.PutItem(ctx, v)
	case *dynamodb.GetItemInput:
		return c.GetItem(ctx, v)
	case *dynamodb.UpdateItemInput:
		return c.UpdateItem(ctx, v)
	case *dynamodb.DeleteItemInput:
		return c.DeleteItem(ctx, v)
	case *dynamodb.QueryInput:
		return c.Query(ctx, v)
	case *dynamodb.ScanInput:
		return c.Scan(ctx, v)
	case *dynamodb.CreateTableInput:
		return c.CreateTable(ctx, v)
	case *dynamodb.DeleteTableInput:
		return c.DeleteTable(ctx, v)
	case *dynamodb.DescribeTableInput:
		return c.DescribeTable(ctx, v)
	case *dynamodb.UpdateTimeToLiveInput:
		return c.UpdateTimeToLive(ctx, v)
	case *dynamodb.ListTablesInput:
		return c.ListTables(ctx, v)
	case *dynamodb.DescribeLimitsInput:
		d, ok := c.(interface {
			DescribeLimits(context.Context, *dynamodb.DescribeLimitsInput, ...func(*dynamodb.Options)) (*dynamodb.DescribeLimitsOutput, error)
		})
		if !ok {
			return nil, fmt.Errorf("conformance: %T has no DescribeLimits", c)
		}
		return d.DescribeLimits(ctx, v)
	case *dynamodb.DescribeTimeToLiveInput:
		d, ok := c.(interface {
			DescribeTimeToLive(context.Context, *dynamodb.DescribeTimeToLiveInput, ...func(*dynamodb.Options)) (*dynamodb.DescribeTimeToLiveOutput, error)
		})
		if !ok {
			return nil, fmt.Errorf("conformance: %T has no DescribeTimeToLive", c)
		}
		return d.DescribeTimeToLive(ctx, v)
	case *dynamodb.UpdateTableInput:
		u, ok := c.(interface {
			UpdateTable(context.Context, *dynamodb.UpdateTableInput, ...func(*dynamodb.Options)) (*dynamodb.UpdateTableOutput, error)
		})
		if !ok {
			return nil, fmt.Errorf("conformance: %T has no UpdateTable", c)
		}
		return u.UpdateTable(ctx, v)
	case *dynamodb.BatchGetItemInput:
		return c.BatchGetItem(ctx, v)
	case *dynamodb.BatchWriteItemInput:
		return c.BatchWriteItem(ctx, v)
	case *dynamodb.TransactWriteItemsInput:
		return c.TransactWriteItems(ctx, v)
	case *dynamodb.TransactGetItemsInput:
		return c.TransactGetItems(ctx, v)
	case *dynamodb.ExecuteStatementInput:
		x, ok := c.(interface {
			ExecuteStatement(context.Context, *dynamodb.ExecuteStatementInput, ...func(*dynamodb.Options)) (*dynamodb.ExecuteStatementOutput, error)
		})
		if !ok {
			return nil, fmt.Errorf("conformance: %T has no ExecuteStatement", c)
		}
		return x.ExecuteStatement(ctx, v)
	case *ExecuteStatementAllInput:
		return executeStatementAll(ctx, c, v)
	case *dynamodb.BatchExecuteStatementInput:
		x, ok := c.(interface {
			BatchExecuteStatement(context.Context, *dynamodb.BatchExecuteStatementInput, ...func(*dynamodb.Options)) (*dynamodb.BatchExecuteStatementOutput, error)
		})
		if !ok {
			return nil, fmt.Errorf("conformance: %T has no BatchExecuteStatement", c)
		}
		return x.BatchExecuteStatement(ctx, v)
	case *dynamodb.ExecuteTransactionInput:
		x, ok := c.(interface {
			ExecuteTransaction(context.Context, *dynamodb.ExecuteTransactionInput, ...func(*dynamodb.Options)) (*dynamodb.ExecuteTransactionOutput, error)
		})
		if !ok {
			return nil, fmt.Errorf("conformance: %T has no ExecuteTransaction", c)
		}
		return x.ExecuteTransaction(ctx, v)
	}
	return nil, fmt.Errorf("conformance: unknown input type %T", in)
}

// result is the normalized outcome of a step.
type result struct {
	Out      any      `json:",omitempty"`
	Capacity any      `json:",omitempty"`
	Err      *errInfo `json:",omitempty"`
}

type errInfo struct {
	Kind    string
	Code    string
	Message string   `json:",omitempty"`
	Item    any      `json:",omitempty"`
	Reasons []reason `json:",omitempty"`
	// Detail is the full error text, shown in failures but not compared.
	Detail string `json:"-"`
}

type reason struct {
	Code string
	Item any `json:",omitempty"`
}

// normErr reduces an error to its kind, code and the data it carries.
func normErr(err error, msg bool, n *nameMap) *errInfo {
	if err == nil {
		return nil
	}
	e := &errInfo{Kind: "other", Detail: err.Error()}
	var api smithy.APIError
	if errors.As(err, &api) {
		e.Code = api.ErrorCode()
		if msg {
			e.Message = api.ErrorMessage()
		}
	} else {
		e.Code = "non-API error"
		if msg {
			e.Message = err.Error()
		}
	}
	var ccf *types.ConditionalCheckFailedException
	var tce *types.TransactionCanceledException
	var rnf *types.ResourceNotFoundException
	var riu *types.ResourceInUseException
	var dup *types.DuplicateItemException
	switch {
	case errors.As(err, &ccf):
		e.Kind = eCond
		e.Item = nonEmpty(plainOf(ccf.Item, n))
	case errors.As(err, &tce):
		e.Kind = eTxn
		for _, r := range tce.CancellationReasons {
			e.Reasons = append(e.Reasons, reason{Code: aws.ToString(r.Code), Item: nonEmpty(plainOf(r.Item, n))})
		}
	case errors.As(err, &rnf):
		e.Kind = eNotFound
	case errors.As(err, &riu):
		e.Kind = eInUse
	case errors.As(err, &dup), e.Code == "DuplicateItem", e.Code == "DuplicateItemException":
		e.Kind = eDup
	case e.Code == "ValidationException":
		e.Kind = eValid
	}
	return e
}

// nonEmpty maps an empty item to nil: an absent and an empty item carry
// the same information.
func nonEmpty(p any) any {
	if empty(p) {
		return nil
	}
	return p
}

// target is one side of the comparison.
type target struct {
	name string
	c    entity.Client
}

// exec runs a step on one target and returns its normalized result.
func exec(ctx context.Context, tg target, s step, n *nameMap) result {
	in := n.rewrite(s.in)
	switch s.mode {
	case modeScanAll:
		return scanAllPages(ctx, tg.c, in.(*dynamodb.ScanInput), s, n)
	case modeQueryAll:
		return queryAllPages(ctx, tg.c, in.(*dynamodb.QueryInput), s, n)
	case modeListAll:
		return listAllTables(ctx, tg.c, n)
	}
	start := time.Now()
	out, err := call(ctx, tg.c, in)
	if tg.name == "DynamoDB Local" {
		opTimes.add(opName(in), time.Since(start))
		for attempt := 1; attempt <= 4 && tableOp(in) && isInternalFailure(err); attempt++ {
			// DynamoDB Local, loaded by the suite's parallel cases, now
			// and then answers a table operation with a 500
			// InternalFailure several times in a row (the SDK has already
			// retried it). No case expects that from a table operation:
			// send it again, later.
			time.Sleep(time.Duration(attempt) * 300 * time.Millisecond)
			out, err = call(ctx, tg.c, in)
		}
	}
	if err != nil {
		return result{Err: normErr(err, s.msg, n)}
	}
	r := result{Out: normOut(out, n)}
	if s.capacity {
		r.Capacity = capacityOf(out, n)
	}
	return r
}

// tableOp reports whether in is a table operation (creating, updating or
// deleting a table or its time to live), which DynamoDB Local is seen to
// fail now and then under load.
func tableOp(in any) bool {
	switch in.(type) {
	case *dynamodb.CreateTableInput, *dynamodb.UpdateTableInput, *dynamodb.DeleteTableInput, *dynamodb.UpdateTimeToLiveInput:
		return true
	}
	return false
}

// isInternalFailure reports whether err is DynamoDB's InternalFailure.
func isInternalFailure(err error) bool {
	var ae smithy.APIError
	return errors.As(err, &ae) && ae.ErrorCode() == "InternalFailure"
}

// capacityOf returns the ConsumedCapacity field of an output as a plain
// tree (a list of them is sorted by table name).
func capacityOf(out any, n *nameMap) any {
	v := reflect.ValueOf(out)
	if v.Kind() == reflect.Pointer {
		v = v.Elem()
	}
	if v.Kind() != reflect.Struct {
		return nil
	}
	f := v.FieldByName("ConsumedCapacity")
	if !f.IsValid() {
		return nil
	}
	p := plain(f, n)
	if l, ok := p.([]any); ok {
		sortItems(l)
		for _, c := range l {
			dropZeroTable(c)
		}
	} else {
		dropZeroTable(p)
	}
	return p
}

// dropZeroTable leaves out of a ConsumedCapacity the table's part of 0
// units, which DynamoDB (and the engine) lists for a read of an index
// alone with INDEXES and DynamoDB Local leaves out (dynalite's suite
// records DynamoDB's; package ddbmem's tests check the engine's).
func dropZeroTable(c any) {
	m, ok := c.(map[string]any)
	if !ok {
		return
	}
	if t, ok := m["Table"].(map[string]any); ok && len(t) == 1 && t["CapacityUnits"] == float64(0) {
		delete(m, "Table")
	}
}

// opTimes sums DynamoDB Local's time per operation (logged by
// TestConformance with CONFORMANCE_LOG=1).
var opTimes = &opTimer{m: map[string]time.Duration{}, n: map[string]int{}}

type opTimer struct {
	mu sync.Mutex
	m  map[string]time.Duration
	n  map[string]int
}

func (o *opTimer) add(op string, d time.Duration) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.m[op] += d
	o.n[op]++
}

func (o *opTimer) String() string {
	o.mu.Lock()
	defer o.mu.Unlock()
	var b strings.Builder
	for op, d := range o.m {
		fmt.Fprintf(&b, "%s: %d calls, %v\n", op, o.n[op], d.Round(time.Millisecond))
	}
	return b.String()
}

func scanAllPages(ctx context.Context, c entity.Client, in *dynamodb.ScanInput, s step, n *nameMap) result {
	segs := int32(1)
	if in.TotalSegments != nil {
		segs = *in.TotalSegments
	}
	var items []any
	count, scanned, pages := 0, 0, 0
	for seg := int32(0); seg < segs; seg++ {
		p := *in
		if in.TotalSegments != nil {
			p.Segment = aws.Int32(seg)
		}
		for {
			out, err := call(ctx, c, &p)
			if err != nil {
				return result{Err: normErr(err, s.msg, n)}
			}
			o := out.(*dynamodb.ScanOutput)
			pages++
			if pages > 1000 {
				return result{Err: &errInfo{Kind: "other", Code: "too many pages"}}
			}
			for _, it := range o.Items {
				items = append(items, plainOf(it, n))
			}
			count += int(o.Count)
			scanned += int(o.ScannedCount)
			if len(o.LastEvaluatedKey) == 0 {
				break
			}
			p.ExclusiveStartKey = o.LastEvaluatedKey
		}
	}
	sortItems(items)
	m := map[string]any{"Items": items, "Count": count, "ScannedCount": scanned}
	if in.TotalSegments == nil {
		// With segments the page count depends on how items hash into
		// segments, which is not part of the contract.
		m["Pages"] = pages
	}
	return result{Out: m}
}

func queryAllPages(ctx context.Context, c entity.Client, in *dynamodb.QueryInput, s step, n *nameMap) result {
	var pages []any
	p := *in
	for npages := 1; ; npages++ {
		out, err := call(ctx, c, &p)
		if err != nil {
			return result{Out: pages, Err: normErr(err, s.msg, n)}
		}
		o := out.(*dynamodb.QueryOutput)
		if s.localDiffers != "" || s.tiesUnordered {
			if len(pages) == 0 {
				pages = []any{map[string]any{"Count": 0, "Items": []any{}}}
			}
			m := pages[0].(map[string]any)
			m["Count"] = m["Count"].(int) + int(o.Count)
			for _, it := range o.Items {
				m["Items"] = append(m["Items"].([]any), plainOf(it, n))
			}
			if s.tiesUnordered {
				m["Pages"] = npages
			}
		} else {
			pages = append(pages, normOut(o, n))
		}
		if len(pages) > 1000 {
			return result{Err: &errInfo{Kind: "other", Code: "too many pages"}}
		}
		if len(o.LastEvaluatedKey) == 0 {
			break
		}
		p.ExclusiveStartKey = o.LastEvaluatedKey
	}
	if s.tiesUnordered {
		sortItems(pages[0].(map[string]any)["Items"].([]any))
	}
	return result{Out: pages}
}

func listAllTables(ctx context.Context, c entity.Client, n *nameMap) result {
	var mine []string
	in := &dynamodb.ListTablesInput{}
	for {
		out, err := c.ListTables(ctx, in)
		if err != nil {
			return result{Err: normErr(err, false, n)}
		}
		for _, name := range out.TableNames {
			if l := n.logical(name); l != name {
				mine = append(mine, l)
			}
		}
		if out.LastEvaluatedTableName == nil {
			break
		}
		in = &dynamodb.ListTablesInput{ExclusiveStartTableName: out.LastEvaluatedTableName}
	}
	sort.Strings(mine)
	return result{Out: mine}
}

// ---------------------------------------------------------------------------
// Normalization: outputs become plain trees of maps, slices, strings and
// numbers, which go-cmp diffs readably.

var avType = reflect.TypeOf((*types.AttributeValue)(nil)).Elem()

// skipFields are dropped from every output struct (ConsumedCapacity is
// compared apart, by steps that ask for it).
var skipFields = map[string]bool{
	"ResultMetadata":   true,
	"ConsumedCapacity": true,
}

// keepFields whitelists the fields of description structs: ARNs, times,
// sizes, counts, the table's throughput and billing summaries are not
// compared; a global index's read and write units are.
var keepFields = map[reflect.Type]map[string]bool{
	reflect.TypeOf(types.TableDescription{}): set("TableName", "KeySchema", "AttributeDefinitions",
		"GlobalSecondaryIndexes", "LocalSecondaryIndexes", "TableStatus", "DeletionProtectionEnabled"),
	reflect.TypeOf(types.GlobalSecondaryIndexDescription{}):  set("IndexName", "KeySchema", "Projection", "IndexStatus", "ProvisionedThroughput"),
	reflect.TypeOf(types.ProvisionedThroughputDescription{}): set("ReadCapacityUnits", "WriteCapacityUnits"),
	reflect.TypeOf(types.LocalSecondaryIndexDescription{}):   set("IndexName", "KeySchema", "Projection"),
}

func set(s ...string) map[string]bool {
	m := map[string]bool{}
	for _, x := range s {
		m[x] = true
	}
	return m
}

func plainOf(v any, n *nameMap) any { return plain(reflect.ValueOf(v), n) }

func normOut(out any, n *nameMap) any {
	p := plainOf(out, n)
	m, _ := p.(map[string]any)
	switch o := out.(type) {
	case *dynamodb.ScanOutput:
		// Scan order is the hash order of the implementation.
		if items, ok := m["Items"].([]any); ok {
			sortItems(items)
		}
	case *dynamodb.BatchGetItemOutput:
		if r, ok := m["Responses"].(map[string]any); ok {
			for _, v := range r {
				if items, ok := v.([]any); ok {
					sortItems(items)
				}
			}
		}
	case *dynamodb.ExecuteStatementOutput:
		// NextToken is opaque and differs between servers: only whether
		// there is one is compared. LastEvaluatedKey, which DynamoDB
		// documents in ExecuteStatement's answer, DynamoDB Local leaves
		// out: the engine returns it (ddbmem's TestPartiQLPaging).
		if m != nil && m["NextToken"] != nil {
			m["NextToken"] = "<token>"
		}
		delete(m, "LastEvaluatedKey")
	case *executeStatementAllOutput:
		if o.Sorted {
			items := []any{}
			for _, pg := range o.Pages {
				for _, it := range pg.Items {
					items = append(items, plainOf(it, n))
				}
			}
			sortItems(items)
			return map[string]any{"Items": items, "Pages": len(o.Pages)}
		}
		pages := make([]any, len(o.Pages))
		for i, pg := range o.Pages {
			pages[i] = normOut(pg, n)
		}
		return pages
	case *dynamodb.DescribeTableOutput, *dynamodb.CreateTableOutput, *dynamodb.UpdateTableOutput:
		sortDescription(m)
	case *dynamodb.DeleteTableOutput:
		sortDescription(m)
		// DynamoDB answers DeleteTable with TableStatus DELETING; DynamoDB
		// Local deletes at once and answers ACTIVE (its usage notes: tables
		// change state immediately, https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/DynamoDBLocal.UsageNotes.html).
		// The status is not compared.
		if d, ok := m["TableDescription"].(map[string]any); ok {
			delete(d, "TableStatus")
		}
	}
	return p
}

// sortDescription orders attribute definitions and indexes by name: their
// order carries no meaning.
func sortDescription(m map[string]any) {
	for _, k := range []string{"Table", "TableDescription"} {
		d, ok := m[k].(map[string]any)
		if !ok {
			continue
		}
		for _, f := range []string{"AttributeDefinitions", "GlobalSecondaryIndexes", "LocalSecondaryIndexes"} {
			if l, ok := d[f].([]any); ok {
				sortItems(l)
			}
		}
	}
}

func sortItems(items []any) {
	keys := make([]string, len(items))
	for i, it := range items {
		b, _ := json.Marshal(it)
		keys[i] = string(b)
	}
	sort.Sort(byKey{items, keys})
}

type byKey struct {
	items []any
	keys  []string
}

func (b byKey) Len() int           { return len(b.items) }
func (b byKey) Less(i, j int) bool { return b.keys[i] < b.keys[j] }
func (b byKey) Swap(i, j int) {
	b.items[i], b.items[j] = b.items[j], b.items[i]
	b.keys[i], b.keys[j] = b.keys[j], b.keys[i]
}

func plain(v reflect.Value, n *nameMap) any {
	if !v.IsValid() {
		return nil
	}
	if v.Kind() == reflect.Interface {
		if v.IsNil() {
			return nil
		}
		v = v.Elem()
	}
	if v.Type().Implements(avType) {
		if v.Kind() == reflect.Pointer && v.IsNil() {
			return nil
		}
		return avPlain(v.Interface().(types.AttributeValue), n != nil && n.canonNumbers)
	}
	switch v.Kind() {
	case reflect.Pointer:
		if v.IsNil() {
			return nil
		}
		return plain(v.Elem(), n)
	case reflect.Struct:
		if t, ok := v.Interface().(time.Time); ok {
			return t.String()
		}
		keep := keepFields[v.Type()]
		m := map[string]any{}
		for i := 0; i < v.NumField(); i++ {
			f := v.Type().Field(i)
			if !f.IsExported() || skipFields[f.Name] || (keep != nil && !keep[f.Name]) {
				continue
			}
			if p := plain(v.Field(i), n); !empty(p) {
				m[f.Name] = p
			}
		}
		return m
	case reflect.Slice:
		if v.Type().Elem().Kind() == reflect.Uint8 {
			return hex.EncodeToString(v.Bytes())
		}
		l := make([]any, v.Len())
		for i := range l {
			l[i] = plain(v.Index(i), n)
		}
		return l
	case reflect.Map:
		m := map[string]any{}
		for _, k := range v.MapKeys() {
			m[n.logical(fmt.Sprint(k.Interface()))] = plain(v.MapIndex(k), n)
		}
		return m
	case reflect.String:
		return n.logical(v.String())
	case reflect.Bool:
		return v.Bool()
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return v.Int()
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return int64(v.Uint())
	case reflect.Float32, reflect.Float64:
		return v.Float()
	}
	return fmt.Sprintf("<%s>", v.Type())
}

func empty(p any) bool {
	switch x := p.(type) {
	case nil:
		return true
	case string:
		return x == ""
	case bool:
		return !x
	case int64:
		return x == 0
	case float64:
		return x == 0
	case []any:
		return len(x) == 0
	case map[string]any:
		return len(x) == 0
	}
	return false
}

// avPlain converts an attribute value to a plain tree: {"S": "x"},
// {"N": "1.5"} (the number text exactly as returned), {"SS": [sorted]}, ...
// Set members are sorted: DynamoDB does not define their order.
func avPlain(av types.AttributeValue, canon bool) any {
	switch v := av.(type) {
	case *types.AttributeValueMemberS:
		return map[string]any{"S": v.Value}
	case *types.AttributeValueMemberN:
		if canon {
			return map[string]any{"N": canonNum(v.Value)}
		}
		return map[string]any{"N": v.Value}
	case *types.AttributeValueMemberB:
		return map[string]any{"B": hex.EncodeToString(v.Value)}
	case *types.AttributeValueMemberBOOL:
		return map[string]any{"BOOL": v.Value}
	case *types.AttributeValueMemberNULL:
		return map[string]any{"NULL": v.Value}
	case *types.AttributeValueMemberSS:
		s := append([]string(nil), v.Value...)
		sort.Strings(s)
		return map[string]any{"SS": s}
	case *types.AttributeValueMemberNS:
		s := append([]string(nil), v.Value...)
		if canon {
			for i := range s {
				s[i] = canonNum(s[i])
			}
		}
		sort.Strings(s)
		return map[string]any{"NS": s}
	case *types.AttributeValueMemberBS:
		s := make([]string, len(v.Value))
		for i, b := range v.Value {
			s[i] = hex.EncodeToString(b)
		}
		sort.Strings(s)
		return map[string]any{"BS": s}
	case *types.AttributeValueMemberL:
		l := make([]any, len(v.Value))
		for i, x := range v.Value {
			l[i] = avPlain(x, canon)
		}
		return map[string]any{"L": l}
	case *types.AttributeValueMemberM:
		m := map[string]any{}
		for k, x := range v.Value {
			m[k] = avPlain(x, canon)
		}
		return map[string]any{"M": m}
	case nil:
		return nil
	}
	return fmt.Sprintf("<unknown attribute value %T>", av)
}

// ---------------------------------------------------------------------------

// runCases runs each case as a parallel subtest.
func runCases(t *testing.T, cases []tc) {
	t.Helper()
	seen := map[string]bool{}
	for _, c := range cases {
		if seen[c.name] {
			t.Fatalf("duplicate case name %q", c.name)
		}
		seen[c.name] = true
	}
	lc := local(t)
	var wg, deletions sync.WaitGroup
	for _, c := range cases {
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer acquireSlot()()
			t.Run(c.name, func(t *testing.T) { runCase(t, lc, c, &deletions) })
		}()
	}
	wg.Wait()
	deletions.Wait()
}

// Cases run concurrently in caseSlots slots (CONFORMANCE_PARALLEL, default
// 6), whatever -parallel says: most of a case's time is spent waiting for
// DynamoDB Local to create and delete tables, and more cases in flight
// shorten the run (measured: 66 s with 2, 48 s with 8 on 2 cores).
var (
	slotsOnce sync.Once
	caseSlots chan struct{}
)

func acquireSlot() (release func()) {
	slotsOnce.Do(func() {
		n := 6
		if v, err := strconv.Atoi(os.Getenv("CONFORMANCE_PARALLEL")); err == nil && v > 0 {
			n = v
		}
		caseSlots = make(chan struct{}, n)
	})
	caseSlots <- struct{}{}
	return func() { <-caseSlots }
}

// caseMarked reports why a case may not fail on engine differences.
func caseMarked(c tc) string {
	if c.engineBug != "" {
		return c.engineBug
	}
	ops := []string{"CreateTable", "DeleteTable", "Scan", "PutItem"}
	for _, s := range c.steps {
		ops = append(ops, opName(s.in))
	}
	for _, op := range ops {
		if engineMissing[op] {
			return "engine lacks " + op
		}
	}
	return ""
}

// runCase runs one case; the deletion of its tables, started in the
// background when it ends, is tracked by deletions.
func runCase(t *testing.T, lc entity.Client, c tc, deletions *sync.WaitGroup) {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	n := newNameMap()
	loc := target{"DynamoDB Local", lc}
	eng := target{"engine", ddbmem.New()}
	// The same engine served over HTTP and called through the SDK's
	// client, on TCP as a client in another process reaches it, must
	// answer exactly as the engine does in process.
	srv, err := ddbmem.Serve(ddbmem.New(), "")
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	overHTTP := target{"engine over HTTP", ddbmem.NewEndpointClient(srv.URL())}
	sameOverHTTP := func(label string, s step, inProcess result) {
		t.Helper()
		if d := diffResults(inProcess, exec(ctx, overHTTP, s, n)); d != "" {
			t.Errorf("%s: the engine over HTTP differs from the engine in process (-in process +HTTP):\n%s\ninput: %s", label, d, js(s.in))
		}
	}
	marked := caseMarked(c)
	engineDiffs := 0
	t.Cleanup(func() {
		n.mu.Lock()
		var reals []string
		for _, r := range n.real {
			reals = append(reals, r)
		}
		n.mu.Unlock()
		// DynamoDB Local takes 0.1-0.5 s to delete a table: delete in the
		// background, and let runCases wait for all deletions.
		deletions.Add(1)
		go func() {
			defer deletions.Done()
			ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
			defer cancel()
			for _, r := range reals {
				_, _ = lc.DeleteTable(ctx, &dynamodb.DeleteTableInput{TableName: aws.String(r)})
				_, _ = call(ctx, eng.c, &dynamodb.DeleteTableInput{TableName: aws.String(r)})
			}
		}()
	})

	var steps []step
	for _, tb := range c.tables {
		steps = append(steps, do(tb))
	}
	// Seed items in batches of 25 (fewer round trips than PutItem).
	for i := 0; i < len(c.items); i += 25 {
		var reqs []types.WriteRequest
		for _, it := range c.items[i:min(i+25, len(c.items))] {
			reqs = append(reqs, types.WriteRequest{PutRequest: &types.PutRequest{Item: it}})
		}
		steps = append(steps, do(&dynamodb.BatchWriteItemInput{
			RequestItems: map[string][]types.WriteRequest{*c.tables[0].TableName: reqs}}))
	}
	steps = append(steps, c.steps...)
	diverged := false
	for _, s := range c.steps {
		if s.localDiffers != "" && s.mode == modeCall {
			diverged = true
		}
	}
	for _, tb := range c.tables {
		if diverged {
			break // the targets hold different data on purpose
		}
		steps = append(steps, step{in: &dynamodb.ScanInput{TableName: tb.TableName, ConsistentRead: aws.Bool(true)}, mode: modeScanAll, err: "any"})
	}

	for i, s := range steps {
		label := fmt.Sprintf("step %d (%s)", i, opName(s.in))
		if s.err != "" && s.err != "any" && !s.noMsg {
			s.msg = true
		}
		if s.localDiffers != "" && s.mode == modeCall {
			local := exec(ctx, loc, s, n)
			got := exec(ctx, eng, s, n)
			sameOverHTTP(label, s, got)
			if s.docWant != "" {
				t.Logf("%s: DynamoDB Local differs from DynamoDB (%s); it returned %s", label, s.localDiffers, js(local))
				var want, gotPlain any
				if err := json.Unmarshal([]byte(s.docWant), &want); err != nil {
					t.Fatalf("%s: bad docWant: %v", label, err)
				}
				_ = json.Unmarshal([]byte(jsFull(got)), &gotPlain)
				if d := cmp.Diff(want, gotPlain); d != "" {
					engineDiffs++
					report := t.Errorf
					if marked != "" {
						report = t.Logf
					}
					report("%s: engine differs from documented DynamoDB (-documented +engine):\n%s", label, d)
				}
				continue
			}
			t.Logf("%s: DynamoDB Local differs from DynamoDB (%s); it returned %s", label, s.localDiffers, js(local))
			gotKind := ""
			if got.Err != nil {
				gotKind = got.Err.Kind
			}
			if gotKind != s.err {
				engineDiffs++
				report := t.Errorf
				if marked != "" {
					report = t.Logf
				}
				report("%s: engine returned %q (%s), want %q as DynamoDB does", label, gotKind, js(got), s.err)
			}
			continue
		}
		want := exec(ctx, loc, s, n)
		if os.Getenv("CONFORMANCE_LOG") != "" {
			t.Logf("%s: DynamoDB Local: %s", label, js(want))
		}
		switch {
		case s.err == "any":
		case s.err == "" && want.Err != nil:
			t.Fatalf("%s: DynamoDB Local failed: %s", label, want.Err.Detail)
		case s.err != "" && want.Err == nil:
			t.Fatalf("%s: DynamoDB Local succeeded, want %s error; output %s", label, s.err, js(want.Out))
		case s.err != "" && want.Err.Kind != s.err:
			t.Fatalf("%s: DynamoDB Local returned %s (%s), want a %s error", label, want.Err.Kind, want.Err.Detail, s.err)
		}
		got := exec(ctx, eng, s, n)
		sameOverHTTP(label, s, got)
		if want.Err != nil && got.Err != nil && localOnlyMessage(want.Err.Message) {
			want.Err.Message, got.Err.Message = "", ""
		}
		if d := diffResults(want, got); d != "" {
			engineDiffs++
			if marked != "" {
				if engineDiffs == 1 {
					t.Logf("%s: engine differs (marked: %s) (-DynamoDB Local +engine):\n%s%s", label, marked, d, details(want, got))
				}
				continue
			}
			t.Errorf("%s: engine differs from DynamoDB Local (-DynamoDB Local +engine):\n%s%s\ninput: %s", label, d, details(want, got), js(s.in))
		}
	}
	if marked != "" && engineDiffs == 0 && c.engineBug != "" {
		t.Logf("case is marked %q but the engine now agrees: remove the marker", marked)
	}
}

// localOnlyMessages are the error messages of DynamoDB Local (or parts of
// them: a message that contains one, such as "ExpressionAttributeValues
// contains invalid value: " followed by one, is Local's too) that DynamoDB
// words otherwise; where Local returns one, the engine keeps
// DynamoDB's text and the message is not compared. DynamoDB's texts are
// those dynalite's test suite records from DynamoDB (see PEERS.md), and the
// AWS "1 validation error detected: Value ... at ... failed to satisfy
// constraint" form of request validation.
var localOnlyMessages = []string{
	"Member must have length less than or equal to 100", // DynamoDB: 1 validation error detected: Value '[...]' at 'transactItems' ...
	"Value [] at 'transactItems'",
	"Limit must be greater than or equal to 1",
	"If segment is specified, total segment must also be specified", // DynamoDB: The Segment parameter is non-null, ...
	"1 validation error detected: Value '0' at 'segment' failed to satisfy constraint: Member must have value less than or equal to -1",
	"Consistent read cannot be true when querying a GSI",                                           // DynamoDB: Consistent reads are not supported on global secondary indexes
	"Consistent read cannot be true when scanning a GSI",                                           // the same for a Scan
	"If total segments is specified, a particular segment must also be specified",                  // DynamoDB: The TotalSegments parameter is non-null, but the Segment parameter is not provided
	"Hash primary key values must be under 2048 bytes, and range primary key values must be under", // DynamoDB: Size of hashkey has exceeded ... / Aggregated size of all range keys ...
	"BatchWriteItem cannot have a null or no requests set",
	"The batch write request list for a table cannot be null or empty",
	"BatchGetItem must have some requests set",
	"Invalid table/index name.",
	"Two global secondary indices have the same name",                                            // DynamoDB: Duplicate index name: ...
	"The number of attributes in key schema must match",                                          // DynamoDB: Some AttributeDefinitions are not used ...
	"Local Secondary indices are not allowed on hash tables",                                     // DynamoDB: Table KeySchema does not have a range key ...
	"Hash Key not specified in Attribute Definitions.",                                           // DynamoDB: Some index key attributes are not defined ...
	"One or more parameter values were invalid: Input collection of type BS contains duplicates", // DynamoDB: Input collection [Yg==, Yg==]of type BS contains duplicates.
	"One or more parameter values were invalid: Input collection [",                              // DynamoDB: the same, with a final period
	"A value provided cannot be converted into a number",                                         // DynamoDB: The parameter cannot be converted to a numeric value: abc
	"DynamoDB only supports precision up to 38 digits",                                           // DynamoDB: Attempting to store more than 38 significant digits in a Number
	"Query condition missed key schema element",                                                  // DynamoDB: the same, naming the key attribute missed (": a")
	"One of the required keys was not given a value",                                             // DynamoDB: Missing the key a in the item (an item), The provided key element does not match the schema (a Key)
	"The number of conditions on the keys is invalid",                                            // DynamoDB: The provided key element does not match the schema
	"Exclusive Start Key must have same size as table's key schema",                              // DynamoDB: The provided starting key is invalid (: The provided key element does not match the schema, on a table's Scan)
	"Type mismatch for attribute to update",                                                      // DynamoDB, for a start key: The provided key element does not match the schema (an index's key), The provided starting key is invalid: ... (the table's)
	"Only scalar types can be used as Range Key values",                                          // DynamoDB, for a key condition NULL or NOT_NULL: Attempted conditional constraint is not an indexable operation
	"Exclusive start key must lie within the segment",                                            // DynamoDB: The provided starting key is invalid: Invalid ExclusiveStartKey. Please use ExclusiveStartKey with correct Segment. TotalSegments: 2 Segment: 0
	"One or more parameter values were invalid: Type mismatch for key",                           // DynamoDB, for an item: the same, then "a expected: S actual: N"
	"One or more parameter values were invalid: Type mismatch for Index Key",                     // DynamoDB: the same, then "c Expected: S Actual: N IndexName: i"
	"action is not supported for the type ",                                                      // DynamoDB names the type S, M, ... where DynamoDB Local says STRING, MAP, ...
	"action with value is not supported for the type ",                                           // the same for DELETE
	"No attributes should be specified to be projected unless projection type is INCLUDE",        // DynamoDB: ProjectionType is ALL, but NonKeyAttributes is specified
	"Cannot do operations on a non-existent table",                                               // DynamoDB: Requested resource not found (: Table: T not found, for table operations)
	"AttributesToGet cannot be empty",                                                            // DynamoDB: 1 validation error detected: Value '[]' at 'attributesToGet' ...
	"Cannot have two attributes with the same name",                                              // DynamoDB: One or more parameter values were invalid: Duplicate value in attribute name: a
	"Comparison type does not exist in DynamoDB",                                                 // DynamoDB: ... at 'scanFilter.n.member.comparisonOperator' ... enum value set: [IN, ...]
	"", // IdempotentParameterMismatchException: Local sends no message
}

func localOnlyMessage(m string) bool {
	for _, p := range localOnlyMessages {
		if p == "" && m == "" || p != "" && strings.Contains(m, p) {
			return true
		}
	}
	return false
}

// diffResults is cmp.Diff of two results, "" when they are equal. Equal
// JSON is equal results (Detail is not marshaled): checking it first
// spares cmp.Diff, whose slice diff takes time exponential in the depth
// of nested one-element lists (the nesting-limit cases).
func diffResults(a, b result) string {
	if jsFull(a) == jsFull(b) {
		return ""
	}
	return cmp.Diff(a, b, ignoreDetail)
}

var ignoreDetail = cmpopts.IgnoreFields(errInfo{}, "Detail")

func details(want, got result) string {
	var b strings.Builder
	if want.Err != nil {
		fmt.Fprintf(&b, "\nDynamoDB Local error: %s", want.Err.Detail)
	}
	if got.Err != nil {
		fmt.Fprintf(&b, "\nengine error: %s", got.Err.Detail)
	}
	return b.String()
}

// jsFull is js without the length cap.
func jsFull(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprintf("%+v", v)
	}
	return string(b)
}

func js(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprintf("%+v", v)
	}
	if len(b) > 2000 {
		b = append(b[:2000], "..."...)
	}
	return string(b)
}

// canonNum returns the text DynamoDB returns for the number s: plain
// decimal notation, no exponent, no leading or trailing zeros, "0" for
// zero. Text that is not a number is returned unchanged.
func canonNum(s string) string {
	orig := s
	neg := false
	switch {
	case strings.HasPrefix(s, "-"):
		neg, s = true, s[1:]
	case strings.HasPrefix(s, "+"):
		s = s[1:]
	}
	exp := 0
	if i := strings.IndexAny(s, "eE"); i >= 0 {
		e, err := strconv.Atoi(s[i+1:])
		if err != nil {
			return orig
		}
		exp, s = e, s[:i]
	}
	intPart, frac := s, ""
	if i := strings.IndexByte(s, '.'); i >= 0 {
		intPart, frac = s[:i], s[i+1:]
	}
	digits := intPart + frac
	if digits == "" || strings.Trim(digits, "0123456789") != "" {
		return orig
	}
	point := len(intPart) + exp
	for len(digits) > 0 && digits[0] == '0' {
		digits, point = digits[1:], point-1
	}
	digits = strings.TrimRight(digits, "0")
	if digits == "" {
		return "0"
	}
	var out string
	switch {
	case point <= 0:
		out = "0." + strings.Repeat("0", -point) + digits
	case point >= len(digits):
		out = digits + strings.Repeat("0", point-len(digits))
	default:
		out = digits[:point] + "." + digits[point:]
	}
	if neg {
		out = "-" + out
	}
	return out
}
