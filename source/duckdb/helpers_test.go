//go:build cgo

package duckdb

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	bindings "github.com/duckdb/duckdb-go-bindings"

	"github.com/pipewhy/pipewhy/source"
	"github.com/pipewhy/pipewhy/source/sourcetest"
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

// readAll drains src through the shared contract checks of sourcetest.ReadAll.
func readAll(t testing.TB, src source.Source) ([]arrow.Array, source.Evidence) {
	t.Helper()
	return sourcetest.ReadAll(t, src)
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

// engineConn opens path (":memory:" or "" for an in-memory database) with
// the adapter's settings and session time zone, for tests that read data
// chunks directly. The returned function closes it.
func engineConn(t testing.TB, path string) (bindings.Connection, func()) {
	t.Helper()
	if path == Memory {
		path = ""
	}
	var cfg bindings.Config
	bindings.CreateConfig(&cfg)
	defer bindings.DestroyConfig(&cfg)
	for _, kv := range settings {
		if bindings.SetConfig(cfg, kv[0], kv[1]) == bindings.StateError {
			t.Fatalf("setting %s rejected", kv[0])
		}
	}
	var db bindings.Database
	var msg string
	if bindings.OpenExt(path, &db, cfg, &msg) == bindings.StateError {
		t.Fatalf("open %q: %s", path, msg)
	}
	var conn bindings.Connection
	if bindings.Connect(db, &conn) == bindings.StateError {
		bindings.Close(&db)
		t.Fatal("connect failed")
	}
	execSQL(t, conn, "SET TimeZone = 'UTC'")
	return conn, func() {
		bindings.Disconnect(&conn)
		bindings.Close(&db)
	}
}

// execSQL runs statements on conn and discards their results.
func execSQL(t testing.TB, conn bindings.Connection, stmts ...string) {
	t.Helper()
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

// planResult is the adapter's decoding plan and Arrow schema for the
// columns of res, as Open builds them (without adapter metadata).
func planResult(t testing.TB, res *bindings.Result) ([]vecCol, *arrow.Schema) {
	t.Helper()
	n := int(bindings.ColumnCount(res))
	plan := make([]vecCol, n)
	fields := make([]arrow.Field, n)
	for i := range n {
		lt := bindings.ColumnLogicalType(res, bindings.IdxT(i))
		ti := describeType(lt)
		bindings.DestroyLogicalType(&lt)
		dt, ok := exportType(ti)
		if ok {
			plan[i], ok = planColumn(ti, dt)
		}
		if !ok {
			t.Fatalf("column %d: type %s not supported", i, typeSpelling(ti))
		}
		fields[i] = arrow.Field{Name: bindings.ColumnName(res, bindings.IdxT(i)), Type: dt, Nullable: true}
	}
	return plan, arrow.NewSchema(fields, nil)
}
