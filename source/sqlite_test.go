package source

import (
	"context"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
)

func TestSQLiteAffinity(t *testing.T) {
	cases := map[string]string{
		"INTEGER": "INTEGER", "bigint": "INTEGER", "TINYINT": "INTEGER", "POINT": "INTEGER", // "POINT" contains INT
		"VARCHAR(20)": "TEXT", "CLOB": "TEXT", "text": "TEXT",
		"BLOB": "BLOB", "": "BLOB",
		"REAL": "REAL", "DOUBLE PRECISION": "REAL", "FLOAT": "REAL",
		"DECIMAL(10,2)": "NUMERIC", "BOOLEAN": "NUMERIC", "DATE": "NUMERIC",
	}
	for decl, want := range cases {
		if got := sqliteAffinity(decl); got != want {
			t.Errorf("affinity(%q) = %s, want %s", decl, got, want)
		}
	}
}

func TestSQLiteMixedStorageAndErrors(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "m.db")
	sqliteExec(t, db,
		"CREATE TABLE m(id INTEGER, v TEXT, price DECIMAL(10,2), note)",
		"INSERT INTO m VALUES (1, 'a', 100, x'01')",
		"INSERT INTO m VALUES ('secret-text', 'b', 200, x'02')", // TEXT stored in an INTEGER column
		"INSERT INTO m VALUES (3, 'c', 2.5, 'str')",             // REAL price; TEXT in a typeless (BLOB) column
		"INSERT INTO m VALUES (4, NULL, NULL, NULL)",
		"CREATE TABLE e(x INTEGER)",
	).Close()
	addr := "sqlite:" + db + "#m"
	if _, err := Open(context.Background(), addr, Options{}); CodeOf(err) != CodeUnsupported || !strings.Contains(err.Error(), `"price"`) {
		t.Fatalf("NUMERIC column: %v, want %s naming the column", err, CodeUnsupported)
	}
	sc, cols, ev := openRead(t, addr, Options{Exclude: []string{"price"}})
	if sc.NumFields() != 3 || sc.Field(2).Type.ID() != arrow.BINARY {
		t.Fatalf("schema %v", sc)
	}
	ids := cols[0].(*array.Int64)
	if ids.Len() != 2 || ids.Value(0) != 1 || ids.Value(1) != 4 || !cols[1].IsNull(1) {
		t.Fatalf("rows %v", ids)
	}
	checkFailures(t, ev, []wantFailure{{CodeType, 2, "id"}, {CodeType, 3, "note"}}, "secret-text")
	c := ev.Coverage
	if c.Status != StatusPartial || c.Expected != 4 || c.Returned != 2 || ev.Choices[1] != "mixed-storage=fail-row" || ev.Namespace != "sqlite:"+db+"#m" {
		t.Fatalf("evidence %+v", ev)
	}
	// Declaring the NUMERIC column as float64 reads REAL values and fails
	// visibly on the INTEGER-stored ones (100, 200): no int→float coercion.
	_, cols, ev = openRead(t, addr, Options{Columns: []Column{{"price", "float64"}}, Exclude: []string{"id", "note"}})
	if cols[1].Len() != 2 || cols[1].(*array.Float64).Value(0) != 2.5 || ev.Coverage.FailedRecords != 2 || ev.Choices[0] != "schema=declared+explicit" {
		t.Fatalf("price %v evidence %+v", cols[1], ev)
	}
	// Empty table: COMPLETE with expected 0.
	_, _, ev = openRead(t, "sqlite:"+db+"#e", Options{})
	if ev.Coverage.Status != StatusComplete || !ev.Coverage.ExpectedKnown || ev.Coverage.Expected != 0 {
		t.Fatalf("empty table %+v", ev.Coverage)
	}
	notDB := writeFile(t, dir, "not.db", []byte(strings.Repeat("this is not a database ", 100)))
	errs := []struct {
		addr string
		opts Options
		code Code
	}{
		{"sqlite:" + db + "#nosuch", Options{}, CodeNotFound},
		{"sqlite:" + filepath.Join(dir, "missing.db") + "#m", Options{}, CodeNotFound},
		{"sqlite:" + notDB + "#m", Options{}, CodeCorrupt},
		{"sqlite:" + db, Options{}, CodeAddress},
		{addr, Options{Query: "SELECT 1"}, CodeAddress},
		{"sqlite:" + db, Options{Query: "SELECT id + 1 AS x FROM m"}, CodeType},
		{"sqlite:" + db, Options{Query: "SELECT nonsense FROM"}, CodeSchema},
		{"sqlite:" + db, Options{Query: "SELECT id, id FROM m"}, CodeDuplicate},
		{addr, Options{Columns: []Column{{"id", "int32"}}}, CodeSchema},
		{addr, Options{Columns: []Column{{"zz", "int64"}}}, CodeSchema},
		{addr, Options{HashContent: true}, CodeOption},
	}
	for _, e := range errs {
		if _, err := Open(context.Background(), e.addr, e.opts); CodeOf(err) != e.code {
			t.Errorf("%s %+v: %v, want %s", e.addr, e.opts, err, e.code)
		}
	}
	// A query column without a declared type reads once declared.
	_, cols, ev = openRead(t, "sqlite:"+db, Options{Query: "SELECT id + 1 AS x FROM m WHERE typeof(id) = 'integer'", Columns: []Column{{"x", "int64"}}})
	if cols[0].Len() != 3 || cols[0].(*array.Int64).Value(0) != 2 || ev.Coverage.Status != StatusComplete || !strings.Contains(ev.Namespace, "?query-sha256=") {
		t.Fatalf("query %v %+v", cols[0], ev)
	}
}

func TestSQLiteOpenContextMayEnd(t *testing.T) {
	db := filepath.Join(t.TempDir(), "c.db")
	sqliteExec(t, db, "CREATE TABLE t(x INTEGER)", "INSERT INTO t VALUES (1), (2), (3)").Close()
	ctx, cancel := context.WithCancel(context.Background())
	src, err := Open(ctx, "sqlite:"+db+"#t", Options{BatchSize: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	cancel() // the caller's Open context ends; reading with another continues
	_, cols := func() (*arrow.Schema, []arrow.Array) {
		c, _ := readAll(t, src)
		return nil, c
	}()
	if cols[0].Len() != 3 {
		t.Fatalf("rows %d", cols[0].Len())
	}
	// A cancelled Next context stops the read and is recorded.
	src2, err := Open(context.Background(), "sqlite:"+db+"#t", Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer src2.Close()
	if _, err := src2.Next(ctx); CodeOf(err) != CodeIncomplete {
		t.Fatalf("cancelled Next: %v", err)
	}
	if c := src2.Evidence().Coverage; c.Status == StatusComplete {
		t.Fatalf("coverage %+v", c)
	}
}

func TestSQLiteNotNullIsNotNullable(t *testing.T) {
	db := filepath.Join(t.TempDir(), "n.db")
	sqliteExec(t, db, "CREATE TABLE t(a INTEGER NOT NULL, b TEXT)", "INSERT INTO t VALUES (1, NULL)").Close()
	sc, _, _ := openRead(t, "sqlite:"+db+"#t", Options{})
	if sc.Field(0).Nullable || !sc.Field(1).Nullable {
		t.Fatalf("schema %v: NOT NULL must make a field non-nullable", sc)
	}
	if v := sc.Field(1).Metadata.Values()[sc.Field(1).Metadata.FindKey(MetaSourceType)]; v != "TEXT" {
		t.Fatalf("source type %q", v)
	}
}

// TestSQLitePrimaryKey: a table's PRIMARY KEY columns in key order (the declared order,
// not the column order); nil for a view, a query and a rowid table without one.
func TestSQLitePrimaryKey(t *testing.T) {
	db := filepath.Join(t.TempDir(), "pk.db")
	sqliteExec(t, db,
		"CREATE TABLE composite(a TEXT, b INTEGER, c REAL, PRIMARY KEY (b, a))",
		"CREATE TABLE alias(id INTEGER PRIMARY KEY, name TEXT)",
		"CREATE TABLE plain(x INTEGER, y TEXT)",
		"CREATE TABLE norowid(k TEXT PRIMARY KEY, v INTEGER) WITHOUT ROWID",
		"CREATE VIEW v AS SELECT * FROM alias",
	).Close()
	for _, c := range []struct {
		addr string
		opts Options
		want []string
	}{
		{"sqlite:" + db + "#composite", Options{}, []string{"b", "a"}},
		{"sqlite:" + db + "#alias", Options{}, []string{"id"}},
		{"sqlite:" + db + "#norowid", Options{}, []string{"k"}},
		{"sqlite:" + db + "#plain", Options{}, nil},
		{"sqlite:" + db + "#v", Options{}, nil},
		{"sqlite:" + db, Options{Query: "SELECT * FROM alias"}, nil},
	} {
		src, err := Open(context.Background(), c.addr, c.opts)
		if err != nil {
			t.Fatalf("%s: %v", c.addr, err)
		}
		if got := PrimaryKey(src); !slices.Equal(got, c.want) {
			t.Errorf("%s %q: primary key %q, want %q", c.addr, c.opts.Query, got, c.want)
		}
		src.Close()
	}
}
