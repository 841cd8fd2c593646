package errcode_test

import (
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/pipewhy/pipewhy/internal/errcode"
)

type coded struct {
	code string
	err  error
}

func (e *coded) Error() string     { return e.code }
func (e *coded) ErrorCode() string { return e.code }
func (e *coded) Unwrap() error     { return e.err }

func TestOf(t *testing.T) {
	plain := errors.New("plain")
	for _, c := range []struct {
		name  string
		err   error
		codes []string
		of    string
	}{
		{"nil", nil, nil, ""},
		{"uncoded", fmt.Errorf("wrap: %w", plain), nil, ""},
		{"one", &coded{code: "PW_A"}, []string{"PW_A"}, "PW_A"},
		{"innermost PW_ wins", &coded{code: "PW_OUTER", err: fmt.Errorf("x: %w", &coded{code: "PW_INNER", err: plain})},
			[]string{"PW_OUTER", "PW_INNER"}, "PW_INNER"},
		{"a PW_ code over an inner contract code", &coded{code: "PW_SNAP", err: &coded{code: "invalid_metadata"}},
			[]string{"PW_SNAP", "invalid_metadata"}, "PW_SNAP"},
		{"innermost code without PW_", &coded{code: "GF_OUTER", err: &coded{code: "io"}}, []string{"GF_OUTER", "io"}, "io"},
		{"empty code skipped", &coded{code: "PW_A", err: &coded{code: ""}}, []string{"PW_A"}, "PW_A"},
		{"joined, depth first", errors.Join(&coded{code: "PW_A", err: &coded{code: "PW_B"}}, plain, &coded{code: "PW_C"}),
			[]string{"PW_A", "PW_B", "PW_C"}, "PW_C"},
	} {
		if got := errcode.Codes(c.err); !slices.Equal(got, c.codes) {
			t.Errorf("%s: Codes = %q, want %q", c.name, got, c.codes)
		}
		if got := errcode.Of(c.err); got != c.of {
			t.Errorf("%s: Of = %q, want %q", c.name, got, c.of)
		}
	}
}

// uncoded lists the exported error types that need no code of their own, and why.
var uncoded = map[string]string{
	"source/duckdb.EngineError": "DuckDB's own message; the adapter returns it only as the cause of a *source.Error",
	"internal/arrowfb.Error":    "a failed bounds check; source and canonical/arrowio return it only as the cause of their own coded error",
}

// TestEveryErrorTypeIsCoded holds the module to one error shape: every exported type
// with an Error() string method in non-test code also has ErrorCode() string.
func TestEveryErrorTypeIsCoded(t *testing.T) {
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	type method struct{ pkg, typ, name string }
	has := map[method]bool{}
	var errorTypes []method
	fset := token.NewFileSet()
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if name := d.Name(); path != root && (strings.HasPrefix(name, ".") || name == "testdata") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, filepath.Dir(path))
		pkg := filepath.ToSlash(rel)
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
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
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
