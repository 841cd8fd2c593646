package scan

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/pipewhy/pipewhy/fingerprint"
	"github.com/pipewhy/pipewhy/normalize"
	"github.com/pipewhy/pipewhy/normalize/columnar"
	"github.com/pipewhy/pipewhy/snapshot"
	"github.com/pipewhy/pipewhy/source"
)

var manySchema = arrow.NewSchema([]arrow.Field{
	{Name: "id", Type: arrow.PrimitiveTypes.Int64},
	{Name: "name", Type: arrow.BinaryTypes.String, Nullable: true},
	{Name: "v", Type: arrow.PrimitiveTypes.Float64},
}, nil)

// manySource yields pre-built batches (some empty) from a checked allocator, so a test
// can assert that every batch was released exactly once. failAt >= 0 makes Next fail
// at that batch instead.
type manySource struct {
	mem    *memory.CheckedAllocator
	recs   []arrow.RecordBatch
	next   int
	failAt int
	rows   uint64
	nexts  int // Next calls, to check the source is not read after Observe
}

var errDisk = errors.New("disk on fire")

func (s *manySource) Schema() *arrow.Schema { return manySchema }
func (s *manySource) Next(ctx context.Context) (arrow.RecordBatch, error) {
	s.nexts++
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if s.next == s.failAt {
		return nil, errDisk
	}
	if s.next == len(s.recs) {
		return nil, io.EOF
	}
	r := s.recs[s.next]
	s.recs[s.next] = nil
	s.next++
	s.rows += uint64(r.NumRows())
	return r, nil
}
func (s *manySource) Evidence() source.Evidence {
	return source.Evidence{Adapter: "test", Namespace: "test:many", Version: "v1", Consistency: "test",
		Coverage: source.Coverage{Status: source.StatusComplete, Expected: s.total(), ExpectedKnown: true, Returned: s.rows}}
}
func (s *manySource) total() uint64 {
	t := s.rows
	for _, r := range s.recs {
		if r != nil {
			t += uint64(r.NumRows())
		}
	}
	return t
}
func (s *manySource) Close() error {
	for i, r := range s.recs {
		if r != nil {
			r.Release()
			s.recs[i] = nil
		}
	}
	return nil
}

// newManySource builds nb batches of random sizes (some empty). Ids repeat when dupIDs;
// badAt >= 0 puts invalid UTF-8 into row badRow of batch badAt.
func newManySource(seed uint64, nb int, dupIDs bool, badAt, badRow int) *manySource {
	r := rand.New(rand.NewPCG(seed, 1))
	s := &manySource{mem: memory.NewCheckedAllocator(memory.NewGoAllocator()), failAt: -1}
	id := int64(0)
	for bi := range nb {
		n := r.IntN(300)
		if r.IntN(6) == 0 {
			n = 0
		}
		if bi == badAt && n <= badRow {
			n = badRow + 1
		}
		b := array.NewRecordBuilder(s.mem, manySchema)
		for i := range n {
			id++
			v := id
			if dupIDs {
				v = int64(r.IntN(40))
			}
			b.Field(0).(*array.Int64Builder).Append(v)
			switch {
			case bi == badAt && i == badRow:
				b.Field(1).(*array.StringBuilder).Append("bad\xff")
			case r.IntN(10) == 0:
				b.Field(1).AppendNull()
			default:
				b.Field(1).(*array.StringBuilder).Append(fmt.Sprintf("name-%d-é", r.IntN(50)))
			}
			b.Field(2).(*array.Float64Builder).Append(float64(r.IntN(7)) / 4)
		}
		s.recs = append(s.recs, b.NewRecordBatch())
		b.Release()
	}
	return s
}

// serialReference is the scan of the previous design, computed independently of the
// pipeline and of buildRecords: one encoder on one goroutine, the engine without
// TrustedFrames and Origins, and the key words associated with the entries by
// recomputing every key digest and sorting by (key digest, batch, record).
type serialReference struct {
	fr         *fingerprint.Result
	keyWords   []uint64
	keyOffsets []uint64
	payload    []uint64 // value table payload words, in entry order
	types      []uint8
}

func reference(t *testing.T, s *manySource, fctx fingerprint.Context, res fingerprint.Resolution, keyIDs []uint64) *serialReference {
	t.Helper()
	cols := []columnar.Column{{Index: 0, Field: 1, Treatment: columnar.Encode}, {Index: 1, Field: 2, Treatment: columnar.Encode}, {Index: 2, Field: 3, Treatment: columnar.Encode}}
	enc, err := columnar.NewEncoder(manySchema, cols, normalize.StrictV1)
	if err != nil {
		t.Fatal(err)
	}
	var bs []*normalize.RecordBatch
	for _, r := range s.recs {
		b := &normalize.RecordBatch{ProfileID: normalize.StrictV1.ID()}
		if err := enc.Append(b, r); err != nil {
			t.Fatal(err)
		}
		bs = append(bs, b)
	}
	eng, err := fingerprint.NewEngine(fctx, fingerprint.Options{Workers: 1, Resolution: res, Columns: true, KeyFields: keyIDs})
	if err != nil {
		t.Fatal(err)
	}
	fr, err := eng.Run(context.Background(), func(yield func(*normalize.RecordBatch, error) bool) {
		for _, b := range bs {
			if !yield(b, nil) {
				return
			}
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	ref := &serialReference{fr: fr}
	if res == fingerprint.DatasetResolution {
		return ref
	}
	type row struct {
		k    fingerprint.Digest
		b, i int
		key  []uint64
	}
	var rows []row
	for bi, b := range bs {
		for i := range b.Len() {
			rec := b.Record(i)
			kw := projectKey(nil, rec, keyIDs)
			// The key digest is the position-free record digest of the key record (C3
			// §5, §13), computed by the reference single-record form.
			k, err := fctx.RecordDigest(0, kw)
			if err != nil {
				t.Fatal(err)
			}
			rows = append(rows, row{k, bi, i, kw})
		}
	}
	slices.SortFunc(rows, func(x, y row) int {
		return cmp.Or(cmp.Compare(x.k.Lo, y.k.Lo), cmp.Compare(x.k.Hi, y.k.Hi), cmp.Compare(x.b, y.b), cmp.Compare(x.i, y.i))
	})
	ref.keyOffsets = []uint64{0}
	for _, r := range rows {
		ref.keyWords = append(ref.keyWords, r.key...)
		ref.keyOffsets = append(ref.keyOffsets, uint64(len(ref.keyWords)))
		rec := bs[r.b].Record(r.i)
		for p := 3; p < len(rec); p += 3 + int(rec[p+2]) {
			ref.types = append(ref.types, uint8(rec[p+1]))
			ref.payload = append(ref.payload, rec[p+3:p+3+int(rec[p+2])]...)
		}
	}
	return ref
}

// settle waits until the goroutine count is back to base (goroutines that have called
// wg.Done may take a moment to exit), and fails when it is not.
func settle(t *testing.T, base int) {
	t.Helper()
	for range 200 {
		if runtime.NumGoroutine() <= base {
			return
		}
		time.Sleep(5 * time.Millisecond)
	}
	buf := make([]byte, 1<<16)
	t.Fatalf("%d goroutines, %d before Observe:\n%s", runtime.NumGoroutine(), base, buf[:runtime.Stack(buf, true)])
}

// tinyTiles makes the encoders cut every batch into tiles of 1 to 7 rows, and the value
// table build split its entries into segments of 3 (restored at the end of the test), so
// that tile and segment boundaries fall everywhere.
func tinyTiles(t *testing.T) {
	t.Helper()
	w, lo, hi, first, seg := tileWords, minTileRows, maxTileRows, firstTileRows, valueSegmentMin
	tileWords, minTileRows, maxTileRows, firstTileRows, valueSegmentMin = 60, 1, 7, 3, 3
	t.Cleanup(func() { tileWords, minTileRows, maxTileRows, firstTileRows, valueSegmentMin = w, lo, hi, first, seg })
}

func observeMany(t *testing.T, ctx context.Context, s *manySource, o Options) (*Result, error) {
	t.Helper()
	reg, err := source.OpenRegistry(t.TempDir() + "/sources.json")
	if err != nil {
		t.Fatal(err)
	}
	o.Name = "many"
	return ObserveSource(ctx, reg, s, o)
}

// TestPipelineMatchesSerial: at every resolution and encoder count, the pipelined scan
// equals the serial reference: states, entries, key words and value payloads; every
// Arrow batch is released exactly once; progress is reported in row order; no goroutine
// outlives Observe.
func TestPipelineMatchesSerial(t *testing.T) {
	for _, res := range []snapshot.Resolution{snapshot.ResolutionDataset, snapshot.ResolutionRecord, snapshot.ResolutionValue} {
		for _, workers := range []int{1, 2, 5} {
			for _, keyed := range []bool{false, true} {
				if keyed && res == snapshot.ResolutionDataset {
					continue
				}
				for _, tiny := range []bool{false, true} {
					name := fmt.Sprintf("%s/workers=%d/keyed=%v/tiny=%v", res, workers, keyed, tiny)
					t.Run(name, func(t *testing.T) {
						if tiny {
							tinyTiles(t)
						}
						base := runtime.NumGoroutine()
						s := newManySource(uint64(workers)*7+uint64(len(res)), 40, false, -1, 0)
						var keys []string
						var keyIDs []uint64
						if keyed {
							keys, keyIDs = []string{"id"}, []uint64{1}
						}
						var last uint64
						calls := 0
						got, err := observeMany(t, context.Background(), s, Options{Resolution: res, Key: keys, Workers: workers,
							Progress: func(p Progress) {
								if p.Phase != PhaseRead {
									return
								}
								calls++ // unsynchronized on purpose: -race reports concurrent calls
								if p.Rows < last || !p.ExpectedKnown {
									t.Errorf("progress %+v after %d rows", p, last)
								}
								last = p.Rows
							}})
						if err != nil {
							t.Fatal(err)
						}
						// One report as the read starts, one after each of the 40 batches.
						if calls != 41 || last != s.rows {
							t.Errorf("%d progress calls ending at %d rows, want 41 ending at %d", calls, last, s.rows)
						}
						// The reference encodes the same batches again: rebuild them.
						s2 := newManySource(uint64(workers)*7+uint64(len(res)), 40, false, -1, 0)
						fres := map[snapshot.Resolution]fingerprint.Resolution{snapshot.ResolutionDataset: fingerprint.DatasetResolution,
							snapshot.ResolutionRecord: fingerprint.RecordResolution, snapshot.ResolutionValue: fingerprint.ValueResolution}[res]
						ref := reference(t, s2, got.Scan.Context, fres, keyIDs)
						s2.Close()
						sc := got.Scan
						if eq, _ := sc.State.Equal(ref.fr.State); !eq {
							t.Fatal("dataset state differs")
						}
						for i, c := range ref.fr.Columns {
							if eq, _ := sc.Columns[i].Equal(c.State); !eq {
								t.Fatalf("column %d state differs", i)
							}
						}
						if !slices.Equal(sc.Records, ref.fr.Records) || !slices.Equal(sc.KeyWords, ref.keyWords) || !slices.Equal(sc.KeyOffsets, ref.keyOffsets) {
							t.Fatal("record entries or key words differ")
						}
						if res == snapshot.ResolutionValue {
							if !slices.Equal(sc.Values, ref.fr.Values) || !slices.Equal(sc.ValueOffsets, ref.fr.ValueOffsets) ||
								!slices.Equal(sc.ValueTable.PayloadWords, ref.payload) || !slices.Equal(sc.ValueTable.TypeID, ref.types) {
								t.Fatal("value entries or value table differ")
							}
						}
						s.Close()
						s.mem.AssertSize(t, 0)
						settle(t, base)
					})
				}
			}
		}
	}
}

// TestPipelineErrors: the first error in source order wins, an encoder error names the
// source row exactly, the source is not read after Observe returns, every batch is
// released once and no goroutine is left.
func TestPipelineErrors(t *testing.T) {
	for _, tc := range []struct {
		name          string
		badAt, badRow int // encoder error (invalid UTF-8)
		failAt        int // source error
		code          Code
	}{
		{"encode", 7, 5, -1, CodeEncode},
		{"encode first batch", 0, 0, -1, CodeEncode},
		{"encode before read error", 7, 3, 9, CodeEncode},
		{"read before encode error", 12, 3, 9, CodeSource},
		{"read", -1, 0, 3, CodeSource},
		{"read at once", -1, 0, 0, CodeSource},
	} {
		for _, workers := range []int{1, 3} {
			for _, tiny := range []bool{false, true} {
				t.Run(fmt.Sprintf("%s/workers=%d/tiny=%v", tc.name, workers, tiny), func(t *testing.T) {
					if tiny {
						tinyTiles(t)
					}
					base := runtime.NumGoroutine()
					s := newManySource(99, 20, false, tc.badAt, tc.badRow)
					s.failAt = tc.failAt
					wantRow := uint64(0)
					if tc.badAt >= 0 {
						for _, r := range s.recs[:tc.badAt] {
							wantRow += uint64(r.NumRows())
						}
						wantRow += uint64(tc.badRow) + 1
					}
					_, err := observeMany(t, context.Background(), s, Options{Resolution: snapshot.ResolutionRecord, Workers: workers})
					if CodeOf(err) != tc.code {
						t.Fatalf("%v, want %s", err, tc.code)
					}
					switch tc.code {
					case CodeEncode:
						if want := fmt.Sprintf("row %d column \"name\"", wantRow); !strings.Contains(err.Error(), want) || normalize.CodeOf(err) != normalize.CodeUTF8 {
							t.Fatalf("%v, want %s and %s", err, want, normalize.CodeUTF8)
						}
					case CodeSource:
						if !errors.Is(err, errDisk) {
							t.Fatalf("%v does not wrap the source error", err)
						}
					}
					n := s.nexts
					settle(t, base)
					if s.nexts != n {
						t.Fatal("the source was read after Observe returned")
					}
					s.Close()
					s.mem.AssertSize(t, 0)
				})
			}
		}
	}
}

// TestPipelineCancel: a context canceled mid-scan stops every goroutine; the error wraps
// context.Canceled.
func TestPipelineCancel(t *testing.T) {
	for _, workers := range []int{1, 4} {
		base := runtime.NumGoroutine()
		s := newManySource(5, 60, false, -1, 0)
		ctx, cancel := context.WithCancel(context.Background())
		var once sync.Once
		_, err := observeMany(t, ctx, s, Options{Resolution: snapshot.ResolutionDataset, Workers: workers, Progress: func(p Progress) {
			if p.Rows > 1000 {
				once.Do(cancel)
			}
		}})
		cancel()
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("workers %d: %v, want context.Canceled", workers, err)
		}
		settle(t, base)
		s.Close()
		s.mem.AssertSize(t, 0)
	}
}

// TestRecordResolutionDuplicates: duplicate declared keys are reported with the same
// counts and examples as the serial reference computes them.
func TestRecordResolutionDuplicates(t *testing.T) {
	s := newManySource(11, 10, true, -1, 0)
	_, err := observeMany(t, context.Background(), s, Options{Resolution: snapshot.ResolutionRecord, Key: []string{"id"}, Workers: 3})
	var dk *DuplicateKeyError
	if !errors.As(err, &dk) {
		t.Fatalf("%v, want a DuplicateKeyError", err)
	}
	// Ids are 0..39: every id that occurs twice or more is a duplicate key.
	s2 := newManySource(11, 10, true, -1, 0)
	count := map[int64]int{}
	for _, r := range s2.recs {
		for _, v := range r.Column(0).(*array.Int64).Int64Values() {
			count[v]++
		}
	}
	s2.Close()
	keys, recs := 0, 0
	for _, c := range count {
		if c > 1 {
			keys++
			recs += c
		}
	}
	if dk.Keys != keys || dk.Records != recs || len(dk.Examples) != min(10, keys) {
		t.Fatalf("duplicates %d keys %d records %d examples, want %d %d", dk.Keys, dk.Records, len(dk.Examples), keys, recs)
	}
	for _, ex := range dk.Examples {
		if !strings.HasPrefix(ex, "id=") {
			t.Fatalf("example %q", ex)
		}
	}
	s.Close()
	s.mem.AssertSize(t, 0)
}

// TestAdmission: the reader may always have minN batches in flight, more only while they
// hold under maxBytes, never more than maxN; wait ends when ctx does.
func TestAdmission(t *testing.T) {
	a := newAdmission(2, 4, 100)
	ctx := context.Background()
	for i, want := range []bool{true, true, true, true, false} {
		if got := a.admits(); got != want {
			t.Fatalf("batch %d: admits %v, want %v", i, got, want)
		}
		if want {
			a.take(10) // four small batches: the count bound stops the fifth
		}
	}
	a.give(10)
	if !a.wait(ctx) {
		t.Fatal("wait after give")
	}
	b := newAdmission(2, 4, 100)
	b.take(60)
	b.take(60) // two batches over the byte bound: only minN admitted them
	if b.admits() {
		t.Fatal("admits past the byte bound with minN in flight")
	}
	b.give(60)
	if !b.admits() {
		t.Fatal("does not admit below minN")
	}
	b.take(60)
	cctx, cancel := context.WithCancel(ctx)
	go func() {
		time.Sleep(10 * time.Millisecond)
		cancel()
	}()
	if b.wait(cctx) {
		t.Fatal("wait returned true for a canceled context")
	}
}
