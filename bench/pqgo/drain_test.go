package pqgo

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	pq "github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
	"github.com/parquet-go/parquet-go"
	"github.com/zeebo/xxh3"
)

// benchSchema is bench/gen's schema.
var benchSchema = arrow.NewSchema([]arrow.Field{
	{Name: "id", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
	{Name: "qty", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
	{Name: "price", Type: arrow.PrimitiveTypes.Float64, Nullable: true},
	{Name: "name", Type: arrow.BinaryTypes.String, Nullable: true},
	{Name: "at", Type: &arrow.TimestampType{Unit: arrow.Microsecond}, Nullable: true},
}, nil)

// benchTable writes a bench-shaped file of n rows in row groups of 700 (nulls
// on some rows when withNulls) and returns its Sum computed straight from the
// Go values written, independently of any reader.
func benchTable(t *testing.T, path string, n int, withNulls bool) Sum {
	t.Helper()
	b := array.NewRecordBuilder(memory.NewGoAllocator(), benchSchema)
	defer b.Release()
	want := NewSum(5)
	want.Rows = int64(n)
	for i := range n {
		r := splitmix64(uint64(i))
		null := func(c int) bool {
			// every 13th row, and all of row group 2 (rows 1400..2099) and
			// more in columns price and name
			if withNulls && ((i+c)%13 == 0 || (c == 2 || c == 3) && i >= 1400 && i < 2300) {
				b.Field(c).AppendNull()
				want.Cols[c].Nulls++
				return true
			}
			want.Cols[c].Values++
			return false
		}
		if !null(0) {
			b.Field(0).(*array.Int64Builder).Append(int64(i) - 10)
			want.Cols[0].Acc += uint64(int64(i) - 10)
		}
		if !null(1) {
			q := int64(r % 50) // few distinct: stays dictionary-encoded
			if i%97 == 0 {
				q = math.MinInt64
			}
			b.Field(1).(*array.Int64Builder).Append(q)
			want.Cols[1].Acc += uint64(q)
		}
		if !null(2) {
			bits := r // any bit pattern: NaN payloads, -0.0, infinities
			switch i % 50 {
			case 1:
				bits = 0x8000000000000000
			case 2:
				bits = 0x7ff0000000000001
			case 3:
				bits = 0xfff8000000000abc
			}
			b.Field(2).(*array.Float64Builder).Append(math.Float64frombits(bits))
			want.Cols[2].Acc += bits
		}
		if !null(3) {
			s := fmt.Sprintf("n%d-é", r%1000)
			if i%31 == 0 {
				s = ""
			}
			b.Field(3).(*array.StringBuilder).Append(s)
			want.Cols[3].Acc += xxh3.Hash([]byte(s))
		}
		if !null(4) {
			at := 1_790_000_000_000_000 + int64(i)*1_000_003
			if i%41 == 0 {
				at = -int64(r >> 2)
			}
			b.Field(4).(*array.TimestampBuilder).Append(arrow.Timestamp(at))
			want.Cols[4].Acc += uint64(at)
		}
	}
	rec := b.NewRecordBatch()
	defer rec.Release()
	writeParquet(t, path, rec, []pq.WriterProperty{pq.WithMaxRowGroupLength(700), pq.WithDataPageSize(2048), pq.WithBatchSize(64),
		pq.WithDictionaryPageSizeLimit(1024), pq.WithDictionaryFor("price", false),
		pq.WithCompression(compress.Codecs.Snappy)})
	return want
}

// pqarrowSum is the Sum of path read with pqarrow, as `duckhash drain pqarrow-raw` reads it.
func pqarrowSum(t *testing.T, path string) Sum {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	pr, err := file.NewParquetReader(f)
	if err != nil {
		t.Fatal(err)
	}
	fr, err := pqarrow.NewFileReader(pr, pqarrow.ArrowReadProperties{BatchSize: 500}, memory.NewGoAllocator())
	if err != nil {
		t.Fatal(err)
	}
	rr, err := fr.GetRecordReader(context.Background(), nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer rr.Release()
	var s Sum
	for rr.Next() {
		if err := s.AddRecord(rr.RecordBatch()); err != nil {
			t.Fatal(err)
		}
	}
	if err := rr.Err(); err != nil && !errors.Is(err, io.EOF) {
		t.Fatal(err)
	}
	return s
}

func equalSums(t *testing.T, what string, got, want Sum) {
	t.Helper()
	if got.Rows != want.Rows || len(got.Cols) != len(want.Cols) {
		t.Fatalf("%s: %d rows %d columns, want %d rows %d columns", what, got.Rows, len(got.Cols), want.Rows, len(want.Cols))
	}
	for c := range want.Cols {
		if got.Cols[c] != want.Cols[c] {
			t.Errorf("%s column %d: %+v, want %+v", what, c, got.Cols[c], want.Cols[c])
		}
	}
	if got.Check() != want.Check() || got.String() != want.String() {
		t.Errorf("%s: %s, want %s", what, got, want)
	}
}

// TestDrainSum: parquet-go's drain, on 1 to 4 goroutines, and pqarrow's
// records give the Sum computed from the values written.
func TestDrainSum(t *testing.T) {
	path := filepath.Join(t.TempDir(), "bench.parquet")
	want := benchTable(t, path, 5000, true)
	if want.Cols[0].Nulls == 0 {
		t.Fatal("fixture has no nulls")
	}
	equalSums(t, "pqarrow", pqarrowSum(t, path), want)
	for _, workers := range []int{0, 1, 2, 3, 4, 100} {
		got, err := Drain(path, workers)
		if err != nil {
			t.Fatalf("workers %d: %v", workers, err)
		}
		equalSums(t, fmt.Sprintf("parquet-go, %d workers", workers), got, want)
		got, err = DrainArrow(path, workers)
		if err != nil {
			t.Fatalf("arrow, workers %d: %v", workers, err)
		}
		equalSums(t, fmt.Sprintf("parquet-go to Arrow, %d workers", workers), got, want)
	}
	got, err := DrainUntouched(path, 2)
	if err != nil {
		t.Fatal(err)
	}
	if got.Rows != want.Rows || got.Cols[2] != (ColSum{}) {
		t.Errorf("untouched: %+v, want %d rows and empty columns", got, want.Rows)
	}
}

// TestDrainRows: the row-by-row reader gives the same Sum on a file without nulls.
func TestDrainRows(t *testing.T) {
	path := filepath.Join(t.TempDir(), "bench.parquet")
	want := benchTable(t, path, 3000, false)
	got, err := DrainRows(path)
	if err != nil {
		t.Fatal(err)
	}
	equalSums(t, "parquet-go rows", got, want)
	d, err := Drain(path, 1)
	if err != nil {
		t.Fatal(err)
	}
	equalSums(t, "parquet-go pages", d, want)
	a, err := DrainArrow(path, 2)
	if err != nil {
		t.Fatal(err)
	}
	equalSums(t, "parquet-go to Arrow", a, want)
}

// TestDrainUnsupported: columns outside the checksum's types are errors, not
// panics, for both drains.
func TestDrainUnsupported(t *testing.T) {
	rec, _ := exactTable(t) // has float, FLBA decimals, int32
	defer rec.Release()
	path := filepath.Join(t.TempDir(), "exact.parquet")
	writeParquet(t, path, rec, nil)
	if _, err := Drain(path, 1); !errors.Is(err, ErrUnsupported) {
		t.Errorf("Drain: %v, want ErrUnsupported", err)
	}
	if _, err := DrainArrow(path, 1); !errors.Is(err, ErrUnsupported) {
		t.Errorf("DrainArrow: %v, want ErrUnsupported", err)
	}
	if _, err := DrainRows(path); err == nil {
		t.Error("DrainRows of a non-bench file: no error")
	}

	nested := arrow.NewSchema([]arrow.Field{{Name: "l", Type: arrow.ListOf(arrow.PrimitiveTypes.Int64), Nullable: true}}, nil)
	b := array.NewRecordBuilder(memory.NewGoAllocator(), nested)
	defer b.Release()
	lb := b.Field(0).(*array.ListBuilder)
	lb.Append(true)
	lb.ValueBuilder().(*array.Int64Builder).Append(1)
	nrec := b.NewRecordBatch()
	defer nrec.Release()
	npath := filepath.Join(t.TempDir(), "nested.parquet")
	writeParquet(t, npath, nrec, nil)
	if _, err := Drain(npath, 1); !errors.Is(err, ErrUnsupported) {
		t.Errorf("Drain of a list column: %v, want ErrUnsupported", err)
	}
	if _, err := DrainArrow(npath, 1); !errors.Is(err, ErrUnsupported) {
		t.Errorf("DrainArrow of a list column: %v, want ErrUnsupported", err)
	}

	if _, err := Drain(filepath.Join(t.TempDir(), "missing.parquet"), 1); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("Drain of a missing file: %v", err)
	}
	junk := filepath.Join(t.TempDir(), "junk.parquet")
	if err := os.WriteFile(junk, []byte("PAR1 this is not parquet PAR1"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Drain(junk, 1); err == nil {
		t.Error("Drain of a junk file: no error")
	}
}

// TestSumShape: AddRecord and Merge refuse sums of another shape and Arrow
// types outside the checksum; Check sees every field.
func TestSumShape(t *testing.T) {
	s := NewSum(2)
	if err := s.Merge(NewSum(3)); !errors.Is(err, ErrMismatch) {
		t.Errorf("Merge 2 and 3 columns: %v", err)
	}
	var zero Sum
	if err := zero.Merge(Sum{Rows: 1, Cols: []ColSum{{Values: 1, Acc: 7}}}); err != nil || zero.Cols[0].Acc != 7 {
		t.Errorf("zero Merge: %v, %+v", err, zero)
	}

	sc := arrow.NewSchema([]arrow.Field{{Name: "b", Type: arrow.FixedWidthTypes.Boolean}}, nil)
	b := array.NewRecordBuilder(memory.NewGoAllocator(), sc)
	defer b.Release()
	b.Field(0).(*array.BooleanBuilder).Append(true)
	rec := b.NewRecordBatch()
	defer rec.Release()
	var u Sum
	if err := u.AddRecord(rec); !errors.Is(err, ErrUnsupported) {
		t.Errorf("AddRecord of a boolean column: %v", err)
	}
	if err := s.AddRecord(rec); !errors.Is(err, ErrMismatch) {
		t.Errorf("AddRecord of 1 column into 2: %v", err)
	}

	base := Sum{Rows: 3, Cols: []ColSum{{Values: 2, Nulls: 1, Acc: 5}, {Values: 3, Acc: 9}}}
	seen := map[uint64]bool{base.Check(): true}
	for _, f := range []func(*Sum){
		func(s *Sum) { s.Rows++ },
		func(s *Sum) { s.Cols[0].Values++ },
		func(s *Sum) { s.Cols[0].Nulls++ },
		func(s *Sum) { s.Cols[0].Acc++ },
		func(s *Sum) { s.Cols[1].Acc++ },
		func(s *Sum) { s.Cols[0], s.Cols[1] = s.Cols[1], s.Cols[0] },
	} {
		m := Sum{Rows: base.Rows, Cols: append([]ColSum(nil), base.Cols...)}
		f(&m)
		if seen[m.Check()] {
			t.Errorf("Check does not see a change: %+v", m)
		}
		seen[m.Check()] = true
	}
}

// TestRowReaderConvertsTimestamps records why BenchRow's timestamp is tagged
// local: read through a struct whose timestamp is UTC-adjusted (parquet-go's
// default tag), a zone-less timestamp far from 1970 comes back changed. The page
// API (Drain) returns the stored integers. If parquet-go stops converting, this
// test fails and the note in BenchRow and bench/profile-scan.md should go.
func TestRowReaderConvertsTimestamps(t *testing.T) {
	sc := arrow.NewSchema([]arrow.Field{{Name: "at", Type: &arrow.TimestampType{Unit: arrow.Microsecond}, Nullable: true}}, nil)
	b := array.NewRecordBuilder(memory.NewGoAllocator(), sc)
	defer b.Release()
	const near, far = 1_790_000_000_000_000, -11_676_096_000_000_000 // 2026-09-21, 1600-01-01 (outside int64 nanoseconds)
	b.Field(0).(*array.TimestampBuilder).AppendValues([]arrow.Timestamp{near, far}, nil)
	rec := b.NewRecordBatch()
	defer rec.Release()
	path := filepath.Join(t.TempDir(), "ts.parquet")
	writeParquet(t, path, rec, nil)
	pf, closer, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer closer.Close()
	type utcRow struct {
		At int64 `parquet:"at,optional,timestamp(microsecond)"`
	}
	type localRow struct {
		At int64 `parquet:"at,optional,timestamp(microsecond:local)"`
	}
	u := make([]utcRow, 2)
	if n, err := parquet.NewGenericRowGroupReader[utcRow](pf.RowGroups()[0]).Read(u); n != 2 || (err != nil && !errors.Is(err, io.EOF)) {
		t.Fatalf("utc read: %d, %v", n, err)
	}
	l := make([]localRow, 2)
	if n, err := parquet.NewGenericRowGroupReader[localRow](pf.RowGroups()[0]).Read(l); n != 2 || (err != nil && !errors.Is(err, io.EOF)) {
		t.Fatalf("local read: %d, %v", n, err)
	}
	if l[0].At != near || l[1].At != far {
		t.Errorf("local tag: %d %d, want %d %d", l[0].At, l[1].At, int64(near), int64(far))
	}
	if u[0].At != near {
		t.Errorf("utc tag, 2026: %d, want %d", u[0].At, int64(near))
	}
	if u[1].At == far {
		t.Errorf("utc tag, far past: read exactly (%d): parquet-go no longer converts; update the notes", u[1].At)
	}
}
