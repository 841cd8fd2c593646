package source

// Tests written for the mutants of adapter.go, arrowfiles.go, arrowvalidate.go, csv*.go
// and errors.go that lived under the package's other tests (issue 22; the run and the
// equivalent mutants are in docs/mutation/source-csv.txt). Expected values come from the
// contracts in the doc comments, from encoding/csv (the reference of csvParser) or are
// worked out by hand in the comments beside them.

import (
	"context"
	"errors"
	"io"
	"math"
	"os"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// TestMutTrackerDetailLimit: the failures Coverage adds (an unfinished read) are counted
// always but kept in detail only up to MaxDetails, like those of Fail.
func TestMutTrackerDetailLimit(t *testing.T) {
	tr := Tracker{MaxDetails: 1}
	tr.Fail(Failure{Code: CodeCSVRow, Line: 2}, true)
	c := tr.Coverage() // not Done: an incomplete-read failure is added
	if c.FailureCount != 2 || len(c.Failures) != 1 || c.Failures[0].Code != CodeCSVRow {
		t.Fatalf("coverage %+v: want 2 failures counted, the first one kept (MaxDetails 1)", c)
	}
	tr = Tracker{MaxDetails: 2}
	tr.Fail(Failure{Code: CodeCSVRow, Line: 2}, true)
	if c := tr.Coverage(); c.FailureCount != 2 || len(c.Failures) != 2 || c.Failures[1].Code != CodeIncomplete {
		t.Fatalf("coverage %+v: want both failures kept (MaxDetails 2)", c)
	}
}

// TestMutRedactAddressEmptyUser: in a URL that does not parse, user info that is empty
// (the '@' right after "://") is dropped too.
func TestMutRedactAddressEmptyUser(t *testing.T) {
	if got := RedactAddress("postgres://@h/%zz"); got != "postgres://h/%zz" {
		t.Errorf("RedactAddress = %q, want %q", got, "postgres://h/%zz")
	}
}

// TestMutWithMetaFirstKey: a key the field already has in first place is replaced, not
// added a second time.
func TestMutWithMetaFirstKey(t *testing.T) {
	f := arrow.Field{Name: "x", Type: arrow.PrimitiveTypes.Int16, Metadata: arrow.NewMetadata([]string{MetaSourceType}, []string{"old"})}
	got := WithMeta(f, "SMALLINT").Metadata
	if !slices.Equal(got.Keys(), []string{MetaSourceType, MetaSourceWidth}) || !slices.Equal(got.Values(), []string{"SMALLINT", "16"}) {
		t.Errorf("metadata %v, want the type replaced in place and the width 16 added", got)
	}
}

// closed reports whether f has been closed (a closed *os.File refuses Stat).
func closed(f *os.File) bool {
	_, err := f.Stat()
	return errors.Is(err, os.ErrClosed)
}

// TestMutCloseReleasesFile: Close closes the file of a CSV source and of a Parquet/IPC
// source (fileBase), and a second Close is a no-op that succeeds.
func TestMutCloseReleasesFile(t *testing.T) {
	dir := t.TempDir()
	p := writeFile(t, dir, "c.csv", []byte("a\n1\n"))
	src, err := Open(context.Background(), p, Options{})
	if err != nil {
		t.Fatal(err)
	}
	f := src.(*csvSource).f
	if err := src.Close(); err != nil || !closed(f) {
		t.Fatalf("csv Close: %v, file closed %v", err, closed(f))
	}
	if err := src.Close(); err != nil {
		t.Fatalf("csv Close again: %v", err)
	}

	g, err := os.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	b := &fileBase{f: g}
	if err := b.closeFile("arrow close"); err != nil || !closed(g) {
		t.Fatalf("closeFile: %v, file closed %v", err, closed(g))
	}
	if err := b.closeFile("arrow close"); err != nil {
		t.Fatalf("closeFile again: %v", err)
	}
}

// TestMutProjectKeepPastBatch: a kept column index past the batch's columns is
// PW_SOURCE_CORRUPT, even when the batch has as many columns as are kept.
func TestMutProjectKeepPastBatch(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	i64 := arrow.PrimitiveTypes.Int64
	schema := arrow.NewSchema([]arrow.Field{{Name: "a", Type: i64}, {Name: "c", Type: i64}}, nil)
	bld := array.NewRecordBuilder(mem, schema)
	defer bld.Release()
	bld.Field(0).(*array.Int64Builder).Append(1)
	bld.Field(1).(*array.Int64Builder).Append(2)
	rec := bld.NewRecordBatch()
	defer rec.Release()
	// The file's schema had three columns, of which the first and third are kept; this
	// batch has two.
	b := &fileBase{a: Address{Kind: KindArrowFile, Path: "/x.arrow"}, schema: schema, keep: []int{0, 2}}
	out, err := b.project(rec)
	if out != nil || CodeOf(err) != CodeCorrupt {
		t.Fatalf("project = %v, %v; want PW_SOURCE_CORRUPT", out, err)
	}
	b.keep = []int{0, 1}
	out, err = b.project(rec)
	if err != nil || out.NumCols() != 2 || out.NumRows() != 1 {
		t.Fatalf("project of columns that exist = %v, %v", out, err)
	}
	out.Release()
}

// badStrings is a string array of two values whose offsets (0, 3, 1) stay within its
// 3 data bytes, so arrow-go's Validate passes, but decrease.
func badStrings() arrow.Array {
	offs := arrow.Int32Traits.CastToBytes([]int32{0, 3, 1})
	data := array.NewData(arrow.BinaryTypes.String, 2, []*memory.Buffer{nil, memory.NewBufferBytes(offs), memory.NewBufferBytes([]byte("abc"))}, nil, 0, 0)
	defer data.Release()
	return array.MakeFromData(data)
}

// badLargeStrings is badStrings as large_utf8 (64-bit offsets).
func badLargeStrings() arrow.Array {
	offs := arrow.Int64Traits.CastToBytes([]int64{0, 3, 1})
	data := array.NewData(arrow.BinaryTypes.LargeString, 2, []*memory.Buffer{nil, memory.NewBufferBytes(offs), memory.NewBufferBytes([]byte("abc"))}, nil, 0, 0)
	defer data.Release()
	return array.MakeFromData(data)
}

// goodStrings holds "ab", "" and "c": equal offsets (an empty value) are valid.
func goodStrings() arrow.Array {
	b := array.NewStringBuilder(memory.NewGoAllocator())
	defer b.Release()
	b.AppendValues([]string{"ab", "", "c"}, nil)
	return b.NewArray()
}

// wrapStruct returns a struct array of one field, child, of child's length.
func wrapStruct(child arrow.Array) arrow.Array {
	dt := arrow.StructOf(arrow.Field{Name: "f", Type: child.DataType(), Nullable: true})
	data := array.NewData(dt, child.Len(), []*memory.Buffer{nil}, []arrow.ArrayData{child.Data()}, 0, 0)
	defer data.Release()
	return array.MakeFromData(data)
}

// wrapList returns a list array of one list holding every value of child.
func wrapList(child arrow.Array) arrow.Array {
	offs := arrow.Int32Traits.CastToBytes([]int32{0, int32(child.Len())})
	data := array.NewData(arrow.ListOf(child.DataType()), 1, []*memory.Buffer{nil, memory.NewBufferBytes(offs)}, []arrow.ArrayData{child.Data()}, 0, 0)
	defer data.Release()
	return array.MakeFromData(data)
}

// wrapLargeList is wrapList with 64-bit offsets.
func wrapLargeList(child arrow.Array) arrow.Array {
	offs := arrow.Int64Traits.CastToBytes([]int64{0, int64(child.Len())})
	data := array.NewData(arrow.LargeListOf(child.DataType()), 1, []*memory.Buffer{nil, memory.NewBufferBytes(offs)}, []arrow.ArrayData{child.Data()}, 0, 0)
	defer data.Release()
	return array.MakeFromData(data)
}

// wrapFixedList returns a fixed-size list array of one list of child's length.
func wrapFixedList(child arrow.Array) arrow.Array {
	data := array.NewData(arrow.FixedSizeListOf(int32(child.Len()), child.DataType()), 1, []*memory.Buffer{nil}, []arrow.ArrayData{child.Data()}, 0, 0)
	defer data.Release()
	return array.MakeFromData(data)
}

// wrapMap returns a map array of one map whose keys are 0..n-1 and whose values are
// child's n values.
func wrapMap(child arrow.Array) arrow.Array {
	kb := array.NewInt32Builder(memory.NewGoAllocator())
	defer kb.Release()
	for i := range child.Len() {
		kb.Append(int32(i))
	}
	keys := kb.NewArray()
	defer keys.Release()
	mt := arrow.MapOf(arrow.PrimitiveTypes.Int32, child.DataType())
	entries := array.NewData(mt.Elem(), child.Len(), []*memory.Buffer{nil}, []arrow.ArrayData{keys.Data(), child.Data()}, 0, 0)
	defer entries.Release()
	offs := arrow.Int32Traits.CastToBytes([]int32{0, int32(child.Len())})
	data := array.NewData(mt, 1, []*memory.Buffer{nil, memory.NewBufferBytes(offs)}, []arrow.ArrayData{entries}, 0, 0)
	defer data.Release()
	return array.MakeFromData(data)
}

// TestMutValidateArray: decreasing string offsets are found at the top and inside a
// struct or a list; a struct child shorter than the struct is found; nesting is refused
// exactly past maxNestedDepth, through structs and through lists.
func TestMutValidateArray(t *testing.T) {
	if err := validateArray(goodStrings(), 0); err != nil {
		t.Fatalf("valid strings: %v", err)
	}
	if err := validateArray(badStrings(), 0); err == nil {
		t.Error("decreasing string offsets accepted")
	}
	if err := validateArray(wrapStruct(badStrings()), 0); err == nil {
		t.Error("decreasing string offsets in a struct field accepted")
	}
	if err := validateArray(badLargeStrings(), 0); err == nil {
		t.Error("decreasing large_utf8 offsets accepted")
	}
	wrappers := []struct {
		name string
		f    func(arrow.Array) arrow.Array
	}{{"struct", wrapStruct}, {"list", wrapList}, {"large list", wrapLargeList}, {"fixed-size list", wrapFixedList}, {"map", wrapMap}}
	for _, w := range wrappers {
		if err := validateArray(w.f(goodStrings()), 0); err != nil {
			t.Errorf("valid strings in a %s: %v", w.name, err)
		}
		if err := validateArray(w.f(badStrings()), 0); err == nil {
			t.Errorf("decreasing string offsets in a %s accepted", w.name)
		}
	}
	// A struct of length 3 over a child of length 2.
	i64 := arrow.PrimitiveTypes.Int64
	ib := array.NewInt64Builder(memory.NewGoAllocator())
	ib.AppendValues([]int64{1, 2}, nil)
	short := ib.NewArray()
	ib.Release()
	dt := arrow.StructOf(arrow.Field{Name: "f", Type: i64, Nullable: true})
	sd := array.NewData(dt, 3, []*memory.Buffer{nil}, []arrow.ArrayData{short.Data()}, 0, 0)
	if err := validateArray(array.MakeFromData(sd), 0); err == nil {
		t.Error("struct child shorter than the struct accepted")
	}

	// Nesting, checked from a starting depth near the limit: below a wrapper at depth d
	// the values lie at d+1 (at d+2 for a map: its entries struct, then the values), and
	// depth maxNestedDepth is the last one allowed.
	for _, w := range wrappers {
		start := maxNestedDepth - 1
		if w.name == "map" {
			start = maxNestedDepth - 2
		}
		if err := validateArray(w.f(goodStrings()), start); err != nil {
			t.Errorf("%s: values at depth %d: %v", w.name, maxNestedDepth, err)
		}
		if err := validateArray(w.f(w.f(goodStrings())), start); err == nil {
			t.Errorf("%s: values past depth %d accepted", w.name, maxNestedDepth)
		}
	}
	a := goodStrings()
	for range maxNestedDepth {
		a = wrapStruct(a)
	}
	if err := validateArray(a, 0); err != nil {
		t.Errorf("struct nesting %d deep: %v", maxNestedDepth, err)
	}
	if err := validateArray(wrapStruct(a), 0); err == nil {
		t.Errorf("struct nesting %d deep accepted", maxNestedDepth+1)
	}
}

// TestMutValidateSlicedStruct: a valid struct array viewed through a slice (offset > 0)
// is valid: its fields are already sliced to its rows.
func TestMutValidateSlicedStruct(t *testing.T) {
	st := arrow.StructOf(arrow.Field{Name: "x", Type: arrow.PrimitiveTypes.Int64})
	b := array.NewStructBuilder(memory.NewGoAllocator(), st)
	defer b.Release()
	for i := range 4 {
		b.Append(true)
		b.FieldBuilder(0).(*array.Int64Builder).Append(int64(i))
	}
	a := b.NewArray()
	defer a.Release()
	for _, r := range [][2]int64{{1, 3}, {3, 4}, {0, 4}, {4, 4}} {
		s := array.NewSlice(a, r[0], r[1])
		if err := validateArray(s, 0); err != nil {
			t.Errorf("struct rows %d..%d: %v", r[0], r[1], err)
		}
		s.Release()
	}
}

// TestMutValidateRecord: an invalid column fails the record whichever its place.
func TestMutValidateRecord(t *testing.T) {
	s := arrow.BinaryTypes.String
	schema := arrow.NewSchema([]arrow.Field{{Name: "a", Type: s}, {Name: "b", Type: s}}, nil)
	good := func() arrow.Array { return array.NewSlice(goodStrings(), 0, 2) } // "ab", ""
	for _, cols := range [][]arrow.Array{
		{badStrings(), good()},
		{good(), badStrings()},
	} {
		rec := array.NewRecordBatch(schema, cols, 2)
		if err := validateRecord(rec); err == nil {
			t.Error("record with an invalid column accepted")
		}
		rec.Release()
	}
	rec := array.NewRecordBatch(schema, []arrow.Array{good(), good()}, 2)
	defer rec.Release()
	if err := validateRecord(rec); err != nil {
		t.Errorf("valid record: %v", err)
	}
}

// TestMutScreenString: a row whose utf8 or large_utf8 cell is not valid UTF-8 is dropped
// and counted as a failure on its line, named by its column.
func TestMutScreenString(t *testing.T) {
	for _, dt := range []arrow.DataType{arrow.BinaryTypes.String, arrow.BinaryTypes.LargeString} {
		mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
		schema := arrow.NewSchema([]arrow.Field{{Name: "s", Type: dt}}, nil)
		bld := array.NewRecordBuilder(mem, schema)
		switch b := bld.Field(0).(type) {
		case *array.StringBuilder:
			b.AppendValues([]string{"ok", "\xff", "fine"}, nil)
		case *array.LargeStringBuilder:
			b.AppendValues([]string{"ok", "\xff", "fine"}, nil)
		}
		b := &fileBase{schema: schema, opts: Options{Allocator: mem}, t: Tracker{MaxDetails: 10}}
		out, err := b.screen(bld.NewRecordBatch())
		bld.Release()
		if err != nil {
			t.Fatal(err)
		}
		col, ok := out.Column(0).(interface{ Value(int) string })
		if !ok || out.NumRows() != 2 || col.Value(0) != "ok" || col.Value(1) != "fine" {
			t.Errorf("%s: screened batch %v, want the rows ok, fine", dt, out)
		}
		f := b.t.Failures()
		if len(f) != 1 || f[0].Code != CodeUTF8 || f[0].Line != 2 || f[0].Column != "s" || b.t.FailedRecords() != 1 || b.t.Returned != 2 {
			t.Errorf("%s: failures %+v, failed %d, returned %d", dt, f, b.t.FailedRecords(), b.t.Returned)
		}
		out.Release()
		// A second batch: its rows are numbered after the 3 rows of the first, returned
		// or failed (its bad row 1 is line 4).
		bld = array.NewRecordBuilder(mem, schema)
		switch b := bld.Field(0).(type) {
		case *array.StringBuilder:
			b.AppendValues([]string{"\xfe", "x"}, nil)
		case *array.LargeStringBuilder:
			b.AppendValues([]string{"\xfe", "x"}, nil)
		}
		out, err = b.screen(bld.NewRecordBatch())
		bld.Release()
		if err != nil {
			t.Fatal(err)
		}
		out.Release()
		if f := b.t.Failures(); len(f) != 2 || f[1].Line != 4 {
			t.Errorf("%s: second batch failures %+v, want line 4", dt, f)
		}
		mem.AssertSize(t, 0)
	}
}

// TestMutScreenExactBuffers: screen reads exactly the rows of a column whose offsets
// buffer has no room past its last value (as an IPC reader leaves it).
func TestMutScreenExactBuffers(t *testing.T) {
	offs := arrow.Int32Traits.CastToBytes([]int32{0, 2, 3})
	data := array.NewData(arrow.BinaryTypes.String, 2, []*memory.Buffer{nil, memory.NewBufferBytes(offs), memory.NewBufferBytes([]byte("ok\xff"))}, nil, 0, 0)
	col := array.MakeFromData(data)
	data.Release()
	schema := arrow.NewSchema([]arrow.Field{{Name: "s", Type: arrow.BinaryTypes.String}}, nil)
	b := &fileBase{schema: schema, opts: Options{Allocator: memory.NewGoAllocator()}, t: Tracker{MaxDetails: 10}}
	out, err := b.screen(array.NewRecordBatch(schema, []arrow.Array{col}, 2))
	col.Release()
	if err != nil {
		t.Fatal(err)
	}
	defer out.Release()
	if f := b.t.Failures(); out.NumRows() != 1 || len(f) != 1 || f[0].Line != 2 {
		t.Fatalf("rows %d, failures %+v; want 1 row and the failure of line 2", out.NumRows(), f)
	}
}

// TestMutCSVHeaderMessages: header errors name the column by its 1-based position.
func TestMutCSVHeaderMessages(t *testing.T) {
	dir := t.TempDir()
	for data, want := range map[string]string{
		"a,\xff,b\n": "header column 2 is not valid UTF-8",
		"a,,b\n":     "header column 2 is empty",
		"\xff\n":     "header column 1 is not valid UTF-8",
		",a\n":       "header column 1 is empty",
	} {
		p := writeFile(t, dir, "h.csv", []byte(data))
		_, err := Open(context.Background(), p, Options{})
		e, ok := errors.AsType[*Error](err)
		if !ok || e.Msg != want {
			t.Errorf("header %q: %v, want %q", data, err, want)
		}
	}
}

// TestMutCSVBOMOnly: a file that is a byte order mark and nothing else is empty: it has no
// header line.
func TestMutCSVBOMOnly(t *testing.T) {
	p := writeFile(t, t.TempDir(), "bom.csv", []byte("\xEF\xBB\xBF"))
	_, err := Open(context.Background(), p, Options{})
	e, ok := errors.AsType[*Error](err)
	if !ok || e.Code != CodeSchema || e.Msg != "empty file: a header line is required" {
		t.Fatalf("Open = %v, want the empty-file error", err)
	}
	pr, bom, err := newCSVParser(strings.NewReader("\xEF\xBB\xBF"), 10, 4)
	if err != nil || !bom {
		t.Fatalf("newCSVParser: bom %v, %v; want the mark found", bom, err)
	}
	if _, _, err := pr.read(); err != io.EOF {
		t.Fatalf("read after the mark: %v, want io.EOF", err)
	}
}

// TestMutCSVInferZeroThenUint: 0 is not negative, so a column of 0 and a value past
// int64's range is uint64.
func TestMutCSVInferZeroThenUint(t *testing.T) {
	p := writeFile(t, t.TempDir(), "u.csv", []byte("u\n0\n18446744073709551615\n"))
	sc, cols, _ := openRead(t, p, Options{Infer: true})
	if sc.Field(0).Type.ID() != arrow.UINT64 {
		t.Fatalf("type %s, want uint64", sc.Field(0).Type)
	}
	u := cols[0].(*array.Uint64)
	if u.Value(0) != 0 || u.Value(1) != math.MaxUint64 {
		t.Fatalf("values %v", u)
	}
}

// TestMutCSVWorkers: a forced worker count wins; otherwise files from csvParallelMinBytes
// and batches from csvParallelMinBatch are read by GOMAXPROCS workers when there are at
// least two processors, and serially below any of those bounds.
func TestMutCSVWorkers(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	defer func(n int) { csvForceWorkers = n }(csvForceWorkers)
	csvForceWorkers = 3
	if n := csvWorkers(0, 1); n != 3 {
		t.Errorf("forced: %d workers, want 3", n)
	}
	csvForceWorkers = 0
	for _, c := range []struct {
		procs int
		size  int64
		batch int
		want  int
	}{
		{2, csvParallelMinBytes, csvParallelMinBatch, 2},
		{4, 1 << 30, 1 << 20, 4},
		{2, csvParallelMinBytes - 1, csvParallelMinBatch, 0},
		{2, csvParallelMinBytes, csvParallelMinBatch - 1, 0},
		{1, 1 << 30, 1 << 20, 0},
	} {
		runtime.GOMAXPROCS(c.procs)
		if n := csvWorkers(c.size, c.batch); n != c.want {
			t.Errorf("GOMAXPROCS %d, size %d, batch %d: %d workers, want %d", c.procs, c.size, c.batch, n, c.want)
		}
	}
}

// TestMutCSVPipeWorkers: the pipeline bounds the rows in flight: at most
// csvMaxRowsInFlight/BatchSize (at least 2) raw batches, and one worker fewer than that.
func TestMutCSVPipeWorkers(t *testing.T) {
	// 300000 rows (2.7 MB), of which the first read holds about 110000: the reader reads
	// again during the first batch.
	p := bigIntCSV(t, 300000)
	for _, c := range []struct{ batch, workers, want int }{
		{1 << 19, 4, 3}, // 2^21/2^19 = 4 raw batches: 3 workers
		{1 << 22, 4, 1}, // 2^21/2^22 = 0, at least 2 raw batches: 1 worker
		{1 << 18, 2, 2}, // 2+2 raw batches of the 8 allowed: the 2 workers asked for
	} {
		src, _ := openWorkers(t, p, Options{Columns: []Column{{"a", "int64"}}, BatchSize: c.batch}, c.workers)
		cs := src.(*csvSource)
		g := &gateReader{r: cs.p.r, entered: make(chan struct{}), gate: make(chan struct{})}
		entered := g.entered
		cs.p.r = g
		cs.startPipe()
		<-entered // the reader waits in its first read; the workers wait for work
		deadline := time.Now().Add(10 * time.Second)
		for workerGoroutines() < c.want && time.Now().Before(deadline) {
			time.Sleep(time.Millisecond)
		}
		time.Sleep(100 * time.Millisecond) // time for any worker more to start
		if n := workerGoroutines(); n != c.want {
			t.Errorf("batch %d, %d workers asked: %d run, want %d", c.batch, c.workers, n, c.want)
		}
		close(g.gate)
		if err := src.Close(); err != nil {
			t.Fatal(err)
		}
	}
}

// workerGoroutines counts the goroutines that run csvPipe.convert.
func workerGoroutines() int {
	buf := make([]byte, 1<<22)
	n := runtime.Stack(buf, true)
	return strings.Count(string(buf[:n]), "source.(*csvPipe).convert(")
}

// emptyReader returns no bytes and no error for its first zeros Reads, then data, then
// io.EOF; past 1000 calls it fails, so that a parser that never gives up is caught.
type emptyReader struct {
	zeros, calls int
	data         string
}

var errTooManyReads = errors.New("test reader: read 1000 times")

func (r *emptyReader) Read(p []byte) (int, error) {
	r.calls++
	if r.calls > 1000 {
		return 0, errTooManyReads
	}
	if r.calls <= r.zeros {
		return 0, nil
	}
	if r.data == "" {
		return 0, io.EOF
	}
	n := copy(p, r.data)
	r.data = r.data[n:]
	return n, nil
}

// TestMutCSVParserNoProgress: 99 empty reads in a row are waited out, the 100th in a row
// is errNoProgress, and a reader that never returns data ends the same way after 100
// reads.
func TestMutCSVParserNoProgress(t *testing.T) {
	r := &emptyReader{zeros: 99, data: "a\n"}
	p, _, err := newCSVParser(r, 1<<10, 64)
	if err != nil {
		t.Fatal(err)
	}
	if rec, _, err := p.read(); err != nil || len(rec) != 1 || string(rec[0]) != "a" {
		t.Fatalf("after 99 empty reads: %q, %v", rec, err)
	}
	for _, r := range []*emptyReader{{zeros: 100, data: "a\n"}, {zeros: 1 << 30}} {
		p, _, err := newCSVParser(r, 1<<10, 64)
		if err != nil {
			t.Fatal(err)
		}
		if _, _, err := p.read(); err != errNoProgress || r.calls != 100 {
			t.Fatalf("zeros %d: %v after %d reads, want errNoProgress after 100", r.zeros, err, r.calls)
		}
	}
}

// overReader returns data on its first Read, then claims one byte more than it was given
// room for.
type overReader struct {
	data  string
	calls int
}

func (r *overReader) Read(p []byte) (int, error) {
	r.calls++
	if r.calls == 1 {
		return copy(p, r.data), nil
	}
	return len(p) + 1, nil
}

// TestMutCSVParserReadCount: a read count past the room given is a read error, also when
// the buffer already holds bytes.
func TestMutCSVParserReadCount(t *testing.T) {
	p, _, err := newCSVParser(&overReader{data: "a\n"}, 1<<10, 4)
	if err != nil {
		t.Fatal(err)
	}
	if rec, _, err := p.read(); err != nil || len(rec) != 1 || string(rec[0]) != "a" {
		t.Fatalf("first record %q, %v", rec, err)
	}
	if _, _, err := p.read(); err == nil || err.Error() != "csv: invalid read count" {
		t.Fatalf("read after a bad count: %v", err)
	}
}

// TestMutCSVParserQuotedLines: lines with a quote whose unquoted fields are empty or
// follow a quoted field split exactly as encoding/csv splits them, errors (and their
// columns) included.
func TestMutCSVParserQuotedLines(t *testing.T) {
	for _, data := range []string{
		",\"a\"\n",
		"\"a\",,\"b\"\n",
		",,\"a\"\n1,2,3\n",
		"\"a\",b\"\n",
		"\"a\",\"b\",c\"d\n",
		"\"ab\",x,y\"\n",
		"x,\"a\",b\"c\n",
	} {
		for _, bs := range []int{4, 64} {
			std, _ := readStd([]byte(data), 0)
			ours, _ := readOurs(t, strings.NewReader(data), bs, 0)
			if d := diffRecords(std, ours); d != "" {
				t.Errorf("%q (buffer %d): %s", data, bs, d)
			}
		}
	}
}

// TestMutIntCellBounds: a narrow integer column takes exactly its range: the minimum,
// not one below it.
func TestMutIntCellBounds(t *testing.T) {
	for _, c := range []struct {
		typ, min, below string
		want            int64
	}{
		{"int8", "-128", "-129", -128},
		{"int16", "-32768", "-32769", -32768},
		{"int32", "-2147483648", "-2147483649", -2147483648},
	} {
		ct, _ := parseType(c.typ)
		var cl cell
		if code, detail := ct.parseCell([]byte(c.min), &cl); code != "" || cl.i != c.want {
			t.Errorf("%s %s: %s %q, value %d", c.typ, c.min, code, detail, cl.i)
		}
		if code, detail := ct.parseCell([]byte(c.below), &cl); code != CodeType || detail != "out of range for "+c.typ {
			t.Errorf("%s %s: %s %q, want out of range", c.typ, c.below, code, detail)
		}
	}
}

// TestMutSmallInt: the integer fast path takes an optional sign and 1 to 18 digits.
func TestMutSmallInt(t *testing.T) {
	for _, c := range []struct {
		in         string
		v          int64
		ok, syntax bool
	}{
		{"123456789012345678", 123456789012345678, true, false},
		{"-999999999999999999", -999999999999999999, true, false},
		{"1234567890123456789", 0, false, false},
		{"+", 0, false, false},
		{"1x", 0, true, true},
	} {
		v, ok, syntax := smallInt([]byte(c.in))
		if v != c.v || ok != c.ok || syntax != c.syntax {
			t.Errorf("smallInt(%q) = %d %v %v, want %d %v %v", c.in, v, ok, syntax, c.v, c.ok, c.syntax)
		}
	}
}

// TestMutFloatManyDigits: a float of more than 19 digits is strconv's, exactly: 2^64
// (20 digits) is 2^64, which the fast path's uint64 mantissa could not hold.
func TestMutFloatManyDigits(t *testing.T) {
	if _, ok := fastFloat([]byte("18446744073709551616")); ok {
		t.Error("fastFloat took a 20-digit value")
	}
	ct, _ := parseType("float64")
	var c cell
	if code, _ := ct.parseCell([]byte("18446744073709551616"), &c); code != "" || c.f != math.Ldexp(1, 64) {
		t.Errorf("2^64 as float64: %s %v, want %v", code, c.f, math.Ldexp(1, 64))
	}
}

// TestMutFastTimestamp: the timestamp fast path takes its common forms at the edges of
// every field (values worked out from 2020-01-01T00:00:00Z = 1577836800 s: 50 years of
// which 12 leap since 1970, 18262 days), and declines a wrong separator, month 00 or day
// 00, which parseCell then rejects as time.Parse does.
func TestMutFastTimestamp(t *testing.T) {
	for _, c := range []struct {
		typ, in string
		want    int64
	}{
		{"timestamp(s)", "2019-12-31T23:59:59", 1577836799},
		{"timestamp(s)", "2020-01-01 00:00:00", 1577836800},
		{"timestamp(ns)", "2020-01-01T00:00:00.999999999", 1577836800999999999},
		// 2020-02-29: 31+28 days after 2020-01-01; 12:34:56 is 45296 s.
		{"timestamp(ms)", "2020-02-29T12:34:56.5", (1577836800+59*86400+45296)*1000 + 500},
		{"timestamp(us,UTC)", "2020-01-01T00:00:00Z", 1577836800 * 1000000},
		{"timestamp(s)", "1969-12-31T23:59:59", -1},
		{"timestamp(ns)", "2262-04-11T23:47:16.854775807", math.MaxInt64}, // time.Time's last ns
	} {
		ct, ok := parseType(c.typ)
		if !ok {
			t.Fatalf("type %s", c.typ)
		}
		if v, ok := ct.fastTimestamp([]byte(c.in)); !ok || v != c.want {
			t.Errorf("fastTimestamp(%s, %q) = %d %v, want %d", c.typ, c.in, v, ok, c.want)
		}
	}
	ct, _ := parseType("timestamp(s)")
	for _, in := range []string{
		"2020X01-01T00:00:00", "2020-01X01T00:00:00", "2020-01-01X00:00:00", "2020-01-01T00X00:00",
		"2020-01-01T00:00X00", "2020-00-01T00:00:00", "2020-01-00T00:00:00", "2a20-01-01T00:00:00",
	} {
		if v, ok := ct.fastTimestamp([]byte(in)); ok {
			t.Errorf("fastTimestamp(%q) = %d, want declined", in, v)
		}
		var c cell
		if code, _ := ct.parseCell([]byte(in), &c); code != CodeType {
			t.Errorf("parseCell(%q) = %s, value %d; want PW_SOURCE_TYPE", in, code, c.i)
		}
	}
}

// TestMutScaleTimestamp: seconds and nanoseconds in units of per nanoseconds, exact up to
// the int64 bounds and refused one past them (MaxInt64 ns is 9223372036 s and 854775807
// ns; MinInt64/1e9 truncates to -9223372036 s), and refused for a fraction finer than the
// unit.
func TestMutScaleTimestamp(t *testing.T) {
	for _, c := range []struct {
		sec, ns, per int64
		want         int64
		ok           bool
	}{
		{9223372036, 854775807, 1, math.MaxInt64, true},
		{9223372036, 854775808, 1, 0, false},
		{9223372037, 0, 1, 0, false},
		{-9223372036, 0, 1, -9223372036000000000, true},
		{-9223372037, 0, 1, 0, false},
		{1, 2000, 1000, 1000002, true},
		{1, 1500, 1000, 0, false},
		{-1, 0, 1e9, -1, true},
		{5, 0, 1e6, 5000, true},
	} {
		v, ok := scaleTimestamp(c.sec, c.ns, c.per)
		if v != c.want || ok != c.ok {
			t.Errorf("scaleTimestamp(%d, %d, %d) = %d %v, want %d %v", c.sec, c.ns, c.per, v, ok, c.want, c.ok)
		}
	}
}

// TestMutErrorText: an *Error reads code, then ": op", " source", ": msg" and ": cause",
// each only when set; errors.Is matches a bare code (a sentinel), never a target that sets
// more than the code.
func TestMutErrorText(t *testing.T) {
	for _, c := range []struct {
		e    *Error
		want string
	}{
		{&Error{Code: CodeIO, Op: "csv next", Source: "/x.csv", Msg: "read failed", Err: io.EOF}, "PW_SOURCE_IO: csv next /x.csv: read failed: EOF"},
		{&Error{Code: CodeIO}, "PW_SOURCE_IO"},
		{&Error{Code: CodeLimit, Source: "/x.csv"}, "PW_SOURCE_LIMIT /x.csv"},
		{&Error{Code: CodeLimit, Msg: "too long"}, "PW_SOURCE_LIMIT: too long"},
	} {
		if got := c.e.Error(); got != c.want {
			t.Errorf("Error() = %q, want %q", got, c.want)
		}
	}
	e := &Error{Code: CodeIO, Op: "csv next", Source: "/x.csv", Msg: "read failed", Err: io.EOF}
	if !errors.Is(e, ErrIO) || errors.Is(e, ErrType) {
		t.Errorf("errors.Is against the sentinels: want ErrIO only")
	}
	for _, target := range []*Error{
		{Code: CodeIO, Op: "csv next"}, {Code: CodeIO, Msg: "read failed"},
		{Code: CodeIO, Err: io.ErrUnexpectedEOF}, {Code: CodeIO, Source: "/x.csv"},
	} {
		if e.Is(target) {
			t.Errorf("Is(%#v) = true, want false: only a bare code is a category", target)
		}
	}
}
