package source

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	pq "github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
	"github.com/parquet-go/parquet-go/encoding"
)

// Tests of the parquet-go reader's paths that avoid copies: a column chunk of
// one dense page is referred to instead of copied (pgBuf.refer), and batch
// offsets are cut from row group memory (cut).

// wholePageCols names the columns of wholePageFile; wholePageReferred are
// those whose kind can refer to a page (the others are always copied: int8
// is narrowed, booleans are bit-packed anew).
var (
	wholePageCols     = []string{"i32", "i64", "f32", "f64", "s", "b", "ls", "ts", "i8", "bl"}
	wholePageReferred = []bool{true, true, true, true, true, true, true, true, false, false}
)

// wholePageValue is row i's value of every column but s, b and ls, as int64.
func wholePageValue(i int) int64 { return int64(i)*1_000_003 - 7 }

// wholePageFile writes a Parquet file laid out as DuckDB writes them: every
// column chunk is one data page (pages far larger than a chunk), Snappy,
// every column nullable. Row groups have the sizes in groups; in the groups
// listed in nullGroups every 4th row is null in every column; the s column
// holds "bad\xff" (invalid UTF-8) at the rows in bad. Values differ in every
// row, so with dict every row group has its own dictionaries. It returns the
// path and the columns written: the expected values, built without either
// reader.
func wholePageFile(t testing.TB, groups, nullGroups, bad []int, dict, v2 bool) (string, []arrow.Array) {
	t.Helper()
	mem := memory.DefaultAllocator
	bs := []array.Builder{
		array.NewInt32Builder(mem), array.NewInt64Builder(mem), array.NewFloat32Builder(mem), array.NewFloat64Builder(mem),
		array.NewStringBuilder(mem), array.NewBinaryBuilder(mem, arrow.BinaryTypes.Binary), array.NewLargeStringBuilder(mem),
		array.NewTimestampBuilder(mem, &arrow.TimestampType{Unit: arrow.Microsecond}), array.NewInt8Builder(mem),
		array.NewBooleanBuilder(mem),
	}
	row := 0
	for g, n := range groups {
		for range n {
			i := row
			row++
			if slices.Contains(nullGroups, g) && i%4 == 0 {
				for _, b := range bs {
					b.AppendNull()
				}
				continue
			}
			v := wholePageValue(i)
			s := fmt.Sprintf("v%d-%x", i, v)
			if slices.Contains(bad, i) {
				s = "bad\xff"
			}
			bs[0].(*array.Int32Builder).Append(int32(v))
			bs[1].(*array.Int64Builder).Append(v)
			bs[2].(*array.Float32Builder).Append(float32(v) / 3)
			bs[3].(*array.Float64Builder).Append(float64(v) / 3)
			bs[4].(*array.StringBuilder).Append(s)
			bs[5].(*array.BinaryBuilder).Append([]byte{byte(i), 0xff, byte(i >> 8)})
			bs[6].(*array.LargeStringBuilder).Append("large " + fmt.Sprint(i))
			bs[7].(*array.TimestampBuilder).Append(arrow.Timestamp(v))
			bs[8].(*array.Int8Builder).Append(int8(v))
			bs[9].(*array.BooleanBuilder).Append(i%3 == 0)
		}
	}
	var fields []arrow.Field
	var cols []arrow.Array
	for i, b := range bs {
		a := b.NewArray()
		b.Release()
		fields = append(fields, arrow.Field{Name: wholePageCols[i], Type: a.DataType(), Nullable: true})
		cols = append(cols, a)
	}
	t.Cleanup(func() { release(cols) })
	sc := arrow.NewSchema(fields, nil)
	rec := array.NewRecordBatch(sc, cols, int64(row))
	defer rec.Release()
	path := filepath.Join(t.TempDir(), fmt.Sprintf("whole-%v-%v.parquet", dict, v2))
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	props := []pq.WriterProperty{pq.WithDictionaryDefault(dict), pq.WithDataPageSize(1 << 30),
		pq.WithCompression(compress.Codecs.Snappy), pq.WithMaxRowGroupLength(1 << 20)}
	if v2 {
		props = append(props, pq.WithDataPageVersion(pq.DataPageV2))
	}
	w, err := pqarrow.NewFileWriter(sc, f, pq.NewWriterProperties(props...), pqarrow.NewArrowWriterProperties(pqarrow.WithStoreSchema()))
	if err != nil {
		t.Fatal(err)
	}
	lo := 0
	for _, n := range groups {
		s := rec.NewSlice(int64(lo), int64(lo+n))
		if err := w.WriteBuffered(s); err != nil {
			t.Fatal(err)
		}
		s.Release()
		w.NewBufferedRowGroup()
		lo += n
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return path, cols
}

// TestPqSpeedWholePages: a file of one page per column chunk reads the values written,
// nulls included, with pages referred to exactly where a row group's chunk is one dense
// page without dictionary indexes of a kind stored as is, and copied elsewhere (a row
// group with nulls, every row group of a dictionary-encoded file, int8 and booleans).
// Row groups differ in size (a larger after a smaller) and in dictionaries (with dict),
// and the buffers of a row group are reused by the next: read holding every batch to
// the end, releasing each at once (the same memory reused row group after row group),
// and with ReleasedPromptly releasing on other goroutines after a delay (each batch
// compared with itself as read).
func TestPqSpeedWholePages(t *testing.T) {
	t.Setenv(ParquetReaderEnv, "parquet-go")
	groups, nullGroups := []int{100, 300, 7, 250, 40}, []int{0, 3}
	for _, dict := range []bool{false, true} {
		for _, v2 := range []bool{false, true} {
			name := fmt.Sprintf("dictionary %v v2 %v", dict, v2)
			path, want := wholePageFile(t, groups, nullGroups, nil, dict, v2)
			_, got, ev, err := pgRead(t, path, "parquet-go", 64)
			if err != nil || !slices.Contains(ev.Choices, choiceReaderPQGo) {
				t.Fatalf("%s: %v, choices %v", name, err, ev.Choices)
			}
			requireSameColumns(t, name+": batches held", want, got)
			release(got)

			// Released at once: which columns referred to a page, row group by row group.
			src, err := Open(context.Background(), path, Options{BatchSize: 64})
			if err != nil {
				t.Fatal(err)
			}
			pg := src.(*parquetGoSource)
			group, groupEnd := -1, 0
			eachBatch(t, name, src, want, func(rec arrow.RecordBatch, row int) {
				if row == groupEnd {
					group++
					groupEnd += groups[group]
					for i, c := range wholePageCols {
						referred := pg.cur.bufs[i].page != nil
						wantRef := wholePageReferred[i] && !dict && !slices.Contains(nullGroups, group)
						if referred != wantRef {
							t.Errorf("%s: row group %d column %s: page referred to %v, want %v", name, group, c, referred, wantRef)
						}
					}
				}
				rec.Release()
			})
			if group != len(groups)-1 || pg.pool.fresh < 1 || pg.pool.fresh > 2 {
				t.Errorf("%s: %d row groups seen, %d row group memories, want %d and at most 2 (the current and the next, decoded ahead)", name, group+1, pg.pool.fresh, len(groups))
			}
			if err := src.Close(); err != nil {
				t.Fatal(err)
			}

			src, err = Open(context.Background(), path, Options{BatchSize: 64, ReleasedPromptly: true})
			if err != nil {
				t.Fatal(err)
			}
			var wg sync.WaitGroup
			eachBatch(t, name+" promptly", src, want, func(rec arrow.RecordBatch, row int) {
				d, delay := batchDigest(t, rec), time.Duration(row%5)*time.Millisecond
				wg.Go(func() {
					time.Sleep(delay)
					if batchDigest(t, rec) != d {
						t.Errorf("%s: a batch changed before it was released", name)
					}
					rec.Release()
				})
			})
			wg.Wait()
			if err := src.Close(); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// TestPqSpeedInvalidUTF8: invalid UTF-8 in a text column is screened the same whether
// its row group's values were copied (a row group with nulls) or referred to in the
// page: each such row is one PW_SOURCE_UTF8 failure with its 1-based row number and
// column, and is dropped; pqarrow's reader reports and drops the same.
func TestPqSpeedInvalidUTF8(t *testing.T) {
	groups, nullGroups := []int{100, 200, 150}, []int{0}
	bad := []int{5, 150, 299, 300, 449} // rows of group 0 (copied), 1 and 2 (referred); none a null row
	path, _ := wholePageFile(t, groups, nullGroups, bad, false, false)
	var want []Failure
	for _, r := range bad {
		want = append(want, Failure{Code: CodeUTF8, Line: uint64(r) + 1, Column: "s", Detail: "text is not valid UTF-8"})
	}
	var ids [][]int64
	for _, mode := range []string{"parquet-go", "pqarrow"} {
		_, got, ev, err := pgRead(t, path, mode, 64)
		if err != nil {
			t.Fatalf("%s: %v", mode, err)
		}
		if !slices.Equal(ev.Coverage.Failures, want) || ev.Coverage.Returned != 450-uint64(len(bad)) || ev.Coverage.FailedRecords != uint64(len(bad)) {
			t.Errorf("%s: failures %v, returned %d, failed %d; want %v, %d, %d", mode, ev.Coverage.Failures, ev.Coverage.Returned, ev.Coverage.FailedRecords, want, 450-len(bad), len(bad))
		}
		// The rows returned: every row but the bad ones, in order (nulls at every 4th of group 0).
		i64 := got[1].(*array.Int64)
		var rows []int64
		for i := 0; i < i64.Len(); i++ {
			v := i64.Value(i)
			if i64.IsNull(i) {
				v = -1 // a null (no value is -1: wholePageValue(r) = -1 has no solution)
			}
			rows = append(rows, v)
		}
		ids = append(ids, rows)
		release(got)
	}
	var keep []int64
	for r := range 450 {
		switch {
		case slices.Contains(bad, r):
		case r < 100 && r%4 == 0:
			keep = append(keep, -1) // a null
		default:
			keep = append(keep, wholePageValue(r))
		}
	}
	for i, mode := range []string{"parquet-go", "pqarrow"} {
		if !slices.Equal(ids[i], keep) {
			t.Errorf("%s: rows returned differ from every row but the invalid ones", mode)
		}
	}
}

// TestPqSpeedSmallBatches: batches of 1 and 3 rows of a byte-array column cut more
// offsets than a row group has rows (n+1 a batch), so the offsets arena fills and is
// replaced while earlier batches still use it; every batch is held to the end and
// keeps its values.
func TestPqSpeedSmallBatches(t *testing.T) {
	path, want := wholePageFile(t, []int{50, 200, 9}, []int{1}, nil, false, false)
	for _, batch := range []int{1, 3} {
		_, got, _, err := pgRead(t, path, "parquet-go", batch)
		if err != nil {
			t.Fatal(err)
		}
		requireSameColumns(t, fmt.Sprintf("batches of %d", batch), want, got)
		release(got)
	}
}

// TestPqSpeedCut: cut hands out disjoint slices whose capacity ends at their length (an
// append cannot reach the next batch's offsets), sized for a row group's rows plus a
// margin; a full arena is replaced by a larger one, and the slices already cut keep
// their memory.
func TestPqSpeedCut(t *testing.T) {
	var arena []int32
	a := cut(&arena, 5, 100)
	if len(a) != 5 || cap(a) != 5 || cap(arena) != 100+100/8+64 {
		t.Fatalf("first cut: len %d cap %d, arena cap %d", len(a), cap(a), cap(arena))
	}
	for i := range a {
		a[i] = 1
	}
	b := cut(&arena, cap(arena)-5, 100) // exactly the rest
	if &b[0] != &arena[5] {
		t.Fatal("the second cut does not follow the first")
	}
	c := cut(&arena, 3, 100) // the arena is full: a new one, twice as large
	if cap(arena) != 2*(100+100/8+64) || &c[0] != &arena[0] {
		t.Fatalf("a full arena: cap %d", cap(arena))
	}
	c[0] = 9
	if !slices.Equal(a, []int32{1, 1, 1, 1, 1}) {
		t.Fatalf("a slice cut earlier changed: %v", a)
	}
}

// countedPage is a page that counts its Retain and Release calls.
type countedPage struct {
	fakePage
	retains, releases *int
}

func (p countedPage) Retain()  { *p.retains++ }
func (p countedPage) Release() { *p.releases++ }

// TestPqSpeedRefer: addPage refers to a page (retained once, released once by the next
// reset) only when it holds every row of the row group, densely (definition levels all
// 1 or none), without dictionary indexes, for a kind stored as is; otherwise it copies
// and does not retain. The array over a referred page holds the page's values.
func TestPqSpeedRefer(t *testing.T) {
	i64 := encoding.Int64Values([]int64{4, 5, 6})
	for _, c := range []struct {
		name  string
		col   pgCol
		page  fakePage
		refer bool
		rows  string // rows 1 and 2 as an array prints them; "" not checked
	}{
		{"required int64, every row", pgCol{kind: pgInt64}, fakePage{n: 3, vals: i64}, true, "[5 6]"},
		{"optional int64, no nulls", pgCol{kind: pgInt64, optional: true}, fakePage{n: 3, defs: []byte{1, 1, 1}, vals: i64}, true, "[5 6]"},
		{"optional int64, a null", pgCol{kind: pgInt64, optional: true}, fakePage{n: 3, defs: []byte{1, 0, 1}, vals: i64}, false, "[(null) 5]"},
		{"int64, two of three rows", pgCol{kind: pgInt64}, fakePage{n: 2, vals: i64}, false, ""},
		{"int64 dictionary", pgCol{kind: pgInt64}, fakePage{n: 3, vals: encoding.Int32Values([]int32{2, 1, 0}), dict: fakeDict{vals: encoding.Int64Values([]int64{6, 5, 4})}}, false, "[5 6]"},
		{"int32 narrowed to int8", pgCol{kind: pgInt8}, fakePage{n: 3, vals: encoding.Int32Values([]int32{4, 5, 6})}, false, ""},
		{"byte array", pgCol{kind: pgBytes}, fakePage{n: 3, vals: encoding.ByteArrayValues([]byte("xx456"), []uint32{2, 3, 4, 5})}, true, `["5" "6"]`},
	} {
		var retains, releases int
		var b pgBuf
		b.reset(c.col.kind, 3, 0)
		if err := b.addPage(countedPage{c.page, &retains, &releases}, c.col, 3); err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if (b.page != nil) != c.refer || retains != b2n(c.refer) || releases != 0 {
			t.Errorf("%s: referred %v, %d retains, %d releases; want referred %v", c.name, b.page != nil, retains, releases, c.refer)
		}
		if c.rows != "" {
			pool := newGroupPool(1)
			g, err := pool.get(context.Background(), false, 1)
			if err != nil {
				t.Fatal(err)
			}
			typ := map[pgKind]arrow.DataType{pgInt64: arrow.PrimitiveTypes.Int64, pgBytes: arrow.BinaryTypes.String}[c.col.kind]
			a, err := b.array(g, typ, c.col.kind, 1, 3)
			if err != nil {
				t.Fatal(err)
			}
			if got := fmt.Sprint(a); got != c.rows {
				t.Errorf("%s: rows 1..3 %s, want %s", c.name, got, c.rows)
			}
			a.Release()
			g.release()
		}
		b.reset(c.col.kind, 3, 0)
		if retains != releases || b.page != nil {
			t.Errorf("%s: after reset %d retains, %d releases, page %v", c.name, retains, releases, b.page)
		}
	}
}

func b2n(b bool) int {
	if b {
		return 1
	}
	return 0
}

// The reader never returns a batch over a released page: a source closed with
// batches held keeps them readable (TestParquetGoGroupReuse covers the copied
// columns; this covers referred pages).
func TestPqSpeedHeldAfterClose(t *testing.T) {
	t.Setenv(ParquetReaderEnv, "parquet-go")
	path, want := wholePageFile(t, []int{120, 80}, nil, nil, false, false)
	src, err := Open(context.Background(), path, Options{BatchSize: 50})
	if err != nil {
		t.Fatal(err)
	}
	var held []arrow.RecordBatch
	eachBatch(t, "read", src, want, func(rec arrow.RecordBatch, _ int) { held = append(held, rec) })
	if err := src.Close(); err != nil {
		t.Fatal(err)
	}
	// Other files read meanwhile take parquet-go's pooled page buffers.
	other, _ := wholePageFile(t, []int{200}, nil, nil, false, false)
	_, got, _, err := pgRead(t, other, "parquet-go", 64)
	if err != nil {
		t.Fatal(err)
	}
	release(got)
	row := 0
	for _, rec := range held {
		requireRows(t, "held after close", want, row, rec)
		row += int(rec.NumRows())
		rec.Release()
	}
}

// TestPqSpeedCountDefs: countDefs counts the levels that are 1 and reports the first
// level above 1, wherever it lies (in a full 8-level word or in the tail), checked
// against a level-by-level count on random levels.
func TestPqSpeedCountDefs(t *testing.T) {
	r := rand.New(rand.NewPCG(21, 63))
	for range 2000 {
		defs := make([]byte, r.IntN(40))
		for i := range defs {
			defs[i] = byte(r.IntN(2))
		}
		if len(defs) > 0 && r.IntN(3) == 0 {
			for range 1 + r.IntN(2) {
				defs[r.IntN(len(defs))] = byte(2 + r.IntN(254))
			}
		}
		want, wantBad := 0, byte(0)
		for _, d := range defs {
			if d > 1 {
				want, wantBad = 0, d
				break
			}
			want += int(d)
		}
		if n, bad := countDefs(defs); n != want || bad != wantBad {
			t.Fatalf("countDefs(%v) = %d, %d; want %d, %d", defs, n, bad, want, wantBad)
		}
	}
}

// FuzzPqSpeedWholePages feeds damaged files of one page per column chunk (the pages the
// reader refers to instead of copying; row groups with and without nulls, invalid UTF-8,
// page v1 and v2) to the parquet-go reader: it must fail with a known code or read with
// consistent coverage and valid UTF-8, never panic or crash (as FuzzParquetGo).
func FuzzPqSpeedWholePages(f *testing.F) {
	for _, v2 := range []bool{false, true} {
		for _, dict := range []bool{false, true} {
			p, _ := wholePageFile(f, []int{6, 9, 2}, []int{1}, []int{3, 16}, dict, v2)
			b, err := os.ReadFile(p)
			if err != nil {
				f.Fatal(err)
			}
			f.Add(b)
		}
	}
	f.Setenv(ParquetReaderEnv, "parquet-go")
	boundMinimization(f, "1000x")
	f.Fuzz(func(t *testing.T, data []byte) {
		skipLarge(t, len(data))
		fuzzRead(t, "f.parquet", data, Options{})
	})
}

// BenchmarkPqSpeedCopyPaths: the copying paths of addPage on one page of 122,880 rows
// (DuckDB's row group): int64 values with 10 % nulls, and 12-byte text gathered from a
// dictionary of 1,000 entries.
func BenchmarkPqSpeedCopyPaths(b *testing.B) {
	const rows = 122880
	r := rand.New(rand.NewPCG(1, 2))
	defs := make([]byte, rows)
	var vals []int64
	for i := range defs {
		if r.IntN(10) != 0 {
			defs[i] = 1
			vals = append(vals, int64(r.Uint64()))
		}
	}
	b.Run("int64-nulls", func(b *testing.B) {
		var buf pgBuf
		page := fakePage{n: rows, defs: defs, vals: encoding.Int64Values(vals)}
		b.SetBytes(rows * 8)
		for b.Loop() {
			buf.reset(pgInt64, rows, 0)
			if err := buf.addPage(page, pgCol{kind: pgInt64, optional: true}, rows); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("text-dictionary", func(b *testing.B) {
		var data []byte
		offs := []uint32{0}
		for i := range 1000 {
			data = fmt.Appendf(data, "name-%07d", i)
			offs = append(offs, uint32(len(data)))
		}
		idx := make([]int32, rows)
		for i := range idx {
			idx[i] = int32(r.IntN(1000))
		}
		var buf pgBuf
		page := fakePage{n: rows, vals: encoding.Int32Values(idx), dict: fakeDict{vals: encoding.ByteArrayValues(data, offs)}}
		b.SetBytes(rows * 12)
		for b.Loop() {
			buf.reset(pgBytes, rows, rows*12)
			if err := buf.addPage(page, pgCol{kind: pgBytes}, rows); err != nil {
				b.Fatal(err)
			}
		}
	})
}
