package canonical_test

import (
	"crypto/sha256"
	"fmt"
	"math/rand/v2"
	"sync"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/pipewhy/pipewhy/canonical"
)

// benchTable is 1,000,000 rows of six columns (int64, float64, utf8, bool, timestamp[us,
// UTC], int32 nullable) in 16 batches.
var benchTable = sync.OnceValues(func() (*arrow.Schema, []arrow.RecordBatch) {
	mem := memory.NewGoAllocator()
	schema := arrow.NewSchema([]arrow.Field{
		{Name: "id", Type: arrow.PrimitiveTypes.Int64},
		{Name: "score", Type: arrow.PrimitiveTypes.Float64},
		{Name: "label", Type: arrow.BinaryTypes.String},
		{Name: "ok", Type: arrow.FixedWidthTypes.Boolean},
		{Name: "at", Type: &arrow.TimestampType{Unit: arrow.Microsecond, TimeZone: "UTC"}},
		{Name: "qty", Type: arrow.PrimitiveTypes.Int32, Nullable: true},
	}, nil)
	const rows, batches = 1_000_000, 16
	var recs []arrow.RecordBatch
	for bi := range batches {
		b := array.NewRecordBuilder(mem, schema)
		for i := bi * rows / batches; i < (bi+1)*rows/batches; i++ {
			b.Field(0).(*array.Int64Builder).Append(int64(i))
			b.Field(1).(*array.Float64Builder).Append(float64(i) * 0.25)
			b.Field(2).(*array.StringBuilder).Append(fmt.Sprintf("label-%d", i%1000))
			b.Field(3).(*array.BooleanBuilder).Append(i%3 == 0)
			b.Field(4).(*array.TimestampBuilder).Append(arrow.Timestamp(1_700_000_000_000_000 + int64(i)))
			if i%10 == 0 {
				b.Field(5).AppendNull()
			} else {
				b.Field(5).(*array.Int32Builder).Append(int32(i))
			}
		}
		recs = append(recs, b.NewRecordBatch())
		b.Release()
	}
	return schema, recs
})

func BenchmarkTable1M(b *testing.B) {
	schema, recs := benchTable()
	enc, err := canonical.NewEncoder(schema, nil)
	if err != nil {
		b.Fatal(err)
	}
	n, _, err := enc.Size(canonical.Records(recs...))
	if err != nil {
		b.Fatal(err)
	}
	b.Run("CanonicalBytes", func(b *testing.B) {
		buf := make([]byte, 0, n)
		b.SetBytes(int64(n))
		b.ReportAllocs()
		for b.Loop() {
			if buf, err = enc.AppendTable(buf[:0], canonical.Records(recs...)); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("Size", func(b *testing.B) {
		b.SetBytes(int64(n))
		b.ReportAllocs()
		for b.Loop() {
			if _, _, err := enc.Size(canonical.Records(recs...)); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("Fingerprint", func(b *testing.B) {
		b.SetBytes(int64(n))
		b.ReportAllocs()
		for b.Loop() {
			if _, err := enc.Fingerprint(canonical.DomainArrowResult, canonical.Records(recs...)); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("PlainSHA256", func(b *testing.B) {
		// The same number of bytes through SHA-256 alone, in the same 64 KiB chunks: the
		// ceiling for Fingerprint.
		chunk := make([]byte, 64<<10)
		b.SetBytes(int64(n))
		for b.Loop() {
			h := sha256.New()
			for left := n; left > 0; {
				k := min(left, uint64(len(chunk)))
				h.Write(chunk[:k])
				left -= k
			}
			h.Sum(nil)
		}
	})
}

// The encoding hot path allocates per batch, never per value: four times the rows (maps,
// strings, lists, structs, dictionaries included) cost no more allocations.
func TestNoPerValueAllocation(t *testing.T) {
	if testing.Short() {
		t.Skip("skipped in -short: allocation counting runs the encoder repeatedly")
	}
	allocs := func(rows int) float64 {
		mem := memory.NewGoAllocator()
		rng := rand.New(rand.NewPCG(9, 9))
		d := randomData(rng, rows)
		schema, rec := buildTable(mem, rng, d, variant{tsUnit: arrow.Microsecond, dict: true}, true)
		enc, err := canonical.NewEncoder(schema, nil)
		if err != nil {
			t.Fatal(err)
		}
		buf := make([]byte, 0, 4<<20)
		return testing.AllocsPerRun(3, func() {
			if buf, err = enc.AppendTable(buf[:0], canonical.Records(rec)); err != nil {
				t.Fatal(err)
			}
		})
	}
	small, large := allocs(1000), allocs(4000)
	if large > small+4 {
		t.Errorf("allocations grow with rows: %v for 1000 rows, %v for 4000", small, large)
	}
}
