package scan

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/pipewhy/pipewhy/fingerprint"
	"github.com/pipewhy/pipewhy/repo"
	"github.com/pipewhy/pipewhy/snapshot"
	"github.com/pipewhy/pipewhy/snapshot/vfs"
	"github.com/pipewhy/pipewhy/source"
)

// randomCSV writes a CSV of n random rows: id (unique unless dupIDs), a name that is
// empty (null, with Source.Null "") one time in eight, a small number, and a note.
func randomCSV(t *testing.T, rng *rand.Rand, n int, dupIDs bool) string {
	t.Helper()
	var b strings.Builder
	b.WriteString("id,name,v,note\n")
	for i := range n {
		id := i
		if dupIDs {
			id = rng.IntN(max(n/3, 1))
		}
		name := fmt.Sprintf("n%d", rng.IntN(50))
		if rng.IntN(8) == 0 {
			name = ""
		}
		note := strings.Repeat("x", rng.IntN(30))
		fmt.Fprintf(&b, "%d,%s,%d,%s\n", id, name, rng.IntN(7), note)
	}
	p := filepath.Join(t.TempDir(), "t.csv")
	if err := os.WriteFile(p, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// publishedArrays runs the scan into a fresh repository and returns its published
// arrays and the result.
func publishedArrays(t *testing.T, o Options) (map[string]snapshot.Array, *Result, *repo.Repo, error) {
	t.Helper()
	r, err := repo.Init(filepath.Join(t.TempDir(), "r"))
	if err != nil {
		t.Fatal(err)
	}
	res, err := Run(context.Background(), r, o)
	if err != nil {
		return nil, nil, r, err
	}
	snap, err := r.Store().Open(res.ID)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.Load(res.ID); err != nil {
		t.Fatalf("the published scan does not load: %v", err)
	}
	return snap.Arrays, res, r, nil
}

// TestSpillMatchesMemory is the property test of the out-of-core scan: on random CSV
// files, keys and resolutions, a scan with a tiny memory budget (many spilled runs,
// tiles of a few rows) publishes exactly the arrays, byte for byte, of the scan sorted
// in memory: records, key words and offsets, value digests and the whole value table.
// Only the observation time differs between two scans. Duplicate keys fail both ways
// with the same counts and examples.
func TestSpillMatchesMemory(t *testing.T) {
	tinyTiles(t)
	seeds := 28
	if testing.Short() {
		seeds = 10
	}
	for seed := range uint64(seeds) {
		rng := rand.New(rand.NewPCG(seed, 7))
		n := rng.IntN(1000)
		// Every resolution meets every key choice; one seed in seven has duplicate ids.
		dup := seed%7 == 6
		path := randomCSV(t, rng, n, dup)
		res := []snapshot.Resolution{snapshot.ResolutionRecord, snapshot.ResolutionValue}[seed%2]
		keys := [][]string{nil, {"id"}, {"name", "id"}}[seed%3]
		null := ""
		base := Options{Address: path, Resolution: res, Key: keys, Workers: 1 + rng.IntN(3)}
		base.Source.Null = &null
		mem := base
		mem.Memory = -1
		spill := base
		spill.Memory = []int64{1, 3000, 40000}[rng.IntN(3)]
		t.Run(fmt.Sprintf("seed%d-%s-%d-rows-key%v-mem%d", seed, res, n, keys, spill.Memory), func(t *testing.T) {
			want, wres, _, werr := publishedArrays(t, mem)
			got, gres, r, gerr := publishedArrays(t, spill)
			if werr != nil || gerr != nil {
				var wd, gd *DuplicateKeyError
				if !errors.As(werr, &wd) || !errors.As(gerr, &gd) {
					t.Fatalf("errors: in memory %v, spilled %v", werr, gerr)
				}
				if wd.Keys != gd.Keys || wd.Records != gd.Records || !slices.Equal(wd.Examples, gd.Examples) {
					t.Fatalf("duplicates differ: %+v vs %+v", wd, gd)
				}
				checkStagingAfterFailure(t, r)
				return
			}
			if wres.Runs != 0 {
				t.Fatalf("the in-memory scan spilled %d runs", wres.Runs)
			}
			if n > 50 && gres.Runs < 2 {
				t.Fatalf("a budget of %d bytes spilled %d runs of %d rows", spill.Memory, gres.Runs, n)
			}
			if len(got) != len(want) {
				t.Fatalf("arrays %v, want %v", slices.Sorted(mapKeysOf(got)), slices.Sorted(mapKeysOf(want)))
			}
			for k, a := range want {
				if k == "observation_observed_at_ns" {
					continue
				}
				if !got[k].Equal(a) {
					t.Fatalf("array %s differs (%d vs %d bytes)", k, got[k].ByteLen(), a.ByteLen())
				}
			}
			if entries, _ := r.Store().Staging(); len(entries) != 0 {
				t.Fatalf("staging holds %v after a published scan", entries)
			}
		})
	}
}

func mapKeysOf(m map[string]snapshot.Array) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

// checkStagingAfterFailure: a failed spilled scan leaves at most its attempt, STAGING,
// with no spill files.
func checkStagingAfterFailure(t *testing.T, r *repo.Repo) {
	t.Helper()
	atts, err := r.Store().InspectIncomplete()
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range atts {
		if a.Phase != snapshot.PhaseStaging {
			t.Fatalf("attempt %s is %s: %s", a.Path, a.Phase, a.Diagnostic)
		}
		if _, err := os.Stat(filepath.Join(a.Path, "spill")); !os.IsNotExist(err) {
			t.Fatalf("spill directory left in %s: %v", a.Path, err)
		}
	}
	if ids, _ := r.IDs(); len(ids) != 0 {
		t.Fatalf("published %v", ids)
	}
}

// TestSpillFaults injects a failure into each kind of operation on spill files: the
// scan fails with PW_SCAN_SPILL (the run could not be written or read back), publishes
// nothing, and leaves only its inspectable attempt.
func TestSpillFaults(t *testing.T) {
	tinyTiles(t)
	injected := errors.New("injected fault")
	rng := rand.New(rand.NewPCG(3, 3))
	path := randomCSV(t, rng, 400, false)
	for _, kind := range []vfs.OpKind{vfs.OpMkdir, vfs.OpCreate, vfs.OpWrite, vfs.OpClose, vfs.OpOpen} {
		t.Run(string(kind), func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "r")
			if _, err := repo.Init(dir); err != nil {
				t.Fatal(err)
			}
			fsys := vfs.Inject(vfs.Default, func(op vfs.Op) error {
				if op.Kind == kind && strings.Contains(filepath.ToSlash(op.Path), "/spill") {
					return injected
				}
				return nil
			})
			r, err := repo.OpenWith(dir, snapshot.Options{FS: fsys})
			if err != nil {
				t.Fatal(err)
			}
			_, err = Run(context.Background(), r, Options{Address: path, Resolution: snapshot.ResolutionValue,
				Key: []string{"id"}, Memory: 2000})
			if CodeOf(err) != CodeSpill || !errors.Is(err, injected) {
				t.Fatalf("error %v, want %s wrapping the injected fault", err, CodeSpill)
			}
			if !strings.Contains(err.Error(), "PW_SCAN_SPILL") {
				t.Fatalf("error text %q lacks its code", err)
			}
			checkStagingAfterFailure(t, r)
		})
	}
}

// observeFile observes the file o.Address opened with o.Source: in memory
// (ObserveSource) when store is nil, else spilling into store (ObserveSpilling).
func observeFile(t *testing.T, o Options, store *snapshot.Store) *Result {
	t.Helper()
	src, err := source.Open(context.Background(), o.Address, o.Source)
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	var r *Result
	if store == nil {
		r, err = ObserveSource(context.Background(), source.NewRegistry(), src, o)
	} else {
		r, err = ObserveSpilling(context.Background(), source.NewRegistry(), src, store, o)
	}
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// TestObserveSpilling: under a budget that cuts the entries into runs, ObserveSpilling
// publishes into the store it is given exactly the record and value arrays that
// ObserveSource holds in memory, and keeps none in the Result; when the entries fit,
// it writes nothing and returns ObserveSource's arrays. DigestsOnly, Fetch and Select
// are refused.
func TestObserveSpilling(t *testing.T) {
	tinyTiles(t)
	rng := rand.New(rand.NewPCG(5, 19))
	path := randomCSV(t, rng, 700, false)
	null := ""
	for _, res := range []snapshot.Resolution{snapshot.ResolutionRecord, snapshot.ResolutionValue} {
		t.Run(string(res), func(t *testing.T) {
			o := Options{Address: path, Name: "t", Resolution: res, Key: []string{"id"}, Workers: 2}
			o.Source.Null = &null
			observe := func(memory int64, store *snapshot.Store) *Result {
				t.Helper()
				oo := o
				oo.Memory = memory
				return observeFile(t, oo, store)
			}
			want := observe(0, nil)
			dir := t.TempDir()
			st, err := snapshot.Open(dir, snapshot.Options{})
			if err != nil {
				t.Fatal(err)
			}
			got := observe(2000, st)
			if got.Runs < 2 || got.Scan.Records != nil {
				t.Fatalf("runs %d, %d record words in memory: want a spilled scan", got.Runs, len(got.Scan.Records))
			}
			loaded, err := repo.OnStore(st, repo.DefaultAlgorithm).Load(got.ID)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(loaded.Records, want.Scan.Records) || !slices.Equal(loaded.KeyWords, want.Scan.KeyWords) ||
				!slices.Equal(loaded.Values, want.Scan.Values) || len(loaded.Records) == 0 {
				t.Errorf("the spilled snapshot's arrays differ from the scan in memory")
			}
			if res == snapshot.ResolutionValue && !reflect.DeepEqual(loaded.ValueTable, want.Scan.ValueTable) {
				t.Errorf("the spilled snapshot's value table differs from the scan in memory")
			}
			// Entries that fit: nothing written.
			empty := t.TempDir()
			st2, err := snapshot.Open(empty, snapshot.Options{})
			if err != nil {
				t.Fatal(err)
			}
			if r := observe(1<<30, st2); r.Runs != 0 || !slices.Equal(r.Scan.Records, want.Scan.Records) {
				t.Errorf("fitting: runs %d, records equal %v", r.Runs, slices.Equal(r.Scan.Records, want.Scan.Records))
			}
			if left, _ := os.ReadDir(empty); len(left) != 0 {
				t.Errorf("a scan that fits wrote %v", left)
			}
		})
	}
	for _, o := range []Options{{DigestsOnly: true}, {Fetch: [][]uint64{{1}}}, {Select: func(fingerprint.Digest) bool { return true }}} {
		if _, err := ObserveSpilling(context.Background(), source.NewRegistry(), nil, nil, o); CodeOf(err) != CodeOptions {
			t.Errorf("%+v: error %v, want %s", o, err, CodeOptions)
		}
	}
}
