//go:build cgo

package duckdb

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/pipewhy/pipewhy/source"
)

func TestEvidence(t *testing.T) {
	p := tempDB(t, "CREATE TABLE t(a BIGINT, b VARCHAR)", "INSERT INTO t SELECT i, 'x' || i FROM range(5000) r(i)")
	fi, _ := os.Stat(p)
	wantVersion := fmt.Sprintf("db_size=%d;db_mtime_ns=%d;wal=absent", fi.Size(), fi.ModTime().UnixNano())

	_, cols, ev := openRead(t, Options{Path: p, Table: "t", Exclude: []string{"b"}})
	if len(cols) != 1 || cols[0].Len() != 5000 {
		t.Fatalf("columns %d", len(cols))
	}
	want := source.Evidence{Adapter: Kind, Namespace: "duckdb:" + p + "#t", Version: wantVersion, Consistency: ConsistencyTransaction,
		Choices: []string{"schema=engine", "timezone=UTC", "order=insertion"}, Excluded: []string{"b"}}
	if ev.Adapter != want.Adapter || ev.Namespace != want.Namespace || ev.Version != want.Version || ev.Consistency != want.Consistency ||
		!slices.Equal(ev.Choices, want.Choices) || !slices.Equal(ev.Excluded, want.Excluded) {
		t.Errorf("evidence %+v\nwant %+v", ev, want)
	}
	if c := ev.Coverage; c.Status != source.StatusComplete || c.Expected != 5000 || c.Returned != 5000 {
		t.Errorf("coverage %+v", c)
	}
	// Row order of a table is insertion order.
	a := cols[0].(*array.Int64)
	for i := 0; i < a.Len(); i++ {
		if a.Value(i) != int64(i) {
			t.Fatalf("row %d holds %d", i, a.Value(i))
		}
	}

	q := "SELECT a FROM t WHERE a < 10"
	sum := sha256.Sum256([]byte(q))
	h := hex.EncodeToString(sum[:])
	_, _, ev = openRead(t, Options{Path: p, Query: q})
	if ev.Namespace != "duckdb:"+p+"?query-sha256="+h || ev.Version != wantVersion || ev.Consistency != ConsistencyTransaction ||
		!slices.Equal(ev.Choices, []string{"schema=engine", "timezone=UTC", "order=query"}) || ev.Coverage.Expected != 10 {
		t.Errorf("query evidence %+v", ev)
	}
	_, _, ev = openRead(t, Options{Query: "SELECT 1 AS a"})
	if ev.Namespace != "duckdb::memory:?query-sha256="+hex.EncodeToString(sha256.New().Sum(nil))[:0]+sha("SELECT 1 AS a") ||
		ev.Version != "query-sha256="+sha("SELECT 1 AS a") || ev.Consistency != ConsistencyQuery {
		t.Errorf("memory evidence %+v", ev)
	}
}

func sha(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])
}

// A database file that changes during the read is reported, even though the
// rows come from one snapshot.
func TestChangedFile(t *testing.T) {
	p := tempDB(t, "CREATE TABLE t(a BIGINT)", "INSERT INTO t SELECT * FROM range(10)")
	src, err := Open(context.Background(), Options{Path: p, Table: "t"})
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	f, err := os.OpenFile(p, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.Write(make([]byte, 4096))
	f.Close()
	for {
		rec, err := src.Next(context.Background())
		if err != nil {
			break
		}
		rec.Release()
	}
	c := src.Evidence().Coverage
	if c.Status != source.StatusPartial || len(c.Failures) != 1 || c.Failures[0].Code != source.CodeChanged || c.Returned != 10 {
		t.Fatalf("coverage %+v", c)
	}
}

func TestEmptyAndBatching(t *testing.T) {
	p := tempDB(t, "CREATE TABLE e(a BIGINT)", "CREATE TABLE n(a BIGINT)", "INSERT INTO n SELECT * FROM range(5000)")
	_, cols, ev := openRead(t, Options{Path: p, Table: "e"})
	if cols[0].Len() != 0 || ev.Coverage.Status != source.StatusComplete || !ev.Coverage.ExpectedKnown || ev.Coverage.Expected != 0 {
		t.Fatalf("empty table: %+v", ev.Coverage)
	}
	for _, bs := range []int{1, 7, 2048, 3000, 100000} {
		src, err := Open(context.Background(), Options{Path: p, Table: "n", BatchSize: bs})
		if err != nil {
			t.Fatal(err)
		}
		var next int64
		for {
			rec, err := src.Next(context.Background())
			if err != nil {
				break
			}
			if rec.NumRows() == 0 || rec.NumRows() > int64(min(bs, MaxChunkRows)) {
				t.Fatalf("batch size %d: batch of %d rows", bs, rec.NumRows())
			}
			a := rec.Column(0).(*array.Int64)
			for i := 0; i < a.Len(); i++ {
				if a.Value(i) != next {
					t.Fatalf("batch size %d: row %d holds %d", bs, next, a.Value(i))
				}
				next++
			}
			rec.Release()
		}
		if next != 5000 || src.Evidence().Coverage.Status != source.StatusComplete {
			t.Fatalf("batch size %d: %d rows, %+v", bs, next, src.Evidence().Coverage)
		}
		src.Close()
	}
}

// Text that is not valid UTF-8 never reaches a batch. DuckDB itself refuses
// it in a Parquet file, before any row: Open fails with CodeCorrupt.
func TestInvalidUTF8(t *testing.T) {
	dir := t.TempDir()
	pq := filepath.Join(dir, "bad.parquet")
	rec := stringRecord("ok", "bad \xc3\x28", "ok2")
	writeParquet(t, pq, rec, 10)
	_, err := Open(context.Background(), Options{Query: "SELECT * FROM read_parquet(" + quoteLiteral(pq) + ")"})
	if source.CodeOf(err) != source.CodeCorrupt {
		t.Fatalf("Open: %v, want %s", err, source.CodeCorrupt)
	}
	if strings.Contains(err.Error(), "bad") {
		t.Fatalf("error quotes the value: %v", err)
	}
}

func stringRecord(vals ...string) arrow.RecordBatch {
	sc := arrow.NewSchema([]arrow.Field{{Name: "s", Type: arrow.BinaryTypes.String, Nullable: true}}, nil)
	b := array.NewStringBuilder(memory.DefaultAllocator)
	b.AppendValues(vals, nil)
	col := b.NewArray()
	return array.NewRecordBatch(sc, []arrow.Array{col}, int64(len(vals)))
}

// The adapter's own screen (a guard behind DuckDB's validation) drops rows
// with invalid UTF-8 and counts them with their row numbers.
func TestScreen(t *testing.T) {
	rec := stringRecord("a", "\xff", "b", "c\xc3\x28", "d")
	s := &duckSource{o: Options{}.withDefaults(), schema: rec.Schema(), check: []colCheck{checkUTF8}}
	s.t.MaxDetails = 10
	s.fetched = 10
	out, err := s.screen(rec)
	if err != nil {
		t.Fatal(err)
	}
	got := out.Column(0).(*array.String)
	if got.Len() != 3 || got.Value(0) != "a" || got.Value(1) != "b" || got.Value(2) != "d" {
		t.Fatalf("kept %v", got)
	}
	if s.t.FailedRecords() != 2 || s.t.Failures()[0].Line != 12 || s.t.Failures()[1].Line != 14 || s.t.Failures()[0].Code != source.CodeUTF8 {
		t.Fatalf("failures %+v", s.t.Failures())
	}
}

// Query text forms that a naive subquery wrapper would break.
func TestQueryForms(t *testing.T) {
	for _, q := range []string{
		"SELECT 1 AS a, 2 AS b;",
		"SELECT 1 AS a, 2 AS b ;\n\t",
		"SELECT 1 AS a, 2 AS b -- trailing comment",
		"WITH x AS (SELECT 1 AS a, 2 AS b) SELECT * FROM x",
		"FROM (SELECT 1 AS a, 2 AS b)",
	} {
		for _, excl := range [][]string{nil, {"b"}} {
			_, cols, ev := openRead(t, Options{Query: q, Exclude: excl})
			if cols[0].(*array.Int32).Value(0) != 1 || len(cols) != 2-len(excl) || ev.Coverage.Status != source.StatusComplete {
				t.Errorf("%q exclude %v: %v %+v", q, excl, cols, ev.Coverage)
			}
		}
	}
}

func TestCloseTwice(t *testing.T) {
	src, err := Open(context.Background(), Options{Query: "SELECT 1 AS a"})
	if err != nil {
		t.Fatal(err)
	}
	if err := src.Close(); err != nil {
		t.Fatal(err)
	}
	if err := src.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := src.Next(context.Background()); source.CodeOf(err) != source.CodeIO {
		t.Fatalf("Next after Close: %v", err)
	}
}

// DuckDB's infinite timestamps have no Arrow value: their rows are failures,
// the other rows are returned.
func TestInfiniteTimestamps(t *testing.T) {
	for _, ty := range []string{"TIMESTAMP", "TIMESTAMPTZ", "TIMESTAMP_S", "TIMESTAMP_MS", "TIMESTAMP_NS"} {
		src, err := Open(context.Background(), Options{Query: "SELECT * FROM (VALUES (1, '2000-01-01'::" + ty + "), (2, 'infinity'::" + ty + "), (3, NULL), (4, '-infinity'::" + ty + ")) v(k, ts) ORDER BY k"})
		if err != nil {
			t.Fatal(err)
		}
		var keys []int32
		for {
			rec, err := src.Next(context.Background())
			if err != nil {
				break
			}
			keys = append(keys, rec.Column(0).(*array.Int32).Int32Values()...)
			rec.Release()
		}
		c := src.Evidence().Coverage
		src.Close()
		if !slices.Equal(keys, []int32{1, 3}) || c.Status != source.StatusPartial || c.FailedRecords != 2 || c.Expected != 4 || c.Check() != nil ||
			c.Failures[0].Line != 2 || c.Failures[1].Line != 4 || c.Failures[0].Code != source.CodeType || c.Failures[0].Column != "ts" {
			t.Errorf("%s: rows %v, coverage %+v", ty, keys, c)
		}
	}
}
