package fingerprint

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"sync"
	"testing"

	"github.com/pipewhy/pipewhy/normalize"
)

// feedAll adds bs to a Feed of lanes lanes: every batch goes to a random lane, each
// lane's batches in a random order, all lanes concurrently.
func feedAll(t *testing.T, r *rand.Rand, e *Engine, lanes int, bs []*normalize.RecordBatch) *Result {
	t.Helper()
	f, err := e.NewFeed(lanes)
	if err != nil {
		t.Fatal(err)
	}
	type item struct {
		b     *normalize.RecordBatch
		bi    int
		first uint64
	}
	work := make([][]item, lanes)
	first := uint64(0)
	for bi, b := range bs {
		w := r.IntN(lanes)
		work[w] = append(work[w], item{b, bi, first})
		first += uint64(b.Len())
	}
	for _, items := range work {
		r.Shuffle(len(items), func(i, j int) { items[i], items[j] = items[j], items[i] })
	}
	var wg sync.WaitGroup
	errs := make([]error, lanes)
	for w, items := range work {
		wg.Go(func() {
			for _, it := range items {
				if err := f.Add(w, it.b, it.bi, it.first); err != nil {
					errs[w] = err
					return
				}
			}
		})
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	res, err := f.Result()
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// TestFeedMatchesRun: batches added through any number of lanes, in any order, give the
// result of the definitions (reference) and exactly Run's Origins and key words, for both
// algorithms and modes, with and without keys and offsets.
func TestFeedMatchesRun(t *testing.T) {
	rounds := 40
	if testing.Short() {
		rounds = 8
	}
	r := rand.New(rand.NewPCG(31, 32))
	for round := range rounds {
		c, recs, keys, offset := randomRound(t, r, round, 400)
		alg, mode := c.Algorithm(), c.Mode()
		bs := split(r, strictID, recs)
		o := Options{Resolution: ValueResolution, KeyFields: keys, Offset: offset, Origins: true, KeyWords: true}
		e, err := NewEngine(c, o)
		if err != nil {
			t.Fatal(err)
		}
		what := fmt.Sprintf("round %d (%v, %v, %d records, %d batches)", round, alg, mode, len(recs), len(bs))
		got := feedAll(t, r, e, 1+r.IntN(6), bs)
		equalResults(t, what, got, reference(c, recs, offset, keys))
		o.Workers = 1 + r.IntN(4)
		want := run(t, c, o, bs)
		if !slices.Equal(got.KeyWords, want.KeyWords) || !slices.Equal(got.KeyOffsets, want.KeyOffsets) {
			t.Fatalf("%s: key words differ from Run's", what)
		}
		// Origins agree with Run's except among entries whose four words are equal
		// (equal unkeyed records), where any order is allowed: compare the records the
		// ordinals point at.
		if len(got.Origins) != len(recs) || len(want.Origins) != len(recs) {
			t.Fatalf("%s: %d and %d origins for %d records", what, len(got.Origins), len(want.Origins), len(recs))
		}
		for i := range got.Origins {
			if !slices.Equal(recs[got.Origins[i]], recs[want.Origins[i]]) {
				t.Fatalf("%s: entry %d comes from record %d, Run says %d", what, i, got.Origins[i], want.Origins[i])
			}
		}
		if sorted := slices.Sorted(slices.Values(got.Origins)); !slices.Equal(sorted, seq(len(recs))) {
			t.Fatalf("%s: origins are not a permutation", what)
		}
	}
}

func seq(n int) []uint64 {
	s := make([]uint64, n)
	for i := range s {
		s[i] = uint64(i)
	}
	return s
}

// TestFeedDatasetResolution: at dataset resolution with column states a Feed equals the
// reference's dataset and column states.
func TestFeedDatasetResolution(t *testing.T) {
	r := rand.New(rand.NewPCG(33, 34))
	for _, mode := range []Mode{Multiset, Ordered} {
		c := mustContext(t, XXH3, mode)
		recs := make([][]uint64, 1000)
		for i := range recs {
			recs[i] = randRecord(r)
		}
		e, err := NewEngine(c, Options{Columns: true})
		if err != nil {
			t.Fatal(err)
		}
		got := feedAll(t, r, e, 3, split(r, strictID, recs))
		want := reference(c, recs, 0, nil)
		want.Records, want.Values, want.ValueOffsets = nil, nil, nil
		equalResults(t, mode.String(), got, want)
	}
}

func TestFeedErrors(t *testing.T) {
	c := mustContext(t, XXH3, Multiset)
	good := rec(frame(1, normalize.Uint64, 5), frame(7, normalize.Text, packed([]byte("x"))...))
	one := func(profile string, words []uint64) *normalize.RecordBatch {
		return &normalize.RecordBatch{ProfileID: profile, Words: words, Offsets: []uint64{0}, Lengths: []uint64{uint64(len(words))}}
	}
	e, err := NewEngine(c, Options{Resolution: RecordResolution})
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range []int{0, -1, maxWorkers + 1} {
		if _, err := e.NewFeed(n); CodeOf(err) != CodeOptions {
			t.Errorf("NewFeed(%d): %v, want %s", n, err, CodeOptions)
		}
	}

	f, _ := e.NewFeed(2)
	for _, w := range []int{-1, 2} {
		if err := f.Add(w, one(strictID, good), 0, 0); CodeOf(err) != CodeOptions {
			t.Errorf("lane %d: %v, want %s", w, err, CodeOptions)
		}
	}
	if err := f.Add(1, one(strictID, good), 0, 0); err != nil {
		t.Fatal(err)
	}
	res, err := f.Result()
	if err != nil || res.State.Count() != 1 || len(res.Records) != RecordStride {
		t.Fatalf("%v %v", res, err)
	}
	if _, err := f.Result(); CodeOf(err) != CodeOptions {
		t.Errorf("second Result: %v, want %s", err, CodeOptions)
	}
	if err := f.Add(0, one(strictID, good), 1, 1); CodeOf(err) != CodeOptions {
		t.Errorf("Add after Result: %v, want %s", err, CodeOptions)
	}

	for name, tc := range map[string]struct {
		b     *normalize.RecordBatch
		code  Code
		batch int
	}{
		"foreign profile": {one(otherProfileID, good), CodeForeignContext, 4},
		"malformed":       {one(strictID, good[:len(good)-1]), CodeRecord, 4},
		"unknown field":   {one(strictID, rec(frame(99, normalize.Uint64, 1))), CodeSchemaMismatch, 4},
	} {
		f, _ := e.NewFeed(1)
		if err := f.Add(0, one(strictID, good), 3, 0); err != nil {
			t.Fatal(err)
		}
		err := f.Add(0, tc.b, 4, 1)
		var x *Error
		if CodeOf(err) != tc.code || !errors.As(err, &x) || x.Batch != tc.batch {
			t.Errorf("%s: %v, want %s in batch %d", name, err, tc.code, tc.batch)
		}
		if _, err := f.Result(); CodeOf(err) != CodeInput {
			t.Errorf("%s: Result after a failed Add: %v, want %s", name, err, CodeInput)
		}
	}

	// Ordered mode: positions Offset+first.. must not pass MaxUint64.
	oc := mustContext(t, XXH3, Ordered)
	oe, _ := NewEngine(oc, Options{Offset: math.MaxUint64 - 1})
	two := one(strictID, good)
	two.Offsets, two.Lengths = []uint64{0, 0}, []uint64{uint64(len(good)), uint64(len(good))}
	of, _ := oe.NewFeed(1)
	if err := of.Add(0, two, 0, 0); err != nil { // positions MaxUint64-1, MaxUint64
		t.Fatalf("last two positions: %v", err)
	}
	if err := of.Add(0, two, 1, 1); CodeOf(err) != CodePosition { // MaxUint64, then wraps
		t.Errorf("wrapping batch: %v, want %s", err, CodePosition)
	}
	of, _ = oe.NewFeed(1)
	if err := of.Add(0, one(strictID, good), 2, 2); CodeOf(err) != CodePosition { // Offset+2 wraps
		t.Errorf("wrapped first position: %v, want %s", err, CodePosition)
	}
	if _, err := of.Result(); CodeOf(err) != CodeInput {
		t.Errorf("Result after a failed Add: %v", err)
	}
}

// TestFeedAddSums: sums computed with Columnar and added with AddSums give the result
// Add gives from the C2 records of the same values; AddSums is refused outside dataset
// resolution, Multiset mode and XXH3Columnar.
func TestFeedAddSums(t *testing.T) {
	r := rand.New(rand.NewPCG(35, 1))
	c := mustContext(t, XXH3Columnar, Multiset)
	// Records that carry every field (tile rows do), random values of every type.
	recs := make([][]uint64, 300)
	for i := range recs {
		var frames [][]uint64
		for _, f := range testSchema.Fields {
			if f.ID == 1 {
				frames = append(frames, frame(1, normalize.Uint64, uint64(i)))
			} else {
				frames = append(frames, randValue(r, f, false))
			}
		}
		recs[i] = rec(frames...)
	}
	want := run(t, c, Options{Columns: true}, []*normalize.RecordBatch{batchOf(r, strictID, recs)})

	// The same records through Columnar: each field's frames, row after row, by Frames.
	ids := make([]uint64, len(testSchema.Fields))
	for x, f := range testSchema.Fields {
		ids[x] = f.ID
	}
	k, err := NewColumnar(c, ids)
	if err != nil {
		t.Fatal(err)
	}
	tile := NewTile(len(recs), len(ids))
	cols := make([]Digest, len(ids))
	for x, id := range ids {
		var words []uint64
		for _, rc := range recs {
			for p := 3; p < len(rc); p += 3 + int(rc[p+2]) {
				if rc[p] == id {
					words = append(words, rc[p:p+3+int(rc[p+2])]...)
				}
			}
		}
		if cols[x], err = k.Frames(tile, x, len(recs), words); err != nil {
			t.Fatal(err)
		}
	}
	sum, err := k.Records(make([]Digest, len(recs)), tile, 0)
	if err != nil {
		t.Fatal(err)
	}
	e, err := NewEngine(c, Options{Columns: true})
	if err != nil {
		t.Fatal(err)
	}
	f, err := e.NewFeed(2)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.AddSums(1, uint64(len(recs)), sum, cols); err != nil {
		t.Fatal(err)
	}
	got, err := f.Result()
	if err != nil {
		t.Fatal(err)
	}
	equalResults(t, "AddSums", got, want)

	for _, tc := range []struct {
		c   Context
		opt Options
	}{
		{c, Options{Resolution: RecordResolution}},
		{mustContext(t, XXH3Columnar, Ordered), Options{}},
		{mustContext(t, XXH3, Multiset), Options{}},
	} {
		e, err := NewEngine(tc.c, tc.opt)
		if err != nil {
			t.Fatal(err)
		}
		f, err := e.NewFeed(1)
		if err != nil {
			t.Fatal(err)
		}
		if err := f.AddSums(0, 1, Digest{}, nil); CodeOf(err) != CodeOptions {
			t.Errorf("AddSums under %v %v: %v, want %s", tc.c.Algorithm(), tc.c.Mode(), err, CodeOptions)
		}
	}
}
