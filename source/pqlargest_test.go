package source

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
)

// TestParquetGoLargestFirst: a row group's columns are decoded largest first, so that the
// largest does not decode alone at the end. The file's columns, without dictionaries or
// compression, have plainly ordered sizes: 1,000 distinct 100-byte strings (about 104 KB),
// int64s (8 KB), int8s stored as INT32 (4 KB), booleans bit-packed (125 bytes).
func TestParquetGoLargestFirst(t *testing.T) {
	t.Setenv(ParquetReaderEnv, "parquet-go")
	const n = 1000
	mem := memory.DefaultAllocator
	small, text, mid, bits := array.NewInt8Builder(mem), array.NewStringBuilder(mem), array.NewInt64Builder(mem), array.NewBooleanBuilder(mem)
	for i := range n {
		small.Append(int8(i))
		text.Append(fmt.Sprintf("%04d", i) + strings.Repeat("x", 96))
		mid.Append(int64(i) << 20)
		bits.Append(i%3 == 0)
	}
	cols := []arrow.Array{small.NewArray(), text.NewArray(), mid.NewArray(), bits.NewArray()}
	sc := arrow.NewSchema([]arrow.Field{{Name: "small", Type: arrow.PrimitiveTypes.Int8},
		{Name: "text", Type: arrow.BinaryTypes.String}, {Name: "mid", Type: arrow.PrimitiveTypes.Int64},
		{Name: "bits", Type: arrow.FixedWidthTypes.Boolean}}, nil)
	rec := array.NewRecordBatch(sc, cols, n)
	defer rec.Release()
	for _, c := range cols {
		c.Release()
	}
	path := filepath.Join(t.TempDir(), "sizes.parquet")
	writeParquetWith(t, path, rec, parquet.WithDictionaryDefault(false))
	src, err := Open(context.Background(), path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	pg, ok := src.(*parquetGoSource)
	if !ok {
		t.Fatalf("read by %T, want the parquet-go reader", src)
	}
	if got, want := pg.largestFirst(0), []int{1, 2, 0, 3}; !slices.Equal(got, want) {
		t.Fatalf("decode order %v, want %v (text, int64, int8, bool)", got, want)
	}
}
