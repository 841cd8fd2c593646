package lineage

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/pipewhy/pipewhy/arrays"
	"github.com/pipewhy/pipewhy/config"
	"github.com/pipewhy/pipewhy/fingerprint"
	"github.com/pipewhy/pipewhy/internal/tablefp"
	"github.com/pipewhy/pipewhy/normalize"
	"github.com/pipewhy/pipewhy/repo"
	"github.com/pipewhy/pipewhy/snapshot"
	"github.com/pipewhy/pipewhy/source"
)

func newRepo(t *testing.T) *repo.Repo {
	t.Helper()
	r, err := repo.Init(filepath.Join(t.TempDir(), repo.DirName))
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func TestStoreVersions(t *testing.T) {
	ctx := context.Background()
	r := newRepo(t)
	st := Open(r)
	if _, _, ok, err := st.Head(); ok || err != nil {
		t.Fatalf("empty store: ok %v err %v", ok, err)
	}
	if _, g, later, ok, err := st.At(1); ok || later || err != nil || len(g.Edges()) != 0 {
		t.Fatalf("At on an empty store: %v %v %v", ok, later, err)
	}
	add := func(ds ...Declaration) func(*Graph) (*Graph, error) {
		return func(g *Graph) (*Graph, error) { return g.Merge(ds) }
	}
	cli := Origin{Kind: OriginCLI}
	v1, changed, err := st.Update(ctx, add(decl("raw", "copy", Copy, TransformRef{}, cli)))
	if err != nil || !changed || v1.Seq != 1 || v1.Edges != 1 {
		t.Fatalf("v1 %+v %v %v", v1, changed, err)
	}
	// The same declaration again changes nothing and writes nothing.
	v, changed, err := st.Update(ctx, add(decl("raw", "copy", Copy, TransformRef{}, cli)))
	if err != nil || changed || v.ID != v1.ID {
		t.Fatalf("no-op update %+v %v %v", v, changed, err)
	}
	v2, changed, err := st.Update(ctx, add(decl("copy", "daily", Transform, lit("v1"), cli, ColumnEdge{"revenue", "amount"})))
	if err != nil || !changed || v2.Seq != 2 || v2.Edges != 3 {
		t.Fatalf("v2 %+v %v %v (2 dataset edges + 1 column edge)", v2, changed, err)
	}
	vs, err := st.Versions()
	if err != nil || len(vs) != 2 || vs[0].ID != v1.ID || vs[1].ID != v2.ID {
		t.Fatalf("versions %+v %v", vs, err)
	}
	g1, err := st.Load(v1.ID)
	if err != nil || len(g1.Edges()) != 1 {
		t.Fatalf("load v1: %v", err)
	}
	head, g2, ok, err := st.Head()
	if err != nil || !ok || head.ID != v2.ID || len(g2.Into("daily")) != 1 || g2.Into("daily")[0].Columns[0] != (ColumnEdge{"revenue", "amount"}) {
		t.Fatalf("head %+v %v", head, err)
	}
	// At: the version in force at a time; before the first version, the first one (later).
	if v, _, later, ok, _ := st.At(v2.FinishedAtNs - 1); !ok || later || v.ID != v1.ID {
		t.Fatalf("At between versions: %+v later %v", v, later)
	}
	if v, _, later, _, _ := st.At(v1.FinishedAtNs - 1); !later || v.ID != v1.ID {
		t.Fatalf("At before the first version: %+v later %v", v, later)
	}
	if v, _, later, _, _ := st.At(^uint64(0)); later || v.ID != v2.ID {
		t.Fatalf("At now: %+v", v)
	}
	// The stored version is a valid C5 snapshot with a real C3 context and state.
	c5, _ := snapshot.Open(filepath.Join(r.Dir(), StoreDir), snapshot.Options{})
	if err := c5.Verify(v2.ID); err != nil {
		t.Fatal(err)
	}
	snap, err := c5.Open(v2.ID)
	if err != nil {
		t.Fatal(err)
	}
	if snap.Metadata.Parent == nil || *snap.Metadata.Parent != v1.ID || snap.Metadata.Coverage.Returned != 3 {
		t.Fatalf("metadata %+v", snap.Metadata)
	}
	// The state is the C3 state of the three edge rows, computed here independently.
	want, _ := tablefp.New(edgeColumns)
	for _, row := range [][]normalize.Value{
		{normalize.TextValue("raw"), normalize.TextValue("copy"), normalize.NullValue{}, normalize.NullValue{}, normalize.Int(0), normalize.NullValue{}, normalize.NullValue{}, normalize.TextValue("cli"), normalize.NullValue{}},
		{normalize.TextValue("copy"), normalize.TextValue("daily"), normalize.NullValue{}, normalize.NullValue{}, normalize.Int(1), normalize.TextValue("literal"), normalize.TextValue("v1"), normalize.TextValue("cli"), normalize.NullValue{}},
		{normalize.TextValue("copy"), normalize.TextValue("daily"), normalize.TextValue("amount"), normalize.TextValue("revenue"), normalize.Int(1), normalize.TextValue("literal"), normalize.TextValue("v1"), normalize.TextValue("cli"), normalize.NullValue{}},
	} {
		if err := want.Add(edgeColumns, row...); err != nil {
			t.Fatal(err)
		}
	}
	ot, _ := repo.DecodeTable(snap, arrays.TableObservation)
	words, _ := ot.(*arrays.ObservationTable).Fingerprint(0)
	got, err := fingerprint.FromWords(want.Context(), snap.Metadata.Fingerprint.ContextID, words)
	if err != nil {
		t.Fatal(err)
	}
	if eq, _ := got.Equal(want.State()); !eq || got.Count() != 3 {
		t.Fatalf("stored state %v, want %v", got.Words(), want.State().Words())
	}
}

// TestDecodeRejects: a version whose arrays pass C5's checksums but not the lineage
// rules is refused (the arrays are altered in memory, as a writer with a bug would).
// A Store lists the versions again when the store's snapshots changed, also when
// another Store (another process) wrote them; it loads a version once.
func TestStoreSeesNewVersions(t *testing.T) {
	ctx := context.Background()
	r := newRepo(t)
	reader, writer := Open(r), Open(r)
	add := func(src, dst string) {
		t.Helper()
		if _, _, err := writer.Update(ctx, func(g *Graph) (*Graph, error) {
			return g.Merge([]Declaration{decl(src, dst, Copy, TransformRef{}, Origin{Kind: OriginCLI})})
		}); err != nil {
			t.Fatal(err)
		}
	}
	add("a", "b")
	if vs, err := reader.Versions(); err != nil || len(vs) != 1 {
		t.Fatalf("versions %+v %v", vs, err)
	}
	add("b", "c")
	vs, err := reader.Versions()
	if err != nil || len(vs) != 2 {
		t.Fatalf("after another store wrote version 2: %+v %v", vs, err)
	}
	_, g, _, err := reader.Head()
	if err != nil || len(g.Edges()) != 2 {
		t.Fatalf("head after version 2: %v", err)
	}
	g1, err1 := reader.Load(vs[0].ID)
	g2, err2 := reader.Load(vs[0].ID)
	if err1 != nil || err2 != nil || g1 != g2 {
		t.Errorf("a version loaded twice: %p %p %v %v", g1, g2, err1, err2)
	}
}

func TestDecodeRejects(t *testing.T) {
	ctx := context.Background()
	r := newRepo(t)
	st := Open(r)
	v, _, err := st.Update(ctx, func(g *Graph) (*Graph, error) {
		return g.Merge([]Declaration{decl("a", "b", Transform, lit("v1"), Origin{Kind: OriginCLI}, ColumnEdge{"x", "y"})})
	})
	if err != nil {
		t.Fatal(err)
	}
	c5, _ := snapshot.Open(filepath.Join(r.Dir(), StoreDir), snapshot.Options{})
	load := func() *snapshot.Snapshot {
		s, err := c5.Open(v.ID)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	if _, err := decode(load()); err != nil {
		t.Fatalf("valid version: %v", err)
	}
	for _, c := range []struct {
		name string
		edit func(s *snapshot.Snapshot)
		msg  string
	}{
		{"no descriptor", func(s *snapshot.Snapshot) { delete(s.Arrays, KeyDescriptor) }, "no descriptor"},
		{"descriptor with unknown field", func(s *snapshot.Snapshot) {
			s.Arrays[KeyDescriptor] = snapshot.FromUint8([]byte(`{"format":"pipewhy.lineage","version":1,"names":[],"evidence":[],"transforms":[],"x":1}`))
		}, "malformed descriptor"},
		{"other version", func(s *snapshot.Snapshot) {
			s.Arrays[KeyDescriptor] = snapshot.FromUint8([]byte(`{"format":"pipewhy.lineage","version":2,"names":[],"evidence":[],"transforms":[]}`))
		}, "unsupported"},
		{"state words", func(s *snapshot.Snapshot) {
			w, _ := s.Arrays["observation_fingerprint_words"].Uint64s()
			w[3]++
			s.Arrays["observation_fingerprint_words"] = snapshot.FromUint64(w)
		}, "not the state of the stored edges"},
		{"relation", func(s *snapshot.Snapshot) {
			rel, _ := s.Arrays["lineage_edge_relation_id"].Uint8s()
			rel[0], rel[1] = 2, 2
			s.Arrays["lineage_edge_relation_id"] = snapshot.FromUint8(rel)
		}, "not the state"},
		{"column edge without its dataset edge", func(s *snapshot.Snapshot) {
			ev, _ := s.Arrays["lineage_edge_relation_id"].Uint8s()
			ev[1] = 2 // the column edge says DERIVED, its dataset edge TRANSFORM
			s.Arrays["lineage_edge_relation_id"] = snapshot.FromUint8(ev)
		}, "column edge without"},
		{"dangling target", func(s *snapshot.Snapshot) {
			tg, _ := s.Arrays["lineage_edge_target_id"].Uint64s()
			tg[0] = 99
			s.Arrays["lineage_edge_target_id"] = snapshot.FromUint64(tg)
		}, "C1 tables"},
		{"missing column", func(s *snapshot.Snapshot) { delete(s.Arrays, "lineage_edge_evidence_id") }, "C1 table"},
		{"extra array", func(s *snapshot.Snapshot) { s.Arrays["extra"] = snapshot.FromUint8([]byte{1}) }, "unexpected arrays"},
	} {
		s := load()
		c.edit(s)
		_, err := decode(s)
		if CodeOf(err) != CodeFormat || !strings.Contains(err.Error(), c.msg) {
			t.Errorf("%s: %v, want %q", c.name, err, c.msg)
		}
	}
}

func TestSyncConfig(t *testing.T) {
	ctx := context.Background()
	r := newRepo(t)
	project := filepath.Dir(r.Dir())
	if err := os.MkdirAll(filepath.Join(project, "models"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(project, "models", "daily.sql"), []byte("select 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	write := func(text string) *config.File {
		p := filepath.Join(project, config.FileName)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		f, err := config.Load(p)
		if err != nil {
			t.Fatal(err)
		}
		return f
	}
	st := Open(r)
	f := write(`version: 1
lineage:
  - {from: raw, to: copy, relation: copy}
  - {from: [copy, customers], to: daily, relation: transform, transform: models/daily.sql, columns: {revenue: [amount]}}
`)
	v, changed, err := st.SyncConfig(ctx, f)
	if err != nil || !changed || v.Seq != 1 {
		t.Fatalf("sync %v %v", changed, err)
	}
	_, g, _, _ := st.Head()
	if e := g.Into("daily"); len(e) != 2 || e[1].Transform != (TransformRef{TransformFile, "models/daily.sql"}) {
		t.Fatalf("into daily %+v", e)
	}
	// A CLI declaration survives the next sync; the config's are replaced.
	if _, _, err := st.Declare(ctx, []Declaration{decl("daily", "report", Derived, TransformRef{}, Origin{Kind: OriginCLI})},
		map[string]bool{"daily": true, "report": true}); err != nil {
		t.Fatal(err)
	}
	f = write("version: 1\nlineage:\n  - {from: raw, to: copy, relation: copy}\n")
	if _, changed, err := st.SyncConfig(ctx, f); err != nil || !changed {
		t.Fatalf("resync %v %v", changed, err)
	}
	_, g, _, _ = st.Head()
	if len(g.Into("daily")) != 0 || len(g.Into("report")) != 1 || len(g.Into("copy")) != 1 {
		t.Fatalf("after resync %+v", g.Edges())
	}
	// Syncing the same file again writes nothing.
	if _, changed, err := st.SyncConfig(ctx, f); err != nil || changed {
		t.Fatalf("idempotent sync %v %v", changed, err)
	}
	// A conflict with the CLI declaration: nothing written, the file named.
	f = write("version: 1\nlineage:\n  - {from: daily, to: report, relation: transform, transform: v9}\n")
	if _, _, err := st.SyncConfig(ctx, f); CodeOf(err) != CodeConflict || !strings.Contains(err.Error(), config.FileName) {
		t.Fatalf("conflict: %v", err)
	}
	if vs, _ := st.Versions(); len(vs) != 3 {
		t.Fatalf("a failed sync wrote a version: %d versions", len(vs))
	}
	// A missing transform file: the line is named.
	f = write("version: 1\nlineage:\n  - {from: a, to: b, relation: transform, transform: models/none.sql}\n")
	if _, _, err := st.SyncConfig(ctx, f); CodeOf(err) != CodeTransform || !strings.Contains(err.Error(), "line 3") {
		t.Fatalf("missing transform: %v", err)
	}
	// Removing: a CLI edge goes, a configured one is refused.
	if _, _, err := st.Remove(ctx, "daily", "report"); err != nil {
		t.Fatal(err)
	}
	if _, _, err := st.Remove(ctx, "raw", "copy"); CodeOf(err) != CodeInvalid || !strings.Contains(err.Error(), "pipewhy.yaml") {
		t.Fatalf("remove configured: %v", err)
	}
	if _, _, err := st.Remove(ctx, "x", "y"); CodeOf(err) != CodeNotFound {
		t.Fatalf("remove undeclared: %v", err)
	}
	if err := CheckKnown([]Declaration{decl("raw", "zz", Derived, TransformRef{}, Origin{Kind: OriginCLI})}, map[string]bool{"raw": true}); CodeOf(err) != CodeUnknown || !strings.Contains(err.Error(), "zz") {
		t.Fatalf("unknown: %v", err)
	}
}

func TestForScan(t *testing.T) {
	ctx := context.Background()
	r := newRepo(t)
	project := filepath.Dir(r.Dir())
	if err := os.WriteFile(filepath.Join(project, "t.sql"), []byte("select 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	reg, err := source.OpenRegistry(r.RegistryPath())
	if err != nil {
		t.Fatal(err)
	}
	if h, err := ForScan(r, "copy", reg); h != nil || err != nil {
		t.Fatalf("no lineage: %+v %v", h, err)
	}
	i64 := arrow.PrimitiveTypes.Int64
	if _, err := reg.Assign("raw", arrow.NewSchema([]arrow.Field{{Name: "id", Type: i64}, {Name: "amount", Type: i64}}, nil)); err != nil {
		t.Fatal(err)
	}
	cli := Origin{Kind: OriginCLI}
	v, _, err := Open(r).Update(ctx, func(g *Graph) (*Graph, error) {
		return g.Merge([]Declaration{
			decl("raw", "copy", Copy, TransformRef{}, cli),
			decl("copy", "daily", Transform, TransformRef{TransformFile, "t.sql"}, cli),
			decl("cust", "daily", Transform, TransformRef{TransformFile, "t.sql"}, cli),
			decl("x", "daily", Derived, TransformRef{TransformFile, "gone.sql"}, cli),
			decl("y", "daily", Derived, TransformRef{}, cli),
		})
	})
	if err != nil {
		t.Fatal(err)
	}
	h, err := ForScan(r, "copy", reg)
	if err != nil {
		t.Fatal(err)
	}
	if h.FieldIDs["id"] != 1 || h.FieldIDs["amount"] != 2 || len(h.Record.Aligned) != 1 || h.Record.Aligned[0] != "raw" || h.Record.Lineage != v.ID.String() {
		t.Fatalf("copy hints %+v %+v", h.FieldIDs, h.Record)
	}
	h, err = ForScan(r, "daily", reg)
	if err != nil {
		t.Fatal(err)
	}
	tr := h.Record.Transforms
	if len(tr) != 2 {
		t.Fatalf("transforms %+v", tr)
	}
	if strings.Join(tr[0].Sources, ",") != "copy,cust" || tr[0].Identity != "sha256:8903abffd68710879da59014708c6187f8e839fadc2bdf94ae73a036aa591623" || tr[0].Relation != "transform" {
		t.Fatalf("file transform %+v", tr[0])
	}
	if tr[1].Sources[0] != "x" || tr[1].Identity != "" || tr[1].Error != "the file does not exist" {
		t.Fatalf("missing file %+v", tr[1])
	}
	if run, ok := RecordedTransform(h.Record, "cust"); !ok || run.Ref != "t.sql" {
		t.Fatalf("recorded %+v", run)
	}
	if _, ok := RecordedTransform(h.Record, "y"); ok {
		t.Fatal("an edge without a transform has no record")
	}
}
