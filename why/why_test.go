package why

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/pipewhy/pipewhy/lineage"
	"github.com/pipewhy/pipewhy/normalize"
	"github.com/pipewhy/pipewhy/repo"
	"github.com/pipewhy/pipewhy/scan"
	"github.com/pipewhy/pipewhy/snapshot"
	"github.com/pipewhy/pipewhy/source"
)

type fixture struct {
	t       testing.TB
	r       *repo.Repo
	project string
	n       int
}

func newFixture(t testing.TB) *fixture {
	t.Helper()
	project := t.TempDir()
	r, err := repo.Init(filepath.Join(project, repo.DirName))
	if err != nil {
		t.Fatal(err)
	}
	return &fixture{t: t, r: r, project: project}
}

// scan writes csv (rows joined by newlines) and scans it as artifact name, keyed by key
// (none: the whole record) at resolution res; it returns the snapshot id.
func (f *fixture) scan(name, key string, res snapshot.Resolution, rows ...string) string {
	f.t.Helper()
	return f.scanWith(name, key, res, normalize.StrictV1, rows...)
}

func (f *fixture) scanWith(name, key string, res snapshot.Resolution, p normalize.Profile, rows ...string) string {
	f.t.Helper()
	f.n++
	path := filepath.Join(f.project, fmt.Sprintf("%s-%d.csv", name, f.n))
	if err := os.WriteFile(path, []byte(strings.Join(rows, "\n")+"\n"), 0o644); err != nil {
		f.t.Fatal(err)
	}
	o := scan.Options{Address: path, Name: name, Resolution: res, Profile: p}
	if key != "" {
		o.Key = []string{key}
	}
	got, err := scan.Run(context.Background(), f.r, o)
	if err != nil {
		f.t.Fatal(err)
	}
	return got.ID.String()
}

func (f *fixture) declare(ds ...lineage.Declaration) {
	f.t.Helper()
	for i := range ds {
		if ds[i].Origin.Kind == "" {
			ds[i].Origin = lineage.Origin{Kind: lineage.OriginCLI}
		}
	}
	if _, _, err := lineage.Open(f.r).Update(context.Background(), func(g *lineage.Graph) (*lineage.Graph, error) { return g.Merge(ds) }); err != nil {
		f.t.Fatal(err)
	}
}

func (f *fixture) why(artifact string, o Options) *Explanation {
	f.t.Helper()
	e, err := f.explain(artifact, o)
	if err != nil {
		f.t.Fatal(err)
	}
	return e
}

func (f *fixture) explain(artifact string, o Options) (*Explanation, error) {
	h, err := Open(f.r)
	if err != nil {
		return nil, err
	}
	e, err := Explain(context.Background(), h, lineage.Open(f.r), artifact, o)
	if err == nil {
		if err := h.Save(); err != nil {
			f.t.Fatal(err)
		}
	}
	return e, err
}

func copyEdge(src, dst string) lineage.Declaration {
	return lineage.Declaration{Source: src, Target: dst, Relation: lineage.Copy}
}

func transformEdge(src, dst, ref string, cols ...lineage.ColumnEdge) lineage.Declaration {
	return lineage.Declaration{Source: src, Target: dst, Relation: lineage.Transform,
		Transform: lineage.TransformRef{Kind: lineage.TransformFile, Ref: ref}, Columns: cols}
}

func (e *Explanation) edge(src, dst string) EdgeResult {
	for _, r := range e.Edges {
		if r.Source == src && r.Target == dst {
			return r
		}
	}
	return EdgeResult{}
}

func (e *Explanation) causes() []string {
	var out []string
	for _, rc := range e.RootCauses {
		out = append(out, rc.Artifact+":"+string(rc.Verdict))
	}
	return out
}

func writeFile(t testing.TB, path, text string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

var (
	raw1 = []string{"id,status,amount", "1,paid,10", "2,paid,20", "3,shipped,30"}
	raw2 = []string{"id,status,amount", "1,paid,10", "2,paid,25", "3,shipped,30", "4,paid,40"}
	cus  = []string{"cid,country", "1,FR", "2,JP"}
)

// shop scans the pipeline raw → copy → daily ← customers twice (declared first), with
// the copy's second version corrupted in record 3 when corrupt.
func shop(t *testing.T, corrupt bool) *fixture {
	f := newFixture(t)
	writeFile(t, filepath.Join(f.project, "daily.sql"), "select day, sum(amount) from copy group by day\n")
	f.declare(copyEdge("raw", "copy"),
		transformEdge("copy", "daily", "daily.sql", lineage.ColumnEdge{Target: "revenue", Source: "amount"}),
		transformEdge("customers", "daily", "daily.sql"))
	// The copy writes its columns in another order: its scans still take raw's field
	// ids by name (the COPY was declared first).
	copy1 := []string{"amount,id,status", "10,1,paid", "20,2,paid", "30,3,shipped"}
	copy2 := []string{"amount,id,status", "10,1,paid", "25,2,paid", "30,3,shipped", "40,4,paid"}
	if corrupt {
		copy2[3] = "30,3,lost"
	}
	f.scan("raw", "id", snapshot.ResolutionValue, raw1...)
	f.scan("copy", "id", snapshot.ResolutionValue, copy1...)
	f.scan("customers", "cid", snapshot.ResolutionValue, cus...)
	f.scan("daily", "day", snapshot.ResolutionValue, "day,revenue,orders", "d1,60,3")
	f.scan("raw", "id", snapshot.ResolutionValue, raw2...)
	f.scan("copy", "id", snapshot.ResolutionValue, copy2...)
	f.scan("customers", "cid", snapshot.ResolutionValue, cus...)
	f.scan("daily", "day", snapshot.ResolutionValue, "day,revenue,orders", "d1,105,4")
	return f
}

// TestWhyCopyMismatch: the copy holds a corrupted record: copy_mismatch at the copy,
// source_changed at raw (no upstream lineage), the transform inputs' verdicts, the
// record that differs with its values on both sides, and column lineage.
func TestWhyCopyMismatch(t *testing.T) {
	f := shop(t, true)
	e := f.why("daily", Options{Limit: 5})
	if !e.Changed || e.Change.Records == nil || e.Change.Records.Changed != 1 || e.Change.Fields["revenue"] != 1 || e.Change.Fields["orders"] != 1 {
		t.Fatalf("daily change %+v", e.Change)
	}
	if got := e.causes(); !slices.Equal(got, []string{"copy:copy_mismatch", "raw:source_changed"}) {
		t.Fatalf("root causes %v", got)
	}
	if v := e.edge("customers", "daily").Verdict; v != SourceUnchanged {
		t.Fatalf("customers → daily %s", v)
	}
	if r := e.edge("copy", "daily"); r.Verdict != SourceChanged || !strings.Contains(r.Detail, "consistent with") || !strings.Contains(r.Detail, "transform is unchanged") {
		t.Fatalf("copy → daily %+v", r)
	}
	r := e.edge("raw", "copy")
	if r.Verdict != CopyMismatch || r.Copy == nil || r.Copy.Method != MethodFingerprints || r.Copy.Records.Changed != 1 || r.Copy.Fields["status"] != 1 {
		t.Fatalf("raw → copy %+v %+v", r, r.Copy)
	}
	if len(r.Copy.Examples) != 1 || r.Copy.Examples[0].Key != `id="3"` || r.Copy.Examples[0].Changes[0] != (ValueChange{Field: "status", Source: `"shipped"`, Copy: `"lost"`}) {
		t.Fatalf("example %+v", r.Copy.Examples)
	}
	if rc := e.RootCauses[1]; rc.Change == nil || rc.Change.Records.Added != 1 || rc.Change.Fields["amount"] != 1 {
		t.Fatalf("raw's change %+v", rc.Change)
	}
	// NoDetails: the root cause shows what the summaries say, and the explained
	// artifact's own change is still counted.
	brief := f.why("daily", Options{Limit: 5, NoDetails: true})
	if rc := brief.RootCauses[1]; rc.Change == nil || !rc.Change.Changed || rc.Change.Records != nil || rc.Change.Fields != nil || rc.Change.Rows != [2]uint64{3, 4} {
		t.Fatalf("raw's change with NoDetails %+v", rc.Change)
	}
	if brief.Change.Records == nil || brief.Change.Records.Changed != 1 {
		t.Fatalf("daily's change with NoDetails %+v", brief.Change)
	}
	fe, ok := e.Fields["revenue"]
	if !ok || fe.Changed == nil || *fe.Changed != 1 || !slices.Equal(fe.ExplainedBy, []string{"copy.amount"}) {
		t.Fatalf("revenue %+v", fe)
	}
	if fe := e.Fields["orders"]; len(fe.ExplainedBy) != 0 {
		t.Fatalf("orders has no column lineage: %+v", fe)
	}
	var b bytes.Buffer
	if err := WriteText(&b, e); err != nil {
		t.Fatal(err)
	}
	text := b.String()
	for _, want := range []string{
		"changed    1 → 1 records  +0 added  −0 removed  ~1 changed (orders ~1, revenue ~1)",
		"copy's COPY of raw does not match: 1 record differs (1 changed)  [copy_mismatch]",
		`id="3"  status "shipped" in raw, "lost" in copy`,
		"raw   3 → 4 records  +1 added  −0 removed  ~1 changed (amount ~1); the change begins here (no upstream lineage)  [source_changed]",
		"revenue ~1 is consistent with changes in copy.amount",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("text lacks %q:\n%s", want, text)
		}
	}
	if strings.Index(text, "copy_mismatch]") > strings.Index(text, "source_changed]") {
		t.Errorf("the copy mismatch (proven) is not listed first:\n%s", text)
	}
}

// TestWhyCopyVerified: the same pipeline with a faithful copy: copy_verified, and the
// only root cause is raw's change.
func TestWhyCopyVerified(t *testing.T) {
	f := shop(t, false)
	e := f.why("daily", Options{})
	if r := e.edge("raw", "copy"); r.Verdict != CopyVerified || !r.Copy.Equal || r.Copy.Method != MethodFingerprints {
		t.Fatalf("raw → copy %+v", r)
	}
	if got := e.causes(); !slices.Equal(got, []string{"raw:source_changed"}) {
		t.Fatalf("root causes %v", got)
	}
	// The copy's scans took raw's field ids although its columns came in another order.
	h, _ := Open(f.r)
	s1, _ := h.Summary(h.Snapshots("raw")[0])
	s2, _ := h.Summary(h.Snapshots("copy")[0])
	if s1.Context != s2.Context || s2.Fields[0].Name != "amount" || s2.Fields[0].ID != 3 || s2.Lineage == nil || s2.Lineage.Aligned[0] != "raw" {
		t.Fatalf("the copy's fields %+v, lineage %+v", s2.Fields, s2.Lineage)
	}
}

// TestWhyTransformChanged: the transform file changes between the two runs of daily.
func TestWhyTransformChanged(t *testing.T) {
	f := newFixture(t)
	sql := filepath.Join(f.project, "m.sql")
	writeFile(t, sql, "select 1\n")
	f.declare(transformEdge("a", "b", "m.sql"))
	f.scan("a", "", snapshot.ResolutionDataset, "x", "1")
	f.scan("b", "", snapshot.ResolutionDataset, "y", "1")
	writeFile(t, sql, "select 2\n")
	f.scan("b", "", snapshot.ResolutionDataset, "y", "2")
	e := f.why("b", Options{})
	r := e.edge("a", "b")
	// sha256sum of "select 1\n" and "select 2\n".
	if r.Verdict != TransformChanged || !strings.Contains(r.Detail, "sha256:8903abffd687 → sha256:") {
		t.Fatalf("edge %+v", r)
	}
	if got := e.causes(); !slices.Equal(got, []string{"b:transform_changed"}) {
		t.Fatalf("root causes %v", got)
	}
	// Today's file is never compared with an old run: back to select 1, then the runs
	// compared are the recorded ones.
	writeFile(t, sql, "select 1\n")
	if r := f.why("b", Options{}).edge("a", "b"); r.Verdict != TransformChanged {
		t.Fatalf("the verdict follows the recorded runs, not today's file: %+v", r)
	}
}

// TestWhyUnexplained: b changed while its input and its transform did not.
func TestWhyUnexplained(t *testing.T) {
	f := newFixture(t)
	writeFile(t, filepath.Join(f.project, "m.sql"), "select 1\n")
	f.declare(transformEdge("a", "b", "m.sql"))
	f.scan("a", "", snapshot.ResolutionDataset, "x", "1")
	f.scan("b", "", snapshot.ResolutionDataset, "y", "1")
	f.scan("a", "", snapshot.ResolutionDataset, "x", "1")
	f.scan("b", "", snapshot.ResolutionDataset, "y", "2")
	e := f.why("b", Options{})
	if r := e.edge("a", "b"); r.Verdict != SourceUnchanged {
		t.Fatalf("edge %+v", r)
	}
	if got := e.causes(); !slices.Equal(got, []string{"b:unexplained"}) || !strings.Contains(e.RootCauses[0].Detail, "non-determinism") {
		t.Fatalf("root causes %v %+v", got, e.RootCauses)
	}
	// Lineage declared after b's first scan: the transform of that run is unknown, and
	// the root cause says a transform change cannot be ruled out.
	g := newFixture(t)
	writeFile(t, filepath.Join(g.project, "m.sql"), "select 1\n")
	g.scan("a", "", snapshot.ResolutionDataset, "x", "1")
	g.scan("b", "", snapshot.ResolutionDataset, "y", "1")
	g.declare(transformEdge("a", "b", "m.sql"))
	g.scan("b", "", snapshot.ResolutionDataset, "y", "2")
	e = g.why("b", Options{})
	if r := e.edge("a", "b"); r.Verdict != SourceUnchanged || !r.TransformUnknown || !strings.Contains(r.Detail, "not recorded") {
		t.Fatalf("edge %+v", r)
	}
	if got := e.causes(); !slices.Equal(got, []string{"b:unexplained"}) || !strings.Contains(e.RootCauses[0].Detail, "cannot be ruled out") {
		t.Fatalf("root causes %v %+v", got, e.RootCauses)
	}
}

// TestWhyUnobserved: an input with no snapshot before the target's from side, and a
// COPY whose two ends were taken with different profiles: unobserved, with the reason.
func TestWhyUnobserved(t *testing.T) {
	f := newFixture(t)
	f.declare(lineage.Declaration{Source: "a", Target: "b", Relation: lineage.Derived}, copyEdge("c", "d"))
	f.scan("b", "", snapshot.ResolutionDataset, "y", "1")
	f.scan("a", "", snapshot.ResolutionDataset, "x", "1")
	f.scan("b", "", snapshot.ResolutionDataset, "y", "2")
	e := f.why("b", Options{})
	if r := e.edge("a", "b"); r.Verdict != Unobserved || !strings.Contains(r.Detail, "no snapshot of a") {
		t.Fatalf("edge %+v", r)
	}
	if got := e.causes(); !slices.Equal(got, []string{"a:unobserved"}) {
		t.Fatalf("root causes %v", got)
	}
	f.scan("c", "k", snapshot.ResolutionRecord, "k,v", "1,a")
	f.scanWith("d", "k", snapshot.ResolutionRecord, normalize.LogicalV1, "k,v", "1,a")
	f.scan("d", "k", snapshot.ResolutionRecord, "k,v", "1,a")
	e = f.why("d", Options{})
	r := e.edge("c", "d")
	if r.Verdict != CopyVerified {
		t.Fatalf("same profile at the to side: %+v", r)
	}
}

// TestWhyCopyProfiles: a copy scanned under another profile than its source is
// unobserved, with the profiles named; never a mismatch.
func TestWhyCopyProfiles(t *testing.T) {
	f := newFixture(t)
	f.declare(copyEdge("c", "d"))
	f.scan("c", "k", snapshot.ResolutionRecord, "k,v", "1,a")
	f.scan("d", "k", snapshot.ResolutionRecord, "k,v", "1,a")
	f.scanWith("d", "k", snapshot.ResolutionRecord, normalize.LogicalV1, "k,v", "1,a")
	e := f.why("d", Options{})
	r := e.edge("c", "d")
	if r.Verdict != Unobserved || r.Copy == nil || r.Copy.Comparable || !strings.Contains(r.Detail, "strict-v1 in c, logical-v1 in d") {
		t.Fatalf("edge %+v", r)
	}
}

// TestWhyCopyAlignedByValues: a copy scanned before the COPY was declared (its field ids
// differ) and a column excluded from the source's scan: at value resolution both sides'
// values are fingerprinted again on the common columns; at record resolution the copy
// cannot be verified and the reason says so.
func TestWhyCopyAlignedByValues(t *testing.T) {
	f := newFixture(t)
	f.scan("c", "k", snapshot.ResolutionValue, "k,v,w", "1,a,x", "2,b,y")
	f.scan("d", "k", snapshot.ResolutionValue, "v,k,w", "a,1,x", "b,2,y")
	f.declare(copyEdge("c", "d"))
	f.scan("c", "k", snapshot.ResolutionValue, "k,v,w", "1,a,x", "2,b,y")
	f.scan("d", "k", snapshot.ResolutionValue, "v,k,w", "a,1,x", "b,2,y")
	e := f.why("d", Options{})
	r := e.edge("c", "d")
	if r.Verdict != CopyVerified || r.Copy.Method != MethodValues {
		t.Fatalf("aligned by values: %+v %+v", r, r.Copy)
	}
	f.scan("c", "k", snapshot.ResolutionValue, "k,v,w", "1,a,x", "2,b,y")
	f.scan("d", "k", snapshot.ResolutionValue, "v,k,w", "a,1,x", "B,2,y")
	e = f.why("d", Options{Limit: 5})
	r = e.edge("c", "d")
	if r.Verdict != CopyMismatch || r.Copy.Method != MethodValues || r.Copy.Fields["v"] != 1 || r.Copy.Examples[0].Key != `k="2"` {
		t.Fatalf("mismatch by values: %+v %+v", r, r.Copy)
	}
	// At record resolution the values are not kept: not comparable.
	f.scan("c", "k", snapshot.ResolutionRecord, "k,v,w", "1,a,x", "2,b,y")
	f.scan("d", "k", snapshot.ResolutionRecord, "v,k,w", "a,1,x", "b,2,y")
	r = f.why("d", Options{}).edge("c", "d")
	if r.Verdict != Unobserved || !strings.Contains(r.Detail, "field ids differ") {
		t.Fatalf("record resolution: %+v", r)
	}
}

// TestWhyCopyColumns: a column on one side only, or typed differently, is a mismatch of
// the copy; a column excluded from one scan is left out of the comparison (value
// resolution) with a note.
func TestWhyCopyColumns(t *testing.T) {
	f := newFixture(t)
	f.declare(copyEdge("c", "d"))
	f.scan("c", "k", snapshot.ResolutionValue, "k,v", "1,a")
	f.scan("d", "k", snapshot.ResolutionValue, "k,v,extra", "1,a,z")
	f.scan("d", "k", snapshot.ResolutionValue, "k,v,extra", "1,a,z")
	r := f.why("d", Options{}).edge("c", "d")
	if r.Verdict != CopyMismatch || !strings.Contains(r.Detail, "column extra is in d only") {
		t.Fatalf("extra column: %+v", r)
	}
	// A column of the source excluded from the copy's scan: compared on the other columns.
	f.scan("c", "k", snapshot.ResolutionValue, "k,v,extra", "1,a,z")
	path := filepath.Join(f.project, "d-x.csv")
	writeFile(t, path, "k,v,extra\n1,a,z\n")
	for range 2 {
		if _, err := scan.Run(context.Background(), f.r, scan.Options{Address: path, Name: "d", Key: []string{"k"},
			Resolution: snapshot.ResolutionValue, Source: sourceExclude("extra")}); err != nil {
			t.Fatal(err)
		}
	}
	r = f.why("d", Options{}).edge("c", "d")
	if r.Verdict != CopyVerified || r.Copy.Method != MethodValues || !strings.Contains(strings.Join(r.Copy.Notes, " "), "excluded") {
		t.Fatalf("excluded column: %+v %+v", r, r.Copy)
	}
}

// TestWhyErrors: unknown artifacts, snapshots of another artifact, a single snapshot,
// and a lineage naming an artifact nobody knows.
func TestWhyErrors(t *testing.T) {
	f := newFixture(t)
	a1 := f.scan("a", "", snapshot.ResolutionDataset, "x", "1")
	if _, err := f.explain("nope", Options{}); CodeOfErr(err) != CodeUnknown {
		t.Fatalf("unknown: %v", err)
	}
	if _, err := f.explain("a", Options{}); CodeOfErr(err) != CodeSnapshot || !strings.Contains(err.Error(), "why compares two") {
		t.Fatalf("one snapshot: %v", err)
	}
	b1 := f.scan("b", "", snapshot.ResolutionDataset, "x", "1")
	f.scan("b", "", snapshot.ResolutionDataset, "x", "2")
	if _, err := f.explain("b", Options{To: a1}); CodeOfErr(err) != CodeSnapshot {
		t.Fatalf("foreign snapshot: %v", err)
	}
	if _, err := f.explain("b", Options{From: b1, To: b1}); CodeOfErr(err) != CodeSnapshot {
		t.Fatalf("from = to: %v", err)
	}
	f.declare(lineage.Declaration{Source: "typo", Target: "b", Relation: lineage.Derived})
	if _, err := f.explain("b", Options{}); CodeOfErr(err) != CodeLineage || !strings.Contains(err.Error(), "typo") {
		t.Fatalf("unknown lineage name: %v", err)
	}
	if e, err := f.explain("b", Options{Known: map[string]bool{"typo": true}}); err != nil || e.edge("typo", "b").Verdict != Unobserved {
		t.Fatalf("a configured source never scanned is unobserved: %v", err)
	}
}

func CodeOfErr(err error) Code {
	if e, ok := err.(*Error); ok {
		return e.Code
	}
	return ""
}

// TestWhyCyclesAndSelfEdges: a cycle and a self-edge end; every edge once per side.
func TestWhyCyclesAndSelfEdges(t *testing.T) {
	f := newFixture(t)
	f.declare(lineage.Declaration{Source: "a", Target: "b", Relation: lineage.Derived},
		lineage.Declaration{Source: "b", Target: "a", Relation: lineage.Derived},
		lineage.Declaration{Source: "b", Target: "b", Relation: lineage.Derived})
	for i := range 3 {
		f.scan("a", "", snapshot.ResolutionDataset, "x", fmt.Sprint(i))
		f.scan("b", "", snapshot.ResolutionDataset, "x", fmt.Sprint(i))
	}
	e := f.why("b", Options{})
	if len(e.Edges) == 0 || len(e.Edges) > 12 {
		t.Fatalf("%d edges", len(e.Edges))
	}
	if r := e.edge("b", "b"); r.Verdict != SourceChanged {
		t.Fatalf("self-edge %+v", r)
	}
}

// TestHistoryIndex: a second explanation reads the summaries from the index without
// loading the scans (a damaged array file goes unnoticed by the summary), and a damaged
// index line is rebuilt.
func TestHistoryIndex(t *testing.T) {
	f := shop(t, false)
	f.why("daily", Options{})
	idx := filepath.Join(f.r.Dir(), IndexFile)
	b, err := os.ReadFile(idx)
	if err != nil || bytes.Count(b, []byte("\n")) != 8 {
		t.Fatalf("index: %d lines, %v", bytes.Count(b, []byte("\n")), err)
	}
	h, err := Open(f.r)
	if err != nil {
		t.Fatal(err)
	}
	p := h.Snapshots("customers")[0]
	id, _ := snapshot.ParseID(h.Entry(p).Snapshot)
	recs := filepath.Join(f.r.Store().Path(id), "array-records.bin")
	rb, err := os.ReadFile(recs)
	if err != nil {
		t.Fatal(err)
	}
	rb[0] ^= 1 // the size is right, the checksum is not
	if err := os.WriteFile(recs, rb, 0o644); err != nil {
		t.Fatal(err)
	}
	if s, err := h.Summary(p); err != nil || s.Artifact != "customers" {
		t.Fatalf("summary from the index: %v", err)
	}
	if _, err := h.Scan(p); err == nil {
		t.Fatal("loading the damaged scan succeeded")
	}
	// Damage the summary's line: it is rebuilt from the snapshot's summary arrays (the
	// damaged record array is not among them).
	// (Lines are in the order the summaries were loaded: in parallel, any order.)
	lines := bytes.Split(b, []byte("\n"))
	for i, l := range lines {
		if bytes.HasPrefix(l, []byte(`{"snapshot":"`+id.String())) {
			lines[i] = bytes.Replace(l, []byte(`"artifact":"customers"`), []byte(`"artifact":"customerz"`), 1)
		}
	}
	b = bytes.Join(lines, []byte("\n"))
	if err := os.WriteFile(idx, b, 0o644); err != nil {
		t.Fatal(err)
	}
	h, _ = Open(f.r)
	if s, err := h.Summary(p); err != nil || s.Artifact != "customers" {
		t.Fatalf("a damaged index line: %+v, %v", s, err)
	}
	// A damaged summary array (the descriptor) fails the rebuild.
	if err := os.WriteFile(idx, b, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(f.r.Store().Path(id), "array-"+repo.KeyDescriptor+".bin"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	h, _ = Open(f.r)
	if _, err := h.Summary(p); err == nil {
		t.Fatal("a damaged index line was trusted")
	}
	// A torn last line (a crash mid-append) is ignored, and the next lines start after it.
	os.Remove(idx)
	g := shop(t, false)
	gidx := filepath.Join(g.r.Dir(), IndexFile)
	if err := os.MkdirAll(filepath.Dir(gidx), 0o755); err != nil {
		t.Fatal(err)
	}
	writeFile(t, gidx, `{"snapshot":"0123456789abcdef0123456789abcdef","sum":"ab`)
	g.why("daily", Options{})
	b, _ = os.ReadFile(gidx)
	lines = bytes.Split(bytes.TrimSuffix(b, []byte("\n")), []byte("\n"))
	if len(lines) != 9 || !bytes.HasSuffix(lines[0], []byte(`"sum":"ab`)) {
		t.Fatalf("index after a torn line: %d lines", len(lines))
	}
	h, _ = Open(g.r)
	for _, p := range h.Snapshots("raw") {
		if _, ok := h.index[h.Entry(p).Snapshot]; !ok {
			t.Fatalf("raw's summary is not indexed after the torn line")
		}
	}
}

func sourceExclude(cols ...string) (o sourceOptions) {
	o.Exclude = cols
	return o
}

type sourceOptions = source.Options

// TestWhyLineageDeclaredLater: a change older than the first lineage version is
// explained with that version, and the explanation says so; with no lineage at all, the
// artifact is its own root cause and a note says none was recorded.
func TestWhyLineageDeclaredLater(t *testing.T) {
	f := newFixture(t)
	f.scan("a", "", snapshot.ResolutionDataset, "x", "1")
	f.scan("b", "", snapshot.ResolutionDataset, "y", "1")
	f.scan("a", "", snapshot.ResolutionDataset, "x", "2")
	f.scan("b", "", snapshot.ResolutionDataset, "y", "2")
	e := f.why("b", Options{})
	if len(e.Edges) != 0 || !slices.Equal(e.causes(), []string{"b:source_changed"}) || len(e.Notes) != 1 || !strings.Contains(e.Notes[0], "no lineage has been recorded") {
		t.Fatalf("no lineage: %+v", e)
	}
	f.declare(lineage.Declaration{Source: "a", Target: "b", Relation: lineage.Derived})
	e = f.why("b", Options{})
	if e.Lineage.Seq != 1 || !strings.Contains(e.Lineage.Note, "declared after this change") || e.edge("a", "b").Verdict != SourceChanged {
		t.Fatalf("later lineage: %+v", e.Lineage)
	}
	if got := e.causes(); !slices.Equal(got, []string{"a:source_changed"}) {
		t.Fatalf("root causes %v", got)
	}
}

// TestWhyTextRecordResolution: a copy that differs at record resolution names the
// record without values; an unchanged artifact with a problem upstream says so.
func TestWhyTextRecordResolution(t *testing.T) {
	f := newFixture(t)
	f.declare(copyEdge("c", "d"))
	f.scan("c", "k", snapshot.ResolutionRecord, "k,v", "1,a", "2,b")
	f.scan("d", "k", snapshot.ResolutionRecord, "k,v", "1,a", "2,B")
	f.scan("d", "k", snapshot.ResolutionRecord, "k,v", "1,a", "2,B")
	e := f.why("d", Options{Limit: 3})
	var b bytes.Buffer
	if err := WriteText(&b, e); err != nil {
		t.Fatal(err)
	}
	text := b.String()
	for _, want := range []string{"unchanged  2 records", "changes and problems upstream, strongest first", `k="2"  differs (the values are kept at value resolution only)`} {
		if !strings.Contains(text, want) {
			t.Errorf("text lacks %q:\n%s", want, text)
		}
	}
}
