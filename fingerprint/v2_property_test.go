package fingerprint

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/pipewhy/pipewhy/normalize"
)

// digestsOf returns the record digests of recs (at positions 0, 1, ...) under c.
func digestsOf(t *testing.T, c Context, recs [][]uint64) []Digest {
	t.Helper()
	out := make([]Digest, len(recs))
	for i, r := range recs {
		d, err := c.RecordDigest(uint64(i), r)
		if err != nil {
			t.Fatalf("record %d: %v", i, err)
		}
		out[i] = d
	}
	return out
}

// TestV2SamePartitionAsV1: on random records drawn from small domains (so that many are
// equal), two records have equal v2 digests exactly when they have equal v1 digests,
// exactly when their words are equal: v2 distinguishes everything v1 distinguishes and
// merges nothing v1 keeps apart.
func TestV2SamePartitionAsV1(t *testing.T) {
	r := rand.New(rand.NewPCG(21, 5))
	recs := make([][]uint64, 4000)
	for i := range recs {
		recs[i] = randRecordV2(r)
		if i > 0 && r.IntN(4) == 0 {
			recs[i] = recs[r.IntN(i)] // exact repeats
		}
	}
	for _, mode := range []Mode{Multiset, Ordered} {
		c1, err := NewContext(XXH3, ext1ID, v2Schema, mode)
		if err != nil {
			t.Fatal(err)
		}
		c2 := v2Context(t, mode)
		d1, d2 := digestsOf(t, c1, recs), digestsOf(t, c2, recs)
		if mode == Ordered {
			// Every record has its own position: all digests differ in both.
			if n1, n2 := len(distinct(d1)), len(distinct(d2)); n1 != len(recs) || n2 != len(recs) {
				t.Fatalf("ordered: %d and %d distinct digests of %d positions", n1, n2, len(recs))
			}
			continue
		}
		byWords := map[string]int{}
		v1Class, v2Class := map[Digest]int{}, map[Digest]int{}
		for i, rw := range recs {
			w := fmt.Sprint(rw)
			cls, ok := byWords[w]
			if !ok {
				cls = len(byWords)
				byWords[w] = cls
			}
			for _, m := range []struct {
				class map[Digest]int
				d     Digest
				name  string
			}{{v1Class, d1[i], "v1"}, {v2Class, d2[i], "v2"}} {
				if prev, ok := m.class[m.d]; ok && prev != cls {
					t.Fatalf("%s: records of different words share digest %x", m.name, m.d)
				}
				m.class[m.d] = cls
			}
		}
		if len(v1Class) != len(byWords) || len(v2Class) != len(byWords) {
			t.Fatalf("%d distinct records, %d v1 digests, %d v2 digests", len(byWords), len(v1Class), len(v2Class))
		}
		if len(byWords) > len(recs)*9/10 || len(byWords) < 100 {
			t.Fatalf("%d distinct of %d records: the test needs both repeats and variety", len(byWords), len(recs))
		}
	}
}

func distinct(ds []Digest) map[Digest]bool {
	m := map[Digest]bool{}
	for _, d := range ds {
		m[d] = true
	}
	return m
}

// withFrame returns base with the frame of field id replaced by fr (fr nil: removed), or
// added in id order.
func withFrame(base []uint64, id uint64, fr []uint64) []uint64 {
	var frames [][]uint64
	done := false
	for _, f := range refFrames(base) {
		switch {
		case f[0] == id:
			done = true
			if fr != nil {
				frames = append(frames, fr)
			}
			continue
		case f[0] > id && !done:
			done = true
			if fr != nil {
				frames = append(frames, fr)
			}
		}
		frames = append(frames, f)
	}
	if !done && fr != nil {
		frames = append(frames, fr)
	}
	return rec(frames...)
}

// TestV2NearMisses: pairs of different records that differ least (a value moved to
// another field, MISSING vs NULL vs empty vs absent, INT64 vs UINT64 of one word, a
// trailing zero byte, TEXT vs BYTES, TIMESTAMP vs TIMESTAMP_NS, any single bit of any
// word) have different v1 digests and different v2 digests, in both modes; and so do
// their states. Values exchanged between two records leave every column state equal
// but change the dataset state.
func TestV2NearMisses(t *testing.T) {
	r := rand.New(rand.NewPCG(21, 6))
	var pairs [][2][]uint64
	add := func(a, b []uint64) {
		for _, x := range [][]uint64{a, b} {
			if err := normalize.ValidateRecordWordsIn(x, normalize.StrictV1Ext1); err != nil {
				t.Fatalf("near-miss record %v: %v", x, err)
			}
		}
		if slices.Equal(a, b) {
			t.Fatalf("near-miss pair of equal records %v", a)
		}
		pairs = append(pairs, [2][]uint64{a, b})
	}
	absent := [][]uint64{nil, frame(40, normalize.Missing), frame(40, normalize.Null),
		frame(40, normalize.Text, 0), frame(40, normalize.Bytes, 0), frame(40, normalize.Bool, 0),
		frame(40, normalize.Uint64, 0), frame(40, normalize.Float64, 0), frame(40, normalize.Date, 0),
		frame(40, normalize.Time, 0), frame(40, normalize.Duration, 0, 0), frame(40, normalize.Nested, 0, 0)}
	for range 50 {
		base := randRecordV2(r)
		x, y := r.Uint64(), r.Uint64()>>1
		// A value moved between two int fields, exchanged, or moved next to a NULL.
		add(withFrame(withFrame(base, 1, frame(1, normalize.Uint64, y)), 16, frame(16, normalize.Uint64, x>>1)),
			withFrame(withFrame(base, 1, frame(1, normalize.Uint64, x>>1)), 16, frame(16, normalize.Uint64, y)))
		add(withFrame(withFrame(base, 1, frame(1, normalize.Uint64, y)), 16, frame(16, normalize.Null)),
			withFrame(withFrame(base, 1, frame(1, normalize.Null)), 16, frame(16, normalize.Uint64, y)))
		add(withFrame(base, 7, frame(7, normalize.Text, packed([]byte("v"))...)),
			withFrame(withFrame(base, 7, nil), 40, frame(40, normalize.Text, packed([]byte("v"))...)))
		// Absence and emptiness of field 40, every pair.
		for i := range absent {
			for j := i + 1; j < len(absent); j++ {
				add(withFrame(base, 40, absent[i]), withFrame(base, 40, absent[j]))
			}
		}
		// One word, two type codes.
		for _, codes := range [][2]normalize.TypeCode{{normalize.Int64, normalize.Uint64}, {normalize.Float64, normalize.Uint64},
			{normalize.Date, normalize.Time}, {normalize.Date, normalize.Int64}, {normalize.Bool, normalize.Uint64}} {
			w := x & 1
			add(withFrame(base, 40, frame(40, codes[0], w)), withFrame(base, 40, frame(40, codes[1], w)))
		}
		add(withFrame(base, 40, frame(40, normalize.Text, packed([]byte("ab"))...)), withFrame(base, 40, frame(40, normalize.Bytes, packed([]byte("ab"))...)))
		add(withFrame(base, 7, frame(7, normalize.Text, packed([]byte("a"))...)), withFrame(base, 7, frame(7, normalize.Text, packed([]byte("a\x00"))...)))
		ts := []uint64{2026, 1, 2, 3, 4, 5, 6, 0, 0, 0, 0}
		add(withFrame(base, 11, frame(11, normalize.Timestamp, ts...)), withFrame(base, 11, frame(11, normalize.TimestampNS, ts...)))
		// Any single bit of a payload word, and of a field id within the schema's order.
		fs := refFrames(base)
		p, f := 3, 0
		for ; f < len(fs); p, f = p+len(fs[f]), f+1 {
			for k := 3; k < len(fs[f]); k++ {
				b := slices.Clone(base)
				b[p+k] ^= 1 << r.IntN(64)
				if normalize.ValidateRecordWordsIn(b, normalize.StrictV1Ext1) == nil {
					add(base, b)
				}
			}
		}
	}
	for _, mode := range []Mode{Multiset, Ordered} {
		c1, err := NewContext(XXH3, ext1ID, v2Schema, mode)
		if err != nil {
			t.Fatal(err)
		}
		c2 := v2Context(t, mode)
		for i, pr := range pairs {
			pos := uint64(r.IntN(3))
			a1, _ := c1.RecordDigest(pos, pr[0])
			b1, _ := c1.RecordDigest(pos, pr[1])
			a2, err := c2.RecordDigest(pos, pr[0])
			if err != nil {
				t.Fatal(err)
			}
			b2, err := c2.RecordDigest(pos, pr[1])
			if err != nil {
				t.Fatal(err)
			}
			if a1 == b1 || a2 == b2 {
				t.Fatalf("%v pair %d: v1 equal %v, v2 equal %v:\n%v\n%v", mode, i, a1 == b1, a2 == b2, pr[0], pr[1])
			}
		}
	}
	if len(pairs) < 5000 {
		t.Fatalf("only %d near-miss pairs", len(pairs))
	}

	// Two records exchange their field 16 values: the column states stay equal (the same
	// values per field), the dataset state changes (the records are not the same).
	c := v2Context(t, Multiset)
	a := rec(frame(1, normalize.Uint64, 1), frame(16, normalize.Uint64, 10))
	b := rec(frame(1, normalize.Uint64, 2), frame(16, normalize.Uint64, 20))
	a2 := rec(frame(1, normalize.Uint64, 1), frame(16, normalize.Uint64, 20))
	b2 := rec(frame(1, normalize.Uint64, 2), frame(16, normalize.Uint64, 10))
	x := run(t, c, Options{Columns: true}, []*normalize.RecordBatch{batchOf(r, ext1ID, [][]uint64{a, b})})
	y := run(t, c, Options{Columns: true}, []*normalize.RecordBatch{batchOf(r, ext1ID, [][]uint64{a2, b2})})
	if eq, _ := x.State.Equal(y.State); eq {
		t.Fatal("exchanging values between records did not change the state")
	}
	for i := range x.Columns {
		if eq, _ := x.Columns[i].State.Equal(y.Columns[i].State); !eq {
			t.Fatalf("column %d state changed, but its values did not", x.Columns[i].Field)
		}
	}
}

// columnTable is a columnar source of rows: the same fields in every row.
type columnTable struct {
	ids   []uint64
	ints  []int64    // field 1
	texts []string   // field 7
	valid []byte     // field 7 validity
	bits  []uint64   // field 5
	ts    [][]uint64 // field 11 frames
}

func randTable(r *rand.Rand, n int) *columnTable {
	tb := &columnTable{ids: []uint64{1, 5, 7, 11}, valid: make([]byte, (n+7)/8)}
	for i := range n {
		tb.ints = append(tb.ints, int64(r.IntN(5))-2)
		tb.bits = append(tb.bits, uint64(r.IntN(3)))
		tb.texts = append(tb.texts, []string{"", "a", "ab", "name-000001", "a longer text value, more than sixteen bytes"}[r.IntN(5)])
		if r.IntN(5) > 0 {
			tb.valid[i/8] |= 1 << (i % 8)
		}
		tb.ts = append(tb.ts, frame(11, normalize.Timestamp, 2026, 1, uint64(1+r.IntN(3)), 0, 0, 0, 0, 0, 1, 0, 3, 0x435455))
	}
	return tb
}

// records returns rows lo..hi of the table as C2 records.
func (tb *columnTable) records(lo, hi int) [][]uint64 {
	var out [][]uint64
	for i := lo; i < hi; i++ {
		f1 := frame(1, normalize.Uint64, uint64(tb.ints[i]))
		if tb.ints[i] < 0 {
			f1 = frame(1, normalize.Int64, uint64(tb.ints[i]))
		}
		f7 := frame(7, normalize.Null)
		if tb.valid[i/8]>>(i%8)&1 != 0 {
			f7 = frame(7, normalize.Text, packed([]byte(tb.texts[i]))...)
		}
		out = append(out, rec(f1, frame(5, normalize.Float64, tb.bits[i]), f7, tb.ts[i]))
	}
	return out
}

// columnarStates fingerprints rows lo..hi (first at global position first) through the
// kernels in tiles of tileRows: the dataset state and the column states.
func columnarStates(t *testing.T, c Context, tb *columnTable, lo, hi int, first uint64, tileRows int) (State, []State) {
	t.Helper()
	k, err := NewColumnar(c, tb.ids)
	if err != nil {
		t.Fatal(err)
	}
	st := NewState(c)
	cols := make([]State, len(tb.ids))
	for i := range cols {
		cols[i] = NewState(c)
	}
	tile := NewTile(tileRows, len(tb.ids))
	recs := make([]Digest, tileRows)
	vals := make([]Digest, tileRows)
	for a := lo; a < hi; a += tileRows {
		b := min(a+tileRows, hi)
		n := b - a
		tl := tile.Slice(0, n)
		var offs []int32
		var data []byte
		offs = append(offs, 0)
		for i := a; i < b; i++ {
			data = append(data, tb.texts[i]...)
			offs = append(offs, int32(len(data)))
		}
		var tsw []uint64
		for i := a; i < b; i++ {
			tsw = append(tsw, tb.ts[i]...)
		}
		steps := []error{
			second(Ints(k, tl, 0, tb.ints[a:b], Validity{})),
			second(Words(k, tl, 1, normalize.Float64, tb.bits[a:b], Validity{})),
			second(Strings(k, tl, 2, normalize.Text, offs, data, Validity{Bits: tb.valid, Offset: a})),
			second(k.Frames(tl, 3, n, tsw)),
		}
		for _, err := range steps {
			if err != nil {
				t.Fatal(err)
			}
		}
		if _, err := k.Records(recs[:n], tl, first+uint64(a-lo)); err != nil {
			t.Fatal(err)
		}
		for _, d := range recs[:n] {
			if err := st.Add(d); err != nil {
				t.Fatal(err)
			}
		}
		for j := range tb.ids {
			if _, err := k.Values(vals[:n], tl, j, first+uint64(a-lo)); err != nil {
				t.Fatal(err)
			}
			for _, d := range vals[:n] {
				if err := cols[j].Add(d); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
	return st, cols
}

func equalStates(t *testing.T, what string, a, b State, ac, bc []State) {
	t.Helper()
	if eq, err := a.Equal(b); err != nil || !eq {
		t.Fatalf("%s: state %v, want %v (%v)", what, a.Words(), b.Words(), err)
	}
	for i := range ac {
		if eq, err := ac[i].Equal(bc[i]); err != nil || !eq {
			t.Fatalf("%s: column %d state %v, want %v (%v)", what, i, ac[i].Words(), bc[i].Words(), err)
		}
	}
}

// TestV2ColumnarStates: through the kernels, states do not depend on tile boundaries or
// (in Multiset mode) row order; partitions fingerprinted apart (in Ordered mode with
// their offsets) merge into the one-pass state, and subtracting a partition gives the
// rest; every state equals the Engine's on the C2 records of the same rows.
func TestV2ColumnarStates(t *testing.T) {
	r := rand.New(rand.NewPCG(21, 7))
	const n = 700
	tb := randTable(r, n)
	for _, mode := range []Mode{Multiset, Ordered} {
		c := v2Context(t, mode)
		whole, wholeCols := columnarStates(t, c, tb, 0, n, 0, 64)
		eng := run(t, c, Options{Columns: true}, split(r, ext1ID, tb.records(0, n)))
		var engCols []State
		for _, id := range tb.ids {
			engCols = append(engCols, eng.Columns[slices.IndexFunc(eng.Columns, func(cs ColumnState) bool { return cs.Field == id })].State)
		}
		equalStates(t, fmt.Sprintf("%v: columnar vs engine", mode), whole, eng.State, wholeCols, engCols)

		for trial := range 6 {
			tileRows := 1 + r.IntN(200)
			got, gotCols := columnarStates(t, c, tb, 0, n, 0, tileRows)
			equalStates(t, fmt.Sprintf("%v: tiles of %d rows", mode, tileRows), got, whole, gotCols, wholeCols)

			cut := r.IntN(n + 1)
			head, headCols := columnarStates(t, c, tb, 0, cut, 0, 1+r.IntN(100))
			tail, tailCols := columnarStates(t, c, tb, cut, n, uint64(cut), 1+r.IntN(100))
			if err := head.Merge(tail); err != nil {
				t.Fatal(err)
			}
			for i := range headCols {
				if err := headCols[i].Merge(tailCols[i]); err != nil {
					t.Fatal(err)
				}
			}
			equalStates(t, fmt.Sprintf("%v trial %d: partitions at %d merged", mode, trial, cut), head, whole, headCols, wholeCols)
			if err := head.Subtract(tail); err != nil {
				t.Fatal(err)
			}
			first, _ := columnarStates(t, c, tb, 0, cut, 0, 7)
			if eq, _ := head.Equal(first); !eq {
				t.Fatalf("%v trial %d: whole minus tail is not the head", mode, trial)
			}
		}

		// Row order: a shuffled table gives the same Multiset state, another Ordered one.
		perm := r.Perm(n)
		sh := &columnTable{ids: tb.ids, valid: make([]byte, len(tb.valid))}
		for i, p := range perm {
			sh.ints = append(sh.ints, tb.ints[p])
			sh.bits = append(sh.bits, tb.bits[p])
			sh.texts = append(sh.texts, tb.texts[p])
			sh.ts = append(sh.ts, tb.ts[p])
			if tb.valid[p/8]>>(p%8)&1 != 0 {
				sh.valid[i/8] |= 1 << (i % 8)
			}
		}
		got, gotCols := columnarStates(t, c, sh, 0, n, 0, 1+r.IntN(300))
		eq, _ := got.Equal(whole)
		if mode == Multiset {
			equalStates(t, "shuffled rows", got, whole, gotCols, wholeCols)
		} else if eq {
			t.Fatal("ordered: shuffled rows give the same state")
		}
	}
}
