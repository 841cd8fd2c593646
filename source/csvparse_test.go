package source

import (
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
)

// chunkReader returns at most the next size in sizes bytes per Read
// (cycling; 0 means a Read of no bytes, never twice in a row), so that records straddle the
// parser's buffer refills at arbitrary points.
type chunkReader struct {
	data  []byte
	sizes []byte
	i     int
	zero  bool // the last Read returned no bytes
}

func (c *chunkReader) Read(p []byte) (int, error) {
	if len(c.data) == 0 {
		return 0, io.EOF
	}
	n := len(p)
	if len(c.sizes) > 0 {
		n = min(n, int(c.sizes[c.i%len(c.sizes)])%17)
		c.i++
		if n == 0 && c.zero {
			n = 1 // at most one empty read in a row
		}
		c.zero = n == 0
	}
	n = min(n, len(c.data))
	copy(p, c.data[:n])
	c.data = c.data[n:]
	return n, nil
}

// stdRecord is one result of encoding/csv, the reference implementation.
type stdRecord struct {
	fields []string
	line   int
	err    error
}

// readStd reads data the way the adapter used encoding/csv before this
// parser (newCSVReader: BOM stripped first, ReuseRecord, FieldsPerRecord
// fixed by the first record unless fpr is set).
func readStd(data []byte, fpr int) (out []stdRecord, bom bool) {
	if bytes.HasPrefix(data, []byte{0xEF, 0xBB, 0xBF}) {
		data, bom = data[3:], true
	}
	r := csv.NewReader(bytes.NewReader(data))
	r.ReuseRecord = true
	r.FieldsPerRecord = fpr
	for {
		rec, err := r.Read()
		if err == io.EOF {
			return out, bom
		}
		sr := stdRecord{fields: append([]string(nil), rec...), err: err}
		if err == nil {
			sr.line, _ = r.FieldPos(0)
		}
		out = append(out, sr)
		if err != nil && !errors.As(err, new(*csv.ParseError)) {
			return out, bom
		}
	}
}

// readOurs reads data with csvParser (no record limit in effect).
func readOurs(t *testing.T, rd io.Reader, bufSize, fpr int) (out []stdRecord, bom bool) {
	p, bom, err := newCSVParser(rd, 1<<30, bufSize)
	if err != nil {
		t.Fatalf("newCSVParser: %v", err)
	}
	p.fieldsPerRecord = fpr
	for {
		rec, line, err := p.read()
		if err == io.EOF {
			return out, bom
		}
		sr := stdRecord{err: err}
		for _, f := range rec {
			sr.fields = append(sr.fields, string(f))
		}
		if err == nil {
			sr.line = line
		}
		out = append(out, sr)
		if err != nil && !errors.As(err, new(*csv.ParseError)) {
			return out, bom
		}
		if len(out) > len(rec)+1<<20 {
			t.Fatal("no progress")
		}
	}
}

func sameErr(a, b error) bool {
	if a == nil || b == nil {
		return a == b
	}
	var pa, pb *csv.ParseError
	if !errors.As(a, &pa) || !errors.As(b, &pb) {
		return a.Error() == b.Error()
	}
	return *pa == *pb
}

func diffRecords(std, ours []stdRecord) string {
	for i := 0; i < max(len(std), len(ours)); i++ {
		if i >= len(std) || i >= len(ours) {
			return fmt.Sprintf("record %d: encoding/csv has %d records, csvParser %d", i, len(std), len(ours))
		}
		s, o := std[i], ours[i]
		if !sameErr(s.err, o.err) {
			return fmt.Sprintf("record %d: error %v, want %v", i, o.err, s.err)
		}
		if s.line != o.line {
			return fmt.Sprintf("record %d: line %d, want %d", i, o.line, s.line)
		}
		if fmt.Sprintf("%q", s.fields) != fmt.Sprintf("%q", o.fields) {
			return fmt.Sprintf("record %d: fields %q, want %q", i, o.fields, s.fields)
		}
	}
	return ""
}

// FuzzCSVParserDifferential feeds the same bytes to encoding/csv and to
// csvParser, in chunks of fuzzed sizes through buffers of fuzzed sizes, and
// requires the same records, line numbers, BOM handling and errors
// (*csv.ParseError compared field by field: StartLine, Line, Column, Err).
func FuzzCSVParserDifferential(f *testing.F) {
	for _, s := range []string{
		"a,b\n1,x\n", "a\n\"x\ny\"\n", "a,b\n1\n", "a\n\"unterminated\n", "a\nx\"y\n", "\xef\xbb\xbfa\n1\n",
		"a,b\r\n1,2\r\n", "a\n\"x\"y\n", "a\n\"x\"\"y\"\n", "a\n\n\r\n\nb\n", "a\nx\r", "a\n\"x\r", "a\n\"x\r\ny\"\r\n",
		"a,b\n\"x\ny\"z,1\n2,3\n", "a,\"b\"\"\",\"\"\n,,\n", "\r\n\r\n", "\"", "\"\"\"", "a\r\rb\r\n", "a,b\n\"1\n\n2\",3\n",
		"\xef\xbb", "a\n\"\n", "a,\"b\n", confCSV,
	} {
		f.Add([]byte(s), []byte{5, 3, 16}, uint8(8), uint8(0))
		f.Add([]byte(s), []byte{}, uint8(0), uint8(2))
	}
	f.Fuzz(func(t *testing.T, data, sizes []byte, buf, fpr uint8) {
		skipLarge(t, len(data)+len(sizes))
		nfpr := int(fpr % 4)
		std, stdBOM := readStd(data, nfpr)
		ours, bom := readOurs(t, &chunkReader{data: data, sizes: sizes}, int(buf%64), nfpr)
		if bom != stdBOM {
			t.Fatalf("bom %v, want %v", bom, stdBOM)
		}
		if d := diffRecords(std, ours); d != "" {
			t.Fatalf("%q: %s", data, d)
		}
	})
}

// TestCSVParserCases pins the malformed and edge cases by hand-written
// expectations (positions counted by hand, 1-based byte columns), and checks
// that encoding/csv agrees with every one of them.
func TestCSVParserCases(t *testing.T) {
	pe := func(start, line, col int, err error) error {
		return &csv.ParseError{StartLine: start, Line: line, Column: col, Err: err}
	}
	rec := func(line int, f ...string) stdRecord { return stdRecord{fields: f, line: line} }
	bad := func(err error, f ...string) stdRecord { return stdRecord{fields: f, err: err} }
	cases := []struct {
		name string
		data string
		want []stdRecord
	}{
		{"plain", "a,b\n1,2\n", []stdRecord{rec(1, "a", "b"), rec(2, "1", "2")}},
		{"final line without newline", "a,b\n1,2", []stdRecord{rec(1, "a", "b"), rec(2, "1", "2")}},
		{"crlf", "a,b\r\n1,2\r\n", []stdRecord{rec(1, "a", "b"), rec(2, "1", "2")}},
		{"cr before eof dropped", "a\nx\r", []stdRecord{rec(1, "a"), rec(2, "x")}},
		{"lone cr kept", "a\nx\ry\n", []stdRecord{rec(1, "a"), rec(2, "x\ry")}},
		{"empty lines skipped, counted", "a\n\n\r\n\nb\n", []stdRecord{rec(1, "a"), rec(5, "b")}},
		{"empty fields", "a,b,c\n,,\n", []stdRecord{rec(1, "a", "b", "c"), rec(2, "", "", "")}},
		{"quoted comma and escaped quote", "a,b\n\"x,y\",\"p\"\"q\"\n", []stdRecord{rec(1, "a", "b"), rec(2, "x,y", `p"q`)}},
		{"quoted empty", "a\n\"\"\n", []stdRecord{rec(1, "a"), rec(2, "")}},
		{"quoted line break, crlf inside becomes lf", "a\n\"x\r\ny\"\nz\n", []stdRecord{rec(1, "a"), rec(2, "x\ny"), rec(4, "z")}},
		{"quoted empty line inside", "a,b\n\"1\n\n2\",3\n", []stdRecord{rec(1, "a", "b"), rec(2, "1\n\n2", "3")}},
		// `1,x"y`: the field x"y starts at column 3, its quote is column 4.
		{"bare quote, rest of line dropped", "a,b\n1,x\"y,\"z\n2,3\n", []stdRecord{rec(1, "a", "b"), bad(pe(2, 2, 4, csv.ErrBareQuote), "1"), rec(3, "2", "3")}},
		// `"x"y`: the closing quote is column 3.
		{"text after closing quote", "a\n\"x\"y\nb\n", []stdRecord{rec(1, "a"), bad(pe(2, 2, 3, csv.ErrQuote)), rec(3, "b")}},
		// Line 3 is `y"z,1`: the closing quote is column 2 of line 3.
		{"text after multi-line quoted field", "a,b\n\"x\ny\"z,1\n2,3\n", []stdRecord{rec(1, "a", "b"), bad(pe(2, 3, 2, csv.ErrQuote)), rec(4, "2", "3")}},
		// `"xy` then EOF: the error is after the last byte, column 4 of line 2.
		{"unterminated quote at eof", "a\n\"xy", []stdRecord{rec(1, "a"), bad(pe(2, 2, 4, csv.ErrQuote))}},
		// `"x` + '\n', then EOF: column 1 + 1 (quote) + 2 bytes of line 2.
		{"unterminated quote at eof after newline", "a\n\"x\n", []stdRecord{rec(1, "a"), bad(pe(2, 2, 4, csv.ErrQuote))}},
		{"field count", "a,b\n1\n1,2,3\n4,5\n", []stdRecord{rec(1, "a", "b"), bad(pe(2, 2, 1, csv.ErrFieldCount), "1"),
			bad(pe(3, 3, 1, csv.ErrFieldCount), "1", "2", "3"), rec(4, "4", "5")}},
		{"bom", "\xef\xbb\xbfa\n1\n", []stdRecord{rec(1, "a"), rec(2, "1")}},
		{"invalid utf8 passes through", "a\n\xff\n", []stdRecord{rec(1, "a"), rec(2, "\xff")}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			std, _ := readStd([]byte(tc.data), 0)
			if d := diffRecords(tc.want, std); d != "" {
				t.Fatalf("encoding/csv disagrees with the expectation: %s", d)
			}
			for _, bs := range []int{4, 7, 64, csvBufSize} {
				ours, _ := readOurs(t, strings.NewReader(tc.data), bs, 0)
				if d := diffRecords(tc.want, ours); d != "" {
					t.Fatalf("buffer %d: %s", bs, d)
				}
			}
		})
	}
}

// TestCSVParserRecordLimit: a record of more than max bytes (its lines and
// inner line breaks, not its final '\n') stops the read with errLineLimit
// after the records before it; exactly max bytes is fine.
func TestCSVParserRecordLimit(t *testing.T) {
	cases := []struct {
		name string
		data string
		max  int
		good int // records returned before the limit (-1: no limit)
	}{
		{"line of exactly max", "abcd\nefgh\n", 4, -1},
		{"line of max+1", "abcd\nefghi\nj\n", 4, 1},
		{"cr counts", "ab\r\nabcd\r\n", 4, 1},
		{"last line without newline", "ab\nabcde", 4, 1},
		{"multi-line record", "ab\n\"a\nb\"\n\"ab\ncd\"\n", 5, 2},
		{"unterminated quote", "ab\n\"" + strings.Repeat("x\n", 100), 50, 1},
		{"no newline at all", strings.Repeat("x", 1000), 100, 0},
	}
	for _, tc := range cases {
		for _, bs := range []int{4, 16, 1 << 10} {
			p, _, err := newCSVParser(strings.NewReader(tc.data), tc.max, bs)
			if err != nil {
				t.Fatal(err)
			}
			n := 0
			for {
				_, _, err := p.read()
				if err == io.EOF {
					if tc.good != -1 {
						t.Errorf("%s/%d: no limit error after %d records", tc.name, bs, n)
					}
					break
				}
				if errors.Is(err, errLineLimit) {
					if n != tc.good {
						t.Errorf("%s/%d: limit after %d records, want %d", tc.name, bs, n, tc.good)
					}
					if len(p.buf) > tc.max+1 && len(p.buf) > bs {
						t.Errorf("%s/%d: buffer grew to %d", tc.name, bs, len(p.buf))
					}
					break
				}
				if err != nil {
					t.Fatalf("%s: %v", tc.name, err)
				}
				n++
			}
		}
	}
}

// TestCSVParserReadError: a read error other than io.EOF is returned as is
// (fatal), after the records completed before it.
func TestCSVParserReadError(t *testing.T) {
	boom := errors.New("boom")
	r := io.MultiReader(strings.NewReader("a\n1\n2"), &errReader{boom})
	p, _, err := newCSVParser(r, 1<<10, 64)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 2; i++ {
		if _, _, err := p.read(); err != nil {
			t.Fatalf("record %d: %v", i, err)
		}
	}
	if _, _, err := p.read(); !errors.Is(err, boom) {
		t.Fatalf("error %v, want boom", err)
	}
}

type errReader struct{ err error }

func (e *errReader) Read([]byte) (int, error) { return 0, e.err }

// cellTypes are the column types FuzzCSVCell compares parseCell and
// parseText on.
var cellTypes = []string{
	"bool", "int8", "int16", "int32", "int64", "uint8", "uint64", "float32", "float64", "text", "bytes(hex)", "bytes(base64)",
	"decimal(5,2)", "decimal(40,3)", "timestamp(s)", "timestamp(ms)", "timestamp(us)", "timestamp(ns)",
	"timestamp(us,UTC)", "timestamp(ns,+05:30)", "timestamp(s,Europe/Berlin)",
}

// FuzzCSVCell requires parseCell (bytes, with the integer and timestamp
// fast paths) to give exactly what parseText gives on the same text: the
// same code and detail, and the same staged value.
func FuzzCSVCell(f *testing.F) {
	for _, s := range []string{
		"0", "-0", "+7", "127", "-128", "128", "9223372036854775807", "-9223372036854775808", "9223372036854775808",
		"123456789012345678", "1234567890123456789", "", "-", "+", "1e3", " 1", "1.5", "NaN", "-Inf", "0x10",
		"2026-09-21T14:13:20", "2026-09-21 14:13:20.000003", "2026-09-21T14:13:20.123456789", "2026-09-21T14:13:20.1234567891",
		"2024-02-29T00:00:00", "2023-02-29T00:00:00", "0000-01-01T00:00:00", "9999-12-31T23:59:59.999999999", "1677-09-21T00:12:43.145224192",
		"2262-04-11T23:47:16.854775807", "2262-04-11T23:47:16.854775808", "2026-01-01T24:00:00", "2026-01-01T00:60:00", "2026-01-01T00:00:60",
		"2026-13-01T00:00:00", "2026-01-01T00:00:00Z", "2026-01-01T00:00:00.5Z", "2026-01-01T00:00:00+01:00", "2026-01-01T00:00:00.",
		"2026-01-01T00:00:00,5", "1900-03-01T00:00:00", "1969-12-31T23:59:59.999", "true", "false", "AAE=", "0a0B", "-12.34",
	} {
		f.Add([]byte(s), uint8(0))
	}
	types := make([]colType, len(cellTypes))
	for i, n := range cellTypes {
		t, ok := parseType(n)
		if !ok {
			f.Fatalf("type %q", n)
		}
		types[i] = t
	}
	f.Fuzz(func(t *testing.T, b []byte, which uint8) {
		skipLarge(t, len(b))
		for k := 0; k < len(types); k++ {
			ct := &types[(int(which)+k)%len(types)]
			var got, want cell
			gc, gd := ct.parseCell(b, &got)
			wc, wd := ct.parseText(string(b), &want)
			if gc != wc || gd != wd {
				t.Fatalf("%s %q: parseCell %s %q, parseText %s %q", ct.spell, b, gc, gd, wc, wd)
			}
			if gc != "" {
				continue
			}
			if ct.kind == kText {
				if string(got.tb) != want.s {
					t.Fatalf("text %q: %q", b, got.tb)
				}
				continue
			}
			if fmt.Sprintf("%+v", got) != fmt.Sprintf("%+v", want) {
				t.Fatalf("%s %q: parseCell %+v, parseText %+v", ct.spell, b, got, want)
			}
		}
	})
}

// TestFastFloat: the decimal fast path gives the correctly rounded float64 (bits from
// Python's float(), an independent parser), declines what it does not cover, and equals
// strconv.ParseFloat on random decimals of every length and scale it may take.
func TestFastFloat(t *testing.T) {
	for _, tc := range []struct {
		in   string
		bits uint64
		ok   bool
	}{
		{"0.5", 0x3fe0000000000000, true},
		{"0.1", 0x3fb999999999999a, true},
		{"-0", 0x8000000000000000, true},
		{"123.456", 0x405edd2f1a9fbe77, true},
		{"494241.58", 0x411e2a8651eb851f, true},
		{"0.3", 0x3fd3333333333333, true},
		{"-2.5", 0xc004000000000000, true},
		{"+.5", 0x3fe0000000000000, true},
		{"1.", 0x3ff0000000000000, true},
		{"9007199254740992", 0x4340000000000000, true}, // 2^53: still exact
		{"9007199254740993", 0, false},                 // 2^53+1: strconv rounds it
		{"1.7976931348623157", 0, false},               // 17 digits, mantissa above 2^53
		{"1e3", 0, false}, {"NaN", 0, false}, {"", 0, false}, {"-", 0, false}, {".", 0, false},
		{"1.2.3", 0, false}, {"0x1p3", 0, false}, {"1_000", 0, false}, {" 1", 0, false},
		{"0.00000000000000000000001", 0, false}, // 23 fraction digits
		{"12345678901234567890", 0, false},      // 20 digits
	} {
		f, ok := fastFloat([]byte(tc.in))
		if ok != tc.ok || (ok && math.Float64bits(f) != tc.bits) {
			t.Errorf("fastFloat(%q) = %#x %v, want %#x %v", tc.in, math.Float64bits(f), ok, tc.bits, tc.ok)
		}
	}
	r := rand.New(rand.NewPCG(41, 42))
	taken := 0
	for range 200_000 {
		digits := 1 + r.IntN(19)
		var b []byte
		if r.IntN(2) == 0 {
			b = append(b, '-')
		}
		dot := r.IntN(digits + 1)
		for i := range digits {
			if i == dot {
				b = append(b, '.')
			}
			b = append(b, byte('0'+r.IntN(10)))
		}
		f, ok := fastFloat(b)
		if !ok {
			continue
		}
		taken++
		want, err := strconv.ParseFloat(string(b), 64)
		if err != nil || math.Float64bits(f) != math.Float64bits(want) {
			t.Fatalf("fastFloat(%q) = %v (%#x), strconv %v (%#x) %v", b, f, math.Float64bits(f), want, math.Float64bits(want), err)
		}
	}
	if taken < 100_000 {
		t.Fatalf("the fast path took only %d of 200000 random decimals", taken)
	}
}
