package incident

import (
	"maps"
	"slices"
	"testing"

	"github.com/pipewhy/pipewhy/config"
	"github.com/pipewhy/pipewhy/lineage"
	"github.com/pipewhy/pipewhy/scan"
)

// TestEvidence: Evidence names every snapshot an occurrence was recorded at, with its
// incidents: a copy that mismatches at two scans of cp is one incident seen at both, and
// a row-count problem of raw at its second scan another; the clean first scans are
// nobody's evidence. An empty store has none.
func TestEvidence(t *testing.T) {
	f := newFixture(t)
	if ev, err := OpenStore(f.r).Evidence(); err != nil || len(ev) != 0 {
		t.Fatalf("no incidents: %v %v", ev, err)
	}
	f.declare(lineage.Declaration{Source: "raw", Target: "cp", Relation: lineage.Copy})
	pol := map[string]config.Policy{"raw": {MaxRowCountChange: &config.Threshold{Value: 1}}}
	f.scan("raw", scan.Options{}, "k,v", "1,a", "2,b")
	f.scan("cp", scan.Options{}, "k,v", "1,a", "2,b")
	f.check(pol)
	f.scan("raw", scan.Options{}, "k,v", "1,a", "2,b", "3,c", "4,d")
	f.scan("cp", scan.Options{}, "k,v", "1,a", "2,B", "3,c", "4,d")
	rec1, _, _ := f.check(pol)
	f.scan("cp", scan.Options{}, "k,v", "1,a", "2,B", "3,c", "4,d")
	rec2, _, _ := f.check(pol)
	want := map[string][]uint64{}
	for _, r := range append(rec1, rec2...) {
		if !slices.Contains(want[r.Problem.Snapshot], r.Incident) {
			want[r.Problem.Snapshot] = append(want[r.Problem.Snapshot], r.Incident)
		}
	}
	log, err := f.r.Log()
	if err != nil {
		t.Fatal(err)
	}
	// raw's second scan (log line 3) and cp's second and third (lines 4 and 5).
	if got := slices.Sorted(maps.Keys(want)); !slices.Equal(got, slices.Sorted(slices.Values([]string{log[2].Snapshot, log[3].Snapshot, log[4].Snapshot}))) {
		t.Fatalf("recorded at %v: %v %v", got, reasons(rec1), reasons(rec2))
	}
	ev, err := OpenStore(f.r).Evidence()
	if err != nil {
		t.Fatal(err)
	}
	if !maps.EqualFunc(ev, want, slices.Equal[[]uint64]) {
		t.Fatalf("evidence %v, want %v", ev, want)
	}
	if cp := ev[log[3].Snapshot]; len(cp) != 1 || !slices.Equal(ev[log[4].Snapshot], cp) {
		t.Fatalf("cp's mismatch is not one incident at both scans: %v", ev)
	}
}
