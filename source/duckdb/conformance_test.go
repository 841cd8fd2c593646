//go:build cgo

package duckdb

import (
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"

	"github.com/pipewhy/pipewhy/source"
	"github.com/pipewhy/pipewhy/source/sourcetest"
	"github.com/pipewhy/pipewhy/source/sourcetest/confdata"
)

// NaN bit patterns with payloads: quiet NaN with payload 1, a negative quiet
// NaN, and a signalling NaN (quiet bit clear, payload 1).
const (
	nanPayload  = 0x7ff8000000000001
	nanNegative = 0xfff8000000000000
	nanSignal   = 0x7ff0000000000001
)

var confTS = &arrow.TimestampType{Unit: arrow.Microsecond}

// confRecord is the logical dataset of the conformance test, built by hand.
func confRecord(t testing.TB) arrow.RecordBatch {
	mem := memory.DefaultAllocator
	sc := arrow.NewSchema([]arrow.Field{
		{Name: "id", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
		{Name: "name", Type: arrow.BinaryTypes.String, Nullable: true},
		{Name: "amount", Type: arrow.PrimitiveTypes.Float64, Nullable: true},
		{Name: "payload", Type: arrow.BinaryTypes.Binary, Nullable: true},
		{Name: "price", Type: &arrow.Decimal128Type{Precision: 20, Scale: 4}, Nullable: true},
		{Name: "at", Type: confTS, Nullable: true},
	}, nil)
	b := array.NewRecordBuilder(mem, sc)
	defer b.Release()
	b.Field(0).(*array.Int64Builder).AppendValues([]int64{1, 2, 3, math.MinInt64, math.MaxInt64, 6, 7, 8, 9}, nil)
	b.Field(1).(*array.StringBuilder).AppendValues([]string{"alice", "", "", "zoë 🙂", "a,b \"q\"", "\u0000nul", "tab\there", "日本語", "x"}, []bool{true, true, false, true, true, true, true, true, true})
	b.Field(2).(*array.Float64Builder).AppendValues([]float64{1.5, math.Copysign(0, -1), 0, math.Inf(1), math.Inf(-1),
		math.Float64frombits(nanPayload), math.Float64frombits(nanNegative), math.Float64frombits(nanSignal), 5e-324}, []bool{true, true, false, true, true, true, true, true, true})
	b.Field(3).(*array.BinaryBuilder).AppendValues([][]byte{{0x00, 0xff}, {}, nil, {0xde, 0xad}, {0x01}, {0x80}, {0xc3, 0x28}, {}, {0}}, []bool{true, true, false, true, true, true, true, true, true})
	b.Field(4).(*array.Decimal128Builder).AppendValues(
		[]decimal128.Num{dec("12345"), dec("-1"), dec("0"), dec("99999999999999999999"), dec("-99999999999999999999"), dec("10000"), dec("1"), dec("-10000"), dec("0")},
		[]bool{true, true, false, true, true, true, true, true, true})
	b.Field(5).(*array.TimestampBuilder).AppendValues([]arrow.Timestamp{0, -1, 0, 1709204400500000, -62135596800000000, 253402300799999999, 1, 2, 3},
		[]bool{true, true, false, true, true, true, true, true, true})
	return b.NewRecordBatch()
}

func writeParquet(t testing.TB, path string, rec arrow.RecordBatch, rowGroup int64) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	// Dictionary encoding is off: arrow-go's dictionary writer (v18.8.0)
	// stores every NaN of a column chunk as the first NaN it met, losing
	// the payloads before any reader sees them.
	props := parquet.NewWriterProperties(parquet.WithMaxRowGroupLength(rowGroup), parquet.WithDictionaryDefault(false))
	w, err := pqarrow.NewFileWriter(rec.Schema(), f, props, pqarrow.DefaultWriterProps())
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Write(rec); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
}

// sameValues compares two arrays value by value; floats by their bits, so
// that -0.0 and NaN payloads count.
func sameValues(a, b arrow.Array) bool {
	if a.Len() != b.Len() || !arrow.TypeEqual(a.DataType(), b.DataType()) {
		return false
	}
	if fa, ok := a.(*array.Float64); ok {
		fb := b.(*array.Float64)
		for i := 0; i < a.Len(); i++ {
			if a.IsNull(i) != b.IsNull(i) || (a.IsValid(i) && math.Float64bits(fa.Value(i)) != math.Float64bits(fb.Value(i))) {
				return false
			}
		}
		return true
	}
	return array.Equal(a, b)
}

// TestConformanceParquet reads one logical dataset through DuckDB
// (read_parquet, and a table of a database file) and through package
// source's own Parquet adapter, and requires equal values.
func TestConformanceParquet(t *testing.T) {
	dir := t.TempDir()
	rec := confRecord(t)
	defer rec.Release()
	pq := filepath.Join(dir, "c.parquet")
	writeParquet(t, pq, rec, 4)
	db := filepath.Join(dir, "c.duckdb")
	mkdb(t, db, "CREATE TABLE conf AS SELECT * FROM read_parquet("+quoteLiteral(pq)+")")

	ref, err := source.Open(context.Background(), pq, source.Options{})
	if err != nil {
		t.Fatal(err)
	}
	want, _ := readAllSource(t, ref)
	ref.Close()
	for i, c := range want {
		if !sameValues(c, rec.Column(i)) {
			t.Fatalf("reference reader: column %d = %v, want %v", i, bitsOf(c), bitsOf(rec.Column(i)))
		}
	}
	cases := []struct {
		name string
		opts Options
	}{
		{"read_parquet", Options{Query: "SELECT * FROM read_parquet(" + quoteLiteral(pq) + ")"}},
		{"table", Options{Path: db, Table: "conf"}},
		{"query", Options{Path: db, Query: "SELECT * FROM conf ORDER BY rowid;"}},
	}
	for _, tc := range cases {
		for _, bs := range []int{1, 3, 1000} {
			opts := tc.opts
			opts.BatchSize = bs
			sc, got, ev := openRead(t, opts)
			for i := range want {
				if sc.Field(i).Name != rec.Schema().Field(i).Name {
					t.Errorf("%s: field %d named %q", tc.name, i, sc.Field(i).Name)
				}
				if !sameValues(got[i], want[i]) {
					t.Errorf("%s (batch %d): column %s\n got %v\nwant %v", tc.name, bs, sc.Field(i).Name, bitsOf(got[i]), bitsOf(want[i]))
				}
			}
			c := ev.Coverage
			if c.Status != source.StatusComplete || c.Expected != 9 || c.Returned != 9 {
				t.Errorf("%s: coverage %+v", tc.name, c)
			}
		}
	}
}

// readAllSource is readAll for package source's adapters.
func readAllSource(t testing.TB, src source.Source) ([]arrow.Array, source.Evidence) {
	return readAll(t, src)
}

// bitsOf shows float columns as bit patterns in failure messages.
func bitsOf(a arrow.Array) any {
	f, ok := a.(*array.Float64)
	if !ok {
		return a
	}
	var out []string
	for i := 0; i < f.Len(); i++ {
		if f.IsNull(i) {
			out = append(out, "null")
			continue
		}
		out = append(out, fmt.Sprintf("%#016x", math.Float64bits(f.Value(i))))
	}
	return out
}

// TestConformanceShared: the shared conformance dataset (confdata), written to a table
// of a database file, reads back as through every adapter (sourcetest.Conformance).
func TestConformanceShared(t *testing.T) {
	db := tempDB(t, "CREATE TABLE conf (id BIGINT, name VARCHAR, amount DOUBLE, payload BLOB)",
		confdata.InsertSQL("conf", func(b []byte) string {
			var lit strings.Builder
			for _, c := range b {
				fmt.Fprintf(&lit, `\x%02X`, c)
			}
			return "'" + lit.String() + "'::BLOB"
		}))
	for _, bs := range []int{1, 2, 1000} {
		src, err := Open(context.Background(), Options{Path: db, Table: "conf", BatchSize: bs})
		if err != nil {
			t.Fatal(err)
		}
		sourcetest.Conformance(t, src, Kind, ConsistencyTransaction)
		if err := src.Close(); err != nil {
			t.Fatal(err)
		}
	}
}
