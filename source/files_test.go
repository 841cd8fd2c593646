package source

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/float16"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

func TestParseAddress(t *testing.T) {
	wd, _ := os.Getwd()
	good := []struct {
		in    string
		kind  Kind
		path  string
		table string
	}{
		{"/d/a.csv", KindCSV, "/d/a.csv", ""},
		{"/d/a.CSV", KindCSV, "/d/a.CSV", ""},
		{"rel/a.jsonl", KindJSONL, filepath.Join(wd, "rel/a.jsonl"), ""},
		{"/d/a.ndjson", KindJSONL, "/d/a.ndjson", ""},
		{"/d/a.parquet", KindParquet, "/d/a.parquet", ""},
		{"/d/a.arrow", KindArrowFile, "/d/a.arrow", ""},
		{"/d/a.feather", KindArrowFile, "/d/a.feather", ""},
		{"/d/a.arrows", KindArrowStream, "/d/a.arrows", ""},
		{"/d/a.ipc", "ipc", "/d/a.ipc", ""},
		{"csv:/d/a.txt", KindCSV, "/d/a.txt", ""},
		{"sqlite:/d/shop.db#orders", KindSQLite, "/d/shop.db", "orders"},
		{"sqlite:/d/shop.db", KindSQLite, "/d/shop.db", ""},
		{"/d/shop.db#orders", KindSQLite, "/d/shop.db", "orders"},
		{"/d/x.sqlite3#t#u", KindSQLite, "/d/x.sqlite3", "t#u"},
	}
	for _, g := range good {
		a, err := ParseAddress(g.in)
		if err != nil || a.Kind != g.kind || a.Path != g.path || a.Table != g.table {
			t.Errorf("ParseAddress(%q) = %+v, %v", g.in, a, err)
		}
	}
	for _, bad := range []string{"", "/d/a.txt", "/d/a", "sqlite:/d/x.db#", "/d/a.csv#t", "csv:", "a\x00.csv"} {
		if _, err := ParseAddress(bad); CodeOf(err) != CodeAddress {
			t.Errorf("ParseAddress(%q) error %v, want %s", bad, err, CodeAddress)
		}
	}
}

func TestArrowFilesMalformed(t *testing.T) {
	dir := t.TempDir()
	rec := confRecord(t)
	defer rec.Release()
	writeParquet(t, filepath.Join(dir, "ok.parquet"), rec, 2)
	writeIPC(t, filepath.Join(dir, "ok.arrow"), rec, false, 2)
	writeIPC(t, filepath.Join(dir, "ok.arrows"), rec, true, 2)
	read := func(name string) []byte {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	pq, af, as := read("ok.parquet"), read("ok.arrow"), read("ok.arrows")
	cases := []struct {
		name string
		data []byte
	}{
		{"x.parquet", []byte("not parquet at all")},
		{"empty.parquet", nil},
		{"trunc.parquet", pq[:len(pq)/2]},
		{"tail.parquet", pq[len(pq)/2:]},
		{"x.arrow", []byte("ARROW1\x00\x00garbage")},
		{"trunc.arrow", af[:len(af)-20]},
		{"x.arrows", []byte("\xff\xff\xff\xff\x10\x00\x00\x00garbage!")},
		{"empty.arrows", nil},
		{"trunc.arrows", as[:len(as)-40]},
		{"mid.arrows", as[:len(as)/2]},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p := writeFile(t, dir, tc.name, tc.data)
			src, err := Open(context.Background(), p, Options{})
			if err != nil {
				if c := CodeOf(err); c != CodeCorrupt && c != CodeUnsupported {
					t.Fatalf("open error %v, want %s", err, CodeCorrupt)
				}
				return
			}
			defer src.Close()
			var ferr error
			for {
				r, err := src.Next(context.Background())
				if err != nil {
					if err != io.EOF {
						ferr = err
					}
					break
				}
				r.Release()
			}
			c := src.Evidence().Coverage
			if err := c.Check(); err != nil {
				t.Fatal(err)
			}
			if ferr == nil || CodeOf(ferr) != CodeCorrupt || c.Status == StatusComplete || c.ExpectedKnown && c.Returned == c.Expected {
				t.Fatalf("damaged file read as %+v (err %v)", c, ferr)
			}
		})
	}
}

func TestArrowUnsupportedAndExclude(t *testing.T) {
	dir := t.TempDir()
	mem := memory.DefaultAllocator
	sc := arrow.NewSchema([]arrow.Field{
		// float16 has no TypeName spelling (dates, times, durations and nested
		// types do since the C2 extension).
		{Name: "d", Type: arrow.FixedWidthTypes.Float16, Nullable: true},
		{Name: "s", Type: arrow.BinaryTypes.String, Nullable: false},
	}, nil)
	b := array.NewRecordBuilder(mem, sc)
	b.Field(0).(*array.Float16Builder).Append(float16.New(1))
	b.Field(1).(*array.StringBuilder).Append("ok")
	b.Field(0).(*array.Float16Builder).Append(float16.New(2))
	b.Field(1).(*array.StringBuilder).Append("bad\xff")
	rec := b.NewRecordBatch()
	defer rec.Release()
	for _, name := range []string{"u.arrow", "u.arrows", "u.parquet"} {
		p := filepath.Join(dir, name)
		if name == "u.parquet" {
			writeParquet(t, p, rec, 10)
		} else {
			writeIPC(t, p, rec, name == "u.arrows", 10)
		}
		if _, err := Open(context.Background(), p, Options{}); CodeOf(err) != CodeUnsupported {
			t.Fatalf("%s: float16 column: %v, want %s", name, err, CodeUnsupported)
		}
		gotSc, cols, ev := openRead(t, p, Options{Exclude: []string{"d"}})
		if gotSc.NumFields() != 1 || ev.Excluded[0] != "d" {
			t.Fatalf("%s: schema %v", name, gotSc)
		}
		// The invalid UTF-8 row is counted and dropped, never passed on.
		if cols[0].Len() != 1 || cols[0].(*array.String).Value(0) != "ok" {
			t.Fatalf("%s: values %v", name, cols[0])
		}
		checkFailures(t, ev, []wantFailure{{CodeUTF8, 2, "s"}}, "bad")
		if c := ev.Coverage; c.Status != StatusPartial || !c.ExpectedKnown || c.Expected != 2 || c.Returned != 1 || c.FailedRecords != 1 {
			t.Fatalf("%s: coverage %+v", name, c)
		}
		if md := gotSc.Field(0).Metadata; md.FindKey(MetaSourceType) < 0 {
			t.Fatalf("%s: no source type metadata", name)
		}
	}
}

func TestOptionMisuse(t *testing.T) {
	dir := t.TempDir()
	rec := confRecord(t)
	defer rec.Release()
	writeParquet(t, filepath.Join(dir, "ok.parquet"), rec, 2)
	null := ""
	for _, o := range []Options{{Columns: confColumns}, {Infer: true}, {Null: &null}, {MissingAsNull: true}, {Query: "SELECT 1"}, {BatchSize: -1}} {
		if _, err := Open(context.Background(), filepath.Join(dir, "ok.parquet"), o); CodeOf(err) != CodeOption {
			t.Errorf("%+v: %v, want %s", o, err, CodeOption)
		}
	}
}

func TestFileChangedDuringRead(t *testing.T) {
	p := writeFile(t, t.TempDir(), "c.csv", []byte("a\n1\n2\n"))
	src, err := Open(context.Background(), p, Options{BatchSize: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	f, err := os.OpenFile(p, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString("3\n")
	f.Close()
	for {
		r, err := src.Next(context.Background())
		if err != nil {
			break
		}
		r.Release()
	}
	c := src.Evidence().Coverage
	found := false
	for _, f := range c.Failures {
		found = found || f.Code == CodeChanged
	}
	if !found || c.Status != StatusPartial {
		t.Fatalf("coverage %+v, want a %s failure", c, CodeChanged)
	}
}

func TestHashContentVersion(t *testing.T) {
	// SHA-256("a\n") = 87428fc522803d31065e7bce3cf03fe475096631e5e07bbd7a0fde60c4cf25c7
	p := writeFile(t, t.TempDir(), "h.csv", []byte("a\n"))
	src, err := Open(context.Background(), p, Options{HashContent: true})
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	v := src.Evidence().Version
	const want = ";sha256=87428fc522803d31065e7bce3cf03fe475096631e5e07bbd7a0fde60c4cf25c7"
	if len(v) < len(want) || v[len(v)-len(want):] != want || v[:7] != "size=2;" {
		t.Fatalf("version %q", v)
	}
}

// TestBatchBounds checks that every adapter except IPC (which keeps the
// file's batches) honours BatchSize, across Parquet row groups too.
func TestBatchBounds(t *testing.T) {
	dir := t.TempDir()
	mem := memory.DefaultAllocator
	// A nested column before the flat one: excluding it must still select
	// the right Parquet leaf.
	sc := arrow.NewSchema([]arrow.Field{
		{Name: "tags", Type: arrow.ListOf(arrow.PrimitiveTypes.Int32), Nullable: true},
		{Name: "n", Type: arrow.PrimitiveTypes.Int64},
	}, nil)
	b := array.NewRecordBuilder(mem, sc)
	var csv, jl string
	csv = "n\n"
	for i := 0; i < 10; i++ {
		lb := b.Field(0).(*array.ListBuilder)
		lb.Append(true)
		lb.ValueBuilder().(*array.Int32Builder).Append(int32(100 + i))
		b.Field(1).(*array.Int64Builder).Append(int64(i))
		csv += string(rune('0'+i)) + "\n"
		jl += `{"n":` + string(rune('0'+i)) + "}\n"
	}
	rec := b.NewRecordBatch()
	defer rec.Release()
	writeParquet(t, filepath.Join(dir, "b.parquet"), rec, 3)
	writeFile(t, dir, "b.csv", []byte(csv))
	writeFile(t, dir, "b.jsonl", []byte(jl))
	db := sqliteExec(t, filepath.Join(dir, "b.db"), "CREATE TABLE b(n INTEGER)")
	for i := 0; i < 10; i++ {
		db.Exec("INSERT INTO b VALUES (?)", i)
	}
	db.Close()
	for _, tc := range []struct {
		addr string
		opts Options
	}{
		{filepath.Join(dir, "b.parquet"), Options{BatchSize: 4, Exclude: []string{"tags"}}},
		{filepath.Join(dir, "b.csv"), Options{BatchSize: 4, Columns: []Column{{"n", "int64"}}}},
		{filepath.Join(dir, "b.jsonl"), Options{BatchSize: 4}},
		{"sqlite:" + filepath.Join(dir, "b.db") + "#b", Options{BatchSize: 4}},
	} {
		src, err := Open(context.Background(), tc.addr, tc.opts)
		if err != nil {
			t.Fatalf("%s: %v", tc.addr, err)
		}
		next := int64(0)
		for {
			r, err := src.Next(context.Background())
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
			if r.NumRows() > 4 || r.NumRows() == 0 {
				t.Fatalf("%s: batch of %d rows", tc.addr, r.NumRows())
			}
			col := r.Column(0).(*array.Int64)
			for i := 0; i < col.Len(); i++ {
				if col.Value(i) != next {
					t.Fatalf("%s: value %d at row %d", tc.addr, col.Value(i), next)
				}
				next++
			}
			r.Release()
		}
		if next != 10 || src.Evidence().Coverage.Status != StatusComplete {
			t.Fatalf("%s: %d rows, %+v", tc.addr, next, src.Evidence().Coverage)
		}
		src.Close()
	}
}

// TestSourceWidths checks that narrow source types keep their width, as
// Arrow types and as MetaSourceWidth, through Parquet and IPC (PW-03.04).
func TestSourceWidths(t *testing.T) {
	dir := t.TempDir()
	mem := memory.DefaultAllocator
	sc := arrow.NewSchema([]arrow.Field{
		{Name: "i8", Type: arrow.PrimitiveTypes.Int8},
		{Name: "u16", Type: arrow.PrimitiveTypes.Uint16},
		{Name: "f32", Type: arrow.PrimitiveTypes.Float32},
		{Name: "ts", Type: &arrow.TimestampType{Unit: arrow.Microsecond, TimeZone: "UTC"}},
	}, nil)
	b := array.NewRecordBuilder(mem, sc)
	b.Field(0).(*array.Int8Builder).Append(-128)
	b.Field(1).(*array.Uint16Builder).Append(65535)
	b.Field(2).(*array.Float32Builder).Append(0.1)
	b.Field(3).(*array.TimestampBuilder).Append(1)
	rec := b.NewRecordBatch()
	defer rec.Release()
	writeParquet(t, filepath.Join(dir, "w.parquet"), rec, 10)
	writeIPC(t, filepath.Join(dir, "w.arrow"), rec, false, 10)
	want := []struct {
		name, width string
	}{{"int8", "8"}, {"uint16", "16"}, {"float32", "32"}, {"timestamp(us,UTC)", ""}}
	for _, f := range []string{"w.parquet", "w.arrow"} {
		got, cols, _ := openRead(t, filepath.Join(dir, f), Options{})
		for i, w := range want {
			fd := got.Field(i)
			if n, _ := TypeName(fd.Type); n != w.name {
				t.Errorf("%s: field %s type %s, want %s", f, fd.Name, n, w.name)
			}
			k := fd.Metadata.FindKey(MetaSourceWidth)
			if (w.width == "") != (k < 0) || (k >= 0 && fd.Metadata.Values()[k] != w.width) {
				t.Errorf("%s: field %s width metadata %v, want %q", f, fd.Name, fd.Metadata, w.width)
			}
		}
		if cols[2].(*array.Float32).Value(0) != float32(0.1) || cols[0].(*array.Int8).Value(0) != -128 {
			t.Errorf("%s: values %v %v", f, cols[0], cols[2])
		}
	}
}
