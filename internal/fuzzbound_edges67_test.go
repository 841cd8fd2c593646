package internal_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestFuzzTargetsBoundInput: every fuzz target of the module whose arguments include
// bytes or text starts by bounding their size, so that no run, and no minimization of a
// new input (about n²/2 runs for n bytes), takes time without bound: its first statement
// is an if whose condition takes len of every []byte and string argument and whose body
// skips or returns, or a call (a helper such as source's skipLarge) given len of each.
func TestFuzzTargetsBoundInput(t *testing.T) {
	fset := token.NewFileSet()
	targets := 0
	err := filepath.WalkDir("..", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && path != ".." {
			if _, err := os.Stat(filepath.Join(path, "go.mod")); err == nil || d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".") {
				return filepath.SkipDir // another module (tools/), test data, hidden
			}
		}
		if d.IsDir() || !strings.HasSuffix(path, "_test.go") {
			return nil
		}
		file, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			return err
		}
		funcs := map[string]*ast.FuncDecl{}
		for _, decl := range file.Decls {
			if fd, ok := decl.(*ast.FuncDecl); ok {
				funcs[fd.Name.Name] = fd
			}
		}
		for name, fd := range funcs {
			if !strings.HasPrefix(name, "Fuzz") || fd.Body == nil {
				continue
			}
			ast.Inspect(fd.Body, func(n ast.Node) bool {
				call, ok := n.(*ast.CallExpr)
				if !ok || !isSelector(call.Fun, "f", "Fuzz") || len(call.Args) != 1 {
					return true
				}
				targets++
				lit, ok := call.Args[0].(*ast.FuncLit)
				if !ok {
					t.Errorf("%s: %s: f.Fuzz of a named function; give it a literal that bounds the input first", path, name)
					return false
				}
				if msg := boundsInput(lit); msg != "" {
					t.Errorf("%s: %s: %s", fset.Position(lit.Pos()), name, msg)
				}
				return false
			})
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if targets < 50 {
		t.Fatalf("found %d fuzz targets; the walk missed the module", targets)
	}
}

// boundsInput returns "" when the fuzz function's first statement bounds every []byte
// and string argument, else what is missing.
func boundsInput(lit *ast.FuncLit) string {
	var sized []string
	for _, p := range lit.Type.Params.List {
		if s := typeString(p.Type); s == "[]byte" || s == "string" {
			for _, n := range p.Names {
				sized = append(sized, n.Name)
			}
		}
	}
	if len(sized) == 0 {
		return ""
	}
	if len(lit.Body.List) == 0 {
		return "empty body"
	}
	var covers ast.Node
	switch s := lit.Body.List[0].(type) {
	case *ast.IfStmt:
		if !stops(s.Body) {
			return "the first if neither skips nor returns"
		}
		covers = s.Cond
	case *ast.ExprStmt:
		covers = s.X
	default:
		return "the first statement does not bound the input"
	}
	for _, name := range sized {
		if !takesLen(covers, name) {
			return "the first statement does not bound len(" + name + ")"
		}
	}
	return ""
}

func stops(b *ast.BlockStmt) bool {
	for _, s := range b.List {
		switch s := s.(type) {
		case *ast.ReturnStmt:
			return true
		case *ast.ExprStmt:
			if c, ok := s.X.(*ast.CallExpr); ok {
				if sel, ok := c.Fun.(*ast.SelectorExpr); ok && strings.HasPrefix(sel.Sel.Name, "Skip") {
					return true
				}
			}
		}
	}
	return false
}

func takesLen(n ast.Node, name string) bool {
	found := false
	ast.Inspect(n, func(n ast.Node) bool {
		if c, ok := n.(*ast.CallExpr); ok && len(c.Args) == 1 {
			if fn, ok := c.Fun.(*ast.Ident); ok && fn.Name == "len" {
				if id, ok := c.Args[0].(*ast.Ident); ok && id.Name == name {
					found = true
				}
			}
		}
		return !found
	})
	return found
}

func isSelector(e ast.Expr, x, sel string) bool {
	s, ok := e.(*ast.SelectorExpr)
	if !ok {
		return false
	}
	id, ok := s.X.(*ast.Ident)
	return ok && id.Name == x && s.Sel.Name == sel
}

func typeString(e ast.Expr) string {
	switch e := e.(type) {
	case *ast.Ident:
		return e.Name
	case *ast.ArrayType:
		if e.Len == nil {
			return "[]" + typeString(e.Elt)
		}
	}
	return ""
}
