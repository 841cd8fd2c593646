package source

import (
	"context"
	"database/sql"
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
	"github.com/pipewhy/pipewhy/source/sourcetest/confdata"
)

// The conformance dataset (package confdata) in this package's terms, for its tests of
// one adapter or another; TestConformance (conformance_ext_test.go) reads it through
// every adapter.
const (
	confCSV   = confdata.CSV
	confJSONL = confdata.JSONL
)

var confColumns = func() []Column {
	cols := make([]Column, len(confdata.Names))
	for i, n := range confdata.Names {
		cols[i] = Column{Name: n, Type: confdata.Types[i]}
	}
	return cols
}()

func confRecord(testing.TB) arrow.RecordBatch { return confdata.Record() }

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
	for _, r := range confdata.Rows {
		var name, amount, payload any
		if r.Name != nil {
			name = *r.Name
		}
		if r.Amount != nil {
			amount = *r.Amount
		}
		if r.Payload != nil {
			payload = r.Payload
		}
		if len(r.Payload) == 0 && r.Payload != nil {
			// Bind an empty blob explicitly: a zero-length []byte may bind as NULL.
			if _, err := db.Exec("INSERT INTO conf VALUES (?, ?, ?, x'')", r.ID, name, amount); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if _, err := db.Exec("INSERT INTO conf VALUES (?, ?, ?, ?)", r.ID, name, amount, payload); err != nil {
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

// Every adapter's errors carry a code; this guards the helper itself.
func TestCodeOf(t *testing.T) {
	err := errorf(CodeType, "op", "src", io.EOF, "x")
	if CodeOf(err) != CodeType || !errors.Is(err, ErrType) || errors.Is(err, ErrIO) || !errors.Is(err, io.EOF) {
		t.Fatalf("error matching broken: %v", err)
	}
}
