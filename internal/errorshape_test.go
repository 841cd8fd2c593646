package internal_test

import (
	"go/ast"
	"go/parser"
	"path"
	"strings"
	"testing"
)

// uncoded lists the exported error types that need no code of their own, and why.
var uncoded = map[string]string{
	"source/duckdb.EngineError": "DuckDB's own message; the adapter returns it only as the cause of a *source.Error",
	"internal/arrowfb.Error":    "a failed bounds check; source and canonical/arrowio return it only as the cause of their own coded error",
}

// TestEveryErrorTypeIsCoded holds the module to one error shape: every exported type
// with an Error() string method in non-test code also has ErrorCode() string.
func TestEveryErrorTypeIsCoded(t *testing.T) {
	type method struct{ pkg, typ, name string }
	has := map[method]bool{}
	var errorTypes []method
	moduleFiles(t, parser.SkipObjectResolution, func(rel string, f *ast.File) {
		pkg := path.Dir(rel)
		for _, decl := range f.Decls {
			fn, ok := decl.(*ast.FuncDecl)
			if !ok || fn.Recv == nil || len(fn.Recv.List) != 1 || fn.Type.Params.NumFields() != 0 ||
				fn.Type.Results.NumFields() != 1 || !isIdent(fn.Type.Results.List[0].Type, "string") {
				continue
			}
			typ := fn.Recv.List[0].Type
			if star, ok := typ.(*ast.StarExpr); ok {
				typ = star.X
			}
			id, ok := typ.(*ast.Ident)
			if !ok {
				continue
			}
			m := method{pkg, id.Name, fn.Name.Name}
			has[m] = true
			if fn.Name.Name == "Error" && ast.IsExported(id.Name) {
				errorTypes = append(errorTypes, m)
			}
		}
	})
	if len(errorTypes) < 10 {
		t.Fatalf("found %d exported error types: the walk did not see the module", len(errorTypes))
	}
	for _, m := range errorTypes {
		name := m.pkg + "." + m.typ
		if _, ok := uncoded[name]; ok {
			continue
		}
		if !has[method{m.pkg, m.typ, "ErrorCode"}] {
			t.Errorf("%s has an Error method but no ErrorCode() string (internal/errcode)", name)
		}
	}
	for name := range uncoded {
		pkg, typ, _ := strings.Cut(name, ".")
		if !has[method{pkg, typ, "Error"}] {
			t.Errorf("uncoded lists %s, which is not an error type any more", name)
		}
	}
}

func isIdent(e ast.Expr, name string) bool {
	id, ok := e.(*ast.Ident)
	return ok && id.Name == name
}
