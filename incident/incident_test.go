package incident

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/pipewhy/pipewhy/config"
	"github.com/pipewhy/pipewhy/lineage"
	"github.com/pipewhy/pipewhy/normalize"
	"github.com/pipewhy/pipewhy/repo"
	"github.com/pipewhy/pipewhy/scan"
	"github.com/pipewhy/pipewhy/snapshot"
	"github.com/pipewhy/pipewhy/why"
)

// TestGroupKey: the key bytes of docs/contracts/incidents.md, hashed independently with
// Python's hashlib (the vectors in that document).
func TestGroupKey(t *testing.T) {
	if k := GroupKey(CopyMismatch, "orders_copy", []string{"source=orders_raw", "differs=changed", "fields=status"}); k != "58d91993068a972d6736d485e6a464fd1b73637e0236307e2f2c9a4b4b975ff4" {
		t.Fatalf("copy key %s", k)
	}
	if k := GroupKey(RowCountChange, "daily_revenue", []string{"direction=increase"}); k != "719c093296db27e1178680b5f9049f1865556ed7354e6359476645d5062e1d5f" {
		t.Fatalf("row count key %s", k)
	}
	// Length prefixes: moving a byte between items changes the key.
	if GroupKey(FieldChange, "ab", []string{"c"}) == GroupKey(FieldChange, "a", []string{"bc"}) {
		t.Fatal("items are not delimited")
	}
}

type fixture struct {
	t       *testing.T
	r       *repo.Repo
	project string
	n       int
}

func newFixture(t *testing.T) *fixture {
	project := t.TempDir()
	r, err := repo.Init(filepath.Join(project, repo.DirName))
	if err != nil {
		t.Fatal(err)
	}
	return &fixture{t: t, r: r, project: project}
}

func (f *fixture) scan(name string, o scan.Options, rows ...string) {
	f.t.Helper()
	f.n++
	path := filepath.Join(f.project, fmt.Sprintf("%s-%d.csv", name, f.n))
	if err := os.WriteFile(path, []byte(strings.Join(rows, "\n")+"\n"), 0o644); err != nil {
		f.t.Fatal(err)
	}
	o.Address, o.Name, o.Profile = path, name, normalize.StrictV1
	if o.Resolution == "" {
		o.Resolution, o.Key = snapshot.ResolutionValue, []string{"k"}
	}
	if _, err := scan.Run(context.Background(), f.r, o); err != nil {
		f.t.Fatal(err)
	}
}

func (f *fixture) declare(ds ...lineage.Declaration) {
	for i := range ds {
		ds[i].Origin = lineage.Origin{Kind: lineage.OriginCLI}
	}
	if _, _, err := lineage.Open(f.r).Update(context.Background(), func(g *lineage.Graph) (*lineage.Graph, error) { return g.Merge(ds) }); err != nil {
		f.t.Fatal(err)
	}
}

func (f *fixture) check(pol map[string]config.Policy, arts ...string) ([]Recorded, []*Incident, *Evaluation) {
	f.t.Helper()
	h, err := why.Open(f.r)
	if err != nil {
		f.t.Fatal(err)
	}
	if len(arts) == 0 {
		arts = h.Artifacts()
	}
	ev, err := Evaluate(context.Background(), h, lineage.Open(f.r), arts, pol, nil)
	if err != nil {
		f.t.Fatal(err)
	}
	rec, incs, err := OpenStore(f.r).Record(context.Background(), h, ev.Problems)
	if err != nil {
		f.t.Fatal(err)
	}
	return rec, incs, ev
}

func reasons(rec []Recorded) []string {
	var out []string
	for _, r := range rec {
		out = append(out, r.Problem.Artifact+":"+r.Problem.Reason+":"+r.State)
	}
	slices.Sort(out)
	return out
}

// TestCheckReasons: each reason of pipewhy.policy/v1 on real scans, recurrence grouping
// (the same problem again is the same incident; a different one a new incident; the
// same snapshot checked twice counts once), resolution and reopening.
func TestCheckReasons(t *testing.T) {
	f := newFixture(t)
	writeSQL := func(s string) {
		if err := os.WriteFile(filepath.Join(f.project, "m.sql"), []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	writeSQL("select 1\n")
	f.declare(lineage.Declaration{Source: "raw", Target: "cp", Relation: lineage.Copy},
		lineage.Declaration{Source: "cp", Target: "agg", Relation: lineage.Transform, Transform: lineage.TransformRef{Kind: lineage.TransformFile, Ref: "m.sql"}})
	pol := map[string]config.Policy{
		"raw": {MaxRowCountChange: &config.Threshold{Value: 1}},
		"agg": {MaxFieldChanges: map[string]config.Threshold{"v": {Value: 0}}},
	}
	f.scan("raw", scan.Options{}, "k,v", "1,a", "2,b")
	f.scan("cp", scan.Options{}, "k,v", "1,a", "2,b")
	f.scan("agg", scan.Options{}, "k,v", "1,x")
	rec, _, _ := f.check(pol)
	if len(rec) != 0 {
		t.Fatalf("a clean first check: %v", reasons(rec))
	}
	// Round 2: raw grows by 3 (limit 1), cp corrupts record 2, agg changes with unchanged input.
	f.scan("raw", scan.Options{}, "k,v", "1,a", "2,b", "3,c", "4,d", "5,e")
	f.scan("cp", scan.Options{}, "k,v", "1,a", "2,B", "3,c", "4,d", "5,e")
	f.scan("cp", scan.Options{}, "k,v", "1,a", "2,B", "3,c", "4,d", "5,e")
	f.scan("agg", scan.Options{}, "k,v", "1,y")
	f.scan("agg", scan.Options{}, "k,v", "1,z")
	rec, incs, _ := f.check(pol)
	want := []string{"agg:field_change:new", "agg:unexplained_change:new", "cp:copy_mismatch:new", "raw:row_count_change:new"}
	if got := reasons(rec); !slices.Equal(got, want) {
		t.Fatalf("round 2: %v", got)
	}
	for _, r := range rec {
		if r.Problem.Reason == CopyMismatch && !slices.Equal(r.Problem.Signature, []string{"source=raw", "differs=changed", "fields=v"}) {
			t.Fatalf("copy signature %v", r.Problem.Signature)
		}
	}
	if len(incs) != 4 {
		t.Fatalf("%d incidents", len(incs))
	}
	// The same snapshots checked again: nothing new, nothing written.
	rec, incs, _ = f.check(pol)
	if got := reasons(rec); !slices.Equal(got, []string{"agg:field_change:known", "agg:unexplained_change:known", "cp:copy_mismatch:known", "raw:row_count_change:known"}) {
		t.Fatalf("rerun: %v", got)
	}
	for _, in := range incs {
		if in.Count != 1 || in.Status != Open {
			t.Fatalf("rerun counted again: %+v", in)
		}
	}
	// The copy corrupted the same way at a new snapshot: the same incident, count 2.
	f.scan("cp", scan.Options{}, "k,v", "1,a", "2,B", "3,c", "4,d", "5,e")
	rec, incs, _ = f.check(pol, "cp")
	if len(rec) != 1 || rec[0].State != "again" {
		t.Fatalf("again: %+v", rec)
	}
	cp := incs[slices.IndexFunc(incs, func(i *Incident) bool { return i.Artifact == "cp" })]
	if cp.Count != 2 || cp.FirstSeen == cp.LastSeen {
		t.Fatalf("cp incident %+v", cp)
	}
	// Resolved, then a different corruption (another record kind): a new incident; the
	// same corruption again later reopens the old one.
	if err := OpenStore(f.r).Resolve(context.Background(), cp.ID, "restored from backup"); err != nil {
		t.Fatal(err)
	}
	if err := OpenStore(f.r).Resolve(context.Background(), cp.ID, ""); CodeOf(err) != CodeResolved {
		t.Fatalf("resolve twice: %v", err)
	}
	if err := OpenStore(f.r).Resolve(context.Background(), 99, ""); CodeOf(err) != CodeNotFound {
		t.Fatalf("resolve unknown: %v", err)
	}
	f.scan("cp", scan.Options{}, "k,v", "1,a", "2,b", "3,c", "4,d")
	rec, _, _ = f.check(pol, "cp")
	if len(rec) != 1 || rec[0].State != "new" || !slices.Equal(rec[0].Problem.Signature, []string{"source=raw", "differs=missing", "fields="}) {
		t.Fatalf("different problem: %+v", rec)
	}
	f.scan("cp", scan.Options{}, "k,v", "1,a", "2,B", "3,c", "4,d", "5,e")
	rec, incs, _ = f.check(pol, "cp")
	if len(rec) != 1 || rec[0].State != "reopened" || rec[0].Incident != cp.ID {
		t.Fatalf("reopened: %+v", rec)
	}
	cp = incs[slices.IndexFunc(incs, func(i *Incident) bool { return i.ID == cp.ID })]
	if cp.Status != Open || cp.Reopened != 1 || cp.Count != 3 || cp.Note != "restored from backup" {
		t.Fatalf("reopened incident %+v", cp)
	}
	// The transform changed: not an unexplained change (the edge explains it).
	writeSQL("select 2\n")
	f.scan("agg", scan.Options{}, "k,v", "1,w")
	rec, _, _ = f.check(map[string]config.Policy{}, "agg")
	if len(rec) != 0 {
		t.Fatalf("transform change: %v", reasons(rec))
	}
}

func TestCheckSchemaAndCoverage(t *testing.T) {
	f := newFixture(t)
	f.scan("s", scan.Options{}, "k,v", "1,a")
	f.scan("s", scan.Options{}, "k,v,w", "1,a,b")
	rec, _, _ := f.check(nil)
	if got := reasons(rec); !slices.Equal(got, []string{"s:schema_change:new"}) || !slices.Equal(rec[0].Problem.Signature, []string{"changes=added:w"}) {
		t.Fatalf("schema: %v %v", got, rec)
	}
	// Ignored by the policy: not reported.
	f.scan("s", scan.Options{}, "k,v", "1,a")
	rec, _, _ = f.check(map[string]config.Policy{"s": {Ignore: []string{SchemaChange}}})
	if len(rec) != 0 {
		t.Fatalf("ignored: %v", reasons(rec))
	}
	// Partial coverage: a CSV with a malformed row, scanned with AllowPartial.
	path := filepath.Join(f.project, "p.csv")
	if err := os.WriteFile(path, []byte("k,v\n1,a\n2,b,extra\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := scan.Run(context.Background(), f.r, scan.Options{Address: path, Name: "p", AllowPartial: true}); err != nil {
		t.Fatal(err)
	}
	rec, _, _ = f.check(nil, "p")
	if got := reasons(rec); !slices.Equal(got, []string{"p:partial_coverage:new"}) || rec[0].Problem.Signature[0] != "status=PARTIAL" {
		t.Fatalf("partial: %v", got)
	}
	// Bad policies.
	h, _ := why.Open(f.r)
	if _, err := Evaluate(context.Background(), h, lineage.Open(f.r), []string{"s"}, map[string]config.Policy{"s": {Ignore: []string{"nope"}}}, nil); CodeOf(err) != CodePolicy {
		t.Fatalf("unknown reason: %v", err)
	}
	if _, err := Evaluate(context.Background(), h, lineage.Open(f.r), []string{"s"}, map[string]config.Policy{"s": {MaxFieldChanges: map[string]config.Threshold{"zz": {}}}}, nil); CodeOf(err) != CodePolicy {
		t.Fatalf("unknown column: %v", err)
	}
	if _, err := Evaluate(context.Background(), h, lineage.Open(f.r), []string{"nope"}, nil, nil); CodeOf(err) != CodeUnknown {
		t.Fatalf("unknown artifact: %v", err)
	}
}

func TestExceeds(t *testing.T) {
	for _, c := range []struct {
		v    float64
		t    config.Threshold
		base uint64
		want bool
	}{
		{5, config.Threshold{Value: 5}, 100, false},
		{6, config.Threshold{Value: 5}, 100, true},
		{2, config.Threshold{Value: 2, Percent: true}, 100, false},
		{3, config.Threshold{Value: 2.5, Percent: true}, 100, true},
		{1, config.Threshold{Value: 0, Percent: true}, 0, true},
		{0, config.Threshold{Value: 0}, 0, false},
	} {
		if got := exceeds(c.v, c.t, c.base); got != c.want {
			t.Errorf("exceeds(%v, %+v, %d) = %v", c.v, c.t, c.base, got)
		}
	}
}

func CodeOf(err error) Code {
	if e, ok := err.(*Error); ok {
		return e.Code
	}
	return ""
}

// TestDecodeEventRejects: an event whose arrays pass C5's checksums but disagree with
// the incident rules is refused.
func TestDecodeEventRejects(t *testing.T) {
	f := newFixture(t)
	f.scan("s", scan.Options{}, "k,v", "1,a")
	f.scan("s", scan.Options{}, "k,v,w", "1,a,b")
	f.check(nil)
	st, err := snapshot.Open(filepath.Join(f.r.Dir(), StoreDir), snapshot.Options{})
	if err != nil {
		t.Fatal(err)
	}
	metas, err := st.List()
	if err != nil || len(metas) != 1 {
		t.Fatalf("%d events, %v", len(metas), err)
	}
	load := func() *snapshot.Snapshot {
		s, err := st.Open(metas[0].ID)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	if _, err := decodeEvent(load()); err != nil {
		t.Fatalf("valid event: %v", err)
	}
	for _, c := range []struct {
		name string
		edit func(s *snapshot.Snapshot)
		msg  string
	}{
		{"reason", func(s *snapshot.Snapshot) {
			r, _ := s.Arrays["incident_reason_id"].Uint8s()
			r[0] = ReasonIDs[FieldChange]
			s.Arrays["incident_reason_id"] = snapshot.FromUint8(r)
		}, "disagrees with its evidence"},
		{"incident id", func(s *snapshot.Snapshot) {
			r, _ := s.Arrays["incident_incident_id"].Uint64s()
			r[0] = 7
			s.Arrays["incident_incident_id"] = snapshot.FromUint64(r)
		}, "disagrees with its evidence"},
		{"event state", func(s *snapshot.Snapshot) {
			w, _ := s.Arrays["observation_fingerprint_words"].Uint64s()
			w[len(w)-1]++
			s.Arrays["observation_fingerprint_words"] = snapshot.FromUint64(w)
		}, "not the state of the event's rows"},
		{"dangling observation", func(s *snapshot.Snapshot) {
			r, _ := s.Arrays["incident_observation_id"].Uint64s()
			r[0] = 42
			s.Arrays["incident_observation_id"] = snapshot.FromUint64(r)
		}, "incident"},
		{"unknown field", func(s *snapshot.Snapshot) {
			js, _ := s.Arrays[KeyEvent].Uint8s()
			s.Arrays[KeyEvent] = snapshot.FromUint8(append(js[:len(js)-1], []byte(`,"x":1}`)...))
		}, "malformed descriptor"},
	} {
		s := load()
		c.edit(s)
		if _, err := decodeEvent(s); err == nil || !strings.Contains(err.Error(), c.msg) {
			t.Errorf("%s: %v, want %q", c.name, err, c.msg)
		}
	}
}
