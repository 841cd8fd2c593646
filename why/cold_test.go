package why

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/pipewhy/pipewhy/lineage"
	"github.com/pipewhy/pipewhy/snapshot"
)

// layered scans a small layered pipeline three times: layer 0 of three sources, each
// later layer a TRANSFORM of two artifacts of the layer before and a COPY of one, the
// last round with a corrupted copy, the last layer's transform file changed and one source
// unchanged.
func layered(t *testing.T) (*fixture, []string) {
	f := newFixture(t)
	name := func(l, i int) string { return fmt.Sprintf("n%d_%d", l, i) }
	writeFile(t, filepath.Join(f.project, "t.sql"), "select 1\n")
	writeFile(t, filepath.Join(f.project, "u.sql"), "select 1\n")
	var ds []lineage.Declaration
	for l := 1; l < 4; l++ {
		ds = append(ds, copyEdge(name(l-1, 0), name(l, 0)))
		for i := 1; i < 3; i++ {
			sql := "t.sql"
			if l == 3 {
				sql = "u.sql"
			}
			ds = append(ds, transformEdge(name(l-1, i), name(l, i), sql), transformEdge(name(l-1, (i+1)%3), name(l, i), sql))
		}
	}
	f.declare(ds...)
	var names []string
	for round := range 3 {
		if round == 2 {
			writeFile(t, filepath.Join(f.project, "u.sql"), "select 2\n")
		}
		for l := range 4 {
			for i := range 3 {
				v, w := round, 10*l+i
				switch {
				case l == 0 && i == 2:
					v = 0 // never changes
				case i == 0:
					w = 0 // the copies hold what their source holds...
					if l == 2 && round == 2 {
						w = 999 // ...but this one
					}
				}
				rows := []string{"id,x", fmt.Sprintf("1,%d", v), fmt.Sprintf("2,%d", w)}
				f.scan(name(l, i), "id", snapshot.ResolutionValue, rows...)
				if round == 0 {
					names = append(names, name(l, i))
				}
			}
		}
	}
	return f, names
}

// TestColdEqualsWarm: an explanation computed with no summary index (summaries read from
// the snapshots' summary arrays, in parallel), one from the index that run wrote, and one
// from summaries of fully loaded scans (the straightforward path) are the same, for every
// artifact; and each summary equals the one of the fully loaded scan.
func TestColdEqualsWarm(t *testing.T) {
	f, names := layered(t)
	ctx := context.Background()
	st := lineage.Open(f.r)
	// explainAll explains every artifact with the History open returns (one for all, or
	// a fresh one each), in the JSON and the text form.
	explainAll := func(open func() *History) string {
		var b strings.Builder
		for _, a := range names {
			e, err := Explain(ctx, open(), st, a, Options{Limit: 2})
			if err != nil {
				t.Fatal(err)
			}
			js, _ := json.Marshal(e)
			b.Write(append(js, '\n'))
			if err := WriteText(&b, e); err != nil {
				t.Fatal(err)
			}
		}
		return b.String()
	}
	once := func(h *History) func() *History { return func() *History { return h } }
	os.Remove(filepath.Join(f.r.Dir(), IndexFile))
	os.Remove(filepath.Join(f.r.Dir(), ChangesFile))
	cold, err := Open(f.r)
	if err != nil {
		t.Fatal(err)
	}
	coldOut := explainAll(once(cold))
	if err := cold.Save(); err != nil {
		t.Fatal(err)
	}
	warm, _ := Open(f.r)
	if len(warm.index) != len(cold.sums) || len(cold.sums) < 2*len(names) || len(warm.details) == 0 {
		t.Fatalf("the index holds %d summaries, the cold run read %d; %d counted changes cached",
			len(warm.index), len(cold.sums), len(warm.details))
	}
	warmOut := explainAll(once(warm))
	// The straightforward path: summaries of fully loaded scans, no cache, no memo
	// shared between explanations.
	sums := map[string]*Summary{}
	h, _ := Open(f.r)
	for p, e := range h.log {
		sc, err := h.Scan(p)
		if err != nil {
			t.Fatal(err)
		}
		sums[e.Snapshot] = Summarize(sc)
		if got, err := cold.Summary(p); err != nil || !reflect.DeepEqual(got, sums[e.Snapshot]) {
			t.Fatalf("summary of %s from its summary arrays differs from the full load's (%v)", e.Snapshot, err)
		}
	}
	fullOut := explainAll(func() *History {
		h, _ := Open(f.r)
		h.index, h.details, h.sums = map[string][]byte{}, map[string][]byte{}, maps.Clone(sums)
		return h
	})
	if coldOut != fullOut || warmOut != fullOut {
		t.Fatalf("explanations differ:\ncold %s\nwarm %s\nfull %s", coldOut, warmOut, fullOut)
	}
	for _, v := range []string{`"copy_mismatch"`, `"transform_changed"`, `"source_unchanged"`, `"copy_verified"`} {
		if !strings.Contains(fullOut, v) {
			t.Errorf("no %s verdict in the fixture's explanations", v)
		}
	}
}
