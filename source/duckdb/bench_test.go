//go:build duckdb_arrow

package duckdb

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"

	"github.com/pipewhy/pipewhy/source"
)

const benchRows = 1_000_000

var (
	benchOnce sync.Once
	benchDir  string
	benchErr  error
)

// benchFiles writes, once per process, a Parquet file of benchRows rows
// (id int64, qty int64, price float64, name ~12-byte utf8, at timestamp(us);
// row groups of 100000 rows, pqarrow defaults) and a DuckDB database
// holding the same table.
func benchFiles(b *testing.B) (pq, db string) {
	benchOnce.Do(func() {
		benchDir, benchErr = os.MkdirTemp("", "duckbench")
		if benchErr != nil {
			return
		}
		mem := memory.DefaultAllocator
		sc := arrow.NewSchema([]arrow.Field{
			{Name: "id", Type: arrow.PrimitiveTypes.Int64},
			{Name: "qty", Type: arrow.PrimitiveTypes.Int64},
			{Name: "price", Type: arrow.PrimitiveTypes.Float64},
			{Name: "name", Type: arrow.BinaryTypes.String},
			{Name: "at", Type: &arrow.TimestampType{Unit: arrow.Microsecond}},
		}, nil)
		f, err := os.Create(filepath.Join(benchDir, "b.parquet"))
		if err != nil {
			benchErr = err
			return
		}
		w, err := pqarrow.NewFileWriter(sc, f, parquet.NewWriterProperties(parquet.WithMaxRowGroupLength(100_000)), pqarrow.DefaultWriterProps())
		if err != nil {
			benchErr = err
			return
		}
		rb := array.NewRecordBuilder(mem, sc)
		for start := 0; start < benchRows; start += 100_000 {
			for i := start; i < start+100_000; i++ {
				rb.Field(0).(*array.Int64Builder).Append(int64(i))
				rb.Field(1).(*array.Int64Builder).Append(int64(i*7919) % 1000)
				rb.Field(2).(*array.Float64Builder).Append(float64(i) * 0.37)
				rb.Field(3).(*array.StringBuilder).Append(fmt.Sprintf("name-%07d", i))
				rb.Field(4).(*array.TimestampBuilder).Append(arrow.Timestamp(1_700_000_000_000_000 + int64(i)*1_000_000))
			}
			rec := rb.NewRecordBatch()
			if benchErr = w.Write(rec); benchErr != nil {
				return
			}
			rec.Release()
		}
		rb.Release()
		if benchErr = w.Close(); benchErr != nil {
			return
		}
		mkdb(b, filepath.Join(benchDir, "b.duckdb"), "CREATE TABLE b AS SELECT * FROM read_parquet("+quoteLiteral(filepath.Join(benchDir, "b.parquet"))+")")
	})
	if benchErr != nil {
		b.Fatal(benchErr)
	}
	return filepath.Join(benchDir, "b.parquet"), filepath.Join(benchDir, "b.duckdb")
}

func TestMain(m *testing.M) {
	code := m.Run()
	if benchDir != "" {
		os.RemoveAll(benchDir)
	}
	os.Exit(code)
}

func drain(b *testing.B, src source.Source) int64 {
	var n int64
	for {
		rec, err := src.Next(context.Background())
		if err == io.EOF {
			break
		}
		if err != nil {
			b.Fatal(err)
		}
		n += rec.NumRows()
		rec.Release()
	}
	if err := src.Close(); err != nil {
		b.Fatal(err)
	}
	return n
}

func benchSource(b *testing.B, open func() (source.Source, error)) {
	var rows int64
	for b.Loop() {
		src, err := open()
		if err != nil {
			b.Fatal(err)
		}
		if n := drain(b, src); n != benchRows {
			b.Fatalf("%d rows", n)
		}
		rows += benchRows
	}
	b.ReportMetric(float64(rows)/b.Elapsed().Seconds(), "rows/s")
}

// BenchmarkReadParquetDuckDB: read_parquet through DuckDB's Arrow export.
func BenchmarkReadParquetDuckDB(b *testing.B) {
	pq, _ := benchFiles(b)
	benchSource(b, func() (source.Source, error) {
		return Open(context.Background(), Options{Query: "SELECT * FROM read_parquet(" + quoteLiteral(pq) + ")"})
	})
}

// BenchmarkReadParquetSource: the same file through package source (pqarrow).
func BenchmarkReadParquetSource(b *testing.B) {
	pq, _ := benchFiles(b)
	benchSource(b, func() (source.Source, error) { return source.Open(context.Background(), pq, source.Options{}) })
}

// BenchmarkReadTableDuckDB: the same rows as a table of a database file.
func BenchmarkReadTableDuckDB(b *testing.B) {
	_, db := benchFiles(b)
	benchSource(b, func() (source.Source, error) { return Open(context.Background(), Options{Path: db, Table: "b"}) })
}

// BenchmarkHashAllDuckDB: DuckDB hashing every row itself, the comparison
// target for pipewhy scan (hash(*) does not bind in DuckDB 1.5, so the
// columns are listed).
func BenchmarkHashAllDuckDB(b *testing.B) {
	pq, _ := benchFiles(b)
	var rows int64
	for b.Loop() {
		src, err := Open(context.Background(), Options{Query: "SELECT sum(hash(id, qty, price, name, \"at\"))::VARCHAR AS h FROM read_parquet(" + quoteLiteral(pq) + ")"})
		if err != nil {
			b.Fatal(err)
		}
		if n := drain(b, src); n != 1 {
			b.Fatalf("%d rows", n)
		}
		rows += benchRows
	}
	b.ReportMetric(float64(rows)/b.Elapsed().Seconds(), "rows/s")
}
