//go:build duckdb_arrow

package duckdb

import (
	"context"
	"io"
	"path/filepath"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	bindings "github.com/duckdb/duckdb-go-bindings"

	"github.com/pipewhy/pipewhy/source"
)

// mkdb creates a DuckDB database file (read-write) and runs stmts in it.
func mkdb(t testing.TB, path string, stmts ...string) {
	t.Helper()
	var db bindings.Database
	var msg string
	var cfg bindings.Config
	bindings.CreateConfig(&cfg)
	defer bindings.DestroyConfig(&cfg)
	if bindings.OpenExt(path, &db, cfg, &msg) == bindings.StateError {
		t.Fatalf("open %s: %s", path, msg)
	}
	defer bindings.Close(&db)
	var conn bindings.Connection
	if bindings.Connect(db, &conn) == bindings.StateError {
		t.Fatal("connect failed")
	}
	defer bindings.Disconnect(&conn)
	for _, q := range stmts {
		var res bindings.Result
		if bindings.Query(conn, q, &res) == bindings.StateError {
			msg := bindings.ResultError(&res)
			bindings.DestroyResult(&res)
			t.Fatalf("%s: %s", q, msg)
		}
		bindings.DestroyResult(&res)
	}
}

// tempDB creates a database file in a test directory.
func tempDB(t testing.TB, stmts ...string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "t.duckdb")
	mkdb(t, p, stmts...)
	return p
}

// readAll drains src, checking the Source contract on the way, and returns
// each column concatenated.
func readAll(t testing.TB, src source.Source) ([]arrow.Array, source.Evidence) {
	t.Helper()
	ctx := context.Background()
	var recs []arrow.RecordBatch
	var rows uint64
	for {
		rec, err := src.Next(ctx)
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("Next: %v", err)
		}
		if !rec.Schema().Equal(src.Schema()) {
			t.Fatalf("batch schema %v differs from source schema %v", rec.Schema(), src.Schema())
		}
		rows += uint64(rec.NumRows())
		recs = append(recs, rec)
	}
	if _, err := src.Next(ctx); err != io.EOF {
		t.Fatalf("Next after EOF: %v, want io.EOF", err)
	}
	ev := src.Evidence()
	if ev.Coverage.Returned != rows {
		t.Fatalf("coverage returned %d, batches held %d rows", ev.Coverage.Returned, rows)
	}
	if err := ev.Coverage.Check(); err != nil {
		t.Fatalf("coverage %+v: %v", ev.Coverage, err)
	}
	cols := make([]arrow.Array, src.Schema().NumFields())
	for i := range cols {
		var chunks []arrow.Array
		for _, r := range recs {
			chunks = append(chunks, r.Column(i))
		}
		if len(chunks) == 0 {
			cols[i] = array.MakeArrayOfNull(memory.DefaultAllocator, src.Schema().Field(i).Type, 0)
			continue
		}
		c, err := array.Concatenate(chunks, memory.DefaultAllocator)
		if err != nil {
			t.Fatal(err)
		}
		cols[i] = c
	}
	for _, r := range recs {
		r.Release()
	}
	return cols, ev
}

// openRead opens opts and reads everything.
func openRead(t testing.TB, opts Options) (*arrow.Schema, []arrow.Array, source.Evidence) {
	t.Helper()
	src, err := Open(context.Background(), opts)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	defer func() {
		if err := src.Close(); err != nil {
			t.Fatalf("Close: %v", err)
		}
	}()
	cols, ev := readAll(t, src)
	return src.Schema(), cols, ev
}
