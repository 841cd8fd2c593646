package fingerprint

import (
	"context"
	"encoding/binary"
	"errors"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/pipewhy/pipewhy/normalize"
)

// TestTrustedFramesEqual: on valid records, Options.TrustedFrames changes nothing: the
// result equals the reference computed from the contract's definitions, at every
// resolution, for any worker count and batch split.
func TestTrustedFramesEqual(t *testing.T) {
	r := rand.New(rand.NewPCG(71, 72))
	c := mustContext(t, XXH3, Multiset)
	recs := make([][]uint64, 700)
	for i := range recs {
		recs[i] = randRecord(r)
	}
	for _, keys := range [][]uint64{nil, {1}, {1, 7}} {
		// Records lacking a key field would be an error; keep those that carry them all.
		var kept [][]uint64
		for _, w := range recs {
			if hasFields(w, keys) {
				kept = append(kept, w)
			}
		}
		want := reference(c, kept, 0, keys)
		for _, workers := range []int{1, 3} {
			for _, trusted := range []bool{false, true} {
				bs := split(r, strictID, kept)
				got := run(t, c, Options{Workers: workers, ChunkRecords: 1 + r.IntN(50), Resolution: ValueResolution,
					KeyFields: keys, TrustedFrames: trusted}, bs)
				equalResults(t, "value resolution", got, want)
				ds := run(t, c, Options{Workers: workers, Columns: true, TrustedFrames: trusted}, bs)
				if eq, _ := ds.State.Equal(want.State); !eq {
					t.Fatalf("keys %v trusted %v: dataset state differs", keys, trusted)
				}
			}
		}
	}
}

func hasFields(rec []uint64, ids []uint64) bool {
	for _, id := range ids {
		found := false
		for p := 3; p < len(rec); p += 3 + int(rec[p+2]) {
			found = found || rec[p] == id
		}
		if !found {
			return false
		}
	}
	return true
}

// TestTrustedFramesMalformed: with TrustedFrames, every framing fault the engine relies
// on is still an error with a stable code at the right batch and record.
func TestTrustedFramesMalformed(t *testing.T) {
	c := mustContext(t, XXH3, Multiset)
	good := rec(frame(1, normalize.Uint64, 5), frame(7, normalize.Text, packed([]byte("x"))...))
	one := func(words []uint64) *normalize.RecordBatch {
		return &normalize.RecordBatch{ProfileID: strictID, Words: words, Offsets: []uint64{0}, Lengths: []uint64{uint64(len(words))}}
	}
	keyed := Options{Resolution: ValueResolution, KeyFields: []uint64{1, 7}}
	for name, tc := range map[string]struct {
		opt  Options
		b    *normalize.RecordBatch
		code Code
		rec  int
	}{
		"bounds":          {Options{}, &normalize.RecordBatch{ProfileID: strictID, Words: good, Offsets: []uint64{1}, Lengths: []uint64{uint64(len(good))}}, CodeRecord, 0},
		"overflow bounds": {Options{}, &normalize.RecordBatch{ProfileID: strictID, Words: good, Offsets: []uint64{2}, Lengths: []uint64{1 << 63}}, CodeRecord, 0},
		"empty record":    {Options{}, one([]uint64{}), CodeRecord, 0},
		"short header":    {Options{}, one([]uint64{1, 2}), CodeRecord, 0},
		"wire version":    {Options{}, one([]uint64{2, 2, 0}), CodeRecord, 0},
		"domain":          {Options{}, one([]uint64{1, 3, 0}), CodeRecord, 0},
		"count too big":   {Options{}, one([]uint64{1, 2, 1}), CodeRecord, 0},
		"count too small": {Options{}, one(append([]uint64{1, 2, 1}, good[3:]...)), CodeRecord, 0},
		"huge count":      {Options{}, one([]uint64{1, 2, 1 << 62}), CodeRecord, 0},
		"trailing word":   {keyed, one(append(slices.Clone(good), 0)), CodeRecord, 0},
		"trailing words":  {keyed, one(append(slices.Clone(good), 0, 0, 0)), CodeRecord, 0},
		"truncated frame": {keyed, one(good[:len(good)-1]), CodeRecord, 0},
		"header cut":      {Options{}, one([]uint64{1, 2, 1, 1, 3}), CodeRecord, 0},
		"huge payload":    {keyed, one([]uint64{1, 2, 1, 1, 3, 1 << 63}), CodeRecord, 0},
		"max payload":     {keyed, one([]uint64{1, 2, 1, 1, 3, ^uint64(0)}), CodeRecord, 0},
		"ids equal":       {Options{}, one(rec(frame(1, normalize.Uint64, 5), frame(1, normalize.Uint64, 5))), CodeRecord, 0},
		"ids decrease":    {Options{}, one(rec(frame(7, normalize.Null), frame(1, normalize.Uint64, 5))), CodeRecord, 0},
		"tag above v1":    {Options{}, one(rec(frame(1, normalize.TypeCode(10), 5))), CodeRecord, 0},
		"tag 64":          {Options{}, one(rec(frame(1, normalize.TypeCode(64), 5))), CodeRecord, 0},
		"tag max":         {Options{}, one(rec(frame(1, normalize.TypeCode(255), 5))), CodeRecord, 0},
		"field max id":    {Options{}, one(rec(frame(^uint64(0), normalize.Null))), CodeSchemaMismatch, 0},
		"unknown field":   {Options{}, one(rec(frame(3, normalize.Uint64, 1))), CodeSchemaMismatch, 0},
		"wrong type":      {Options{}, one(rec(frame(1, normalize.Float64, 1))), CodeSchemaMismatch, 0},
		"missing key":     {keyed, one(rec(frame(1, normalize.Uint64, 5))), CodeKeyField, 0},
	} {
		tc.opt.TrustedFrames = true
		e, err := NewEngine(c, tc.opt)
		if err != nil {
			t.Fatal(err)
		}
		res, err := e.Run(context.Background(), seqOf(one(good), tc.b, one(good)))
		var fe *Error
		if res != nil || !errors.As(err, &fe) || fe.Code != tc.code || fe.Batch != 1 || fe.Record != tc.rec {
			t.Errorf("%s: %v (result %v), want %s at batch 1 record %d", name, err, res, tc.code, tc.rec)
		}
	}
	// Only payload shapes are skipped: a text payload whose byte count disagrees with its
	// word count is digested as it is (the untrusted engine refuses it).
	bad := rec(frame(1, normalize.Uint64, 5), frame(7, normalize.Text, 100, 0))
	if err := checkBoth(c, Options{Resolution: ValueResolution, KeyFields: []uint64{1}}, [][]uint64{bad}); err != nil {
		t.Error(err)
	}
	e, _ := NewEngine(c, Options{TrustedFrames: true})
	if _, err := e.Run(context.Background(), seqOf(one(bad))); err != nil {
		t.Errorf("trusted payload shape: %v", err)
	}
}

// checkBoth runs recs (one batch) through the engine with and without TrustedFrames and
// checks the contract between the two: the trusted engine never panics (a panic fails
// the test), accepts everything the untrusted one accepts with an equal result, and
// accepts more only where the untrusted engine's sole objection is a payload shape.
func checkBoth(c Context, o Options, recs [][]uint64) error {
	b := &normalize.RecordBatch{ProfileID: strictID}
	for _, w := range recs {
		b.Offsets = append(b.Offsets, uint64(len(b.Words)))
		b.Lengths = append(b.Lengths, uint64(len(w)))
		b.Words = append(b.Words, w...)
	}
	o.TrustedFrames = false
	eu, err := NewEngine(c, o)
	if err != nil {
		return err
	}
	o.TrustedFrames = true
	et, _ := NewEngine(c, o)
	ru, erru := eu.Run(context.Background(), seqOf(b))
	rt, errt := et.Run(context.Background(), seqOf(b))
	switch {
	case erru == nil && errt != nil:
		return errors.New("trusted refuses what untrusted accepts: " + errt.Error())
	case erru == nil:
		if eq, _ := ru.State.Equal(rt.State); !eq || !slices.Equal(ru.Records, rt.Records) || !slices.Equal(ru.Values, rt.Values) {
			return errors.New("trusted result differs")
		}
	case errt == nil && normalize.CodeOf(erru) != normalize.CodeBatchPayload:
		return errors.New("trusted accepts a record refused for more than its payload shape: " + erru.Error())
	case errt != nil && CodeOf(errt) == "":
		return errors.New("trusted error without a code: " + errt.Error())
	}
	return nil
}

// TestTrustedFramesMutations: random word mutations of valid records never make the
// trusted engine panic or accept more than payload-shape faults.
func TestTrustedFramesMutations(t *testing.T) {
	r := rand.New(rand.NewPCG(73, 74))
	c := mustContext(t, XXH3, Multiset)
	n := 3000
	if testing.Short() {
		n = 300
	}
	for range n {
		w := mutate(r, randRecord(r))
		for _, o := range []Options{{Columns: true}, {Resolution: ValueResolution, KeyFields: []uint64{1, 7}}, {Resolution: RecordResolution}} {
			if err := checkBoth(c, o, [][]uint64{w}); err != nil {
				t.Fatalf("record %v: %v", w, err)
			}
		}
	}
}

func mutate(r *rand.Rand, w []uint64) []uint64 {
	w = slices.Clone(w)
	for range 1 + r.IntN(3) {
		switch r.IntN(5) {
		case 0:
			w[r.IntN(len(w))] = uint64(r.IntN(16))
		case 1:
			w[r.IntN(len(w))] = r.Uint64()
		case 2:
			w[r.IntN(len(w))] += uint64(r.IntN(3)) - 1
		case 3:
			w = w[:r.IntN(len(w))+1]
		case 4:
			w = append(w, uint64(r.IntN(4)))
		}
	}
	return w
}

// FuzzTrustedFrames: any words, as one record, keep the contract of checkBoth.
func FuzzTrustedFrames(f *testing.F) {
	r := rand.New(rand.NewPCG(75, 76))
	for range 20 {
		f.Add(recordBytes(randRecord(r)))
		f.Add(recordBytes(mutate(r, randRecord(r))))
	}
	c := mustContext(f, XXH3, Multiset)
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > 1<<16 { // bounds each run, and so each minimization
			t.Skip("input over 64 KiB")
		}
		w := make([]uint64, len(data)/8)
		for i := range w {
			w[i] = binary.LittleEndian.Uint64(data[8*i:])
		}
		for _, o := range []Options{{Columns: true}, {Resolution: ValueResolution, KeyFields: []uint64{1}}} {
			if err := checkBoth(c, o, [][]uint64{w}); err != nil {
				t.Fatal(err)
			}
		}
	})
}

func recordBytes(w []uint64) []byte {
	b := make([]byte, 0, 8*len(w))
	for _, x := range w {
		b = binary.LittleEndian.AppendUint64(b, x)
	}
	return b
}

// TestOrigins: Result.Origins names, for each entry, the input record (by its ordinal
// over the run's batches) whose digests the entry holds, as a permutation; an ordered
// run's Offset does not shift it. Result.KeyWords holds that record's key projection.
func TestOrigins(t *testing.T) {
	r := rand.New(rand.NewPCG(77, 78))
	for _, mode := range []Mode{Multiset, Ordered} {
		c := mustContext(t, XXH3, mode)
		recs := make([][]uint64, 900)
		for i := range recs {
			recs[i] = randRecord(r)
		}
		offset := uint64(0)
		if mode == Ordered {
			offset = 1000
		}
		for _, keys := range [][]uint64{nil, {1}} {
			for _, res := range []Resolution{RecordResolution, ValueResolution} {
				bs := split(r, strictID, recs)
				got := run(t, c, Options{Workers: 3, ChunkRecords: 1 + r.IntN(40), Resolution: res, KeyFields: keys,
					Origins: true, KeyWords: true, Offset: offset, TrustedFrames: r.IntN(2) == 0}, bs)
				if len(got.Origins) != len(recs) || len(got.KeyOffsets) != len(recs)+1 || got.KeyOffsets[0] != 0 ||
					got.KeyOffsets[len(recs)] != uint64(len(got.KeyWords)) {
					t.Fatalf("%d origins for %d records", len(got.Origins), len(recs))
				}
				seen := make([]bool, len(recs))
				// The expected entry of every input record, from the definitions.
				for e, o := range got.Origins {
					if o >= uint64(len(recs)) || seen[o] {
						t.Fatalf("origin %d out of range or repeated", o)
					}
					seen[o] = true
					w := recs[o]
					proj := w
					if keys != nil {
						proj = []uint64{1, 2, 1}
						proj = append(proj, w[3:3+3+int(w[5])]...) // field 1 is always first
					}
					k := refDigest(c, XXH3, false, 0, proj)
					d := refDigest(c, XXH3, mode == Ordered, offset+o, w)
					if !slices.Equal(got.Records[e*RecordStride:(e+1)*RecordStride], []uint64{k.Lo, k.Hi, d.Lo, d.Hi}) {
						t.Fatalf("%v keys %v: entry %d is not the digests of record %d", mode, keys, e, o)
					}
					if !slices.Equal(got.KeyWords[got.KeyOffsets[e]:got.KeyOffsets[e+1]], proj) {
						t.Fatalf("%v keys %v: entry %d key words are not record %d's key", mode, keys, e, o)
					}
				}
				if res == RecordResolution {
					without := run(t, c, Options{Resolution: res, KeyFields: keys, Offset: offset}, bs)
					if without.Origins != nil || without.KeyWords != nil || without.KeyOffsets != nil || !slices.Equal(without.Records, got.Records) {
						t.Fatal("Origins changed the records, or came unasked")
					}
				}
			}
		}
	}
}

// TestKeyStore: keys of any length, longer than a chunk included, come back whole,
// across chunks of every size up to keyChunkMax.
func TestKeyStore(t *testing.T) {
	var s wordStore
	var want [][]uint64
	lens := []int{0, 1, 7, keyChunkMin - 3, 5, keyChunkMin + 9, 2, keyChunkMin, 0, 3, bigKey - 1, bigKey, 1, bigKey + 1, keyChunkMin / 2, keyChunkMin / 2, keyChunkMin / 2}
	for total := 0; total < 3*keyChunkMax; total += 9001 {
		lens = append(lens, 9001)
	}
	lens = append(lens, 7, bigKey-1, 3)
	for i, n := range lens {
		k := make([]uint64, n)
		for j := range k {
			k[j] = uint64(i)<<32 | uint64(j)
		}
		s.add(k)
		want = append(want, k)
	}
	total := 0
	for j, k := range want {
		total += len(k)
		if !slices.Equal(s.at(uint64(j)), k) {
			t.Fatalf("key %d (%d words) differs", j, len(k))
		}
	}
	if s.total != total {
		t.Fatalf("total %d, want %d", s.total, total)
	}
	if c := cap(s.chunks[len(s.chunks)-2]); c != keyChunkMax {
		t.Fatalf("chunks grew to %d words, want %d", c, keyChunkMax)
	}
}

// TestKeyStoreTemplate: a framed store keeps runs shaped like its first (equal outside
// the frames' payload words) as their payload words alone, and gives every run back
// whole: those, runs of another shape (another field, type, length or header), runs that
// are not well-formed records, empty runs and runs too long for a chunk.
func TestKeyStoreTemplate(t *testing.T) {
	r := rand.New(rand.NewPCG(61, 62))
	int1 := func(v uint64) []uint64 { return []uint64{1, 2, 2, 5, 3, 1, v, 9, 6, 2, v ^ 7, v + 1} }
	s := wordStore{framed: true}
	var want [][]uint64
	stored := 0 // words the chunks should hold
	add := func(k []uint64, templated bool) {
		s.add(k)
		want = append(want, k)
		if templated {
			stored += 3 // the template's payload words
		} else {
			stored += len(k)
		}
	}
	for i := range 5000 {
		v := r.Uint64()
		switch i % 50 {
		case 7: // another type code in the first frame
			k := int1(v)
			k[4] = 4
			add(k, false)
		case 13: // another payload length
			add([]uint64{1, 2, 2, 5, 3, 2, v, v, 9, 6, 2, 1, 2}, false)
		case 21: // another header
			k := int1(v)
			k[2] = 3
			add(k, false)
		case 29: // not a record
			add([]uint64{v, v}, false)
		case 33:
			add(nil, false)
		case 41: // a frame that runs past the end
			add([]uint64{1, 2, 1, 5, 3, 9, v}, false)
		default:
			add(int1(v), true)
		}
	}
	big := make([]uint64, bigKey+2)
	big[0], big[1], big[2], big[3], big[4], big[5] = 1, 2, 1, 5, 5, bigKey-4
	add(big, false)
	add(int1(42), true)
	total, held := 0, 0
	for j, k := range want {
		total += len(k)
		if got := s.at(uint64(j)); !slices.Equal(got, k) {
			t.Fatalf("run %d: %v, want %v", j, got, k)
		}
		w := s.where.at(uint64(j))
		dst := make([]uint64, len(k)+1)
		if n := s.copyRun(dst, w); n != len(k) || s.size(w) != len(k) || !slices.Equal(dst[:n], k) {
			t.Fatalf("run %d: copyRun wrote %d words %v, size %d", j, n, dst[:n], s.size(w))
		}
	}
	for _, c := range s.chunks {
		held += len(c)
	}
	if s.total != total || held != stored {
		t.Fatalf("total %d (want %d), %d words held (want %d)", s.total, total, held, stored)
	}
	// A first run that is not a record leaves the store without a template.
	s = wordStore{framed: true}
	s.add([]uint64{1, 2})
	s.add(int1(3))
	if s.payload != nil || !slices.Equal(s.at(1), int1(3)) {
		t.Fatalf("template %v from a first run that is not a record", s.payload)
	}
}

// TestBlockList: every word comes back, across blocks of doubling size.
func TestBlockList(t *testing.T) {
	var l blockList
	const n = listBase*(1<<6-1) + 5 // six full blocks and five words of the seventh
	for i := range uint64(n) {
		l.add(i*0x9e3779b97f4a7c15 + 1)
	}
	if len(l.blocks) != 7 || l.n != n {
		t.Fatalf("%d blocks, %d words", len(l.blocks), l.n)
	}
	for i := range uint64(n) {
		if got := l.at(i); got != i*0x9e3779b97f4a7c15+1 {
			t.Fatalf("word %d: %#x", i, got)
		}
	}
}
