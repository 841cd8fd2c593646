package scan

import (
	"context"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/pipewhy/pipewhy/fingerprint"
	"github.com/pipewhy/pipewhy/normalize"
	"github.com/pipewhy/pipewhy/normalize/columnar"
	"github.com/pipewhy/pipewhy/source"
)

// directSchema has a column of every kind the direct path plans, and columns it leaves
// to the rest encoder (timestamp, decimal, float32).
var directSchema = arrow.NewSchema([]arrow.Field{
	{Name: "i8", Type: arrow.PrimitiveTypes.Int8, Nullable: true},
	{Name: "i16", Type: arrow.PrimitiveTypes.Int16, Nullable: true},
	{Name: "i32", Type: arrow.PrimitiveTypes.Int32, Nullable: true},
	{Name: "i64", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
	{Name: "u8", Type: arrow.PrimitiveTypes.Uint8, Nullable: true},
	{Name: "u16", Type: arrow.PrimitiveTypes.Uint16, Nullable: true},
	{Name: "u32", Type: arrow.PrimitiveTypes.Uint32, Nullable: true},
	{Name: "u64", Type: arrow.PrimitiveTypes.Uint64, Nullable: true},
	{Name: "f64", Type: arrow.PrimitiveTypes.Float64, Nullable: true},
	{Name: "f32", Type: arrow.PrimitiveTypes.Float32, Nullable: true},
	{Name: "b", Type: arrow.FixedWidthTypes.Boolean, Nullable: true},
	{Name: "s", Type: arrow.BinaryTypes.String, Nullable: true},
	{Name: "ls", Type: arrow.BinaryTypes.LargeString, Nullable: true},
	{Name: "ts", Type: &arrow.TimestampType{Unit: arrow.Microsecond}, Nullable: true},
	{Name: "dec", Type: &arrow.Decimal128Type{Precision: 12, Scale: 3}, Nullable: true},
}, nil)

// randDirectBatch returns a batch of directSchema with n random rows (about one value in
// five null), the strings non-ASCII in some batches; then a slice of it from a random
// row on, so that arrays have offsets.
func randDirectBatch(r *rand.Rand, mem memory.Allocator, n int, nonASCII bool) arrow.RecordBatch {
	b := array.NewRecordBuilder(mem, directSchema)
	defer b.Release()
	null := func() bool { return r.IntN(5) == 0 }
	floats := []float64{0, math.Copysign(0, -1), math.NaN(), math.Inf(1), math.Inf(-1), 1.5, -2.25e300}
	text := func() string {
		const ascii = "abcdefghijklmnopqrstuvwxyz0123456789 "
		s := make([]byte, r.IntN(40))
		for i := range s {
			s[i] = ascii[r.IntN(len(ascii))]
		}
		if nonASCII && r.IntN(3) == 0 {
			return string(s) + "é"
		}
		return string(s)
	}
	for range n {
		for _, f := range b.Fields() {
			if null() {
				f.AppendNull()
				continue
			}
			switch fb := f.(type) {
			case *array.Int8Builder:
				fb.Append(int8(r.Uint64()))
			case *array.Int16Builder:
				fb.Append(int16(r.Uint64()))
			case *array.Int32Builder:
				fb.Append(int32(r.Uint64()))
			case *array.Int64Builder:
				fb.Append(int64(r.Uint64()))
			case *array.Uint8Builder:
				fb.Append(uint8(r.Uint64()))
			case *array.Uint16Builder:
				fb.Append(uint16(r.Uint64()))
			case *array.Uint32Builder:
				fb.Append(uint32(r.Uint64()))
			case *array.Uint64Builder:
				fb.Append(r.Uint64())
			case *array.Float64Builder:
				if r.IntN(2) == 0 {
					fb.Append(floats[r.IntN(len(floats))])
				} else {
					fb.Append(r.NormFloat64())
				}
			case *array.Float32Builder:
				fb.Append(float32(r.NormFloat64()))
			case *array.BooleanBuilder:
				fb.Append(r.IntN(2) == 0)
			case *array.StringBuilder:
				fb.Append(text())
			case *array.LargeStringBuilder:
				fb.Append(text())
			case *array.TimestampBuilder:
				fb.Append(arrow.Timestamp(r.Int64N(4e15)))
			case *array.Decimal128Builder:
				fb.Append(decimal128.FromI64(r.Int64N(1e11) - 5e10))
			}
		}
	}
	rec := b.NewRecordBatch()
	if n < 2 {
		return rec
	}
	defer rec.Release()
	return rec.NewSlice(int64(r.IntN(n/2)), int64(n))
}

// directContext is the v2 context of directSchema with field ids ids (ids[i] is Arrow
// column i's).
func directContext(t *testing.T, ids []uint64, profile normalize.Profile) fingerprint.Context {
	t.Helper()
	sd := fingerprint.SchemaDescriptor{RenamePolicy: fingerprint.RenameKeepsIdentity}
	for i, f := range directSchema.Fields() {
		vt, ok := valueType(f.Type)
		if !ok {
			t.Fatalf("column %s: no value type", f.Name)
		}
		sd.Fields = append(sd.Fields, fingerprint.SchemaField{ID: ids[i], Name: f.Name, Type: vt})
	}
	slices.SortFunc(sd.Fields, func(a, b fingerprint.SchemaField) int { return int(a.ID) - int(b.ID) })
	c, err := fingerprint.NewContext(fingerprint.XXH3Columnar, profile.ID(), sd, fingerprint.Multiset)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestDirectMatchesEngine: the direct path's record count, dataset sum and column sums
// of random batches equal what the engine computes from the C2 records the encoder makes
// of the same batches, under every profile, whatever the field ids' order against the
// Arrow columns'; a batch with a non-ASCII string is refused (general path), the others
// are taken.
func TestDirectMatchesEngine(t *testing.T) {
	r := rand.New(rand.NewPCG(35, 21))
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	profiles := []normalize.Profile{normalize.StrictV1, normalize.LogicalV1, normalize.StrictV1Ext1, normalize.LogicalV1Ext1}
	taken := 0
	for round := range 24 {
		profile := profiles[round%len(profiles)]
		ids := make([]uint64, len(directSchema.Fields()))
		for i := range ids {
			ids[i] = uint64(i + 1)
		}
		if round%2 == 1 {
			r.Shuffle(len(ids), func(i, j int) { ids[i], ids[j] = ids[j], ids[i] })
		}
		ctx := directContext(t, ids, profile)
		d, err := newDirect(ctx, directSchema, ids, profile)
		if err != nil || d == nil {
			t.Fatalf("round %d: newDirect: %v %v", round, d, err)
		}
		cols := make([]columnar.Column, len(ids))
		for i, id := range ids {
			cols[i] = columnar.Column{Index: i, Field: normalize.FieldID(id), Treatment: columnar.Encode}
		}
		enc, err := columnar.NewEncoder(directSchema, cols, profile)
		if err != nil {
			t.Fatal(err)
		}
		nonASCII := round%3 == 2
		rec := randDirectBatch(r, mem, r.IntN(300), nonASCII)
		what := fmt.Sprintf("round %d (%s, %d rows)", round, profile.Name(), rec.NumRows())
		n, sum, sums, ok, encErr, fpErr := d.digest(rec)
		if encErr != nil || fpErr != nil {
			t.Fatalf("%s: %v %v", what, encErr, fpErr)
		}
		b := &normalize.RecordBatch{ProfileID: profile.ID()}
		if err := enc.Append(b, rec); err != nil {
			t.Fatal(err)
		}
		hasNonASCII := false
		for _, name := range []string{"s", "ls"} {
			a := rec.Column(directSchema.FieldIndices(name)[0])
			for j := range a.Len() {
				if a.IsValid(j) && !isASCII(a.ValueStr(j)) {
					hasNonASCII = true
				}
			}
		}
		if ok == hasNonASCII {
			t.Fatalf("%s: direct path took the batch: %v; the batch has a non-ASCII value: %v", what, ok, hasNonASCII)
		}
		rec.Release()
		if !ok {
			continue
		}
		taken++
		eng, err := fingerprint.NewEngine(ctx, fingerprint.Options{Columns: true, TrustedFrames: true})
		if err != nil {
			t.Fatal(err)
		}
		want, err := eng.Run(context.Background(), func(yield func(*normalize.RecordBatch, error) bool) { yield(b, nil) })
		if err != nil {
			t.Fatal(err)
		}
		if uint64(n) != want.State.Count() || !sumEqual(want.State, sum) {
			t.Fatalf("%s: direct %d records %v, engine %v", what, n, sum, want.State.Words())
		}
		for x, c := range want.Columns {
			if !sumEqual(c.State, sums[x]) {
				t.Fatalf("%s: column %d (field %d) sums differ", what, x, c.Field)
			}
		}
	}
	if taken < 10 {
		t.Fatalf("the direct path took %d batches of 24", taken)
	}
}

func isASCII(s string) bool {
	for i := range len(s) {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}

// sumEqual reports whether state s's lanes are the sums d.
func sumEqual(s fingerprint.State, d fingerprint.Digest) bool {
	w := s.Words()
	return w[len(w)-2] == d.Lo && w[len(w)-1] == d.Hi
}

// memSource yields recs with schema directSchema.
type memSource struct {
	recs        []arrow.RecordBatch
	rows, total uint64
}

func (s *memSource) Schema() *arrow.Schema { return directSchema }
func (s *memSource) Next(ctx context.Context) (arrow.RecordBatch, error) {
	if len(s.recs) == 0 {
		return nil, io.EOF
	}
	r := s.recs[0]
	s.recs = s.recs[1:]
	s.rows += uint64(r.NumRows())
	return r, nil
}
func (s *memSource) Evidence() source.Evidence {
	return source.Evidence{Adapter: "test", Namespace: "test:direct", Version: "v1", Consistency: "test",
		Coverage: source.Coverage{Status: source.StatusComplete, Expected: s.total, ExpectedKnown: true, Returned: s.rows}}
}
func (s *memSource) Close() error { return nil }

// TestDirectScanMatchesGeneral: a v2 dataset scan gives the same state and column
// states with the direct path as without it, tiles of every size, batches the direct
// path refuses mixed in.
func TestDirectScanMatchesGeneral(t *testing.T) {
	for _, tiny := range []bool{false, true} {
		if tiny {
			tinyTiles(t)
		}
		var scans [2]*Result
		for i, disabled := range []bool{false, true} {
			r := rand.New(rand.NewPCG(7, 35))
			s := &memSource{}
			for b := range 20 {
				s.recs = append(s.recs, randDirectBatch(r, memory.DefaultAllocator, r.IntN(500), b%4 == 3))
				s.total += uint64(s.recs[b].NumRows())
			}
			old := directDisabled
			directDisabled = disabled
			reg, err := source.OpenRegistry(t.TempDir() + "/sources.json")
			if err != nil {
				t.Fatal(err)
			}
			scans[i], err = ObserveSource(context.Background(), reg, s, Options{Name: "direct", Algorithm: fingerprint.XXH3Columnar, Workers: 2})
			directDisabled = old
			if err != nil {
				t.Fatal(err)
			}
		}
		a, b := scans[0].Scan, scans[1].Scan
		if eq, _ := a.State.Equal(b.State); !eq || a.State.Count() == 0 {
			t.Fatalf("tiny %v: direct state %v, general %v", tiny, a.State.Words(), b.State.Words())
		}
		for i := range a.Columns {
			if eq, _ := a.Columns[i].Equal(b.Columns[i]); !eq {
				t.Fatalf("tiny %v: column %d differs", tiny, i)
			}
		}
	}
}
