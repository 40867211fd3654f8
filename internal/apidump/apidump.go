// Package apidump writes a module's exported API as text, one line per
// exported identifier, and checks a change of it against the changelog.
//
// The format follows the Go project's api/go1.*.txt files:
//
//	pkg github.com/tablekit/tablekit/lock, func New(Backend, ...func(*Options)) *Locker
//	pkg github.com/tablekit/tablekit/lock, method (*Locker) Obtain(context.Context, string) (*Lock, error)
//	pkg github.com/tablekit/tablekit/lock, type Options struct, TTL time.Duration
//	pkg github.com/tablekit/tablekit/lock, type Backend interface, Release(context.Context, string, string) error
//	pkg github.com/tablekit/tablekit/lock, var ErrNotObtained error
//	pkg github.com/tablekit/tablekit/lock, const DefaultTTL time.Duration
//
// Signatures are printed from the source, as written, without parameter
// names (renaming a parameter is not an API change). A constant shows its
// value as written (a changed default is a change users see); a variable's
// initializer is left out, so a variable whose type is not written shows only
// its name. Packages under an
// internal/ folder, main packages, test files and testdata are skipped.
//
// A line is the unit of change: a line of the old file that the new file
// lacks is a removal or an incompatible change, and [Check] requires the
// changelog's Unreleased section to name its identifier ([Ident]).
package apidump

import (
	"bytes"
	"errors"
	"fmt"
	"go/ast"
	"go/build"
	"go/parser"
	"go/printer"
	"go/token"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
)

// Dump returns the exported API of the Go module rooted at dir, one line per
// identifier, sorted. modulePath is the module's import path (from go.mod's
// module line). It reads the sources only: nothing is built.
func Dump(dir, modulePath string) ([]string, error) {
	var lines []string
	ctx := build.Default
	ctx.CgoEnabled = true
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() {
			return nil
		}
		name := d.Name()
		if p != dir && (name == "internal" || name == "testdata" || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_")) {
			return filepath.SkipDir
		}
		if p != dir {
			if _, err := os.Stat(filepath.Join(p, "go.mod")); err == nil {
				return filepath.SkipDir // a nested module has its own API
			}
		}
		bp, err := ctx.ImportDir(p, 0)
		if err != nil {
			var noGo *build.NoGoError
			if errors.As(err, &noGo) {
				return nil
			}
			return fmt.Errorf("apidump: %s: %w", p, err)
		}
		if bp.Name == "main" {
			return nil
		}
		rel, err := filepath.Rel(dir, p)
		if err != nil {
			return err
		}
		importPath := modulePath
		if rel != "." {
			importPath = path.Join(modulePath, filepath.ToSlash(rel))
		}
		pl, err := packageLines(p, importPath, bp.GoFiles)
		if err != nil {
			return err
		}
		lines = append(lines, pl...)
		return nil
	})
	if err != nil {
		return nil, err
	}
	slices.Sort(lines)
	return slices.Compact(lines), nil
}

// ModulePath reads the module path from dir/go.mod.
func ModulePath(dir string) (string, error) {
	b, err := os.ReadFile(filepath.Join(dir, "go.mod"))
	if err != nil {
		return "", fmt.Errorf("apidump: %w", err)
	}
	for _, l := range strings.Split(string(b), "\n") {
		if f := strings.Fields(l); len(f) == 2 && f[0] == "module" {
			return strings.Trim(f[1], `"`), nil
		}
	}
	return "", fmt.Errorf("apidump: %s/go.mod has no module line", dir)
}

func packageLines(dir, importPath string, files []string) ([]string, error) {
	fset := token.NewFileSet()
	w := &writer{fset: fset, prefix: "pkg " + importPath + ", "}
	for _, f := range files {
		af, err := parser.ParseFile(fset, filepath.Join(dir, f), nil, parser.SkipObjectResolution)
		if err != nil {
			return nil, fmt.Errorf("apidump: %w", err)
		}
		for _, d := range af.Decls {
			w.decl(d)
		}
	}
	return w.lines, nil
}

type writer struct {
	fset   *token.FileSet
	prefix string
	lines  []string
}

func (w *writer) add(format string, args ...any) {
	w.lines = append(w.lines, w.prefix+fmt.Sprintf(format, args...))
}

func (w *writer) decl(d ast.Decl) {
	switch d := d.(type) {
	case *ast.FuncDecl:
		if !d.Name.IsExported() {
			return
		}
		if d.Recv == nil {
			w.add("func %s%s%s", d.Name.Name, w.typeParams(d.Type.TypeParams), w.signature(d.Type))
			return
		}
		recv := d.Recv.List[0].Type
		base := recv
		if s, ok := base.(*ast.StarExpr); ok {
			base = s.X
		}
		switch b := base.(type) { // strip type arguments: (*Page[T]) -> Page
		case *ast.IndexExpr:
			base = b.X
		case *ast.IndexListExpr:
			base = b.X
		}
		if id, ok := base.(*ast.Ident); !ok || !id.IsExported() {
			return
		}
		w.add("method (%s) %s%s", w.expr(recv), d.Name.Name, w.signature(d.Type))
	case *ast.GenDecl:
		switch d.Tok {
		case token.TYPE:
			for _, s := range d.Specs {
				w.typeSpec(s.(*ast.TypeSpec))
			}
		case token.CONST, token.VAR:
			var lastType ast.Expr // an implicit const repeats the last type
			for _, s := range d.Specs {
				vs := s.(*ast.ValueSpec)
				if vs.Type != nil || len(vs.Values) > 0 {
					lastType = vs.Type
				}
				for i, n := range vs.Names {
					if !n.IsExported() {
						continue
					}
					t := vs.Type
					if t == nil && d.Tok == token.CONST {
						t = lastType
					}
					line := d.Tok.String() + " " + n.Name
					if t != nil {
						line += " " + w.expr(t)
					}
					if d.Tok == token.CONST && i < len(vs.Values) {
						line += " = " + w.expr(vs.Values[i])
					}
					w.add("%s", line)
				}
			}
		}
	}
}

func (w *writer) typeSpec(ts *ast.TypeSpec) {
	if !ts.Name.IsExported() {
		return
	}
	name := ts.Name.Name + w.typeParams(ts.TypeParams)
	if ts.Assign.IsValid() {
		w.add("type %s = %s", name, w.expr(ts.Type))
		return
	}
	switch t := ts.Type.(type) {
	case *ast.StructType:
		w.add("type %s struct", name)
		for _, f := range t.Fields.List {
			if len(f.Names) == 0 { // embedded
				w.add("type %s struct, embedded %s", name, w.expr(f.Type))
				continue
			}
			for _, n := range f.Names {
				if n.IsExported() {
					w.add("type %s struct, %s %s", name, n.Name, w.expr(f.Type))
				}
			}
		}
	case *ast.InterfaceType:
		w.add("type %s interface", name)
		for _, m := range t.Methods.List {
			if len(m.Names) == 0 { // embedded interface or type set
				w.add("type %s interface, embedded %s", name, w.expr(m.Type))
				continue
			}
			for _, n := range m.Names {
				if n.IsExported() {
					w.add("type %s interface, %s%s", name, n.Name, w.signature(m.Type.(*ast.FuncType)))
				} else {
					w.add("type %s interface, unexported methods", name)
				}
			}
		}
	default:
		w.add("type %s %s", name, w.expr(ts.Type))
	}
}

// typeParams prints [T any, K comparable] without losing the constraints.
func (w *writer) typeParams(fl *ast.FieldList) string {
	if fl == nil || len(fl.List) == 0 {
		return ""
	}
	var parts []string
	for _, f := range fl.List {
		for _, n := range f.Names {
			parts = append(parts, n.Name+" "+w.expr(f.Type))
		}
	}
	return "[" + strings.Join(parts, ", ") + "]"
}

// signature prints (T1, T2) (R1, R2) with parameter names dropped.
func (w *writer) signature(ft *ast.FuncType) string {
	s := "(" + strings.Join(w.fieldTypes(ft.Params), ", ") + ")"
	res := w.fieldTypes(ft.Results)
	switch len(res) {
	case 0:
	case 1:
		s += " " + res[0]
	default:
		s += " (" + strings.Join(res, ", ") + ")"
	}
	return s
}

func (w *writer) fieldTypes(fl *ast.FieldList) []string {
	if fl == nil {
		return nil
	}
	var out []string
	for _, f := range fl.List {
		t := w.expr(f.Type)
		n := max(len(f.Names), 1)
		for range n {
			out = append(out, t)
		}
	}
	return out
}

// expr prints a type expression on one line, with function types inside it
// (func parameters, fields of func type) stripped of their parameter names.
func (w *writer) expr(e ast.Expr) string {
	e = stripNames(e)
	var buf bytes.Buffer
	if err := printer.Fprint(&buf, w.fset, e); err != nil {
		return fmt.Sprintf("<%v>", err)
	}
	return strings.Join(strings.Fields(buf.String()), " ")
}

// stripNames returns e with every nested function type's parameter and
// result names removed (a copy where anything changes).
func stripNames(e ast.Expr) ast.Expr {
	switch t := e.(type) {
	case *ast.FuncType:
		return &ast.FuncType{Params: unnamed(t.Params), Results: unnamed(t.Results)}
	case *ast.StarExpr:
		return &ast.StarExpr{X: stripNames(t.X)}
	case *ast.ArrayType:
		return &ast.ArrayType{Len: t.Len, Elt: stripNames(t.Elt)}
	case *ast.MapType:
		return &ast.MapType{Key: stripNames(t.Key), Value: stripNames(t.Value)}
	case *ast.ChanType:
		return &ast.ChanType{Dir: t.Dir, Value: stripNames(t.Value)}
	case *ast.Ellipsis:
		return &ast.Ellipsis{Elt: stripNames(t.Elt)}
	case *ast.IndexExpr:
		return &ast.IndexExpr{X: t.X, Index: stripNames(t.Index)}
	case *ast.IndexListExpr:
		idx := make([]ast.Expr, len(t.Indices))
		for i, x := range t.Indices {
			idx[i] = stripNames(x)
		}
		return &ast.IndexListExpr{X: t.X, Indices: idx}
	}
	return e
}

func unnamed(fl *ast.FieldList) *ast.FieldList {
	if fl == nil {
		return nil
	}
	out := &ast.FieldList{}
	for _, f := range fl.List {
		n := max(len(f.Names), 1)
		for range n {
			out.List = append(out.List, &ast.Field{Type: stripNames(f.Type)})
		}
	}
	return out
}

// Ident returns the identifier a line of the API file is about, as a
// changelog names it: the package's last path element, the name, and for
// methods and fields the member: "lock.New", "lock.Locker.Obtain",
// "lock.Options.TTL".
func Ident(line string) string {
	rest, ok := strings.CutPrefix(line, "pkg ")
	if !ok {
		return ""
	}
	pkgPath, decl, ok := strings.Cut(rest, ", ")
	if !ok {
		return ""
	}
	pkg := path.Base(pkgPath)
	kind, decl, _ := strings.Cut(decl, " ")
	nameOf := func(s string) string {
		if i := strings.IndexAny(s, "[( ="); i >= 0 {
			return s[:i]
		}
		return s
	}
	switch kind {
	case "method": // (*T) Name(...)
		recv, after, _ := strings.Cut(decl, ") ")
		recv = strings.TrimLeft(recv, "(*")
		return pkg + "." + nameOf(recv) + "." + nameOf(after)
	case "type":
		name := nameOf(decl)
		if _, member, ok := strings.Cut(decl, ", "); ok {
			if m, ok := strings.CutPrefix(member, "embedded "); ok {
				return pkg + "." + name + "." + nameOf(strings.TrimLeft(path.Ext("."+m), ".*"))
			}
			return pkg + "." + name + "." + nameOf(member)
		}
		return pkg + "." + name
	default: // func, var, const
		return pkg + "." + nameOf(decl)
	}
}

// Diff returns the lines of old that new lacks (removed or changed) and the
// lines of new that old lacks (added or changed). Both inputs are sorted.
func Diff(old, new []string) (removed, added []string) {
	i, j := 0, 0
	for i < len(old) || j < len(new) {
		switch {
		case j == len(new) || (i < len(old) && old[i] < new[j]):
			removed = append(removed, old[i])
			i++
		case i == len(old) || new[j] < old[i]:
			added = append(added, new[j])
			j++
		default:
			i++
			j++
		}
	}
	return removed, added
}

// ReadFile reads an API file: one line per identifier, blank lines and
// lines starting with # ignored.
func ReadFile(name string) ([]string, error) {
	b, err := os.ReadFile(name)
	if err != nil {
		return nil, err
	}
	var lines []string
	for _, l := range strings.Split(string(b), "\n") {
		if l = strings.TrimSpace(l); l != "" && !strings.HasPrefix(l, "#") {
			lines = append(lines, l)
		}
	}
	slices.Sort(lines)
	return lines, nil
}

// Format renders lines as an API file with a header.
func Format(lines []string) []byte {
	var b bytes.Buffer
	b.WriteString("# The exported API of this module, one line per identifier (internal/apidump).\n")
	b.WriteString("# Regenerate with: go run ./internal/cmd/apidump -w\n")
	for _, l := range lines {
		b.WriteString(l)
		b.WriteByte('\n')
	}
	return b.Bytes()
}
