package fingerprint

import (
	"context"
	"flag"
	"runtime"
	"strconv"
	"sync"
	"testing"

	"github.com/pipewhy/pipewhy/normalize"
)

var pipelineRecords = flag.Int("pipeline.records", 10_000_000, "records per BenchmarkPipeline op")

var pipelineSchema = SchemaDescriptor{RenamePolicy: RenameKeepsIdentity, Fields: []SchemaField{
	{ID: 1, Type: TypeInt}, {ID: 2, Type: TypeInt}, {ID: 3, Type: TypeFloat64}, {ID: 4, Type: TypeText}, {ID: 5, Type: TypeBool},
}}

// pipelineBatches yields n synthetic 5-column records (uint id, signed amount, float,
// short text, bool) encoded by normalize.AppendRecord into batches of batchSize records.
// Batches are recycled through free, so at most cap(free) batches exist at once.
func pipelineBatches(n, batchSize int, free chan *normalize.RecordBatch) func(func(*normalize.RecordBatch, error) bool) {
	return offsetBatches(0, n, batchSize, free)
}

// offsetBatches is pipelineBatches for records start..end-1.
func offsetBatches(start, end, batchSize int, free chan *normalize.RecordBatch) func(func(*normalize.RecordBatch, error) bool) {
	return func(yield func(*normalize.RecordBatch, error) bool) {
		fields := make([]normalize.Field, 5)
		names := make([]normalize.TextValue, 1000)
		for i := range names {
			names[i] = normalize.TextValue("customer-" + strconv.Itoa(i))
		}
		for lo := start; lo < end; lo += batchSize {
			b := <-free
			b.Words, b.Offsets, b.Lengths = b.Words[:0], b.Offsets[:0], b.Lengths[:0]
			for i := lo; i < min(lo+batchSize, end); i++ {
				fields[0] = normalize.Field{ID: 1, Value: normalize.Uint(uint64(i))}
				fields[1] = normalize.Field{ID: 2, Value: normalize.Int(int64(i%20001) - 10000)}
				fields[2] = normalize.Field{ID: 3, Value: normalize.Float(float64(i) * 0.25)}
				fields[3] = normalize.Field{ID: 4, Value: names[i%1000]}
				fields[4] = normalize.Field{ID: 5, Value: normalize.BoolValue(i%3 == 0)}
				off := len(b.Words)
				var err error
				if b.Words, err = normalize.AppendRecord(b.Words, fields, normalize.StrictV1); err != nil {
					yield(nil, err)
					return
				}
				b.Offsets = append(b.Offsets, uint64(off))
				b.Lengths = append(b.Lengths, uint64(len(b.Words)-off))
			}
			if !yield(b, nil) {
				return
			}
		}
	}
}

func newFree(k int) chan *normalize.RecordBatch {
	free := make(chan *normalize.RecordBatch, k)
	for range k {
		free <- &normalize.RecordBatch{ProfileID: normalize.StrictV1.ID()}
	}
	return free
}

// BenchmarkPipeline is the whole path C2 encode -> fingerprint over -pipeline.records
// synthetic 5-column records (default 10 million; run with -benchtime=1x). The encode
// sub-benchmark is the producer alone, for comparison.
func BenchmarkPipeline(b *testing.B) {
	n := *pipelineRecords
	const batchSize = 65536
	c, err := NewContext(XXH3, normalize.StrictV1.ID(), pipelineSchema, Multiset)
	if err != nil {
		b.Fatal(err)
	}
	b.Run("encode", func(b *testing.B) {
		for b.Loop() {
			free := newFree(1)
			for bt, err := range pipelineBatches(n, batchSize, free) {
				if err != nil {
					b.Fatal(err)
				}
				free <- bt
			}
		}
		b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "records/s")
	})
	for _, workers := range []int{1, 2} {
		b.Run("encode+fingerprint/workers="+strconv.Itoa(workers), func(b *testing.B) {
			for b.Loop() {
				free := newFree(4)
				e, err := NewEngine(c, Options{Workers: workers, Release: func(bt *normalize.RecordBatch) { free <- bt }})
				if err != nil {
					b.Fatal(err)
				}
				res, err := e.Run(context.Background(), pipelineBatches(n, batchSize, free))
				if err != nil {
					b.Fatal(err)
				}
				if res.State.Count() != uint64(n) {
					b.Fatalf("count %d", res.State.Count())
				}
			}
			b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "records/s")
		})
	}
	// All cores on both sides: GOMAXPROCS encoders feeding GOMAXPROCS engine workers.
	b.Run("parallel-encode+fingerprint", func(b *testing.B) {
		procs := runtime.GOMAXPROCS(0)
		for b.Loop() {
			free := newFree(2 * procs)
			e, err := NewEngine(c, Options{Release: func(bt *normalize.RecordBatch) { free <- bt }})
			if err != nil {
				b.Fatal(err)
			}
			res, err := e.Run(context.Background(), parallelBatches(n, batchSize, procs, free))
			if err != nil {
				b.Fatal(err)
			}
			if res.State.Count() != uint64(n) {
				b.Fatalf("count %d", res.State.Count())
			}
		}
		b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "records/s")
	})
}

// parallelBatches runs producers encoders on disjoint record ranges and yields their
// batches as they complete (multiset mode: arrival order does not matter).
func parallelBatches(n, batchSize, producers int, free chan *normalize.RecordBatch) func(func(*normalize.RecordBatch, error) bool) {
	return func(yield func(*normalize.RecordBatch, error) bool) {
		type item struct {
			b   *normalize.RecordBatch
			err error
		}
		out := make(chan item, producers)
		stop := make(chan struct{})
		var wg sync.WaitGroup
		per := (n + producers - 1) / producers
		for lo := 0; lo < n; lo += per {
			wg.Go(func() {
				for b, err := range offsetBatches(lo, min(lo+per, n), batchSize, free) {
					select {
					case out <- item{b, err}:
					case <-stop:
						return
					}
				}
			})
		}
		go func() { wg.Wait(); close(out) }()
		defer close(stop)
		for it := range out {
			if !yield(it.b, it.err) || it.err != nil {
				return
			}
		}
	}
}

// TestPipelineSmall runs the pipeline path on a few records: the encoder's words are
// accepted by the engine, recycled batches do not change the result, and the state
// equals the per-record reference.
func TestPipelineSmall(t *testing.T) {
	c, err := NewContext(XXH3, normalize.StrictV1.ID(), pipelineSchema, Multiset)
	if err != nil {
		t.Fatal(err)
	}
	free := newFree(2)
	e, _ := NewEngine(c, Options{Workers: 2, ChunkRecords: 3, Release: func(bt *normalize.RecordBatch) { free <- bt }})
	res, err := e.Run(context.Background(), pipelineBatches(1000, 7, free))
	if err != nil {
		t.Fatal(err)
	}
	want := NewState(c)
	for bt, err := range pipelineBatches(1000, 1000, newFree(1)) {
		if err != nil {
			t.Fatal(err)
		}
		for i := range bt.Len() {
			want.Add(refDigest(c, XXH3, false, 0, bt.Record(i)))
		}
	}
	if eq, _ := res.State.Equal(want); !eq {
		t.Fatalf("pipeline state %v, reference %v", res.State.Words(), want.Words())
	}
	// Parallel producers, arbitrary arrival order: the same multiset state.
	free = newFree(6)
	e, _ = NewEngine(c, Options{Workers: 3, ChunkRecords: 5, Release: func(bt *normalize.RecordBatch) { free <- bt }})
	res, err = e.Run(context.Background(), parallelBatches(1000, 11, 3, free))
	if err != nil {
		t.Fatal(err)
	}
	if eq, _ := res.State.Equal(want); !eq {
		t.Fatalf("parallel pipeline state %v, reference %v", res.State.Words(), want.Words())
	}
}
