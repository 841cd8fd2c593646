package source

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/pipewhy/pipewhy/internal/decimaltext"
)

// jsonForms writes the same records as JSON lines and as a top-level JSON array, so that
// every case runs through both adapters.
func jsonForms(t *testing.T, records ...string) map[string]string {
	t.Helper()
	dir := t.TempDir()
	return map[string]string{
		"jsonl": writeFile(t, dir, "r.jsonl", []byte(strings.Join(records, "\n")+"\n")),
		"json":  writeFile(t, dir, "r.json", []byte("[\n"+strings.Join(records, ",\n")+"\n]\n")),
	}
}

// cellStrings renders a column: decimals at their scale, text and number literals as is,
// null as "null".
func cellStrings(t *testing.T, a arrow.Array) []string {
	t.Helper()
	out := make([]string, a.Len())
	for i := range out {
		if a.IsNull(i) {
			out[i] = "null"
			continue
		}
		switch c := a.(type) {
		case *array.Decimal128:
			out[i] = c.Value(i).ToString(c.DataType().(*arrow.Decimal128Type).Scale)
		case *array.Decimal256:
			out[i] = c.Value(i).ToString(c.DataType().(*arrow.Decimal256Type).Scale)
		case *array.String:
			out[i] = c.Value(i)
		case *decimaltext.Array:
			out[i] = c.Storage().(*array.String).Value(i)
		case *array.Int64:
			out[i] = strconv.FormatInt(c.Value(i), 10)
		case *array.Uint64:
			out[i] = strconv.FormatUint(c.Value(i), 10)
		case *array.Boolean:
			out[i] = strconv.FormatBool(c.Value(i))
		default:
			t.Fatalf("no rendering for %T", a)
		}
	}
	return out
}

// Inference keeps every value exact. The expected types and values are worked out by hand
// from the rules in doc.go: a column of numbers that are not all int64 or all uint64 holds
// each literal as written (arrow decimal_text, source type "number"), whatever the other
// rows hold.
func TestJSONInferExactTypes(t *testing.T) {
	cases := []struct {
		name    string
		records []string
		typ     string
		values  []string
		literal bool // recorded as mixed-as-text
	}{
		{"integers and fractions", []string{`{"a":7}`, `{"a":6.1}`, `{"a":null}`}, "number", []string{"7", "6.1", "null"}, false},
		{"fractions only", []string{`{"a":0.1}`, `{"a":1e-3}`}, "number", []string{"0.1", "1e-3"}, false},
		{"exponents", []string{`{"a":1e-3}`, `{"a":2.5E+2}`, `{"a":-0}`, `{"a":-0.0}`}, "number", []string{"1e-3", "2.5E+2", "-0", "-0.0"}, false},
		// Trailing zeros written in a literal stay in it, and in it only: 12 stays 12.
		{"trailing zeros", []string{`{"a":1.50}`, `{"a":12}`}, "number", []string{"1.50", "12"}, false},
		{"negative and beyond int64", []string{`{"a":-1}`, `{"a":18446744073709551615}`}, "number", []string{"-1", "18446744073709551615"}, false},
		{"beyond uint64", []string{`{"a":18446744073709551616}`}, "number", []string{"18446744073709551616"}, false},
		// More digits than decimal256 holds: exact all the same.
		{"77 digits", []string{`{"a":` + strings.Repeat("9", 77) + `}`, `{"a":0.5}`}, "number", []string{strings.Repeat("9", 77), "0.5"}, false},
		{"exponent at the bound", []string{`{"a":1e1048576}`, `{"a":-1E-1048576}`}, "number", []string{"1e1048576", "-1E-1048576"}, false},
		{"int64", []string{`{"a":-9223372036854775808}`, `{"a":1}`}, "int64", []string{"-9223372036854775808", "1"}, false},
		{"uint64", []string{`{"a":18446744073709551615}`, `{"a":0}`}, "uint64", []string{"18446744073709551615", "0"}, false},
		// A title column holding a number beside strings: text, the literal exactly.
		{"strings and numbers", []string{`{"a":"Jaws"}`, `{"a":1776}`, `{"a":null}`, `{"a":6.10e0}`}, "text", []string{"Jaws", "1776", "null", "6.10e0"}, true},
		{"strings and booleans", []string{`{"a":"yes"}`, `{"a":true}`, `{"a":false}`}, "text", []string{"yes", "true", "false"}, true},
		{"strings", []string{`{"a":"1776"}`, `{"a":""}`}, "text", []string{"1776", ""}, false},
		{"only nulls", []string{`{"a":null}`}, "text", []string{"null"}, false},
		{"booleans", []string{`{"a":true}`, `{"a":null}`}, "bool", []string{"true", "null"}, false},
	}
	for _, c := range cases {
		for form, path := range jsonForms(t, c.records...) {
			t.Run(c.name+"/"+form, func(t *testing.T) {
				sc, cols, ev := openRead(t, path, Options{})
				if got := sc.Field(0).Metadata.Values()[0]; got != c.typ {
					t.Fatalf("type %s, want %s", got, c.typ)
				}
				if got := cellStrings(t, cols[0]); strings.Join(got, "|") != strings.Join(c.values, "|") {
					t.Errorf("values %q, want %q", got, c.values)
				}
				if ev.Coverage.Status != StatusComplete || ev.Adapter != Kind(form) {
					t.Errorf("coverage %+v adapter %s", ev.Coverage, ev.Adapter)
				}
				mixed := false
				for _, ch := range ev.Choices {
					mixed = mixed || ch == `mixed-as-text="a"`
				}
				if mixed != c.literal {
					t.Errorf("choices %q: mixed-as-text recorded %v, want %v", ev.Choices, mixed, c.literal)
				}
			})
		}
	}
}

func TestJSONInferRejects(t *testing.T) {
	cases := []struct {
		name    string
		records []string
		code    Code
	}{
		{"nested object", []string{`{"a":{"b":1}}`}, CodeUnsupported},
		{"nested array", []string{`{"a":[1]}`, `{"a":"x"}`}, CodeUnsupported},
		{"booleans and numbers", []string{`{"a":true}`, `{"a":1}`}, CodeType},
		{"huge exponent", []string{`{"a":1e99999999999}`}, CodeType},
		{"exponent beyond the bound", []string{`{"a":1.5}`, `{"a":1e1048577}`}, CodeType},
		{"negative exponent beyond the bound", []string{`{"a":1.5}`, `{"a":1e-1048577}`}, CodeType},
	}
	for _, c := range cases {
		for form, path := range jsonForms(t, c.records...) {
			t.Run(c.name+"/"+form, func(t *testing.T) {
				_, err := Open(context.Background(), path, Options{})
				if CodeOf(err) != c.code || !strings.Contains(err.Error(), `column "a"`) {
					t.Fatalf("error %v, want %s naming the column", err, c.code)
				}
			})
		}
	}
}

// Exclude applies before inference: a column that cannot be typed can be left out, and it
// is recorded as excluded; an excluded name that no record has is still an error.
func TestJSONExcludeBeforeInference(t *testing.T) {
	for form, path := range jsonForms(t, `{"id":1,"n":{"x":1},"m":true}`, `{"id":2,"n":[2],"m":3}`) {
		t.Run(form, func(t *testing.T) {
			if _, err := Open(context.Background(), path, Options{}); CodeOf(err) != CodeUnsupported {
				t.Fatalf("without Exclude: %v", err)
			}
			sc, cols, ev := openRead(t, path, Options{Exclude: []string{"n", "m"}})
			if sc.NumFields() != 1 || sc.Field(0).Name != "id" || cols[0].Len() != 2 {
				t.Fatalf("schema %v", sc)
			}
			if ev.Coverage.Status != StatusComplete || strings.Join(ev.Excluded, ",") != "n,m" {
				t.Errorf("coverage %+v excluded %v", ev.Coverage, ev.Excluded)
			}
			if _, err := Open(context.Background(), path, Options{Exclude: []string{"zz"}}); CodeOf(err) != CodeNotFound {
				t.Errorf("unknown excluded column: %v", err)
			}
		})
	}
}

// JSON numbers feed explicit decimal columns exactly, exponents included.
func TestParseJSONDecimal(t *testing.T) {
	cases := []struct {
		typ, lit, want string // want "" means a PW_SOURCE_TYPE failure
	}{
		{"decimal(4,2)", "1e1", "10.00"},
		{"decimal(4,2)", "-0.50", "-0.50"},
		{"decimal(4,2)", "5e-2", "0.05"},
		{"decimal(4,2)", "1.2300", "1.23"},
		{"decimal(4,2)", "0.000", "0.00"},
		{"decimal(4,2)", "0e99", "0.00"},
		{"decimal(4,2)", "99.99", "99.99"},
		{"decimal(4,2)", "5e-3", ""},
		{"decimal(4,2)", "1.234", ""},
		{"decimal(4,2)", "100", ""},
		{"decimal(4,2)", "1e2", ""},
		{"decimal(2,0)", "1e99999999", ""},
		{"decimal(40,0)", "1e39", "1" + strings.Repeat("0", 39)},
		{"decimal(40,0)", "1e40", ""},
		{"decimal(38,0)", "-" + strings.Repeat("9", 38), "-" + strings.Repeat("9", 38)},
		{"decimal(38,19)", "1234567890123456789e-19", "0.1234567890123456789"},
		{"decimal(38,19)", "1234567890123456789.5e-19", ""}, // 20 fraction digits
		{"decimal(76,0)", strings.Repeat("9", 76), strings.Repeat("9", 76)},
	}
	for _, c := range cases {
		ct, ok := parseType(c.typ)
		if !ok {
			t.Fatal(c.typ)
		}
		var cl cell
		code, _ := ct.parseJSONDecimal([]byte(c.lit), &cl)
		if c.want == "" {
			if code != CodeType {
				t.Errorf("%s %s: code %q, want PW_SOURCE_TYPE", c.typ, c.lit, code)
			}
			continue
		}
		got := cl.d128.ToString(ct.scale)
		if ct.prec > 38 {
			got = cl.d256.ToString(ct.scale)
		}
		if code != "" || got != c.want {
			t.Errorf("%s %s: %q %q, want %s", c.typ, c.lit, code, got, c.want)
		}
	}
}

// The structure of a JSON array: malformed, truncated or non-array documents fail Open
// (the inference pass reads them first) with a stable code and the line.
func TestJSONArrayStructure(t *testing.T) {
	cases := []struct {
		name, doc string
		code      Code
		line      string
	}{
		{"empty", "", CodeCorrupt, "line 1"},
		{"object", `{"a":1}`, CodeUnsupported, "line 1"},
		{"number", "\n 7", CodeUnsupported, "line 2"},
		{"not closed", "[", CodeCorrupt, "line 1"},
		{"not closed after element", "[{\"a\":1}\n", CodeCorrupt, "line 2"},
		{"comma before ]", `[{"a":1},]`, CodeCorrupt, "line 1"},
		{"missing comma", "[{\"a\":1}\n{\"a\":2}]", CodeCorrupt, "line 2"},
		{"empty element", `[,{"a":1}]`, CodeCorrupt, "line 1"},
		{"two commas", `[{"a":1},,{"a":2}]`, CodeCorrupt, "line 1"},
		{"text after", "[{\"a\":1}]\n\nx", CodeCorrupt, "line 3"},
		{"second array", `[{"a":1}][]`, CodeCorrupt, "line 1"},
		{"ends in a string", `[{"a":"x\"}]`, CodeCorrupt, "line 1"},
		{"brace closes array", `[{"a":1}}`, CodeCorrupt, "line 1"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := writeFile(t, t.TempDir(), "s.json", []byte(c.doc))
			_, err := Open(context.Background(), p, Options{})
			if CodeOf(err) != c.code || !strings.Contains(err.Error(), c.line+": ") {
				t.Fatalf("error %v, want %s at %s", err, c.code, c.line)
			}
		})
	}
	for _, doc := range []string{"[]", " \n[ ]\n\n", "[\n]"} {
		p := writeFile(t, t.TempDir(), "e.json", []byte(doc))
		sc, _, ev := openRead(t, p, Options{})
		if sc.NumFields() != 0 || ev.Coverage.Status != StatusComplete || ev.Coverage.Expected != 0 {
			t.Errorf("%q: schema %v coverage %+v", doc, sc, ev.Coverage)
		}
	}
}

// With an explicit schema there is no first pass: the read returns the elements before a
// structural error, then stops with it (PARTIAL, the line of the break).
func TestJSONArrayStopsAtBrokenStructure(t *testing.T) {
	doc := "[\n{\"id\":1},\n{\"id\":2}\n{\"id\":3}\n]"
	p := writeFile(t, t.TempDir(), "b.json", []byte(doc))
	src, err := Open(context.Background(), p, Options{Columns: []Column{{"id", "int64"}}})
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	rows := 0
	for {
		b, err := src.Next(context.Background())
		if err != nil {
			if CodeOf(err) != CodeCorrupt || !strings.Contains(err.Error(), "line 4: ") {
				t.Fatalf("Next: %v, want PW_SOURCE_CORRUPT at line 4", err)
			}
			break
		}
		rows += int(b.NumRows())
		b.Release()
	}
	ev := src.Evidence()
	if rows != 2 || ev.Coverage.Status != StatusPartial || ev.Coverage.Returned != 2 {
		t.Fatalf("rows %d coverage %+v", rows, ev.Coverage)
	}
	checkFailures(t, ev, []wantFailure{{CodeCorrupt, 4, ""}}, "")
}

// An element that is not a flat object fails alone, at the line it starts on, and the
// read goes on; the detail names the element's position.
func TestJSONArrayElementFailures(t *testing.T) {
	doc := `[
  {"id":1,"s":"a"},
  2,
  {"id":3,"s":"c","id":4},
  {"id":5,
   "s":"\ud800"},
  [1,
   2],
  "x,]",
  {"id":6,"s":"` + strings.Repeat("y", 100) + `"},
  {"id":7,"s":"[{,"}
]`
	p := writeFile(t, t.TempDir(), "f.json", []byte(doc))
	_, cols, ev := openRead(t, p, Options{Columns: []Column{{"id", "int64"}, {"s", "text"}}, MaxLineBytes: 80})
	if got := cellStrings(t, cols[0]); strings.Join(got, ",") != "1,7" {
		t.Fatalf("ids %v, want 1,7", got)
	}
	if got := cellStrings(t, cols[1]); got[1] != "[{," {
		t.Errorf("text with brackets %q", got[1])
	}
	checkFailures(t, ev, []wantFailure{
		{CodeJSONLine, 3, ""}, {CodeDuplicate, 4, "id"}, {CodeUTF8, 5, ""}, {CodeJSONLine, 7, ""},
		{CodeJSONLine, 9, ""}, {CodeLimit, 10, ""},
	}, "")
	if c := ev.Coverage; c.Status != StatusPartial || c.Expected != 8 || c.Returned != 2 {
		t.Fatalf("coverage %+v", c)
	}
	if f := ev.Coverage.Failures[0].String(); f != "PW_SOURCE_JSON_LINE line 3: array element 2: not a JSON object" {
		t.Errorf("failure %q", f)
	}
}

// endless yields "[" and then {"a":1}, forever, counting the bytes read.
type endless struct {
	n    int64
	rest []byte
}

func (e *endless) Read(p []byte) (int, error) {
	if e.n == 0 {
		e.rest = []byte("[")
	}
	w := 0
	for w < len(p) {
		if len(e.rest) == 0 {
			e.rest = []byte(`{"a":1},`)
		}
		k := copy(p[w:], e.rest)
		e.rest, w = e.rest[k:], w+k
	}
	e.n += int64(w)
	return w, nil
}

// The array scanner streams: it returns elements of an array that never ends having read
// one 64 KiB buffer ahead, never the document.
func TestArrayScannerStreams(t *testing.T) {
	src := &endless{}
	a := newArrayScanner(src, 1<<10)
	for i := 0; i < 100_000; i++ { // 800 KB of elements
		rec, tooLong, ok, err := a.next()
		if err != nil || !ok || tooLong || string(rec) != `{"a":1}` {
			t.Fatalf("element %d: %q %v %v %v", i, rec, tooLong, ok, err)
		}
		if src.n > int64(i)*8+2<<16 {
			t.Fatalf("after %d elements the scanner had read %d bytes", i+1, src.n)
		}
	}
}

// Reading a large JSON array holds a bounded amount of memory: the live heap after each
// batch stays far below the file's size.
func TestJSONArrayBoundedMemory(t *testing.T) {
	p := writeFile(t, t.TempDir(), "big.json", nil)
	f, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	w := bufio.NewWriter(f)
	w.WriteString("[")
	const n = 300_000 // about 33 MB
	for i := 0; i < n; i++ {
		if i > 0 {
			w.WriteString(",\n")
		}
		fmt.Fprintf(w, `{"id":%d,"name":"name number %d with some padding text","score":%d.25,"ok":true}`, i, i, i%1000)
	}
	w.WriteString("]\n")
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	size, _ := f.Seek(0, io.SeekEnd)
	f.Close()
	src, err := Open(context.Background(), p, Options{BatchSize: 4096})
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	var peak uint64
	var ms runtime.MemStats
	rows := 0
	for {
		b, err := src.Next(context.Background())
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		rows += int(b.NumRows())
		b.Release()
		runtime.GC()
		runtime.ReadMemStats(&ms)
		peak = max(peak, ms.HeapAlloc)
	}
	if rows != n || src.Evidence().Coverage.Status != StatusComplete {
		t.Fatalf("rows %d coverage %+v", rows, src.Evidence().Coverage)
	}
	if peak > uint64(size)/4 {
		t.Errorf("live heap reached %d bytes reading a %d-byte file", peak, size)
	}
	t.Logf("file %d bytes, live heap after each batch at most %d bytes", size, peak)
}

// The real movies slice (testdata/vega): the title column keeps each number's literal
// beside the strings, and the rating column's integers and fractions are each exact as
// written (7 stays 7 beside 6.1). The expected values are the file's, read with Python's
// json module (parse_float=Decimal: 6.1 is Decimal('6.1'), 7 is 7).
func TestJSONRealMovieValues(t *testing.T) {
	sc, cols, ev := openRead(t, "testdata/vega/movies-slice.json", Options{})
	if ev.Coverage.Status != StatusComplete || ev.Coverage.Expected != 17 {
		t.Fatalf("coverage %+v", ev.Coverage)
	}
	col := func(name string) []string {
		i := sc.FieldIndices(name)
		if len(i) != 1 {
			t.Fatalf("no column %q", name)
		}
		return cellStrings(t, cols[i[0]])
	}
	titles := []string{"The Land Girls", "First Love, Last Rites", "I Married a Strange Person", "Let's Talk About Sex",
		"Duel in the Sun", "Tom Jones", "Wilson", "1776", "1941", "1408", "2012", "2046", "21", "300", "9", "54", "null"}
	if got := col("Title"); strings.Join(got, "|") != strings.Join(titles, "|") {
		t.Errorf("Title %q", got)
	}
	ratings := []string{"6.1", "6.9", "6.8", "null", "7", "7", "7", "7", "5.6", "6.9", "6.2", "7.5", "6.7", "7.8", "7.8", "5.6", "6.6"}
	if got := col("IMDB Rating"); strings.Join(got, "|") != strings.Join(ratings, "|") {
		t.Errorf("IMDB Rating %q", got)
	}
}

// A number column (inferred) takes JSON numbers only, each its literal as written; the
// file is checked unchanged between inference and read, so these arise only from a
// changed file, and each fails its record with PW_SOURCE_TYPE.
func TestJSONNumberColumnConvert(t *testing.T) {
	var s jsonlSource
	col := csvCol{keep: true, typ: numberType}
	for _, c := range []struct {
		v    jval
		code Code
		text string
	}{
		{jval{kind: jNumber, raw: []byte("1.50")}, "", "1.50"},
		{jval{kind: jNumber, raw: []byte("-0.0e-1048576")}, "", "-0.0e-1048576"},
		{jval{kind: jNumber, raw: []byte("2E+1048577")}, CodeType, ""},
		{jval{kind: jString, raw: []byte("1.5")}, CodeType, ""},
		{jval{kind: jBool, b: true}, CodeType, ""},
		{jval{kind: jNested}, CodeUnsupported, ""},
	} {
		var cl cell
		code, detail := s.convert(&col, false, &c.v, &cl)
		if code != c.code || string(cl.tb) != c.text || strings.Contains(detail, "1.5") {
			t.Errorf("%s %q: code %q %q, text %q; want %q %q", [...]string{"", "string", "number", "bool", "null", "nested"}[c.v.kind], c.v.raw, code, detail, cl.tb, c.code, c.text)
		}
	}
	var cl cell
	if code, _ := s.convert(&col, false, &jval{kind: jNull}, &cl); code != "" || !cl.null {
		t.Errorf("null: %q %+v", code, cl)
	}
}
