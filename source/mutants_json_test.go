package source

import (
	"bufio"
	"context"
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// Tests for the mutants that lived in the JSON reader (issue 22): the JSON array splitter
// and the object parser at the end of their input, element and line length limits, JSON
// number boundaries of integer and decimal columns, inference's int64/uint64 preference
// and Close. Expected values are worked out by hand from doc.go ("JSON lines and JSON
// arrays", "Type mapping", "Type vocabulary") and RFC 8259.

// scanned is what one arrayScanner.next call returned.
type scanned struct {
	rec     string
	tooLong bool
}

// scanArray runs an arrayScanner over doc to its end and returns the records and the
// error that ended it (nil at a clean end).
func scanArray(t *testing.T, doc string, max int) ([]scanned, error) {
	t.Helper()
	a := newArrayScanner(strings.NewReader(doc), max)
	var out []scanned
	for range 100 {
		rec, tooLong, ok, err := a.next()
		if err != nil {
			return out, err
		}
		if !ok {
			return out, nil
		}
		out = append(out, scanned{string(rec), tooLong})
	}
	t.Fatalf("%q: no end after 100 records", doc)
	return nil, nil
}

// TestArrayScannerEndOfInput: where a JSON array document ends decides the records and
// the structural error. A scalar element at the very end (no ']') is still returned as a
// record (it fails later, alone, as "not a JSON object"), and then the array is "not
// closed"; the input ending inside an object, an array or a string ends "inside an
// element" with no record for it.
func TestArrayScannerEndOfInput(t *testing.T) {
	cases := []struct {
		doc    string
		recs   []scanned
		line   uint64
		detail string // "" for a clean end
	}{
		{`[{"a":1},2`, []scanned{{`{"a":1}`, false}, {"2", false}}, 1, "the JSON array is not closed"},
		{"[\n7", []scanned{{"7", false}}, 2, "the JSON array is not closed"},
		{`[true`, []scanned{{"true", false}}, 1, "the JSON array is not closed"},
		{`[{"a":1},{"a":2`, []scanned{{`{"a":1}`, false}}, 1, "the JSON array ends inside an element"},
		{"[\n[1,\n2", nil, 3, "the JSON array ends inside an element"},
		{`[{"a":1},"x`, []scanned{{`{"a":1}`, false}}, 1, "the JSON array ends inside an element"},
		{`["x\"]`, nil, 1, "the JSON array ends inside an element"},
		{`[{"a":1},2]`, []scanned{{`{"a":1}`, false}, {"2", false}}, 0, ""},
	}
	for _, c := range cases {
		recs, err := scanArray(t, c.doc, 1<<10)
		if len(recs) != len(c.recs) || (len(recs) > 0 && !equalScanned(recs, c.recs)) {
			t.Errorf("%q: records %v, want %v", c.doc, recs, c.recs)
		}
		if c.detail == "" {
			if err != nil {
				t.Errorf("%q: %v, want a clean end", c.doc, err)
			}
			continue
		}
		var se *structureError
		if !errors.As(err, &se) || se.code != CodeCorrupt || se.line != c.line || se.detail != c.detail {
			t.Errorf("%q: error %v, want %s line %d: %s", c.doc, err, CodeCorrupt, c.line, c.detail)
		}
	}
}

func equalScanned(a, b []scanned) bool {
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// TestArrayElementLengthLimit: an element of exactly MaxLineBytes bytes is read; one byte
// more is reported tooLong (and kept out of memory), for an object and for a scalar, and
// the element after it is read again.
func TestArrayElementLengthLimit(t *testing.T) {
	obj := `{"a":"xyz"}` // 11 bytes
	for _, c := range []struct {
		max     int
		tooLong bool
	}{{len(obj), false}, {len(obj) - 1, true}, {len(obj) + 1, false}} {
		recs, err := scanArray(t, "["+obj+", 12345678901]", c.max)
		if err != nil {
			t.Fatalf("max %d: %v", c.max, err)
		}
		want := []scanned{{obj, false}, {"12345678901", false}}
		if c.tooLong {
			want = []scanned{{"", true}, {"", true}}
		}
		if len(recs) != 2 || !equalScanned(recs, want) {
			t.Errorf("max %d: records %v, want %v", c.max, recs, want)
		}
	}
}

// TestJSONLTruncatedLines: a line that ends inside a member name, a value, a number, a
// string or right after a backslash fails alone as PW_SOURCE_JSON_LINE at its line (never
// a panic), and the lines around it are read.
func TestJSONLTruncatedLines(t *testing.T) {
	for _, line := range []string{
		`{`, `{"id"`, `{"id":`, `{"id":1`, `{"id":-`, `{"id":1.`, `{"id":1e`, `{"id":1e+`,
		`{"id":1,"s":"abc`, `{"id":1,"s":"ab\`, `{"id":1,"s":"\u00`, `{"id":1,"s":[1,`,
		`{"id":1,"s":t`, `{"id":1,"s":"a"`, `{"id":1,"s":"a",`,
	} {
		t.Run(line, func(t *testing.T) {
			data := "{\"id\":1,\"s\":\"a\"}\n" + line + "\n{\"id\":3,\"s\":\"c\"}\n"
			p := writeFile(t, t.TempDir(), "t.jsonl", []byte(data))
			_, cols, ev := openRead(t, p, Options{Columns: []Column{{"id", "int64"}, {"s", "text"}}})
			if got := strings.Join(cellStrings(t, cols[0]), ","); got != "1,3" {
				t.Errorf("ids %s, want 1,3", got)
			}
			checkFailures(t, ev, []wantFailure{{CodeJSONLine, 2, ""}}, "")
		})
	}
}

// TestJSONDecimalAtPrecision38: decimal(38,S) is decimal128 and decimal(39,S) decimal256
// (doc.go: P<=38 decimal128); a JSON number of few digits lands in the right one at both
// precisions, exactly at the column's scale.
func TestJSONDecimalAtPrecision38(t *testing.T) {
	for _, typ := range []string{"decimal(38,2)", "decimal(39,2)", "decimal(37,2)"} {
		p := writeFile(t, t.TempDir(), "d.jsonl", []byte("{\"d\":1.5}\n{\"d\":-42}\n{\"d\":7e-2}\n"))
		_, cols, _ := openRead(t, p, Options{Columns: []Column{{"d", typ}}})
		if got := strings.Join(cellStrings(t, cols[0]), ","); got != "1.50,-42.00,0.07" {
			t.Errorf("%s: %s, want 1.50,-42.00,0.07", typ, got)
		}
	}
}

// TestJSONCloseReleases: Close releases the Arrow builders (a checked allocator ends at
// zero bytes) and closes the file; a second Close is a no-op.
func TestJSONCloseReleases(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	for name, p := range jsonForms(t, `{"a":1,"s":"x"}`, `{"a":2,"s":"y"}`) {
		src, err := Open(context.Background(), p, Options{Allocator: mem})
		if err != nil {
			t.Fatal(err)
		}
		rec, err := src.Next(context.Background())
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		rec.Release()
		f := src.(*jsonlSource).f
		if err := src.Close(); err != nil {
			t.Fatalf("%s: Close: %v", name, err)
		}
		if err := f.Close(); !errors.Is(err, os.ErrClosed) {
			t.Errorf("%s: the file is still open after Close (closing it again: %v)", name, err)
		}
		if err := src.Close(); err != nil {
			t.Errorf("%s: second Close: %v", name, err)
		}
	}
}

// TestJSONParseTruncatedDetail: the diagnosis of a line cut inside a string is
// "unterminated string", also when the cut falls right after a complete \u escape or a
// backslash; a \u escape with fewer than four hex digits before a quote is "invalid \u
// escape".
func TestJSONParseTruncatedDetail(t *testing.T) {
	for _, c := range []struct{ line, detail string }{
		{`{"s":"\u0041`, "unterminated string"},
		{`{"s":"ab\u00e9`, "unterminated string"},
		{`{"s":"ab\`, "unterminated string"},
		{`{"s":"ab`, "unterminated string"},
		{`{"s":"\u004"}`, `invalid \u escape`},
		{`{"s":"\u00"}`, `invalid \u escape`},
		{`{"s":[1,"\u0041`, "unterminated string"},
		{`{"s":[1,2`, "unterminated nested value"},
		{`{"s":1`, "expected ',' or '}'"},
		{`{"s"`, "expected ':'"},
		{`{`, "expected a member name"},
		{`{"s":`, "invalid JSON value"},
		{`{"s":-`, "invalid JSON number"},
		{`{"s":1.`, "invalid JSON number"},
		{`{"s":1e-`, "invalid JSON number"},
	} {
		e := parseObject([]byte(c.line), func([]byte, *jval) *jsonError { return nil })
		if e == nil || e.code != CodeJSONLine || e.detail != c.detail {
			t.Errorf("%s: %+v, want %s %q", c.line, e, CodeJSONLine, c.detail)
		}
	}
}

// TestJSONSurrogateEscapes: a \u escape pair decodes to one code point exactly when the
// first is a high surrogate (D800–DBFF) and the second a low one (DC00–DFFF), at both ends
// of both ranges (RFC 8259 §7); anything else with a surrogate is PW_SOURCE_UTF8, never
// U+FFFD. The code points just outside the surrogate block are ordinary escapes.
func TestJSONSurrogateEscapes(t *testing.T) {
	for _, c := range []struct {
		esc  string
		want string // "" for PW_SOURCE_UTF8
	}{
		{`\ud800\udc00`, "\U00010000"},
		{`\ud800\udfff`, "\U000103ff"},
		{`\udbff\udc00`, "\U0010fc00"},
		{`\udbff\udfff`, "\U0010ffff"},
		{`\ud7ff`, "\ud7ff"},
		{`\ue000`, "\ue000"},
		{`\udc00\udc00`, ""},
		{`\udfff\udc00`, ""},
		{`\udc00`, ""},
		{`\ud800\udbff`, ""},
		{`\udbff\ue000`, ""},
		{`\ud800\u0041`, ""},
		{`\ud800x`, ""},
		{`\ud800`, ""},
	} {
		var got []byte
		e := parseObject([]byte(`{"s":"`+c.esc+`"}`), func(_ []byte, v *jval) *jsonError {
			got = append([]byte(nil), v.raw...)
			return nil
		})
		switch {
		case c.want == "" && (e == nil || e.code != CodeUTF8):
			t.Errorf("%s: %+v %q, want %s", c.esc, e, got, CodeUTF8)
		case c.want != "" && (e != nil || string(got) != c.want):
			t.Errorf("%s: %+v %q, want %q", c.esc, e, got, c.want)
		}
	}
}

// TestJSONLLineLengthLimit: a JSON line of exactly MaxLineBytes bytes, not counting its
// "\n" or "\r\n", is read, with either terminator or none at the end of the file; one byte
// more fails alone as PW_SOURCE_LIMIT.
func TestJSONLLineLengthLimit(t *testing.T) {
	line := func(n int) string { // {"s":"yyy…"} of n bytes
		return `{"s":"` + strings.Repeat("y", n-8) + `"}`
	}
	const max = 40
	for _, c := range []struct {
		name  string
		data  string
		fails []wantFailure
	}{
		{"at the limit, LF", line(max) + "\n" + line(10) + "\n", nil},
		{"at the limit, CRLF", line(max) + "\r\n" + line(10) + "\r\n", nil},
		{"at the limit, last line", line(10) + "\n" + line(max), nil},
		{"one past, LF", line(max+1) + "\n" + line(10) + "\n", []wantFailure{{CodeLimit, 1, ""}}},
		{"one past, CRLF", line(max+1) + "\r\n" + line(10) + "\r\n", []wantFailure{{CodeLimit, 1, ""}}},
		{"one past, last line", line(10) + "\n" + line(max+1), []wantFailure{{CodeLimit, 2, ""}}},
		{"two past, CRLF", line(max+2) + "\r\n" + line(10) + "\r\n", []wantFailure{{CodeLimit, 1, ""}}},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := writeFile(t, t.TempDir(), "l.jsonl", []byte(c.data))
			_, cols, ev := openRead(t, p, Options{Columns: []Column{{"s", "text"}}, MaxLineBytes: max})
			if n := cols[0].Len(); n != 2-len(c.fails) {
				t.Errorf("%d rows, want %d", n, 2-len(c.fails))
			}
			checkFailures(t, ev, c.fails, "")
		})
	}
}

// TestLineScannerSkipsLongLinesUnbuffered: a line longer than the limit and than the 64
// KiB read buffer is skipped without being buffered (lineScanner's contract): the line
// buffer never grows beyond twice the limit, and the lines around it are whole.
func TestLineScannerSkipsLongLinesUnbuffered(t *testing.T) {
	const max = 1000
	data := "{}\n" + strings.Repeat("x", 200<<10) + "\n" + strings.Repeat("z", max) + "\n"
	l := &lineScanner{br: bufio.NewReaderSize(strings.NewReader(data), 1<<16), max: max}
	want := []scanned{{"{}", false}, {"", true}, {strings.Repeat("z", max), false}}
	for i, w := range want {
		rec, tooLong, ok, err := l.next()
		if err != nil || !ok || string(rec) != w.rec || tooLong != w.tooLong {
			t.Fatalf("line %d: %d bytes tooLong %v ok %v err %v, want %d bytes tooLong %v", i+1, len(rec), tooLong, ok, err, len(w.rec), w.tooLong)
		}
		if c := cap(l.buf); c > 2*(max+2) {
			t.Errorf("line %d: line buffer of %d bytes, want at most %d", i+1, c, 2*(max+2))
		}
	}
	if _, _, ok, err := l.next(); ok || err != nil {
		t.Errorf("after the last line: ok %v err %v", ok, err)
	}
}

// TestParseTypeDecimalBounds: decimal(P,S) takes 1 <= P <= 76 and 0 <= S <= P (doc.go,
// Type vocabulary), at each end and one past it; P <= 38 is decimal128, else decimal256.
func TestParseTypeDecimalBounds(t *testing.T) {
	for s, bits := range map[string]int{"decimal(1,0)": 128, "decimal(1,1)": 128, "decimal(5,5)": 128,
		"decimal(38,38)": 128, "decimal(38,0)": 128, "decimal(39,0)": 256, "decimal(76,76)": 256, "decimal(76,0)": 256} {
		ct, ok := parseType(s)
		if !ok {
			t.Errorf("parseType(%q) rejected", s)
			continue
		}
		got := 256
		if ct.arrowType().ID() == arrow.DECIMAL128 {
			got = 128
		}
		if got != bits {
			t.Errorf("%s is decimal%d, want decimal%d", s, got, bits)
		}
	}
	for _, s := range []string{"decimal(0,0)", "decimal(77,0)", "decimal(77,77)", "decimal(5,6)", "decimal(1,2)", "decimal(1,-1)", "decimal(-1,0)", "(5,2)", "decimal(5,2", "decimal5,2)"} {
		if _, ok := parseType(s); ok {
			t.Errorf("parseType(%q) accepted", s)
		}
	}
}
