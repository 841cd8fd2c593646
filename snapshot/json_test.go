package snapshot

import (
	"encoding/json"
	"errors"
	"io"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"
)

// jsonCases are documents at the edges of the fast parser's subset: each is parsed by
// parseJSON (fast path first) and by the token decoder alone, which must agree.
var jsonCases = []string{
	fixtureManifest, plainManifest,
	`{}`, `[]`, ` { } `, "\t[\n1 ,\r2]\n", `{"a":[1,-0,0.5,-1.25e+10,3E-2,true,false,null,"x"]}`,
	`{"a":1,"a":2}`, `{"a":1,}`, `[1,]`, `[1 2]`, `{"a" 1}`, `{1:2}`, `{"a":1}x`, `{"a":1} {}`,
	`01`, `-`, `1.`, `.5`, `1e`, `1e+`, `+1`, `-01`, `1.5e3x`, `[01]`, `nul`, `truex`, `[true1]`,
	`"a\"b"`, `"\u00e9"`, `"é ✓ \u007f"`, "\"a\x01b\"", `"\ud800"`, `"abc`, `[`, `{`, `{"a":`, ``, ` `,
	`[[[[[[[[]]]]]]]]`, `[[[[[[[[[]]]]]]]]]`, `{"a"`, `{"a" `, `[1`, `[1 `, `{"a":{"b":{"c":{"d":{"e":{"f":{"g":{"h":{}}}}}}}}}`,
	`{"a":{"b":{"c":{"d":{"e":{"f":{"g":{}}}}}}}}`,
	strings.Replace(fixtureManifest, `"format":`, `"format":"x","format":`, 1),
}

// plainManifest is the fixture manifest without the escapes in its scope.
var plainManifest = strings.Replace(fixtureManifest, ` & \"q\"\t\u0001`, "", 1)

// checkFastParse fails t when parseJSON and the token decoder disagree on data: on
// acceptance, on the tree, or on the error's words.
func checkFastParse(t *testing.T, data []byte) {
	t.Helper()
	got, gerr := parseJSON(data)
	if !utf8.Valid(data) {
		if gerr == nil {
			t.Fatalf("%q: accepted invalid UTF-8", data)
		}
		return
	}
	want, werr := parseTokens(data)
	if (gerr == nil) != (werr == nil) || (gerr != nil && gerr.Error() != werr.Error()) {
		t.Fatalf("%q: error %v, token decoder %v", data, gerr, werr)
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("%q: tree differs from the token decoder's", data)
	}
}

func TestFastParseAgreesWithTokens(t *testing.T) {
	accepted := 0
	for _, c := range jsonCases {
		checkFastParse(t, []byte(c))
		if _, ok := fastParse([]byte(c)); ok {
			accepted++
		}
	}
	// The fast path must actually take the plain documents, the manifest first.
	if _, ok := fastParse([]byte(plainManifest)); !ok || plainManifest == fixtureManifest || accepted < 5 {
		t.Fatalf("fast parser took %d plain documents (manifest among them: %v)", accepted, ok)
	}
	for _, c := range []string{`{"a":1,"a":2}`, `"a\"b"`, "\"a\x01b\"", `[[[[[[[[[]]]]]]]]]`, `01`, `{"a":1} {}`} {
		if _, ok := fastParse([]byte(c)); ok {
			t.Errorf("fast parser took %q, outside its subset", c)
		}
	}
}

func FuzzFastParse(f *testing.F) {
	for _, c := range jsonCases {
		f.Add([]byte(c))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > 1<<16 { // bounds each run, and so each minimization
			t.Skip("input over 64 KiB")
		}
		checkFastParse(t, data)
	})
}

// nested returns depth levels of arrays (obj false) or of objects keyed "k" (obj true)
// around an empty one: depth 1 is `[]` or `{}`.
func nested(depth int, obj bool) string {
	open, close := "[", "]"
	if obj {
		open, close = `{"k":`, "}"
	}
	inner := "[]"
	if obj {
		inner = "{}"
	}
	return strings.Repeat(open, depth-1) + inner + strings.Repeat(close, depth-1)
}

// TestFastParseTakesPlainDocuments pins the fast parser's subset from the inside: each
// of these documents is plain (no escape, no control character, no duplicate key, nesting
// within maxDepth), so fastParse itself must take it, with the token decoder's tree. A
// fast parser that declined one would still pass TestFastParseAgreesWithTokens (the token
// decoder would answer), so that test cannot see a number, bracket or sign it misreads.
func TestFastParseTakesPlainDocuments(t *testing.T) {
	plain := []string{
		`{}`, `[]`, `[0]`, `[1]`, `[1,2]`, `{"a":0}`, `{"a":1,"b":[]}`,
		`0`, `9`, `10`, `19`, `90`, `-1`, `-0`, `-9`, `0.5`, `1.5`, `1.09`, `1e5`, `1E5`,
		`1e+5`, `1e-5`, `-0.09E+19`, `"x"`, `true`, `false`, `null`,
		nested(maxDepth, false), nested(maxDepth, true), plainManifest,
	}
	for _, c := range plain {
		got, ok := fastParse([]byte(c))
		if !ok {
			t.Errorf("fast parser declined the plain document %q", c)
			continue
		}
		want, err := parseTokens([]byte(c))
		if err != nil {
			t.Fatalf("%q: token decoder: %v", c, err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%q: fast tree differs from the token decoder's", c)
		}
	}
}

// TestJSONDepthLimit: maxDepth levels parse, one more is rejected, by both parsers, for
// arrays and for objects.
func TestJSONDepthLimit(t *testing.T) {
	for _, obj := range []bool{false, true} {
		at, past := nested(maxDepth, obj), nested(maxDepth+1, obj)
		if _, err := parseJSON([]byte(at)); err != nil {
			t.Errorf("%s: %v", at, err)
		}
		if _, err := parseTokens([]byte(at)); err != nil {
			t.Errorf("token decoder, %s: %v", at, err)
		}
		if _, err := parseJSON([]byte(past)); err == nil {
			t.Errorf("%s (%d levels) accepted", past, maxDepth+1)
		}
		if _, err := parseTokens([]byte(past)); err == nil {
			t.Errorf("token decoder, %s (%d levels) accepted", past, maxDepth+1)
		}
	}
}

// TestJSONErrorKinds: a document that ends before its value is io.ErrUnexpectedEOF; a
// syntax error stays the decoder's *json.SyntaxError, not an end of input.
func TestJSONErrorKinds(t *testing.T) {
	for _, c := range []string{``, ` `, `{"a":`, `[1,`} {
		if _, err := parseJSON([]byte(c)); !errors.Is(err, io.ErrUnexpectedEOF) {
			t.Errorf("%q: error %v, want io.ErrUnexpectedEOF", c, err)
		}
	}
	for _, c := range []string{`}`, `]`, `[}`} {
		_, err := parseJSON([]byte(c))
		var se *json.SyntaxError
		if !errors.As(err, &se) {
			t.Errorf("%q: error %v (%T), want *json.SyntaxError", c, err, err)
		}
	}
}
