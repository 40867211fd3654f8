package ddbexpr

import (
	"fmt"
	"iter"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// SyntaxError is a parse error. Its message follows DynamoDB's wording
// without the "Invalid XExpression: " prefix, which the caller adds.
type SyntaxError struct {
	Msg string
	at  int // a syntax error's offset in the expression
}

func (e *SyntaxError) Error() string { return e.Msg }

type tokKind int

const (
	tEOF tokKind = iota
	tIdent
	tName  // #name
	tValue // :value
	tNumber
	tPunct
	tInvalid // a character no token has; the parser reports it where it meets it
)

type token struct {
	kind tokKind
	text string
	pos  int
}

func lex(s string) ([]token, error) {
	var toks []token
	i := 0
	for i < len(s) {
		c := s[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			i++
		case c == '#' || c == ':':
			j := i + 1
			for j < len(s) && isIdentChar(s[j]) {
				j++
			}
			if j == i+1 {
				// reported where the parser meets it, as any character
				// no token has
				toks = append(toks, token{tInvalid, string(c), i})
				i++
				continue
			}
			k := tName
			if c == ':' {
				k = tValue
			}
			toks = append(toks, token{k, s[i:j], i})
			i = j
		case isIdentStart(c):
			j := i + 1
			for j < len(s) && isIdentChar(s[j]) {
				j++
			}
			toks = append(toks, token{tIdent, s[i:j], i})
			i = j
		case c >= '0' && c <= '9':
			j := i + 1
			for j < len(s) && s[j] >= '0' && s[j] <= '9' {
				j++
			}
			toks = append(toks, token{tNumber, s[i:j], i})
			i = j
		case c == '<':
			if i+1 < len(s) && (s[i+1] == '=' || s[i+1] == '>') {
				toks = append(toks, token{tPunct, s[i : i+2], i})
				i += 2
			} else {
				toks = append(toks, token{tPunct, "<", i})
				i++
			}
		case c == '>':
			if i+1 < len(s) && s[i+1] == '=' {
				toks = append(toks, token{tPunct, ">=", i})
				i += 2
			} else {
				toks = append(toks, token{tPunct, ">", i})
				i++
			}
		case strings.IndexByte("()[],.=+-", c) >= 0:
			toks = append(toks, token{tPunct, string(c), i})
			i++
		default:
			_, n := utf8.DecodeRuneInString(s[i:])
			toks = append(toks, token{tInvalid, s[i : i+n], i})
			i += n
		}
	}
	toks = append(toks, token{tEOF, "<EOF>", len(s)})
	return toks, nil
}

func isIdentStart(c byte) bool {
	return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')
}

func isIdentChar(c byte) bool { return isIdentStart(c) || (c >= '0' && c <= '9') }

type parser struct {
	src   string
	toks  []token
	pos   int
	names map[string]bool
	vals  map[string]bool
	order []string // placeholders in order of first use
	// legacy lifts the limits of an expression (IN's operands, the
	// operator count) for a condition made from legacy parameters.
	legacy bool
	nested []string // Expr.Nested
	// defer: an update expression's checks are reported in DynamoDB
	// Local's order: a syntax error anywhere first, then the first of
	// the checks made in one walk of the expression in the order written
	// (reserved words, function names and uses, a section written twice,
	// reported at its end), then operand counts and kinds. deferred
	// holds the first of the walk's errors, later the first of the
	// counts'.
	deferChecks     bool
	deferred, later error
	// cond: the expression is a condition, whose walk reports the check
	// written first (a function's misuse is found after its operands,
	// but reported at its name); deferredPos is deferred's offset.
	cond        bool
	deferredPos int
	update      bool // an update expression, whose section keywords are no names either
	// Doubled parentheses are reported (redundant) where DynamoDB
	// commits to what they are part of, after a syntax error found on
	// the way: at once in a comparison's later operands, and in a
	// condition's first operand (predicting) once a comparison follows
	// it (redundancy, commit). Where an opening parenthesis may start a
	// condition or an operand, a quiet parse of each (syntax only; quiet
	// results memoized by position) tells which to take (parsePrimary).
	predicting, redundant bool
	quiet                 bool
	quietMemo             map[int]quietResult
}

// quietResult is what a quiet parse of a condition from a position gave:
// the position after it, or its error.
type quietResult struct {
	end int
	err error
}

// redundancy reports doubled parentheses: at once, or once committed.
func (p *parser) redundancy() error {
	switch {
	case p.quiet:
		return nil
	case p.predicting:
		p.redundant = true
		return nil
	}
	return errRedundantParens
}

// commit reports the doubled parentheses met before a commitment.
func (p *parser) commit() error {
	if p.redundant && !p.predicting && !p.quiet {
		p.redundant = false
		return errRedundantParens
	}
	return nil
}

// fail records a check's error, to report after the parse (deferChecks),
// and reports whether the caller should return err at once instead.
func (p *parser) fail(err error) bool { return p.failAt(p.peek().pos, err) }

// failAt is fail for a check of the expression at offset pos.
func (p *parser) failAt(pos int, err error) bool {
	if p.quiet {
		return false
	}
	if p.cond && p.deferred != nil && pos < p.deferredPos {
		p.deferred = nil
	}
	if p.deferred == nil {
		p.deferredPos = pos
	}
	return p.record(&p.deferred, err)
}

// failLater is fail for the checks reported after the walk's.
func (p *parser) failLater(err error) bool { return p.record(&p.later, err) }

func (p *parser) record(slot *error, err error) bool {
	if !p.deferChecks {
		return true
	}
	if *slot == nil {
		*slot = err
	}
	return false
}

// finish returns the error to report for a parse that ended with err
// (nil if it completed): a syntax error, else the first of the walk's
// deferred checks (p.later is the caller's).
func (p *parser) finish(err error) error {
	if err != nil && (strings.HasPrefix(err.Error(), "Syntax error;") || err == errRedundantParens) {
		return err
	}
	if p.deferred != nil {
		return p.deferred
	}
	return err
}

// newExprParser returns a parser of the expression s, which must not be
// empty.
func newExprParser(s string) (*parser, error) {
	p, err := newParser(s)
	if err != nil {
		return nil, err
	}
	if p.peek().kind == tEOF {
		return nil, &SyntaxError{Msg: "The expression can not be empty;"}
	}
	return p, nil
}

func newParser(s string) (*parser, error) {
	toks, err := lex(s)
	if err != nil {
		return nil, err
	}
	return &parser{src: s, toks: toks, names: map[string]bool{}, vals: map[string]bool{}}, nil
}

func (p *parser) peek() token { return p.toks[p.pos] }
func (p *parser) next() token {
	t := p.toks[p.pos]
	if p.pos < len(p.toks)-1 {
		p.pos++
	}
	return t
}

// errHere reports a syntax error at the current token; like DynamoDB,
// "near" spans the previous, the current and the next token.
func (p *parser) errHere() error {
	t := p.peek()
	start, end := t.pos, t.pos+len(t.text)
	if t.kind == tEOF {
		end = len(p.src)
	} else if p.pos+1 < len(p.toks) && p.toks[p.pos+1].kind != tEOF {
		n := p.toks[p.pos+1]
		end = n.pos + len(n.text)
	}
	if p.pos > 0 {
		start = p.toks[p.pos-1].pos
	}
	return &SyntaxError{Msg: `Syntax error; token: "` + t.text + `", near: "` + p.src[start:end] + `"`, at: t.pos}
}

func (p *parser) isPunct(s string) bool {
	t := p.peek()
	return t.kind == tPunct && t.text == s
}

func (p *parser) isKeyword(kw string) bool {
	t := p.peek()
	return t.kind == tIdent && strings.EqualFold(t.text, kw)
}

func (p *parser) expectPunct(s string) error {
	if !p.isPunct(s) {
		return p.errHere()
	}
	p.next()
	return nil
}

// PathElem is one step of a document path: an attribute or map key name
// (possibly a #placeholder), or a list index.
type PathElem struct {
	Name    string
	Index   int
	IsIndex bool
}

// Path is a document path such as a.b[0].c.
type Path []PathElem

func (p Path) String() string {
	var b strings.Builder
	for i, e := range p {
		if e.IsIndex {
			fmt.Fprintf(&b, "[%d]", e.Index)
			continue
		}
		if i > 0 {
			b.WriteByte('.')
		}
		b.WriteString(e.Name)
	}
	return b.String()
}

// isGrammarKeyword reports whether s is one of the words a condition's
// grammar uses, which no name may be (a syntax error, not a reserved
// word's error).
func isGrammarKeyword(s string) bool {
	switch strings.ToUpper(s) {
	case "AND", "OR", "NOT", "BETWEEN", "IN":
		return true
	}
	return false
}

// keywordName reports whether t is a word of the grammar, which no path
// may name: a condition's, and in an update its sections' too.
func (p *parser) keywordName(t token) bool {
	if t.kind != tIdent {
		return false
	}
	if p.update {
		switch strings.ToUpper(t.text) {
		case "SET", "REMOVE", "ADD", "DELETE":
			return true
		}
	}
	return isGrammarKeyword(t.text)
}

func (p *parser) parsePath() (Path, error) {
	t := p.peek()
	var path Path
	if p.keywordName(t) {
		return nil, p.errHere()
	}
	switch t.kind {
	case tIdent:
		if err := p.checkReserved(t); err != nil {
			return nil, err
		}
		path = append(path, PathElem{Name: t.text})
	case tName:
		p.useName(t.text)
		path = append(path, PathElem{Name: t.text})
	default:
		return nil, p.errHere()
	}
	p.next()
	for {
		switch {
		case p.isPunct("."):
			p.next()
			t := p.peek()
			if p.keywordName(t) {
				return nil, p.errHere()
			}
			switch t.kind {
			case tIdent:
				if err := p.checkReserved(t); err != nil {
					return nil, err
				}
			case tName:
				p.useName(t.text)
			default:
				return nil, p.errHere()
			}
			p.next()
			path = append(path, PathElem{Name: t.text})
		case p.isPunct("["):
			p.next()
			t := p.peek()
			if t.kind != tNumber {
				return nil, p.errHere()
			}
			n, err := strconv.Atoi(t.text)
			if err != nil {
				return nil, p.errHere()
			}
			p.next()
			if err := p.expectPunct("]"); err != nil {
				return nil, err
			}
			path = append(path, PathElem{Index: n, IsIndex: true})
		default:
			if len(path) > 1 && !slices.Contains(p.nested, path[0].Name) {
				if !p.quiet {
					p.nested = append(p.nested, path[0].Name)
				}
			}
			return path, nil
		}
	}
}

func (p *parser) checkReserved(t token) error {
	// SIZE is on DynamoDB's list, but a name all the same in every
	// expression, as DynamoDB Local answers (nothing records DynamoDB
	// refusing it).
	if u := strings.ToUpper(t.text); reserved[u] && u != "SIZE" {
		if err := (&SyntaxError{Msg: fmt.Sprintf("Attribute name is a reserved keyword; reserved keyword: %s", t.text)}); p.fail(err) {
			return err
		}
	}
	return nil
}

func (p *parser) useName(n string) {
	if !p.names[n] && !p.quiet {
		p.names[n] = true
		p.order = append(p.order, n)
	}
}

func (p *parser) useValue(v string) {
	if !p.vals[v] && !p.quiet {
		p.vals[v] = true
		p.order = append(p.order, v)
	}
}

// OperandKind tells what an Operand is.
type OperandKind int

// Operand kinds.
const (
	OpPath OperandKind = iota
	OpValue
	OpSize
	OpIfNotExists
	OpListAppend
	OpPlus
	OpMinus
	// OpCall is a call of a function that cannot be an operand of a
	// condition (Value names it); parsing such a call always records an
	// error, so it is never evaluated.
	OpCall
)

// Operand is a value-producing term.
type Operand struct {
	paren bool  // written in parentheses
	err   error // an update's error of this call (operand count, path), checked with its action
	Kind  OperandKind
	Path  Path
	Value string // placeholder, for OpValue
	Args  []*Operand
}

// CondKind tells what a Cond is.
type CondKind int

// Condition kinds.
const (
	CondCompare CondKind = iota
	CondBetween
	CondIn
	CondAnd
	CondOr
	CondNot
	CondFunc
)

// Cond is a parsed condition.
type Cond struct {
	paren bool // written in parentheses
	Kind  CondKind
	Op    string // comparator or function name
	L, R  *Cond
	Args  []*Operand
}

// Expr is the common part of every parsed expression: the placeholders
// it uses, and the attributes its document paths go below.
type Expr struct {
	Names  []string
	Values []string
	// Nested are the top-level attributes (names or name placeholders)
	// of the document paths that go below them (a.b, a[0]), in order of
	// first use: DynamoDB refuses such a path into a key attribute.
	Nested []string
}

func (p *parser) expr() Expr {
	e := Expr{Nested: p.nested}
	for _, s := range p.order {
		if s[0] == '#' {
			e.Names = append(e.Names, s)
		} else {
			e.Values = append(e.Values, s)
		}
	}
	return e
}

// Condition is a parsed condition, filter or key condition expression.
type Condition struct {
	Expr
	Root *Cond
}

// ParseCondition parses a condition expression.
func ParseCondition(s string) (*Condition, error) { return parseCondition(s, false) }

// ParseLegacyCondition parses a condition made from the legacy
// parameters (ScanFilter, QueryFilter, Expected), which have none of an
// expression's limits: an IN may have any number of values (DynamoDB
// takes 27,500, dynalite's suite records), and the conditions any number
// of operators.
func ParseLegacyCondition(s string) (*Condition, error) { return parseCondition(s, true) }

func parseCondition(s string, legacy bool) (*Condition, error) {
	p, err := newExprParser(s)
	if err != nil {
		return nil, err
	}
	p.legacy = legacy
	p.cond = true
	p.deferChecks = true
	c, err := p.parseOr()
	if err == nil && p.peek().kind != tEOF {
		err = p.errHere()
	}
	if err == nil && p.redundant {
		err = errRedundantParens
	}
	if err != nil {
		// A syntax error, or redundant parentheses (reported where the
		// parser meets them), come before the walk's checks.
		return nil, err
	}
	if p.deferred != nil {
		return nil, p.deferred
	}
	if n := countOps(c); n > MaxOperators && !legacy {
		// DynamoDB stops counting at the first operator past the limit.
		return nil, &SyntaxError{Msg: fmt.Sprintf("The expression contains too many operators; operator count: %d", MaxOperators+1)}
	}
	return &Condition{Expr: p.expr(), Root: c}, nil
}

// MaxOperators is the number of operators and functions a condition may
// use (https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/ServiceQuotas.html#limits-expression-parameters).
// Comparisons, AND, OR, NOT, BETWEEN, IN and every function (size
// included) count one each, as DynamoDB Local counts them.
const MaxOperators = 300

func countOps(c *Cond) int {
	if c == nil {
		return 0
	}
	n := 1 + countOps(c.L) + countOps(c.R)
	for _, o := range c.Args {
		n += countOperandOps(o)
	}
	return n
}

func countOperandOps(o *Operand) int {
	n := 0
	if o.Kind != OpPath && o.Kind != OpValue {
		n = 1
	}
	for _, a := range o.Args {
		n += countOperandOps(a)
	}
	return n
}

func (p *parser) parseOr() (*Cond, error) { return p.parseChain("OR", CondOr, p.parseAnd) }

func (p *parser) parseAnd() (*Cond, error) { return p.parseChain("AND", CondAnd, p.parseNot) }

// parseChain parses operand {keyword operand}, joined left to right into
// conditions of kind.
func (p *parser) parseChain(keyword string, kind CondKind, operand func() (*Cond, error)) (*Cond, error) {
	l, err := operand()
	if err != nil {
		return nil, err
	}
	for p.isKeyword(keyword) {
		p.next()
		r, err := operand()
		if err != nil {
			return nil, err
		}
		l = &Cond{Kind: kind, L: l, R: r}
	}
	return l, nil
}

func (p *parser) parseNot() (*Cond, error) {
	if p.isKeyword("NOT") {
		p.next()
		c, err := p.parseNot()
		if err != nil {
			return nil, err
		}
		return &Cond{Kind: CondNot, L: c}, nil
	}
	return p.parsePrimary()
}

var condFuncs = map[string]int{
	"attribute_exists":     1,
	"attribute_not_exists": 1,
	"attribute_type":       2,
	"begins_with":          2,
	"contains":             2,
}

// A condition is checked in DynamoDB's order (DynamoDB Local answers
// alike, and dynalite's suite records DynamoDB): a syntax error anywhere
// first, and doubled parentheses where the parser meets them once it
// knows what they enclose; then, in the order written, a reserved word,
// a function name that is not a condition's, and a function used where
// it cannot be (attribute_exists as an operand, size as a condition);
// then each comparison or function in turn (Condition.Validate).

func misusedFunc(name string) error {
	return &SyntaxError{Msg: "The function is not allowed to be used this way in an expression; function: " + name}
}

var errRedundantParens = &SyntaxError{Msg: "The expression has redundant parentheses;"}

// parsePrimary parses a condition in parentheses, or one that starts
// with an operand or a function call. An opening parenthesis may start
// either: the condition in parentheses is taken when it parses and is
// followed by what may follow a condition; else the operand, and if
// neither parses, the syntax error that got further is reported.
func (p *parser) parsePrimary() (*Cond, error) {
	if !p.isPunct("(") {
		return p.parseSimpleCond()
	}
	start := p.pos
	if p.quiet {
		if r, ok := p.quietMemo[start]; ok {
			p.pos = r.end
			return &Cond{}, r.err
		}
	}
	aWhole := false // the condition in parentheses parsed, but what follows may not follow it
	parenCond := func() (*Cond, error) {
		c, err := p.parseParenCond()
		if err == nil && !p.condFollows() {
			err, aWhole = p.errHere(), true
		}
		return c, err
	}
	// Which of the two to parse: the one without a syntax error, else
	// the one whose syntax error comes later, as DynamoDB commits to it
	// where the other fails (reporting on the way what it meets, such
	// as doubled parentheses); where both fail at once, that error.
	var errA, errB error
	if p.quiet {
		_, errA = parenCond()
	} else {
		errA = p.quietly(parenCond)
	}
	takeA, both := !isSyntaxError(errA), false
	if !takeA {
		p.pos = start
		if p.quiet {
			_, errB = p.parseSimpleCond()
		} else {
			errB = p.quietly(p.parseSimpleCond)
		}
		if isSyntaxError(errB) {
			// Where both read the same tokens (a condition and an
			// operand in the same parentheses), DynamoDB takes the
			// condition, and meets its doubled parentheses first.
			atA, atB := errA.(*SyntaxError).at, errB.(*SyntaxError).at
			takeA, both = atA > atB || (atA == atB && aWhole), atA == atB && !aWhole
		}
	}
	if p.quiet {
		err := errA
		if !takeA {
			err = errB
		}
		p.quietMemo[start] = quietResult{p.pos, err}
		return &Cond{}, err
	}
	p.pos = start
	switch {
	case both:
		return nil, errA
	case takeA:
		return parenCond()
	}
	return p.parseSimpleCond()
}

// quietly runs parse quietly from the current position and returns its
// error; the position is left where it stopped.
func (p *parser) quietly(parse func() (*Cond, error)) error {
	if p.quietMemo == nil {
		p.quietMemo = map[int]quietResult{}
	}
	deferred, deferredPos, redundant, predicting := p.deferred, p.deferredPos, p.redundant, p.predicting
	p.quiet = true
	_, err := parse()
	p.quiet = false
	p.deferred, p.deferredPos, p.redundant, p.predicting = deferred, deferredPos, redundant, predicting
	return err
}

func isSyntaxError(err error) bool {
	e, ok := err.(*SyntaxError)
	return ok && strings.HasPrefix(e.Msg, "Syntax error;")
}

// condFollows reports whether the next token may follow a condition.
func (p *parser) condFollows() bool {
	t := p.peek()
	return t.kind == tEOF || (t.kind == tPunct && t.text == ")") || p.isKeyword("AND") || p.isKeyword("OR")
}

// comparisonFollows reports whether the next token continues an operand
// into a condition: a comparator, BETWEEN or IN.
func (p *parser) comparisonFollows() bool {
	t := p.peek()
	if t.kind == tPunct {
		switch t.text {
		case "=", "<>", "<", "<=", ">", ">=":
			return true
		}
		return false
	}
	return p.isKeyword("BETWEEN") || p.isKeyword("IN")
}

// parseSimpleCond parses a function's condition, or a comparison,
// BETWEEN or IN that starts with an operand.
func (p *parser) parseSimpleCond() (*Cond, error) {
	t := p.peek()
	// The first operand or call is parsed as DynamoDB predicts what it
	// starts: a syntax error in it (or, after an operand, in the token
	// that follows) comes before doubled parentheses in it.
	p.predicting = true
	if p.isCall() {
		name, args, err := p.parseCall(false)
		p.predicting = false
		if err != nil {
			return nil, err
		}
		if err := p.commit(); err != nil {
			return nil, err
		}
		if !p.comparisonFollows() && !p.condFollows() {
			return nil, p.errHere()
		}
		if p.comparisonFollows() {
			if _, ok := condFuncs[name]; ok {
				p.failAt(t.pos, misusedFunc(name))
			}
			return p.parseAfterOperand(callOperand(name, args))
		}
		if name == "size" {
			p.failAt(t.pos, misusedFunc(name))
		}
		return &Cond{Kind: CondFunc, Op: name, Args: args}, nil
	}
	l, err := p.parseOperand()
	p.predicting = false
	if err != nil {
		return nil, err
	}
	if !p.comparisonFollows() {
		return nil, p.errHere()
	}
	if err := p.commit(); err != nil {
		return nil, err
	}
	return p.parseAfterOperand(l)
}

func (p *parser) isCall() bool {
	t := p.peek()
	if t.kind != tIdent {
		return false
	}
	n := p.toks[p.pos+1]
	return t.kind == tIdent && n.kind == tPunct && n.text == "(" && !isGrammarKeyword(t.text)
}

// parseCall parses name(operand, ...), recording a name that is not a
// condition's function and, for an operand (operand), a condition's
// function used as one. The operands are counted and typed later
// (Condition.Validate).
func (p *parser) parseCall(operand bool) (string, []*Operand, error) {
	t := p.next()
	p.next()
	_, isCond := condFuncs[t.text]
	switch {
	case isCond:
		if operand {
			p.failAt(t.pos, misusedFunc(t.text))
		}
	case t.text == "size":
	case updateFuncs[t.text] != 0:
		p.failAt(t.pos, &SyntaxError{Msg: "The function is not allowed in a condition expression; function: " + t.text})
	default:
		p.failAt(t.pos, &SyntaxError{Msg: "Invalid function name; function: " + t.text})
	}
	args, err := p.parseOperands(nil, p.parseOperand)
	if err != nil {
		return "", nil, err
	}
	return t.text, args, nil
}

// callOperand is a function call as an operand: size, or a call that
// parseCall has recorded an error for.
func callOperand(name string, args []*Operand) *Operand {
	if name == "size" {
		return &Operand{Kind: OpSize, Args: args}
	}
	return &Operand{Kind: OpCall, Value: name, Args: args}
}

// parseParenCond parses "(condition)".
func (p *parser) parseParenCond() (*Cond, error) {
	p.next()
	c, err := p.parseOr()
	if err != nil {
		return nil, err
	}
	if err := p.expectPunct(")"); err != nil {
		return nil, err
	}
	if c.paren {
		if err := p.redundancy(); err != nil {
			return nil, err
		}
	}
	c.paren = true
	return c, nil
}

// parseAfterOperand parses the rest of a condition that starts with the
// operand l: a comparison, BETWEEN or IN.
func (p *parser) parseAfterOperand(l *Operand) (*Cond, error) {
	operand := p.parseOperand
	switch {
	case p.isKeyword("BETWEEN"):
		p.next()
		lo, err := operand()
		if err != nil {
			return nil, err
		}
		if !p.isKeyword("AND") {
			return nil, p.errHere()
		}
		p.next()
		hi, err := operand()
		if err != nil {
			return nil, err
		}
		return &Cond{Kind: CondBetween, Args: []*Operand{l, lo, hi}}, nil
	case p.isKeyword("IN"):
		p.next()
		if err := p.expectPunct("("); err != nil {
			return nil, err
		}
		args, err := p.parseOperands([]*Operand{l}, operand)
		if err != nil {
			return nil, err
		}
		if len(args) > 101 && !p.legacy {
			return nil, &SyntaxError{Msg: fmt.Sprintf("The IN operator is provided with too many operands; number of operands: %d", len(args)-1)}
		}
		return &Cond{Kind: CondIn, Args: args}, nil
	}
	t := p.peek()
	if t.kind == tPunct {
		switch t.text {
		case "=", "<>", "<", "<=", ">", ">=":
			p.next()
			r, err := operand()
			if err != nil {
				return nil, err
			}
			return &Cond{Kind: CondCompare, Op: t.text, Args: []*Operand{l, r}}, nil
		}
	}
	return nil, p.errHere()
}

// parseOperands parses operand {"," operand} ")" and returns args with
// the operands appended.
func (p *parser) parseOperands(args []*Operand, operand func() (*Operand, error)) ([]*Operand, error) {
	for {
		o, err := operand()
		if err != nil {
			return nil, err
		}
		args = append(args, o)
		if !p.isPunct(",") {
			break
		}
		p.next()
	}
	if err := p.expectPunct(")"); err != nil {
		return nil, err
	}
	return args, nil
}

// parseOperand parses an operand of a condition: one in parentheses, a
// function call, a value or a document path. Doubled parentheses are
// redundant: reported at once, or (predicting) noted in p.redundant.
func (p *parser) parseOperand() (*Operand, error) {
	t := p.peek()
	switch {
	case t.kind == tPunct && t.text == "(":
		p.next()
		o, err := p.parseOperand()
		if err != nil {
			return nil, err
		}
		if err := p.expectPunct(")"); err != nil {
			return nil, err
		}
		if o.paren {
			if err := p.redundancy(); err != nil {
				return nil, err
			}
		}
		o.paren = true
		return o, nil
	case t.kind == tValue:
		p.next()
		p.useValue(t.text)
		return &Operand{Kind: OpValue, Value: t.text}, nil
	case p.isCall():
		name, args, err := p.parseCall(true)
		if err != nil {
			return nil, err
		}
		return callOperand(name, args), nil
	case t.kind == tName || t.kind == tIdent:
		return p.pathOperand()
	}
	return nil, p.errHere()
}

// pathOperand parses a document path as an operand.
func (p *parser) pathOperand() (*Operand, error) {
	path, err := p.parsePath()
	if err != nil {
		return nil, err
	}
	return &Operand{Kind: OpPath, Path: path}, nil
}

var updateFuncs = map[string]int{"if_not_exists": 2, "list_append": 2}

// SetAction is one SET clause.
type SetAction struct {
	Path  Path
	Value *Operand
}

// ValueAction is an ADD or DELETE clause.
type ValueAction struct {
	Path  Path
	Value string
}

// Update is a parsed update expression.
type Update struct {
	Expr
	Set    []SetAction
	Remove []Path
	Add    []ValueAction
	Delete []ValueAction
	// sections are the clauses' keywords in the order written (each is
	// written once at most).
	sections []string
	late     error // CheckOperandCounts
}

// ParseUpdate parses an update expression.
func ParseUpdate(s string) (*Update, error) {
	u, err := ParseUpdateLate(s)
	if err != nil {
		return nil, err
	}
	if err := u.CheckOperandCounts(); err != nil {
		return nil, err
	}
	return u, nil
}

// ParseUpdateLate is ParseUpdate that leaves the update's operand count
// and kind checks (a function's number of operands, if_not_exists's
// path) to CheckOperandCounts, which DynamoDB makes after the names,
// values, paths and operand types are checked. The update must not be
// applied unless CheckOperandCounts returns nil.
func ParseUpdateLate(s string) (*Update, error) {
	p, err := newExprParser(s)
	if err != nil {
		return nil, err
	}
	p.deferChecks = true
	p.update = true
	u, err := p.parseUpdate()
	if err = p.finish(err); err != nil {
		return nil, err
	}
	u.late = p.later
	return u, nil
}

// CheckOperandCounts reports the first function of the update given the
// wrong number or kind of operands (see ParseUpdateLate).
func (u *Update) CheckOperandCounts() error { return u.late }

func (p *parser) parseUpdate() (*Update, error) {
	u := &Update{}
	seen := map[string]bool{}
	for p.peek().kind != tEOF {
		t := p.peek()
		if t.kind != tIdent {
			return nil, p.errHere()
		}
		kw := strings.ToUpper(t.text)
		switch kw {
		case "SET", "REMOVE", "ADD", "DELETE":
		default:
			return nil, p.errHere()
		}
		var twice error // reported at the section's end: a check inside it comes first
		if seen[kw] {
			twice = &SyntaxError{Msg: fmt.Sprintf("The \"%s\" section can only be used once in an update expression;", kw)}
			if !p.deferChecks {
				return nil, twice
			}
		}
		seen[kw] = true
		u.sections = append(u.sections, kw)
		p.next()
		for {
			if p.isSectionKeyword() {
				return nil, p.errHere()
			}
			path, err := p.parsePath()
			if err != nil {
				return nil, err
			}
			switch kw {
			case "SET":
				if err := p.expectPunct("="); err != nil {
					return nil, err
				}
				v, err := p.parseSetValue(true)
				if err != nil {
					return nil, err
				}
				u.Set = append(u.Set, SetAction{path, v})
			case "REMOVE":
				u.Remove = append(u.Remove, path)
			case "ADD", "DELETE":
				t := p.peek()
				if t.kind != tValue {
					return nil, p.errHere()
				}
				p.next()
				p.useValue(t.text)
				if kw == "ADD" {
					u.Add = append(u.Add, ValueAction{path, t.text})
				} else {
					u.Delete = append(u.Delete, ValueAction{path, t.text})
				}
			}
			if p.isPunct(",") {
				p.next()
				continue
			}
			break
		}
		if twice != nil {
			p.fail(twice)
		}
	}
	u.Expr = p.expr()
	return u, nil
}

// CheckPaths reports overlapping document paths, after resolving names,
// the paths taken in the order written. (The engine checks them with
// their names, action by action: CheckTargets.)
func (u *Update) CheckPaths(env *Env) error { return checkOverlap(u.writtenPaths(), env) }

// Paths returns the document paths the update writes: those of its SET,
// REMOVE, ADD and DELETE actions, in that order.
func (u *Update) Paths() []Path {
	paths := make([]Path, 0, u.actions())
	for p := range u.AllPaths() {
		paths = append(paths, p)
	}
	return paths
}

// AllPaths yields the paths of Paths, in its order, without building
// the list.
func (u *Update) AllPaths() iter.Seq[Path] {
	return func(yield func(Path) bool) {
		for _, a := range u.Set {
			if !yield(a.Path) {
				return
			}
		}
		for _, p := range u.Remove {
			if !yield(p) {
				return
			}
		}
		for _, a := range u.Add {
			if !yield(a.Path) {
				return
			}
		}
		for _, a := range u.Delete {
			if !yield(a.Path) {
				return
			}
		}
	}
}

// actions is the number of actions of u.
func (u *Update) actions() int {
	return len(u.Set) + len(u.Remove) + len(u.Add) + len(u.Delete)
}

// checkOverlap compares the paths pairwise, each element resolved as it
// is compared: paths that do not overlap, the usual case, cost no
// resolved copies.
func checkOverlap(paths []Path, env *Env) error {
	for i := len(paths) - 1; i >= 0; i-- {
		if err := overlapLater(paths, i, env); err != nil {
			return err
		}
	}
	return nil
}

// overlapLater reports whether paths[i] overlaps or conflicts with a
// path written after it, as DynamoDB Local finds it (the callers take i
// from the last path back): a conflict names the two paths; an overlap
// names paths[i] and, of the later paths that share the two's common
// prefix but its last element, the one reached by following the last
// entry of a Java HashMap by element, level by level.
func overlapLater(paths []Path, i int, env *Env) error {
	var err error
	j := i + 1
	for ; j < len(paths); j++ {
		if err = overlap(paths[i], paths[j], env); err != nil {
			break
		}
	}
	if err == nil || strings.Contains(err.Error(), "conflict") {
		return err
	}
	// The later paths that share the two's common prefix but its last
	// element form a tree (they do not overlap one another: the callers
	// checked them first). From that element down, take at each level
	// the last entry of a Java HashMap by the level's element, filled
	// from the last path back (the keys in the order met), until a path
	// ends there.
	d := min(len(paths[i]), len(paths[j])) - 1
	// A level's map is keyed by its attribute names (String) or its list
	// indexes (Integer, whose hash code is the number).
	key := func(e PathElem) PathElem {
		if e.IsIndex {
			return PathElem{IsIndex: true, Index: e.Index}
		}
		return PathElem{Name: env.name(e.Name)}
	}
	hash := func(e PathElem) int32 {
		if e.IsIndex {
			return int32(e.Index)
		}
		return javaStringHash(e.Name)
	}
	var cand []int
	for k := len(paths) - 1; k > i; k-- {
		if p := paths[k]; len(p) > d && samePrefix(p, paths[i], d, env) {
			cand = append(cand, k)
		}
	}
	var last Path
	for depth := d; last == nil; depth++ {
		var keys []PathElem
		seen := map[PathElem]bool{}
		for _, k := range cand {
			if kk := key(paths[k][depth]); !seen[kk] {
				seen[kk] = true
				keys = append(keys, kk)
			}
		}
		order := javaOrder(keys, hash)
		lastKey := order[len(order)-1]
		var next []int
		for _, k := range cand {
			if key(paths[k][depth]) != lastKey {
				continue
			}
			if len(paths[k]) == depth+1 {
				last = paths[k]
				break
			}
			next = append(next, k)
		}
		cand = next
	}
	return &CheckError{fmt.Sprintf("Two document paths overlap with each other; must remove or rewrite one of these paths; path one: %s, path two: %s", bracketPath(env.Resolve(paths[i])), bracketPath(env.Resolve(last)))}
}

// samePrefix reports whether a and b have the same first n elements.
func samePrefix(a, b Path, n int, env *Env) bool {
	for k := range n {
		if env.resolveElem(a[k]) != env.resolveElem(b[k]) {
			return false
		}
	}
	return true
}

// overlap reports whether the paths one and two (written in that order)
// overlap (one is a prefix of the other) or conflict (one takes an
// attribute for a list, the other for a map), with DynamoDB's message.
func overlap(one, two Path, env *Env) error {
	a, b := one, two
	if len(b) < len(a) {
		a, b = b, a
	}
	for k := range a {
		if env.undefined(a[k]) || env.undefined(b[k]) {
			// A path with an undefined name (reported apart) overlaps
			// nothing, as DynamoDB Local compares.
			return nil
		}
		if env.resolveElem(a[k]) != env.resolveElem(b[k]) {
			if a[k].IsIndex != b[k].IsIndex {
				// d[0] and d.a: one path takes d for a list, the other
				// for a map.
				return &CheckError{fmt.Sprintf("Two document paths conflict with each other; must remove or rewrite one of these paths; path one: %s, path two: %s", bracketPath(env.Resolve(one)), bracketPath(env.Resolve(two)))}
			}
			return nil
		}
	}
	return &CheckError{fmt.Sprintf("Two document paths overlap with each other; must remove or rewrite one of these paths; path one: %s, path two: %s", bracketPath(env.Resolve(one)), bracketPath(env.Resolve(two)))}
}

func bracketPath(p Path) string {
	parts := make([]string, len(p))
	for i, e := range p {
		if e.IsIndex {
			parts[i] = "[" + strconv.Itoa(e.Index) + "]"
		} else {
			parts[i] = e.Name
		}
	}
	return "[" + strings.Join(parts, ", ") + "]"
}

func (p *parser) isSectionKeyword() bool {
	return p.isKeyword("SET") || p.isKeyword("REMOVE") || p.isKeyword("ADD") || p.isKeyword("DELETE")
}

// parseSetValue parses a SET value: an operand, or two joined by + or
// -. Only the whole value (top), or the whole value in parentheses, may
// be a sum or difference: an operand in parentheses elsewhere (of + or
// -, of a function) is a single operand, as DynamoDB Local parses it.
func (p *parser) parseSetValue(top bool) (*Operand, error) {
	// The first operand is parsed as DynamoDB predicts what the value
	// is: doubled parentheses in it (in its own parentheses, in a value
	// in them, in a call's arguments) are reported once the whole
	// value's first operand is whole, after a syntax error in it.
	inParen := p.pos > 0 && p.toks[p.pos-1].kind == tPunct && p.toks[p.pos-1].text == "("
	outer := p.predicting
	p.predicting = true
	l, err := p.parseSetOperandIn(false, top)
	p.predicting = outer
	if err != nil {
		return nil, err
	}
	// The whole value's first operand is known where it ends, whatever
	// follows; that of a value in parentheses within it once a + or -
	// follows it, or else once all of the whole value's first operand is.
	if p.redundant && !outer {
		p.redundant = false
		return nil, errRedundantParens
	}
	switch t := p.peek(); {
	case p.isPunct("+") || p.isPunct("-"):
		if p.redundant {
			p.redundant = false
			return nil, errRedundantParens
		}
	case p.isPunct(")"):
	case !inParen && (t.kind == tEOF || p.isPunct(",") || p.isSectionKeyword()):
	default:
		return nil, p.errHere()
	}
	if (p.isPunct("+") || p.isPunct("-")) && (l.Kind == OpPlus || l.Kind == OpMinus) {
		return nil, p.errHere() // ((a + b)) - c
	}
	if p.isPunct("+") || p.isPunct("-") {
		if l.Kind == OpListAppend { // (list_append(...)) + ...
			if err := (&SyntaxError{Msg: "The function is not allowed to be used this way in an expression; function: list_append"}); p.fail(err) {
				return nil, err
			}
		}
		op := p.next().text
		// The operand after + or -: its doubled parentheses are
		// reported at once.
		p.predicting = false
		r, err := p.parseSetOperand(true)
		p.predicting = outer
		if err != nil {
			return nil, err
		}
		k := OpPlus
		if op == "-" {
			k = OpMinus
		}
		return &Operand{Kind: k, Args: []*Operand{l, r}}, nil
	}
	return l, nil
}

// parseSetOperand parses an operand of a SET value. list_append may only
// be the whole value: not a function's argument (inner) nor an operand
// of + or -, which DynamoDB refuses before it looks inside the call.
func (p *parser) parseSetOperand(inner bool) (*Operand, error) {
	return p.parseSetOperandIn(inner, false)
}

// parseSetOperandIn is parseSetOperand; top: the operand starts the
// whole SET value, whose parentheses may hold a sum or difference.
func (p *parser) parseSetOperandIn(inner, top bool) (*Operand, error) {
	if p.isPunct("(") {
		p.next()
		var v *Operand
		var err error
		if top {
			v, err = p.parseSetValue(true)
		} else {
			v, err = p.parseSetOperandIn(inner, false)
		}
		if err != nil {
			return nil, err
		}
		if err := p.expectPunct(")"); err != nil {
			return nil, err
		}
		if v.paren {
			// In a value's first operand, reported once it is whole
			// (parseSetValue), after a syntax error in it; at once
			// elsewhere, as DynamoDB Local answers.
			if !p.predicting {
				return nil, errRedundantParens
			}
			p.redundant = true
		}
		v.paren = true
		return v, nil
	}
	t := p.peek()
	switch t.kind {
	case tValue:
		p.next()
		p.useValue(t.text)
		return &Operand{Kind: OpValue, Value: t.text}, nil
	case tName:
		return p.pathOperand()
	case tIdent:
		if p.keywordName(t) {
			return nil, p.errHere() // SET (...) is no call
		}
		if p.toks[p.pos+1].kind == tPunct && p.toks[p.pos+1].text == "(" {
			n, ok := updateFuncs[t.text]
			var bad error
			if !ok {
				bad = &SyntaxError{Msg: fmt.Sprintf("Invalid function name; function: %s", t.text)}
				if _, ok := condFuncs[t.text]; ok || t.text == "size" {
					bad = &SyntaxError{Msg: fmt.Sprintf("The function is not allowed in an update expression; function: %s", t.text)}
				}
			} else if t.text == "list_append" && (inner || p.arithmeticAfterCall()) {
				bad = &SyntaxError{Msg: "The function is not allowed to be used this way in an expression; function: list_append"}
			}
			if bad != nil && p.fail(bad) {
				return nil, bad
			}
			p.next()
			p.next()
			args, err := p.parseOperands(nil, func() (*Operand, error) { return p.parseSetOperand(true) })
			if err != nil {
				return nil, err
			}
			if bad != nil {
				return &Operand{Kind: OpValue}, nil // reported by finish
			}
			if len(args) != n {
				err := &SyntaxError{Msg: fmt.Sprintf("Incorrect number of operands for operator or function; operator or function: %s, number of operands: %d", t.text, len(args))}
				if p.failLater(err) {
					return nil, err
				}
				// A stand-in for the call, whose operands' placeholders
				// are checked before its count (Update.CheckActions).
				return &Operand{Kind: OpValue, Args: args, err: err}, nil
			}
			if t.text == "if_not_exists" {
				o := &Operand{Kind: OpIfNotExists, Args: args}
				if args[0].Kind != OpPath {
					o.err = &SyntaxError{Msg: "Operator or function requires a document path; operator or function: if_not_exists"}
					if p.failLater(o.err) {
						return nil, o.err
					}
				}
				return o, nil
			}
			return &Operand{Kind: OpListAppend, Args: args}, nil
		}
		return p.pathOperand()
	}
	return nil, p.errHere()
}

// arithmeticAfterCall reports whether the call whose name is the next
// token is followed by + or -.
func (p *parser) arithmeticAfterCall() bool {
	depth := 0
	for i := p.pos + 1; i < len(p.toks); i++ {
		t := p.toks[i]
		if t.kind != tPunct {
			continue
		}
		switch t.text {
		case "(":
			depth++
		case ")":
			depth--
			if depth == 0 {
				n := p.toks[i+1]
				return n.kind == tPunct && (n.text == "+" || n.text == "-")
			}
		}
	}
	return false
}

// Projection is a parsed projection expression.
type Projection struct {
	Expr
	Paths []Path
}

// ParseProjection parses a projection expression.
func ParseProjection(s string) (*Projection, error) {
	p, err := newExprParser(s)
	if err != nil {
		return nil, err
	}
	p.deferChecks = true // a syntax error anywhere before a reserved word
	pr := &Projection{}
	for {
		path, err := p.parsePath()
		if err != nil {
			return nil, err
		}
		pr.Paths = append(pr.Paths, path)
		if p.isPunct(",") {
			p.next()
			continue
		}
		break
	}
	if p.peek().kind != tEOF {
		return nil, p.errHere()
	}
	if p.deferred != nil {
		return nil, p.deferred
	}
	pr.Expr = p.expr()
	return pr, nil
}

// CheckPaths reports overlapping document paths, after resolving names.
func (pr *Projection) CheckPaths(env *Env) error { return checkOverlap(pr.Paths, env) }
