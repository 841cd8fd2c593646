//go:build cgo

package duckdb

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/pipewhy/pipewhy/source"
)

func TestOpenErrors(t *testing.T) {
	dir := t.TempDir()
	db := tempDB(t, "CREATE TABLE t(a BIGINT, b VARCHAR)", "INSERT INTO t VALUES (1, 'x')", "CREATE VIEW v AS SELECT a FROM t")
	junk := filepath.Join(dir, "junk.duckdb")
	os.WriteFile(junk, []byte("this is not a database file, just some text that is long enough"), 0o644)
	empty := filepath.Join(dir, "empty.duckdb")
	os.WriteFile(empty, nil, 0o644)
	whole, _ := os.ReadFile(db)
	trunc := filepath.Join(dir, "trunc.duckdb")
	os.WriteFile(trunc, whole[:len(whole)/3], 0o644)
	sqliteFile := filepath.Join(dir, "x.sqlite")
	os.WriteFile(sqliteFile, append([]byte("SQLite format 3\x00"), make([]byte, 4096)...), 0o644)
	notPQ := filepath.Join(dir, "x.parquet")
	os.WriteFile(notPQ, []byte("PAR1 but not really parquet"), 0o644)
	cases := []struct {
		name string
		opts Options
		code source.Code
	}{
		{"missing file", Options{Path: filepath.Join(dir, "nope.duckdb"), Table: "t"}, source.CodeNotFound},
		{"directory", Options{Path: dir, Table: "t"}, source.CodeIO},
		{"not a database", Options{Path: junk, Table: "t"}, source.CodeCorrupt},
		{"empty file", Options{Path: empty, Table: "t"}, source.CodeCorrupt},
		{"sqlite file", Options{Path: sqliteFile, Table: "t"}, source.CodeCorrupt},
		{"truncated database", Options{Path: trunc, Table: "t"}, source.CodeCorrupt},
		{"unknown table", Options{Path: db, Table: "nope"}, source.CodeNotFound},
		{"table and query", Options{Path: db, Table: "t", Query: "SELECT 1"}, source.CodeAddress},
		{"neither table nor query", Options{Path: db}, source.CodeAddress},
		{"memory table", Options{Table: "t"}, source.CodeAddress},
		{"NUL in table", Options{Path: db, Table: "t\x00"}, source.CodeAddress},
		{"batch size", Options{Path: db, Table: "t", BatchSize: -1}, source.CodeOption},
		{"syntax error", Options{Path: db, Query: "SELEC a FROM t"}, source.CodeSchema},
		{"unknown column", Options{Path: db, Query: "SELECT nope FROM t"}, source.CodeSchema},
		{"unknown table in query", Options{Path: db, Query: "SELECT * FROM nope"}, source.CodeNotFound},
		{"not a select", Options{Query: "CREATE TABLE x(a INTEGER)"}, source.CodeSchema},
		{"copy to file", Options{Query: "COPY (SELECT 1) TO " + quoteLiteral(filepath.Join(dir, "out.csv"))}, source.CodeSchema},
		{"two statements", Options{Query: "SELECT 1; SELECT 2"}, source.CodeSchema},
		{"parameter", Options{Query: "SELECT $1::INTEGER AS a"}, source.CodeSchema},
		{"write in read-only database", Options{Path: db, Query: "INSERT INTO t VALUES (2, 'y') RETURNING a"}, source.CodeSchema},
		{"duplicate names", Options{Query: "SELECT 1 AS a, 2 AS a"}, source.CodeDuplicate},
		{"exclude unknown", Options{Path: db, Table: "t", Exclude: []string{"nope"}}, source.CodeNotFound},
		{"exclude all", Options{Path: db, Table: "t", Exclude: []string{"a", "b"}}, source.CodeSchema},
		{"missing parquet", Options{Query: "SELECT * FROM read_parquet(" + quoteLiteral(filepath.Join(dir, "nope.parquet")) + ")"}, source.CodeNotFound},
		{"not parquet", Options{Query: "SELECT * FROM read_parquet(" + quoteLiteral(notPQ) + ")"}, source.CodeCorrupt},
		{"unsupported type", Options{Query: "SELECT DATE '2024-01-01' AS d"}, source.CodeUnsupported},
		{"count fails", Options{Query: "SELECT 1 AS a WHERE error('boom') IS NULL"}, source.CodeIO},
	}
	for _, c := range cases {
		src, err := Open(context.Background(), c.opts)
		if err == nil {
			src.Close()
			t.Errorf("%s: no error", c.name)
			continue
		}
		var e *source.Error
		if !errors.As(err, &e) || e.Code != c.code {
			t.Errorf("%s: %v, want code %s", c.name, err, c.code)
			continue
		}
		if cov := source.UnavailableCoverage(err); cov.Check() != nil || cov.Status != source.StatusUnavailable {
			t.Errorf("%s: unavailable coverage %+v", c.name, cov)
		}
	}
	// The database is still readable after all that: nothing was written.
	_, cols, ev := openRead(t, Options{Path: db, Table: "t"})
	if cols[0].Len() != 1 || ev.Coverage.Status != source.StatusComplete {
		t.Fatalf("after errors: %v %+v", cols, ev.Coverage)
	}
	_, cols, _ = openRead(t, Options{Path: db, Table: "v"})
	if len(cols) != 1 || cols[0].Len() != 1 {
		t.Fatalf("view: %v", cols)
	}
	if _, err := os.Stat(filepath.Join(dir, "out.csv")); err == nil {
		t.Fatal("COPY TO was executed")
	}
}

// A query that fails after some chunks were returned: the error stops the
// read, is repeated by later calls and makes the coverage PARTIAL.
func TestMidStreamFailure(t *testing.T) {
	src, err := Open(context.Background(), Options{
		Query:     "SELECT i, CASE WHEN i = 5000000 THEN error('boom') ELSE i END AS v FROM range(10000000) t(i)",
		BatchSize: 1000,
	})
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	var rows int64
	var nextErr error
	for {
		rec, err := src.Next(context.Background())
		if err != nil {
			nextErr = err
			break
		}
		rows += rec.NumRows()
		rec.Release()
	}
	if strings.Contains(nextErr.Error(), "boom") {
		t.Fatalf("error quotes a value of the query: %v", nextErr)
	}
	if source.CodeOf(nextErr) != source.CodeIO || nextErr == io.EOF {
		t.Fatalf("Next error %v, want %s", nextErr, source.CodeIO)
	}
	if rows == 0 || rows >= 10000000 {
		t.Fatalf("%d rows before the failure", rows)
	}
	if _, again := src.Next(context.Background()); again != nextErr {
		t.Fatalf("second Next: %v, want the same error", again)
	}
	c := src.Evidence().Coverage
	if c.Status != source.StatusPartial || c.Returned != uint64(rows) || c.FailureCount != 1 || c.Check() != nil {
		t.Fatalf("coverage %+v", c)
	}
	if r := c.Reasons(); len(r) != 1 || !strings.HasPrefix(r[0], "PW_SOURCE_IO: reading stopped") || strings.Contains(r[0], "boom") {
		t.Fatalf("reasons %q", r)
	}
}

func TestCancelAndIncomplete(t *testing.T) {
	src, err := Open(context.Background(), Options{Query: "SELECT i FROM range(10000) t(i)", BatchSize: 100})
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	rec, err := src.Next(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	rec.Release()
	// Evidence before the end: incomplete.
	c := src.Evidence().Coverage
	if c.Status != source.StatusPartial || c.Returned != 100 || c.Failures[0].Code != source.CodeIncomplete || c.Check() != nil {
		t.Fatalf("coverage %+v", c)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := src.Next(ctx); source.CodeOf(err) != source.CodeIncomplete || !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled Next: %v", err)
	}
	if _, err := Open(ctx, Options{Query: "SELECT 1 AS a"}); source.CodeOf(err) != source.CodeIncomplete {
		t.Fatalf("cancelled Open: %v", err)
	}
}

// A long-running query is interrupted inside the engine when the context
// ends: here while Open counts the rows of a cross product of 10^10 rows.
func TestInterrupt(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err := Open(ctx, Options{Query: "SELECT a.i + b.i AS s FROM range(100000) a(i), range(100000) b(i)"})
	if source.CodeOf(err) != source.CodeIncomplete || !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Open: %v, want %s", err, source.CodeIncomplete)
	}
	if d := time.Since(start); d > time.Minute {
		t.Fatalf("interrupt took %v", d)
	}
}

// Damaged blocks of a database file are found by DuckDB's block checksums:
// for a damage in each 256 KiB block in turn, Open or Next fails with
// PW_SOURCE_CORRUPT (coverage not COMPLETE), or the block was unused and
// every value reads back intact. Never are altered rows returned.
func TestDamagedBlocks(t *testing.T) {
	const rows = 100000
	p := tempDB(t, "CREATE TABLE t(a BIGINT, s VARCHAR)", "INSERT INTO t SELECT i, 'v' || i FROM range(100000) r(i)", "CHECKPOINT")
	whole, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	corrupt := 0
	for off := 12288 + 100; off+64 < len(whole); off += 262144 {
		c := append([]byte(nil), whole...)
		for i := off; i < off+64; i++ {
			c[i] ^= 0xff
		}
		q := filepath.Join(t.TempDir(), "c.duckdb")
		if err := os.WriteFile(q, c, 0o644); err != nil {
			t.Fatal(err)
		}
		src, err := Open(context.Background(), Options{Path: q, Table: "t"})
		if err != nil {
			if source.CodeOf(err) != source.CodeCorrupt {
				t.Errorf("offset %d: Open: %v, want %s", off, err, source.CodeCorrupt)
			}
			corrupt++
			continue
		}
		var nextErr error
		next := int64(0)
		for {
			rec, err := src.Next(context.Background())
			if err != nil {
				nextErr = err
				break
			}
			a, s := rec.Column(0).(*array.Int64), rec.Column(1).(*array.String)
			for i := 0; i < a.Len(); i++ {
				if a.Value(i) != next || s.Value(i) != fmt.Sprintf("v%d", next) {
					t.Fatalf("offset %d: row %d altered", off, next)
				}
				next++
			}
			rec.Release()
		}
		cov := src.Evidence().Coverage
		src.Close()
		if nextErr == io.EOF {
			if next != rows || cov.Status != source.StatusComplete {
				t.Errorf("offset %d: %d rows, coverage %+v", off, next, cov)
			}
			continue
		}
		corrupt++
		if source.CodeOf(nextErr) != source.CodeCorrupt || cov.Status == source.StatusComplete || cov.Check() != nil {
			t.Errorf("offset %d: Next: %v, coverage %+v", off, nextErr, cov)
		}
	}
	if corrupt == 0 {
		t.Fatal("no damage was detected in any block")
	}
}
