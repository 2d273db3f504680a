package srccheck

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
)

const module = "github.com/sparseson/sparseson"

// root is the repository root, seen from this package's directory.
var root = filepath.Join("..", "..")

// A sparse.Table keeps its rows and slot index in memory it mapped itself
// (outside the Go heap) and unmaps when the Table is collected. The
// collector sees a method's receiver as dead after its last use, so a
// method that still walks the rows through a slice it loaded earlier (as
// Save does, handing Rows to the model writer) could read unmapped memory
// once its caller dropped the learner: it faulted in CI. Every exported
// method of a type that holds a Table therefore keeps its receiver alive
// to its end with runtime.KeepAlive; unexported methods run inside an
// exported one, whose receiver reaches them.

// lookups are Table's per-feature accessors: kept small enough to inline
// into the hot loops, they leave the Table's reachability to their
// callers, which are methods of the learners holding it.
var lookups = map[string]bool{
	"sparse.Table.Find": true, "sparse.Table.FindOffsets": true,
	"sparse.Table.Row": true, "sparse.Table.Offsets": true,
}

// source is the parsed non-test Go files of the module, by package
// directory (relative, slash-separated; "" for the root).
type source struct {
	fset  *token.FileSet
	files map[string][]*ast.File
}

func parseModule(t *testing.T) *source {
	t.Helper()
	src := &source{fset: token.NewFileSet(), files: map[string][]*ast.File{}}
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			if path != root && (strings.HasPrefix(name, ".") || name == "testdata" || name == "vendor") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(src.fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, filepath.Dir(path))
		dir := filepath.ToSlash(rel)
		if dir == "." {
			dir = ""
		}
		src.files[dir] = append(src.files[dir], f)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return src
}

// pkgName is the short package name the test uses for a directory: its
// last element ("sparse", "son", "dense").
func pkgName(dir string) string { return dir[strings.LastIndex(dir, "/")+1:] }

// imports maps a file's import names to the module directories they name.
func imports(f *ast.File) map[string]string {
	m := map[string]string{}
	for _, s := range f.Imports {
		p, _ := strconv.Unquote(s.Path.Value)
		if !strings.HasPrefix(p, module+"/") {
			continue
		}
		dir := strings.TrimPrefix(p, module+"/")
		name := pkgName(dir)
		if s.Name != nil {
			name = s.Name.Name
		}
		m[name] = dir
	}
	return m
}

// typeRefs returns the named types (as "dir.Name") that a field's type
// holds by value or through pointers, slices, arrays and maps; interfaces
// and functions hold nothing here (a learner behind an interface keeps
// itself alive).
func typeRefs(e ast.Expr, dir string, imp map[string]string) []string {
	switch e := e.(type) {
	case *ast.Ident:
		return []string{dir + "." + e.Name}
	case *ast.SelectorExpr:
		if x, ok := e.X.(*ast.Ident); ok {
			if d, ok := imp[x.Name]; ok {
				return []string{d + "." + e.Sel.Name}
			}
		}
	case *ast.StarExpr:
		return typeRefs(e.X, dir, imp)
	case *ast.ArrayType:
		return typeRefs(e.Elt, dir, imp)
	case *ast.MapType:
		return typeRefs(e.Value, dir, imp)
	case *ast.StructType:
		var refs []string
		for _, fl := range e.Fields.List {
			refs = append(refs, typeRefs(fl.Type, dir, imp)...)
		}
		return refs
	}
	return nil
}

// owners returns the module's types that hold a sparse.Table, directly or
// through their fields' types.
func (src *source) owners() map[string]bool {
	holds := map[string][]string{} // type → the types its fields hold
	for dir, files := range src.files {
		for _, f := range files {
			imp := imports(f)
			for _, d := range f.Decls {
				g, ok := d.(*ast.GenDecl)
				if !ok || g.Tok != token.TYPE {
					continue
				}
				for _, s := range g.Specs {
					ts := s.(*ast.TypeSpec)
					if st, ok := ts.Type.(*ast.StructType); ok {
						holds[dir+"."+ts.Name.Name] = typeRefs(st, dir, imp)
					}
				}
			}
		}
	}
	own := map[string]bool{"sparse.Table": true}
	for grew := true; grew; {
		grew = false
		for typ, refs := range holds {
			for _, r := range refs {
				if own[r] && !own[typ] {
					own[typ], grew = true, true
				}
			}
		}
	}
	return own
}

// keepsAlive reports whether body calls runtime.KeepAlive(recv), deferred
// or not.
func keepsAlive(body *ast.BlockStmt, recv string) bool {
	found := false
	ast.Inspect(body, func(n ast.Node) bool {
		c, ok := n.(*ast.CallExpr)
		if !ok || len(c.Args) != 1 {
			return !found
		}
		sel, ok := c.Fun.(*ast.SelectorExpr)
		if !ok || sel.Sel.Name != "KeepAlive" {
			return !found
		}
		if pkg, ok := sel.X.(*ast.Ident); ok && pkg.Name == "runtime" {
			if arg, ok := c.Args[0].(*ast.Ident); ok && arg.Name == recv {
				found = true
			}
		}
		return !found
	})
	return found
}

// callsAnything reports whether body calls a function or method other
// than the builtins that only read slice headers (a getter of a count or
// a copy of a heap slice cannot touch a table's memory).
func callsAnything(body *ast.BlockStmt) bool {
	calls := false
	ast.Inspect(body, func(n ast.Node) bool {
		c, ok := n.(*ast.CallExpr)
		if !ok {
			return !calls
		}
		if id, ok := c.Fun.(*ast.Ident); ok {
			switch id.Name {
			case "len", "cap", "copy", "min", "max", "float64", "int", "int64", "uint32":
				return true
			}
		}
		calls = true
		return false
	})
	return calls
}

// delegates reports whether body is one call of an exported method on
// what the receiver holds (`return p.s.Save(w)`), with arguments that do
// not involve the receiver: the callee keeps its own receiver alive, and
// nothing of the table is touched after it returns.
func delegates(body *ast.BlockStmt, recv string) bool {
	if len(body.List) != 1 {
		return false
	}
	var call *ast.CallExpr
	switch s := body.List[0].(type) {
	case *ast.ReturnStmt:
		if len(s.Results) == 1 {
			call, _ = s.Results[0].(*ast.CallExpr)
		}
	case *ast.ExprStmt:
		call, _ = s.X.(*ast.CallExpr)
	}
	if call == nil {
		return false
	}
	sel, ok := call.Fun.(*ast.SelectorExpr)
	if !ok || !sel.Sel.IsExported() || !rootedAt(sel.X, recv) {
		return false
	}
	for _, a := range call.Args {
		if mentions(a, recv) {
			return false
		}
	}
	return true
}

// rootedAt reports whether e is a chain of field selections and constant
// or plain indexings starting at the identifier recv (p.s, o.bases[k]).
func rootedAt(e ast.Expr, recv string) bool {
	for {
		switch x := e.(type) {
		case *ast.Ident:
			return x.Name == recv
		case *ast.SelectorExpr:
			e = x.X
		case *ast.IndexExpr:
			if mentions(x.Index, recv) {
				return false
			}
			e = x.X
		default:
			return false
		}
	}
}

// mentions reports whether e uses the identifier name.
func mentions(e ast.Node, name string) bool {
	found := false
	ast.Inspect(e, func(n ast.Node) bool {
		if id, ok := n.(*ast.Ident); ok && id.Name == name {
			found = true
		}
		return !found
	})
	return found
}

// receiver returns a method's receiver name and type name.
func receiver(fn *ast.FuncDecl) (name, typ string) {
	r := fn.Recv.List[0]
	if len(r.Names) > 0 {
		name = r.Names[0].Name
	}
	e := r.Type
	if s, ok := e.(*ast.StarExpr); ok {
		e = s.X
	}
	if id, ok := e.(*ast.Ident); ok {
		typ = id.Name
	}
	return name, typ
}

// TestTableKeepAlive: every exported method of a type holding a
// sparse.Table that calls anything keeps its receiver reachable to its end
// (see the comment above lookups).
func TestTableKeepAlive(t *testing.T) {
	src := parseModule(t)
	own := src.owners()
	for _, want := range []string{"gd.GD", "son.Learner", "ada.Learner", "reduce.OAA"} {
		if !own[want] {
			t.Fatalf("%s is not found to hold a sparse.Table: the check would pass vacuously", want)
		}
	}
	var missing []string
	checked := 0
	for dir, files := range src.files {
		for _, f := range files {
			for _, d := range f.Decls {
				fn, ok := d.(*ast.FuncDecl)
				if !ok || fn.Recv == nil || fn.Body == nil || !fn.Name.IsExported() {
					continue
				}
				recv, typ := receiver(fn)
				key := dir + "." + typ
				if !own[key] || lookups[key+"."+fn.Name.Name] || !callsAnything(fn.Body) || delegates(fn.Body, recv) {
					continue
				}
				checked++
				if recv == "" || recv == "_" || !keepsAlive(fn.Body, recv) {
					pos := src.fset.Position(fn.Pos())
					rel, _ := filepath.Rel(root, pos.Filename)
					missing = append(missing, rel+": "+typ+"."+fn.Name.Name)
				}
			}
		}
	}
	sort.Strings(missing)
	for _, m := range missing {
		t.Errorf("%s does not keep its receiver alive (defer runtime.KeepAlive)", m)
	}
	if checked < 40 {
		t.Errorf("only %d methods checked", checked)
	}
}
