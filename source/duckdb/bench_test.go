//go:build cgo

package duckdb

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/arrow/memory/mallocator"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
	bindings "github.com/duckdb/duckdb-go-bindings"

	"github.com/pipewhy/pipewhy/internal/cputime"
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
	cpu0 := cputime.Process()
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
	reportRows(b, rows, cputime.Process()-cpu0)
}

// reportRows reports rows per wall second and, where the CPU time is
// known, CPU nanoseconds (user+system, all threads) per row.
func reportRows(b *testing.B, rows int64, cpu time.Duration) {
	b.ReportMetric(float64(rows)/b.Elapsed().Seconds(), "rows/s")
	if cpu > 0 && rows > 0 {
		b.ReportMetric(float64(cpu.Nanoseconds())/float64(rows), "cpu-ns/row")
	}
}

// chunkDecoder turns one data chunk into a record.
type chunkDecoder func(chunk bindings.DataChunk) (arrow.RecordBatch, error)

// benchChunks reads table b of the bench database (benchRows rows, 5
// columns) as one streaming query on a connection with threads=1 and hands
// every chunk to the decoder that prepare makes for the result, so that two
// decoders are compared on the same engine work. It reports CPU time per
// row of the whole read (engine scan plus decoding).
func benchChunks(b *testing.B, prepare func(b *testing.B, res *bindings.Result) (chunkDecoder, func())) {
	_, db := benchFiles(b)
	conn, done := engineConn(b, db)
	defer done()
	execSQL(b, conn, "SET threads = 1")
	var rows int64
	cpu0 := cputime.Process()
	for b.Loop() {
		s := &duckSource{conn: conn}
		if err := s.execStreaming("SELECT * FROM b"); err != nil {
			b.Fatal(err)
		}
		decode, release := prepare(b, s.res)
		var n int64
		for {
			chunk := bindings.FetchChunk(*s.res)
			if chunk.Ptr == nil {
				break
			}
			rec, err := decode(chunk)
			bindings.DestroyDataChunk(&chunk)
			if err != nil {
				b.Fatal(err)
			}
			n += rec.NumRows()
			rec.Release()
		}
		release()
		bindings.DestroyResult(s.res)
		if n != benchRows {
			b.Fatalf("%d rows", n)
		}
		rows += n
	}
	reportRows(b, rows, cputime.Process()-cpu0)
}

// BenchmarkChunksVectorDecoder: the adapter's vector decoder (vectors.go).
func BenchmarkChunksVectorDecoder(b *testing.B) {
	benchChunks(b, func(b *testing.B, res *bindings.Result) (chunkDecoder, func()) {
		plan, sc := planResult(b, res)
		return func(chunk bindings.DataChunk) (arrow.RecordBatch, error) {
			return decodeChunk(memory.DefaultAllocator, sc, plan, chunk)
		}, func() {}
	})
}

// BenchmarkChunksVectorDecoderMalloc: the same with C memory
// (mallocator), which the garbage collector does not see.
func BenchmarkChunksVectorDecoderMalloc(b *testing.B) {
	mem := mallocator.NewMallocator()
	benchChunks(b, func(b *testing.B, res *bindings.Result) (chunkDecoder, func()) {
		plan, sc := planResult(b, res)
		return func(chunk bindings.DataChunk) (arrow.RecordBatch, error) {
			return decodeChunk(mem, sc, plan, chunk)
		}, func() {}
	})
}

// BenchmarkChunksFetchOnly: the engine's work alone (chunks fetched and
// dropped), the floor under both decoders.
func BenchmarkChunksFetchOnly(b *testing.B) {
	benchChunks(b, func(b *testing.B, res *bindings.Result) (chunkDecoder, func()) {
		return func(chunk bindings.DataChunk) (arrow.RecordBatch, error) {
			n := int64(bindings.DataChunkGetSize(chunk))
			return array.NewRecordBatch(arrow.NewSchema(nil, nil), nil, n), nil
		}, func() {}
	})
}

// BenchmarkReadParquetDuckDB: read_parquet through the adapter.
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

// BenchmarkReadTableDuckDBMalloc: the same with C memory for the batches
// (Options.Allocator = mallocator), which the garbage collector does not
// see; compare with BenchmarkReadTableDuckDB for the collector's share.
func BenchmarkReadTableDuckDBMalloc(b *testing.B) {
	_, db := benchFiles(b)
	mem := mallocator.NewMallocator()
	benchSource(b, func() (source.Source, error) {
		return Open(context.Background(), Options{Path: db, Table: "b", Allocator: mem})
	})
}

// BenchmarkHashAllDuckDB: DuckDB hashing every row itself, the comparison
// target for pipewhy scan (hash(*) does not bind in DuckDB 1.5, so the
// columns are listed).
func BenchmarkHashAllDuckDB(b *testing.B) {
	pq, _ := benchFiles(b)
	var rows int64
	cpu0 := cputime.Process()
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
	reportRows(b, rows, cputime.Process()-cpu0)
}
