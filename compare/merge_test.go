package compare

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
)

// e builds a record entry [key_lo, key_hi, record_lo, record_hi].
func e(k, r uint64) []uint64 { return []uint64{k, 0, r, 0} }

func cat(es ...[]uint64) []uint64 {
	out := []uint64{}
	for _, x := range es {
		out = append(out, x...)
	}
	return out
}

type visitLog []string

func (l *visitLog) visit(k Kind, ia, ib int) { *l = append(*l, fmt.Sprintf("%s %d %d", k, ia, ib)) }

func TestMergeHandBuilt(t *testing.T) {
	cases := []struct {
		name   string
		a, b   []uint64
		want   Counts
		visits []string
	}{
		{"both empty", nil, nil, Counts{}, nil},
		{"all added", nil, cat(e(1, 10), e(2, 20)), Counts{Added: 2}, []string{"added -1 0", "added -1 1"}},
		{"all removed", cat(e(1, 10)), nil, Counts{Removed: 1}, []string{"removed 0 -1"}},
		{"equal", cat(e(1, 10), e(2, 20)), cat(e(1, 10), e(2, 20)), Counts{Unchanged: 2}, nil},
		{"mixed",
			cat(e(1, 10), e(2, 20), e(4, 40), e(6, 60)),
			cat(e(2, 20), e(3, 30), e(4, 41), e(7, 70)),
			Counts{Added: 2, Removed: 2, Changed: 1, Unchanged: 1},
			[]string{"removed 0 -1", "added -1 1", "changed 2 2", "removed 3 -1", "added -1 3"}},
		{"key hi word decides",
			[]uint64{5, 1, 9, 9},
			[]uint64{5, 2, 9, 9},
			Counts{Added: 1, Removed: 1},
			[]string{"removed 0 -1", "added -1 0"}},
		{"record hi word decides change",
			[]uint64{5, 1, 9, 1},
			[]uint64{5, 1, 9, 2},
			Counts{Changed: 1},
			[]string{"changed 0 0"}},
		{"duplicate keys pair by record",
			cat(e(1, 10), e(1, 11), e(2, 20)),
			cat(e(1, 11), e(1, 12), e(1, 13), e(2, 20)),
			Counts{Added: 2, Removed: 1, Unchanged: 2, DuplicateKeys: 1},
			[]string{"removed 0 -1", "added -1 1", "added -1 2"}},
		{"duplicate key on one side only",
			cat(e(1, 10)),
			cat(e(1, 10), e(1, 10)),
			Counts{Added: 1, Unchanged: 1, DuplicateKeys: 1},
			[]string{"added -1 1"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var l visitLog
			got, err := Merge(c.a, c.b, l.visit)
			if err != nil {
				t.Fatal(err)
			}
			if got != c.want {
				t.Errorf("counts = %+v, want %+v", got, c.want)
			}
			if !slices.Equal(l, visitLog(c.visits)) {
				t.Errorf("visits = %q, want %q", l, c.visits)
			}
			// Swapping the sides swaps added and removed.
			back, _ := Merge(c.b, c.a, nil)
			if back.Added != c.want.Removed || back.Removed != c.want.Added || back.Changed != c.want.Changed || back.Unchanged != c.want.Unchanged {
				t.Errorf("reverse = %+v", back)
			}
		})
	}
}

func TestMergeRejectsMalformed(t *testing.T) {
	for _, c := range []struct {
		name string
		a, b []uint64
	}{
		{"short entry", []uint64{1, 2, 3}, nil},
		{"unsorted a", cat(e(2, 1), e(1, 1)), nil},
		{"unsorted b", nil, cat(e(1, 2), e(1, 1))},
		{"unsorted inside the pass", cat(e(1, 1), e(3, 1), e(2, 1)), cat(e(1, 1), e(5, 1))},
		{"unsorted inside a key group", cat(e(1, 2), e(1, 1)), cat(e(1, 1), e(1, 2))},
		{"unsorted b tail", cat(e(1, 1)), cat(e(2, 1), e(4, 1), e(3, 1))},
	} {
		if _, err := Merge(c.a, c.b, nil); err == nil || err.(*Error).Code != CodeRecords {
			t.Errorf("%s: err = %v", c.name, err)
		}
	}
}

// TestMergeMatchesMapDiff: on random sorted arrays with unique keys, the merge pass
// counts what a map-based diff counts.
func TestMergeMatchesMapDiff(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for round := 0; round < 200; round++ {
		a, b := map[uint64]uint64{}, map[uint64]uint64{}
		for i := 0; i < rng.IntN(50); i++ {
			k := rng.Uint64N(80)
			a[k] = rng.Uint64N(3)
			if rng.IntN(4) > 0 {
				b[k] = a[k]
				if rng.IntN(5) == 0 {
					b[k] = a[k] + 1
				}
			}
		}
		for i := 0; i < rng.IntN(20); i++ {
			b[rng.Uint64N(80)] = rng.Uint64N(3)
		}
		var want Counts
		for k, r := range a {
			if rb, ok := b[k]; !ok {
				want.Removed++
			} else if rb == r {
				want.Unchanged++
			} else {
				want.Changed++
			}
		}
		for k := range b {
			if _, ok := a[k]; !ok {
				want.Added++
			}
		}
		got, err := Merge(sortedEntries(a), sortedEntries(b), nil)
		if err != nil || got != want {
			t.Fatalf("round %d: got %+v, %v; want %+v", round, got, err, want)
		}
	}
}

func sortedEntries(m map[uint64]uint64) []uint64 {
	keys := make([]uint64, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	out := []uint64{}
	for _, k := range keys {
		out = append(out, e(k, m[k])...)
	}
	return out
}

// BenchmarkMerge10M: one merge pass over two 10-million-record sorted arrays that
// differ by ~0.1% added, removed and changed records (generated at run time).
func BenchmarkMerge10M(b *testing.B) {
	n := 10_000_000
	if testing.Short() {
		n = 100_000
	}
	rng := rand.New(rand.NewPCG(3, 4))
	x := make([]uint64, 0, 4*n)
	y := make([]uint64, 0, 4*n)
	for i := 0; i < n; i++ {
		k := uint64(i) * 1000
		r := rng.Uint64()
		x = append(x, k, rng.Uint64(), r, ^r)
		hi := x[len(x)-3]
		switch rng.IntN(1000) {
		case 0: // removed
		case 1: // changed
			y = append(y, k, hi, r+1, ^r)
		case 2: // added beside
			y = append(y, k, hi, r, ^r, k+1, 0, 1, 1)
		default:
			y = append(y, k, hi, r, ^r)
		}
	}
	b.ResetTimer()
	var c Counts
	for b.Loop() {
		var err error
		if c, err = Merge(x, y, nil); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(2*n)*float64(b.N)/b.Elapsed().Seconds(), "records/s")
	if c.Unchanged == 0 {
		b.Fatal("nothing matched")
	}
}

// FuzzMerge: any word arrays either fail with CodeRecords or give counts that account
// for every entry exactly once on each side.
func FuzzMerge(f *testing.F) {
	f.Add([]byte{1, 2, 3, 4, 5, 6, 7, 8}, []byte{1, 2, 3, 4})
	f.Add([]byte{}, []byte{9, 9, 9, 9, 9, 9, 9, 9})
	f.Add([]byte{1, 0, 1, 0, 1, 0, 2, 0}, []byte{1, 0, 1, 0, 1, 0, 1, 0})
	f.Fuzz(func(t *testing.T, x, y []byte) {
		if len(x)+len(y) > 1<<16 { // bounds each run, and so each minimization
			t.Skip("input over 64 KiB")
		}
		// Small word values make equal keys and records likely.
		words := func(b []byte) []uint64 {
			w := make([]uint64, len(b))
			for i, v := range b {
				w[i] = uint64(v % 4)
			}
			return w
		}
		a, b := words(x), words(y)
		c, err := Merge(a, b, nil)
		if err != nil {
			if e, ok := err.(*Error); !ok || e.Code != CodeRecords {
				t.Fatalf("error %v", err)
			}
			return
		}
		na, nb := uint64(len(a)/4), uint64(len(b)/4)
		if c.Removed+c.Changed+c.Unchanged != na || c.Added+c.Changed+c.Unchanged != nb {
			t.Fatalf("counts %+v do not account for %d and %d entries", c, na, nb)
		}
	})
}
