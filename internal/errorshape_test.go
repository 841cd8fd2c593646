package internal_test

import (
	"go/ast"
	"go/parser"
	"path"
	"slices"
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

// otherMessageField lists the exported error types whose free-text field is not named Msg,
// and why.
var otherMessageField = map[string]string{
	"snapshot.StorageIntegrityError": "Reason is part of the snapshot package's published integrity report",
}

// TestErrorFieldsAgree holds the error types to one set of names: the words of the message
// in a field Msg (never Detail, Reason, Message, Description or Text), the code read through
// a field Code or the ErrorCode method (never a method Code or ErrCode).
func TestErrorFieldsAgree(t *testing.T) {
	fields := map[string][]string{} // pkg.Type → field names
	methods := map[string][]string{}
	var errorTypes []string
	moduleFiles(t, parser.SkipObjectResolution, func(rel string, f *ast.File) {
		pkg := path.Dir(rel)
		for _, decl := range f.Decls {
			switch d := decl.(type) {
			case *ast.GenDecl:
				for _, spec := range d.Specs {
					ts, ok := spec.(*ast.TypeSpec)
					if !ok {
						continue
					}
					st, ok := ts.Type.(*ast.StructType)
					if !ok {
						continue
					}
					for _, fl := range st.Fields.List {
						for _, n := range fl.Names {
							fields[pkg+"."+ts.Name.Name] = append(fields[pkg+"."+ts.Name.Name], n.Name)
						}
					}
				}
			case *ast.FuncDecl:
				if d.Recv == nil || len(d.Recv.List) != 1 {
					continue
				}
				typ := d.Recv.List[0].Type
				if star, ok := typ.(*ast.StarExpr); ok {
					typ = star.X
				}
				if id, ok := typ.(*ast.Ident); ok {
					name := pkg + "." + id.Name
					methods[name] = append(methods[name], d.Name.Name)
					if d.Name.Name == "Error" && ast.IsExported(id.Name) {
						errorTypes = append(errorTypes, name)
					}
				}
			}
		}
	})
	checked := 0
	for _, name := range errorTypes {
		if len(fields[name]) > 0 {
			checked++
		}
		for _, f := range fields[name] {
			switch f {
			case "Detail", "Reason", "Message", "Description", "Text":
				if _, ok := otherMessageField[name]; !ok {
					t.Errorf("%s has a field %s: name the message field Msg", name, f)
				}
			}
		}
		for _, m := range methods[name] {
			if m == "Code" || m == "ErrCode" {
				t.Errorf("%s has a method %s: read the code through the field Code or ErrorCode() (internal/errcode)", name, m)
			}
		}
	}
	if checked < 10 {
		t.Fatalf("found %d exported error structs: the walk did not see the module", checked)
	}
	for name := range otherMessageField {
		if !slices.Contains(errorTypes, name) {
			t.Errorf("otherMessageField lists %s, which is not an error type any more", name)
		}
	}
}
