package entity

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"github.com/tablekit/tablekit/retry"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/tablekit/tablekit/entity/internal/ddbjson"
)

// Index describes a global or local secondary index of a [Table].
type Index struct {
	// Name is the index name, for instance "Type_CreatedAt".
	Name string
	// PK is the partition-key attribute. For a local index it must be
	// empty or equal to the table's PK attribute.
	PK string
	// SK is the sort-key attribute; "" for an index without one.
	SK string
	// PKType and SKType are the key attribute types; the zero value means
	// types.ScalarAttributeTypeS (string).
	PKType, SKType types.ScalarAttributeType
	// Projection is the projected attribute set; the zero value means
	// types.ProjectionTypeAll.
	Projection types.ProjectionType
	// NonKeyAttrs lists the projected attributes when Projection is
	// types.ProjectionTypeInclude.
	NonKeyAttrs []string
}

// Options configures a [Table]. The zero value gives the common
// single-table layout: string keys "PK" and "SK", a "Type" attribute, no
// indexes, no TTL, on-demand billing.
type Options struct {
	// PK and SK are the primary key attribute names; default "PK" and "SK".
	// Set NoSortKey for a table without a sort key.
	PK, SK    string
	NoSortKey bool
	// TypeAttr names the attribute holding the entity type; default "Type".
	TypeAttr string
	// TTLAttr names the table's time-to-live attribute; "" (default) for
	// none. EnsureTable enables TTL on it.
	TTLAttr string
	// GSIs and LSIs are the table's secondary indexes.
	GSIs []Index
	LSIs []Index
	// BillingMode defaults to types.BillingModePayPerRequest. With
	// types.BillingModeProvisioned, ReadCapacity and WriteCapacity are used
	// for the table and every GSI (default 5 each).
	BillingMode                 types.BillingMode
	ReadCapacity, WriteCapacity int64
	// Tracer sees every request start and end, with the call's context
	// (see [Tracer]); nil (default) traces nothing. [CallOptions].Trace
	// replaces it for one call. The runtime never logs.
	Tracer Tracer
	// Retry paces the loops the runtime owns (batch leftovers and
	// throttled batch chunks, transaction conflicts): the one
	// [retry.Strategy] shape that lock and idempotency take too. nil means
	// [DefaultRetry]. Single requests rely on the SDK's own retryer.
	Retry retry.Strategy
	// Now is the clock of the automatic timestamps; nil means time.Now.
	Now func() time.Time
	// StandardDecoder turns off the runtime's fast JSON codec, on by
	// default with *dynamodb.Client: its encoder writes the GetItem,
	// PutItem, UpdateItem, DeleteItem, Query and Scan requests, byte for
	// byte as the SDK's serializer does, in a fraction of its time; its
	// decoder reads the item-bearing responses (GetItem, Query, Scan, and
	// the returned attributes of a Store's PutItem, UpdateItem and
	// DeleteItem), building the same values as the SDK's decoder with far
	// fewer allocations, its strings sharing the response's memory. Both
	// fall back to the SDK for anything unusual.
	StandardDecoder bool
	// CursorKey signs query cursors (HMAC-SHA256, package query). When
	// empty, a random key generated once per process is used: cursors then
	// do not survive a restart nor travel between processes. Configure a
	// secret of at least 32 bytes in production.
	CursorKey []byte
}

// Table is one DynamoDB table and its schema. Build it with [NewTable]; it
// is safe for concurrent use and must not be modified after first use.
type Table struct {
	client  Client
	name    string
	opts    Options
	sdkOpts []func(*dynamodb.Options)
}

var processCursorKey = func() []byte {
	b := make([]byte, 32)
	_, _ = rand.Read(b)
	return b
}()

// NewTable returns the table name on client, configured by optFns. The
// name is injectable so each environment can use its own table.
func NewTable(client Client, name string, optFns ...func(*Options)) *Table {
	o := Options{}
	for _, fn := range optFns {
		fn(&o)
	}
	if o.PK == "" {
		o.PK = "PK"
	}
	if o.SK == "" && !o.NoSortKey {
		o.SK = "SK"
	}
	if o.NoSortKey {
		o.SK = ""
	}
	if o.TypeAttr == "" {
		o.TypeAttr = "Type"
	}
	if o.BillingMode == "" {
		o.BillingMode = types.BillingModePayPerRequest
	}
	if o.ReadCapacity == 0 {
		o.ReadCapacity = 5
	}
	if o.WriteCapacity == 0 {
		o.WriteCapacity = 5
	}
	if o.Retry == nil {
		o.Retry = DefaultRetry
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if len(o.CursorKey) == 0 {
		o.CursorKey = processCursorKey
	}
	for i := range o.LSIs {
		if o.LSIs[i].PK == "" {
			o.LSIs[i].PK = o.PK
		}
	}
	t := &Table{client: client, name: name, opts: o}
	if !o.StandardDecoder {
		t.sdkOpts = []func(*dynamodb.Options){ddbjson.Use}
	}
	return t
}

// SDKOptions returns the per-call options the runtime passes to the
// client's read calls and a Store's single-item writes (the fast response
// decoder unless
// Options.StandardDecoder). Packages built on the runtime pass them too.
func (t *Table) SDKOptions() []func(*dynamodb.Options) {
	return t.sdkOpts
}

// Name returns the table name.
func (t *Table) Name() string { return t.name }

// Client returns the client the table sends requests to.
func (t *Table) Client() Client { return t.client }

// Options returns a copy of the table's resolved options.
func (t *Table) Options() Options { return t.opts }

// PKAttr returns the partition-key attribute name.
func (t *Table) PKAttr() string { return t.opts.PK }

// SKAttr returns the sort-key attribute name, "" when the table has none.
func (t *Table) SKAttr() string { return t.opts.SK }

// TypeAttr returns the name of the entity-type attribute.
func (t *Table) TypeAttr() string { return t.opts.TypeAttr }

// CursorKey returns the key that signs query cursors.
func (t *Table) CursorKey() []byte { return t.opts.CursorKey }

// Index returns the named GSI or LSI and whether it exists.
func (t *Table) Index(name string) (Index, bool) {
	for _, ix := range t.opts.GSIs {
		if ix.Name == name {
			return ix, true
		}
	}
	for _, ix := range t.opts.LSIs {
		if ix.Name == name {
			return ix, true
		}
	}
	return Index{}, false
}

// KeyAttrs returns the key attribute names of the table (index "") or of
// the named index, in the order partition, sort (sort omitted when absent).
func (t *Table) KeyAttrs(index string) ([]string, error) {
	if index == "" {
		if t.opts.SK == "" {
			return []string{t.opts.PK}, nil
		}
		return []string{t.opts.PK, t.opts.SK}, nil
	}
	ix, ok := t.Index(index)
	if !ok {
		return nil, &ValidationError{Op: "Index", Field: index, Err: errors.New("no such index")}
	}
	if ix.SK == "" {
		return []string{ix.PK}, nil
	}
	return []string{ix.PK, ix.SK}, nil
}

func orS(t types.ScalarAttributeType) types.ScalarAttributeType {
	if t == "" {
		return types.ScalarAttributeTypeS
	}
	return t
}

func (ix Index) projection() *types.Projection {
	p := &types.Projection{ProjectionType: ix.Projection}
	if p.ProjectionType == "" {
		p.ProjectionType = types.ProjectionTypeAll
	}
	if p.ProjectionType == types.ProjectionTypeInclude {
		p.NonKeyAttributes = ix.NonKeyAttrs
	}
	return p
}

func keySchema(pk, sk string) []types.KeySchemaElement {
	ks := []types.KeySchemaElement{{AttributeName: aws.String(pk), KeyType: types.KeyTypeHash}}
	if sk != "" {
		ks = append(ks, types.KeySchemaElement{AttributeName: aws.String(sk), KeyType: types.KeyTypeRange})
	}
	return ks
}

// CreateTableInput returns the CreateTable request for the schema.
func (t *Table) CreateTableInput() *dynamodb.CreateTableInput {
	o := t.opts
	defs := map[string]types.ScalarAttributeType{}
	var order []string
	def := func(name string, typ types.ScalarAttributeType) {
		if name == "" {
			return
		}
		if _, ok := defs[name]; !ok {
			order = append(order, name)
		}
		defs[name] = orS(typ)
	}
	def(o.PK, "")
	def(o.SK, "")
	in := &dynamodb.CreateTableInput{
		TableName:   aws.String(t.name),
		KeySchema:   keySchema(o.PK, o.SK),
		BillingMode: o.BillingMode,
	}
	prov := func() *types.ProvisionedThroughput {
		if o.BillingMode != types.BillingModeProvisioned {
			return nil
		}
		return &types.ProvisionedThroughput{ReadCapacityUnits: aws.Int64(o.ReadCapacity), WriteCapacityUnits: aws.Int64(o.WriteCapacity)}
	}
	in.ProvisionedThroughput = prov()
	for _, ix := range o.GSIs {
		def(ix.PK, ix.PKType)
		def(ix.SK, ix.SKType)
		in.GlobalSecondaryIndexes = append(in.GlobalSecondaryIndexes, types.GlobalSecondaryIndex{
			IndexName:             aws.String(ix.Name),
			KeySchema:             keySchema(ix.PK, ix.SK),
			Projection:            ix.projection(),
			ProvisionedThroughput: prov(),
		})
	}
	for _, ix := range o.LSIs {
		def(ix.SK, ix.SKType)
		in.LocalSecondaryIndexes = append(in.LocalSecondaryIndexes, types.LocalSecondaryIndex{
			IndexName:  aws.String(ix.Name),
			KeySchema:  keySchema(o.PK, ix.SK),
			Projection: ix.projection(),
		})
	}
	for _, name := range order {
		in.AttributeDefinitions = append(in.AttributeDefinitions, types.AttributeDefinition{
			AttributeName: aws.String(name), AttributeType: defs[name],
		})
	}
	return in
}

// EnsureTable creates the table when it does not exist, waits until it is
// ACTIVE (bounded by ctx), and enables TTL on Options.TTLAttr. An existing
// table is left as it is; its schema is not compared.
func (t *Table) EnsureTable(ctx context.Context) error {
	_, err := t.client.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(t.name)})
	var nf *types.ResourceNotFoundException
	switch {
	case err == nil:
	case errors.As(err, &nf):
		_, err = send(ctx, t, tracing{tr: t.opts.Tracer}, "CreateTable", "", t.CreateTableInput(), t.client.CreateTable)
		var inUse *types.ResourceInUseException
		if err != nil && !errors.As(err, &inUse) {
			return fmt.Errorf("entity: create table %s: %w", t.name, err)
		}
	default:
		return fmt.Errorf("entity: describe table %s: %w", t.name, err)
	}
	if err := t.waitActive(ctx); err != nil {
		return err
	}
	if t.opts.TTLAttr != "" {
		_, err := t.client.UpdateTimeToLive(ctx, &dynamodb.UpdateTimeToLiveInput{
			TableName: aws.String(t.name),
			TimeToLiveSpecification: &types.TimeToLiveSpecification{
				AttributeName: aws.String(t.opts.TTLAttr), Enabled: aws.Bool(true),
			},
		})
		if err != nil && !isTTLAlreadyEnabled(err) {
			return fmt.Errorf("entity: enable TTL on %s: %w", t.name, err)
		}
	}
	return nil
}

func isTTLAlreadyEnabled(err error) bool {
	var ve interface{ ErrorMessage() string }
	if errors.As(err, &ve) {
		m := ve.ErrorMessage()
		return contains(m, "already enabled")
	}
	return false
}

func contains(s, sub string) bool {
	for i := 0; i+len(sub) <= len(s); i++ {
		if s[i:i+len(sub)] == sub {
			return true
		}
	}
	return false
}

func (t *Table) waitActive(ctx context.Context) error {
	delay := 50 * time.Millisecond
	for {
		out, err := t.client.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(t.name)})
		if err != nil {
			return fmt.Errorf("entity: describe table %s: %w", t.name, err)
		}
		active := out.Table != nil && out.Table.TableStatus == types.TableStatusActive
		if active {
			for _, g := range out.Table.GlobalSecondaryIndexes {
				if g.IndexStatus != types.IndexStatusActive {
					active = false
				}
			}
		}
		if active {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("entity: table %s not active: %w", t.name, ctx.Err())
		case <-time.After(delay):
		}
		if delay < time.Second {
			delay *= 2
		}
	}
}

// DeleteTable deletes the table. It does not wait.
func (t *Table) DeleteTable(ctx context.Context) error {
	_, err := t.client.DeleteTable(ctx, &dynamodb.DeleteTableInput{TableName: aws.String(t.name)})
	if err != nil {
		return fmt.Errorf("entity: delete table %s: %w", t.name, err)
	}
	return nil
}
