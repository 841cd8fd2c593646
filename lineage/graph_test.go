package lineage

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

var cfgOrigin = Origin{Kind: OriginConfig}

func decl(src, dst string, rel Relation, tr TransformRef, o Origin, cols ...ColumnEdge) Declaration {
	return Declaration{Source: src, Target: dst, Relation: rel, Transform: tr, Columns: cols, Origin: o}
}

func lit(s string) TransformRef { return TransformRef{Kind: TransformLiteral, Ref: s} }

func mustGraph(t *testing.T, ds ...Declaration) *Graph {
	t.Helper()
	g, err := NewGraph(ds)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

func TestGraphMergesOrigins(t *testing.T) {
	ol := Origin{Kind: OriginOpenLineage, Ref: "ns/job"}
	g := mustGraph(t,
		decl("orders_copy", "daily", Transform, lit("v1"), cfgOrigin, ColumnEdge{"revenue", "amount"}),
		decl("orders_raw", "orders_copy", Copy, TransformRef{}, cfgOrigin),
		decl("orders_copy", "daily", Transform, lit("v1"), ol, ColumnEdge{"orders", "order_id"}, ColumnEdge{"revenue", "amount"}),
		decl("customers", "daily", Transform, lit("v1"), cfgOrigin),
	)
	edges := g.Edges()
	if len(edges) != 3 {
		t.Fatalf("edges %+v", edges)
	}
	// Sorted by target, then source.
	if edges[0].Source != "customers" || edges[1].Source != "orders_copy" || edges[2].Target != "orders_copy" {
		t.Fatalf("order %+v", edges)
	}
	e := edges[1]
	if !reflect.DeepEqual(e.Origins, []Origin{cfgOrigin, ol}) {
		t.Fatalf("origins %v", e.Origins)
	}
	if !reflect.DeepEqual(e.Columns, []ColumnEdge{{"orders", "order_id"}, {"revenue", "amount"}}) {
		t.Fatalf("columns are the union, sorted: %v", e.Columns)
	}
	if got := g.Into("daily"); len(got) != 2 || got[0].Source != "customers" {
		t.Fatalf("into %+v", got)
	}
	if got := g.OutOf("orders_copy"); len(got) != 1 || got[0].Target != "daily" {
		t.Fatalf("out of %+v", got)
	}
	up := g.Upstream("daily")
	var names []string
	for _, e := range up {
		names = append(names, e.Source+">"+e.Target)
	}
	if strings.Join(names, " ") != "customers>daily orders_copy>daily orders_raw>orders_copy" {
		t.Fatalf("upstream, nearest first: %v", names)
	}
	if down := g.Downstream("orders_raw"); len(down) != 2 || down[1].Target != "daily" {
		t.Fatalf("downstream %+v", down)
	}
	if !reflect.DeepEqual(g.Artifacts(), []string{"customers", "daily", "orders_copy", "orders_raw"}) {
		t.Fatalf("artifacts %v", g.Artifacts())
	}
}

func TestGraphCyclesAndSelfEdges(t *testing.T) {
	g := mustGraph(t,
		decl("a", "b", Derived, TransformRef{}, cfgOrigin),
		decl("b", "a", Derived, TransformRef{}, cfgOrigin),
		decl("c", "c", Transform, lit("inc"), cfgOrigin),
	)
	if up := g.Upstream("a"); len(up) != 2 {
		t.Fatalf("a cycle: each edge once: %+v", up)
	}
	if up := g.Upstream("c"); len(up) != 1 || up[0].Source != "c" {
		t.Fatalf("a self-edge: %+v", up)
	}
}

func TestGraphConflicts(t *testing.T) {
	for _, c := range []struct {
		name string
		a, b Declaration
	}{
		{"relation across origins", decl("a", "b", Copy, TransformRef{}, cfgOrigin), decl("a", "b", Derived, TransformRef{}, Origin{Kind: OriginCLI})},
		{"transform across origins", decl("a", "b", Transform, lit("v1"), cfgOrigin), decl("a", "b", Transform, lit("v2"), Origin{Kind: OriginDBT, Ref: "model.x"})},
		{"within one origin", decl("a", "b", Transform, lit("v1"), cfgOrigin), decl("a", "b", Derived, TransformRef{}, cfgOrigin)},
	} {
		_, err := NewGraph([]Declaration{c.a, c.b})
		if CodeOf(err) != CodeConflict || !strings.Contains(err.Error(), "a → b is declared as") {
			t.Errorf("%s: %v", c.name, err)
		}
	}
}

func TestGraphInvalidDeclarations(t *testing.T) {
	for _, c := range []struct {
		name string
		d    Declaration
	}{
		{"copy with transform", decl("a", "b", Copy, lit("v"), cfgOrigin)},
		{"copy with columns", decl("a", "b", Copy, TransformRef{}, cfgOrigin, ColumnEdge{"x", "y"})},
		{"transform without transform", decl("a", "b", Transform, TransformRef{}, cfgOrigin)},
		{"empty source", decl("", "b", Derived, TransformRef{}, cfgOrigin)},
		{"two-line target", decl("a", "b\nc", Derived, TransformRef{}, cfgOrigin)},
		{"no origin", decl("a", "b", Derived, TransformRef{}, Origin{})},
		{"unknown relation", decl("a", "b", Relation(7), TransformRef{}, cfgOrigin)},
		{"empty column", decl("a", "b", Derived, TransformRef{}, cfgOrigin, ColumnEdge{"", "y"})},
		{"bad transform kind", decl("a", "b", Transform, TransformRef{Kind: "url", Ref: "x"}, cfgOrigin)},
	} {
		if _, err := NewGraph([]Declaration{c.d}); CodeOf(err) != CodeInvalid {
			t.Errorf("%s: %v", c.name, err)
		}
	}
}

func TestGraphReplaceMergeRemove(t *testing.T) {
	cli := Origin{Kind: OriginCLI}
	g := mustGraph(t, decl("a", "b", Derived, TransformRef{}, cfgOrigin), decl("b", "c", Derived, TransformRef{}, cli))
	g2, err := g.Replace(OriginConfig, []Declaration{decl("x", "y", Derived, TransformRef{}, cfgOrigin)})
	if err != nil {
		t.Fatal(err)
	}
	if got := len(g2.Edges()); got != 2 || len(g2.Into("b")) != 0 || len(g2.Into("y")) != 1 {
		t.Fatalf("replace: %+v", g2.Edges())
	}
	g3, err := g2.Merge([]Declaration{decl("b", "c", Transform, lit("v2"), cli)})
	if err != nil || g3.Into("c")[0].Relation != Transform {
		t.Fatalf("merge replaces the origin's own declaration: %v %+v", err, g3.Edges())
	}
	if _, err := g3.Remove("b", "c", OriginDBT); CodeOf(err) != CodeNotFound {
		t.Fatalf("remove of an origin that did not declare it: %v", err)
	}
	g4, err := g3.Remove("b", "c", OriginCLI)
	if err != nil || len(g4.Into("c")) != 0 {
		t.Fatalf("remove: %v", err)
	}
	if g4.Equal(g3) || !g4.Equal(mustGraph(t, decl("x", "y", Derived, TransformRef{}, cfgOrigin))) {
		t.Fatal("Equal")
	}
}

func TestGroupDeclarations(t *testing.T) {
	gr := Group{From: []string{"orders_copy", "customers"}, To: "daily", Relation: "transform", Transform: "id:v3",
		Columns: map[string][]string{"revenue": {"amount", "orders_copy.status"}, "region": {"customers.country"}}}
	ds, err := gr.Declarations("/p", cfgOrigin)
	if err != nil {
		t.Fatal(err)
	}
	g := mustGraph(t, ds...)
	into := g.Into("daily")
	if len(into) != 2 || into[0].Transform != lit("v3") {
		t.Fatalf("%+v", into)
	}
	// customers: the unqualified amount and its own country; orders_copy: amount and status.
	if !reflect.DeepEqual(into[0].Columns, []ColumnEdge{{"region", "country"}, {"revenue", "amount"}}) {
		t.Fatalf("customers columns %v", into[0].Columns)
	}
	if !reflect.DeepEqual(into[1].Columns, []ColumnEdge{{"revenue", "amount"}, {"revenue", "status"}}) {
		t.Fatalf("orders_copy columns %v", into[1].Columns)
	}
	// The longest source name that prefixes a qualified column wins.
	gr = Group{From: []string{"a", "a.b"}, To: "t", Relation: "derived", Columns: map[string][]string{"x": {"a.b.c"}}}
	ds, err = gr.Declarations("/p", cfgOrigin)
	if err != nil || len(ds[0].Columns) != 0 || !reflect.DeepEqual(ds[1].Columns, []ColumnEdge{{"x", "c"}}) {
		t.Fatalf("longest prefix: %+v %v", ds, err)
	}
	if _, err := (Group{From: []string{"a", "b"}, To: "t", Relation: "copy"}).Declarations("/p", cfgOrigin); CodeOf(err) != CodeInvalid {
		t.Fatalf("copy of two sources: %v", err)
	}
	if _, err := (Group{From: []string{"a"}, To: "t", Relation: "view"}).Declarations("/p", cfgOrigin); CodeOf(err) != CodeInvalid {
		t.Fatalf("bad relation: %v", err)
	}
}

func TestParseTransform(t *testing.T) {
	project := t.TempDir()
	models := filepath.Join(project, "models")
	if err := os.MkdirAll(models, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(models, "daily.sql"), []byte("select 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	outside := filepath.Join(t.TempDir(), "x.sql")
	if err := os.WriteFile(outside, []byte("select 2\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		in, base string
		want     TransformRef
		err      string
	}{
		{"models/daily.sql", project, TransformRef{TransformFile, "models/daily.sql"}, ""},
		{"daily.sql", models, TransformRef{TransformFile, "models/daily.sql"}, ""},
		{"file:models/daily.sql", project, TransformRef{TransformFile, "models/daily.sql"}, ""},
		{outside, project, TransformRef{TransformFile, outside}, ""},
		{"v3", project, lit("v3"), ""},
		{"v1.2", project, lit("v1.2"), ""},
		{"id:models/missing.sql", project, lit("models/missing.sql"), ""},
		{"models/missing.sql", project, TransformRef{}, "no such file"},
		{"missing.sql", project, TransformRef{}, "no such file"},
		{"file:nothing", project, TransformRef{}, "no such file"},
		{"models", project, TransformRef{}, "not a regular file"},
		{"id:", project, TransformRef{}, "needs a value"},
		{"", project, TransformRef{}, "nonempty"},
	} {
		got, err := ParseTransform(c.in, c.base, project)
		if c.err != "" {
			if CodeOf(err) != CodeTransform || !strings.Contains(err.Error(), c.err) {
				t.Errorf("%q: err %v, want %q", c.in, err, c.err)
			}
			continue
		}
		if err != nil || got != c.want {
			t.Errorf("%q: %+v, %v; want %+v", c.in, got, err, c.want)
		}
	}
	// Identity: the file's SHA-256 (from sha256sum of "select 1\n").
	id, err := Identity(TransformRef{TransformFile, "models/daily.sql"}, project)
	if err != nil || id != "sha256:8903abffd68710879da59014708c6187f8e839fadc2bdf94ae73a036aa591623" {
		t.Fatalf("identity %q %v", id, err)
	}
	if id, _ := Identity(lit("v3"), project); id != "v3" {
		t.Fatalf("literal identity %q", id)
	}
	if _, err := Identity(TransformRef{TransformFile, "models/gone.sql"}, project); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("missing file: %v", err)
	}
}
