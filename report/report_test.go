package report

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pipewhy/pipewhy/incident"
	"github.com/pipewhy/pipewhy/lineage"
	"github.com/pipewhy/pipewhy/repo"
	"github.com/pipewhy/pipewhy/scan"
	"github.com/pipewhy/pipewhy/snapshot"
	"github.com/pipewhy/pipewhy/why"
)

// fixture is a repository that tests scan CSV text into.
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

// scan writes the CSV lines and scans them as artifact name at value resolution, keyed
// by the first column; it returns the snapshot id.
func (f *fixture) scan(name string, lines ...string) string {
	f.t.Helper()
	f.n++
	path := filepath.Join(f.project, fmt.Sprintf("t%d.csv", f.n))
	if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		f.t.Fatal(err)
	}
	key, _, _ := strings.Cut(lines[0], ",")
	got, err := scan.Run(context.Background(), f.r, scan.Options{Address: path, Name: name, Key: []string{key}, Resolution: snapshot.ResolutionValue})
	if err != nil {
		f.t.Fatal(err)
	}
	return got.ID.String()
}

func (f *fixture) declare(ds ...lineage.Declaration) {
	f.t.Helper()
	for i := range ds {
		ds[i].Origin = lineage.Origin{Kind: lineage.OriginCLI}
	}
	if _, _, err := lineage.Open(f.r).Update(context.Background(), func(g *lineage.Graph) (*lineage.Graph, error) { return g.Merge(ds) }); err != nil {
		f.t.Fatal(err)
	}
}

// check runs pipewhy check over every artifact, recording incidents.
func (f *fixture) check() {
	f.t.Helper()
	h, err := why.Open(f.r)
	if err != nil {
		f.t.Fatal(err)
	}
	ev, err := incident.Evaluate(context.Background(), h, lineage.Open(f.r), h.Artifacts(), nil, map[string]bool{"ghost": true})
	if err != nil {
		f.t.Fatal(err)
	}
	if _, _, err := incident.OpenStore(f.r).Record(context.Background(), h, ev.Problems); err != nil {
		f.t.Fatal(err)
	}
}

func (f *fixture) build(o Options) (*Page, error) {
	h, err := why.Open(f.r)
	if err != nil {
		return nil, err
	}
	return Build(context.Background(), f.r, h, lineage.Open(f.r), o)
}

func (f *fixture) mustBuild(o Options) *Page {
	f.t.Helper()
	p, err := f.build(o)
	if err != nil {
		f.t.Fatal(err)
	}
	return p
}

func (p *Page) artifact(name string) *Artifact {
	for _, a := range p.Artifacts {
		if a.Name == name {
			return a
		}
	}
	return nil
}

func (p *Page) edge(src, dst string) *Edge {
	for i, e := range p.Edges {
		if e.Source == src && e.Target == dst {
			return &p.Edges[i]
		}
	}
	return nil
}

// shop builds the pipeline the tests read: orders → orders_copy (a COPY, corrupted in
// its second scan: order 1's status) → revenue (a TRANSFORM, literal "v1") ← ghost (a
// DERIVED input never scanned); customers scanned once. orders is scanned three times:
// v1 → v2 removes order 3, adds order 4 and changes order 2's amount; v3 is v2 again.
func shop(t testing.TB) *fixture {
	f := newFixture(t)
	f.declare(lineage.Declaration{Source: "orders", Target: "orders_copy", Relation: lineage.Copy},
		lineage.Declaration{Source: "orders_copy", Target: "revenue", Relation: lineage.Transform,
			Transform: lineage.TransformRef{Kind: lineage.TransformLiteral, Ref: "v1"}},
		lineage.Declaration{Source: "ghost", Target: "revenue", Relation: lineage.Derived})
	v1 := []string{"id,amount,status", "1,10,paid", "2,20,paid", "3,30,open"}
	v2 := []string{"id,amount,status", "1,10,paid", "2,25,paid", "4,40,open"}
	f.scan("orders", v1...)
	f.scan("orders_copy", v1...)
	f.scan("revenue", "day,total", "d1,60")
	f.scan("orders", v2...)
	f.scan("orders_copy", "id,amount,status", "1,10,shipped", "2,25,paid", "4,40,open")
	f.scan("revenue", "day,total", "d1,75")
	f.scan("orders", v2...)
	f.scan("customers", "cid,name", "7,Hiro")
	return f
}

// TestBuild checks the page's content against the pipeline of shop, derived by hand.
func TestBuild(t *testing.T) {
	f := shop(t)
	f.check()
	p := f.mustBuild(Options{Known: map[string]bool{"ghost": true}, GeneratedAtNs: 42})
	var names []string
	for _, a := range p.Artifacts {
		names = append(names, a.Name+":"+string(a.Status))
	}
	// orders' last two scans are equal; the copy's mismatch is an open incident.
	want := "customers:new ghost:unobserved orders:unchanged orders_copy:incident revenue:changed"
	if got := strings.Join(names, " "); got != want {
		t.Errorf("artifacts %s, want %s", got, want)
	}
	if p.Lineage != 1 || p.GeneratedAtNs != 42 {
		t.Errorf("lineage version %d, generated %d", p.Lineage, p.GeneratedAtNs)
	}
	// Edges, by source then target, with the verdicts of their targets' explanations.
	var edges []string
	for _, e := range p.Edges {
		edges = append(edges, e.Source+">"+e.Target+":"+e.Relation+":"+string(e.Verdict))
	}
	if got, want := strings.Join(edges, " "), "ghost>revenue:derived:unobserved orders>orders_copy:copy:copy_mismatch orders_copy>revenue:transform:source_changed"; got != want {
		t.Errorf("edges %s, want %s", got, want)
	}
	// orders_copy: v1 → v2 adds 4, removes 3, changes 1 (status) and 2 (amount).
	oc := p.artifact("orders_copy")
	c := oc.Explanation.Change
	if r := c.Records; r == nil || r.Added != 1 || r.Removed != 1 || r.Changed != 2 || r.Unchanged != 0 {
		t.Errorf("orders_copy records %+v", c.Records)
	}
	if c.Fields["status"] != 1 || c.Fields["amount"] != 1 || len(c.Fields) != 2 {
		t.Errorf("orders_copy fields %v", c.Fields)
	}
	if len(oc.Explanation.RootCauses) == 0 || oc.Explanation.RootCauses[0].Verdict != why.CopyMismatch {
		t.Errorf("orders_copy root causes %+v", oc.Explanation.RootCauses)
	}
	if len(oc.Incidents) != 1 || oc.Incidents[0].Reason != incident.CopyMismatch {
		t.Errorf("orders_copy incidents %+v", oc.Incidents)
	}
	// revenue's strongest root cause is the copy; orders changed between its sides.
	rc := p.artifact("revenue").Explanation.RootCauses
	if len(rc) < 2 || rc[0].Artifact != "orders_copy" || rc[0].Verdict != why.CopyMismatch ||
		rc[len(rc)-1].Artifact != "orders" || rc[len(rc)-1].Verdict != why.SourceChanged {
		t.Errorf("revenue root causes %+v", rc)
	}
	// orders' history: v1; v2 (+1 −1 ~1); v3 equal to v2.
	h := p.artifact("orders").History
	if len(h) != 3 || !h[0].First || h[1].Records == nil || !h[1].Changed || h[2].Changed {
		t.Fatalf("orders history %+v", h)
	}
	if r := h[1].Records; r.Added != 1 || r.Removed != 1 || r.Changed != 1 || r.Unchanged != 1 {
		t.Errorf("orders v1 → v2 %+v", r)
	}
	if h[0].Rows != 3 || h[2].Rows != 3 {
		t.Errorf("orders rows %d, %d", h[0].Rows, h[2].Rows)
	}
	if a := p.artifact("customers"); a.Latest == nil || a.Latest.Rows != 1 || a.Explanation != nil || len(a.History) != 1 {
		t.Errorf("customers %+v", a)
	}
	if a := p.artifact("ghost"); a.Latest != nil || len(a.History) != 0 {
		t.Errorf("ghost %+v", a)
	}
}

// The history strip keeps the last Options.History snapshots.
func TestBuildHistoryLimit(t *testing.T) {
	f := shop(t)
	p := f.mustBuild(Options{Known: map[string]bool{"ghost": true}, History: 2})
	h := p.artifact("orders").History
	if len(h) != 2 || !h[0].First || h[1].Changed {
		t.Errorf("orders history with --history 2: %+v", h)
	}
}

// A lineage naming an artifact that is neither scanned nor known cannot explain its
// target: the target is shown as an error, with why's message; the rest of the page
// stands.
func TestBuildUnknownUpstream(t *testing.T) {
	f := shop(t)
	p := f.mustBuild(Options{})
	a := p.artifact("revenue")
	if a.Status != Failed || !strings.Contains(a.Error, "ghost") || !strings.Contains(a.Error, string(why.CodeLineage)) {
		t.Errorf("revenue %s: %q", a.Status, a.Error)
	}
	if e := p.edge("orders_copy", "revenue"); e.Verdict != "" {
		t.Errorf("an edge into an unexplained artifact has verdict %q", e.Verdict)
	}
	if p.artifact("orders_copy").Status != Changed {
		t.Errorf("orders_copy %s", p.artifact("orders_copy").Status)
	}
}

// ARTIFACT arguments limit the page to those artifacts and their upstream lineage; an
// unknown one is CodeUnknown.
func TestBuildScope(t *testing.T) {
	f := shop(t)
	p := f.mustBuild(Options{Artifacts: []string{"orders_copy"}})
	var names []string
	for _, a := range p.Artifacts {
		names = append(names, a.Name)
	}
	if got := strings.Join(names, " "); got != "orders orders_copy" || len(p.Edges) != 1 {
		t.Errorf("scoped to orders_copy: %s, %d edges", got, len(p.Edges))
	}
	_, err := f.build(Options{Artifacts: []string{"nope"}})
	if !errorsIs(err, CodeUnknown) {
		t.Errorf("unknown artifact: %v", err)
	}
}

func errorsIs(err error, c Code) bool {
	e, ok := err.(*Error)
	return ok && e.Code == c
}

// The history cache: the first page compares every pair and writes a line each; the
// next reads them (a line with a valid sum is used as it is), and ignores a line whose
// sum does not match (compared again).
func TestHistoryCache(t *testing.T) {
	f := shop(t)
	f.mustBuild(Options{Known: map[string]bool{"ghost": true}})
	path := filepath.Join(f.r.Dir(), StepsFile)
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	// Pairs: orders v1→v2, v2→v3; orders_copy v1→v2; revenue v1→v2.
	if n := bytes.Count(data, []byte("\n")); n != 4 {
		t.Fatalf("%d cache lines, want 4:\n%s", n, data)
	}
	h, err := why.Open(f.r)
	if err != nil {
		t.Fatal(err)
	}
	ps := h.Snapshots("orders")
	v1, v2 := h.Entry(ps[0]).Snapshot, h.Entry(ps[1]).Snapshot
	// A line with a valid sum and other counts than the truth (+1 −1 ~1): the page shows
	// what the line says, so it came from the cache.
	c := &stepCache{lines: map[[2]string][]byte{}}
	c.put(v1, v2, stepResult{Changed: true, Note: "from the cache"})
	forged := c.add[0]
	if err := os.WriteFile(path, append(forged, '\n'), 0o644); err != nil {
		t.Fatal(err)
	}
	p := f.mustBuild(Options{Known: map[string]bool{"ghost": true}})
	if s := p.artifact("orders").History[1]; s.Note != "from the cache" || s.Records != nil {
		t.Errorf("the cached step was not used: %+v", s)
	}
	// The same line with a sum that does not match is ignored: the truth again.
	damaged := bytes.Replace(forged, []byte(`from the cache`), []byte(`from the cachX`), 1)
	if err := os.WriteFile(path, append(damaged, '\n'), 0o644); err != nil {
		t.Fatal(err)
	}
	p = f.mustBuild(Options{Known: map[string]bool{"ghost": true}})
	if s := p.artifact("orders").History[1]; s.Note != "" || s.Records == nil || s.Records.Added != 1 {
		t.Errorf("a damaged cache line was used: %+v", s)
	}
	// A torn last line does not swallow the lines appended after it.
	if err := os.WriteFile(path, forged[:40], 0o644); err != nil {
		t.Fatal(err)
	}
	f.mustBuild(Options{Known: map[string]bool{"ghost": true}})
	data, _ = os.ReadFile(path)
	lines := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
	if len(lines) != 5 || lines[0] != string(forged[:40]) {
		t.Errorf("after a torn line: %d lines:\n%s", len(lines), data)
	}
	c2, err := openSteps(f.r)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := c2.get(v1, v2); !ok {
		t.Errorf("the step appended after a torn line is not read back")
	}
}

// A column added between two scans: the last change lists the schema change and has no
// record counts (the fingerprints are not comparable), on the page and in the strip.
func TestBuildSchemaChange(t *testing.T) {
	f := newFixture(t)
	f.scan("t", "id,a", "1,x")
	f.scan("t", "id,a", "1,y")
	f.scan("t", "id,a,b", "1,y,z")
	p := f.mustBuild(Options{})
	a := p.artifact("t")
	c := a.Explanation.Change
	if a.Status != Changed || c.Comparable || c.Records != nil || len(c.Schema) != 1 || c.Schema[0].Kind != "added" || c.Schema[0].Name != "b" {
		t.Fatalf("t: %s %+v", a.Status, c)
	}
	if h := a.History; len(h) != 3 || h[1].Records == nil || h[1].Records.Changed != 1 || !h[2].Changed || h[2].Records != nil ||
		h[2].Note != schemaNote {
		t.Errorf("history %+v", h)
	}
	page := string(render(t, p))
	for _, want := range []string{"schema: added b", schemaNote, "Δ1"} {
		if !strings.Contains(page, want) {
			t.Errorf("the page does not say %q", want)
		}
	}
	// The step compared by Diff (not taken from the explanation) says the same.
	if err := os.Remove(filepath.Join(f.r.Dir(), StepsFile)); err != nil {
		t.Fatal(err)
	}
	h, err := why.Open(f.r)
	if err != nil {
		t.Fatal(err)
	}
	steps, err := history(f.r, h, &stepCache{lines: map[[2]string][]byte{}}, h.Snapshots("t"), nil)
	if err != nil || steps[2].Note != schemaNote || steps[2].Records != nil || !steps[2].Changed {
		t.Errorf("the step compared by Diff: %+v %v", steps, err)
	}
}

// schemaNote is what why says of a change whose schemas differ.
const schemaNote = "the schema changed (columns added, removed or retyped)"

// TestCachesKeepThePage: the page written with no cache (every summary, change and step
// read from the snapshots) and the page written from the caches that run left are the
// same, byte for byte; and each artifact's explanation on a page (one History for all:
// verdicts and changes computed once) is the one its own History gives.
func TestCachesKeepThePage(t *testing.T) {
	f := shop(t)
	f.scan("orders", "id,amount,status", "1,10,paid", "2,26,paid", "4,40,open")
	o := Options{Known: map[string]bool{"ghost": true}, GeneratedAtNs: 1}
	caches := []string{StepsFile, why.IndexFile, why.ChangesFile}
	clear := func() {
		for _, c := range caches {
			os.Remove(filepath.Join(f.r.Dir(), c))
		}
	}
	page := func() (*Page, string) {
		h, err := why.Open(f.r)
		if err != nil {
			t.Fatal(err)
		}
		p, err := Build(context.Background(), f.r, h, lineage.Open(f.r), o)
		if err != nil {
			t.Fatal(err)
		}
		if err := h.Save(); err != nil { // as pipewhy report does
			t.Fatal(err)
		}
		var b bytes.Buffer
		if err := Write(&b, p); err != nil {
			t.Fatal(err)
		}
		return p, b.String()
	}
	clear()
	p, cold := page()
	for _, c := range caches {
		if _, err := os.Stat(filepath.Join(f.r.Dir(), c)); err != nil {
			t.Fatalf("the first page left no %s: %v", c, err)
		}
	}
	if _, warm := page(); warm != cold {
		t.Errorf("the page from the caches differs from the first one")
	}
	explained := 0
	for _, a := range p.Artifacts {
		if a.Explanation == nil {
			continue
		}
		explained++
		clear()
		h, err := why.Open(f.r)
		if err != nil {
			t.Fatal(err)
		}
		e, err := why.Explain(context.Background(), h, lineage.Open(f.r), a.Name, why.Options{Limit: 3, Known: o.Known, NoDetails: true})
		if err != nil {
			t.Fatal(err)
		}
		got, _ := json.Marshal(a.Explanation)
		want, _ := json.Marshal(e)
		if !bytes.Equal(got, want) {
			t.Errorf("%s on the page:\n%s\nalone:\n%s", a.Name, got, want)
		}
	}
	if explained < 3 {
		t.Errorf("%d artifacts explained", explained)
	}
}
