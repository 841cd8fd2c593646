package fingerprint

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"sync"
	"testing"

	"github.com/pipewhy/pipewhy/internal/hugemem"
	"github.com/pipewhy/pipewhy/internal/testenv"
	"github.com/pipewhy/pipewhy/normalize"
)

// reference computes the expected Result of records (in logical order, starting at
// position offset) straight from the contract's definitions, with refDigest.
func reference(c Context, recs [][]uint64, offset uint64, keys []uint64) *Result {
	alg, ordered := c.Algorithm(), c.Mode() == Ordered
	if alg == XXH3Columnar {
		return refV2Result(c, recs, offset, keys)
	}
	return refResult(c, recs, offset, keys, refDigests{
		record: func(positional bool, pos uint64, r []uint64) Digest { return refDigest(c, alg, positional, pos, r) },
		value:  func(pos uint64, fr []uint64) Digest { return refDigest(c, alg, ordered, pos, fr) },
	})
}

// refDigests are an algorithm's reference record digest (positional or not) and value
// digest.
type refDigests struct {
	record func(positional bool, pos uint64, rec []uint64) Digest
	value  func(pos uint64, frame []uint64) Digest
}

// refResult assembles the expected Result of records from digest definitions: the
// state, column states, sorted record entries with key digests (the record projected
// onto keys, never positional), and value entries.
func refResult(c Context, recs [][]uint64, offset uint64, keys []uint64, dig refDigests) *Result {
	ordered := c.Mode() == Ordered
	res := &Result{State: NewState(c)}
	cols := map[uint64]*State{}
	for _, f := range c.Schema().Fields {
		s := NewState(c)
		cols[f.ID] = &s
	}
	type ent struct {
		words []uint64
		vals  []uint64
	}
	var ents []ent
	for i, r := range recs {
		pos := offset + uint64(i)
		d := dig.record(ordered, pos, r)
		res.State.Add(d)
		var vals []uint64
		proj := []uint64{1, 2, uint64(len(keys))}
		for p := 3; p < len(r); p += 3 + int(r[p+2]) {
			fr := r[p : p+3+int(r[p+2])]
			v := dig.value(pos, fr)
			cols[r[p]].Add(v)
			vals = append(vals, r[p], v.Lo, v.Hi)
			if slices.Contains(keys, r[p]) {
				proj = append(proj, fr...)
			}
		}
		if len(keys) == 0 {
			proj = r
		}
		k := dig.record(false, 0, proj)
		ents = append(ents, ent{[]uint64{k.Lo, k.Hi, d.Lo, d.Hi}, vals})
	}
	slices.SortFunc(ents, func(a, b ent) int { return slices.Compare(a.words, b.words) })
	res.ValueOffsets = []uint64{0}
	for _, e := range ents {
		res.Records = append(res.Records, e.words...)
		res.Values = append(res.Values, e.vals...)
		res.ValueOffsets = append(res.ValueOffsets, uint64(len(res.Values)/ValueStride))
	}
	for _, f := range c.Schema().Fields {
		res.Columns = append(res.Columns, ColumnState{Field: f.ID, State: *cols[f.ID]})
	}
	return res
}

// split cuts recs into random consecutive batches (some empty).
func split(r *rand.Rand, profile string, recs [][]uint64) []*normalize.RecordBatch {
	var bs []*normalize.RecordBatch
	for i := 0; i <= len(recs); {
		n := r.IntN(len(recs)/3 + 2)
		bs = append(bs, batchOf(r, profile, recs[i:min(i+n, len(recs))]))
		i += n
		if n == 0 && i == len(recs) {
			break
		}
	}
	return bs
}

func run(t *testing.T, c Context, o Options, bs []*normalize.RecordBatch) *Result {
	t.Helper()
	e, err := NewEngine(c, o)
	if err != nil {
		t.Fatal(err)
	}
	res, err := e.Run(context.Background(), seqOf(bs...))
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func equalResults(t *testing.T, what string, got, want *Result) {
	t.Helper()
	if eq, err := got.State.Equal(want.State); err != nil || !eq {
		t.Fatalf("%s: state %v, want %v (%v)", what, got.State.Words(), want.State.Words(), err)
	}
	if len(got.Columns) != len(want.Columns) {
		t.Fatalf("%s: %d column states, want %d", what, len(got.Columns), len(want.Columns))
	}
	for i := range got.Columns {
		g, w := got.Columns[i], want.Columns[i]
		if eq, err := g.State.Equal(w.State); g.Field != w.Field || err != nil || !eq {
			t.Fatalf("%s: column %d: %d %v, want %d %v", what, i, g.Field, g.State.Words(), w.Field, w.State.Words())
		}
	}
	if !slices.Equal(got.Records, want.Records) {
		t.Fatalf("%s: record entries differ (%d vs %d words)", what, len(got.Records), len(want.Records))
	}
	if !slices.Equal(got.Values, want.Values) || !slices.Equal(got.ValueOffsets, want.ValueOffsets) {
		t.Fatalf("%s: value entries differ", what)
	}
}

// TestEngineMatchesReference: for random records of every C2 type, both algorithms and
// modes, any batch split, chunk size and worker count 1..8, the engine's value-resolution
// result equals the reference computed from the definitions.
func TestEngineMatchesReference(t *testing.T) {
	rounds := 40
	if testing.Short() {
		rounds = 8
	}
	r := rand.New(rand.NewPCG(7, 8))
	for round := range rounds {
		c, recs, keys, offset := randomRound(t, r, round, 300)
		alg, mode := c.Algorithm(), c.Mode()
		if round%5 == 0 {
			keys = []uint64{1, 7} // 7 is not in every record: only when present in all
			for i := range recs {
				if !hasField(recs[i], 7) {
					recs[i] = rec(frame(1, normalize.Uint64, uint64(i)), frame(7, normalize.Text, packed([]byte("k"))...))
				}
			}
		}
		want := reference(c, recs, offset, keys)
		got := run(t, c, Options{
			Workers:      1 + r.IntN(8),
			ChunkRecords: 1 + r.IntN(50),
			Resolution:   ValueResolution,
			KeyFields:    keys,
			Offset:       offset,
		}, split(r, strictID, recs))
		equalResults(t, fmt.Sprintf("round %d (%v, %v, %d records)", round, alg, mode, len(recs)), got, want)
	}
}

// randomRound is one round of the randomized engine tests: the algorithm (each
// registered one) and mode cycle with the round, up to maxRecs random records, key field 1 in two rounds of three, and a
// random offset in ordered mode.
func randomRound(t *testing.T, r *rand.Rand, round, maxRecs int) (c Context, recs [][]uint64, keys []uint64, offset uint64) {
	t.Helper()
	c = mustContext(t, Algorithms()[round%3], []Mode{Multiset, Ordered}[round/3%2])
	recs = make([][]uint64, r.IntN(maxRecs))
	for i := range recs {
		recs[i] = randRecord(r)
	}
	if round%3 != 0 {
		keys = []uint64{1}
	}
	if c.Mode() == Ordered {
		offset = r.Uint64() >> 1
	}
	return c, recs, keys, offset
}

func hasField(r []uint64, id uint64) bool {
	for p := 3; p < len(r); p += 3 + int(r[p+2]) {
		if r[p] == id {
			return true
		}
	}
	return false
}

// TestEngineMultisetInvariance: in multiset mode, shuffling records, re-splitting batches
// and changing the worker count never changes any resolution's output; the state equals
// the sum of the record entries, and each column state the sum of its value entries.
func TestEngineMultisetInvariance(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	c := mustContext(t, XXH3, Multiset)
	recs := make([][]uint64, 2000)
	for i := range recs {
		recs[i] = randRecord(r)
	}
	recs = append(recs, recs[:50]...) // repeated records count repeatedly
	base := run(t, c, Options{Workers: 1, Resolution: ValueResolution, KeyFields: []uint64{1}}, []*normalize.RecordBatch{batchOf(r, strictID, recs)})
	if base.State.Count() != uint64(len(recs)) {
		t.Fatalf("count %d, want %d", base.State.Count(), len(recs))
	}
	checkInternal(t, c, base)
	for w := 1; w <= 8; w++ {
		sh := slices.Clone(recs)
		r.Shuffle(len(sh), func(i, j int) { sh[i], sh[j] = sh[j], sh[i] })
		got := run(t, c, Options{Workers: w, ChunkRecords: 1 + r.IntN(300), Resolution: ValueResolution, KeyFields: []uint64{1}}, split(r, strictID, sh))
		equalResults(t, fmt.Sprintf("workers %d", w), got, base)
		// Dataset resolution gives the same state.
		ds := run(t, c, Options{Workers: w}, split(r, strictID, sh))
		if eq, _ := ds.State.Equal(base.State); !eq || ds.Columns != nil || ds.Records != nil {
			t.Fatalf("dataset resolution, workers %d: %v", w, ds.State.Words())
		}
		dc := run(t, c, Options{Workers: w, Columns: true}, split(r, strictID, sh))
		equalResults(t, "dataset+columns", &Result{State: dc.State, Columns: dc.Columns, Records: base.Records, Values: base.Values, ValueOffsets: base.ValueOffsets}, base)
	}
	// Dropping one record changes the state by exactly its digest.
	less := run(t, c, Options{}, []*normalize.RecordBatch{batchOf(r, strictID, recs[1:])})
	one := NewState(c)
	d, err := c.RecordDigest(0, recs[0])
	if err != nil {
		t.Fatal(err)
	}
	one.Add(d)
	if err := less.State.Merge(one); err != nil {
		t.Fatal(err)
	}
	if eq, _ := less.State.Equal(base.State); !eq {
		t.Fatal("state minus one record plus its digest differs")
	}
}

// checkInternal checks the result's arrays against its states.
func checkInternal(t *testing.T, c Context, res *Result) {
	t.Helper()
	s := NewState(c)
	for i := 0; i < len(res.Records); i += RecordStride {
		s.Add(Digest{Lo: res.Records[i+2], Hi: res.Records[i+3]})
		if i > 0 && slices.Compare(res.Records[i-RecordStride:i], res.Records[i:i+RecordStride]) > 0 {
			t.Fatalf("record entries not sorted at %d", i/RecordStride)
		}
	}
	if eq, _ := s.Equal(res.State); !eq {
		t.Fatalf("state %v is not the sum of record digests %v", res.State.Words(), s.Words())
	}
	cols := map[uint64]*State{}
	for _, cs := range res.Columns {
		s := NewState(c)
		cols[cs.Field] = &s
	}
	for i := 0; i < len(res.Values); i += ValueStride {
		cols[res.Values[i]].Add(Digest{Lo: res.Values[i+1], Hi: res.Values[i+2]})
	}
	for _, cs := range res.Columns {
		if eq, _ := cols[cs.Field].Equal(cs.State); !eq {
			t.Fatalf("column %d state is not the sum of its value digests", cs.Field)
		}
	}
	if n := len(res.Records) / RecordStride; len(res.ValueOffsets) != n+1 || res.ValueOffsets[n] != uint64(len(res.Values)/ValueStride) {
		t.Fatal("value offsets do not cover the value entries")
	}
}

// TestOrderedPartitions: partitions fingerprinted separately with their offsets merge into
// the one-pass state; batch splits and worker counts do not matter; a swap of two
// different records changes the state, while multiset mode ignores it.
func TestOrderedPartitions(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	for _, alg := range Algorithms() {
		c := mustContext(t, alg, Ordered)
		recs := make([][]uint64, 1000)
		for i := range recs {
			recs[i] = randRecord(r)
		}
		whole := run(t, c, Options{Workers: 1, Columns: true}, []*normalize.RecordBatch{batchOf(r, strictID, recs)})
		for trial := range 5 {
			merged := NewState(c)
			cols := make([]State, len(whole.Columns))
			for i := range cols {
				cols[i] = NewState(c)
			}
			cuts := []int{0, r.IntN(len(recs)), r.IntN(len(recs)), len(recs)}
			slices.Sort(cuts)
			for p := 0; p+1 < len(cuts); p++ {
				part := run(t, c, Options{Workers: 1 + r.IntN(8), ChunkRecords: 1 + r.IntN(100), Offset: uint64(cuts[p]), Columns: true},
					split(r, strictID, recs[cuts[p]:cuts[p+1]]))
				if err := merged.Merge(part.State); err != nil {
					t.Fatal(err)
				}
				for i := range cols {
					if err := cols[i].Merge(part.Columns[i].State); err != nil {
						t.Fatal(err)
					}
				}
			}
			if eq, _ := merged.Equal(whole.State); !eq {
				t.Fatalf("%v trial %d: merged partitions %v != one pass %v", alg, trial, merged.Words(), whole.State.Words())
			}
			for i := range cols {
				if eq, _ := cols[i].Equal(whole.Columns[i].State); !eq {
					t.Fatalf("%v trial %d: merged column %d differs from one pass", alg, trial, whole.Columns[i].Field)
				}
			}
		}
		i, j := 3, 700
		swapped := slices.Clone(recs)
		swapped[i], swapped[j] = swapped[j], swapped[i]
		if slices.Equal(recs[i], recs[j]) {
			t.Fatal("test needs two different records")
		}
		sw := run(t, c, Options{Columns: true}, []*normalize.RecordBatch{batchOf(r, strictID, swapped)})
		if eq, _ := sw.State.Equal(whole.State); eq {
			t.Fatalf("%v: a swap did not change the ordered state", alg)
		}
		// Without the offset, a later partition differs from its place in the whole.
		tail := run(t, c, Options{}, []*normalize.RecordBatch{batchOf(r, strictID, recs[500:])})
		head := run(t, c, Options{}, []*normalize.RecordBatch{batchOf(r, strictID, recs[:500])})
		if err := head.State.Merge(tail.State); err != nil {
			t.Fatal(err)
		}
		if eq, _ := head.State.Equal(whole.State); eq {
			t.Fatalf("%v: positions did not participate", alg)
		}
		ms := mustContext(t, alg, Multiset)
		a := run(t, ms, Options{}, []*normalize.RecordBatch{batchOf(r, strictID, recs)})
		b := run(t, ms, Options{}, []*normalize.RecordBatch{batchOf(r, strictID, swapped)})
		if eq, _ := a.State.Equal(b.State); !eq {
			t.Fatalf("%v: multiset state depends on order", alg)
		}
	}
}

func TestEngineErrors(t *testing.T) {
	c := mustContext(t, XXH3, Multiset)
	good := rec(frame(1, normalize.Uint64, 5), frame(7, normalize.Text, packed([]byte("x"))...))
	one := func(words []uint64) *normalize.RecordBatch {
		return &normalize.RecordBatch{ProfileID: strictID, Words: words, Offsets: []uint64{0}, Lengths: []uint64{uint64(len(words))}}
	}
	for name, tc := range map[string]struct {
		opt   Options
		b     *normalize.RecordBatch
		code  Code
		batch int
		rec   int
	}{
		"foreign profile": {Options{}, &normalize.RecordBatch{ProfileID: otherProfileID, Words: good, Offsets: []uint64{0}, Lengths: []uint64{uint64(len(good))}}, CodeForeignContext, 1, -1},
		"empty profile":   {Options{}, &normalize.RecordBatch{Words: good, Offsets: []uint64{0}, Lengths: []uint64{uint64(len(good))}}, CodeForeignContext, 1, -1},
		"nil batch":       {Options{}, nil, CodeRecord, 1, -1},
		"shape":           {Options{}, &normalize.RecordBatch{ProfileID: strictID, Words: good, Offsets: []uint64{0}}, CodeRecord, 1, -1},
		"bounds":          {Options{}, &normalize.RecordBatch{ProfileID: strictID, Words: good, Offsets: []uint64{1}, Lengths: []uint64{uint64(len(good))}}, CodeRecord, 1, 0},
		"overflow bounds": {Options{}, &normalize.RecordBatch{ProfileID: strictID, Words: good, Offsets: []uint64{2}, Lengths: []uint64{math.MaxUint64}}, CodeRecord, 1, 0},
		"framing":         {Options{}, one(append(slices.Clone(good), 0)), CodeRecord, 1, 0},
		"header":          {Options{}, one([]uint64{2, 2, 0}), CodeRecord, 1, 0},
		"unknown field":   {Options{}, one(rec(frame(3, normalize.Uint64, 1))), CodeSchemaMismatch, 1, 0},
		"big field id":    {Options{}, one(rec(frame(1<<40, normalize.Null))), CodeSchemaMismatch, 1, 0},
		"wrong type":      {Options{}, one(rec(frame(1, normalize.Float64, 1))), CodeSchemaMismatch, 1, 0},
		"text in int":     {Options{}, one(rec(frame(1, normalize.Text, 0))), CodeSchemaMismatch, 1, 0},
		"missing key":     {Options{Resolution: RecordResolution, KeyFields: []uint64{1, 7}}, one(rec(frame(1, normalize.Uint64, 5))), CodeKeyField, 1, 0},
		"missing key 1st": {Options{Resolution: RecordResolution, KeyFields: []uint64{1}}, one(rec(frame(7, normalize.Null))), CodeKeyField, 1, 0},
	} {
		e, err := NewEngine(c, tc.opt)
		if err != nil {
			t.Fatal(err)
		}
		res, err := e.Run(context.Background(), seqOf(one(good), tc.b, one(good)))
		var fe *Error
		if res != nil || !errors.As(err, &fe) || fe.Code != tc.code || fe.Batch != tc.batch || fe.Record != tc.rec {
			t.Errorf("%s: %v (result %v), want %s at batch %d record %d", name, err, res, tc.code, tc.batch, tc.rec)
		}
		if tc.code == CodeRecord && tc.rec >= 0 && normalize.CodeOf(err) == "" && name != "bounds" && name != "overflow bounds" {
			t.Errorf("%s: the normalize cause is not wrapped: %v", name, err)
		}
	}
	// The batch source's error stops the run and is wrapped.
	boom := errors.New("disk on fire")
	e, _ := NewEngine(c, Options{})
	_, err := e.Run(context.Background(), func(yield func(*normalize.RecordBatch, error) bool) {
		if yield(one(good), nil) {
			yield(nil, boom)
		}
	})
	if CodeOf(err) != CodeInput || !errors.Is(err, boom) {
		t.Errorf("source error: %v", err)
	}
	// Ordered positions may not overflow uint64.
	oc := mustContext(t, XXH3, Ordered)
	e, _ = NewEngine(oc, Options{Offset: math.MaxUint64})
	if _, err := e.Run(context.Background(), seqOf(one(good))); err != nil {
		t.Errorf("last position MaxUint64: %v", err)
	}
	b2 := one(good)
	b2.Offsets, b2.Lengths = []uint64{0, 0}, []uint64{uint64(len(good)), uint64(len(good))}
	if _, err := e.Run(context.Background(), seqOf(b2)); CodeOf(err) != CodePosition {
		t.Errorf("position overflow: %v", err)
	}
	// Position MaxUint64 used by one batch: a later batch has no positions left, while an
	// empty batch is fine.
	empty := &normalize.RecordBatch{ProfileID: strictID}
	if _, err := e.Run(context.Background(), seqOf(one(good), empty, one(good))); CodeOf(err) != CodePosition {
		t.Errorf("positions after MaxUint64: %v", err)
	}
	if _, err := e.Run(context.Background(), seqOf(one(good), empty)); err != nil {
		t.Errorf("empty batch after the last position: %v", err)
	}
}

func TestEngineOptions(t *testing.T) {
	c := mustContext(t, XXH3, Multiset)
	for name, tc := range map[string]struct {
		o    Options
		code Code
	}{
		"workers":      {Options{Workers: -1}, CodeOptions},
		"too many":     {Options{Workers: 1025}, CodeOptions},
		"resolution":   {Options{Resolution: 3}, CodeOptions},
		"chunk":        {Options{ChunkRecords: -1}, CodeOptions},
		"huge chunk":   {Options{ChunkRecords: 1<<30 + 1}, CodeOptions},
		"offset":       {Options{Offset: 1}, CodeOptions},
		"keys":         {Options{KeyFields: []uint64{1}}, CodeOptions},
		"dup key":      {Options{Resolution: RecordResolution, KeyFields: []uint64{1, 1}}, CodeKeyField},
		"foreign key":  {Options{Resolution: RecordResolution, KeyFields: []uint64{3}}, CodeKeyField},
		"sentinel key": {Options{Resolution: ValueResolution, KeyFields: []uint64{math.MaxUint64}}, CodeKeyField},
	} {
		if _, err := NewEngine(c, tc.o); CodeOf(err) != tc.code {
			t.Errorf("%s: %v, want %s", name, err, tc.code)
		}
	}
	if _, err := NewEngine(Context{}, Options{}); CodeOf(err) != CodeContext {
		t.Errorf("zero context: %v", err)
	}
}

func TestEngineCancel(t *testing.T) {
	c := mustContext(t, XXH3, Multiset)
	r := rand.New(rand.NewPCG(13, 14))
	recs := make([][]uint64, 100)
	for i := range recs {
		recs[i] = randRecord(r)
	}
	b := batchOf(r, strictID, recs)
	ctx, cancel := context.WithCancel(context.Background())
	e, _ := NewEngine(c, Options{Workers: 2, ChunkRecords: 10})
	n := 0
	_, err := e.Run(ctx, func(yield func(*normalize.RecordBatch, error) bool) {
		for {
			if n++; n == 5 {
				cancel()
			}
			if !yield(b, nil) {
				return
			}
		}
	})
	if CodeOf(err) != CodeCanceled || !errors.Is(err, context.Canceled) {
		t.Fatalf("canceled run: %v", err)
	}
}

// TestEngineRelease: every batch is released exactly once, before Run returns.
func TestEngineRelease(t *testing.T) {
	c := mustContext(t, XXH3, Multiset)
	r := rand.New(rand.NewPCG(15, 16))
	recs := make([][]uint64, 500)
	for i := range recs {
		recs[i] = randRecord(r)
	}
	bs := split(r, strictID, recs)
	var mu sync.Mutex
	released := map[*normalize.RecordBatch]int{}
	e, _ := NewEngine(c, Options{Workers: 3, ChunkRecords: 7, Release: func(b *normalize.RecordBatch) {
		mu.Lock()
		released[b]++
		mu.Unlock()
	}})
	if _, err := e.Run(context.Background(), seqOf(bs...)); err != nil {
		t.Fatal(err)
	}
	for i, b := range bs {
		if released[b] != 1 {
			t.Errorf("batch %d (%d records) released %d times", i, b.Len(), released[b])
		}
	}
}

// TestEngineNoPerRecordAllocation: at dataset resolution a worker allocates nothing while
// digesting records (its scratch is warmed by the first record).
func TestEngineNoPerRecordAllocation(t *testing.T) {
	r := rand.New(rand.NewPCG(17, 18))
	for _, o := range []Options{{}, {Columns: true}} {
		for _, mode := range []Mode{Multiset, Ordered} {
			c := mustContext(t, XXH3, mode)
			recs := make([][]uint64, 1000)
			for i := range recs {
				recs[i] = randRecord(r)
			}
			e, _ := NewEngine(c, o)
			b := batchOf(r, strictID, recs)
			p := e.newPartial(0)
			tk := task{ref: &batchRef{b: b}, lo: 0, hi: b.Len()}
			if err := p.process(tk); err != nil {
				t.Fatal(err)
			}
			if a := testing.AllocsPerRun(10, func() { _ = p.process(tk) }); a != 0 {
				t.Errorf("%v %+v: %v allocations per 1000 records", mode, o, a)
			}
		}
	}
}

// TestRecordDigest checks the single-record reference form and its validation.
func TestRecordDigest(t *testing.T) {
	c := mustContext(t, SHA256, Ordered)
	r := rec(frame(1, normalize.Int64, math.MaxUint64), frame(2, normalize.Bool, 1))
	d, err := c.RecordDigest(42, r)
	if err != nil || d != refDigest(c, SHA256, true, 42, r) {
		t.Fatalf("RecordDigest %v %v", d, err)
	}
	if d2, _ := c.RecordDigest(43, r); d2 == d {
		t.Fatal("ordered digest ignores the position")
	}
	m := mustContext(t, XXH3, Multiset)
	d1, _ := m.RecordDigest(1, r)
	d2, _ := m.RecordDigest(2, r)
	if d1 != d2 || d1 != refDigest(m, XXH3, false, 0, r) {
		t.Fatal("multiset digest depends on the position")
	}
	if _, err := m.RecordDigest(0, r[:4]); CodeOf(err) != CodeRecord {
		t.Errorf("truncated: %v", err)
	}
	if _, err := m.RecordDigest(0, rec(frame(9, normalize.Null))); CodeOf(err) != CodeSchemaMismatch {
		t.Errorf("unknown field: %v", err)
	}
	if _, err := (Context{}).RecordDigest(0, r); CodeOf(err) != CodeContext {
		t.Errorf("zero context: %v", err)
	}
}

// FuzzEngine feeds arbitrary words as one batch: the engine never panics, reports coded
// errors, and whatever it accepts equals the per-record reference.
func FuzzEngine(f *testing.F) {
	f.Add(wordsBytes(rec(frame(1, normalize.Uint64, 5))), uint8(1))
	f.Add(wordsBytes(rec(frame(1, normalize.Uint64, 5), frame(7, normalize.Text, 3, 0x636261))), uint8(2))
	f.Add(wordsBytes([]uint64{1, 2, 1, 40, 8, 7, 0, 0, 0, 0, 1, 1, 5}), uint8(3))
	f.Add(wordsBytes([]uint64{1, 2, 2, 1, 4, 1}), uint8(1))
	c := mustContext(f, XXH3, Multiset)
	e, err := NewEngine(c, Options{Workers: 2, Resolution: ValueResolution, KeyFields: []uint64{1}})
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, b []byte, nrec uint8) {
		if len(b) > 1<<16 { // bounds each run, and so each minimization
			t.Skip("input over 64 KiB")
		}
		words := bytesWords(b)
		batch := &normalize.RecordBatch{ProfileID: strictID, Words: words}
		// The same record repeated nrec times, and a shifted copy as the last record.
		for range nrec % 8 {
			batch.Offsets = append(batch.Offsets, 0)
			batch.Lengths = append(batch.Lengths, uint64(len(words)))
		}
		res, err := e.Run(context.Background(), seqOf(batch))
		if err != nil {
			if CodeOf(err) == "" {
				t.Fatalf("uncoded error %v", err)
			}
			return
		}
		want := NewState(c)
		for range batch.Len() {
			want.Add(refDigest(c, XXH3, false, 0, words))
		}
		if eq, _ := res.State.Equal(want); !eq {
			t.Fatal("accepted batch differs from the reference")
		}
		checkInternal(t, c, res)
	})
}

// TestSortEntries checks the bucket sort against a comparison sort, on uniform keys and
// on keys that share their top bits (one big bucket) with many exact ties.
func TestSortEntries(t *testing.T) {
	r := rand.New(rand.NewPCG(19, 20))
	for _, n := range []int{0, 1, 100, 1023, 1024, 5000, 70000} {
		for _, clustered := range []bool{false, true} {
			es := make([]entry, n)
			for i := range es {
				es[i] = entry{key: Digest{Lo: r.Uint64(), Hi: r.Uint64() % 3}, rec: Digest{Lo: r.Uint64() % 5, Hi: r.Uint64() % 2}, ref: uint64(i)}
				if clustered {
					es[i].key.Lo %= 7
				}
			}
			want := slices.Clone(es)
			slices.SortStableFunc(want, compareEntries)
			var blocks [][]entry
			for lo := 0; lo < n; lo += 999 {
				blocks = append(blocks, es[lo:min(lo+999, n)])
			}
			got := sortEntries(blocks, n)
			if len(got) != n {
				t.Fatalf("n=%d: %d entries", n, len(got))
			}
			for i := range got {
				if compareEntries(got[i], want[i]) != 0 {
					t.Fatalf("n=%d clustered=%v: entry %d out of order", n, clustered, i)
				}
			}
		}
	}
}

// TestEntryBlocks: a worker's entries keep their order across blocks that double from
// blockEntries to maxBlockEntries entries and stay there, each block filled before the
// next begins.
func TestEntryBlocks(t *testing.T) {
	defer func(a, b int) { blockEntries, maxBlockEntries = a, b }(blockEntries, maxBlockEntries)
	blockEntries, maxBlockEntries = 3, 12
	var p partial
	const n = 3 + 6 + 12 + 12 + 5
	for i := range n {
		p.addEntry(entry{key: Digest{Lo: uint64(i)}, ref: uint64(i)})
	}
	var caps, lens []int
	var all []entry
	for _, b := range p.blocks {
		caps, lens = append(caps, cap(b)), append(lens, len(b))
		all = append(all, b...)
	}
	if !slices.Equal(caps, []int{3, 6, 12, 12, 12}) || !slices.Equal(lens, []int{3, 6, 12, 12, 5}) || p.nrecs != n {
		t.Fatalf("blocks of capacities %v and lengths %v, %d entries", caps, lens, p.nrecs)
	}
	for i, e := range all {
		if e.ref != uint64(i) {
			t.Fatalf("entry %d holds %d", i, e.ref)
		}
	}
}

// TestEntryBlocksAdvised: entry blocks large enough to hold a huge page are advised for
// huge pages (a 10 M-row scan writes 400 MB of entries: 100 k faults in 4 KiB pages).
func TestEntryBlocksAdvised(t *testing.T) {
	var p partial
	// Blocks of 16, 32, 64 and 128 Ki entries: 0.6, 1.3, 2.6 and 5.2 MB. The last is read
	// back: an array of 4 MiB or more holds an aligned 2 MiB page wherever the heap puts
	// it, so its advice is always observable (the 2.6 MB block holds one only when its
	// start happens to fall within 0.6 MB before a 2 MiB boundary).
	for i := range blockEntries * 15 {
		p.addEntry(entry{ref: uint64(i)})
	}
	if len(p.blocks) != 4 {
		t.Fatalf("%d blocks", len(p.blocks))
	}
	advised, err := hugemem.Advised(p.blocks[3])
	if errors.Is(err, hugemem.ErrUnobservable) {
		testenv.Missing(t, testenv.HugePages, "%v", err)
	}
	if err != nil || !advised {
		t.Fatalf("a %d-entry block is not advised for huge pages (%v)", cap(p.blocks[3]), err)
	}
}

// TestEngineLargeRecordResolution covers the bucket sort and the k-way merge with many
// records per worker against the reference.
func TestEngineLargeRecordResolution(t *testing.T) {
	n := 12000 // above the bucket-sort threshold (4096) per worker for 1 and 2 workers
	if testing.Short() {
		n = 9000
	}
	r := rand.New(rand.NewPCG(21, 22))
	c := mustContext(t, XXH3, Multiset)
	recs := make([][]uint64, n)
	for i := range recs {
		recs[i] = randRecord(r)
	}
	want := reference(c, recs, 0, []uint64{1})
	for _, w := range []int{1, 2} {
		got := run(t, c, Options{Workers: w, Resolution: ValueResolution, KeyFields: []uint64{1}}, split(r, strictID, recs))
		equalResults(t, fmt.Sprintf("workers %d", w), got, want)
	}
}

// TestSparseFieldIDs covers schemas whose ids are too large for the dense lookup table.
func TestSparseFieldIDs(t *testing.T) {
	s := SchemaDescriptor{RenamePolicy: RenameKeepsIdentity, Fields: []SchemaField{
		{ID: 5, Type: TypeInt}, {ID: 1 << 20, Type: TypeText}, {ID: math.MaxUint64 - 1, Type: TypeBool},
	}}
	c, err := NewContext(XXH3, strictID, s, Multiset)
	if err != nil {
		t.Fatal(err)
	}
	good := rec(frame(5, normalize.Int64, 7), frame(1<<20, normalize.Text, 0), frame(math.MaxUint64-1, normalize.Bool, 1))
	res := run(t, c, Options{Resolution: ValueResolution, KeyFields: []uint64{math.MaxUint64 - 1}},
		[]*normalize.RecordBatch{{ProfileID: strictID, Words: good, Offsets: []uint64{0}, Lengths: []uint64{uint64(len(good))}}})
	equalResults(t, "sparse", res, reference(c, [][]uint64{good}, 0, []uint64{math.MaxUint64 - 1}))
	for _, bad := range [][]uint64{
		rec(frame(6, normalize.Null)),
		rec(frame(1<<20+1, normalize.Null)),
		rec(frame(5, normalize.Bool, 1)),
	} {
		if _, err := c.RecordDigest(0, bad); CodeOf(err) != CodeSchemaMismatch {
			t.Errorf("%v: %v", bad, err)
		}
	}
}

// TestMergeSegments: the merge cut into segments merged in parallel (each worker's
// entries in many small blocks) gives exactly the one-segment merge (records, values,
// origins, key words), also with many equal entries
// (repeated records without a key, which straddle the pivots) and with 1 to 8 workers.
func TestMergeSegments(t *testing.T) {
	defer func(n, p int) { mergeSegmentMin = n; runtime.GOMAXPROCS(p) }(mergeSegmentMin, runtime.GOMAXPROCS(0))
	defer func(a, b int) { blockEntries, maxBlockEntries = a, b }(blockEntries, maxBlockEntries)
	r := rand.New(rand.NewPCG(51, 52))
	for round := range 24 {
		c, recs, keys, offset := randomRound(t, r, round, 600)
		if round%4 == 0 { // many equal records, no key: equal entries everywhere
			keys = nil
			for i := range recs {
				recs[i] = recs[r.IntN(min(len(recs), 5))]
			}
		}
		bs := split(r, strictID, recs)
		o := Options{Workers: 1 + r.IntN(8), ChunkRecords: 1 + r.IntN(40), Resolution: ValueResolution,
			KeyFields: keys, Offset: offset, Origins: true, KeyWords: true}
		mergeSegmentMin = 1 << 30
		want := run(t, c, o, bs)
		runtime.GOMAXPROCS(1 + round%8)
		mergeSegmentMin = 1 + r.IntN(20)
		blockEntries, maxBlockEntries = 1+r.IntN(4), 8 // entries in many blocks
		got := run(t, c, o, bs)
		blockEntries, maxBlockEntries = 1<<14, 1<<20
		runtime.GOMAXPROCS(2)
		what := fmt.Sprintf("round %d (%d records, %d workers)", round, len(recs), o.Workers)
		equalResults(t, what, got, want)
		if !slices.Equal(got.KeyWords, want.KeyWords) || !slices.Equal(got.KeyOffsets, want.KeyOffsets) || len(got.Origins) != len(want.Origins) {
			t.Fatalf("%s: key words or origin count differ from the one-segment merge", what)
		}
		// Equal entries may come in any order of their ordinals (which worker took which
		// chunk varies from run to run): compare the records the ordinals point at.
		for i := range got.Origins {
			if !slices.Equal(recs[got.Origins[i]], recs[want.Origins[i]]) {
				t.Fatalf("%s: entry %d comes from record %d, the one-segment merge says %d", what, i, got.Origins[i], want.Origins[i])
			}
		}
		if !slices.Equal(slices.Sorted(slices.Values(got.Origins)), seq(len(recs))) {
			t.Fatalf("%s: origins are not a permutation", what)
		}
	}
}

// TestEngineSelect: with Select, the state and column states are the unfiltered run's,
// and the entries, key words, value entries and origins are exactly the unfiltered
// run's entries whose key digest was accepted, in the same order; Select sees every
// record's key digest.
func TestEngineSelect(t *testing.T) {
	r := rand.New(rand.NewPCG(61, 62))
	for round := range 16 {
		c, recs, keys, offset := randomRound(t, r, round, 400)
		bs := split(r, strictID, recs)
		res := []Resolution{RecordResolution, ValueResolution}[round%2]
		o := Options{Workers: 1 + r.IntN(4), ChunkRecords: 1 + r.IntN(40), Resolution: res,
			KeyFields: keys, Offset: offset, Origins: true, KeyWords: true}
		all := run(t, c, o, bs)
		var mu sync.Mutex
		seen := 0
		accept := func(k Digest) bool { return k.Lo%3 == 0 } // about a third
		o.Select = func(k Digest) bool {
			mu.Lock()
			seen++
			mu.Unlock()
			return accept(k)
		}
		got := run(t, c, o, bs)
		what := fmt.Sprintf("round %d (%s, %d records)", round, res, len(recs))
		if seen != len(recs) {
			t.Fatalf("%s: Select saw %d keys, want %d", what, seen, len(recs))
		}
		want := &Result{State: all.State, Columns: all.Columns, KeyOffsets: []uint64{0}}
		if res == ValueResolution {
			want.ValueOffsets = []uint64{0}
		}
		for i := 0; i < len(all.Records)/RecordStride; i++ {
			if !accept(Digest{Lo: all.Records[i*RecordStride], Hi: all.Records[i*RecordStride+1]}) {
				continue
			}
			want.Records = append(want.Records, all.Records[i*RecordStride:(i+1)*RecordStride]...)
			want.KeyWords = append(want.KeyWords, all.KeyWords[all.KeyOffsets[i]:all.KeyOffsets[i+1]]...)
			want.KeyOffsets = append(want.KeyOffsets, uint64(len(want.KeyWords)))
			want.Origins = append(want.Origins, all.Origins[i])
			if res == ValueResolution {
				want.Values = append(want.Values, all.Values[all.ValueOffsets[i]*ValueStride:all.ValueOffsets[i+1]*ValueStride]...)
				want.ValueOffsets = append(want.ValueOffsets, uint64(len(want.Values)/ValueStride))
			}
		}
		equalResults(t, what, got, want)
		if !slices.Equal(got.KeyWords, want.KeyWords) || !slices.Equal(got.KeyOffsets, want.KeyOffsets) {
			t.Fatalf("%s: key words differ from the selected entries'", what)
		}
		// Equal entries may come in any order of their ordinals: compare the records.
		if len(got.Origins) != len(want.Origins) {
			t.Fatalf("%s: %d origins, want %d", what, len(got.Origins), len(want.Origins))
		}
		for i := range got.Origins {
			if !slices.Equal(recs[got.Origins[i]], recs[want.Origins[i]]) {
				t.Fatalf("%s: entry %d comes from record %d, want one equal to record %d", what, i, got.Origins[i], want.Origins[i])
			}
		}
	}
	if _, err := NewEngine(mustContext(t, XXH3, Multiset), Options{Select: func(Digest) bool { return true }}); err == nil {
		t.Error("Select at dataset resolution accepted")
	}
}
