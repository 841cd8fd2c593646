//go:build ignore

// gen writes the flights fixtures of this directory from vega-datasets' flights-3m.parquet
// (see README.md): the file's first 1,000 rows, written by three writers, the same rows:
//
//   - flights-1k-arrowgo.parquet: Apache Arrow Go (pqarrow), storing the original file's
//     Arrow schema (its strings are large_utf8);
//
//   - flights-1k-duckdb.parquet: DuckDB's COPY ... TO (FORMAT parquet) of that file;
//
//   - flights-1k-parquetgo.parquet: parquet-go, every column REQUIRED (none of these rows
//     has a null), where the other two writers declare every column OPTIONAL.
//
//     go run ./testdata/vega/gen.go /path/to/vega-datasets/data/flights-3m.parquet
package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
	bindings "github.com/duckdb/duckdb-go-bindings"
	pq "github.com/parquet-go/parquet-go"
)

const rows = 1000

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: go run ./testdata/vega/gen.go FLIGHTS-3M.PARQUET")
		os.Exit(2)
	}
	dir := filepath.Join("testdata", "vega")
	arrowGo := filepath.Join(dir, "flights-1k-arrowgo.parquet")
	fail := func(what string, err error) {
		if err != nil {
			fmt.Fprintln(os.Stderr, what+":", err)
			os.Exit(1)
		}
	}
	rec, err := firstRows(os.Args[1])
	fail("read", err)
	defer rec.Release()
	fail("arrow-go", writeArrowGo(rec, arrowGo))
	fail("duckdb", copyDuckDB(arrowGo, filepath.Join(dir, "flights-1k-duckdb.parquet")))
	fail("parquet-go", writeParquetGo(rec, filepath.Join(dir, "flights-1k-parquetgo.parquet")))
}

// firstRows reads the first rows of the Parquet file in, as its Arrow schema says.
func firstRows(in string) (arrow.RecordBatch, error) {
	f, err := os.Open(in)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	pr, err := file.NewParquetReader(f)
	if err != nil {
		return nil, err
	}
	defer pr.Close()
	fr, err := pqarrow.NewFileReader(pr, pqarrow.ArrowReadProperties{BatchSize: rows}, memory.DefaultAllocator)
	if err != nil {
		return nil, err
	}
	rr, err := fr.GetRecordReader(context.Background(), nil, nil)
	if err != nil {
		return nil, err
	}
	defer rr.Release()
	if !rr.Next() {
		return nil, fmt.Errorf("no rows: %v", rr.Err())
	}
	rec := rr.RecordBatch()
	if rec.NumRows() < rows {
		return nil, fmt.Errorf("first batch has %d rows", rec.NumRows())
	}
	return rec.NewSlice(0, rows), nil
}

// writeArrowGo writes rec to out with pqarrow, storing rec's Arrow schema.
func writeArrowGo(rec arrow.RecordBatch, out string) error {
	o, err := os.Create(out)
	if err != nil {
		return err
	}
	w, err := pqarrow.NewFileWriter(rec.Schema(), o, parquet.NewWriterProperties(),
		pqarrow.NewArrowWriterProperties(pqarrow.WithStoreSchema()))
	if err != nil {
		o.Close()
		return err
	}
	if err := w.Write(rec); err != nil {
		w.Close()
		return err
	}
	return w.Close() // closes o
}

// writeParquetGo writes rec with parquet-go, every column REQUIRED.
func writeParquetGo(rec arrow.RecordBatch, out string) error {
	// A Group's columns are in name order: date, delay, destination, distance, origin.
	schema := pq.NewSchema("schema", pq.Group{
		"date":        pq.Required(pq.TimestampAdjusted(pq.Microsecond, false)),
		"delay":       pq.Required(pq.Leaf(pq.Int64Type)),
		"destination": pq.Required(pq.String()),
		"distance":    pq.Required(pq.Leaf(pq.Int64Type)),
		"origin":      pq.Required(pq.String()),
	})
	col := func(name string) arrow.Array { return rec.Column(rec.Schema().FieldIndices(name)[0]) }
	date := col("date").(*array.Timestamp)
	delay, dist := col("delay").(*array.Int64), col("distance").(*array.Int64)
	orig, dest := col("origin").(*array.LargeString), col("destination").(*array.LargeString)
	var rowsOut []pq.Row
	for i := 0; i < int(rec.NumRows()); i++ {
		for _, a := range []arrow.Array{date, delay, dist, orig, dest} {
			if a.IsNull(i) {
				return fmt.Errorf("row %d has a null: REQUIRED columns cannot hold it", i)
			}
		}
		rowsOut = append(rowsOut, pq.Row{
			pq.Int64Value(int64(date.Value(i))).Level(0, 0, 0),
			pq.Int64Value(delay.Value(i)).Level(0, 0, 1),
			pq.ByteArrayValue([]byte(dest.Value(i))).Level(0, 0, 2),
			pq.Int64Value(dist.Value(i)).Level(0, 0, 3),
			pq.ByteArrayValue([]byte(orig.Value(i))).Level(0, 0, 4),
		})
	}
	o, err := os.Create(out)
	if err != nil {
		return err
	}
	defer o.Close()
	w := pq.NewWriter(o, schema)
	if _, err := w.WriteRows(rowsOut); err != nil {
		return err
	}
	return w.Close()
}

// copyDuckDB rewrites in as out with DuckDB's own Parquet writer.
func copyDuckDB(in, out string) error {
	var db bindings.Database
	if bindings.Open(":memory:", &db) == bindings.StateError {
		return fmt.Errorf("open")
	}
	defer bindings.Close(&db)
	var conn bindings.Connection
	if bindings.Connect(db, &conn) == bindings.StateError {
		return fmt.Errorf("connect")
	}
	defer bindings.Disconnect(&conn)
	q := fmt.Sprintf("COPY (SELECT * FROM read_parquet('%s')) TO '%s' (FORMAT parquet)", in, out)
	var res bindings.Result
	defer bindings.DestroyResult(&res)
	if bindings.Query(conn, q, &res) == bindings.StateError {
		return fmt.Errorf("%s", bindings.ResultError(&res))
	}
	return nil
}
