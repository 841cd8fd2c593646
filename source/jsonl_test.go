package source

import (
	"context"
	"math"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/pipewhy/pipewhy/internal/decimaltext"
)

func TestJSONLInferExact(t *testing.T) {
	data := `{"i":9007199254740993,"u":18446744073709551615,"f":0.1,"s":"x","b":true,"n":null}
{"i":-9223372036854775808,"u":0,"f":1e-3,"s":"","b":false,"n":null}
`
	p := writeFile(t, t.TempDir(), "e.jsonl", []byte(data))
	sc, cols, ev := openRead(t, p, Options{})
	want := []arrow.Type{arrow.INT64, arrow.UINT64, arrow.EXTENSION, arrow.STRING, arrow.BOOL, arrow.STRING}
	for i, w := range want {
		if sc.Field(i).Type.ID() != w {
			t.Fatalf("column %s inferred %v, want %v", sc.Field(i).Name, sc.Field(i).Type, w)
		}
	}
	// 2^53+1 is not representable in float64: exactness proves no float path. The
	// fractions 0.1 and 1e-3 are kept as written, in a decimal text column.
	if v := cols[0].(*array.Int64).Value(0); v != 9007199254740993 {
		t.Fatalf("int64 %d", v)
	}
	if v := cols[0].(*array.Int64).Value(1); v != math.MinInt64 {
		t.Fatalf("int64 %d", v)
	}
	if v := cols[1].(*array.Uint64).Value(0); v != math.MaxUint64 {
		t.Fatalf("uint64 %d", v)
	}
	if !decimaltext.Is(sc.Field(2).Type) {
		t.Fatalf("column f is %v, want decimal text", sc.Field(2).Type)
	}
	if d := cols[2].(*decimaltext.Array).Storage().(*array.String); d.Value(0) != "0.1" || d.Value(1) != "1e-3" {
		t.Fatalf("decimal text %v", d)
	}
	if cols[5].NullN() != 2 || ev.Coverage.Status != StatusComplete || ev.Choices[0] != "schema=inferred(full-scan)" {
		t.Fatalf("nulls/coverage %+v", ev)
	}
}

func TestJSONLInferRejects(t *testing.T) {
	cases := []struct {
		name, data string
		code       Code
	}{
		{"bool and number", "{\"a\":true}\n{\"a\":1}\n", CodeType},
		{"nested", "{\"a\":{\"b\":1}}\n", CodeUnsupported},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p := writeFile(t, t.TempDir(), "r.jsonl", []byte(tc.data))
			_, err := Open(context.Background(), p, Options{})
			if CodeOf(err) != tc.code {
				t.Fatalf("error %v, want %s", err, tc.code)
			}
		})
	}
}

func TestJSONLMalformedLines(t *testing.T) {
	cols := []Column{{"id", "int64"}, {"s", "text"}}
	cases := []struct {
		name   string
		line   string
		code   Code
		column string
		opts   Options
	}{
		{"truncated", `{"id":2,"s":"x"`, CodeJSONLine, "", Options{}},
		{"not an object", `[1,2]`, CodeJSONLine, "", Options{}},
		{"trailing text", `{"id":2,"s":"x"} x`, CodeJSONLine, "", Options{}},
		{"blank", `   `, CodeJSONLine, "", Options{}},
		{"invalid utf8", "{\"id\":2,\"s\":\"\xff\"}", CodeUTF8, "", Options{}},
		{"lone surrogate", `{"id":2,"s":"\ud800"}`, CodeUTF8, "", Options{}},
		{"reversed surrogates", `{"id":2,"s":"\udc00\ud800"}`, CodeUTF8, "", Options{}},
		{"duplicate key", `{"id":2,"s":"x","id":3}`, CodeDuplicate, "id", Options{}},
		{"extra key", `{"id":2,"s":"x","zz":1}`, CodeExtra, "zz", Options{}},
		{"missing key", `{"id":2}`, CodeMissing, "s", Options{}},
		{"fraction in int", `{"id":2.0,"s":"x"}`, CodeType, "id", Options{}},
		{"exponent in int", `{"id":2e0,"s":"x"}`, CodeType, "id", Options{}},
		{"string in int", `{"id":"2","s":"x"}`, CodeType, "id", Options{}},
		{"number in text", `{"id":2,"s":5}`, CodeType, "s", Options{}},
		{"bool in text", `{"id":2,"s":true}`, CodeType, "s", Options{}},
		{"nested in text", `{"id":2,"s":[1]}`, CodeUnsupported, "s", Options{}},
		{"int overflow", `{"id":9223372036854775808,"s":"x"}`, CodeType, "id", Options{}},
		{"leading zero", `{"id":02,"s":"x"}`, CodeJSONLine, "", Options{}},
		{"plus sign", `{"id":+2,"s":"x"}`, CodeJSONLine, "", Options{}},
		{"control char", "{\"id\":2,\"s\":\"a\tb\"}", CodeJSONLine, "", Options{}},
		{"bad escape", `{"id":2,"s":"\x41"}`, CodeJSONLine, "", Options{}},
		{"too long", `{"id":2,"s":"` + strings.Repeat("y", 200) + `"}`, CodeLimit, "", Options{MaxLineBytes: 100}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			data := "{\"id\":1,\"s\":\"a\"}\n" + tc.line + "\n{\"id\":3,\"s\":\"c\"}"
			opts := tc.opts
			opts.Columns = cols
			p := writeFile(t, t.TempDir(), "m.jsonl", []byte(data))
			_, got, ev := openRead(t, p, opts)
			if got[0].Len() != 2 {
				t.Fatalf("returned %d rows", got[0].Len())
			}
			checkFailures(t, ev, []wantFailure{{tc.code, 2, tc.column}}, "")
			if c := ev.Coverage; c.Status != StatusPartial || c.Expected != 3 {
				t.Fatalf("coverage %+v", c)
			}
		})
	}
}

func TestJSONLMissingAsNullAndEscapes(t *testing.T) {
	data := "{\"id\":1}\r\n{\"s\":\"\\\"\\\\\\/\\b\\f\\n\\r\\t\\u00e9\\ud83d\\ude00\",\"id\":2}\n"
	p := writeFile(t, t.TempDir(), "n.jsonl", []byte(data))
	_, cols, ev := openRead(t, p, Options{Columns: []Column{{"id", "int64"}, {"s", "text"}}, MissingAsNull: true})
	s := cols[1].(*array.String)
	if !s.IsNull(0) || s.Value(1) != "\"\\/\b\f\n\r\té😀" {
		t.Fatalf("values %q", s.Value(1))
	}
	if ev.Coverage.Status != StatusComplete || ev.Choices[1] != "missing=null" {
		t.Fatalf("evidence %+v", ev)
	}
}

func TestJSONLTypedStrings(t *testing.T) {
	data := `{"d":"-1.50","d2":12.25,"b":"AAE=","t":"2026-11-30T00:00:00Z"}` + "\n"
	p := writeFile(t, t.TempDir(), "t.jsonl", []byte(data))
	_, cols, ev := openRead(t, p, Options{Columns: []Column{{"d", "decimal(4,2)"}, {"d2", "decimal(4,2)"}, {"b", "bytes(base64)"}, {"t", "timestamp(s,UTC)"}}})
	if ev.Coverage.Status != StatusComplete {
		t.Fatalf("coverage %+v", ev.Coverage)
	}
	if cols[0].(*array.Decimal128).Value(0).ToString(2) != "-1.50" || cols[1].(*array.Decimal128).Value(0).ToString(2) != "12.25" {
		t.Fatalf("decimals %v %v", cols[0], cols[1])
	}
	// 2026-11-30T00:00:00Z = 20787 days * 86400 s.
	if cols[3].(*array.Timestamp).Value(0) != 1795996800 {
		t.Fatalf("timestamp %v", cols[3])
	}
}

func TestJSONLEmptyFile(t *testing.T) {
	p := writeFile(t, t.TempDir(), "e.jsonl", nil)
	sc, _, ev := openRead(t, p, Options{})
	if sc.NumFields() != 0 || ev.Coverage.Status != StatusComplete || ev.Coverage.Expected != 0 {
		t.Fatalf("schema %v coverage %+v", sc, ev.Coverage)
	}
}

func TestParseJSONInteger(t *testing.T) {
	cases := []struct {
		typ, lit string
		ok       bool
		i        int64
		u        uint64
	}{
		{"int8", "-128", true, -128, 0}, {"int8", "127", true, 127, 0}, {"int8", "128", false, 0, 0}, {"int8", "-129", false, 0, 0},
		{"int64", "-9223372036854775808", true, math.MinInt64, 0}, {"int64", "9223372036854775807", true, math.MaxInt64, 0},
		{"int64", "-9223372036854775809", false, 0, 0}, {"int64", "9223372036854775808", false, 0, 0}, {"int64", "-0", true, 0, 0},
		{"uint8", "255", true, 0, 255}, {"uint8", "256", false, 0, 0}, {"uint64", "18446744073709551615", true, 0, math.MaxUint64},
		{"uint64", "18446744073709551616", false, 0, 0}, {"uint64", "99999999999999999999999", false, 0, 0}, {"uint64", "-0", false, 0, 0},
		{"uint16", "-1", false, 0, 0},
	}
	for _, tc := range cases {
		ct, _ := parseType(tc.typ)
		var c cell
		code, _ := ct.parseJSONInteger([]byte(tc.lit), &c)
		if (code == "") != tc.ok || (tc.ok && (c.i != tc.i || c.u != tc.u)) {
			t.Errorf("%s %s: code %q i %d u %d", tc.typ, tc.lit, code, c.i, c.u)
		}
	}
}
