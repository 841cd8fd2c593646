package source

import (
	"bufio"
	"context"
	"errors"
	"math"
	"os"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
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

// TestJSONCloseReleases: after Close the source holds no allocator memory (a checked
// allocator ends at zero bytes) and its file is closed; a second Close is a no-op.
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
	// The parser reads the line it is given and no further, even where the buffer goes on
	// (a reused line buffer holds an earlier, longer line there): a \u escape cut after
	// two digits is invalid, not completed from the bytes beyond the line.
	buf := []byte(`{"s":"\u00e9"}`)
	line := buf[:len(`{"s":"\u00`)]
	if e := parseObject(line, func([]byte, *jval) *jsonError { return nil }); e == nil || e.detail != `invalid \u escape` {
		t.Errorf("%s (buffer %s): %+v, want %q", line, buf, e, `invalid \u escape`)
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

// TestJSONInferIntegerBoundaries: inference's integer preference (doc.go, Type mapping:
// int64 when every integer fits, else uint64 when every one is nonnegative and fits, else
// number) at the int64 and uint64 limits and one past them. A column whose integers fit
// both is int64, never uint64: flipping the preference would change the schema's
// identity for the commonest column there is.
func TestJSONInferIntegerBoundaries(t *testing.T) {
	const (
		maxI64   = "9223372036854775807"
		maxI64p1 = "9223372036854775808"
		minI64   = "-9223372036854775808"
		minI64m1 = "-9223372036854775809"
		maxU64   = "18446744073709551615"
		maxU64p1 = "18446744073709551616"
	)
	for _, c := range []struct {
		values []string
		typ    string
	}{
		{[]string{"0", "1"}, "int64"},
		{[]string{"0"}, "int64"},
		{[]string{maxI64}, "int64"},
		{[]string{minI64, maxI64}, "int64"},
		{[]string{maxI64p1}, "uint64"},
		{[]string{maxI64, maxI64p1}, "uint64"},
		{[]string{"0", maxU64}, "uint64"},
		{[]string{minI64m1}, "number"},
		{[]string{maxU64p1}, "number"},
		{[]string{"0", maxU64p1}, "number"},
		{[]string{"-1", maxI64p1}, "number"},
		{[]string{minI64, maxU64}, "number"},
	} {
		var recs []string
		for _, v := range c.values {
			recs = append(recs, `{"a":`+v+`}`)
		}
		for form, path := range jsonForms(t, recs...) {
			sc, cols, _ := openRead(t, path, Options{})
			if got := sc.Field(0).Metadata.Values()[0]; got != c.typ {
				t.Errorf("%s %v: type %s, want %s", form, c.values, got, c.typ)
				continue
			}
			if got := cellStrings(t, cols[0]); strings.Join(got, ",") != strings.Join(c.values, ",") {
				t.Errorf("%s %v: values %v", form, c.values, got)
			}
		}
	}
	// -0 is an integer literal whose value, 0, fits int64 but not uint64 (no sign there).
	for form, path := range jsonForms(t, `{"a":-0}`, `{"a":5}`) {
		sc, cols, _ := openRead(t, path, Options{})
		if got := sc.Field(0).Metadata.Values()[0]; got != "int64" || strings.Join(cellStrings(t, cols[0]), ",") != "0,5" {
			t.Errorf("%s: -0 and 5: type %s values %v, want int64 0,5", form, got, cellStrings(t, cols[0]))
		}
	}
}

// TestParseZoneOffsetBounds: a fixed-offset zone is ±hh:mm with hh <= 23 and mm <= 59
// (doc.go: TZ is UTC, ±hh:mm or an IANA name), at each bound and one past it.
func TestParseZoneOffsetBounds(t *testing.T) {
	for _, z := range []string{"+00:00", "-00:00", "+23:59", "-23:59", "+05:59", "+23:00", "-12:45", "UTC", "Europe/Paris"} {
		ct, ok := parseType("timestamp(s," + z + ")")
		if !ok || ct.tz != z || ct.loc == nil {
			t.Errorf("zone %q: ok %v tz %q", z, ok, ct.tz)
		}
	}
	for _, z := range []string{"+24:00", "-24:00", "+05:60", "+23:60", "+99:99", "+5:30", "+05:3", "05:30", "+05-30", "+0a:00", "+05:0b", "*05:30", "Local", ""} {
		if _, ok := parseType("timestamp(s," + z + ")"); ok {
			t.Errorf("zone %q accepted", z)
		}
	}
}

// TestFloatLiteralForms: a float column takes [+-]digits[.[digits]] or [+-].digits, then
// [(e|E)[+-]digits] (doc.go, Type vocabulary) with every digit 0–9 in each part (a
// leading "+", a bare fraction ".5" and a trailing point "5." included), and its value is the nearest
// binary64 of the decimal; a text without a digit before the exponent, with an empty
// exponent or with trailing text is "not a decimal float64 literal" (never "out of
// range", which is for a literal beyond the type).
func TestFloatLiteralForms(t *testing.T) {
	ct, _ := parseType("float64")
	for lit, want := range map[string]float64{
		"2.50": 2.5, "1.09": 1.09, "-0.90": -0.9, "1e5": 1e5, "1E5": 1e5, "1e+5": 1e5, "1E-5": 1e-5,
		"1e9": 1e9, "9e0": 9, "90.09e09": 90.09e9, "0": 0, "-9": -9, "1234567890": 1234567890,
		"+1.5": 1.5, ".5": 0.5, "5.": 5, "-.5": -0.5, "+.25e1": 2.5, "5.e1": 50, "-0": math.Copysign(0, -1),
	} {
		var c cell
		if code, detail := ct.parseText(lit, &c); code != "" || math.Float64bits(c.f) != math.Float64bits(want) {
			t.Errorf("%s: %s %q %v, want %v", lit, code, detail, c.f, want)
		}
	}
	for _, lit := range []string{".", "-", "+", "-.", "+.", "-e5", "-.e5", "e5", "1e", "1e+", "1E-", "1x", "1.5x", "1e5x", "0x1p3", "inf", "Infinity", "nan", ""} {
		var c cell
		if code, detail := ct.parseText(lit, &c); code != CodeType || detail != "not a decimal float64 literal" {
			t.Errorf("%q: %s %q, want %s %q", lit, code, detail, CodeType, "not a decimal float64 literal")
		}
	}
	if code, detail := ct.parseText("1e999", &cell{}); code != CodeType || detail != "out of range for float64" {
		t.Errorf("1e999: %s %q, want out of range", code, detail)
	}
}

// TestTimestampZoneDetail: a timestamp that does not parse is diagnosed by the column's
// kind: a zoned column wants an offset, a naive column wants none.
func TestTimestampZoneDetail(t *testing.T) {
	for _, c := range []struct{ typ, lit, detail string }{
		{"timestamp(s,UTC)", "2026-01-01T00:00:00", "not a timestamp with zone offset (YYYY-MM-DDTHH:MM:SS[.f]Z or ±hh:mm)"},
		{"timestamp(s,+01:00)", "2026-01-01 00:00:00x", "not a timestamp with zone offset (YYYY-MM-DDTHH:MM:SS[.f]Z or ±hh:mm)"},
		{"timestamp(s)", "2026-01-01T00:00:00Z", "not a naive timestamp (YYYY-MM-DDTHH:MM:SS[.f], no zone)"},
		{"timestamp(ms)", "2026-01-01T00:00:00+01:00", "not a naive timestamp (YYYY-MM-DDTHH:MM:SS[.f], no zone)"},
	} {
		ct, _ := parseType(c.typ)
		if code, detail := ct.parseText(c.lit, &cell{}); code != CodeType || detail != c.detail {
			t.Errorf("%s %s: %s %q, want %s %q", c.typ, c.lit, code, detail, CodeType, c.detail)
		}
	}
}

// TestTimestampNanosecondRange: timestamp(ns) holds exactly the instants of int64
// nanoseconds, 1677-09-21T00:12:43.145224192Z (-2**63) to 2262-04-11T23:47:16.854775807Z
// (2**63-1): both ends are read, one nanosecond past either is out of range. The earliest
// second is partly inside: its whole-second start is not. Before 1970 a fraction adds to
// a negative second (-0.5 s is 1969-12-31T23:59:59.5).
func TestTimestampNanosecondRange(t *testing.T) {
	for _, c := range []struct {
		typ, lit string
		want     int64
		out      bool // out of range
	}{
		{"timestamp(ns)", "2262-04-11T23:47:16.854775807", math.MaxInt64, false},
		{"timestamp(ns)", "2262-04-11 23:47:16.854775806", math.MaxInt64 - 1, false},
		{"timestamp(ns)", "2262-04-11T23:47:16.854775808", 0, true},
		{"timestamp(ns)", "2262-04-11T23:47:17", 0, true},
		{"timestamp(ns)", "1677-09-21T00:12:43.145224192", math.MinInt64, false},
		{"timestamp(ns)", "1677-09-21T00:12:43.145224193", math.MinInt64 + 1, false},
		{"timestamp(ns)", "1677-09-21T00:12:43.145224191", 0, true},
		{"timestamp(ns)", "1677-09-21T00:12:43", 0, true},
		{"timestamp(ns)", "1677-09-21T00:12:44", -9223372036 * 1e9, false},
		{"timestamp(ns)", "1969-12-31T23:59:59.5", -5e8, false},
		{"timestamp(ns)", "1969-12-31T23:59:59.999999999", -1, false},
		{"timestamp(ns)", "1970-01-01T00:00:00.000000001", 1, false},
		{"timestamp(ms)", "1969-12-31T23:59:59.5", -500, false},
		{"timestamp(us)", "1969-12-31T23:59:58.000001", -1999999, false},
		{"timestamp(s)", "0001-01-01T00:00:00", -62135596800, false},
		{"timestamp(ns,UTC)", "1677-09-21T00:12:43.145224192Z", math.MinInt64, false},
		{"timestamp(ns,+01:00)", "1677-09-21T01:12:43.145224192+01:00", math.MinInt64, false},
		{"timestamp(ns,UTC)", "1677-09-20T23:12:43.145224191-01:00", 0, true},
		{"timestamp(ns,UTC)", "2262-04-12T00:47:16.854775807+01:00", math.MaxInt64, false},
		{"timestamp(ns,UTC)", "2262-04-11T23:47:16.854775808Z", 0, true},
	} {
		ct, ok := parseType(c.typ)
		if !ok {
			t.Fatal(c.typ)
		}
		var cl cell
		code, detail := ct.parseText(c.lit, &cl)
		if c.out {
			if code != CodeType || detail != "out of range for "+c.typ {
				t.Errorf("%s %s: %s %q %d, want out of range", c.typ, c.lit, code, detail, cl.i)
			}
			continue
		}
		if code != "" || cl.i != c.want {
			t.Errorf("%s %s: %s %q %d, want %d", c.typ, c.lit, code, detail, cl.i, c.want)
		}
	}
}

// TestTypeNameChildNameEscapes: in a nested type's spelling a child name escapes '"',
// '\\' and the control characters below U+0020 (as \u00xx, lower-case hex) and nothing
// else: the space U+0020, DEL and non-ASCII letters are written as they are.
func TestTypeNameChildNameEscapes(t *testing.T) {
	i64 := arrow.PrimitiveTypes.Int64
	for name, want := range map[string]string{
		"a b":      `struct<"a b":int64>`,
		"\x1f":     `struct<"\u001f":int64>`,
		"\x00x":    `struct<"\u0000x":int64>`,
		"\x7f":     "struct<\"\x7f\":int64>",
		"é!":       `struct<"é!":int64>`,
		` "\ `:     `struct<" \"\\ ":int64>`,
		"\t\x1b[0": `struct<"\u0009\u001b[0":int64>`,
	} {
		got, ok := TypeName(arrow.StructOf(arrow.Field{Name: name, Type: i64, Nullable: true}))
		if !ok || got != want {
			t.Errorf("child %q: %s %v, want %s", name, got, ok, want)
		}
	}
}

// TestTimestampBoundsThroughReaders: the earliest and the latest timestamp(ns) are read
// from a CSV cell and from a JSON string alike (parseTimestamp decides for both).
func TestTimestampBoundsThroughReaders(t *testing.T) {
	const lo, hi = "1677-09-21T00:12:43.145224192", "2262-04-11T23:47:16.854775807"
	dir := t.TempDir()
	for _, p := range []string{
		writeFile(t, dir, "t.csv", []byte("t\n"+lo+"\n"+hi+"\n")),
		writeFile(t, dir, "t.jsonl", []byte(`{"t":"`+lo+`"}`+"\n"+`{"t":"`+hi+`"}`+"\n")),
	} {
		_, cols, ev := openRead(t, p, Options{Columns: []Column{{"t", "timestamp(ns)"}}})
		ts, ok := cols[0].(*array.Timestamp)
		if !ok || ts.Len() != 2 || ts.Value(0) != math.MinInt64 || ts.Value(1) != math.MaxInt64 {
			t.Errorf("%s: %v (failures %v), want -2**63 and 2**63-1", p, cols[0], ev.Coverage.Failures)
		}
	}
}

// TestJSONEmptyObjectLine: an empty object is a record with no members, surrounding
// whitespace allowed; text after it makes the line fail ("text after the JSON object")
// as after any other object.
func TestJSONEmptyObjectLine(t *testing.T) {
	for line, detail := range map[string]string{
		`{}`: "", " { }\t": "", `{}x`: "text after the JSON object", `{} {}`: "text after the JSON object",
		`{"a":1} x`: "text after the JSON object", `{}}`: "text after the JSON object",
	} {
		n := 0
		e := parseObject([]byte(line), func([]byte, *jval) *jsonError { n++; return nil })
		switch {
		case detail == "" && (e != nil || n != 0):
			t.Errorf("%q: %+v, %d members, want an empty record", line, e, n)
		case detail != "" && (e == nil || e.code != CodeJSONLine || e.detail != detail):
			t.Errorf("%q: %+v, want %s %q", line, e, CodeJSONLine, detail)
		}
	}
}
