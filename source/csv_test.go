package source

import (
	"context"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
)

// openRead opens addr and drains it.
func openRead(t *testing.T, addr string, opts Options) (*arrow.Schema, []arrow.Array, Evidence) {
	t.Helper()
	src, err := Open(context.Background(), addr, opts)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	defer src.Close()
	cols, ev := readAll(t, src)
	return src.Schema(), cols, ev
}

type wantFailure struct {
	code   Code
	line   uint64
	column string
}

func checkFailures(t *testing.T, ev Evidence, want []wantFailure, secret string) {
	t.Helper()
	got := ev.Coverage.Failures
	if len(got) != len(want) || ev.Coverage.FailureCount != uint64(len(want)) {
		t.Fatalf("failures = %v, want %v", got, want)
	}
	for i, w := range want {
		g := got[i]
		if g.Code != w.code || g.Line != w.line || g.Column != w.column {
			t.Errorf("failure %d = %+v, want %+v", i, g, w)
		}
		if secret != "" && strings.Contains(g.String(), secret) {
			t.Errorf("failure %q leaks the cell value %q", g.String(), secret)
		}
	}
}

func TestCSVDefaultText(t *testing.T) {
	dir := t.TempDir()
	// Every column is text; the empty cell is an empty string, not null.
	p := writeFile(t, dir, "t.csv", []byte("a,b\n1,\n,x\n"))
	sc, cols, ev := openRead(t, p, Options{})
	for i := 0; i < 2; i++ {
		f := sc.Field(i)
		if f.Type.ID() != arrow.STRING || f.Nullable {
			t.Fatalf("field %v: want non-nullable utf8", f)
		}
	}
	a, b := cols[0].(*array.String), cols[1].(*array.String)
	if a.Value(0) != "1" || a.Value(1) != "" || b.Value(0) != "" || b.Value(1) != "x" || a.NullN()+b.NullN() != 0 {
		t.Fatalf("values %v %v", a, b)
	}
	if ev.Coverage.Status != StatusComplete || ev.Coverage.Expected != 2 {
		t.Fatalf("coverage %+v", ev.Coverage)
	}
	if ev.Choices[0] != "schema=text" || ev.Choices[1] != "null=none" {
		t.Fatalf("choices %v", ev.Choices)
	}
}

func TestCSVHeaderOnly(t *testing.T) {
	p := writeFile(t, t.TempDir(), "h.csv", []byte("a,b\n"))
	_, cols, ev := openRead(t, p, Options{})
	if cols[0].Len() != 0 || ev.Coverage.Status != StatusComplete || !ev.Coverage.ExpectedKnown || ev.Coverage.Expected != 0 {
		t.Fatalf("coverage %+v", ev.Coverage)
	}
}

func TestCSVMalformedRows(t *testing.T) {
	dir := t.TempDir()
	cols := []Column{{"id", "int64"}, {"name", "text"}}
	cases := []struct {
		name   string
		data   string
		opts   Options
		rows   int64 // returned
		fails  []wantFailure
		secret string
	}{
		{"field count", "id,name\n1,a\n2\n3,c,extra\n4,d\n", Options{Columns: cols}, 2,
			[]wantFailure{{CodeCSVRow, 3, ""}, {CodeCSVRow, 4, ""}}, ""},
		{"bare quote", "id,name\n1,a\"b\n2,ok\n", Options{Columns: cols}, 1,
			[]wantFailure{{CodeCSVRow, 2, ""}}, ""},
		{"invalid utf8", "id,name\n1,a\xffz\n2,b\n", Options{Columns: cols}, 1,
			[]wantFailure{{CodeUTF8, 2, "name"}}, "a\xffz"},
		{"not an int", "id,name\n1,a\nseven77,b\n3,c\n", Options{Columns: cols}, 2,
			[]wantFailure{{CodeType, 3, "id"}}, "seven77"},
		{"int overflow", "id,name\n9223372036854775808,a\n", Options{Columns: cols}, 0,
			[]wantFailure{{CodeType, 2, "id"}}, "9223372036854775808"},
		{"empty int without null spelling", "id,name\n,a\n", Options{Columns: cols}, 0,
			[]wantFailure{{CodeType, 2, "id"}}, ""},
		{"quoted newline keeps line numbers", "id,name\n1,\"x\ny\"\nbad,z\n", Options{Columns: cols}, 1,
			[]wantFailure{{CodeType, 4, "id"}}, ""},
		{"crlf", "id,name\r\n1,a\r\nq1,b\r\n", Options{Columns: cols}, 1,
			[]wantFailure{{CodeType, 3, "id"}}, ""},
		{"infer ignores bad rows", "id,name\n1,a\n2\n", Options{Infer: true}, 1,
			[]wantFailure{{CodeCSVRow, 3, ""}}, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p := writeFile(t, dir, strings.ReplaceAll(tc.name, " ", "_")+".csv", []byte(tc.data))
			_, got, ev := openRead(t, p, tc.opts)
			if int64(got[0].Len()) != tc.rows {
				t.Fatalf("returned %d rows, want %d", got[0].Len(), tc.rows)
			}
			checkFailures(t, ev, tc.fails, tc.secret)
			c := ev.Coverage
			if c.Status != StatusPartial || !c.ExpectedKnown || c.Expected != uint64(tc.rows)+uint64(len(tc.fails)) || c.FailedRecords != uint64(len(tc.fails)) {
				t.Fatalf("coverage %+v", c)
			}
		})
	}
}

func TestCSVOpenErrors(t *testing.T) {
	dir := t.TempDir()
	cases := []struct {
		name string
		data string
		opts Options
		code Code
	}{
		{"empty file", "", Options{}, CodeSchema},
		{"duplicate header", "a,a\n1,2\n", Options{}, CodeDuplicate},
		{"empty header name", "a,\n1,2\n", Options{}, CodeSchema},
		{"header not utf8", "a,\xff\n", Options{}, CodeUTF8},
		{"schema names unknown column", "a\n1\n", Options{Columns: []Column{{"a", "int64"}, {"b", "text"}}}, CodeSchema},
		{"schema lacks column", "a,b\n1,2\n", Options{Columns: []Column{{"a", "int64"}}}, CodeSchema},
		{"unknown type", "a\n1\n", Options{Columns: []Column{{"a", "integer"}}}, CodeSchema},
		{"exclude unknown", "a\n1\n", Options{Exclude: []string{"zz"}}, CodeNotFound},
		{"query on csv", "a\n1\n", Options{Query: "SELECT 1"}, CodeOption},
		{"line too long", "a\n" + strings.Repeat("x", 100) + "\n", Options{MaxLineBytes: 50}, CodeLimit},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p := writeFile(t, dir, strings.ReplaceAll(tc.name, " ", "_")+".csv", []byte(tc.data))
			src, err := Open(context.Background(), p, tc.opts)
			if err == nil {
				// A limit hit after the header surfaces from Next.
				defer src.Close()
				_, err = src.Next(context.Background())
				if err == nil || err == io.EOF {
					t.Fatalf("no error")
				}
				if c := src.Evidence().Coverage; c.Status == StatusComplete {
					t.Fatalf("coverage %+v after a fatal error", c)
				}
			}
			if CodeOf(err) != tc.code {
				t.Fatalf("error %v, want code %s", err, tc.code)
			}
		})
	}
	if _, err := Open(context.Background(), filepath.Join(dir, "missing.csv"), Options{}); CodeOf(err) != CodeNotFound {
		t.Fatalf("missing file: %v", err)
	}
}

func TestCSVNullSpellingAndExclude(t *testing.T) {
	null := "NULL"
	p := writeFile(t, t.TempDir(), "n.csv", []byte("a,skip,b\nNULL,\xff,\n1,x,NULL\n"))
	sc, cols, ev := openRead(t, p, Options{Null: &null, Exclude: []string{"skip"}, Columns: []Column{{"a", "int64"}, {"b", "text"}}})
	if sc.NumFields() != 2 || sc.Field(1).Name != "b" || !sc.Field(0).Nullable {
		t.Fatalf("schema %v", sc)
	}
	a, b := cols[0].(*array.Int64), cols[1].(*array.String)
	if !a.IsNull(0) || a.Value(1) != 1 || b.IsNull(0) || b.Value(0) != "" || !b.IsNull(1) {
		t.Fatalf("values %v %v", a, b)
	}
	// The excluded column's invalid UTF-8 is not read, hence not a failure.
	if ev.Coverage.Status != StatusComplete || len(ev.Excluded) != 1 || ev.Excluded[0] != "skip" || ev.Choices[1] != `null="NULL"` {
		t.Fatalf("evidence %+v", ev)
	}
}

func TestCSVInfer(t *testing.T) {
	null := "NA"
	p := writeFile(t, t.TempDir(), "i.csv", []byte("i,u,b,t,f,e,n\n-1,18446744073709551615,true,1,1.5,,NA\n2,0,false,x,2,,NA\n"))
	sc, cols, ev := openRead(t, p, Options{Infer: true, Null: &null})
	// e: empty cells are values (not the null spelling) and not integers;
	// n: only nulls, so no evidence for any type.
	want := []arrow.Type{arrow.INT64, arrow.UINT64, arrow.BOOL, arrow.STRING, arrow.STRING, arrow.STRING, arrow.STRING}
	for i, w := range want {
		if sc.Field(i).Type.ID() != w {
			t.Errorf("column %s inferred %v, want %v", sc.Field(i).Name, sc.Field(i).Type, w)
		}
	}
	if cols[1].(*array.Uint64).Value(0) != math.MaxUint64 || ev.Choices[0] != "schema=inferred(full-scan)" || cols[6].NullN() != 2 {
		t.Fatalf("values/choices %v %v", cols[1], ev.Choices)
	}
}

// TestCSVInferRoundTrip: a column is inferred int64, uint64 or bool only when every
// non-null cell renders back to exactly its text; one cell that would lose its spelling
// keeps the whole column text, with every cell as written.
func TestCSVInferRoundTrip(t *testing.T) {
	null := "NA"
	cases := []struct {
		cells []string
		want  arrow.Type
	}{
		{[]string{"0", "-5", "42", "NA"}, arrow.INT64},
		{[]string{"-9223372036854775808", "9223372036854775807"}, arrow.INT64},
		{[]string{"9223372036854775808", "18446744073709551615", "0"}, arrow.UINT64},
		{[]string{"true", "false", "NA"}, arrow.BOOL},
		{[]string{"00501", "501"}, arrow.STRING},          // leading zero
		{[]string{"7", "+7"}, arrow.STRING},               // plus sign
		{[]string{"1", "-0"}, arrow.STRING},               // negative zero
		{[]string{"1", "00"}, arrow.STRING},               // zero with a leading zero
		{[]string{"1", " 7"}, arrow.STRING},               // blank before
		{[]string{"1", "7 "}, arrow.STRING},               // blank after
		{[]string{"1", "1e3"}, arrow.STRING},              // exponent
		{[]string{"1", "1.50"}, arrow.STRING},             // fraction
		{[]string{"1", "1.0"}, arrow.STRING},              // integral fraction
		{[]string{"1", "0x10"}, arrow.STRING},             // hexadecimal
		{[]string{"1", "1_000"}, arrow.STRING},            // digit separator
		{[]string{"1", "١٢"}, arrow.STRING},               // non-ASCII digits
		{[]string{"+18446744073709551615"}, arrow.STRING}, // uint64 with a plus sign
		{[]string{"018446744073709551615"}, arrow.STRING}, // uint64 with a leading zero
		{[]string{"true", "True"}, arrow.STRING},
		{[]string{"true", "1"}, arrow.STRING},
	}
	for _, c := range cases {
		p := writeFile(t, t.TempDir(), "r.csv", []byte("c\n"+strings.Join(c.cells, "\n")+"\n"))
		sc, cols, ev := openRead(t, p, Options{Infer: true, Null: &null})
		if got := sc.Field(0).Type.ID(); got != c.want {
			t.Errorf("%q inferred %v, want %v", c.cells, got, c.want)
			continue
		}
		if ev.Coverage.Status != StatusComplete {
			t.Errorf("%q: coverage %+v", c.cells, ev.Coverage)
		}
		if c.want != arrow.STRING {
			continue
		}
		for i, cell := range c.cells {
			if got := cols[0].(*array.String).Value(i); cell != null && got != cell {
				t.Errorf("%q: row %d reads %q, want %q", c.cells, i, got, cell)
			}
		}
	}
}

// TestCSVInferZipCodes: vega-datasets' zip codes (testdata/vega/zipcodes-640.csv) keep
// their leading zeros under Infer: zip_code stays text, 00501 reads "00501".
func TestCSVInferZipCodes(t *testing.T) {
	sc, cols, ev := openRead(t, filepath.Join("..", "testdata", "vega", "zipcodes-640.csv"), Options{Infer: true})
	if ev.Coverage.Status != StatusComplete || sc.Field(0).Name != "zip_code" || sc.Field(0).Type.ID() != arrow.STRING {
		t.Fatalf("zip_code inferred %v (coverage %+v), want text", sc.Field(0).Type, ev.Coverage)
	}
	zips := cols[0].(*array.String)
	if zips.Len() != 640 || zips.Value(0) != "00501" || zips.Value(620) != "02108" {
		t.Errorf("%d zips, first %q, 621st %q; want 640, 00501 and 02108 (lines 2 and 622 of the file)", zips.Len(), zips.Value(0), zips.Value(620))
	}
}

func TestCSVTypedVocabulary(t *testing.T) {
	cols := []Column{
		{"i8", "int8"}, {"u16", "uint16"}, {"f32", "float32"}, {"bo", "bool"}, {"d", "decimal(5,2)"},
		{"b64", "bytes(base64)"}, {"ts", "timestamp(ms)"}, {"tz", "timestamp(us,UTC)"}, {"big", "decimal(40,0)"},
	}
	data := "i8,u16,f32,bo,d,b64,ts,tz,big\n" +
		"-128,65535,0.5,true,-123.4,AAE=,2026-11-30T12:34:56.789,2026-11-30T12:00:00+01:00,1234567890123456789012345678901234567890\n"
	p := writeFile(t, t.TempDir(), "v.csv", []byte(data))
	sc, got, ev := openRead(t, p, Options{Columns: cols})
	if ev.Coverage.Status != StatusComplete {
		t.Fatalf("coverage %+v", ev.Coverage)
	}
	if sc.Field(0).Type.ID() != arrow.INT8 || sc.Field(0).Metadata.Values()[sc.Field(0).Metadata.FindKey(MetaSourceWidth)] != "8" {
		t.Fatalf("field 0 %v", sc.Field(0))
	}
	if got[0].(*array.Int8).Value(0) != -128 || got[1].(*array.Uint16).Value(0) != 65535 || got[2].(*array.Float32).Value(0) != 0.5 || !got[3].(*array.Boolean).Value(0) {
		t.Fatalf("ints/float/bool wrong")
	}
	// -123.4 at scale 2 is the unscaled integer -12340.
	if d := got[4].(*array.Decimal128).Value(0); d != decimal128.FromI64(-12340) {
		t.Fatalf("decimal %v", d)
	}
	if b := got[5].(*array.Binary).Value(0); string(b) != "\x00\x01" {
		t.Fatalf("base64 %x", b)
	}
	// 2026-11-30 is day 20787 since 1970-01-01: 20787*86400 = 1795996800 s.
	// 12:34:56.789 adds 45296.789 s. Naive: stored as if UTC.
	if v := got[6].(*array.Timestamp).Value(0); v != arrow.Timestamp((1795996800+45296)*1000+789) {
		t.Fatalf("naive timestamp %d", v)
	}
	// 12:00+01:00 is 11:00Z: 1795996800+39600 s, in microseconds.
	if v := got[7].(*array.Timestamp).Value(0); v != arrow.Timestamp((1795996800+39600)*1000000) {
		t.Fatalf("zoned timestamp %d", v)
	}
	if sc.Field(8).Type.ID() != arrow.DECIMAL256 {
		t.Fatalf("decimal(40,0) is %v", sc.Field(8).Type)
	}
	if s := got[8].(*array.Decimal256).ValueStr(0); s != "1234567890123456789012345678901234567890" {
		t.Fatalf("decimal256 %s", s)
	}
}

func TestCSVCellRejections(t *testing.T) {
	cases := []struct{ typ, cell string }{
		{"bool", "TRUE"}, {"bool", "1"}, {"int8", "128"}, {"int64", "1_000"}, {"int64", "0x10"}, {"int64", " 1"},
		{"uint64", "-1"}, {"uint64", "+1"}, {"float64", "0x1p3"}, {"float64", "1_0.0"}, {"float64", "."}, {"float64", "1e"},
		{"decimal(5,2)", "1.234"}, {"decimal(5,2)", "1234.5"}, {"decimal(5,2)", "1e2"}, {"decimal(5,2)", ".5"}, {"decimal(5,2)", "5."},
		{"timestamp(s)", "2026-01-01T00:00:00.5"}, {"timestamp(ms)", "2026-01-01T00:00:00Z"}, {"timestamp(ms,UTC)", "2026-01-01T00:00:00"},
		{"timestamp(s)", "2026-01-01T00:00:00,0"}, {"timestamp(ns)", "2300-01-01T00:00:00"}, {"bytes(hex)", "abc"}, {"bytes(base64)", "AAE"},
	}
	for _, tc := range cases {
		t.Run(tc.typ+"/"+tc.cell, func(t *testing.T) {
			ct, ok := parseType(tc.typ)
			if !ok {
				t.Fatalf("type %q does not parse", tc.typ)
			}
			var c cell
			code, detail := ct.parseText(tc.cell, &c)
			if code != CodeType {
				t.Fatalf("accepted %q as %s", tc.cell, tc.typ)
			}
			if len(tc.cell) > 2 && strings.Contains(detail, tc.cell) {
				t.Fatalf("detail %q leaks the value", detail)
			}
		})
	}
}

func TestParseType(t *testing.T) {
	good := map[string]string{"bytes": "bytes(hex)", "decimal(10, 2)": "decimal(10,2)", "timestamp(us, UTC)": "timestamp(us,UTC)", "timestamp(s,+05:30)": "timestamp(s,+05:30)"}
	for in, want := range good {
		ct, ok := parseType(in)
		if !ok || ct.spell != want {
			t.Errorf("parseType(%q) = %q, %v; want %q", in, ct.spell, ok, want)
		}
	}
	for _, bad := range []string{"", "INT64", "int", "decimal(0,0)", "decimal(77,0)", "decimal(5,6)", "decimal(5)", "timestamp(h)", "timestamp(s,Local)", "timestamp(s,Nowhere/City)", "timestamp(s,UTC,x)", "text(3)"} {
		if _, ok := parseType(bad); ok {
			t.Errorf("parseType(%q) accepted", bad)
		}
	}
}

func TestCSVFailureDetailLimit(t *testing.T) {
	var b strings.Builder
	b.WriteString("a\n")
	for i := 0; i < 10; i++ {
		fmt.Fprintf(&b, "x%d\n", i)
	}
	p := writeFile(t, t.TempDir(), "l.csv", []byte(b.String()))
	_, _, ev := openRead(t, p, Options{Columns: []Column{{"a", "int64"}}, MaxFailureDetails: 3})
	c := ev.Coverage
	if c.FailureCount != 10 || len(c.Failures) != 3 || c.FailedRecords != 10 || c.Returned != 0 || c.Status != StatusPartial {
		t.Fatalf("coverage %+v", c)
	}
	r := c.Reasons()
	if len(r) != 4 || r[3] != "PW_SOURCE_LIMIT: 7 more failures not kept" || r[0] != `PW_SOURCE_TYPE line 2 column "a": not a base-10 int64` {
		t.Fatalf("reasons %q", r)
	}
}

func TestIncompleteRead(t *testing.T) {
	p := writeFile(t, t.TempDir(), "x.csv", []byte("a\n1\n2\n3\n"))
	src, err := Open(context.Background(), p, Options{BatchSize: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	rec, err := src.Next(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	rec.Release()
	c := src.Evidence().Coverage
	if c.Status != StatusPartial || c.ExpectedKnown || c.Failures[0].Code != CodeIncomplete {
		t.Fatalf("coverage before EOF %+v", c)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := src.Next(ctx); CodeOf(err) != CodeIncomplete {
		t.Fatalf("cancelled Next: %v", err)
	}
}

func TestCSVUnterminatedQuoteIsBounded(t *testing.T) {
	// An unterminated quote swallows every following line into one field;
	// the record limit stops it instead of buffering the whole file.
	var b strings.Builder
	b.WriteString("a\n\"")
	for b.Len() < 300000 {
		b.WriteString("short line\n")
	}
	p := writeFile(t, t.TempDir(), "q.csv", []byte(b.String()))
	src, err := Open(context.Background(), p, Options{MaxLineBytes: 1000})
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	if _, err := src.Next(context.Background()); CodeOf(err) != CodeLimit {
		t.Fatalf("error %v, want %s", err, CodeLimit)
	}
	if c := src.Evidence().Coverage; c.Status != StatusUnavailable || c.Failures[0].Code != CodeLimit {
		t.Fatalf("coverage %+v", c)
	}
}

// TestCSVAcrossReadBuffers reads a file several times the parser's read
// buffer whose records have quoted fields with escaped quotes, commas, LF and
// CRLF line breaks, empty lines between records and a record that is
// malformed, and compares every value and failure with encoding/csv's
// reading of the same bytes (the reference the adapter's CSV rules follow).
func TestCSVAcrossReadBuffers(t *testing.T) {
	var b strings.Builder
	b.WriteString("k,v\r\n")
	for i := 0; b.Len() < 3*csvBufSize; i++ {
		switch i % 7 {
		case 0:
			fmt.Fprintf(&b, "%d,plain %d\n", i, i)
		case 1:
			fmt.Fprintf(&b, "%d,\"quoted, \"\"%d\"\"\"\r\n", i, i)
		case 2:
			fmt.Fprintf(&b, "\"%d\",\"two\nlines\r\nthree %d\"\n", i, i)
		case 3:
			fmt.Fprintf(&b, "\n%d,%s\n", i, strings.Repeat("x", i%500))
		case 4:
			fmt.Fprintf(&b, "%d,bad\"quote\n", i)
		default:
			fmt.Fprintf(&b, "%d,\"\"\n", i)
		}
	}
	data := b.String()
	p := writeFile(t, t.TempDir(), "big.csv", []byte(data))
	_, cols, ev := openRead(t, p, Options{BatchSize: 1000})
	r := csv.NewReader(strings.NewReader(data))
	if _, err := r.Read(); err != nil {
		t.Fatal(err)
	}
	var keys, vals []string
	var bad []uint64
	for {
		rec, err := r.Read()
		if err == io.EOF {
			break
		}
		if pe := (*csv.ParseError)(nil); errors.As(err, &pe) {
			bad = append(bad, uint64(pe.StartLine))
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		keys, vals = append(keys, rec[0]), append(vals, rec[1])
	}
	k, v := cols[0].(*array.String), cols[1].(*array.String)
	if k.Len() != len(keys) {
		t.Fatalf("%d rows, encoding/csv %d", k.Len(), len(keys))
	}
	for i := range keys {
		if k.Value(i) != keys[i] || v.Value(i) != vals[i] {
			t.Fatalf("row %d = %q,%q; encoding/csv %q,%q", i, k.Value(i), v.Value(i), keys[i], vals[i])
		}
	}
	if len(bad) == 0 || uint64(len(bad)) != ev.Coverage.FailedRecords {
		t.Fatalf("%d failures, encoding/csv %d", ev.Coverage.FailedRecords, len(bad))
	}
	for i, f := range ev.Coverage.Failures {
		if f.Code != CodeCSVRow || f.Line != bad[i] {
			t.Fatalf("failure %d = %+v, want line %d", i, f, bad[i])
		}
	}
}

// TestCSVLimitAfterGoodRecords: the records before an overlong one are
// returned, then the read stops with PW_SOURCE_LIMIT; nothing after it is
// read. A record of several lines counts all of them.
func TestCSVLimitAfterGoodRecords(t *testing.T) {
	for _, tc := range []struct {
		name, data string
	}{
		{"long line", "a\n1\n2\n" + strings.Repeat("x", 51) + "\n3\n"},
		{"long multi-line record", "a\n1\n2\n\"" + strings.Repeat("x\n", 30) + "\"\n3\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := writeFile(t, t.TempDir(), "l.csv", []byte(tc.data))
			src, err := Open(context.Background(), p, Options{MaxLineBytes: 50})
			if err != nil {
				t.Fatal(err)
			}
			defer src.Close()
			rec, err := src.Next(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			if rec.NumRows() != 2 {
				t.Fatalf("%d rows before the limit, want 2", rec.NumRows())
			}
			rec.Release()
			if _, err := src.Next(context.Background()); CodeOf(err) != CodeLimit {
				t.Fatalf("error %v, want %s", err, CodeLimit)
			}
			c := src.Evidence().Coverage
			if c.Returned != 2 || c.ExpectedKnown || c.Status != StatusPartial {
				t.Fatalf("coverage %+v", c)
			}
		})
	}
}

// TestCSVTypedCellsMatchParseText reads typed cells through the adapter
// (the byte fast paths) and requires the values parseText gives for the same
// text.
func TestCSVTypedCellsMatchParseText(t *testing.T) {
	cols := []Column{{"i", "int64"}, {"i8", "int8"}, {"f", "float64"}, {"ts", "timestamp(us)"}, {"tz", "timestamp(ns,UTC)"}}
	rows := [][]string{
		{"-9223372036854775808", "-128", "1e-7", "2026-09-21T14:13:20.000003", "2026-09-21T14:13:20Z"},
		{"123456789012345678", "127", "-0", "0001-01-01 00:00:00", "1970-01-01T00:00:00.000000001Z"},
		{"+42", "0", "494241.58", "2024-02-29T23:59:59.9", "2026-01-01T01:00:00+01:00"},
	}
	var b strings.Builder
	b.WriteString("i,i8,f,ts,tz\n")
	for _, r := range rows {
		b.WriteString(strings.Join(r, ",") + "\n")
	}
	p := writeFile(t, t.TempDir(), "t.csv", []byte(b.String()))
	_, got, ev := openRead(t, p, Options{Columns: cols})
	if ev.Coverage.Status != StatusComplete {
		t.Fatalf("coverage %+v", ev.Coverage)
	}
	for r, row := range rows {
		for c, text := range row {
			ct, _ := parseType(cols[c].Type)
			var want cell
			if code, _ := ct.parseText(text, &want); code != "" {
				t.Fatalf("parseText rejects %q", text)
			}
			switch a := got[c].(type) {
			case *array.Int64:
				if a.Value(r) != want.i {
					t.Errorf("%s row %d: %v, want %v", cols[c].Name, r, a.Value(r), want.i)
				}
			case *array.Int8:
				if int64(a.Value(r)) != want.i {
					t.Errorf("%s row %d: %v, want %v", cols[c].Name, r, a.Value(r), want.i)
				}
			case *array.Float64:
				if math.Float64bits(a.Value(r)) != math.Float64bits(want.f) {
					t.Errorf("%s row %d: %v, want %v", cols[c].Name, r, a.Value(r), want.f)
				}
			case *array.Timestamp:
				if int64(a.Value(r)) != want.i {
					t.Errorf("%s row %d: %v, want %v", cols[c].Name, r, a.Value(r), want.i)
				}
			}
		}
	}
	// One value worked by hand: 2026-09-21T14:13:20 is 1_790_000_000 s
	// (bench/gen's base instant), plus 3 us.
	if v := got[3].(*array.Timestamp).Value(0); v != 1_790_000_000_000_003 {
		t.Fatalf("ts = %d", v)
	}
}
