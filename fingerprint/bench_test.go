package fingerprint

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sync"
	"testing"
	"time"

	"github.com/pipewhy/pipewhy/internal/cputime"
	"github.com/pipewhy/pipewhy/normalize"
)

// benchPoolBytes is the size of the benchmark word pool: well above any L3 cache, so the
// kernels and the memory read baseline both stream from DRAM.
const benchPoolBytes = 256 << 20

// benchRecords returns a flat pool of valid C2 records of exactly n words (8 or 32) and
// their count. n=8: one TEXT field of 8 bytes; n=32: a UINT64 and a 168-byte TEXT.
func benchRecords(n int) ([]uint64, int) {
	count := benchPoolBytes / 8 / n
	w := make([]uint64, 0, count*n)
	for i := range count {
		x := uint64(i) * 0x9e3779b97f4a7c15
		switch n {
		case 8:
			w = append(w, 1, 2, 1, 7, 6, 2, 8, x)
		case 32:
			w = append(w, 1, 2, 2, 1, 4, 1, uint64(i), 7, 6, 22, 168)
			for j := range 21 {
				w = append(w, x+uint64(j))
			}
		default:
			panic("record size")
		}
	}
	return w, count
}

var benchPools = map[int][]uint64{}

func benchPool(b *testing.B, n int) ([]uint64, int) {
	if w, ok := benchPools[n]; ok {
		return w, len(w) / n
	}
	w, c := benchRecords(n)
	benchPools[n] = w
	return w, c
}

// parallel splits count items over workers and runs fn on each range.
func parallel(workers, count int, fn func(lo, hi int)) {
	var wg sync.WaitGroup
	per := (count + workers - 1) / workers
	for lo := 0; lo < count; lo += per {
		wg.Go(func() { fn(lo, min(lo+per, count)) })
	}
	wg.Wait()
}

var sink uint64

// cpuClock measures the CPU time of a benchmark's timed loop.
type cpuClock struct{ start time.Duration }

func startCPU(b *testing.B) *cpuClock {
	b.ResetTimer()
	return &cpuClock{start: cputime.Process()}
}

// report adds records/s (wall) and, when CPU time is measurable, cpu-MB/s: bytes per
// CPU-second of the whole process, the per-core throughput whatever else runs.
func (c *cpuClock) report(b *testing.B, records int, bytes int64) {
	cpu := cputime.Process() - c.start
	if records > 0 {
		b.ReportMetric(float64(records)*float64(b.N)/b.Elapsed().Seconds(), "records/s")
	}
	if cpu > 0 {
		b.ReportMetric(float64(bytes)*float64(b.N)/cpu.Seconds()/1e6, "cpu-MB/s")
	}
}

// BenchmarkDigestSum is the hot kernel: record digest plus lane sums over fixed-size
// records, one op = one pass over the 256 MiB pool.
func BenchmarkDigestSum(b *testing.B) {
	for _, alg := range Algorithms() {
		for _, n := range []int{8, 32} {
			for _, workers := range []int{1, 2} {
				b.Run(fmt.Sprintf("%s/words=%d/workers=%d", alg.Name(), n, workers), func(b *testing.B) {
					c := mustContext(b, alg, Multiset)
					w, count := benchPool(b, n)
					b.SetBytes(int64(len(w) * 8))
					clk := startCPU(b)
					for b.Loop() {
						var mu sync.Mutex
						total := NewState(c)
						parallel(workers, count, func(lo, hi int) {
							h := newHasher(c)
							s := NewState(c)
							for i := lo; i < hi; i++ {
								s.Add(h.record(0, w[i*n:i*n+n]))
							}
							mu.Lock()
							_ = total.Merge(s)
							mu.Unlock()
						})
						sink += total.Count()
					}
					clk.report(b, count, int64(len(w)*8))
				})
			}
		}
	}
}

// BenchmarkMemRead is the memory read baseline of the same run: a plain sum over the same
// words with four independent accumulators.
func BenchmarkMemRead(b *testing.B) {
	for _, n := range []int{8, 32} {
		for _, workers := range []int{1, 2} {
			b.Run(fmt.Sprintf("words=%d/workers=%d", n, workers), func(b *testing.B) {
				w, _ := benchPool(b, n)
				b.SetBytes(int64(len(w) * 8))
				clk := startCPU(b)
				for b.Loop() {
					var mu sync.Mutex
					parallel(workers, len(w)/4, func(lo, hi int) {
						var a0, a1, a2, a3 uint64
						for i := lo * 4; i < hi*4; i += 4 {
							a0 += w[i]
							a1 += w[i+1]
							a2 += w[i+2]
							a3 += w[i+3]
						}
						mu.Lock()
						sink += a0 + a1 + a2 + a3
						mu.Unlock()
					})
				}
				clk.report(b, 0, int64(len(w)*8))
			})
		}
	}
}

// BenchmarkEngine is the whole engine path on the same pool as one batch: per-record
// bounds, C2 frame validation, schema check, digest and sums.
func BenchmarkEngine(b *testing.B) {
	for _, res := range []Resolution{DatasetResolution, RecordResolution} {
		for _, n := range []int{8, 32} {
			for _, workers := range []int{1, 2} {
				b.Run(fmt.Sprintf("%s/words=%d/workers=%d", res, n, workers), func(b *testing.B) {
					c := mustContext(b, XXH3, Multiset)
					w, count := benchPool(b, n)
					batch := &normalize.RecordBatch{ProfileID: strictID, Words: w, Offsets: make([]uint64, count), Lengths: make([]uint64, count)}
					for i := range count {
						batch.Offsets[i], batch.Lengths[i] = uint64(i*n), uint64(n)
					}
					var keys []uint64
					if res == RecordResolution {
						keys = []uint64{7}
					}
					e, err := NewEngine(c, Options{Workers: workers, Resolution: res, KeyFields: keys})
					if err != nil {
						b.Fatal(err)
					}
					b.SetBytes(int64(len(w) * 8))
					clk := startCPU(b)
					for b.Loop() {
						r, err := e.Run(context.Background(), seqOf(batch))
						if err != nil {
							b.Fatal(err)
						}
						sink += r.State.Count()
					}
					clk.report(b, count, int64(len(w)*8))
				})
			}
		}
	}
}

// scanShapeTile returns a tile of n records shaped like issue 7's benchmark rows (fields
// 1..5: int64, int64, float64, 12-character text, UTC timestamp), the context of that
// schema and every record's field spans (offsets into the tile's words, 5 per record).
func scanShapeTile(b *testing.B, n int) (Context, *normalize.RecordBatch, [][2]int) {
	b.Helper()
	schema := SchemaDescriptor{RenamePolicy: RenameKeepsIdentity, Fields: []SchemaField{
		{ID: 1, Name: "id", Type: TypeInt}, {ID: 2, Name: "qty", Type: TypeInt},
		{ID: 3, Name: "price", Type: TypeFloat64}, {ID: 4, Name: "name", Type: TypeText},
		{ID: 5, Name: "at", Type: TypeTimestamp},
	}}
	c, err := NewContext(XXH3, strictID, schema, Multiset)
	if err != nil {
		b.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(5, 5))
	batch := &normalize.RecordBatch{ProfileID: strictID}
	var spans [][2]int
	for i := range n {
		fields := []normalize.Field{
			{ID: 1, Value: normalize.Int(int64(i))},
			{ID: 2, Value: normalize.Int(rng.Int64N(1000))},
			{ID: 3, Value: normalize.Float(rng.Float64() * 1000)},
			{ID: 4, Value: normalize.TextValue(fmt.Sprintf("name-%07d", rng.IntN(10_000_000)))},
			{ID: 5, Value: normalize.TimestampValue{Year: 2026, Month: 11, Day: 1 + rng.IntN(28),
				Hour: rng.IntN(24), Minute: rng.IntN(60), Second: rng.IntN(60), Microsecond: rng.IntN(1e6),
				Zone: normalize.FixedZone(0, "UTC")}},
		}
		if err := batch.Append(fields, normalize.StrictV1); err != nil {
			b.Fatal(err)
		}
		rec, off := batch.Record(i), int(batch.Offsets[i])
		for f := 3; f < len(rec); f += 3 + int(rec[f+2]) {
			spans = append(spans, [2]int{off + f, off + f + 3 + int(rec[f+2])})
		}
	}
	return c, batch, spans
}

// BenchmarkScanShapeFloor separates what the dataset resolution must compute per record
// of the scan benchmark's shape from what the engine adds. "floor" is the record digest
// and the five value digests of the column states over precomputed spans, summed into
// lanes, and nothing else; "engine" is the Engine on the same tile as the scan runs it
// (Columns, TrustedFrames, one worker); "floor-record-only" the record digests alone (the
// state without column states). The tile (2 Ki records) stays in cache, as the
// scan's tiles do. ns/record × 10 M = CPU seconds per 10 M rows.
func BenchmarkScanShapeFloor(b *testing.B) {
	const n = 2048
	c, batch, spans := scanShapeTile(b, n)
	b.Run("floor", v1Floor(c, batch, spans, true))
	b.Run("floor-record-only", v1Floor(c, batch, spans, false))
	b.Run("engine", func(b *testing.B) {
		e, err := NewEngine(c, Options{Workers: 1, Resolution: DatasetResolution, Columns: true, TrustedFrames: true})
		if err != nil {
			b.Fatal(err)
		}
		for b.Loop() {
			r, err := e.Run(context.Background(), seqOf(batch))
			if err != nil {
				b.Fatal(err)
			}
			sink += r.State.Count()
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/record")
	})
}

// v1Floor digests each record of batch under v1 context c and, when columns, each of its
// fields (spans: the field frames' word ranges, in record order), summing into lanes:
// nothing else. It reports wall and CPU ns/record.
func v1Floor(c Context, batch *normalize.RecordBatch, spans [][2]int, columns bool) func(b *testing.B) {
	return func(b *testing.B) {
		h := newHasher(c)
		n := batch.Len()
		var lo, hi uint64
		loopCPU(b, n, "record", func() {
			f := 0
			for i := range n {
				off, ln := batch.Offsets[i], batch.Lengths[i]
				d := h.record(0, batch.Words[off:off+ln])
				lo += d.Lo
				hi += d.Hi
				for ; columns && f < len(spans) && spans[f][1] <= int(off+ln); f++ {
					d := h.digest(false, 0, batch.Words[spans[f][0]:spans[f][1]])
					lo += d.Lo
					hi += d.Hi
				}
			}
		})
		sink += lo ^ hi
	}
}
