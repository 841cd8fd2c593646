package live

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/pipewhy/pipewhy/compare"
	"github.com/pipewhy/pipewhy/scan"
	"github.com/pipewhy/pipewhy/snapshot/vfs"
)

// randomPair writes two CSV files of random records keyed by id: B is A with records
// removed, added and changed (any field but the key), in another order.
func randomPair(t *testing.T, rng *rand.Rand, dir string) (a, b string) {
	t.Helper()
	word := func() string {
		const letters = "abcxyz é,\"Ω0123"
		n := rng.IntN(8)
		var sb strings.Builder
		for range n {
			sb.WriteRune([]rune(letters)[rng.IntN(len([]rune(letters)))])
		}
		return sb.String()
	}
	quote := func(s string) string { return `"` + strings.ReplaceAll(s, `"`, `""`) + `"` }
	type rec struct {
		id     int
		name   string
		qty    int
		city   string
		amount string
	}
	// Thousands of records: a side is cut into runs at tile boundaries, and the first
	// tile of each encoder has 1,024 records (scan's firstTileRows).
	n := rng.IntN(6000)
	if rng.IntN(5) == 0 {
		n = rng.IntN(50)
	}
	var as []rec
	for i := range n {
		as = append(as, rec{id: i*3 + rng.IntN(3), name: word(), qty: rng.IntN(1000) - 500, city: word(),
			amount: fmt.Sprintf("%d.%02d", rng.IntN(10000), rng.IntN(100))})
	}
	var bs []rec
	pChange, pRemove := rng.Float64()*0.6, rng.Float64()*0.2
	if rng.IntN(3) == 0 { // a few changes: their keys fit the budget
		pChange, pRemove = 0.002, 0.001
	}
	for _, r := range as {
		switch x := rng.Float64(); {
		case x < pRemove:
			continue
		case x < pRemove+pChange:
			switch rng.IntN(4) {
			case 0:
				r.name = word()
			case 1:
				r.qty++
			case 2:
				r.city = word()
			default:
				r.amount = "0.5"
			}
		}
		bs = append(bs, r)
	}
	for i := range rng.IntN(40) {
		bs = append(bs, rec{id: 3*n + i, name: word(), qty: i, city: word(), amount: "1.00"})
	}
	if len(bs) > 0 && rng.IntN(8) == 0 { // duplicated keys: an error, the same either way
		for range 1 + rng.IntN(12) {
			r := bs[rng.IntN(len(bs))]
			r.name = "dup"
			bs = append(bs, r)
		}
	}
	rng.Shuffle(len(bs), func(i, j int) { bs[i], bs[j] = bs[j], bs[i] })
	write := func(name string, rs []rec) string {
		var sb strings.Builder
		sb.WriteString("id,name,qty,city,amount\n")
		for _, r := range rs {
			fmt.Fprintf(&sb, "%d,%s,%d,%s,%s\n", r.id, quote(r.name), r.qty, quote(r.city), r.amount)
		}
		return writeFile(t, dir, name, sb.String())
	}
	return write("a.csv", as), write("b.csv", bs)
}

// masked is c's report without what differs between two comparisons of the same
// sources: the observations' ids and times.
func masked(c *Comparison) *Comparison {
	m := *c
	r := *c.Report
	r.A.Snapshot, r.B.Snapshot, r.A.FinishedAtNs, r.B.FinishedAtNs = "", "", 0, 0
	m.Report, m.A, m.B, m.Runs = &r, nil, nil, [2][2]int{}
	return &m
}

// TestSpilledMatchesMemory: on random sources and budgets so small that each side is
// cut into many runs, the spilled comparison gives the comparison in memory exactly
// (counts, fields, examples with their values, notes, types), and leaves nothing in
// its spill directory. Both second reads of a spilled comparison are met: the one
// that selects the changed records (their keys fit the budget) and the one that
// spills at value resolution.
func TestSpilledMatchesMemory(t *testing.T) {
	seeds := 40
	if testing.Short() {
		seeds = 10
	}
	var selected, spilledAgain, dups int
	for seed := range seeds {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			rng := rand.New(rand.NewPCG(uint64(seed), 19))
			dir := t.TempDir()
			a, b := randomPair(t, rng, dir)
			o := Options{Key: []string{"id"}, Limit: rng.IntN(12) - 1, Workers: 1 + rng.IntN(3)}
			if rng.IntN(2) == 0 {
				o.Map = nil
				o.Exclude = []string{"city"}
			}
			inA, inB := Input{Address: a}, Input{Address: b}
			if rng.IntN(2) == 0 {
				inA.Source.Infer, inB.Source.Infer = true, true
			}
			mem := o
			mem.Memory = -1
			want, errMem := Compare(context.Background(), inA, inB, mem)
			sp := o
			sp.Memory = []int64{1 << 10, 16 << 10, 256 << 10}[rng.IntN(3)]
			sp.SpillDir = filepath.Join(dir, "spill")
			if err := os.Mkdir(sp.SpillDir, 0o755); err != nil {
				t.Fatal(err)
			}
			got, errSp := Compare(context.Background(), inA, inB, sp)
			if (errMem == nil) != (errSp == nil) || errMem != nil && errMem.Error() != errSp.Error() {
				t.Fatalf("in memory: %v; spilled: %v", errMem, errSp)
			}
			if errMem != nil {
				if !errors.Is(errMem, &scan.Error{Code: scan.CodeDuplicateKey}) {
					t.Fatalf("compare: %v", errMem)
				}
				dups++
				return
			}
			if want.Runs != ([2][2]int{}) {
				t.Fatalf("in memory: runs %v", want.Runs)
			}
			if rows := want.Report.A.Rows; rows > 1100 && got.Runs[0][0] < 2 {
				t.Errorf("%d rows under %d bytes: runs %v, want spilled runs", rows, sp.Memory, got.Runs)
			}
			if got.Runs[1] != ([2]int{}) {
				spilledAgain++
			} else if got.Runs[0] != ([2]int{}) && want.Report.Records != nil && want.Report.Records.Changed > 0 {
				selected++
			}
			if !reflect.DeepEqual(masked(got), masked(want)) {
				t.Errorf("spilled (runs %v) differs from in memory:\n got %+v\nwant %+v", got.Runs, *masked(got).Report, *masked(want).Report)
			}
			if left, _ := os.ReadDir(sp.SpillDir); len(left) != 0 {
				t.Errorf("spill directory holds %v after the comparison", left)
			}
		})
	}
	if selected == 0 || spilledAgain == 0 || dups == 0 {
		t.Errorf("second reads met: %d selecting, %d spilled; duplicated keys %d; want each", selected, spilledAgain, dups)
	}
}

// scratchPair writes two sources whose comparison spills under a 1 KiB budget and
// changes one record.
func scratchPair(t *testing.T) (dir, a, b string) {
	dir = t.TempDir()
	var sa, sb strings.Builder
	sa.WriteString("id,name\n")
	sb.WriteString("id,name\n")
	for i := range 5000 {
		fmt.Fprintf(&sa, "%d,n%d\n", i, i)
		if i == 4321 {
			fmt.Fprintf(&sb, "%d,changed\n", i)
		} else {
			fmt.Fprintf(&sb, "%d,n%d\n", i, i)
		}
	}
	return dir, writeFile(t, dir, "a.csv", sa.String()), writeFile(t, dir, "b.csv", sb.String())
}

// TestScratchDirectory: a spilling comparison makes one private (0700) directory in
// SpillDir, which holds its scratch snapshots while it runs and is gone when Compare
// returns.
func TestScratchDirectory(t *testing.T) {
	dir, a, b := scratchPair(t)
	spill := filepath.Join(dir, "spill")
	if err := os.Mkdir(spill, 0o755); err != nil {
		t.Fatal(err)
	}
	var during []os.DirEntry
	var mode os.FileMode
	beforeFetch = func() {
		during, _ = os.ReadDir(spill)
		if len(during) == 1 {
			if fi, err := os.Stat(filepath.Join(spill, during[0].Name())); err == nil {
				mode = fi.Mode().Perm()
			}
		}
	}
	defer func() { beforeFetch = nil }()
	c, err := Compare(context.Background(), Input{Address: a}, Input{Address: b}, Options{Key: []string{"id"}, Limit: 5, Memory: 1 << 10, SpillDir: spill})
	if err != nil {
		t.Fatal(err)
	}
	if c.Runs[0][0] < 2 || c.Report.Records.Changed != 1 {
		t.Fatalf("runs %v, records %+v: want a spilled comparison with 1 changed record", c.Runs, c.Report.Records)
	}
	if len(during) != 1 || !strings.HasPrefix(during[0].Name(), "pipewhy-compare-") || mode != 0o700 {
		t.Errorf("during the comparison the spill directory held %v (mode %v), want one pipewhy-compare-* directory, 0700", during, mode)
	}
	if left, _ := os.ReadDir(spill); len(left) != 0 {
		t.Errorf("after the comparison the spill directory holds %v", left)
	}
}

// TestSpillFailures: a fault writing the scratch store (a full disk) and a
// cancellation in the middle of the read each end the comparison with a stable code,
// and leave nothing in the spill directory.
func TestSpillFailures(t *testing.T) {
	dir, a, b := scratchPair(t)
	enospc := errors.New("no space left on device (injected)")
	for _, kind := range []vfs.OpKind{vfs.OpCreate, vfs.OpWrite, vfs.OpMkdir, vfs.OpRename} {
		t.Run(string(kind), func(t *testing.T) {
			spill := t.TempDir()
			var failed atomic.Bool
			spillFS = vfs.Inject(vfs.Default, func(op vfs.Op) error {
				if op.Kind == kind && !failed.Swap(true) {
					return enospc
				}
				return nil
			})
			defer func() { spillFS = nil }()
			_, err := Compare(context.Background(), Input{Address: a}, Input{Address: b}, Options{Key: []string{"id"}, Memory: 1 << 10, SpillDir: spill})
			if !failed.Load() {
				t.Fatalf("no %s on the scratch store", kind)
			}
			if !errors.Is(err, &compare.Error{Code: compare.CodeSpill}) || !errors.Is(err, enospc) {
				t.Fatalf("error %v, want %s wrapping the injected fault", err, compare.CodeSpill)
			}
			if left, _ := os.ReadDir(spill); len(left) != 0 {
				t.Errorf("spill directory holds %v after the failure", left)
			}
		})
	}
	t.Run("cancelled", func(t *testing.T) {
		spill := t.TempDir()
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		var reads atomic.Int64
		o := Options{Key: []string{"id"}, Memory: 1 << 10, SpillDir: spill, Progress: func(p Progress) {
			// Cancel once side B has spilled some runs' worth of rows.
			if p.Scan.Phase == scan.PhaseRead && p.Scan.Rows > 0 && reads.Add(1) == 1 {
				cancel()
			}
		}}
		_, err := Compare(ctx, Input{Address: a}, Input{Address: b}, o)
		if !errors.Is(err, context.Canceled) || !errors.Is(err, &compare.Error{Code: compare.CodeSource}) {
			t.Fatalf("error %v, want %s wrapping context.Canceled", err, compare.CodeSource)
		}
		if left, _ := os.ReadDir(spill); len(left) != 0 {
			t.Errorf("spill directory holds %v after the cancellation", left)
		}
	})
	t.Run("unwritable spill directory", func(t *testing.T) {
		// A file, not a directory: the scratch directory cannot be made in it. A
		// comparison that spills fails; one whose entries fit never needs it.
		notDir := filepath.Join(dir, "a.csv")
		_, err := Compare(context.Background(), Input{Address: a}, Input{Address: b}, Options{Key: []string{"id"}, Memory: 1 << 10, SpillDir: notDir})
		if !errors.Is(err, &compare.Error{Code: compare.CodeSpill}) {
			t.Fatalf("error %v, want %s", err, compare.CodeSpill)
		}
		c, err := Compare(context.Background(), Input{Address: a}, Input{Address: b}, Options{Key: []string{"id"}, SpillDir: notDir})
		if err != nil || c.Runs != [2][2]int{} {
			t.Fatalf("fitting the default budget: runs %v, error %v; want no spill and no error", c.Runs, err)
		}
	})
}
