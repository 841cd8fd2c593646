package source

import (
	"context"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"path/filepath"
	"reflect"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// csvRead is everything a read shows: the values of every column (in a
// canonical, bit-exact spelling), the rows of each batch, the error that
// ended it (nil for io.EOF) and the evidence after it.
type csvRead struct {
	cols    [][]string
	batches []int64
	err     error
	ev      Evidence
}

// readCSVWorkers opens path, sets the worker count (0: the serial read) and
// reads it to the end or to an error. It checks that no pipeline goroutine
// outlives the read, and that every Arrow buffer is released.
func readCSVWorkers(t *testing.T, path string, opts Options, workers int) csvRead {
	t.Helper()
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	opts.Allocator = mem
	src, err := Open(context.Background(), path, opts)
	if err != nil {
		return csvRead{err: err}
	}
	src.(*csvSource).workers = workers
	var r csvRead
	r.cols = make([][]string, src.Schema().NumFields())
	for {
		rec, err := src.Next(context.Background())
		if err != nil {
			if err != io.EOF {
				r.err = err
			}
			// The end is for good: the same error again.
			again, err2 := src.Next(context.Background())
			if again != nil || (err2 == io.EOF) != (err == io.EOF) || err2 == nil || err2.Error() != err.Error() {
				t.Fatalf("Next after %v: %v, %v", err, again, err2)
			}
			break
		}
		r.batches = append(r.batches, rec.NumRows())
		for c := range r.cols {
			r.cols[c] = appendCanon(t, r.cols[c], rec.Column(c))
		}
		rec.Release()
	}
	if n := pipeGoroutines(); n != 0 {
		t.Fatalf("%d pipeline goroutines run after the end of the read", n)
	}
	r.ev = src.Evidence()
	if err := src.Close(); err != nil {
		t.Fatal(err)
	}
	mem.AssertSize(t, 0)
	return r
}

// appendCanon appends a spelling of every value of a that differs exactly
// when the values' bits differ (floats by their bit patterns).
func appendCanon(t *testing.T, out []string, a arrow.Array) []string {
	t.Helper()
	for i := 0; i < a.Len(); i++ {
		if a.IsNull(i) {
			out = append(out, "null")
			continue
		}
		var s string
		switch a := a.(type) {
		case *array.Int8:
			s = strconv.FormatInt(int64(a.Value(i)), 10)
		case *array.Int64:
			s = strconv.FormatInt(a.Value(i), 10)
		case *array.Uint32:
			s = strconv.FormatUint(uint64(a.Value(i)), 10)
		case *array.Uint64:
			s = strconv.FormatUint(a.Value(i), 10)
		case *array.Float32:
			s = fmt.Sprintf("f32:%08x", math.Float32bits(a.Value(i)))
		case *array.Float64:
			s = fmt.Sprintf("f64:%016x", math.Float64bits(a.Value(i)))
		case *array.Boolean:
			s = strconv.FormatBool(a.Value(i))
		case *array.String:
			s = strconv.Quote(a.Value(i))
		case *array.Binary:
			s = hex.EncodeToString(a.Value(i))
		case *array.Decimal128:
			v := a.Value(i)
			s = fmt.Sprintf("d128:%x:%x", v.HighBits(), v.LowBits())
		case *array.Decimal256:
			s = fmt.Sprintf("d256:%x", a.Value(i).Array())
		case *array.Timestamp:
			s = strconv.FormatInt(int64(a.Value(i)), 10)
		default:
			t.Fatalf("no canonical spelling for %T", a)
		}
		out = append(out, s)
	}
	return out
}

// pipeGoroutines counts the stack frames of pipeline goroutines: functions
// of csvPipe run only on them. Their wait group ends after those functions
// return, so a stopped pipeline shows none, without waiting.
func pipeGoroutines() int {
	buf := make([]byte, 1<<22)
	n := runtime.Stack(buf, true)
	return strings.Count(string(buf[:n]), "source.(*csvPipe).")
}

var genTypes = []string{
	"int8", "int64", "uint32", "uint64", "float32", "float64", "bool", "text",
	"bytes(hex)", "bytes(base64)", "decimal(10,2)", "decimal(40,3)", "timestamp(us)", "timestamp(ms,UTC)",
}

// genValue returns the spelling of a valid value of type typ.
func genValue(r *rand.Rand, typ string) string {
	digits := func(n int) string {
		var b strings.Builder
		for range n {
			b.WriteByte(byte('0' + r.IntN(10)))
		}
		return b.String()
	}
	sign := func() string { return []string{"", "-", "+"}[r.IntN(3)] }
	switch typ {
	case "int8":
		return strconv.Itoa(r.IntN(256) - 128)
	case "int64":
		if r.IntN(4) == 0 {
			return strconv.FormatInt(int64(r.Uint64()), 10)
		}
		return sign() + digits(1+r.IntN(18))
	case "uint32":
		return strconv.FormatUint(uint64(r.Uint32()), 10)
	case "uint64":
		return strconv.FormatUint(r.Uint64(), 10)
	case "float32":
		return strconv.FormatFloat(float64(math.Float32frombits(r.Uint32()&0x7f7fffff)), 'g', -1, 32)
	case "float64":
		switch r.IntN(6) {
		case 0:
			return []string{"NaN", "Inf", "-Inf", "-0", "0", "1e300", "4.9e-324"}[r.IntN(7)]
		case 1:
			return sign() + digits(1+r.IntN(5)) + "." + digits(1+r.IntN(5)) + "e" + sign() + digits(1+r.IntN(2))
		}
		return strconv.FormatFloat(r.NormFloat64()*1e6, 'g', -1, 64)
	case "bool":
		return strconv.FormatBool(r.IntN(2) == 0)
	case "text":
		const alpha = "ab ,\"\n\r\x00é€"
		var b strings.Builder
		for range r.IntN(8) {
			i := r.IntN(len([]rune(alpha)))
			b.WriteRune([]rune(alpha)[i])
		}
		return b.String()
	case "bytes(hex)":
		b := make([]byte, r.IntN(6))
		for i := range b {
			b[i] = byte(r.IntN(256))
		}
		return hex.EncodeToString(b)
	case "bytes(base64)":
		b := make([]byte, r.IntN(6))
		for i := range b {
			b[i] = byte(r.IntN(256))
		}
		return base64.StdEncoding.EncodeToString(b)
	case "decimal(10,2)":
		s := sign() + digits(1+r.IntN(8))
		if r.IntN(2) == 0 {
			s += "." + digits(1+r.IntN(2))
		}
		return s
	case "decimal(40,3)":
		return sign() + digits(1+r.IntN(37)) + "." + digits(1+r.IntN(3))
	case "timestamp(us)":
		s := fmt.Sprintf("%04d-%02d-%02dT%02d:%02d:%02d", 1900+r.IntN(300), 1+r.IntN(12), 1+r.IntN(28), r.IntN(24), r.IntN(60), r.IntN(60))
		if r.IntN(2) == 0 {
			s += "." + digits(1+r.IntN(6))
		}
		return s
	case "timestamp(ms,UTC)":
		s := fmt.Sprintf("%04d-%02d-%02d %02d:%02d:%02d", 1970+r.IntN(100), 1+r.IntN(12), 1+r.IntN(28), r.IntN(24), r.IntN(60), r.IntN(60))
		if r.IntN(2) == 0 {
			s += "." + digits(1+r.IntN(3))
		}
		return s + []string{"Z", "+01:00", "-11:30"}[r.IntN(3)]
	}
	panic("genValue: " + typ)
}

// quote writes a field in CSV quotes, doubling the quotes inside.
func quote(s string) string { return `"` + strings.ReplaceAll(s, `"`, `""`) + `"` }

// genCSV returns a random CSV file and options to read it with: typed,
// inferred or text columns, nulls, invalid UTF-8, cells that do not parse,
// records with too few or too many fields, quoted fields with line breaks,
// bare quotes, empty lines, CRLF, runs of failing records, a record over
// MaxLineBytes.
func genCSV(r *rand.Rand) ([]byte, Options) {
	ncols := 1 + r.IntN(5)
	types := make([]string, ncols)
	var opts Options
	header := make([]string, ncols)
	for i := range types {
		types[i] = genTypes[r.IntN(len(genTypes))]
		header[i] = "c" + strconv.Itoa(i)
		opts.Columns = append(opts.Columns, Column{header[i], types[i]})
	}
	switch r.IntN(10) {
	case 0:
		opts.Columns, opts.Infer = nil, true
		for i := range types {
			types[i] = []string{"int64", "uint64", "bool", "text"}[r.IntN(4)]
		}
	case 1:
		opts.Columns = nil
	}
	if r.IntN(2) == 0 {
		null := []string{"NA", ""}[r.IntN(2)]
		opts.Null = &null
	}
	if ncols > 1 && r.IntN(5) == 0 {
		opts.Exclude = []string{header[r.IntN(ncols)]}
	}
	opts.BatchSize = []int{1, 2, 7, 64, 1000}[r.IntN(5)]
	opts.MaxFailureDetails = []int{0, 3, -1}[r.IntN(3)]
	if r.IntN(10) == 0 {
		opts.MaxLineBytes = 20 + r.IntN(60)
	}
	nl := "\n"
	if r.IntN(4) == 0 {
		nl = "\r\n"
	}
	rows := r.IntN(300)
	if r.IntN(8) == 0 {
		rows = 2000 + r.IntN(2000)
	}
	badFrom, badTo := -1, -1
	if r.IntN(4) == 0 {
		badFrom = r.IntN(rows + 1)
		badTo = badFrom + r.IntN(50)
	}
	var b strings.Builder
	b.WriteString(strings.Join(header, ",") + nl)
	for row := range rows {
		if r.IntN(50) == 0 {
			b.WriteString(nl) // an empty line
		}
		n := ncols
		if r.IntN(40) == 0 {
			n += []int{-1, 1}[r.IntN(2)] // wrong field count
		}
		for c := range n {
			if c > 0 {
				b.WriteByte(',')
			}
			typ := "text"
			if c < ncols {
				typ = types[c]
			}
			v := genValue(r, typ)
			switch k := r.IntN(100); {
			case row >= badFrom && row < badTo && c == 0:
				v = "\xff" // the run of failing records
			case k < 5 && opts.Null != nil:
				v = *opts.Null
			case k < 8:
				v = "a\xffb" // not UTF-8
			case k < 13:
				v = "?" // parses as no type but text
			case k < 15:
				v = "x\"y" // a bare quote: malformed record
			}
			if strings.ContainsAny(v, ",\"\r\n") && !strings.Contains(v, "x\"y") || (v != "" && r.IntN(10) == 0) {
				v = quote(v)
			}
			b.WriteString(v)
		}
		b.WriteString(nl)
	}
	if r.IntN(10) == 0 {
		b.WriteString(`"unterminated`)
	}
	return []byte(b.String()), opts
}

// TestCSVParallelDifferential reads random files serially and through the
// pipeline with 1 to 8 workers: the values, evidence and errors must be the
// same, and the pipeline's batches must hold 1 to BatchSize rows.
func TestCSVParallelDifferential(t *testing.T) {
	dir := t.TempDir()
	iters := 400
	if testing.Short() {
		// The fewest seeds (from 0) among which the generator reaches every case the
		// checks below require (a fatal error and a PW_SOURCE_LIMIT failure first
		// appear after seed 150).
		iters = 200
	}
	seen := map[Code]int{}
	var fatal, differ, multi int
	for i := range iters {
		r := rand.New(rand.NewPCG(uint64(i), 0x5eed))
		data, opts := genCSV(r)
		workers := []int{1, 2, 3, 8}[r.IntN(4)]
		p := filepath.Join(dir, fmt.Sprintf("r%d.csv", i))
		writeFile(t, dir, filepath.Base(p), data)
		want := readCSVWorkers(t, p, opts, 0)
		got := readCSVWorkers(t, p, opts, workers)
		compareReads(t, fmt.Sprintf("seed %d (workers %d, batch %d)", i, workers, opts.BatchSize), want, got, opts.BatchSize)
		for _, f := range want.ev.Coverage.Failures {
			seen[f.Code]++
		}
		if want.err != nil {
			fatal++
		}
		if !slices.Equal(got.batches, want.batches) {
			differ++
		}
		if len(got.batches) > 1 {
			multi++
		}
	}
	t.Logf("%d files: failures by code %v; fatal errors %d; batched otherwise in parallel %d; several batches %d", iters, seen, fatal, differ, multi)
	// The generator must reach what the comparison is about.
	for _, c := range []Code{CodeCSVRow, CodeUTF8, CodeType, CodeLimit} {
		if seen[c] == 0 {
			t.Errorf("no failure %s in %d files", c, iters)
		}
	}
	if fatal == 0 || differ == 0 || multi == 0 {
		t.Errorf("files with a fatal error %d, batched otherwise in parallel %d, with several batches %d: want each > 0", fatal, differ, multi)
	}
}

// TestCSVParallelUTF8Boundaries: the pipeline checks a batch's bytes for UTF-8 at once
// and its cells one by one only when that fails, so a batch whose only invalid cells
// are halves of one character cut by a record or a field boundary ("a\xc3" then
// "\xa9b": "é" if nothing lay between them) must still report them. Each file has one
// kind of cut and every other cell valid, so the batch check alone decides.
func TestCSVParallelUTF8Boundaries(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct{ name, cut string }{
		{"records", "x,a\xc3\n\xa9b,y\n"}, // last field of one record, first of the next
		{"fields", "a\xc3,\xa9b\n"},       // two fields of one record
	} {
		var b strings.Builder
		b.WriteString("k,v\n")
		for range 300 {
			b.WriteString(c.cut)
			b.WriteString("plain,text\n")
		}
		writeFile(t, dir, c.name+".csv", []byte(b.String()))
		p := filepath.Join(dir, c.name+".csv")
		opts := Options{BatchSize: 300}
		want := readCSVWorkers(t, p, opts, 0)
		if n := want.ev.Coverage.FailedRecords; n != 300*uint64(strings.Count(c.cut, "\n")) || want.ev.Coverage.Failures[0].Code != CodeUTF8 {
			t.Fatalf("%s: serial read: %d failed records (first %v), want one a record with half a character", c.name, n, want.ev.Coverage.Failures[0])
		}
		for _, w := range []int{1, 2} {
			got := readCSVWorkers(t, p, opts, w)
			compareReads(t, fmt.Sprintf("%s: workers %d", c.name, w), want, got, opts.BatchSize)
		}
	}
}

// TestCSVParallelAcrossReadBuffers: a file several times the parser's read
// buffer, quoted fields with escaped quotes and line breaks (the reader's
// copy field by field) among plain records (its copy of whole records).
func TestCSVParallelAcrossReadBuffers(t *testing.T) {
	var b strings.Builder
	b.WriteString("k,v,n\n")
	for i := 0; b.Len() < 3*csvBufSize; i++ {
		switch i % 5 {
		case 0:
			fmt.Fprintf(&b, "%d,\"q \"\"%d\"\"\nline\",%d\n", i, i, i)
		case 1:
			fmt.Fprintf(&b, "%d,\"%d\",x%d\n", i, i, i)
		case 2:
			fmt.Fprintf(&b, "%d,,%d\r\n", i, i)
		default:
			fmt.Fprintf(&b, "%d,plain %d,%d\n", i, i, i)
		}
	}
	p := writeFile(t, t.TempDir(), "big.csv", []byte(b.String()))
	opts := Options{Columns: []Column{{"k", "int64"}, {"v", "text"}, {"n", "int64"}}, BatchSize: 999}
	want := readCSVWorkers(t, p, opts, 0)
	got := readCSVWorkers(t, p, opts, 4)
	compareReads(t, "big", want, got, opts.BatchSize)
	// Records i = 0..n-1; those with i%5 == 1 fail (their n is not an
	// int64): (n+3)/5 of them.
	c := want.ev.Coverage
	if n := c.Returned + c.FailedRecords; n < 50000 || c.FailedRecords != (n+3)/5 {
		t.Fatalf("coverage %+v", c)
	}
}

func compareReads(t *testing.T, name string, want, got csvRead, batchSize int) {
	t.Helper()
	if (want.err == nil) != (got.err == nil) || (want.err != nil && want.err.Error() != got.err.Error()) {
		t.Fatalf("%s: error %v, serial %v", name, got.err, want.err)
	}
	if !reflect.DeepEqual(got.ev, want.ev) {
		t.Fatalf("%s: evidence\n%+v\nserial\n%+v", name, got.ev, want.ev)
	}
	if len(got.cols) != len(want.cols) {
		t.Fatalf("%s: %d columns, serial %d", name, len(got.cols), len(want.cols))
	}
	for c := range want.cols {
		if !slices.Equal(got.cols[c], want.cols[c]) {
			t.Fatalf("%s: column %d differs:\n%q\nserial\n%q", name, c, got.cols[c], want.cols[c])
		}
	}
	for _, n := range got.batches {
		if n < 1 || n > int64(batchSize) {
			t.Fatalf("%s: a batch of %d rows (BatchSize %d)", name, n, batchSize)
		}
	}
}

// TestCSVParallelBatches works a read through by hand: batches of 2
// records, a failed record leaves its batch one row short, a batch whose
// records all fail is skipped, the last one ends with the file.
func TestCSVParallelBatches(t *testing.T) {
	p := writeFile(t, t.TempDir(), "b.csv", []byte("a\n1\nx\n2\n3\ny\n\"z\"\n4\n"))
	opts := Options{Columns: []Column{{"a", "int64"}}, BatchSize: 2}
	got := readCSVWorkers(t, p, opts, 2)
	// Records by line: 2:1 3:x | 4:2 5:3 | 6:y 7:z | 8:4, EOF.
	if !slices.Equal(got.batches, []int64{1, 2, 1}) || !slices.Equal(got.cols[0], []string{"1", "2", "3", "4"}) {
		t.Fatalf("batches %v values %v", got.batches, got.cols[0])
	}
	serial := readCSVWorkers(t, p, opts, 0)
	if !slices.Equal(serial.batches, []int64{2, 2}) {
		t.Fatalf("serial batches %v", serial.batches)
	}
	c := got.ev.Coverage
	if c.Returned != 4 || c.Expected != 7 || c.Status != StatusPartial || len(c.Failures) != 3 ||
		c.Failures[0].Line != 3 || c.Failures[1].Line != 6 || c.Failures[2].Line != 7 {
		t.Fatalf("coverage %+v", c)
	}
}

// TestCSVParallelExisting runs the CSV tests again with every source read
// through the pipeline.
func TestCSVParallelExisting(t *testing.T) {
	defer func(n int) { csvForceWorkers = n }(csvForceWorkers)
	csvForceWorkers = 3
	for name, f := range map[string]func(*testing.T){
		"DefaultText": TestCSVDefaultText, "HeaderOnly": TestCSVHeaderOnly, "MalformedRows": TestCSVMalformedRows,
		"OpenErrors": TestCSVOpenErrors, "NullSpellingAndExclude": TestCSVNullSpellingAndExclude, "Infer": TestCSVInfer,
		"TypedVocabulary": TestCSVTypedVocabulary, "FailureDetailLimit": TestCSVFailureDetailLimit,
		"IncompleteRead": TestIncompleteRead, "UnterminatedQuoteIsBounded": TestCSVUnterminatedQuoteIsBounded,
		"AcrossReadBuffers": TestCSVAcrossReadBuffers, "LimitAfterGoodRecords": TestCSVLimitAfterGoodRecords,
		"TypedCellsMatchParseText": TestCSVTypedCellsMatchParseText,
	} {
		t.Run(name, f)
	}
	if n := pipeGoroutines(); n != 0 {
		t.Fatalf("%d pipeline goroutines left", n)
	}
}

// bigIntCSV writes a file of rows one-column int64 records, larger than
// the parser's read buffer when rows is large.
func bigIntCSV(t *testing.T, rows int) string {
	var b strings.Builder
	b.WriteString("a\n")
	for i := range rows {
		fmt.Fprintf(&b, "%d\n", 10000000+i)
	}
	return writeFile(t, t.TempDir(), "i.csv", []byte(b.String()))
}

func openWorkers(t *testing.T, p string, opts Options, workers int) (Source, *memory.CheckedAllocator) {
	t.Helper()
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	opts.Allocator = mem
	src, err := Open(context.Background(), p, opts)
	if err != nil {
		t.Fatal(err)
	}
	src.(*csvSource).workers = workers
	return src, mem
}

// TestCSVParallelCloseMidway: Close after one batch stops and waits for
// every goroutine, and releases the batches converted but not handed out.
func TestCSVParallelCloseMidway(t *testing.T) {
	p := bigIntCSV(t, 300000)
	src, mem := openWorkers(t, p, Options{Columns: []Column{{"a", "int64"}}, BatchSize: 1000}, 4)
	rec, err := src.Next(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if pipeGoroutines() == 0 {
		t.Fatal("no pipeline goroutines while reading")
	}
	if err := src.Close(); err != nil {
		t.Fatal(err)
	}
	if n := pipeGoroutines(); n != 0 {
		t.Fatalf("%d pipeline goroutines after Close", n)
	}
	if rec.NumRows() != 1000 || rec.Column(0).(*array.Int64).Value(999) != 10000999 {
		t.Fatalf("batch %v", rec)
	}
	rec.Release()
	mem.AssertSize(t, 0)
	if _, err := src.Next(context.Background()); CodeOf(err) != CodeIO {
		t.Fatalf("Next after Close: %v", err)
	}
}

// TestCSVParallelCancelMidway: a cancelled Next stops and waits for every
// goroutine before it returns; later calls return the same error.
func TestCSVParallelCancelMidway(t *testing.T) {
	p := bigIntCSV(t, 300000)
	src, mem := openWorkers(t, p, Options{Columns: []Column{{"a", "int64"}}, BatchSize: 1000}, 4)
	defer src.Close()
	rec, err := src.Next(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	rec.Release()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := src.Next(ctx); CodeOf(err) != CodeIncomplete {
		t.Fatalf("cancelled Next: %v", err)
	}
	if n := pipeGoroutines(); n != 0 {
		t.Fatalf("%d pipeline goroutines after a cancelled Next", n)
	}
	mem.AssertSize(t, 0)
	if _, err := src.Next(context.Background()); CodeOf(err) != CodeIncomplete {
		t.Fatalf("Next after cancellation: %v", err)
	}
	if c := src.Evidence().Coverage; c.Returned != 1000 || c.Status != StatusPartial || c.Failures[0].Code != CodeIncomplete {
		t.Fatalf("coverage %+v", c)
	}
}

// gateReader blocks its first Read until gate is closed, after telling
// entered.
type gateReader struct {
	r       io.Reader
	entered chan struct{}
	gate    chan struct{}
}

func (g *gateReader) Read(b []byte) (int, error) {
	if g.entered != nil {
		close(g.entered)
		g.entered = nil
		<-g.gate
	}
	return g.r.Read(b)
}

// TestCSVParallelCancelWhileWaiting cancels a Next that waits for a batch
// the reader cannot finish yet: Next returns the cancellation, after the
// reader (held in a read meanwhile) has stopped too.
func TestCSVParallelCancelWhileWaiting(t *testing.T) {
	p := bigIntCSV(t, 300000) // 2.7 MB: the first batch needs reads after Open's
	src, mem := openWorkers(t, p, Options{Columns: []Column{{"a", "int64"}}, BatchSize: 1 << 20}, 2)
	defer src.Close()
	cs := src.(*csvSource)
	g := &gateReader{r: cs.p.r, entered: make(chan struct{}), gate: make(chan struct{})}
	entered := g.entered
	cs.p.r = g
	ctx, cancel := context.WithCancel(context.Background())
	type result struct {
		rec arrow.RecordBatch
		err error
	}
	done := make(chan result)
	go func() {
		rec, err := src.Next(ctx)
		done <- result{rec, err}
	}()
	<-entered // the pipeline runs: Next waits for the first batch
	cancel()
	close(g.gate)
	res := <-done
	if res.rec != nil || CodeOf(res.err) != CodeIncomplete {
		t.Fatalf("Next = %v, %v; want the cancellation", res.rec, res.err)
	}
	if n := pipeGoroutines(); n != 0 {
		t.Fatalf("%d pipeline goroutines after a cancelled Next", n)
	}
	mem.AssertSize(t, 0)
}

// TestCSVParallelCancelReadyBatch cancels a Next that has taken a batch
// already converted: Next returns the cancellation, not the batch, and the
// batch is released.
func TestCSVParallelCancelReadyBatch(t *testing.T) {
	p := bigIntCSV(t, 300000)
	src, mem := openWorkers(t, p, Options{Columns: []Column{{"a", "int64"}}, BatchSize: 1000}, 3)
	defer src.Close()
	ctx, cancel := context.WithCancel(context.Background())
	defer func() { csvHookTaken = nil }()
	taken := 0
	csvHookTaken = func(j *csvJob) {
		taken++
		<-j.done
		if j.rec == nil {
			t.Errorf("job taken without a batch")
		}
		cancel()
	}
	if rec, err := src.Next(ctx); rec != nil || CodeOf(err) != CodeIncomplete {
		t.Fatalf("Next = %v, %v; want the cancellation", rec, err)
	}
	if taken != 1 {
		t.Fatalf("Next took %d jobs", taken)
	}
	if n := pipeGoroutines(); n != 0 {
		t.Fatalf("%d pipeline goroutines after a cancelled Next", n)
	}
	mem.AssertSize(t, 0)
	if c := src.Evidence().Coverage; c.Returned != 0 || c.Status != StatusPartial {
		t.Fatalf("coverage %+v", c)
	}
}

// FuzzCSVParallelDifferential reads any bytes serially and through the
// pipeline (the batch size and worker count fuzzed too) and requires the same
// values, evidence and errors. The goroutines make coverage vary from run to
// run, so the fuzzer finds "new" inputs all the time and would spend its
// time minimizing them: minimization is bounded to one run unless the command
// line sets -fuzzminimizetime.
func FuzzCSVParallelDifferential(f *testing.F) {
	boundMinimization(f, "1x")
	for i := range 20 {
		data, _ := genCSV(rand.New(rand.NewPCG(uint64(i), 0x5eed)))
		f.Add(data, uint8(i), uint8(i))
	}
	f.Add([]byte("a,b\n1,x\n\n2\n\"q\"\"\",\"\n\"\n3,\xff\n"), uint8(2), uint8(1))
	null := "NULL"
	f.Fuzz(func(t *testing.T, data []byte, mode, size uint8) {
		if len(data) > 4*maxFuzzInput { // its seeds of several batches reach 110 KB
			t.Skipf("input of %d bytes, over this target's bound of %d", len(data), 4*maxFuzzInput)
		}
		opts := Options{BatchSize: 1 + int(size%9), MaxLineBytes: 1 << 10}
		switch mode % 4 {
		case 1:
			opts.Infer, opts.Null = true, &null
		case 2:
			opts.Columns = []Column{{"a", "int64"}, {"b", "timestamp(us)"}}
		case 3:
			opts.Columns = []Column{{"a", "float64"}, {"b", "text"}}
			opts.Null = &null
		}
		p := writeFile(t, t.TempDir(), "f.csv", data)
		want := readCSVWorkers(t, p, opts, 0)
		got := readCSVWorkers(t, p, opts, 1+int(mode/4)%4)
		compareReads(t, "fuzz", want, got, opts.BatchSize)
	})
}
