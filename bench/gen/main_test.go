package main

import (
	"context"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
)

func TestMutated(t *testing.T) {
	for _, c := range []struct{ n, k int64 }{{1000, 7}, {10, 10}, {10, 1}, {1, 1}, {5, 0}, {1_000_000, 10}} {
		m := mutated(c.n, c.k)
		if int64(len(m)) != c.k {
			t.Errorf("n=%d k=%d: %d distinct rows", c.n, c.k, len(m))
		}
		for i := range m {
			if i < 0 || i >= c.n {
				t.Errorf("n=%d k=%d: row %d out of range", c.n, c.k, i)
			}
		}
	}
	// By hand: n=1000, k=7 gives j*1000/7 + 1000/14 = j*1000/7 + 71.
	for _, i := range []int64{71, 213, 356, 499, 642, 785, 928} {
		if !mutated(1000, 7)[i] {
			t.Errorf("row %d not mutated", i)
		}
	}
}

// readAll reads the file's five columns as Go values.
type table struct {
	id, qty, at []int64
	price       []float64
	name        []string
}

func readFile(t *testing.T, path string) (table, *file.Reader) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	pr, err := file.NewParquetReader(f)
	if err != nil {
		t.Fatal(err)
	}
	fr, err := pqarrow.NewFileReader(pr, pqarrow.ArrowReadProperties{BatchSize: 1000}, memory.DefaultAllocator)
	if err != nil {
		t.Fatal(err)
	}
	rr, err := fr.GetRecordReader(context.Background(), nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer rr.Release()
	var tb table
	for rr.Next() {
		rec := rr.RecordBatch()
		for i, f := range rec.Schema().Fields() {
			if w := schema.Field(i); f.Name != w.Name || !arrow.TypeEqual(f.Type, w.Type) {
				t.Fatalf("field %d: %s %s, want %s %s", i, f.Name, f.Type, w.Name, w.Type)
			}
		}
		tb.id = append(tb.id, rec.Column(0).(*array.Int64).Int64Values()...)
		tb.qty = append(tb.qty, rec.Column(1).(*array.Int64).Int64Values()...)
		tb.price = append(tb.price, rec.Column(2).(*array.Float64).Float64Values()...)
		s := rec.Column(3).(*array.String)
		for i := 0; i < s.Len(); i++ {
			tb.name = append(tb.name, strings.Clone(s.Value(i)))
		}
		for _, v := range rec.Column(4).(*array.Timestamp).TimestampValues() {
			tb.at = append(tb.at, int64(v))
		}
	}
	return tb, pr
}

func TestGenerate(t *testing.T) {
	dir := t.TempDir()
	const rows, group, k = 2500, 1000, 5
	a, b, c := filepath.Join(dir, "a.parquet"), filepath.Join(dir, "b.parquet"), filepath.Join(dir, "c.parquet")
	if err := run(rows, a, filepath.Join(dir, "a.csv"), 1, 0, group); err != nil {
		t.Fatal(err)
	}
	if err := run(rows, b, "", 1, 0, group); err != nil {
		t.Fatal(err)
	}
	if err := run(rows, c, "", 1, k, group); err != nil {
		t.Fatal(err)
	}
	ab, _ := os.ReadFile(a)
	bb, _ := os.ReadFile(b)
	if string(ab) != string(bb) {
		t.Error("two runs with the same flags wrote different files")
	}
	ta, pr := readFile(t, a)
	if len(ta.id) != rows {
		t.Fatalf("%d rows", len(ta.id))
	}
	if n := pr.NumRowGroups(); n != 3 {
		t.Errorf("%d row groups, want 3 (1000, 1000, 500)", n)
	}
	for g := 0; g < pr.NumRowGroups(); g++ {
		cc, err := pr.MetaData().RowGroup(g).ColumnChunk(2)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range cc.Encodings() {
			if e == parquet.Encodings.PlainDict || e == parquet.Encodings.RLEDict {
				t.Errorf("row group %d: price column uses dictionary encoding %s", g, e)
			}
		}
	}
	for i := range rows {
		if ta.id[i] != int64(i) || ta.at[i] != baseMicros+int64(i)*1_000_003 {
			t.Fatalf("row %d: id %d at %d", i, ta.id[i], ta.at[i])
		}
		if ta.qty[i] < 0 || ta.qty[i] >= 100_000 {
			t.Fatalf("row %d: qty %d", i, ta.qty[i])
		}
		if p := ta.price[i]; p < 0 || p >= 1_000_000 || math.Abs(math.Round(p*100)-p*100) > 1e-6 {
			t.Fatalf("row %d: price %v is not whole cents", i, p)
		}
		if len(ta.name[i]) != 12 || strings.Trim(ta.name[i], alphabet) != "" {
			t.Fatalf("row %d: name %q", i, ta.name[i])
		}
	}
	tc, _ := readFile(t, c)
	changed := 0
	for i := range rows {
		if ta.id[i] != tc.id[i] || ta.price[i] != tc.price[i] || ta.name[i] != tc.name[i] || ta.at[i] != tc.at[i] {
			t.Fatalf("row %d: a column other than qty differs", i)
		}
		if ta.qty[i] != tc.qty[i] {
			changed++
			if tc.qty[i] != ta.qty[i]+1 || !mutated(rows, k)[int64(i)] {
				t.Errorf("row %d: qty %d -> %d", i, ta.qty[i], tc.qty[i])
			}
		}
	}
	if changed != k {
		t.Errorf("%d rows changed, want %d", changed, k)
	}
	csv, err := os.ReadFile(filepath.Join(dir, "a.csv"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(string(csv), "\n"), "\n")
	if len(lines) != rows+1 || lines[0] != "id,qty,price,name,at" {
		t.Fatalf("csv: %d lines, header %q", len(lines), lines[0])
	}
	// Row 1 by hand: at = 1_790_000_000 s + 1.000003 s = 2026-09-21T14:13:21.000003 (UTC).
	if f := strings.Split(lines[2], ","); len(f) != 5 || f[0] != "1" || f[3] != ta.name[1] || f[4] != "2026-09-21T14:13:21.000003" {
		t.Errorf("csv row 1: %q", lines[2])
	}
	if arrow.Timestamp(baseMicros).ToTime(arrow.Microsecond).Format("2006-01-02T15:04:05") != "2026-09-21T14:13:20" {
		t.Error("base instant")
	}
}
