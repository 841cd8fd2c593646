package snapshot

import (
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
	`[[[[[[[[]]]]]]]]`, `[[[[[[[[[]]]]]]]]]`, `{"a":{"b":{"c":{"d":{"e":{"f":{"g":{"h":{}}}}}}}}}`,
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
	f.Fuzz(checkFastParse)
}
