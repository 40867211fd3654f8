package ddbmem

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/tablekit/tablekit/internal/ddbexpr"
)

// This file parses the PartiQL statements DynamoDB takes
// (ExecuteStatement, BatchExecuteStatement, ExecuteTransaction):
//
//	SELECT * | path, ... FROM "table"["index"] [WHERE cond] [ORDER BY path [ASC|DESC]]
//	INSERT INTO "table" VALUE {'name': value, ...}
//	UPDATE "table" SET path = value | REMOVE path ... WHERE cond [RETURNING ALL|MODIFIED OLD|NEW *]
//	DELETE FROM "table" WHERE cond [RETURNING ALL OLD *]
//	EXISTS(SELECT * FROM "table" WHERE cond)        (in ExecuteTransaction)
//
// Identifiers are bare words or double-quoted ("" for a quote), strings
// are single-quoted ('' for a quote), ? takes the next of the request's
// Parameters, <<...>> is a set, [...] a list and {...} a map. Keywords
// are case-insensitive. partiql.go runs the parsed statement on the
// engine's own operations.

// pqTok is one token of a statement.
type pqTok struct {
	kind     byte // 'w' word, 'q' quoted identifier, 's' string, 'n' number, 'p' punctuation, 0 end
	text     string
	pos, end int // the token's bytes in the statement
}

// pqLex splits a statement into tokens.
func pqLex(s string) ([]pqTok, error) {
	var toks []pqTok
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			i++
		case c == '-' && i+1 < len(s) && s[i+1] == '-': // a comment to the end of the line
			for i < len(s) && s[i] != '\n' {
				i++
			}
		case isWordStart(c):
			j := i + 1
			for j < len(s) && (isWordStart(s[j]) || (s[j] >= '0' && s[j] <= '9')) {
				j++
			}
			toks = append(toks, pqTok{'w', s[i:j], i, j})
			i = j
		case c >= '0' && c <= '9' || (c == '.' && i+1 < len(s) && s[i+1] >= '0' && s[i+1] <= '9'):
			j := i
			for j < len(s) && (s[j] >= '0' && s[j] <= '9' || s[j] == '.') {
				j++
			}
			if j < len(s) && (s[j] == 'e' || s[j] == 'E') {
				k := j + 1
				if k < len(s) && (s[k] == '+' || s[k] == '-') {
					k++
				}
				if k < len(s) && s[k] >= '0' && s[k] <= '9' {
					for k < len(s) && s[k] >= '0' && s[k] <= '9' {
						k++
					}
					j = k
				}
			}
			toks = append(toks, pqTok{'n', s[i:j], i, j})
			i = j
		case c == '\'' || c == '"':
			var b strings.Builder
			j := i + 1
			for {
				if j >= len(s) {
					return nil, pqSyntax(i, "unterminated %s", map[byte]string{'\'': "string", '"': "quoted identifier"}[c])
				}
				if s[j] == c {
					if j+1 < len(s) && s[j+1] == c {
						b.WriteByte(c)
						j += 2
						continue
					}
					break
				}
				b.WriteByte(s[j])
				j++
			}
			kind := byte('s')
			if c == '"' {
				kind = 'q'
			}
			toks = append(toks, pqTok{kind, b.String(), i, j + 1})
			i = j + 1
		default:
			for _, p := range [...]string{"<<", ">>", "<>", "!=", "<=", ">=", "||", "=", "<", ">", "*", ",", ".", "[", "]", "(", ")", "{", "}", ":", "?", "+", "-", "/", "%", ";"} {
				if strings.HasPrefix(s[i:], p) {
					toks = append(toks, pqTok{'p', p, i, i + len(p)})
					i += len(p)
					goto next
				}
			}
			return nil, pqSyntax(i, "unexpected character %q", c)
		next:
		}
	}
	return append(toks, pqTok{pos: len(s), end: len(s)}), nil
}

func isWordStart(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

// errPQSyntax marks a statement that does not parse. DynamoDB's answer
// quotes the statement (see parsePartiQL); the detail is the engine's.
type errPQSyntax struct{ detail string }

func (e *errPQSyntax) Error() string { return e.detail }

func pqSyntax(pos int, format string, args ...any) error {
	return &errPQSyntax{fmt.Sprintf(format, args...) + " at byte " + strconv.Itoa(pos)}
}

// at is DynamoDB's position of a token in its messages: line, column and
// length, 1-based.
func (p *pqParser) at(t pqTok) string {
	line, col := 1, 1
	for _, c := range p.src[:t.pos] {
		if c == '\n' {
			line, col = line+1, 1
		} else {
			col++
		}
	}
	return fmt.Sprintf("at %d:%d:%d", line, col, t.end-t.pos)
}

// A pqExpr is a node of a condition or of a SET's value.
type pqExpr interface{ pqNode() }

type (
	// pqPath is a document path: a name, then names and list indexes.
	pqPath struct{ parts []pqPart }
	// pqLit is a value: a literal or a parameter.
	pqLit struct{ v types.AttributeValue }
	// pqBin is a comparison, AND, OR, + or -.
	pqBin struct {
		op   string
		l, r pqExpr
	}
	pqNot     struct{ x pqExpr }
	pqBetween struct{ x, lo, hi pqExpr }
	pqIn      struct {
		x    pqExpr
		list []pqExpr
	}
	// pqIs is IS [NOT] MISSING or IS [NOT] NULL.
	pqIs struct {
		x    pqExpr
		not  bool
		what string
	}
	pqCall struct {
		name string
		args []pqExpr
		at   string // the name's position, in DynamoDB's messages
	}
)

func (*pqPath) pqNode()    {}
func (*pqLit) pqNode()     {}
func (*pqBin) pqNode()     {}
func (*pqNot) pqNode()     {}
func (*pqBetween) pqNode() {}
func (*pqIn) pqNode()      {}
func (*pqIs) pqNode()      {}
func (*pqCall) pqNode()    {}

// pqPart is a name (index < 0) or a list index.
type pqPart struct {
	name  string
	index int
}

// top is the path's first name, or "" when it is nested.
func (p *pqPath) top() string {
	if len(p.parts) == 1 {
		return p.parts[0].name
	}
	return ""
}

// pqStmt is a parsed statement.
type pqStmt struct {
	kind  string // SELECT, INSERT, UPDATE, DELETE or EXISTS
	table string
	index string // SELECT from "table"."index"
	proj  []*pqPath
	where pqExpr
	order []*pqPath                       // ORDER BY's key attributes
	desc  bool                            // the last one's DESC
	item  map[string]types.AttributeValue // INSERT's VALUE
	// sets and removes are UPDATE's clauses in order.
	sets      []pqSet
	removes   []*pqPath
	returning types.ReturnValue
}

type pqSet struct {
	path *pqPath
	val  pqExpr
}

// pqParser parses one statement, taking ? from params in order.
type pqParser struct {
	src    string
	toks   []pqTok
	i      int
	params []types.AttributeValue
	used   int
	// unsupported is the error of a form DynamoDB does not take, which
	// it reports only once the whole statement is well formed.
	unsupported error
}

// parsePartiQL parses a statement with its parameters.
func parsePartiQL(s string, params []types.AttributeValue) (*pqStmt, error) {
	st, err := parseStatement(s, params)
	var se *errPQSyntax
	if errors.As(err, &se) {
		return nil, validation("Statement wasn't well formed, can't be processed: " + s)
	}
	return st, err
}

func parseStatement(s string, params []types.AttributeValue) (*pqStmt, error) {
	toks, err := pqLex(s)
	if err != nil {
		return nil, err
	}
	p := &pqParser{src: s, toks: toks, params: params}
	st, err := p.statement()
	if err != nil {
		return nil, err
	}
	if t := p.peek(); t.kind != 0 {
		if t.kind == 'w' && pqClauses[strings.ToUpper(t.text)] && !strings.EqualFold(t.text, "VALUES") {
			return nil, validationf("Unsupported clause: %s %s", strings.ToUpper(t.text), p.at(p.toks[p.i+1]))
		}
		return nil, pqSyntax(t.pos, "unexpected %s", t.describe())
	}
	if p.unsupported != nil {
		return nil, p.unsupported
	}
	if st.where != nil {
		if err := checkBoolean(st.where, true); err != nil {
			return nil, err
		}
	}
	// Parameters past those the statement takes are ignored, as
	// DynamoDB Local ignores them.
	return st, nil
}

// checkBoolean checks that a WHERE (top) and the operands of its ANDs,
// ORs and NOTs are conditions, not bare values or paths.
func checkBoolean(x pqExpr, top bool) error {
	switch x := x.(type) {
	case *pqPath, *pqLit:
		if top {
			return validation("WHERE clause must contain an expression that resolves to a boolean")
		}
		return validation("The arguments to AND/OR must be Expressions")
	case *pqBin:
		if x.op == "AND" || x.op == "OR" {
			if err := checkBoolean(x.l, false); err != nil {
				return err
			}
			return checkBoolean(x.r, false)
		}
	case *pqNot:
		return checkBoolean(x.x, false)
	}
	return nil
}

func (t pqTok) describe() string {
	switch t.kind {
	case 0:
		return "end of statement"
	case 's':
		return "string '" + t.text + "'"
	case 'q':
		return "identifier \"" + t.text + "\""
	}
	return "'" + t.text + "'"
}

func (p *pqParser) peek() pqTok { return p.toks[p.i] }

func (p *pqParser) next() pqTok {
	t := p.toks[p.i]
	if t.kind != 0 {
		p.i++
	}
	return t
}

// is reports whether the next token is the keyword or punctuation s.
func (p *pqParser) is(s string) bool {
	t := p.peek()
	return (t.kind == 'w' && strings.EqualFold(t.text, s)) || (t.kind == 'p' && t.text == s)
}

// accept consumes s when it comes next.
func (p *pqParser) accept(s string) bool {
	if p.is(s) {
		p.i++
		return true
	}
	return false
}

func (p *pqParser) expect(s string) error {
	if p.accept(s) {
		return nil
	}
	t := p.peek()
	return pqSyntax(t.pos, "expected %s, found %s", s, t.describe())
}

func (p *pqParser) statement() (*pqStmt, error) {
	t := p.peek()
	switch {
	case p.accept("SELECT"):
		return p.selectRest()
	case p.accept("INSERT"):
		return p.insertRest()
	case p.accept("UPDATE"):
		return p.updateRest()
	case p.accept("DELETE"):
		return p.deleteRest()
	case p.is("NOT") && p.i+1 < len(p.toks) && strings.EqualFold(p.toks[p.i+1].text, "EXISTS"):
		return nil, validation("Unsupported operation in transaction.")
	case p.accept("EXISTS"):
		if err := p.expect("("); err != nil {
			return nil, err
		}
		if err := p.expect("SELECT"); err != nil {
			return nil, err
		}
		st, err := p.selectRest()
		if err != nil {
			return nil, err
		}
		if err := p.expect(")"); err != nil {
			return nil, err
		}
		st.kind = "EXISTS"
		return st, nil
	}
	return nil, pqSyntax(t.pos, "unexpected %s: a statement starts with SELECT, INSERT, UPDATE, DELETE or EXISTS", t.describe())
}

// ident reads an identifier: a bare word that is no keyword, or a quoted one.
func (p *pqParser) ident() (string, error) {
	t := p.next()
	switch {
	case t.kind == 'q':
		return t.text, nil
	case t.kind == 'w' && !pqReserved[strings.ToUpper(t.text)]:
		return t.text, nil
	}
	return "", pqSyntax(t.pos, "expected an identifier, found %s", t.describe())
}

// pqKnownFunctions are the functions a statement may call.
var pqKnownFunctions = map[string]bool{"begins_with": true, "contains": true, "attribute_type": true, "size": true,
	"attribute_exists": true, "attribute_not_exists": true, "list_append": true, "set_add": true, "set_delete": true, "if_not_exists": true}

// pqClauses are clauses DynamoDB does not take, named in its messages.
var pqClauses = map[string]bool{"LIMIT": true, "OFFSET": true, "GROUP": true, "HAVING": true, "VALUES": true}

// pqReserved are the keywords that cannot be bare identifiers.
var pqReserved = map[string]bool{
	"SELECT": true, "FROM": true, "WHERE": true, "AND": true, "OR": true, "NOT": true, "BETWEEN": true, "IN": true,
	"IS": true, "MISSING": true, "NULL": true, "TRUE": true, "FALSE": true, "INSERT": true, "INTO": true, "VALUE": true,
	"UPDATE": true, "SET": true, "REMOVE": true, "DELETE": true, "RETURNING": true, "EXISTS": true, "ORDER": true, "BY": true,
}

// pqReturningWords are the words of a RETURNING clause.
var pqReturningWords = map[string]bool{"ALL": true, "MODIFIED": true, "OLD": true, "NEW": true}

// target reads a table and, for SELECT, an optional index.
func (p *pqParser) target(st *pqStmt, index bool) error {
	name, err := p.ident()
	if err != nil {
		return err
	}
	st.table = name
	if index && p.accept(".") {
		if st.index, err = p.ident(); err != nil {
			return err
		}
	}
	if p.alias() {
		return validation("Aliasing is not supported")
	}
	if t, next := p.peek(), p.toks[min(p.i+1, len(p.toks)-1)]; st.kind == "SELECT" && st.index == "" && (t.kind == 'q' || t.kind == 'w' && !pqReserved[strings.ToUpper(t.text)]) && next.kind == 'p' && strings.Contains("= <> != < <= > >=", next.text) {
		// A condition without WHERE: DynamoDB Local's words for it.
		return validation("EXISTS can only be used in ExecuteTransaction write requests.")
	}
	return nil
}

func (p *pqParser) selectRest() (*pqStmt, error) {
	st := &pqStmt{kind: "SELECT"}
	if t := p.peek(); t.kind == 'w' && (strings.EqualFold(t.text, "DISTINCT") || strings.EqualFold(t.text, "ALL")) && p.toks[p.i+1].kind != 'p' {
		return nil, validationf("Unsupported token in expression: %s", strings.ToUpper(t.text))
	}
	if !p.accept("*") {
		for {
			if t := p.peek(); t.kind == 'w' && p.toks[p.i+1].kind == 'p' && p.toks[p.i+1].text == "(" {
				return nil, validationf("Unexpected path component %s", p.at(t))
			}
			var unsupported error
			if lit := p.peek(); lit.kind == 'n' || lit.kind == 's' {
				// A literal: DynamoDB Local reads the list as
				// expressions, and refuses one that is not a path.
				p.next()
				unsupported = validationf("Unexpected path component %s", p.at(lit))
			} else {
				path, err := p.path()
				if err != nil {
					return nil, err
				}
				st.proj = append(st.proj, path)
			}
			if t := p.peek(); t.kind == 'q' || t.kind == 'w' && !strings.EqualFold(t.text, "FROM") {
				// An alias: "path AS name" or "path name".
				if p.accept("AS") {
					t = p.peek()
				}
				if t.kind != 'q' && (t.kind != 'w' || pqReserved[strings.ToUpper(t.text)]) {
					return nil, pqSyntax(t.pos, "expected an alias")
				}
				p.next()
				unsupported = validation("Aliasing is not supported")
			}
			if p.unsupported == nil {
				p.unsupported = unsupported
			}
			if !p.accept(",") {
				break
			}
		}
	}
	if err := p.expect("FROM"); err != nil {
		return nil, err
	}
	if err := p.target(st, true); err != nil {
		return nil, err
	}
	if p.accept("WHERE") {
		var err error
		if st.where, err = p.or(); err != nil {
			return nil, err
		}
	}
	if p.accept("ORDER") {
		if err := p.expect("BY"); err != nil {
			return nil, err
		}
		for {
			path, err := p.path()
			if err != nil {
				return nil, err
			}
			if len(path.parts) > 1 {
				return nil, validation("Argument to ORDER BY must be of type VariableReference. Type: PATH")
			}
			st.order = append(st.order, path)
			if p.accept("DESC") {
				st.desc = true
			} else if p.accept("ASC") {
				st.desc = false
			}
			if !p.accept(",") {
				break
			}
		}
	}
	return st, nil
}

func (p *pqParser) insertRest() (*pqStmt, error) {
	st := &pqStmt{kind: "INSERT"}
	if err := p.expect("INTO"); err != nil {
		return nil, err
	}
	if err := p.dmlTarget(st); err != nil {
		return nil, err
	}
	if p.is("{") {
		return nil, validation("Unsupported operation: InsertOp")
	}
	if err := p.expect("VALUE"); err != nil {
		return nil, err
	}
	if t := p.peek(); t.kind == 'p' && (t.text == "[" || t.text == "?" || t.text == "<<") {
		unsupported := validationf("Unsupported format in item expression. Please use struct format {...} to express item values for insert statement. %s", p.at(t))
		if _, err := p.value("root"); err != nil {
			var se *errPQSyntax
			if errors.As(err, &se) {
				return nil, err
			}
			return nil, unsupported
		}
		if p.unsupported == nil {
			p.unsupported = unsupported
		}
		return st, nil
	} else if t.kind != 'p' || t.text != "{" {
		return nil, pqSyntax(t.pos, "expected {")
	}
	v, err := p.value("root")
	if err != nil {
		return nil, err
	}
	st.item = v.(*types.AttributeValueMemberM).Value
	if p.is("RETURNING") {
		return nil, validation("RETURNING is not supported in INSERT")
	}
	return st, nil
}

// dmlTarget reads the table of an INSERT, UPDATE or DELETE, which names
// no index. An index is reported once the statement is well formed, as
// DynamoDB Local does (seed 2030).
func (p *pqParser) dmlTarget(st *pqStmt) error {
	if err := p.target(st, true); err != nil {
		return err
	}
	var err error
	switch {
	case st.index == "":
		return nil
	case st.kind == "DELETE":
		// DynamoDB Local reads "table"."index" as one table name here.
		err = validation("Table name should be within the length [3, 255] and only contain 'a-z', 'A-Z', '0-9', '-', '_', '.'.")
	default:
		err = validation("FROM clause may only contain a single table name in data manipulation statements")
	}
	if p.unsupported == nil {
		p.unsupported = err
	}
	return nil
}

func (p *pqParser) updateRest() (*pqStmt, error) {
	st := &pqStmt{kind: "UPDATE"}
	if err := p.dmlTarget(st); err != nil {
		return nil, err
	}
	for {
		switch {
		case p.accept("SET"):
			for {
				path, err := p.path()
				if err != nil {
					return nil, err
				}
				if err := p.expect("="); err != nil {
					return nil, err
				}
				v, err := p.additive()
				if err != nil {
					return nil, err
				}
				st.sets = append(st.sets, pqSet{path, v})
				if !p.accept(",") {
					break
				}
			}
			continue
		case p.accept("REMOVE"):
			for {
				path, err := p.path()
				if err != nil {
					return nil, err
				}
				st.removes = append(st.removes, path)
				if !p.accept(",") {
					break
				}
			}
			continue
		}
		break
	}
	if len(st.sets) == 0 && len(st.removes) == 0 {
		t := p.peek()
		return nil, pqSyntax(t.pos, "expected SET or REMOVE, found %s", t.describe())
	}
	if err := p.where(st); err != nil {
		return nil, err
	}
	return st, p.returning(st, true)
}

func (p *pqParser) deleteRest() (*pqStmt, error) {
	st := &pqStmt{kind: "DELETE"}
	if err := p.expect("FROM"); err != nil {
		return nil, err
	}
	if err := p.dmlTarget(st); err != nil {
		return nil, err
	}
	if err := p.where(st); err != nil {
		return nil, err
	}
	return st, p.returning(st, false)
}

// where reads the WHERE clause an UPDATE or DELETE must have.
func (p *pqParser) where(st *pqStmt) error {
	if !p.accept("WHERE") {
		// Without a WHERE the statement names no item (see itemKey).
		return nil
	}
	var err error
	st.where, err = p.or()
	return err
}

// returning reads RETURNING ALL|MODIFIED OLD|NEW *; DELETE takes ALL OLD
// only.
func (p *pqParser) returning(st *pqStmt, update bool) error {
	if !p.accept("RETURNING") {
		return nil
	}
	from := p.peek()
	var which, when string
	switch t := p.next(); {
	case t.kind == 'w' && (strings.EqualFold(t.text, "ALL") || strings.EqualFold(t.text, "MODIFIED")):
		which = strings.ToUpper(t.text)
	default:
		return pqSyntax(t.pos, "expected ALL or MODIFIED after RETURNING")
	}
	switch t := p.next(); {
	case t.kind == 'w' && (strings.EqualFold(t.text, "OLD") || strings.EqualFold(t.text, "NEW")):
		when = strings.ToUpper(t.text)
	default:
		return pqSyntax(t.pos, "expected OLD or NEW after RETURNING %s", which)
	}
	if !p.accept("*") {
		// A path where the * should be is a form DynamoDB does not
		// take; another of the clause's words is not well formed.
		if t := p.peek(); t.kind == 'q' || t.kind == 'w' && !pqReserved[strings.ToUpper(t.text)] && !pqReturningWords[strings.ToUpper(t.text)] {
			return validation("Expected '*' after ( MODIFIED | ALL ) ( NEW | OLD ) in RETURNING clause")
		}
		return pqSyntax(p.peek().pos, "expected *")
	}
	if !update && (which != "ALL" || when != "OLD") {
		return validationf("Invalid returning clause: RETURNING %s. Only RETURNING ALL OLD * is allowed in DELETE statements.", p.src[from.pos:p.toks[p.i-1].end])
	}
	switch which + " " + when {
	case "ALL OLD":
		st.returning = types.ReturnValueAllOld
	case "ALL NEW":
		st.returning = types.ReturnValueAllNew
	case "MODIFIED OLD":
		st.returning = types.ReturnValueUpdatedOld
	default:
		st.returning = types.ReturnValueUpdatedNew
	}
	return nil
}

// alias reports whether an alias follows a statement's table: AS, or a
// name that the statement's end or its next clause follows.
func (p *pqParser) alias() bool {
	t, after := p.peek(), p.toks[min(p.i+1, len(p.toks)-1)]
	if t.kind == 'w' && strings.EqualFold(t.text, "AS") {
		return true
	}
	if t.kind != 'q' && (t.kind != 'w' || pqReserved[strings.ToUpper(t.text)] || pqClauses[strings.ToUpper(t.text)]) {
		return false
	}
	if after.kind == 0 {
		return true
	}
	for _, w := range [...]string{"WHERE", "ORDER", "SET", "REMOVE"} {
		if after.kind == 'w' && strings.EqualFold(after.text, w) {
			return true
		}
	}
	return false
}

// path reads a document path.
func (p *pqParser) path() (*pqPath, error) {
	name, err := p.ident()
	if err != nil {
		return nil, err
	}
	path := &pqPath{parts: []pqPart{{name: name, index: -1}}}
	for {
		switch {
		case p.accept("."):
			n, err := p.ident()
			if err != nil {
				return nil, err
			}
			path.parts = append(path.parts, pqPart{name: n, index: -1})
		case p.accept("["):
			t := p.next()
			i, err := strconv.Atoi(t.text)
			if t.kind != 'n' || err != nil || i < 0 {
				return nil, pqSyntax(t.pos, "expected a list index, found %s", t.describe())
			}
			if err := p.expect("]"); err != nil {
				return nil, err
			}
			path.parts = append(path.parts, pqPart{index: i})
		default:
			return path, nil
		}
	}
}

// or, and, not and predicate read a condition, AND binding tighter than OR.
func (p *pqParser) or() (pqExpr, error) {
	l, err := p.and()
	for err == nil && p.accept("OR") {
		var r pqExpr
		if r, err = p.and(); err == nil {
			l = &pqBin{"OR", l, r}
		}
	}
	return l, err
}

func (p *pqParser) and() (pqExpr, error) {
	l, err := p.not()
	for err == nil && p.accept("AND") {
		var r pqExpr
		if r, err = p.not(); err == nil {
			l = &pqBin{"AND", l, r}
		}
	}
	return l, err
}

func (p *pqParser) not() (pqExpr, error) {
	if p.accept("NOT") {
		x, err := p.not()
		if err != nil {
			return nil, err
		}
		return &pqNot{x}, nil
	}
	return p.predicate()
}

func (p *pqParser) predicate() (pqExpr, error) {
	x, err := p.additive()
	if err != nil {
		return nil, err
	}
	for _, op := range [...]string{"=", "<>", "!=", "<=", ">=", "<", ">"} {
		if p.accept(op) {
			r, err := p.additive()
			if err != nil {
				return nil, err
			}
			if op == "!=" {
				op = "<>"
			}
			return &pqBin{op, x, r}, nil
		}
	}
	not := false
	if p.is("NOT") && p.i+1 < len(p.toks) {
		nt := p.toks[p.i+1]
		if nt.kind == 'w' && (strings.EqualFold(nt.text, "IN") || strings.EqualFold(nt.text, "BETWEEN")) {
			p.i++
			not = true
		}
	}
	var e pqExpr
	switch {
	case p.accept("BETWEEN"):
		lo, err := p.additive()
		if err != nil {
			return nil, err
		}
		if err := p.expect("AND"); err != nil {
			return nil, err
		}
		hi, err := p.additive()
		if err != nil {
			return nil, err
		}
		e = &pqBetween{x, lo, hi}
	case p.accept("IN"):
		closing := ")"
		if p.accept("[") {
			closing = "]"
		} else if err := p.expect("("); err != nil {
			return nil, err
		}
		in := &pqIn{x: x}
		for {
			v, err := p.additive()
			if err != nil {
				return nil, err
			}
			in.list = append(in.list, v)
			if !p.accept(",") {
				break
			}
		}
		if err := p.expect(closing); err != nil {
			return nil, err
		}
		e = in
	case p.accept("IS"):
		is := &pqIs{x: x, not: p.accept("NOT")}
		t := p.next()
		switch {
		case t.kind == 'w' && strings.EqualFold(t.text, "MISSING"):
			is.what = "MISSING"
		case t.kind == 'w' && strings.EqualFold(t.text, "NULL"):
			is.what = "NULL"
		default:
			return nil, pqSyntax(t.pos, "expected MISSING or NULL after IS, found %s", t.describe())
		}
		return is, nil
	default:
		return x, nil
	}
	if not {
		e = &pqNot{e}
	}
	return e, nil
}

// additive reads an operand with + and -.
func (p *pqParser) additive() (pqExpr, error) {
	l, err := p.operand()
	for err == nil && (p.is("+") || p.is("-")) {
		op := p.next().text
		var r pqExpr
		if r, err = p.operand(); err == nil {
			l = &pqBin{op, l, r}
		}
	}
	return l, err
}

// operand reads a value, a path, a function call or a parenthesized
// condition.
func (p *pqParser) operand() (pqExpr, error) {
	t := p.peek()
	switch {
	case p.accept("("):
		x, err := p.or()
		if err != nil {
			return nil, err
		}
		return x, p.expect(")")
	case t.kind == 'w' && p.i+1 < len(p.toks) && p.toks[p.i+1].kind == 'p' && p.toks[p.i+1].text == "(" && !pqReserved[strings.ToUpper(t.text)]:
		p.i += 2
		c := &pqCall{name: strings.ToLower(t.text), at: p.at(t)}
		if !pqKnownFunctions[c.name] && p.unsupported == nil {
			// Reported once the statement is well formed, as
			// DynamoDB Local does: "pk ( = 'p'" is not (seed 2028).
			p.unsupported = validationf("Unrecognized function: %s", t.text)
		}
		if !p.accept(")") {
			for {
				a, err := p.additive()
				if err != nil {
					return nil, err
				}
				c.args = append(c.args, a)
				if !p.accept(",") {
					break
				}
			}
			if err := p.expect(")"); err != nil {
				return nil, err
			}
		}
		return c, nil
	case t.kind == 'q' || (t.kind == 'w' && !pqReserved[strings.ToUpper(t.text)]):
		return p.path()
	case t.kind == 'w' && strings.EqualFold(t.text, "EXISTS") && p.toks[p.i+1].text == "(":
		if sel := p.toks[min(p.i+2, len(p.toks)-1)]; sel.kind == 'w' && strings.EqualFold(sel.text, "SELECT") {
			return nil, validationf("Unsupported token in expression: SELECT %s", p.at(sel))
		}
		return nil, validationf("Unrecognized function: %s", strings.ToLower(t.text))
	}
	v, err := p.value("root")
	if err != nil {
		return nil, err
	}
	return &pqLit{v}, nil
}

// value reads a literal or a parameter; under names the map key it is
// the value of in DynamoDB's messages ("root" at the top).
func (p *pqParser) value(under string) (types.AttributeValue, error) {
	t := p.next()
	switch t.kind {
	case 's':
		return &types.AttributeValueMemberS{Value: t.text}, nil
	case 'n':
		return p.number(t, t.text, under)
	case 'w':
		switch strings.ToUpper(t.text) {
		case "TRUE":
			return &types.AttributeValueMemberBOOL{Value: true}, nil
		case "FALSE":
			return &types.AttributeValueMemberBOOL{Value: false}, nil
		case "NULL":
			return &types.AttributeValueMemberNULL{Value: true}, nil
		case "MISSING":
			return nil, validationf("Unsupported data type: MISSING under key %s %s", under, p.at(t))
		}
	case 'p':
		switch t.text {
		case "?":
			if p.used >= len(p.params) {
				return nil, validation("Number of parameters in request and statement don't match.")
			}
			p.used++
			return p.params[p.used-1], nil
		case "-", "+":
			n := p.next()
			if n.kind != 'n' {
				return nil, pqSyntax(n.pos, "expected a number after %s", t.text)
			}
			if t.text == "-" {
				return p.number(n, "-"+n.text, under)
			}
			return p.number(n, n.text, under)
		case "[":
			l := []types.AttributeValue{}
			if !p.accept("]") {
				for {
					v, err := p.value(under)
					if err != nil {
						return nil, err
					}
					l = append(l, v)
					if !p.accept(",") {
						break
					}
				}
				if err := p.closeValue("]", under); err != nil {
					return nil, err
				}
			}
			return &types.AttributeValueMemberL{Value: l}, nil
		case "{":
			m := map[string]types.AttributeValue{}
			if !p.accept("}") {
				for {
					k := p.next()
					switch {
					case k.kind == 'q' || (k.kind == 'w' && !pqReserved[strings.ToUpper(k.text)]):
						return nil, validationf("Tuple keys must be of type String. Actual type: VariableReference under %s %s", under, p.at(k))
					case k.kind != 's':
						return nil, pqSyntax(k.pos, "expected a map key")
					}
					if err := p.expect(":"); err != nil {
						return nil, err
					}
					v, err := p.value(under)
					if err != nil {
						return nil, err
					}
					if _, dup := m[k.text]; dup {
						return nil, validationf("Duplicate keys in tuple. Key: %s under %s %s", k.text, under, p.at(k))
					}
					m[k.text] = v
					if !p.accept(",") {
						break
					}
				}
				if err := p.closeValue("}", under); err != nil {
					return nil, err
				}
			}
			return &types.AttributeValueMemberM{Value: m}, nil
		case "<<":
			return p.set(t)
		}
	}
	return nil, pqSyntax(t.pos, "unexpected %s", t.describe())
}

// closeValue reads the end of a list or map; an operator there is a value
// DynamoDB does not take.
func (p *pqParser) closeValue(end, under string) error {
	t := p.peek()
	if t.kind == 'p' && strings.Contains("+ - * / % ||", t.text) {
		return validationf("Unsupported data type: %s under key %s %s", t.text, under, p.at(t))
	}
	return p.expect(end)
}

// number checks a number literal as DynamoDB does.
func (p *pqParser) number(t pqTok, text, under string) (types.AttributeValue, error) {
	mant, _, _ := strings.Cut(strings.ToLower(text), "e")
	digits := strings.Trim(strings.NewReplacer("-", "", ".", "").Replace(mant), "0")
	if len(digits) > 38 {
		return nil, validation("DynamoDB only supports precision up to 38 digits")
	}
	if digits == "" && strings.HasPrefix(text, "-") && strings.Contains(mant, ".") {
		return nil, validationf("Negative zero decimal is not supported under key %s %s", under, p.at(t))
	}
	return &types.AttributeValueMemberN{Value: plainNumber(text)}, nil
}

// plainNumber writes a number without its exponent, its digits kept
// ("1e1" is "10", "2.50" stays "2.50", "1.5e-2" is "0.015"), as DynamoDB
// quotes a statement's numbers in its messages.
func plainNumber(text string) string {
	mant, exp, ok := strings.Cut(strings.ToLower(text), "e")
	if !ok {
		return text
	}
	e, err := strconv.Atoi(exp)
	if err != nil || e > 200 || e < -200 {
		return text
	}
	sign := ""
	if mant != "" && (mant[0] == '-' || mant[0] == '+') {
		if mant[0] == '-' {
			sign = "-"
		}
		mant = mant[1:]
	}
	ip, fp, _ := strings.Cut(mant, ".")
	digits, point := ip+fp, len(ip)+e
	switch {
	case point <= 0:
		digits = strings.Repeat("0", 1-point) + digits
		point = 1
	case point > len(digits):
		digits += strings.Repeat("0", point-len(digits))
	}
	out := strings.TrimLeft(digits[:point], "0")
	if out == "" {
		out = "0"
	}
	if point < len(digits) {
		out += "." + digits[point:]
	}
	return sign + out
}

// set reads the members of a <<...>> set: all strings or all numbers.
func (p *pqParser) set(open pqTok) (types.AttributeValue, error) {
	if t := p.peek(); t.kind == 'p' && t.text == ">>" {
		return nil, validationf("Empty bags are not supported %s", p.at(open))
	}
	const mixed = "Unsupported data type in Bag. DynamoDB only supports either numbers or strings in bags"
	var ss, ns []string
	for {
		t := p.peek()
		if t.kind == 'p' && t.text == "?" {
			return nil, validationf("%s %s", mixed, p.at(t))
		}
		if t.kind == 'p' && t.text == "<<" {
			return nil, pqSyntax(t.pos, "a set in a set")
		}
		v, err := p.value("root")
		if err != nil {
			return nil, err
		}
		switch v := v.(type) {
		case *types.AttributeValueMemberS:
			ss = append(ss, v.Value)
		case *types.AttributeValueMemberN:
			ns = append(ns, v.Value)
		default:
			return nil, validation(mixed)
		}
		if !p.accept(",") {
			break
		}
	}
	if err := p.expect(">>"); err != nil {
		return nil, err
	}
	if len(ss) > 0 && len(ns) > 0 {
		return nil, validation(mixed)
	}
	seen := map[string]bool{}
	for _, m := range ss {
		if seen[m] {
			return nil, validation("Input collection contains duplicates")
		}
		seen[m] = true
	}
	for _, m := range ns {
		c := ddbexpr.CanonicalNumber(m)
		if seen[c] {
			return nil, validation("Input collection contains duplicates")
		}
		seen[c] = true
	}
	if len(ss) > 0 {
		return &types.AttributeValueMemberSS{Value: ss}, nil
	}
	return &types.AttributeValueMemberNS{Value: ns}, nil
}
