package source

import (
	"context"
	"database/sql"
	"errors"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
)

// The logical dataset of the conformance suite, written by hand in each
// format below. nil means null.
type confRow struct {
	id      int64
	name    *string
	amount  *float64
	payload []byte // nil = null
}

func sp(s string) *string   { return &s }
func fp(f float64) *float64 { return &f }

var confRows = []confRow{
	{1, sp("alice"), fp(1.5), []byte{0x00, 0xff}},
	{2, sp(""), fp(-0.25), []byte{}},
	{3, nil, fp(1e300), nil},
	{math.MinInt64, sp("zoë 🙂"), nil, []byte{0xde, 0xad}},
	{math.MaxInt64, sp(`a,b "q"`), fp(0.5), []byte{0x01}},
}

var confColumns = []Column{{"id", "int64"}, {"name", "text"}, {"amount", "float64"}, {"payload", "bytes(hex)"}}

const confCSV = "id,name,amount,payload\n" +
	"1,alice,1.5,00ff\n" +
	"2,,-0.25,\n" +
	"3,NULL,1e300,NULL\n" +
	"-9223372036854775808,zoë 🙂,NULL,dead\n" +
	"9223372036854775807,\"a,b \"\"q\"\"\",0.5,01\n"

const confJSONL = `{"id":1,"name":"alice","amount":1.5,"payload":"00ff"}
{"id":2,"name":"","amount":-0.25,"payload":""}
{"payload":null,"id":3,"name":null,"amount":1e300}
{"id":-9223372036854775808,"name":"zo\u00eb \ud83d\ude42","amount":null,"payload":"dead"}
{"id":9223372036854775807,"name":"a,b \"q\"","amount":0.5,"payload":"01"}
`

// expectedConf builds the expected columns directly from confRows.
func expectedConf(t testing.TB) []arrow.Array {
	mem := memory.DefaultAllocator
	ib := array.NewInt64Builder(mem)
	sb := array.NewStringBuilder(mem)
	fb := array.NewFloat64Builder(mem)
	bb := array.NewBinaryBuilder(mem, arrow.BinaryTypes.Binary)
	for _, r := range confRows {
		ib.Append(r.id)
		if r.name == nil {
			sb.AppendNull()
		} else {
			sb.Append(*r.name)
		}
		if r.amount == nil {
			fb.AppendNull()
		} else {
			fb.Append(*r.amount)
		}
		if r.payload == nil {
			bb.AppendNull()
		} else {
			bb.Append(r.payload)
		}
	}
	return []arrow.Array{ib.NewArray(), sb.NewArray(), fb.NewArray(), bb.NewArray()}
}

func confRecord(t testing.TB) arrow.RecordBatch {
	sc := arrow.NewSchema([]arrow.Field{
		{Name: "id", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
		{Name: "name", Type: arrow.BinaryTypes.String, Nullable: true},
		{Name: "amount", Type: arrow.PrimitiveTypes.Float64, Nullable: true},
		{Name: "payload", Type: arrow.BinaryTypes.Binary, Nullable: true},
	}, nil)
	return array.NewRecordBatch(sc, expectedConf(t), int64(len(confRows)))
}

func writeFile(t testing.TB, dir, name string, data []byte) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func writeParquet(t testing.TB, path string, rec arrow.RecordBatch, rowGroup int64) {
	t.Helper()
	writeParquetWith(t, path, rec, parquet.WithMaxRowGroupLength(rowGroup))
}

// writeParquetWith writes rec as one Parquet file with the given writer properties.
func writeParquetWith(t testing.TB, path string, rec arrow.RecordBatch, props ...parquet.WriterProperty) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	w, err := pqarrow.NewFileWriter(rec.Schema(), f, parquet.NewWriterProperties(props...), pqarrow.DefaultWriterProps())
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

func writeIPC(t testing.TB, path string, rec arrow.RecordBatch, stream bool, batch int64) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var w interface {
		Write(arrow.RecordBatch) error
		Close() error
	}
	if stream {
		w = ipc.NewWriter(f, ipc.WithSchema(rec.Schema()))
	} else {
		fw, err := ipc.NewFileWriter(f, ipc.WithSchema(rec.Schema()))
		if err != nil {
			t.Fatal(err)
		}
		w = fw
	}
	for i := int64(0); i < rec.NumRows(); i += batch {
		j := min(i+batch, rec.NumRows())
		s := rec.NewSlice(i, j)
		if err := w.Write(s); err != nil {
			t.Fatal(err)
		}
		s.Release()
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
}

func sqliteExec(t testing.TB, path string, stmts ...string) *sql.DB {
	t.Helper()
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range stmts {
		if _, err := db.Exec(s); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
	}
	return db
}

func writeSQLiteConf(t testing.TB, path string) {
	db := sqliteExec(t, path, "CREATE TABLE conf(id INTEGER, name TEXT, amount REAL, payload BLOB)")
	defer db.Close()
	for _, r := range confRows {
		var name, amount, payload any
		if r.name != nil {
			name = *r.name
		}
		if r.amount != nil {
			amount = *r.amount
		}
		if r.payload != nil {
			payload = r.payload
		}
		if len(r.payload) == 0 && r.payload != nil {
			// Bind an empty blob explicitly: a zero-length []byte may bind as NULL.
			if _, err := db.Exec("INSERT INTO conf VALUES (?, ?, ?, x'')", r.id, name, amount); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if _, err := db.Exec("INSERT INTO conf VALUES (?, ?, ?, ?)", r.id, name, amount, payload); err != nil {
			t.Fatal(err)
		}
	}
}

// concatColumns returns each column of recs (batches of schema sc) concatenated into one
// array, an empty one when there are no batches.
func concatColumns(t testing.TB, sc *arrow.Schema, recs []arrow.RecordBatch) []arrow.Array {
	t.Helper()
	cols := make([]arrow.Array, sc.NumFields())
	for i := range cols {
		var chunks []arrow.Array
		for _, r := range recs {
			chunks = append(chunks, r.Column(i))
		}
		if len(chunks) == 0 {
			cols[i] = array.MakeArrayOfNull(memory.DefaultAllocator, sc.Field(i).Type, 0)
			continue
		}
		c, err := array.Concatenate(chunks, memory.DefaultAllocator)
		if err != nil {
			t.Fatal(err)
		}
		cols[i] = c
	}
	return cols
}

// readAll drains src, checking the Source contract on the way.
func readAll(t testing.TB, src Source) ([]arrow.Array, Evidence) {
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
	cols := concatColumns(t, src.Schema(), recs)
	for _, r := range recs {
		r.Release()
	}
	return cols, ev
}

// TestConformance reads the same logical data from every adapter and
// requires the same Arrow values, names and complete coverage.
func TestConformance(t *testing.T) {
	dir := t.TempDir()
	rec := confRecord(t)
	defer rec.Release()
	null := "NULL"
	writeParquet(t, filepath.Join(dir, "c.parquet"), rec, 2)
	writeIPC(t, filepath.Join(dir, "c.arrow"), rec, false, 2)
	writeIPC(t, filepath.Join(dir, "c.arrows"), rec, true, 3)
	writeIPC(t, filepath.Join(dir, "f.ipc"), rec, false, 4)
	writeIPC(t, filepath.Join(dir, "s.ipc"), rec, true, 1)
	writeSQLiteConf(t, filepath.Join(dir, "c.db"))
	cases := []struct {
		name, addr  string
		opts        Options
		kind        Kind
		consistency string
	}{
		{"csv", writeFile(t, dir, "c.csv", []byte(confCSV)), Options{Columns: confColumns, Null: &null}, KindCSV, ConsistencyFileRead},
		{"jsonl", writeFile(t, dir, "c.jsonl", []byte(confJSONL)), Options{Columns: confColumns}, KindJSONL, ConsistencyFileRead},
		{"parquet", filepath.Join(dir, "c.parquet"), Options{}, KindParquet, ConsistencyFileRead},
		{"arrow-file", filepath.Join(dir, "c.arrow"), Options{}, KindArrowFile, ConsistencyFileRead},
		{"arrow-stream", filepath.Join(dir, "c.arrows"), Options{}, KindArrowStream, ConsistencyFileRead},
		{"ipc-sniff-file", filepath.Join(dir, "f.ipc"), Options{}, KindArrowFile, ConsistencyFileRead},
		{"ipc-sniff-stream", filepath.Join(dir, "s.ipc"), Options{}, KindArrowStream, ConsistencyFileRead},
		{"sqlite-table", "sqlite:" + filepath.Join(dir, "c.db") + "#conf", Options{}, KindSQLite, ConsistencySQLiteTransaction},
		{"sqlite-query", "sqlite:" + filepath.Join(dir, "c.db"), Options{Query: "SELECT id, name, amount, payload FROM conf ORDER BY rowid"}, KindSQLite, ConsistencySQLiteTransaction},
	}
	want := expectedConf(t)
	names := []string{"id", "name", "amount", "payload"}
	for _, tc := range cases {
		for _, bs := range []int{1, 2, 1000} {
			opts := tc.opts
			opts.BatchSize = bs
			src, err := Open(context.Background(), tc.addr, opts)
			if err != nil {
				t.Fatalf("%s: Open: %v", tc.name, err)
			}
			got, ev := readAll(t, src)
			if err := src.Close(); err != nil {
				t.Fatalf("%s: Close: %v", tc.name, err)
			}
			if n := src.Schema().NumFields(); n != len(names) {
				t.Fatalf("%s: %d fields", tc.name, n)
			}
			for i, n := range names {
				if src.Schema().Field(i).Name != n {
					t.Errorf("%s: field %d named %q, want %q", tc.name, i, src.Schema().Field(i).Name, n)
				}
				if !array.Equal(got[i], want[i]) {
					t.Errorf("%s (batch %d): column %s = %v, want %v", tc.name, bs, n, got[i], want[i])
				}
			}
			c := ev.Coverage
			if c.Status != StatusComplete || !c.ExpectedKnown || c.Expected != uint64(len(confRows)) || c.Returned != uint64(len(confRows)) || c.FailureCount != 0 {
				t.Errorf("%s: coverage %+v, want COMPLETE 5/5", tc.name, c)
			}
			if ev.Adapter != tc.kind || ev.Consistency != tc.consistency || ev.Version == "" || ev.Namespace == "" {
				t.Errorf("%s: evidence %+v", tc.name, ev)
			}
			if tc.kind != KindSQLite && !strings.HasPrefix(ev.Namespace, "file:/") {
				t.Errorf("%s: namespace %q", tc.name, ev.Namespace)
			}
		}
	}
}

// Every adapter's errors carry a code; this guards the helper itself.
func TestCodeOf(t *testing.T) {
	err := errorf(CodeType, "op", "src", io.EOF, "x")
	if CodeOf(err) != CodeType || !errors.Is(err, ErrType) || errors.Is(err, ErrIO) || !errors.Is(err, io.EOF) {
		t.Fatalf("error matching broken: %v", err)
	}
}
