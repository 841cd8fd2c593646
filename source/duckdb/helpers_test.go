//go:build duckdb_arrow

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
