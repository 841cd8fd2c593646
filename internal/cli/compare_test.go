package cli

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
	mysqldriver "github.com/go-sql-driver/mysql"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/pipewhy/pipewhy/internal/testenv"
	pwmysql "github.com/pipewhy/pipewhy/source/mysql"
)

// cmpRow is one record of the comparison fixtures. amount is the decimal(10,2) text and
// cents its unscaled value, written by hand side by side.
type cmpRow struct {
	id     int64
	name   string
	qty    int64
	price  float64
	amount string
	cents  int64
}

// cmpRows: non-ASCII text (NFC "café"), an empty string, a negative integer, binary
// fractions that every format holds exactly, decimals with trailing zeros.
var cmpRows = []cmpRow{
	{1, "apple", 10, 1.5, "1.50", 150},
	{2, "Birne", 20, 0.25, "0.99", 99},
	{3, "café", -3, -2, "12.00", 1200},
	{4, "", 0, 1e10, "100.25", 10025},
}

// cmpSchema types the CSV and JSON lines fixtures; qty is int32 there and int64 in
// Parquet and SQLite.
const cmpSchema = `{"columns":[{"name":"id","type":"int64"},{"name":"name","type":"text"},{"name":"qty","type":"int32"},{"name":"price","type":"float64"},{"name":"amount","type":"decimal(10,2)"}]}`

func writeCmpSchema(t *testing.T, dir string) string {
	t.Helper()
	p := filepath.Join(dir, "schema.json")
	if err := os.WriteFile(p, []byte(cmpSchema), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func writeCmpCSV(t *testing.T, path string, rows []cmpRow) {
	t.Helper()
	var b strings.Builder
	b.WriteString("id,name,qty,price,amount\n")
	for _, r := range rows {
		fmt.Fprintf(&b, "%d,%s,%d,%s,%s\n", r.id, r.name, r.qty, strconv.FormatFloat(r.price, 'g', -1, 64), r.amount)
	}
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
}

func writeCmpJSONL(t *testing.T, path string, rows []cmpRow) {
	t.Helper()
	var b strings.Builder
	for _, r := range rows {
		name, _ := json.Marshal(r.name)
		fmt.Fprintf(&b, `{"id":%d,"name":%s,"qty":%d,"price":%s,"amount":"%s"}`+"\n", r.id, name, r.qty, strconv.FormatFloat(r.price, 'g', -1, 64), r.amount)
	}
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
}

// writeCmpParquet writes the rows with pqarrow in another column order than the CSV,
// with qty as int64; nameCol names the text column.
func writeCmpParquet(t *testing.T, path string, rows []cmpRow, nameCol string) {
	t.Helper()
	schema := arrow.NewSchema([]arrow.Field{
		{Name: "amount", Type: &arrow.Decimal128Type{Precision: 10, Scale: 2}, Nullable: true},
		{Name: "qty", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
		{Name: "price", Type: arrow.PrimitiveTypes.Float64, Nullable: true},
		{Name: nameCol, Type: arrow.BinaryTypes.String, Nullable: true},
		{Name: "id", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
	}, nil)
	bld := array.NewRecordBuilder(memory.NewGoAllocator(), schema)
	defer bld.Release()
	for _, r := range rows {
		bld.Field(0).(*array.Decimal128Builder).Append(decimal128.FromI64(r.cents))
		bld.Field(1).(*array.Int64Builder).Append(r.qty)
		bld.Field(2).(*array.Float64Builder).Append(r.price)
		bld.Field(3).(*array.StringBuilder).Append(r.name)
		bld.Field(4).(*array.Int64Builder).Append(r.id)
	}
	rec := bld.NewRecordBatch()
	defer rec.Release()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	w, err := pqarrow.NewFileWriter(schema, f, parquet.NewWriterProperties(), pqarrow.DefaultWriterProps())
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Write(rec); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
}

// writeCmpSQLite writes the rows without amount (SQLite has no decimal storage class).
func writeCmpSQLite(t *testing.T, path string, rows []cmpRow) {
	t.Helper()
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec("CREATE TABLE items(id INTEGER, name TEXT, qty INTEGER, price REAL)"); err != nil {
		t.Fatal(err)
	}
	for _, r := range rows {
		if _, err := db.Exec("INSERT INTO items VALUES (?, ?, ?, ?)", r.id, r.name, r.qty, r.price); err != nil {
			t.Fatal(err)
		}
	}
}

// compareDoc is the --json document: diff's shape plus the comparison's own keys.
type compareDoc struct {
	diffDoc
	Types []struct{ Name, A, B string } `json:"types"`
	OnlyA []string                      `json:"only_in_a"`
	OnlyB []string                      `json:"only_in_b"`
	Notes []string                      `json:"notes"`
	A     struct{ Coverage string }     `json:"a"`
}

func compareJSON(t *testing.T, wantCode int, args ...string) (compareDoc, map[string]any) {
	t.Helper()
	code, out, e := runCLI(t, append([]string{"compare", "--json"}, args...)...)
	if code != wantCode {
		t.Fatalf("compare %v: exit %d, want %d; stderr %s\n%s", args, code, wantCode, e, out)
	}
	var d compareDoc
	if err := json.Unmarshal([]byte(out), &d); err != nil {
		t.Fatalf("compare --json: %v\n%s", err, out)
	}
	var raw map[string]any
	if err := json.Unmarshal([]byte(out), &raw); err != nil {
		t.Fatal(err)
	}
	return d, raw
}

func counts(d compareDoc) [4]uint64 {
	r := d.Records
	if r == nil || r.Added == nil || r.Removed == nil || r.Changed == nil || r.Unchanged == nil {
		return [4]uint64{^uint64(0)}
	}
	return [4]uint64{*r.Added, *r.Removed, *r.Changed, *r.Unchanged}
}

type cmpFixture struct {
	dir, schema, csv, jsonl, parquet, sqlite string
}

func newCmpFixture(t *testing.T, rows []cmpRow) cmpFixture {
	t.Helper()
	dir := t.TempDir()
	f := cmpFixture{dir: dir, schema: writeCmpSchema(t, dir), csv: filepath.Join(dir, "items.csv"),
		jsonl: filepath.Join(dir, "items.jsonl"), parquet: filepath.Join(dir, "items.parquet"),
		sqlite: filepath.Join(dir, "items.db")}
	writeCmpCSV(t, f.csv, rows)
	writeCmpJSONL(t, f.jsonl, rows)
	writeCmpParquet(t, f.parquet, rows, "name")
	writeCmpSQLite(t, f.sqlite, rows)
	return f
}

// TestCompareEqualAcrossFormats: the same rows in CSV (typed by --schema, qty int32),
// JSON lines, Parquet (other column order, qty int64) and SQLite are equal pairwise.
func TestCompareEqualAcrossFormats(t *testing.T) {
	f := newCmpFixture(t, cmpRows)
	db := f.sqlite + "#items"
	before := treeOf(t, f.dir)
	cases := []struct {
		a, b    string
		exclude bool   // SQLite has no amount column
		retyped string // a column whose source type differs, compared by value
	}{
		{f.csv, f.parquet, false, "qty"},
		{f.parquet, f.csv, false, "qty"},
		{f.csv, f.jsonl, false, ""},
		{f.jsonl, f.parquet, false, "qty"},
		{f.csv, db, true, "qty"},
		{db, f.parquet, true, ""},
		{db, f.jsonl, true, "qty"},
	}
	for _, c := range cases {
		t.Run(filepath.Ext(c.a)+"-"+filepath.Ext(c.b), func(t *testing.T) {
			args := []string{"--schema", f.schema, "--key", "id", c.a, c.b}
			if c.exclude {
				args = append(args, "--exclude", "amount")
			}
			d, _ := compareJSON(t, ExitOK, args...)
			if !d.Equal || !d.Comparable || d.Resolution != "value" {
				t.Fatalf("equal %v comparable %v resolution %q, want equal at value resolution", d.Equal, d.Comparable, d.Resolution)
			}
			if got := counts(d); got != [4]uint64{0, 0, 0, 4} {
				t.Errorf("records added/removed/changed/unchanged = %v, want [0 0 0 4]", got)
			}
			if len(d.SchemaChanges) != 0 || len(d.OnlyA) != 0 || len(d.OnlyB) != 0 {
				t.Errorf("schema changes %+v only A %v only B %v, want none", d.SchemaChanges, d.OnlyA, d.OnlyB)
			}
			var types []string
			for _, ty := range d.Types {
				types = append(types, ty.Name)
			}
			if c.retyped != "" && !slices.Contains(types, c.retyped) {
				t.Errorf("types %v lack %s (int32 on one side, int64 on the other)", types, c.retyped)
			}
			want := 5
			if c.exclude {
				want = 4
			}
			if c.exclude && !slices.Contains(d.Notes, "left out of the comparison (--exclude): amount") {
				t.Errorf("notes %q lack the exclusion", d.Notes)
			}
			if len(d.Fields) != want {
				t.Errorf("fields %v, want %d compared columns", d.Fields, want)
			}
			for n, fc := range d.Fields {
				if fc.Changed == nil || *fc.Changed != 0 {
					t.Errorf("field %s changed %v", n, fc.Changed)
				}
			}
		})
	}
	code, out, e := runCLI(t, "compare", "--schema", f.schema, "--key", "id", f.csv, f.parquet)
	if code != ExitOK {
		t.Fatalf("text: exit %d: %s", code, e)
	}
	for _, s := range []string{"+0 added  −0 removed  ~0 changed  4 same", "schema    unchanged", "types     qty: int32 | int64 (both C3 int: compared by value)"} {
		if !strings.Contains(out, s) {
			t.Errorf("text lacks %q:\n%s", s, out)
		}
	}
	sameTree(t, before, treeOf(t, f.dir))
}

// TestCompareDifferences: A has ids 1-4, B has 2-5 with id 3's name changed; so one
// record only in A (id=1), one only in B (id=5), one changed, two equal.
func TestCompareDifferences(t *testing.T) {
	dir := t.TempDir()
	schema := writeCmpSchema(t, dir)
	a := filepath.Join(dir, "a.csv")
	writeCmpCSV(t, a, cmpRows)
	bRows := []cmpRow{cmpRows[1], cmpRows[2], cmpRows[3], {5, "plum", 7, 0.5, "3.10", 310}}
	bRows[1].name = "cafe"
	b := filepath.Join(dir, "b.parquet")
	writeCmpParquet(t, b, bRows, "name")

	d, raw := compareJSON(t, ExitDifference, "--schema", schema, "--key", "id", a, b)
	if d.Equal || !d.Comparable {
		t.Fatalf("equal %v comparable %v, want different and comparable", d.Equal, d.Comparable)
	}
	if got := counts(d); got != [4]uint64{1, 1, 1, 2} {
		t.Errorf("records added/removed/changed/unchanged = %v, want [1 1 1 2]", got)
	}
	for n, want := range map[string]uint64{"name": 1, "id": 0, "qty": 0, "price": 0, "amount": 0} {
		if fc, ok := d.Fields[n]; !ok || fc.Changed == nil || *fc.Changed != want {
			t.Errorf("fields[%s] = %+v, want changed %d", n, fc, want)
		}
	}
	ex := d.Examples
	if len(ex.Added) != 1 || ex.Added[0].Key != "id=5" || len(ex.Removed) != 1 || ex.Removed[0].Key != "id=1" {
		t.Errorf("examples added %+v removed %+v, want id=5 / id=1", ex.Added, ex.Removed)
	}
	if len(ex.Changed) != 1 || ex.Changed[0].Key != "id=3" || len(ex.Changed[0].Changes) != 1 ||
		ex.Changed[0].Changes[0] != (struct{ Field, Old, New string }{"name", `"café"`, `"cafe"`}) {
		t.Errorf("changed examples %+v, want id=3 name \"café\" → \"cafe\"", ex.Changed)
	}
	// The same two sources scanned into snapshots and diffed give the same counts, and
	// every key of diff's document is in compare's.
	r := newRepo(t)
	ids := make([]string, 2)
	for i, src := range []string{a, b} {
		args := []string{"scan", "--repo", r, "--name", "items", "--resolution", "value", "--key", "id", src}
		if i == 0 {
			args = append(args, "--schema", schema)
		}
		code, out, e := runCLI(t, args...)
		if code != 0 {
			t.Fatalf("scan: %s", e)
		}
		ids[i] = snapRe.FindStringSubmatch(out)[1]
	}
	code, out, e := runCLI(t, "diff", "--json", "--repo", r, ids[0], ids[1])
	if code != ExitDifference {
		t.Fatalf("diff: exit %d: %s", code, e)
	}
	var diffRaw map[string]any
	if err := json.Unmarshal([]byte(out), &diffRaw); err != nil {
		t.Fatal(err)
	}
	for k, v := range diffRaw {
		cv, ok := raw[k]
		if !ok {
			t.Errorf("compare --json lacks diff's key %q", k)
			continue
		}
		switch k {
		case "records", "fields":
			if fmt.Sprint(v) != fmt.Sprint(cv) {
				t.Errorf("%s: diff %v, compare %v", k, v, cv)
			}
		}
	}
	// --limit 0 keeps no examples; the text still counts them.
	d, _ = compareJSON(t, ExitDifference, "--schema", schema, "--key", "id", "--limit", "0", a, b)
	if len(d.Examples.Added)+len(d.Examples.Removed)+len(d.Examples.Changed) != 0 {
		t.Errorf("--limit 0 kept examples %+v", d.Examples)
	}
	code, out, _ = runCLI(t, "compare", "--schema", schema, "--key", "id", a, b)
	if code != ExitDifference {
		t.Fatalf("text: exit %d", code)
	}
	for _, s := range []string{"+1 added  −1 removed  ~1 changed  2 same", "name ~1", `changed   id=3  name "café" → "cafe"`,
		"added     id=5", "removed   id=1", "added = only in B, removed = only in A"} {
		if !strings.Contains(out, s) {
			t.Errorf("text lacks %q:\n%s", s, out)
		}
	}
}

// TestCompareMap: B calls the text column "label". Unmapped, name and label are
// columns of one side (schema changes; the rest compares equal); --map name=label
// makes the sources equal.
func TestCompareMap(t *testing.T) {
	dir := t.TempDir()
	schema := writeCmpSchema(t, dir)
	a := filepath.Join(dir, "a.csv")
	writeCmpCSV(t, a, cmpRows)
	b := filepath.Join(dir, "b.parquet")
	writeCmpParquet(t, b, cmpRows, "label")

	d, _ := compareJSON(t, ExitDifference, "--schema", schema, "--key", "id", a, b)
	if d.Equal {
		t.Fatal("equal without --map")
	}
	if !slices.Equal(d.OnlyA, []string{"name"}) || !slices.Equal(d.OnlyB, []string{"label"}) {
		t.Errorf("only A %v only B %v, want [name] [label]", d.OnlyA, d.OnlyB)
	}
	kinds := map[string]string{}
	for _, c := range d.SchemaChanges {
		kinds[c.Name] = c.Kind
	}
	if len(d.SchemaChanges) != 2 || kinds["name"] != "removed" || kinds["label"] != "added" {
		t.Errorf("schema changes %+v, want name removed, label added", d.SchemaChanges)
	}
	if got := counts(d); got != [4]uint64{0, 0, 0, 4} {
		t.Errorf("common columns: records %v, want [0 0 0 4]", got)
	}
	if _, ok := d.Fields["name"]; ok {
		t.Errorf("fields %v include the one-sided column name", d.Fields)
	}

	d, _ = compareJSON(t, ExitOK, "--schema", schema, "--key", "id", "--map", "name=label", a, b)
	if !d.Equal || counts(d) != [4]uint64{0, 0, 0, 4} || d.Fields["name"].Changed == nil {
		t.Errorf("--map name=label: equal %v records %v fields %v", d.Equal, counts(d), d.Fields)
	}
	// A changed value in the mapped column is reported under A's name.
	c := slices.Clone(cmpRows)
	c[0].name = "pear"
	writeCmpParquet(t, b, c, "label")
	d, _ = compareJSON(t, ExitDifference, "--schema", schema, "--key", "id", "--map", "name=label", a, b)
	if len(d.Examples.Changed) != 1 || d.Examples.Changed[0].Key != "id=1" || len(d.Examples.Changed[0].Changes) != 1 ||
		d.Examples.Changed[0].Changes[0].Field != "name" || d.Examples.Changed[0].Changes[0].New != `"pear"` {
		t.Errorf("mapped change %+v", d.Examples.Changed)
	}

	for _, m := range []string{"nope=label", "name=nope", "name", "=label", "name=label,qty"} {
		code, _, e := runCLI(t, "compare", "--schema", schema, "--key", "id", "--map", m, a, b)
		if code != ExitError || !strings.Contains(e, "--map") {
			t.Errorf("--map %q: exit %d, stderr %q; want 2 naming --map", m, code, e)
		}
	}
}

func TestCompareErrors(t *testing.T) {
	f := newCmpFixture(t, cmpRows)
	bad := filepath.Join(f.dir, "bad.parquet")
	if err := os.WriteFile(bad, []byte("PAR1 this is not a parquet file PAR1"), 0o644); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name string
		args []string
		msg  string
	}{
		{"unknown key", []string{"--key", "nope", f.csv, f.parquet}, `key column "nope"`},
		{"key on one side only", []string{"--key", "amount", f.csv, f.sqlite + "#items"}, `key column "amount"`},
		{"missing file", []string{"--key", "id", f.csv, filepath.Join(f.dir, "missing.parquet")}, "side B: "},
		{"unreadable parquet", []string{"--key", "id", bad, f.csv}, "side A: "},
		{"unknown exclude", []string{"--key", "id", "--exclude", "nope", f.csv, f.parquet}, "--exclude nope"},
		{"bad profile", []string{"--key", "id", "--profile", "loose", f.csv, f.parquet}, "--profile"},
	}
	dup := filepath.Join(f.dir, "dup.csv")
	writeCmpCSV(t, dup, append(slices.Clone(cmpRows), cmpRows[2]))
	cases = append(cases, struct {
		name string
		args []string
		msg  string
	}{"duplicate key", []string{"--key", "id", f.csv, dup}, "1 key values occur more than once (2 records), e.g. id=3; a key must identify one record"})
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			code, out, e := runCLI(t, append([]string{"compare", "--schema", f.schema}, c.args...)...)
			if code != ExitError || !strings.Contains(e, c.msg) {
				t.Errorf("exit %d stderr %q stdout %q; want 2 and %q", code, e, out, c.msg)
			}
		})
	}
}

// TestComparePartialCoverage: a row of A that fails to read (qty "x" is not an int32)
// is an error, unless --allow-partial, which compares the rows read and says so first.
func TestComparePartialCoverage(t *testing.T) {
	dir := t.TempDir()
	schema := writeCmpSchema(t, dir)
	a := filepath.Join(dir, "a.csv")
	writeCmpCSV(t, a, cmpRows)
	data, _ := os.ReadFile(a)
	damaged := strings.Replace(string(data), "4,,0,", "4,,x,", 1)
	if damaged == string(data) {
		t.Fatal("fixture: row 4 not found")
	}
	os.WriteFile(a, []byte(damaged), 0o644)
	b := filepath.Join(dir, "b.csv")
	writeCmpCSV(t, b, cmpRows[:3])
	code, _, e := runCLI(t, "compare", "--schema", schema, "--key", "id", a, b)
	if code != ExitError || !strings.Contains(e, "PARTIAL") {
		t.Fatalf("exit %d stderr %q; want 2 naming the PARTIAL coverage", code, e)
	}
	code, out, e := runCLI(t, "compare", "--schema", schema, "--key", "id", "--allow-partial", a, b)
	if code != ExitOK {
		t.Fatalf("--allow-partial: exit %d: %s", code, e)
	}
	if !strings.HasPrefix(out, "WARNING: side A (") || !strings.Contains(out, "coverage PARTIAL: only the 3 records read were compared") {
		t.Errorf("no coverage warning first:\n%s", out)
	}
	d, _ := compareJSON(t, ExitOK, "--schema", schema, "--key", "id", "--allow-partial", a, b)
	if d.A.Coverage != "PARTIAL" || counts(d) != [4]uint64{0, 0, 0, 3} {
		t.Errorf("json coverage %q records %v", d.A.Coverage, counts(d))
	}
}

// cmpPostgres creates a uniquely named PostgreSQL schema (dropped after the test) and
// returns a connection, the DSN and the schema. Without a reachable server the test is skipped,
// unless PIPEWHY_REQUIRE_SERVICES=1 (CI), where it fails (source/postgres's pattern).
func cmpPostgres(t *testing.T) (*pgconn.PgConn, string, string) {
	t.Helper()
	dsn := testenv.PostgresDSN()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	conn, err := pgconn.Connect(ctx, dsn)
	if err != nil {
		testenv.Missing(t, testenv.Services, "PostgreSQL server not reachable (set PIPEWHY_TEST_POSTGRES_DSN)")
	}
	var b [6]byte
	rand.Read(b[:])
	schema := "pw_test_" + hex.EncodeToString(b[:])
	pgExec(t, conn, "CREATE SCHEMA "+schema)
	t.Cleanup(func() {
		pgExec(t, conn, "DROP SCHEMA "+schema+" CASCADE")
		conn.Close(context.Background())
	})
	return conn, dsn, schema
}

func pgExec(t *testing.T, conn *pgconn.PgConn, sql string) {
	t.Helper()
	if _, err := conn.Exec(context.Background(), sql).ReadAll(); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
}

// cmpMariaDB creates a uniquely named MariaDB/MySQL database (dropped after the test)
// and returns a pool on it and its mysql:// address without a table. Without a server
// the test is skipped, unless PIPEWHY_REQUIRE_SERVICES=1 (source/mysql's pattern).
func cmpMariaDB(t *testing.T) (*sql.DB, string) {
	t.Helper()
	raw := testenv.MySQLAddress()
	a, err := pwmysql.ParseAddress(raw)
	if err != nil {
		t.Fatalf("PIPEWHY_TEST_MYSQL_DSN: %v", err)
	}
	a.Timeout = 3 * time.Second
	open := func(a pwmysql.Address) *sql.DB {
		c, err := mysqldriver.NewConnector(a.Config())
		if err != nil {
			t.Fatal(err)
		}
		return sql.OpenDB(c)
	}
	boot := open(a)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := boot.PingContext(ctx); err != nil {
		boot.Close()
		testenv.Missing(t, testenv.Services, "no MySQL/MariaDB server at %s (set PIPEWHY_TEST_MYSQL_DSN)", a)
	}
	var b [6]byte
	rand.Read(b[:])
	name := "pw_" + hex.EncodeToString(b[:])
	if _, err := boot.Exec("CREATE DATABASE `" + name + "` CHARACTER SET utf8mb4"); err != nil {
		boot.Close()
		t.Fatalf("create database: %v", err)
	}
	t.Cleanup(func() {
		if _, err := boot.Exec("DROP DATABASE IF EXISTS `" + name + "`"); err != nil {
			t.Errorf("drop database %s: %v", name, err)
		}
		boot.Close()
	})
	a.Database = name
	db := open(a)
	t.Cleanup(func() { db.Close() })
	u, err := url.Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	u.Path = "/" + name
	return db, u.String()
}

// TestCompareServers: the same rows in PostgreSQL (int4, text, float8, numeric(10,2)),
// MariaDB (INT, VARCHAR, DOUBLE, DECIMAL(10,2)) and Parquet (int64, utf8, float64,
// decimal128(10,2)) are equal under strict-v1; the database pair needs no --key (both
// tables have the primary key id).
func TestCompareServers(t *testing.T) {
	pg, dsn, schema := cmpPostgres(t)
	db, myAddr := cmpMariaDB(t)
	pgExec(t, pg, "CREATE TABLE "+schema+".items (id int4 PRIMARY KEY, name text NOT NULL, qty int4, price float8, amount numeric(10,2))")
	if _, err := db.Exec("CREATE TABLE items (id INT PRIMARY KEY, name VARCHAR(50) NOT NULL, qty INT, price DOUBLE, amount DECIMAL(10,2))"); err != nil {
		t.Fatal(err)
	}
	for _, r := range cmpRows {
		pgExec(t, pg, fmt.Sprintf("INSERT INTO %s.items VALUES (%d, '%s', %d, %s, %s)", schema, r.id, r.name, r.qty,
			strconv.FormatFloat(r.price, 'g', -1, 64), r.amount))
		if _, err := db.Exec("INSERT INTO items VALUES (?, ?, ?, ?, ?)", r.id, r.name, r.qty, r.price, r.amount); err != nil {
			t.Fatal(err)
		}
	}
	pq := filepath.Join(t.TempDir(), "items.parquet")
	writeCmpParquet(t, pq, cmpRows, "name")
	pgAddr := dsn + "#" + schema + ".items"
	myItems := myAddr + "#items"
	for _, c := range []struct {
		name string
		args []string
	}{
		{"postgres-mariadb", []string{pgAddr, myItems}},
		{"mariadb-postgres", []string{myItems, pgAddr}},
		{"postgres-parquet", []string{"--key", "id", pgAddr, pq}},
		{"parquet-mariadb", []string{"--key", "id", pq, myItems}},
	} {
		t.Run(c.name, func(t *testing.T) {
			d, _ := compareJSON(t, ExitOK, c.args...)
			if !d.Equal || counts(d) != [4]uint64{0, 0, 0, 4} || len(d.SchemaChanges) != 0 {
				t.Errorf("equal %v records %v schema %+v", d.Equal, counts(d), d.SchemaChanges)
			}
			if len(d.Fields) != 5 {
				t.Errorf("fields %v, want the 5 columns", d.Fields)
			}
		})
	}
	// A parquet file without the primary key notion: no --key is an error.
	if code, _, e := runCLI(t, "compare", pgAddr, pq); code != ExitError || !strings.Contains(e, "--key") {
		t.Errorf("postgres vs parquet without --key: exit %d %s", code, e)
	}

	// Negative zero: PostgreSQL keeps -0 in float8; MariaDB stores -0.0 as +0.0. So the
	// same insert differs under strict-v1 (which keeps the sign of zero) and is equal under
	// logical-v1 (zeros → +0).
	negZero := math.Copysign(0, -1)
	pgExec(t, pg, "UPDATE "+schema+".items SET price = '-0'::float8 WHERE id = 4")
	if _, err := db.Exec("UPDATE items SET price = ? WHERE id = 4", negZero); err != nil {
		t.Fatal(err)
	}
	d, _ := compareJSON(t, ExitDifference, pgAddr, myItems)
	if counts(d) != [4]uint64{0, 0, 1, 3} || d.Fields["price"].Changed == nil || *d.Fields["price"].Changed != 1 {
		t.Errorf("strict-v1: records %v fields %v, want id=4 price changed", counts(d), d.Fields)
	}
	if code, out, _ := runCLI(t, "compare", pgAddr, myItems); code != ExitDifference || !strings.Contains(out, "changed   id=4  price -0 → 0") {
		t.Errorf("strict-v1 text: exit %d\n%s", code, out)
	}
	d, _ = compareJSON(t, ExitOK, "--profile", "logical-v1", pgAddr, myItems)
	if !d.Equal {
		t.Errorf("logical-v1: not equal, records %v", counts(d))
	}
}

// writeIDFloatParquet writes columns id (int64, 1..n) and price (float64, the bits).
func writeIDFloatParquet(t *testing.T, path string, bits []uint64) {
	t.Helper()
	schema := arrow.NewSchema([]arrow.Field{
		{Name: "id", Type: arrow.PrimitiveTypes.Int64},
		{Name: "price", Type: arrow.PrimitiveTypes.Float64},
	}, nil)
	bld := array.NewRecordBuilder(memory.NewGoAllocator(), schema)
	defer bld.Release()
	for i, b := range bits {
		bld.Field(0).(*array.Int64Builder).Append(int64(i + 1))
		bld.Field(1).(*array.Float64Builder).Append(math.Float64frombits(b))
	}
	rec := bld.NewRecordBatch()
	defer rec.Release()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	w, err := pqarrow.NewFileWriter(schema, f, parquet.NewWriterProperties(), pqarrow.DefaultWriterProps())
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Write(rec); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestCompareProfiles: representation differences that strict-v1 keeps and logical-v1
// folds (C2 PW-03.05/07/08), and differences neither folds.
func TestCompareProfiles(t *testing.T) {
	dir := t.TempDir()
	file := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	schema := func(name, col, typ string) string {
		return file(name, `{"columns":[{"name":"id","type":"int64"},{"name":"`+col+`","type":"`+typ+`"}]}`)
	}
	dec2, dec1 := schema("dec2.json", "amount", "decimal(10,2)"), schema("dec1.json", "amount", "decimal(10,1)")
	flt, txt := schema("float.json", "price", "float64"), schema("text.json", "name", "text")
	decFloat := schema("decfloat.json", "amount", "float64")
	nanPQ := filepath.Join(dir, "nan.parquet")
	writeIDFloatParquet(t, nanPQ, []uint64{0x3ff8000000000000, 0xfff8000000000000}) // 1.5, NaN with the sign bit set
	cases := []struct {
		name          string
		args          []string
		strictChanged uint64 // changed records under strict-v1
		example       string // strict-v1 text
		logicalEqual  bool
	}{
		// numeric(10,2) 1.50 is Decimal('1.50') (coefficient 150, exponent -2); scale 1
		// gives Decimal('1.5'): strict keeps the exponent, logical strips trailing zeros.
		{"decimal trailing zeros", []string{"--schema-a", dec2, "--schema-b", dec1,
			file("d2.csv", "id,amount\n1,1.50\n2,2.25\n"), file("d1.csv", "id,amount\n1,1.5\n2,2.2\n")},
			2, "id=1  amount 1.50 → 1.5", false}, // 2.25 vs 2.2 is a real difference
		{"decimal trailing zeros only", []string{"--schema-a", dec2, "--schema-b", dec1,
			file("d2b.csv", "id,amount\n1,1.50\n2,2.00\n"), file("d1b.csv", "id,amount\n1,1.5\n2,2.0\n")},
			2, "id=2  amount 2.00 → 2.0", true},
		// U+00E9 vs e + U+0301: NFC makes them one.
		{"NFC", []string{"--schema", txt, file("nfc.csv", "id,name\n1,caf\u00e9\n"), file("nfd.csv", "id,name\n1,cafe\u0301\n")},
			1, "id=1  name \"caf\u00e9\" → \"cafe\u0301\"", true},
		{"case is never folded", []string{"--schema", txt, file("lo.csv", "id,name\n1,apple\n"), file("up.csv", "id,name\n1,Apple\n")},
			1, `id=1  name "apple" → "Apple"`, false},
		{"negative zero", []string{"--schema", flt, file("nz.csv", "id,price\n1,-0\n"), file("pz.csv", "id,price\n1,0\n")},
			1, "id=1  price -0 → 0", true},
		{"NaN sign and payload", []string{"--schema", flt, nanPQ, file("nan.csv", "id,price\n1,1.5\n2,NaN\n")},
			1, "id=2  price NaN → NaN", true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			args := append([]string{"--key", "id"}, c.args...)
			d, _ := compareJSON(t, ExitDifference, args...)
			if !d.Comparable || d.Records == nil || *d.Records.Changed != c.strictChanged {
				t.Errorf("strict-v1: comparable %v records %v, want %d changed", d.Comparable, counts(d), c.strictChanged)
			}
			if code, out, _ := runCLI(t, append([]string{"compare"}, args...)...); code != ExitDifference || !strings.Contains(out, c.example) {
				t.Errorf("strict-v1 text: exit %d, want %q in\n%s", code, c.example, out)
			}
			want := ExitDifference
			if c.logicalEqual {
				want = ExitOK
			}
			d, _ = compareJSON(t, want, append([]string{"--profile", "logical-v1"}, args...)...)
			if d.Equal != c.logicalEqual {
				t.Errorf("logical-v1: equal %v, want %v (records %v)", d.Equal, c.logicalEqual, counts(d))
			}
		})
	}
	// decimal and float64 are different C3 types under every profile: the fingerprints
	// are not comparable and the retyping is the one schema change.
	for _, p := range []string{"strict-v1", "logical-v1"} {
		d, _ := compareJSON(t, ExitDifference, "--key", "id", "--profile", p, "--schema-a", dec2, "--schema-b", decFloat,
			file("x.csv", "id,amount\n1,1.50\n"), file("y.csv", "id,amount\n1,1.5\n"))
		if d.Comparable || d.Records != nil || len(d.SchemaChanges) != 1 || d.SchemaChanges[0].Kind != "retyped" || d.SchemaChanges[0].Name != "amount" {
			t.Errorf("%s decimal vs float64: comparable %v records %v schema %+v", p, d.Comparable, d.Records != nil, d.SchemaChanges)
		}
	}
}

// writeIDTimestampParquet writes columns id (1..n) and at (timestamp(us, tz)).
func writeIDTimestampParquet(t *testing.T, path, tz string, us []int64) {
	t.Helper()
	schema := arrow.NewSchema([]arrow.Field{
		{Name: "id", Type: arrow.PrimitiveTypes.Int64},
		{Name: "at", Type: &arrow.TimestampType{Unit: arrow.Microsecond, TimeZone: tz}},
	}, nil)
	bld := array.NewRecordBuilder(memory.NewGoAllocator(), schema)
	defer bld.Release()
	for i, v := range us {
		bld.Field(0).(*array.Int64Builder).Append(int64(i + 1))
		bld.Field(1).(*array.TimestampBuilder).Append(arrow.Timestamp(v))
	}
	rec := bld.NewRecordBatch()
	defer rec.Release()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	props := pqarrow.NewArrowWriterProperties(pqarrow.WithStoreSchema())
	w, err := pqarrow.NewFileWriter(schema, f, parquet.NewWriterProperties(), props)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Write(rec); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestCompareTimestampZones: one instant (2024-03-01 12:00 UTC) with zone UTC and
// with zone +01:00 differs under strict-v1 (zone kind, offset and name are kept: C2
// PW-03.06) and is equal under logical-v1 (aware values go to UTC); a naive value
// stays distinct from an aware one under both.
func TestCompareTimestampZones(t *testing.T) {
	dir := t.TempDir()
	const instant = 1709294400_000000 // 2024-03-01T12:00:00Z in µs
	utc, plus1, naive := filepath.Join(dir, "utc.parquet"), filepath.Join(dir, "plus1.parquet"), filepath.Join(dir, "naive.parquet")
	writeIDTimestampParquet(t, utc, "UTC", []int64{instant})
	writeIDTimestampParquet(t, plus1, "+01:00", []int64{instant})
	writeIDTimestampParquet(t, naive, "", []int64{instant})
	d, _ := compareJSON(t, ExitDifference, "--key", "id", utc, plus1)
	if counts(d) != [4]uint64{0, 0, 1, 0} {
		t.Errorf("strict-v1 UTC vs +01:00: records %v, want 1 changed", counts(d))
	}
	if d, _ = compareJSON(t, ExitOK, "--key", "id", "--profile", "logical-v1", utc, plus1); !d.Equal {
		t.Errorf("logical-v1 UTC vs +01:00: not equal")
	}
	for _, p := range []string{"strict-v1", "logical-v1"} {
		if d, _ = compareJSON(t, ExitDifference, "--key", "id", "--profile", p, utc, naive); counts(d) != [4]uint64{0, 0, 1, 0} {
			t.Errorf("%s UTC vs naive: records %v, want 1 changed", p, counts(d))
		}
	}
}
