package fingerprint

import (
	"encoding/binary"
	"math/rand/v2"
	"testing"

	"github.com/pipewhy/pipewhy/internal/cputime"
	"github.com/pipewhy/pipewhy/normalize"
)

// benchTile is the rows of one tile in the v2 benchmarks: it and its columns stay in
// cache, as a scan's tiles do.
const benchTile = 2048

// loopCPU runs f in b.Loop and reports wall and CPU nanoseconds per unit (n units per
// op). The CPU time (the process's, see cputime) is the figure to compare on a loaded
// machine: it counts only the time the benchmark ran.
func loopCPU(b *testing.B, n int, unit string, f func()) {
	start := cputime.Process()
	for b.Loop() {
		f()
	}
	cpu := cputime.Process() - start
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/"+unit)
	if cpu > 0 {
		b.ReportMetric(float64(cpu.Nanoseconds())/float64(b.N*n), "cpu-ns/"+unit)
	}
}

// BenchmarkColumnarKernels is each kernel on one tile of benchTile rows per op: the cost
// of a field digest per value of each column type, computed from column buffers.
func BenchmarkColumnarKernels(b *testing.B) {
	schema := SchemaDescriptor{RenamePolicy: RenameKeepsIdentity, Fields: []SchemaField{
		{ID: 1, Type: TypeInt}, {ID: 2, Type: TypeBool}, {ID: 3, Type: TypeFloat64}, {ID: 4, Type: TypeText},
		{ID: 5, Type: TypeTimestamp}, {ID: 6, Type: TypeDecimal},
	}}
	c, err := NewContext(XXH3Columnar, strictID, schema, Multiset)
	if err != nil {
		b.Fatal(err)
	}
	k, err := NewColumnar(c, []uint64{1, 2, 3, 4, 5, 6})
	if err != nil {
		b.Fatal(err)
	}
	const n = benchTile
	tile := NewTile(n, 6)
	rng := rand.New(rand.NewPCG(21, 10))
	i64 := make([]int64, n)
	i32 := make([]int32, n)
	u64 := make([]uint64, n)
	bits := make([]byte, n/8)
	nulls := make([]byte, n/8)
	for i := range n {
		i64[i] = int64(rng.Uint64())
		i32[i] = int32(rng.Uint32())
		u64[i] = rng.Uint64()
		if rng.IntN(10) > 0 {
			nulls[i/8] |= 1 << (i % 8)
		}
	}
	for i := range bits {
		bits[i] = byte(rng.Uint32())
	}
	text := func(size int) ([]int32, []byte) {
		offs := []int32{0}
		var data []byte
		for range n {
			for range size {
				data = append(data, byte('a'+rng.IntN(26)))
			}
			offs = append(offs, int32(len(data)))
		}
		return offs, data
	}
	frames := func(payload func() []uint64, code normalize.TypeCode, id uint64) []uint64 {
		var w []uint64
		for range n {
			w = append(w, frame(id, code, payload()...)...)
		}
		return w
	}
	utc := frames(func() []uint64 {
		return []uint64{2026, 11, uint64(1 + rng.IntN(28)), uint64(rng.IntN(24)), 30, 45, uint64(rng.IntN(1e6)), 0, 1, 0, 3, 0x435455}
	}, normalize.Timestamp, 5)
	dec := frames(func() []uint64 { return []uint64{0, 0, 1, 2, 7, 1, uint64(rng.IntN(1e7))} }, normalize.Decimal, 6)
	check := func(_ Digest, err error) {
		if err != nil {
			b.Fatal(err)
		}
	}
	run := func(name string, f func()) {
		b.Run(name, func(b *testing.B) { loopCPU(b, n, "value", f) })
	}
	run("int64", func() { check(Ints(k, tile, 0, i64, Validity{})) })
	run("int64-nulls", func() { check(Ints(k, tile, 0, i64, Validity{Bits: nulls})) })
	run("int32", func() { check(Ints(k, tile, 0, i32, Validity{})) })
	run("uint64", func() { check(Uints(k, tile, 0, u64, Validity{})) })
	run("float64", func() { check(Words(k, tile, 2, normalize.Float64, u64, Validity{})) })
	run("bool", func() { check(k.Bools(tile, 1, n, bits, 0, Validity{})) })
	for _, size := range []int{0, 8, 12, 40, 200} {
		offs, data := text(size)
		run("text"+uitoa(uint64(size)), func() { check(Strings(k, tile, 3, normalize.Text, offs, data, Validity{})) })
	}
	{ // random lengths of 8 to 16 bytes, as in bench/algorithms.sh's entropy file
		offs := []int32{0}
		var data []byte
		for range n {
			for range 8 + rng.IntN(9) {
				data = append(data, byte('a'+rng.IntN(26)))
			}
			offs = append(offs, int32(len(data)))
		}
		run("text8to16", func() { check(Strings(k, tile, 3, normalize.Text, offs, data, Validity{})) })
	}
	run("timestamp-frames", func() { check(k.Frames(tile, 4, n, utc)) })
	// The same instants' kind of values as counts: random microseconds in 1970..2100.
	us := make([]int64, n)
	for i := range us {
		us[i] = rng.Int64N(4_102_444_800_000_000)
	}
	ts := func(_ Digest, inRange bool, err error) {
		if err != nil || !inRange {
			b.Fatal(err, inRange)
		}
	}
	run("timestamp-us-utc", func() { ts(Timestamps(k, tile, 4, us, 1_000_000, TimestampUTC, Validity{})) })
	run("timestamp-us-naive", func() { ts(Timestamps(k, tile, 4, us, 1_000_000, TimestampNaive, Validity{})) })
	run("decimal-frames", func() { check(k.Frames(tile, 5, n, dec)) })
	for _, cols := range []int{1, 5, 13, 32} {
		kc, err := NewColumnar(mustWideContext(b, cols), firstIDs(cols))
		if err != nil {
			b.Fatal(err)
		}
		wt := NewTile(n, cols)
		for i := range wt.Digests {
			wt.Digests[i] = Digest{rng.Uint64(), rng.Uint64()}
		}
		dst := make([]Digest, n)
		run("records/fields="+uitoa(uint64(cols)), func() { check(kc.Records(dst, wt, 0)) })
	}
}

func firstIDs(n int) []uint64 {
	ids := make([]uint64, n)
	for i := range ids {
		ids[i] = uint64(i)
	}
	return ids
}

// mustWideContext is a v2 context of n int fields with ids 0..n-1.
func mustWideContext(b *testing.B, n int) Context {
	s := SchemaDescriptor{RenamePolicy: RenameKeepsIdentity}
	for _, id := range firstIDs(n) {
		s.Fields = append(s.Fields, SchemaField{ID: id, Type: TypeInt})
	}
	c, err := NewContext(XXH3Columnar, strictID, s, Multiset)
	if err != nil {
		b.Fatal(err)
	}
	return c
}

// scanShapeColumns returns scanShapeTile's records as the columns a columnar source
// holds: the two int64 columns, the float64 bits, the text in Arrow layout, and the
// timestamp frames (whose C2 conversion both algorithms need and neither benchmark times).
func scanShapeColumns(batch *normalize.RecordBatch) (id, qty []int64, price []uint64, offs []int32, text []byte, ts []uint64) {
	offs = []int32{0}
	for i := range batch.Len() {
		fs := refFrames(batch.Record(i))
		id = append(id, int64(fs[0][3]))
		qty = append(qty, int64(fs[1][3]))
		price = append(price, fs[2][3])
		n := int(fs[3][3])
		var raw []byte
		for _, w := range fs[3][4:] {
			raw = binary.LittleEndian.AppendUint64(raw, w)
		}
		text = append(text, raw[:n]...)
		offs = append(offs, int32(len(text)))
		ts = append(ts, fs[4]...)
	}
	return
}

// BenchmarkScanShapeV2 compares, on BenchmarkScanShapeFloor's tile (issue 7's rows:
// int64, int64, float64, 12-character text, UTC timestamp), what the dataset resolution
// must compute per record under each algorithm, nothing else:
//
//   - path=v1-floor: the v1 record digest and the five v1 value digests of the column
//     states, from the C2 words (BenchmarkScanShapeFloor's "floor");
//   - path=v1-record-only: the v1 record digests alone (no column states);
//   - path=v2-columnar: the five field-digest kernels on the columns and the record
//     digests from the tile, summed (the kernels' sums are the column states);
//   - path=v2-words: the v2 record digests from the C2 words (v2Hasher.record: field
//     digests and record digest), as the Engine computes them today.
func BenchmarkScanShapeV2(b *testing.B) {
	const n = benchTile
	c1, batch, spans := scanShapeTile(b, n)
	c2, err := NewContext(XXH3Columnar, strictID, c1.Schema(), Multiset)
	if err != nil {
		b.Fatal(err)
	}
	b.Run("path=v1-floor", v1Floor(c1, batch, spans, true))
	b.Run("path=v1-record-only", v1Floor(c1, batch, spans, false))
	id, qty, price, offs, text, ts := scanShapeColumns(batch)
	k, err := NewColumnar(c2, []uint64{1, 2, 3, 4, 5})
	if err != nil {
		b.Fatal(err)
	}
	tile := NewTile(n, 5)
	recs := make([]Digest, n)
	b.Run("path=v2-columnar", func(b *testing.B) {
		var lanes [12]uint64
		add := func(i int, d Digest, err error) {
			if err != nil {
				b.Fatal(err)
			}
			lanes[i] += d.Lo
			lanes[i+1] += d.Hi
		}
		loopCPU(b, n, "record", func() {
			d, err := Ints(k, tile, 0, id, Validity{})
			add(2, d, err)
			d, err = Ints(k, tile, 1, qty, Validity{})
			add(4, d, err)
			d, err = Words(k, tile, 2, normalize.Float64, price, Validity{})
			add(6, d, err)
			d, err = Strings(k, tile, 3, normalize.Text, offs, text, Validity{})
			add(8, d, err)
			d, err = k.Frames(tile, 4, n, ts)
			add(10, d, err)
			d, err = k.Records(recs, tile, 0)
			add(0, d, err)
		})
		sink += lanes[0] ^ lanes[11]
	})
	b.Run("path=v2-words", v2Words(c2, batch))
}

// v2Words digests each record of batch from its C2 words under v2 context c, summing into
// lanes, and reports wall and CPU ns/record.
func v2Words(c Context, batch *normalize.RecordBatch) func(b *testing.B) {
	return func(b *testing.B) {
		h := newV2Hasher(c)
		var lo, hi uint64
		loopCPU(b, batch.Len(), "record", func() {
			for i := range batch.Len() {
				off, ln := batch.Offsets[i], batch.Lengths[i]
				d := h.record(false, 0, batch.Words[off:off+ln])
				lo += d.Lo
				hi += d.Hi
			}
		})
		sink += lo ^ hi
	}
}

// BenchmarkWords32V2 is BenchmarkScanShapeV2's comparison on BenchmarkDigestSum's 32-word
// records (a UINT64 and a 168-byte TEXT), benchTile of them, in cache.
func BenchmarkWords32V2(b *testing.B) {
	const n = benchTile
	c1 := mustContext(b, XXH3, Multiset)
	c2 := mustContext(b, XXH3Columnar, Multiset)
	batch := &normalize.RecordBatch{ProfileID: strictID}
	var spans [][2]int
	ids := make([]uint64, n)
	offs := make([]int32, n+1)
	var text []byte
	var w [8]byte
	for i := range n {
		x := uint64(i) * 0x9e3779b97f4a7c15
		at := len(batch.Words)
		batch.Words = append(batch.Words, 1, 2, 2, 1, 4, 1, uint64(i), 7, 6, 22, 168)
		for j := range 21 {
			batch.Words = append(batch.Words, x+uint64(j))
			binary.LittleEndian.PutUint64(w[:], x+uint64(j))
			text = append(text, w[:]...)
		}
		batch.Offsets = append(batch.Offsets, uint64(at))
		batch.Lengths = append(batch.Lengths, 32)
		spans = append(spans, [2]int{at + 3, at + 7}, [2]int{at + 7, at + 32})
		ids[i] = uint64(i)
		offs[i+1] = int32(len(text))
	}
	b.Run("path=v1-floor", v1Floor(c1, batch, spans, true))
	b.Run("path=v1-record-only", v1Floor(c1, batch, spans, false))
	k, err := NewColumnar(c2, []uint64{1, 7})
	if err != nil {
		b.Fatal(err)
	}
	tile := NewTile(n, 2)
	recs := make([]Digest, n)
	b.Run("path=v2-columnar", func(b *testing.B) {
		var lo, hi uint64
		loopCPU(b, n, "record", func() {
			_, err1 := Uints(k, tile, 0, ids, Validity{})
			_, err2 := Strings(k, tile, 1, normalize.Text, offs, text, Validity{})
			d, err3 := k.Records(recs, tile, 0)
			if err1 != nil || err2 != nil || err3 != nil {
				b.Fatal(err1, err2, err3)
			}
			lo += d.Lo
			hi += d.Hi
		})
		sink += lo ^ hi
	})
	b.Run("path=v2-words", v2Words(c2, batch))
}

// BenchmarkColumnarPool is the columnar counterpart of BenchmarkDigestSum's 32-word
// records (a UINT64 and a 168-byte TEXT): the same values as columns (a uint64 column, a
// text column in Arrow layout) of a pool well above any cache, digested in tiles of
// benchTile rows by the kernels, record digests summed into the state. One op = one pass
// over the pool; SetBytes counts the C2 words of the records (256 bytes each), so MB/s
// compares with BenchmarkMemRead/words=32 and BenchmarkDigestSum/xxh3-128/words=32.
func BenchmarkColumnarPool(b *testing.B) {
	count := benchPoolBytes / 8 / 32
	ids, offs, data := words32Columns(count)
	schema := SchemaDescriptor{RenamePolicy: RenameKeepsIdentity, Fields: []SchemaField{{ID: 1, Type: TypeInt}, {ID: 7, Type: TypeText}}}
	c, err := NewContext(XXH3Columnar, strictID, schema, Multiset)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(count) * 32 * 8)
	clk := startCPU(b)
	for b.Loop() {
		k, err := NewColumnar(c, []uint64{1, 7})
		if err != nil {
			b.Fatal(err)
		}
		tile := NewTile(benchTile, 2)
		recs := make([]Digest, benchTile)
		st := NewState(c)
		for lo := 0; lo < count; lo += benchTile {
			hi := min(lo+benchTile, count)
			t := tile.Slice(0, hi-lo)
			_, err1 := Uints(k, t, 0, ids[lo:hi], Validity{})
			_, err2 := Strings(k, t, 1, normalize.Text, offs[lo:hi+1], data, Validity{})
			sum, err3 := k.Records(recs[:hi-lo], t, 0)
			if err1 != nil || err2 != nil || err3 != nil {
				b.Fatal(err1, err2, err3)
			}
			st.count += uint64(hi - lo)
			st.lanes[0] += sum.Lo
			st.lanes[1] += sum.Hi
		}
		sink += st.Count()
	}
	clk.report(b, count, int64(count)*32*8)
}
