package scan

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"

	"github.com/pipewhy/pipewhy/snapshot"
	"github.com/pipewhy/pipewhy/source"
)

// TestParquetReadersSameScan: a value-resolution scan of a Parquet file of several row
// groups gives the same states, record entries, key words, value entries and value
// payloads through the parquet-go reader (whose batches share their row group's memory
// and are released by the encoders on other goroutines while the reader decodes the
// next row groups into released memory) and through pqarrow, with tiny tiles, so that
// many batches are in flight at once.
func TestParquetReadersSameScan(t *testing.T) {
	tinyTiles(t)
	schema := arrow.NewSchema([]arrow.Field{
		{Name: "id", Type: arrow.PrimitiveTypes.Int64},
		{Name: "name", Type: arrow.BinaryTypes.String, Nullable: true},
		{Name: "amount", Type: &arrow.Decimal128Type{Precision: 12, Scale: 2}, Nullable: true},
		{Name: "price", Type: arrow.PrimitiveTypes.Float64, Nullable: true},
		{Name: "at", Type: &arrow.TimestampType{Unit: arrow.Microsecond}, Nullable: true},
	}, nil)
	p := filepath.Join(t.TempDir(), "groups.parquet")
	f, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	props := parquet.NewWriterProperties(parquet.WithDataPageSize(1<<10), parquet.WithCompression(compress.Codecs.Snappy))
	w, err := pqarrow.NewFileWriter(schema, f, props, pqarrow.NewArrowWriterProperties(pqarrow.WithStoreSchema()))
	if err != nil {
		t.Fatal(err)
	}
	bld := array.NewRecordBuilder(memory.NewGoAllocator(), schema)
	defer bld.Release()
	id := 0
	for g, rows := range []int{700, 3000, 13, 1500, 2200} {
		for range rows {
			bld.Field(0).(*array.Int64Builder).Append(int64(id))
			if id%11 == 3 {
				for c := 1; c < 5; c++ {
					bld.Field(c).AppendNull()
				}
			} else {
				bld.Field(1).(*array.StringBuilder).Append(fmt.Sprintf("name %d of group %d", id%97, g))
				bld.Field(2).(*array.Decimal128Builder).Append(decimal128.FromI64(int64(id*37 - 5000)))
				bld.Field(3).(*array.Float64Builder).Append(float64(id) / 3)
				bld.Field(4).(*array.TimestampBuilder).Append(arrow.Timestamp(1_790_000_000_000_000 + int64(id)*1_000_003))
			}
			id++
		}
		rec := bld.NewRecordBatch()
		if err := w.Write(rec); err != nil { // one row group a batch
			t.Fatal(err)
		}
		rec.Release()
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	scan := func(reader string) *Result {
		t.Setenv(source.ParquetReaderEnv, reader)
		reg, err := source.OpenRegistry(filepath.Join(t.TempDir(), "sources.json"))
		if err != nil {
			t.Fatal(err)
		}
		res, err := Observe(context.Background(), reg, Options{Address: p, Name: "groups", Resolution: snapshot.ResolutionValue, Key: []string{"id"}})
		if err != nil {
			t.Fatalf("%s: %v", reader, err)
		}
		if got := res.Scan.Metadata.Coverage.Returned; got != uint64(id) {
			t.Fatalf("%s: %d records returned, want %d", reader, got, id)
		}
		return res
	}
	a, b := scan("parquet-go"), scan("pqarrow")
	if eq, _ := a.Scan.State.Equal(b.Scan.State); !eq {
		t.Fatal("dataset states differ")
	}
	for i := range a.Scan.Columns {
		if eq, _ := a.Scan.Columns[i].Equal(b.Scan.Columns[i]); !eq {
			t.Fatalf("column %d states differ", i)
		}
	}
	for name, pair := range map[string][2][]uint64{
		"records":       {a.Scan.Records, b.Scan.Records},
		"key words":     {a.Scan.KeyWords, b.Scan.KeyWords},
		"key offsets":   {a.Scan.KeyOffsets, b.Scan.KeyOffsets},
		"values":        {a.Scan.Values, b.Scan.Values},
		"value offsets": {a.Scan.ValueOffsets, b.Scan.ValueOffsets},
	} {
		if len(pair[0]) == 0 || !slices.Equal(pair[0], pair[1]) {
			t.Fatalf("%s differ between the readers (%d and %d words)", name, len(pair[0]), len(pair[1]))
		}
	}
	if a.Scan.Len() != id {
		t.Fatalf("%d record entries, want %d", a.Scan.Len(), id)
	}
}
