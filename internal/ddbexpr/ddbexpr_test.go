package ddbexpr

import (
	"errors"
	"reflect"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/google/go-cmp/cmp"
)

func s(v string) types.AttributeValue { return &types.AttributeValueMemberS{Value: v} }
func n(v string) types.AttributeValue { return &types.AttributeValueMemberN{Value: v} }

func TestNumber(t *testing.T) {
	cases := []struct{ in, want string }{
		{"1.50", "1.5"}, {"100", "100"}, {"1e2", "100"}, {"-0", "0"}, {"0.000", "0"},
		{"-1.2E-3", "-0.0012"}, {"+7", "7"}, {"0012.3400", "12.34"},
		{"12345678901234567890123456789012345678", "12345678901234567890123456789012345678"},
	}
	for _, c := range cases {
		got, err := NormalizeNumber(c.in)
		if err != nil || got != c.want {
			t.Errorf("NormalizeNumber(%q) = %q, %v; want %q", c.in, got, err, c.want)
		}
	}
	for _, bad := range []string{"", "abc", "1e", "--1", "1.2.3", "123456789012345678901234567890123456789", "1e200", "1e-200"} {
		if _, err := ParseNumber(bad); err == nil {
			t.Errorf("ParseNumber(%q) succeeded", bad)
		}
	}
	ordered := []string{"-1e10", "-100", "-99.5", "-1", "-0.5", "-0.05", "0", "0.001", "0.5", "1", "1.5", "9", "10", "10.01", "1e20"}
	for i := 1; i < len(ordered); i++ {
		a, _ := ParseNumber(ordered[i-1])
		b, _ := ParseNumber(ordered[i])
		if a.Cmp(b) >= 0 || string(a.AppendKey(nil)) >= string(b.AppendKey(nil)) {
			t.Errorf("%s should sort before %s", ordered[i-1], ordered[i])
		}
	}
	a, _ := ParseNumber("0.1")
	b, _ := ParseNumber("0.2")
	sum, _ := a.Add(b)
	if sum.String() != "0.3" {
		t.Errorf("0.1+0.2 = %s", sum)
	}
	diff, _ := a.Sub(b)
	if diff.String() != "-0.1" {
		t.Errorf("0.1-0.2 = %s", diff)
	}
}

func TestCondition(t *testing.T) {
	it := Item{
		"a": n("5"), "s": s("hello"), "ss": &types.AttributeValueMemberSS{Value: []string{"x", "y"}},
		"m": &types.AttributeValueMemberM{Value: Item{"l": &types.AttributeValueMemberL{Value: []types.AttributeValue{n("1"), s("two")}}}},
	}
	env := &Env{Names: map[string]string{"#m": "m"}, Values: map[string]types.AttributeValue{
		":five": n("5.0"), ":four": n("4"), ":six": n("6"), ":he": s("he"), ":x": s("x"), ":two": s("two"), ":S": s("S"),
	}}
	cases := []struct {
		expr string
		want bool
	}{
		{"a = :five", true},
		{"a <> :five", false},
		{"a BETWEEN :four AND :six", true},
		{"a IN (:four, :six)", false},
		{"a > :four AND NOT a >= :six", true},
		{"a < :four OR (s = :he OR begins_with(s, :he))", true},
		{"attribute_exists(#m.l[1])", true},
		{"attribute_not_exists(#m.l[2])", true},
		{"#m.l[1] = :two", true},
		{"contains(ss, :x) AND contains(s, :he)", true},
		{"size(s) = :five AND size(#m.l) < :four", true},
		{"attribute_type(s, :S)", true},
		{"nope <> :x", true},
		{"nope = :x", false},
	}
	for _, c := range cases {
		cond, err := ParseCondition(c.expr)
		if err != nil {
			t.Fatalf("%s: %v", c.expr, err)
		}
		if err := cond.Validate(env); err != nil {
			t.Fatalf("%s: %v", c.expr, err)
		}
		got, err := cond.Eval(it, env)
		if err != nil || got != c.want {
			t.Errorf("%s = %v, %v; want %v", c.expr, got, err, c.want)
		}
	}
}

func TestParseErrors(t *testing.T) {
	cases := map[string]string{
		"a = ":        `Syntax error; token: "<EOF>", near: "= "`,
		"status = :v": "Attribute name is a reserved keyword; reserved keyword: status",
		"((a = :v))":  "The expression has redundant parentheses;",
		"foo(a)":      "Invalid function name; function: foo",
		"":            "The expression can not be empty;",
		// a syntax error anywhere first; doubled parentheses where met
		`a = "x"`:                                  `Syntax error; token: """, near: "= "x"`,
		"a > between":                              `Syntax error; token: "between", near: "> between"`,
		"(a).b = :v":                               `Syntax error; token: ".", near: ").b"`,
		"status = :v AND ((a)) = :v":               "The expression has redundant parentheses;",
		"((a)) = :v AND b c":                       "The expression has redundant parentheses;",
		"((a.b)).c = :v":                           `Syntax error; token: ".", near: ").c"`,
		"attribute_exists(a) = :v AND foo(a)":      "The function is not allowed to be used this way in an expression; function: attribute_exists",
		"foo(a) = :v AND attribute_exists(a) = :v": "Invalid function name; function: foo",
		"attribute_exists((status)) > :v":          "The function is not allowed to be used this way in an expression; function: attribute_exists",
		"if_not_exists(a, b) = :v":                 "The function is not allowed in a condition expression; function: if_not_exists",
		"begins_with(((:v))":                       `Syntax error; token: "<EOF>", near: ")"`,
		"a > size(b, contains(((c)))":              "The expression has redundant parentheses;",
		"(((contains(a, b)))":                      `Syntax error; token: "<EOF>", near: ")"`,
		"((begins_with(a, :v))) . <= :v":           "The expression has redundant parentheses;",
	}
	for expr, want := range cases {
		_, err := ParseCondition(expr)
		var se *SyntaxError
		if !errors.As(err, &se) || se.Msg != want {
			t.Errorf("ParseCondition(%q) = %v, want %q", expr, err, want)
		}
	}
}

func TestUpdate(t *testing.T) {
	old := Item{
		"n": n("1"), "l": &types.AttributeValueMemberL{Value: []types.AttributeValue{s("a"), s("b"), s("c")}},
		"m":  &types.AttributeValueMemberM{Value: Item{"x": n("1"), "y": n("2")}},
		"ss": &types.AttributeValueMemberSS{Value: []string{"a", "b"}},
	}
	env := &Env{Values: map[string]types.AttributeValue{
		":one": n("1"), ":l": &types.AttributeValueMemberL{Value: []types.AttributeValue{s("d")}},
		":ss": &types.AttributeValueMemberSS{Value: []string{"b"}}, ":c": &types.AttributeValueMemberSS{Value: []string{"c"}},
	}}
	u, err := ParseUpdate("SET n = n + :one, m.x = m.y, m.y = m.x, l = list_append(l, :l), z = if_not_exists(z, :one) REMOVE l[0], l[2] ADD ss :c DELETE ss :ss")
	if err != nil {
		t.Fatal(err)
	}
	got, err := u.Apply(old, env)
	if err != nil {
		t.Fatal(err)
	}
	want := Item{
		"n": n("2"), "l": &types.AttributeValueMemberL{Value: []types.AttributeValue{s("b"), s("d")}},
		"m":  &types.AttributeValueMemberM{Value: Item{"x": n("2"), "y": n("1")}},
		"ss": &types.AttributeValueMemberSS{Value: []string{"a", "c"}}, "z": n("1"),
	}
	if d := cmp.Diff(want, got, cmp.Exporter(func(reflect.Type) bool { return true })); d != "" {
		t.Fatal(d)
	}
	// old is unchanged
	if old["n"].(*types.AttributeValueMemberN).Value != "1" || len(old["l"].(*types.AttributeValueMemberL).Value) != 3 ||
		old["m"].(*types.AttributeValueMemberM).Value["x"].(*types.AttributeValueMemberN).Value != "1" {
		t.Fatalf("Apply modified its input: %v", old)
	}
	for expr, want := range map[string]error{
		"SET q = nope + :one": errNoAttr,
		"SET q.r = :one":      errBadUpdate,
		"SET l = l + :one":    errBadType,
		"ADD l :one":          errBadType,
	} {
		u, err := ParseUpdate(expr)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := u.Apply(old, env); err != want {
			t.Errorf("%s: got %v, want %v", expr, err, want)
		}
	}
}

func TestProjection(t *testing.T) {
	it := Item{"a": n("1"), "b": s("x"), "l": &types.AttributeValueMemberL{Value: []types.AttributeValue{n("0"), n("1"), n("2")}}}
	p, err := ParseProjection("a, l[2], l[0], nope")
	if err != nil {
		t.Fatal(err)
	}
	got := p.Apply(it, &Env{})
	want := Item{"a": n("1"), "l": &types.AttributeValueMemberL{Value: []types.AttributeValue{n("0"), n("2")}}}
	if d := cmp.Diff(want, got, cmp.Exporter(func(reflect.Type) bool { return true })); d != "" {
		t.Fatal(d)
	}
}

func FuzzParse(f *testing.F) {
	for _, s := range []string{"a = :v", "SET a = b + :c REMOVE d[0]", "a.b[1], #c", "NOT (a BETWEEN :x AND :y) OR size(c) > :z", "attribute_exists(#a.b)"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		// Parsers and evaluation must never panic, whatever the input.
		it := Item{"a": n("1"), "l": &types.AttributeValueMemberL{Value: []types.AttributeValue{s("x")}},
			"m": &types.AttributeValueMemberM{Value: Item{"b": s("y")}}}
		envFor := func(e Expr) *Env {
			env := &Env{Names: map[string]string{}, Values: map[string]types.AttributeValue{}}
			for i, name := range e.Names {
				env.Names[name] = []string{"a", "l", "m", "b"}[i%4]
			}
			for i, v := range e.Values {
				env.Values[v] = []types.AttributeValue{n("2"), s("S"), &types.AttributeValueMemberL{Value: []types.AttributeValue{n("3")}},
					&types.AttributeValueMemberSS{Value: []string{"q"}}}[i%4]
			}
			return env
		}
		if c, err := ParseCondition(src); err == nil {
			env := envFor(c.Expr)
			if c.Validate(env) == nil {
				c.Eval(it, env)
				c.Eval(nil, env)
			}
		}
		if u, err := ParseUpdate(src); err == nil {
			env := envFor(u.Expr)
			if u.CheckPaths(env) == nil {
				u.Apply(it, env)
				u.Apply(Item{}, env)
			}
		}
		if p, err := ParseProjection(src); err == nil {
			p.Apply(it, envFor(p.Expr))
		}
	})
}
