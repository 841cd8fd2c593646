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
	duck := filepath.Join(dir, "flights-1k-duckdb.parquet")
	if err := writeArrowGo(os.Args[1], arrowGo); err != nil {
		fmt.Fprintln(os.Stderr, "arrow-go:", err)
		os.Exit(1)
	}
	if err := copyDuckDB(arrowGo, duck); err != nil {
		fmt.Fprintln(os.Stderr, "duckdb:", err)
		os.Exit(1)
	}
	if err := writeParquetGo(arrowGo, filepath.Join(dir, "flights-1k-parquetgo.parquet")); err != nil {
		fmt.Fprintln(os.Stderr, "parquet-go:", err)
		os.Exit(1)
	}
}

// writeParquetGo writes the rows of in (written by writeArrowGo) with parquet-go.
func writeParquetGo(in, out string) error {
	f, err := os.Open(in)
	if err != nil {
		return err
	}
	defer f.Close()
	pr, err := file.NewParquetReader(f)
	if err != nil {
		return err
	}
	defer pr.Close()
	fr, err := pqarrow.NewFileReader(pr, pqarrow.ArrowReadProperties{}, memory.DefaultAllocator)
	if err != nil {
		return err
	}
	tbl, err := fr.ReadTable(context.Background())
	if err != nil {
		return err
	}
	defer tbl.Release()
	rec := array.NewTableReader(tbl, -1)
	defer rec.Release()
	if !rec.Next() || rec.RecordBatch().NumRows() != rows {
		return fmt.Errorf("want one batch of %d rows", rows)
	}
	b := rec.RecordBatch()
	// A Group's columns are in name order: date, delay, destination, distance, origin.
	schema := pq.NewSchema("schema", pq.Group{
		"date":        pq.Required(pq.TimestampAdjusted(pq.Microsecond, false)),
		"delay":       pq.Required(pq.Leaf(pq.Int64Type)),
		"destination": pq.Required(pq.String()),
		"distance":    pq.Required(pq.Leaf(pq.Int64Type)),
		"origin":      pq.Required(pq.String()),
	})
	col := func(name string) arrow.Array { return b.Column(b.Schema().FieldIndices(name)[0]) }
	date := col("date").(*array.Timestamp)
	delay, dist := col("delay").(*array.Int64), col("distance").(*array.Int64)
	orig, dest := col("origin").(*array.LargeString), col("destination").(*array.LargeString)
	var rowsOut []pq.Row
	for i := 0; i < rows; i++ {
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

// writeArrowGo writes the first rows of in to out with pqarrow, storing in's Arrow schema.
func writeArrowGo(in, out string) error {
	f, err := os.Open(in)
	if err != nil {
		return err
	}
	defer f.Close()
	pr, err := file.NewParquetReader(f)
	if err != nil {
		return err
	}
	defer pr.Close()
	fr, err := pqarrow.NewFileReader(pr, pqarrow.ArrowReadProperties{BatchSize: rows}, memory.DefaultAllocator)
	if err != nil {
		return err
	}
	rr, err := fr.GetRecordReader(context.Background(), nil, nil)
	if err != nil {
		return err
	}
	defer rr.Release()
	if !rr.Next() {
		return fmt.Errorf("no rows: %v", rr.Err())
	}
	rec := rr.RecordBatch()
	if rec.NumRows() < rows {
		return fmt.Errorf("first batch has %d rows", rec.NumRows())
	}
	slice := rec.NewSlice(0, rows)
	defer slice.Release()
	o, err := os.Create(out)
	if err != nil {
		return err
	}
	w, err := pqarrow.NewFileWriter(slice.Schema(), o, parquet.NewWriterProperties(),
		pqarrow.NewArrowWriterProperties(pqarrow.WithStoreSchema()))
	if err != nil {
		o.Close()
		return err
	}
	if err := w.Write(slice); err != nil {
		w.Close()
		return err
	}
	return w.Close() // closes o
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
