package live

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/pipewhy/pipewhy/scan"
	"github.com/pipewhy/pipewhy/source"
)

// TestSourcesProgress: both sides report their phases on both reads (the second read
// only happens because a record changed), with the files' sizes as byte totals.
func TestSourcesProgress(t *testing.T) {
	dir := t.TempDir()
	var a, b strings.Builder
	a.WriteString("id,n\n")
	b.WriteString("id,n\n")
	for i := range 100 {
		fmt.Fprintf(&a, "%d,%d\n", i, i)
		n := i
		if i == 7 {
			n = -1
		}
		fmt.Fprintf(&b, "%d,%d\n", i, n)
	}
	pa, pb := writeFile(t, dir, "a.csv", a.String()), writeFile(t, dir, "b.csv", b.String())
	sizes := [2]uint64{uint64(a.Len()), uint64(b.Len())}
	var mu sync.Mutex
	phases := map[[2]int][]scan.Phase{} // side, pass → phases in order
	read := map[[2]int]uint64{}         // side, pass → largest bytes read
	c, err := Compare(context.Background(), Input{Address: pa, Source: source.Options{Infer: true}},
		Input{Address: pb, Source: source.Options{Infer: true}},
		Options{Key: []string{"id"}, Progress: func(p Progress) {
			mu.Lock()
			defer mu.Unlock()
			k := [2]int{p.Side, p.Pass}
			if ph := phases[k]; len(ph) == 0 || ph[len(ph)-1] != p.Scan.Phase {
				phases[k] = append(ph, p.Scan.Phase)
			}
			if p.Scan.Phase == scan.PhaseRead {
				if p.Scan.BytesTotal != sizes[p.Side] {
					t.Errorf("side %d: read of %d bytes, want %d", p.Side, p.Scan.BytesTotal, sizes[p.Side])
				}
				read[k] = max(read[k], p.Scan.Bytes)
			}
		}})
	if err != nil {
		t.Fatal(err)
	}
	if c.Report.Records.Changed != 1 {
		t.Fatalf("records %+v", c.Report.Records)
	}
	want := []scan.Phase{scan.PhaseInfer, scan.PhaseRead, scan.PhaseSort, scan.PhaseBuild}
	for side := range 2 {
		for pass := 1; pass <= 2; pass++ {
			k := [2]int{side, pass}
			if !slices.Equal(phases[k], want) || read[k] != sizes[side] {
				t.Errorf("side %d pass %d: phases %v, %d bytes read; want %v and %d", side, pass, phases[k], read[k], want, sizes[side])
			}
		}
	}
}
