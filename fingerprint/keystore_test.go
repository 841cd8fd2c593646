package fingerprint

import (
	"math/rand/v2"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/pipewhy/pipewhy/normalize"
)

// TestResultKeyStore: with Options.KeyStore a result holds the same key records as
// with KeyWords alone — entry by entry through Key, and whole through Gather — and the
// same everything else, from Run and from a Feed, with keys of one shape (kept as
// payload words), of many shapes, too long for a chunk, and without a declared key
// (the whole record), on merges cut into many segments.
func TestResultKeyStore(t *testing.T) {
	defer func(m int) { mergeSegmentMin = m }(mergeSegmentMin)
	r := rand.New(rand.NewPCG(91, 92))
	long := []uint64{1, 2, 2}
	long = append(long, frame(1, normalize.Uint64, 7)...)
	long = append(long, frame(7, normalize.Text, append([]uint64{8 * (bigKey + 5)}, make([]uint64, bigKey+5)...)...)...)
	for _, alg := range []Algorithm{XXH3, XXH3Columnar} {
		c := mustContext(t, alg, Multiset)
		for _, keys := range [][]uint64{nil, {1}} {
			for _, segMin := range []int{1 << 16, 5} {
				mergeSegmentMin = segMin
				recs := make([][]uint64, 700)
				for i := range recs {
					recs[i] = randRecord(r)
				}
				if keys == nil {
					recs = append(recs, long)
				}
				bs := split(r, strictID, recs)
				o := Options{Workers: 3, ChunkRecords: 1 + r.IntN(30), Resolution: RecordResolution, KeyFields: keys, KeyWords: true}
				want := run(t, c, o, bs)
				o.KeyStore = true
				e, err := NewEngine(c, o)
				if err != nil {
					t.Fatal(err)
				}
				for name, got := range map[string]*Result{"run": run(t, c, o, bs), "feed": feedAll(t, r, e, 1+r.IntN(4), bs)} {
					what := alg.ID() + " " + name
					if got.KeyWords != nil || got.KeyOffsets != nil || got.Keys == nil {
						t.Fatalf("%s: KeyStore gave key arrays or no store", what)
					}
					if !slices.Equal(got.Records, want.Records) {
						t.Fatalf("%s: records differ", what)
					}
					n := len(want.Records) / RecordStride
					if got.Keys.Len() != n {
						t.Fatalf("%s: %d keys for %d entries", what, got.Keys.Len(), n)
					}
					for e := range n {
						if !slices.Equal(got.Keys.Key(e), want.KeyWords[want.KeyOffsets[e]:want.KeyOffsets[e+1]]) {
							t.Fatalf("%s keys %v: entry %d's key differs", what, keys, e)
						}
					}
					words, offsets := got.Keys.Gather()
					if !slices.Equal(words, want.KeyWords) || !slices.Equal(offsets, want.KeyOffsets) {
						t.Fatalf("%s keys %v: gathered arrays differ", what, keys)
					}
					got.Gather()
					if got.Keys != nil || !slices.Equal(got.KeyWords, want.KeyWords) || !slices.Equal(got.KeyOffsets, want.KeyOffsets) {
						t.Fatalf("%s: Result.Gather", what)
					}
				}
			}
		}
	}
	// Without KeyWords, KeyStore asks for nothing.
	c := mustContext(t, XXH3Columnar, Multiset)
	got := run(t, c, Options{Resolution: RecordResolution, KeyStore: true}, split(r, strictID, [][]uint64{randRecord(r)}))
	if got.Keys != nil || got.KeyWords != nil {
		t.Fatal("KeyStore without KeyWords kept keys")
	}
}

// TestFeedAfterResult: Result lets the lanes go; Add and AddSums after it fail with
// CodeOptions and say why, on every lane.
func TestFeedAfterResult(t *testing.T) {
	c := mustContext(t, XXH3Columnar, Multiset)
	e, err := NewEngine(c, Options{})
	if err != nil {
		t.Fatal(err)
	}
	f, _ := e.NewFeed(2)
	if _, err := f.Result(); err != nil {
		t.Fatal(err)
	}
	for w := range 2 {
		words := rec(frame(1, normalize.Uint64, 1))
		b := &normalize.RecordBatch{ProfileID: strictID, Words: words, Offsets: []uint64{0}, Lengths: []uint64{uint64(len(words))}}
		if err := f.Add(w, b, 0, 0); CodeOf(err) != CodeOptions || !strings.Contains(err.Error(), "after Result") {
			t.Errorf("Add on lane %d: %v", w, err)
		}
		if err := f.AddSums(w, 1, Digest{}, nil); CodeOf(err) != CodeOptions || !strings.Contains(err.Error(), "after Result") {
			t.Errorf("AddSums on lane %d: %v", w, err)
		}
	}
}

// TestCollectSorted: the merge collects garbage first when the sort let go of at least
// sortedGCBytes of entry blocks, and not below.
func TestCollectSorted(t *testing.T) {
	defer func(b int64) { sortedGCBytes = b }(sortedGCBytes)
	r := rand.New(rand.NewPCG(5, 6))
	c := mustContext(t, XXH3Columnar, Multiset)
	recs := make([][]uint64, 300)
	for i := range recs {
		recs[i] = randRecord(r)
	}
	bs := split(r, strictID, recs)
	forced := func() uint32 {
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		return ms.NumForcedGC
	}
	// One block of blockEntries entries per lane at most: 2 lanes let go of at most
	// 2·blockEntries·entryBytes, at least one block's worth.
	for _, tc := range []struct {
		threshold int64
		want      bool
	}{{int64(blockEntries) * entryBytes, true}, {2*int64(blockEntries)*entryBytes + 1, false}} {
		sortedGCBytes = tc.threshold
		before := forced()
		run(t, c, Options{Workers: 2, Resolution: RecordResolution}, bs)
		if got := forced() > before; got != tc.want {
			t.Errorf("threshold %d bytes: collected %v, want %v", tc.threshold, got, tc.want)
		}
	}
}
