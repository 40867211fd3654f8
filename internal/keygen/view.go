package keygen

import (
	"fmt"
	"strconv"
	"strings"
)

// The views hold what the templates print; code too intricate for a
// template is assembled here as lines.

type entityView struct {
	Name, Type, Lower, Guard                           string
	Keys                                               []*keyView
	Fields                                             []*fieldView
	KeyParams, KeyArgs, KeySize, ParseResults          string
	KeyLines, ParseLines, MarshalLines, UnmarshalLines []string
	// RefreshLines are the body of RefreshItem; nil when it would decode
	// every field (UnmarshalItem does the same).
	RefreshLines                                   []string
	Members                                        []string
	Attrs                                          string
	VersionAttr, CreatedAttr, UpdatedAttr, TTLAttr string
	// CreatedField and UpdatedField name the Go fields that StampTimes
	// sets; "" when absent (or of a named time type, left to the runtime).
	CreatedField, UpdatedField string
	// TimeLayout is the layout of the created and updated attributes.
	TimeLayout string
	// Check names the function applying the rules of the entity; "" when
	// it has none.
	Check      string
	CheckLines []string
	Validate   bool // the entity has a Validate method
	HasEnums   bool
	Checks     []checkView
	// Unique is the Go literal of Schema.Unique; "" without unique fields.
	Unique string
}

// checkView is the function applying the rules of one field.
type checkView struct {
	Name, Attr, Entity, Param, Rules string
	Lines                            []string
}

type keyView struct {
	*Key
	Entity, Public, Private, FromItem, BuildFunc        string
	Const, HasFields, Exported, Dup                     bool
	Params, Args, Size, PrefixConst                     string
	ParseResults, ZeroResults, Results, Sources, Member string
	BuildLines, ScanLines, FromItemLines                []string
	Prefixes                                            []prefixView
	fields                                              []*Field
}

type prefixView struct {
	Name, Attr, Entity, Template, Max, Params, Size string
	Lines                                           []string
}

type fieldView struct {
	*Field
	HasRules    bool
	Check       string // the check function; "" without rules
	EncodeFunc  string // a codec encoder; "" when EncodeLines are needed
	Entity, Var string
	EncodeLines []string
}

// ident turns an attribute name into an exported identifier part:
// "GSI1PK" stays, "authorId" becomes "AuthorId".
func ident(s string) string {
	var b strings.Builder
	for _, r := range s {
		if r == '_' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' {
			if b.Len() == 0 && r >= 'a' && r <= 'z' {
				r -= 'a' - 'A'
			}
			b.WriteRune(r)
		}
	}
	return b.String()
}

func lowerType(name string) string {
	r := []rune(lowerFirst(name))
	if r[len(r)-1] == '_' {
		r = r[:len(r)-1]
	}
	return string(r)
}

// call parenthesises a dereference before a method call.
func call(x string) string {
	if strings.HasPrefix(x, "*") {
		return "(" + x + ")"
	}
	return x
}

// base converts x (of the field's element type) to the type the codec
// works with.
func (f *Field) base(x string) string {
	switch f.Kind {
	case kindInt:
		return "int64(" + x + ")"
	case kindUint:
		return "uint64(" + x + ")"
	case kindFloat:
		return "float64(" + x + ")"
	}
	if f.Named {
		return f.Base + "(" + x + ")"
	}
	return x
}

// fromBase converts x (of the codec's type) to the field's element type.
func (f *Field) fromBase(x string) string {
	switch {
	case f.Named:
		return f.Elem + "(" + x + ")"
	case f.Kind == kindInt && f.Elem != "int64",
		f.Kind == kindUint && f.Elem != "uint64",
		f.Kind == kindFloat && f.Elem != "float64":
		return f.Elem + "(" + x + ")"
	}
	return x
}

// nonZero is the omitempty test.
func (f *Field) nonZero(x string) string {
	switch f.Kind {
	case kindString:
		return x + ` != ""`
	case kindBool:
		return x
	case kindInt, kindUint, kindFloat:
		return x + " != 0"
	case kindTime:
		return "!" + call(f.base(x)) + ".IsZero()"
	case kindBytes, kindStrings, kindStringMap:
		return "len(" + x + ") != 0"
	}
	return ""
}

// encode returns an expression of the attribute value of x, and whether
// it also yields an error.
func (f *Field) encode(x string) (string, bool) {
	q := strconv.Quote(f.Attr)
	switch f.Kind {
	case kindString:
		return "&types.AttributeValueMemberS{Value: " + f.base(x) + "}", false
	case kindBool:
		return "&types.AttributeValueMemberBOOL{Value: " + f.base(x) + "}", false
	case kindInt:
		return "codec.Number(" + f.base(x) + ")", false
	case kindUint:
		return "codec.UnsignedNumber(" + f.base(x) + ")", false
	case kindFloat:
		return fmt.Sprintf("codec.FloatNumber(%s, %s, %d)", q, f.base(x), f.Bits), true
	case kindTime:
		switch f.TimeFmt {
		case "unix":
			return "codec.Number(" + call(f.base(x)) + ".Unix())", false
		case "unixms":
			return "codec.Number(" + call(f.base(x)) + ".UnixMilli())", false
		}
		return fmt.Sprintf("codec.TimeString(%s, %s, %s)", q, f.base(x), f.TimeFmt), true
	case kindBytes:
		return "codec.Binary(" + f.base(x) + ")", false
	case kindStrings:
		if f.Set {
			return "codec.StringSet(" + f.base(x) + ")", false
		}
		return "codec.StringList(" + f.base(x) + ")", false
	case kindStringMap:
		return "codec.StringMapValue(" + f.base(x) + ")", false
	}
	return strings.TrimPrefix(x, "*") + ".MarshalDynamoDBAttributeValue()", true
}

// decodeExpr returns the expression reading the field from the
// codec.Decoder d, typed as the field's element type; "" for a type with
// its own codec (see decodeLine).
func (f *Field) decodeExpr() string {
	q := strconv.Quote(f.Attr)
	var x string
	switch f.Kind {
	case kindString:
		if f.Enum != nil {
			return "codec.Enum(&d, " + q + ", " + f.Elem + ".Valid)"
		}
		x = "d.String(" + q + ")"
	case kindBool:
		x = "d.Bool(" + q + ")"
	case kindInt:
		x = fmt.Sprintf("d.Int(%s, %d)", q, f.Bits)
	case kindUint:
		x = fmt.Sprintf("d.Uint(%s, %d)", q, f.Bits)
	case kindFloat:
		x = fmt.Sprintf("d.Float(%s, %d)", q, f.Bits)
	case kindTime:
		switch f.TimeFmt {
		case "unix":
			x = "d.UnixTime(" + q + ")"
		case "unixms":
			x = "d.UnixMilliTime(" + q + ")"
		default:
			x = fmt.Sprintf("d.Time(%s, %s)", q, f.TimeFmt)
		}
	case kindBytes:
		x = "d.Bytes(" + q + ")"
	case kindStrings:
		x = "d.Strings(" + q + ")"
	case kindStringMap:
		x = "d.StringMap(" + q + ")"
	default:
		return ""
	}
	return f.fromBase(x)
}

// decodeLine is the line of UnmarshalItem that decodes the field into
// target.
func (f *Field) decodeLine(target string) string {
	q := strconv.Quote(f.Attr)
	switch {
	case f.Kind == kindAV && f.Ptr:
		return target + " = codec.UnmarshalNew[" + f.Elem + "](&d, " + q + ")"
	case f.Kind == kindAV:
		return "d.Unmarshal(" + q + ", &" + target + ")"
	case f.Ptr:
		return target + " = codec.Ptr(d.Has(" + q + "), " + f.decodeExpr() + ")"
	}
	return target + " = " + f.decodeExpr()
}

// size is the builder capacity a field needs.
func (s Seg) size(x string) (string, int) {
	switch s.Field.Kind {
	case kindString:
		return "len(" + x + ")", 0
	case kindTime:
		return "", map[string]int{"keys.TimeSeconds": 20, "keys.TimeMillis": 24, "keys.TimeNanos": 30}[s.Field.TimeFmt]
	}
	return "", s.Width + 1
}

// buildLine appends the field's value x to the builder b.
func (s Seg) buildLine(x string) string {
	f := s.Field
	q := strconv.Quote(f.Name)
	switch f.Kind {
	case kindString:
		if s.Bare {
			return "b.Raw(" + q + ", " + f.base(x) + ")"
		}
		return "b.String(" + q + ", " + f.base(x) + ")"
	case kindInt:
		return fmt.Sprintf("b.Int(%s, %s, %d)", q, f.base(x), s.Width)
	case kindUint:
		return fmt.Sprintf("b.Uint(%s, %s, %d)", q, f.base(x), s.Width)
	}
	return fmt.Sprintf("b.Time(%s, %s, %s)", q, f.base(x), f.TimeFmt)
}

// scanExpr reads the field from the scanner s.
func (s Seg) scanExpr() string {
	f := s.Field
	q := strconv.Quote(f.Name)
	switch f.Kind {
	case kindString:
		if s.Bare {
			return f.fromBase("s.Raw(" + q + ")")
		}
		return f.fromBase("s.String(" + q + ")")
	case kindInt:
		return f.fromBase(fmt.Sprintf("s.Int(%s, %d, %d)", q, s.Width, f.Bits))
	case kindUint:
		return f.fromBase(fmt.Sprintf("s.Uint(%s, %d, %d)", q, s.Width, f.Bits))
	}
	return f.fromBase(fmt.Sprintf("s.Time(%s, %s)", q, f.TimeFmt))
}

func zeroOf(f *Field) string {
	switch f.Kind {
	case kindString:
		if f.Named {
			return f.Elem + `("")`
		}
		return `""`
	case kindInt, kindUint:
		return "0"
	}
	return f.Elem + "{}"
}

// sizeExpr sums the builder sizes of segs with fields read through arg.
func sizeExpr(segs []Seg, arg func(*Field) string) string {
	n := 0
	var parts []string
	for _, s := range segs {
		if s.Field == nil {
			n += len(s.Lit)
			continue
		}
		expr, c := s.size(arg(s.Field))
		n += c
		if expr != "" {
			parts = append(parts, expr)
		}
	}
	if n > 0 || len(parts) == 0 {
		parts = append([]string{strconv.Itoa(n)}, parts...)
	}
	return strings.Join(parts, " + ")
}

func (e *Entity) view() *entityView {
	v := &entityView{Name: e.Name, Type: e.Type, Lower: lowerType(e.Name), Guard: e.Guard}
	param := func(f *Field) string { return lowerFirst(f.Name) }
	field := func(f *Field) string { return "p." + f.Name }
	for i, k := range e.Keys {
		kv := &keyView{Key: k, Entity: e.Name, Public: e.Name + ident(k.Attr), fields: k.fields()}
		kv.Dup = k.Dup != nil
		kv.Private = "build" + kv.Public
		kv.FromItem = v.Lower + ident(k.Attr) + "FromItem"
		kv.HasFields = len(kv.fields) > 0
		kv.Const = !kv.HasFields && !k.TypeAttr
		kv.Exported = kv.HasFields && !k.TypeAttr && k.FieldAttr == nil
		kv.Member = "k" + strconv.Itoa(i)
		var params, args, results, zeros, sources []string
		for _, f := range kv.fields {
			params = append(params, param(f)+" "+f.GoType)
			args = append(args, param(f))
			results = append(results, param(f)+" "+f.GoType)
			zeros = append(zeros, zeroOf(f))
			sources = append(sources, strconv.Quote(f.Attr))
		}
		kv.Params, kv.Args = strings.Join(params, ", "), strings.Join(args, ", ")
		kv.ParseResults = strings.Join(append(results, "err error"), ", ")
		for j := range zeros {
			kv.ZeroResults += zeros[j] + ", "
			kv.Results += args[j] + ", "
		}
		kv.Sources = "nil"
		if len(sources) > 0 {
			kv.Sources = "[]string{" + strings.Join(sources, ", ") + "}"
		}
		kv.Size = sizeExpr(k.Segs, param)
		for _, s := range k.Segs {
			if s.Field == nil {
				kv.BuildLines = append(kv.BuildLines, "b.Literal("+strconv.Quote(s.Lit)+")")
				kv.ScanLines = append(kv.ScanLines, "s.Literal("+strconv.Quote(s.Lit)+")")
				continue
			}
			kv.BuildLines = append(kv.BuildLines, s.buildLine(param(s.Field)))
			kv.ScanLines = append(kv.ScanLines, param(s.Field)+" = "+s.scanExpr())
		}
		if kv.HasFields && k.Segs[0].Field == nil {
			kv.PrefixConst = k.Segs[0].Lit
		}
		// Prefixes by the first n fields, n < all: up to the next field.
		for n := 1; n < len(kv.fields); n++ {
			px := prefixView{Attr: k.Attr, Entity: e.Name, Template: k.Template, Max: k.Max, Name: kv.Public + "PrefixBy"}
			var pp []string
			seen := 0
			var segs []Seg
			for _, s := range k.Segs {
				if s.Field != nil {
					if seen == n {
						break
					}
					seen++
					px.Name += s.Field.Name
					pp = append(pp, param(s.Field)+" "+s.Field.GoType)
					px.Lines = append(px.Lines, s.buildLine(param(s.Field)))
				} else {
					px.Lines = append(px.Lines, "b.Literal("+strconv.Quote(s.Lit)+")")
				}
				segs = append(segs, s)
			}
			px.Params = strings.Join(pp, ", ")
			px.Size = sizeExpr(segs, param)
			kv.Prefixes = append(kv.Prefixes, px)
		}
		kv.FromItemLines = e.fromItemLines(kv)
		kv.BuildFunc = kv.FromItem
		if !kv.HasFields {
			kv.BuildFunc = "codec.ConstKey(" + kv.valueOf() + ")"
		}
		v.Keys = append(v.Keys, kv)
	}
	for _, f := range e.Fields {
		check := ""
		if f.hasRules() {
			cv := e.checkField(f)
			check = cv.Name
			v.Checks = append(v.Checks, cv)
			v.CheckLines = append(v.CheckLines, "if err := "+cv.Name+"(p."+f.Name+"); err != nil {", "return err", "}")
		}
		v.Fields = append(v.Fields, &fieldView{Field: f, HasRules: check != "", Entity: e.Name, Var: e.Name + f.Name, EncodeLines: encodeLines(f), EncodeFunc: f.encodeFunc(), Check: check})
		switch {
		case f.Version:
			v.VersionAttr = f.Attr
		}
		if f.Created {
			v.CreatedAttr = f.Attr
			if !f.Named {
				v.CreatedField = f.Name
			}
		}
		if f.Updated {
			v.UpdatedAttr = f.Attr
			if !f.Named {
				v.UpdatedField = f.Name
			}
		}
		if f.TTL {
			v.TTLAttr = f.Attr
		}
	}
	if e.Validate {
		v.CheckLines = append(v.CheckLines, "return entity.Invalid("+e.Name+"Type, p.Validate())")
	} else if len(v.CheckLines) > 0 {
		v.CheckLines = append(v.CheckLines, "return nil")
	}
	if len(v.CheckLines) > 0 {
		v.Check = "check" + e.Name
	}
	v.TimeLayout = e.timeLayout()
	v.Validate = e.Validate
	for _, f := range e.Fields {
		v.HasEnums = v.HasEnums || f.Enum != nil
	}
	e.primaryKey(v, param, field)
	e.marshal(v, field)
	e.unmarshal(v)
	keyAttr := map[string]bool{}
	for _, k := range e.Keys {
		keyAttr[k.Attr] = true
	}
	var attrs []string
	if !keyAttr["Type"] {
		attrs = append(attrs, strconv.Quote("Type"))
	}
	for _, f := range e.Fields {
		if !keyAttr[f.Attr] {
			attrs = append(attrs, strconv.Quote(f.Attr))
		}
	}
	v.Attrs = "[]string{" + strings.Join(attrs, ", ") + "}"
	var uniq []string
	for _, f := range e.Fields {
		if !f.Unique {
			continue
		}
		u := "{Attr: " + strconv.Quote(f.Attr)
		if len(f.scope) > 0 {
			var sc []string
			for _, s := range f.scope {
				sc = append(sc, strconv.Quote(s.Attr))
			}
			u += ", Scope: []string{" + strings.Join(sc, ", ") + "}"
		}
		uniq = append(uniq, u+"}")
	}
	if len(uniq) > 0 {
		v.Unique = "[]entity.UniqueAttr{" + strings.Join(uniq, ", ") + "}"
	}
	return v
}

// valueOf is the expression of a key without fields.
func (kv *keyView) valueOf() string {
	if kv.TypeAttr {
		return kv.Entity + "Type"
	}
	return kv.Public
}

func (e *Entity) primaryKey(v *entityView, param, field func(*Field) string) {
	var params, args, results, zeros, names []string
	seen := map[*Field]bool{}
	var segs []Seg
	prim := v.Keys[:1]
	if len(v.Keys) > 1 && v.Keys[1].Index == "" {
		prim = v.Keys[:2]
	}
	for _, kv := range prim {
		segs = append(segs, kv.Segs...)
		for _, f := range kv.fields {
			if seen[f] {
				continue
			}
			seen[f] = true
			params = append(params, param(f)+" "+f.GoType)
			args = append(args, field(f))
			names = append(names, param(f))
			results = append(results, param(f)+" "+f.GoType)
			zeros = append(zeros, zeroOf(f))
		}
	}
	v.KeyParams, v.KeyArgs = strings.Join(params, ", "), strings.Join(args, ", ")
	v.KeySize = sizeExpr(segs, param)
	v.ParseResults = strings.Join(append(results, "err error"), ", ")
	zero := strings.Join(append(zeros, ""), ", ")
	roles := []string{"PK", "SK"}
	var vals []string
	for i, kv := range prim {
		name := strings.ToLower(roles[i])
		vals = append(vals, roles[i]+": "+name)
		if !kv.HasFields {
			vals[len(vals)-1] = roles[i] + ": " + kv.valueOf()
			continue
		}
		var a []string
		for _, f := range kv.fields {
			a = append(a, param(f))
		}
		v.KeyLines = append(v.KeyLines,
			name+", err := "+kv.Private+"(&b, "+strings.Join(a, ", ")+")",
			"if err != nil {", "return entity.Key{}, err", "}")
	}
	if strings.Contains(strings.Join(v.KeyLines, "\n"), "&b") {
		v.KeyLines = append([]string{"b := keys.NewBuilder(" + v.KeySize + ")"}, v.KeyLines...)
	}
	v.KeyLines = append(v.KeyLines, "return entity.Key{"+strings.Join(vals, ", ")+"}, nil")

	// The parser.
	declared := false
	got := map[*Field]bool{}
	for i, kv := range prim {
		in := "k." + roles[i]
		if !kv.HasFields {
			v.ParseLines = append(v.ParseLines,
				"if "+in+" != "+kv.valueOf()+" {",
				"return "+zero+"&keys.Error{Template: "+strconv.Quote(kv.Template)+", Key: "+in+", Err: keys.ErrMalformed}",
				"}")
			continue
		}
		op := " = "
		if !declared {
			op, declared = " := ", true
		}
		v.ParseLines = append(v.ParseLines, "s"+op+"keys.NewScanner("+strconv.Quote(kv.Template)+", "+in+")")
		var checks []string
		for _, s := range kv.Segs {
			switch {
			case s.Field == nil:
				v.ParseLines = append(v.ParseLines, "s.Literal("+strconv.Quote(s.Lit)+")")
			case got[s.Field]:
				again := param(s.Field) + "Again"
				v.ParseLines = append(v.ParseLines, again+" := "+s.scanExpr())
				checks = append(checks,
					"if "+again+" != "+param(s.Field)+" {",
					"return "+zero+"&keys.Error{Template: "+strconv.Quote(kv.Template)+", Field: "+strconv.Quote(s.Field.Name)+", Key: "+in+", Err: keys.ErrMalformed}",
					"}")
			default:
				got[s.Field] = true
				v.ParseLines = append(v.ParseLines, param(s.Field)+" = "+s.scanExpr())
			}
		}
		v.ParseLines = append(v.ParseLines, "if err = s.End(); err != nil {", "return "+zero+"err", "}")
		v.ParseLines = append(v.ParseLines, checks...)
	}
	if len(prim) == 1 {
		v.ParseLines = append(v.ParseLines,
			`if k.SK != "" {`,
			"return "+zero+`&keys.Error{Template: "", Key: k.SK, Err: keys.ErrMalformed}`,
			"}")
	}
	v.ParseLines = append(v.ParseLines, "return "+strings.Join(append(names, "nil"), ", "))
}

func (e *Entity) fromItemLines(kv *keyView) []string {
	if !kv.HasFields {
		return []string{"return " + kv.valueOf() + ", nil"}
	}
	lines := []string{"d := codec.NewDecoder(" + e.Name + "Type, item)"}
	var args []string
	for _, f := range kv.fields {
		name := lowerFirst(f.Name)
		args = append(args, name)
		if f.Kind == kindInt || f.Kind == kindUint {
			// Zero is a value: absence is checked apart (strings and
			// times are missing when empty, which the builder checks).
			lines = append(lines, "if !d.Has("+strconv.Quote(f.Attr)+") {",
				`return "", &keys.Error{Template: `+strconv.Quote(kv.Template)+", Field: "+strconv.Quote(f.Name)+", Err: keys.ErrMissingField}",
				"}")
		}
		x := f.decodeExpr()
		if f.Enum != nil {
			x = f.fromBase("d.String(" + strconv.Quote(f.Attr) + ")")
		}
		lines = append(lines, name+" := "+x)
	}
	lines = append(lines, "if err := d.Err(); err != nil {", `return "", err`, "}",
		"b := keys.NewBuilder("+kv.Size+")",
		"return "+kv.Private+"(&b, "+strings.Join(args, ", ")+")")
	return lines
}

// encodeFunc is the codec encoder of the field's Encode, or "" when it
// needs a function of its own.
func (f *Field) encodeFunc() string {
	if f.Ptr || f.Kind == kindTime && f.Named {
		return ""
	}
	omit := ""
	if f.OmitEmpty {
		omit = "OmitEmpty"
	}
	switch f.Kind {
	case kindString:
		return "codec.EncodeString" + omit + "[" + f.Elem + "]"
	case kindBool:
		return "codec.EncodeBool" + omit + "[" + f.Elem + "]"
	case kindInt:
		return "codec.EncodeInt" + omit + "[" + f.Elem + "]"
	case kindUint:
		return "codec.EncodeUint" + omit + "[" + f.Elem + "]"
	case kindTime:
		if strings.HasPrefix(f.TimeFmt, "keys.") {
			return fmt.Sprintf("codec.TimeEncoder(%s, %s, %t)", strconv.Quote(f.Attr), f.TimeFmt, f.OmitEmpty)
		}
		return fmt.Sprintf("codec.EpochEncoder(%t, %t)", f.TimeFmt == "unixms", f.OmitEmpty)
	case kindStrings:
		if f.Set {
			return "codec.EncodeStringSet[" + f.Elem + "]"
		}
		return fmt.Sprintf("codec.EncodeStringList[%s](%t)", f.Elem, f.OmitEmpty)
	}
	return ""
}

func encodeLines(f *Field) []string {
	var lines []string
	x := "v"
	if f.Ptr {
		lines = append(lines, "if v == nil {", "return nil, nil", "}")
		x = "*v"
	} else if f.OmitEmpty && f.Kind != kindAV {
		lines = append(lines, "if !("+f.nonZero(x)+") {", "return nil, nil", "}")
	}
	expr, fallible := f.encode(x)
	switch {
	case f.Kind == kindAV:
		lines = append(lines, "av, err := "+expr, "return av, codec.Wrap("+strconv.Quote(f.Attr)+", err)")
	case fallible:
		lines = append(lines, "return "+expr)
	default:
		lines = append(lines, "return "+expr+", nil")
	}
	return simplifyNot(lines)
}

// simplifyNot rewrites "!(x != y)" forms into their plain negation.
func simplifyNot(lines []string) []string {
	for i, l := range lines {
		if !strings.HasPrefix(l, "if !(") || !strings.HasSuffix(l, ") {") {
			continue
		}
		inner := l[len("if !(") : len(l)-len(") {")]
		switch {
		case strings.HasSuffix(inner, ` != ""`):
			lines[i] = "if " + strings.TrimSuffix(inner, ` != ""`) + ` == "" {`
		case strings.HasSuffix(inner, " != 0"):
			lines[i] = "if " + strings.TrimSuffix(inner, " != 0") + " == 0 {"
		case strings.HasPrefix(inner, "!"):
			lines[i] = "if " + inner[1:] + " {"
		case !strings.ContainsAny(inner, " !"):
			lines[i] = "if !" + inner + " {"
		}
	}
	return lines
}

// memberType is the attribute value type a field's member holds in the
// values struct, or "" when the field is encoded on its own.
func memberType(f *Field) string {
	switch f.Kind {
	case kindString:
		return "types.AttributeValueMemberS"
	case kindBool:
		return "types.AttributeValueMemberBOOL"
	case kindInt, kindUint:
		return "types.AttributeValueMemberN"
	case kindTime:
		if strings.HasPrefix(f.TimeFmt, "keys.") {
			return "types.AttributeValueMemberS"
		}
		return "types.AttributeValueMemberN"
	case kindStrings:
		if !f.Set {
			return "types.AttributeValueMemberL"
		}
	}
	return ""
}

func (e *Entity) marshal(v *entityView, field func(*Field) string) {
	var body []string
	members := []string{"typ types.AttributeValueMemberS"}
	count := 1
	bufSize := 0
	usesAV := false
	w := func(l ...string) { body = append(body, l...) }
	w("v.typ.Value = "+e.Name+"Type", `item["Type"] = &v.typ`)

	// Keys, index by index.
	var keySegs []Seg
	for i := 0; i < len(v.Keys); {
		j := i + 1
		for j < len(v.Keys) && v.Keys[j].Index == v.Keys[i].Index {
			j++
		}
		group := v.Keys[i:j]
		i = j
		sparse := group[0].Sparse
		if group[0].Index != "" {
			if sparse {
				w("", "// Index "+group[0].Index+" (sparse: a key whose fields are empty is left out).")
			} else {
				w("", "// Index "+group[0].Index+".")
			}
		}
		for _, kv := range group {
			if kv.TypeAttr {
				continue
			}
			q := strconv.Quote(kv.Attr)
			if kv.Const {
				members = append(members, kv.Member+" types.AttributeValueMemberS")
				count++
				w("v."+kv.Member+".Value = "+kv.Public, "item["+q+"] = &v."+kv.Member)
				continue
			}
			keySegs = append(keySegs, kv.Segs...)
			var a []string
			for _, f := range kv.fields {
				a = append(a, field(f))
			}
			callExpr := kv.Private + "(&b, " + strings.Join(a, ", ") + ")"
			switch {
			case kv.FieldAttr != nil && sparse:
				// The field writes it; nothing to check.
			case kv.FieldAttr != nil:
				w("if _, err = "+callExpr+"; err != nil {", "return nil, err", "}")
			case sparse:
				members = append(members, kv.Member+" types.AttributeValueMemberS")
				count++
				w("if key, err := "+callExpr+"; err == nil {",
					"v."+kv.Member+".Value = key",
					"item["+q+"] = &v."+kv.Member,
					"} else if !errors.Is(err, keys.ErrMissingField) {",
					"return nil, err",
					"}")
			default:
				members = append(members, kv.Member+" types.AttributeValueMemberS")
				count++
				w("if v."+kv.Member+".Value, err = "+callExpr+"; err != nil {", "return nil, err", "}",
					"item["+q+"] = &v."+kv.Member)
			}
		}
	}

	// Fields.
	w("")
	for _, f := range e.Fields {
		q := strconv.Quote(f.Attr)
		x := field(f)
		var open []string
		if f.Ptr {
			open = []string{"if " + x + " != nil {"}
			x = "*" + x
		} else if f.OmitEmpty && f.Kind != kindAV {
			open = []string{"if " + f.nonZero(x) + " {"}
		}
		w(open...)
		member := memberType(f)
		m := "v." + f.Name
		switch {
		case member == "":
			usesAV = true
			expr, fallible := f.encode(x)
			if fallible {
				ret := "err"
				if f.Kind == kindAV {
					ret = "codec.Wrap(" + q + ", err)"
				}
				w("if av, err = "+expr+"; err != nil {", "return nil, "+ret, "}")
				if f.Kind == kindFloat {
					w("item[" + q + "] = av")
					break
				}
				w("if av != nil {", "item["+q+"] = av", "}")
			} else {
				w("if av = "+expr+"; av != nil {", "item["+q+"] = av", "}")
			}
		case f.Kind == kindString || f.Kind == kindBool:
			w(m + ".Value = " + f.base(x))
		case f.Kind == kindStrings:
			// A nil list is absent; an empty one is an empty L.
			if len(open) == 0 {
				open = []string{"if " + x + " != nil {"}
				w(open...)
			}
			// Room for four strings in the values' own allocation.
			w(m + ".Value = codec.StringValuesIn(v.list" + f.Name + "[:0], v.members" + f.Name + "[:0], " + f.base(x) + ")")
			members = append(members,
				"list"+f.Name+" [4]types.AttributeValue",
				"members"+f.Name+" [4]types.AttributeValueMemberS")
		case f.Kind == kindInt:
			bufSize += 20
			w(m + ".Value = buf.Int(" + f.base(x) + ")")
		case f.Kind == kindUint:
			bufSize += 20
			w(m + ".Value = buf.Uint(" + f.base(x) + ")")
		case f.TimeFmt == "unix" || f.TimeFmt == "unixms":
			bufSize += 20
			method := map[string]string{"unix": ".Unix()", "unixms": ".UnixMilli()"}[f.TimeFmt]
			w(m + ".Value = buf.Int(" + call(f.base(x)) + method + ")")
		default:
			bufSize += Seg{Field: f}.sizeConst()
			w("if "+m+".Value, err = buf.Time("+q+", "+f.base(x)+", "+f.TimeFmt+"); err != nil {", "return nil, err", "}")
		}
		if member != "" {
			members = append(members, f.Name+" "+member)
			w("item[" + q + "] = &" + m)
		}
		if len(open) > 0 {
			w("}")
		}
		count++
	}
	w("return item, nil")

	text := strings.Join(body, "\n")
	decl := []string{"var ("}
	decl = append(decl, "v = new("+v.Lower+"Values)")
	if strings.Contains(text, "(&b,") {
		// Room for the keys in the values' own allocation: the literal
		// text, the fixed-width fields, and 24 bytes per string field
		// (a longer key costs one more allocation).
		n := 0
		for _, s := range keySegs {
			if s.Field == nil {
				n += len(s.Lit)
			} else if s.Field.Kind == kindString {
				n += 24
			} else {
				n += s.sizeConst()
			}
		}
		members = append(members, "keyBuf ["+strconv.Itoa(n)+"]byte")
		decl = append(decl, "b = keys.BuilderOn(v.keyBuf[:0])")
	}
	if strings.Contains(text, "buf.") {
		members = append(members, "numBuf ["+strconv.Itoa(bufSize)+"]byte")
		decl = append(decl, "buf = codec.BufferOn(v.numBuf[:0])")
	}
	if usesAV {
		decl = append(decl, "av types.AttributeValue")
	}
	if strings.Contains(text, "err =") {
		decl = append(decl, "err error")
	}
	decl = append(decl, ")", "if item == nil {", "item = make(map[string]types.AttributeValue, "+strconv.Itoa(count)+")", "}")
	if v.Check != "" {
		decl = append([]string{"if err := " + v.Check + "(p); err != nil {", "return nil, err", "}"}, decl...)
	}
	v.MarshalLines = append(decl, body...)
	v.Members = members
}

func (s Seg) sizeConst() int {
	_, n := s.size("")
	return n
}

func (e *Entity) unmarshal(v *entityView) {
	v.UnmarshalLines = append(v.UnmarshalLines, "d := codec.NewDecoder("+e.Name+"Type, item)")
	for _, f := range e.Fields {
		v.UnmarshalLines = append(v.UnmarshalLines, f.decodeLine("p."+f.Name))
	}
	// RefreshItem keeps the fields that decode back to the value they
	// were marshalled from and decodes the others, as UnmarshalItem
	// would.
	var kept, decode []string
	for _, f := range e.Fields {
		if e.roundTrips(f) {
			kept = append(kept, f.Name+": p."+f.Name)
		} else {
			decode = append(decode, f.decodeLine("p."+f.Name))
		}
	}
	if len(kept) == 0 {
		return
	}
	v.RefreshLines = []string{"*p = " + e.Name + "{" + strings.Join(kept, ", ") + "}"}
	if len(decode) > 0 {
		v.RefreshLines = append(v.RefreshLines, "d := codec.NewDecoder("+e.Name+"Type, item)")
		v.RefreshLines = append(v.RefreshLines, decode...)
		v.RefreshLines = append(v.RefreshLines, "return d.Err()")
	} else {
		v.RefreshLines = append(v.RefreshLines, "return nil")
	}
}

// roundTrips reports whether f's value is what UnmarshalItem decodes
// from the attribute MarshalItem wrote for it, and the runtime writes
// nothing else there: a string, bool or integer by value (an empty one
// left out decodes to the zero value), outside the attributes the
// runtime sets (keys, Type, version, timestamps, TTL). Times (precision,
// location), floats, pointers, slices, maps, sets, enums and custom
// marshalers are decoded.
func (e *Entity) roundTrips(f *Field) bool {
	switch f.Kind {
	case kindString, kindBool, kindInt, kindUint:
	default:
		return false
	}
	if f.Ptr || f.Set || f.Enum != nil || f.Version || f.Created || f.Updated || f.TTL || strings.Contains(f.Name, ".") {
		return false
	}
	if f.Attr == "Type" {
		return false
	}
	for _, k := range e.Keys {
		if k.Attr == f.Attr {
			return false
		}
	}
	return true
}

// layouts are the time.Format layouts of the string time formats.
var layouts = map[string]string{
	"keys.TimeSeconds": "2006-01-02T15:04:05Z",
	"keys.TimeMillis":  "2006-01-02T15:04:05.000Z",
	"keys.TimeNanos":   "2006-01-02T15:04:05.000000000Z",
}

// timeLayout is the layout of the updated attribute, else of the created
// one; "" when they are numbers or absent.
func (e *Entity) timeLayout() string {
	l := ""
	for _, f := range e.Fields {
		if f.Updated && layouts[f.TimeFmt] != "" {
			return layouts[f.TimeFmt]
		}
		if f.Created {
			l = layouts[f.TimeFmt]
		}
	}
	return l
}

// checkField returns the function applying the rules of f to a value v
// of the field's type.
func (e *Entity) checkField(f *Field) checkView {
	cv := checkView{Name: "check" + e.Name + f.Name, Attr: f.Attr, Entity: e.Name, Param: "v " + f.GoType}
	var lines, rules []string
	x := "v"
	if f.Ptr {
		lines = append(lines, "if v == nil {", "return nil", "}")
		x = "*v"
	}
	broken := func(rule, limit string) string {
		s := "return &entity.ConstraintError{Type: " + e.Name + "Type, Attr: " + strconv.Quote(f.Attr) + ", Value: " + x + ", Rule: " + rule
		if limit != "" {
			s += ", Limit: " + strconv.Quote(limit)
		}
		return s + "}"
	}
	zero := simplifyNot([]string{"if !(" + f.nonZero(x) + ") {"})[0]
	switch {
	case f.NonEmpty:
		rules = append(rules, "not empty")
		lines = append(lines, zero, broken("entity.RuleNonEmpty", ""), "}")
	case f.OmitEmpty:
		// An empty value is absent: no rule applies.
		lines = append(lines, zero, "return nil", "}")
	}
	if en := f.Enum; en != nil {
		var vals []string
		for _, ev := range en.Values {
			vals = append(vals, ev.Value)
		}
		rules = append(rules, "one of "+strings.Join(vals, ", "))
		lines = append(lines, "if !"+call(x)+".Valid() {", broken("entity.RuleEnum", strings.Join(vals, "|")), "}")
	}
	if f.Min != "" {
		rules = append(rules, ">= "+f.Min)
		lines = append(lines, "if "+x+" < "+f.Min+" {", broken("entity.RuleMin", f.Min), "}")
	}
	if f.Max != "" {
		rules = append(rules, "<= "+f.Max)
		lines = append(lines, "if "+x+" > "+f.Max+" {", broken("entity.RuleMax", f.Max), "}")
	}
	if f.Prefix != "" {
		rules = append(rules, strconv.Quote(f.Prefix)+" and more")
		n := strconv.Itoa(len(f.Prefix))
		lines = append(lines, "if len("+x+") <= "+n+" || "+call(x)+"[:"+n+"] != "+strconv.Quote(f.Prefix)+" {", broken("entity.RulePrefix", f.Prefix), "}")
	}
	cv.Rules = strings.Join(rules, ", ")
	cv.Lines = append(lines, "return nil")
	return cv
}
