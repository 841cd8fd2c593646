package snapshot

import (
	"errors"
	"strings"
	"testing"
)

func TestManifestEncodeFixture(t *testing.T) {
	m := manifest{Meta: fixtureMetadata(t), Entries: map[string]entry{}}
	for k, a := range fixtureArrays() {
		m.Entries[k] = entryOf(k, a)
	}
	if got := string(m.encode()); got != fixtureManifest {
		t.Fatalf("canonical manifest differs\n got %s\nwant %s", got, fixtureManifest)
	}
	back, err := decodeManifest([]byte(fixtureManifest))
	if err != nil {
		t.Fatal(err)
	}
	if back.Meta.Scope != m.Meta.Scope || back.Meta.FinishedAtNs != 1<<64-1 || back.Meta.Parent != nil ||
		!back.Meta.Coverage.Expected.Known || back.Meta.Coverage.Expected.N != 3 || len(back.Entries) != 3 ||
		back.Entries["ids"] != m.Entries["ids"] || back.Meta.Fingerprint != m.Meta.Fingerprint {
		t.Fatalf("decoded manifest differs: %+v", back)
	}
}

func TestManifestNoHTMLOrUnicodeEscapes(t *testing.T) {
	// encoding/json would write \u003c, \u003e, \u0026 and \u2028: Python's
	// json.dumps(ensure_ascii=False) writes these characters raw.
	got := string(appendJSONString(nil, "<>&\u2028\u2029é\x7f/\"\\\b\f\n\r\t\x00\x1f"))
	want := "\"<>&\u2028\u2029é\x7f/\\\"\\\\\\b\\f\\n\\r\\t\\u0000\\u001f\""
	if got != want {
		t.Fatalf("got %q, want %q", got, want)
	}
}

// TestManifestRejects changes the hand-written fixture in one place per case.
func TestManifestRejects(t *testing.T) {
	r := func(old, new string) string {
		if !strings.Contains(fixtureManifest, old) {
			t.Fatalf("fixture has no %q", old)
		}
		return strings.Replace(fixtureManifest, old, new, 1)
	}
	ids := `"ids":{"byte_length":"24","count":"3","dtype":"uint64","endianness":"little","file":"array-ids.bin"`
	tests := []struct {
		name string
		data string
		code Code
	}{
		{"empty", "", CodeInvalidManifest},
		{"not an object", "[]", CodeInvalidManifest},
		{"invalid UTF-8", r("ü", "\xff"), CodeInvalidManifest},
		{"trailing data", fixtureManifest + "{}", CodeInvalidManifest},
		{"trailing newline", fixtureManifest + "\n", CodeInvalidManifest},
		{"truncated", fixtureManifest[:len(fixtureManifest)-1], CodeInvalidManifest},
		{"duplicate top key", r(`"format":"pipewhy.snapshot",`, `"format":"pipewhy.snapshot","format":"pipewhy.snapshot",`), CodeInvalidManifest},
		{"duplicate nested key", r(`"scope":`, `"scope":"x","scope":`), CodeInvalidManifest},
		{"duplicate array key", r(`"none":{`, `"flags":{},"none":{`), CodeInvalidManifest},
		{"unknown top field", r(`"format":`, `"extra":1,"format":`), CodeInvalidManifest},
		{"unknown snapshot field", r(`"parent_id":null,`, `"parent_id":null,"pid":null,`), CodeInvalidManifest},
		{"unknown coverage field", r(`"status":"COMPLETE"`, `"status":"COMPLETE","x":"1"`), CodeInvalidManifest},
		{"unknown fingerprint field", r(`"mode":"unordered",`, `"mode":"unordered","n":"1",`), CodeInvalidManifest},
		{"unknown entry field", r(`"file":"array-ids.bin",`, `"file":"array-ids.bin","offset":"0",`), CodeInvalidManifest},
		{"missing parent_id", r(`"parent_id":null,`, ``), CodeInvalidManifest},
		{"misspelled arrays", r(`"arrays":{`, `"arrayz":{`), CodeInvalidManifest},
		{"missing sha256", r(`,"sha256":"fcc4cc05323d8851a676a44e87879ee41dff197698e6054d955b561c2bf62df6"`, ``), CodeInvalidManifest},
		{"wrong format", r(`"pipewhy.snapshot"`, `"pipewhy.snapshots"`), CodeUnsupported},
		{"format not string", r(`"format":"pipewhy.snapshot"`, `"format":1`), CodeInvalidManifest},
		{"version 3", r(`"version":1}`, `"version":3}`), CodeUnsupported},
		{"version 2 with version 1 entries", r(`"version":1}`, `"version":2}`), CodeInvalidManifest},
		{"version 0", r(`"version":1}`, `"version":0}`), CodeUnsupported},
		{"version string", r(`"version":1}`, `"version":"1"}`), CodeInvalidManifest},
		{"version float", r(`"version":1}`, `"version":1.0}`), CodeInvalidManifest},
		{"version exponent", r(`"version":1}`, `"version":1e0}`), CodeInvalidManifest},
		{"version bool", r(`"version":1}`, `"version":true}`), CodeInvalidManifest},
		{"version null", r(`"version":1}`, `"version":null}`), CodeInvalidManifest},
		{"version negative", r(`"version":1}`, `"version":-1}`), CodeInvalidManifest},
		{"NaN", r(`"version":1}`, `"version":NaN}`), CodeInvalidManifest},
		{"array schema 1.1", r(`"array_schema_version":"1.0"`, `"array_schema_version":"1.1"`), CodeUnsupported},
		{"array schema number", r(`"array_schema_version":"1.0"`, `"array_schema_version":1.0`), CodeInvalidManifest},
		{"count as number", r(`"count":"3","dtype":"uint64"`, `"count":3,"dtype":"uint64"`), CodeInvalidManifest},
		{"count as float string", r(`"count":"3","dtype":"uint64"`, `"count":"3.0","dtype":"uint64"`), CodeInvalidManifest},
		{"count leading zero", r(`"count":"3","dtype":"uint64"`, `"count":"03","dtype":"uint64"`), CodeInvalidManifest},
		{"count signed", r(`"count":"3","dtype":"uint64"`, `"count":"+3","dtype":"uint64"`), CodeInvalidManifest},
		{"count bool", r(`"count":"3","dtype":"uint64"`, `"count":true,"dtype":"uint64"`), CodeInvalidManifest},
		{"started as number", r(`"started_at_ns":"0"`, `"started_at_ns":0`), CodeInvalidManifest},
		{"started negative", r(`"started_at_ns":"0"`, `"started_at_ns":"-0"`), CodeInvalidManifest},
		{"finished overflow", r(`"18446744073709551615"`, `"18446744073709551616"`), CodeInvalidManifest},
		{"finished before started", strings.Replace(r(`"finished_at_ns":"18446744073709551615"`, `"finished_at_ns":"5"`), `"started_at_ns":"0"`, `"started_at_ns":"6"`, 1), CodeInvalidMetadata},
		{"returned as number", r(`"returned_records":"3"`, `"returned_records":3`), CodeInvalidManifest},
		{"expected empty string", r(`"expected_records":"3"`, `"expected_records":""`), CodeInvalidManifest},
		{"expected bool", r(`"expected_records":"3"`, `"expected_records":false`), CodeInvalidManifest},
		{"failure reasons not array", r(`"failure_reasons":[]`, `"failure_reasons":"x"`), CodeInvalidManifest},
		{"failure reason not string", r(`"failure_reasons":[]`, `"failure_reasons":[1]`), CodeInvalidManifest},
		{"snapshot id uppercase", r(`"snapshot_id":"0123456789abcdef`, `"snapshot_id":"0123456789ABCDEF`), CodeInvalidManifest},
		{"snapshot id short", r(`"snapshot_id":"0123456789abcdef0123456789abcdef"`, `"snapshot_id":"0123456789abcdef0123456789abcde"`), CodeInvalidManifest},
		{"snapshot id path", r(`"snapshot_id":"0123456789abcdef0123456789abcdef"`, `"snapshot_id":"../3456789abcdef0123456789abcdef"`), CodeInvalidManifest},
		{"snapshot id dashed uuid", r(`"snapshot_id":"0123456789abcdef0123456789abcdef"`, `"snapshot_id":"01234567-89ab-cdef-0123-456789abcdef"`), CodeInvalidManifest},
		{"parent id malformed", r(`"parent_id":null`, `"parent_id":"x"`), CodeInvalidManifest},
		{"parent id number", r(`"parent_id":null`, `"parent_id":0`), CodeInvalidManifest},
		{"parent is self", r(`"parent_id":null`, `"parent_id":"0123456789abcdef0123456789abcdef"`), CodeParent},
		{"resolution row", r(`"resolution":"record"`, `"resolution":"row"`), CodeInvalidMetadata},
		{"resolution case", r(`"resolution":"record"`, `"resolution":"RECORD"`), CodeInvalidMetadata},
		{"empty namespace", r(`"source_namespace":"sqlite:shop.db/ü"`, `"source_namespace":""`), CodeInvalidMetadata},
		{"namespace null", r(`"source_namespace":"sqlite:shop.db/ü"`, `"source_namespace":null`), CodeInvalidManifest},
		{"empty fingerprint mode", r(`"mode":"unordered"`, `"mode":""`), CodeInvalidMetadata},
		{"status unknown", r(`"status":"COMPLETE"`, `"status":"DONE"`), CodeInvalidMetadata},
		{"complete with unknown expected", r(`"expected_records":"3"`, `"expected_records":null`), CodeInvalidMetadata},
		{"complete with failures", r(`"failure_reasons":[]`, `"failure_reasons":["timeout"]`), CodeInvalidMetadata},
		{"key uppercase", strings.Replace(r(`"ids":{`, `"Ids":{`), `array-ids.bin`, `array-Ids.bin`, 1), CodeInvalidManifest},
		{"key with dot", strings.Replace(r(`"ids":{`, `"i.ds":{`), `array-ids.bin`, `array-i.ds.bin`, 1), CodeInvalidManifest},
		{"file mismatch", r(`"file":"array-ids.bin"`, `"file":"array-none.bin"`), CodeInvalidManifest},
		{"file path", r(`"file":"array-ids.bin"`, `"file":"../array-ids.bin"`), CodeInvalidManifest},
		{"dtype float64", r(ids, strings.Replace(ids, "uint64", "float64", 1)), CodeUnsupported},
		{"dtype bool", r(ids, strings.Replace(ids, "uint64", "bool", 1)), CodeUnsupported},
		{"dtype not string", r(ids, strings.Replace(ids, `"uint64"`, `8`, 1)), CodeInvalidManifest},
		{"endianness big", r(ids, strings.Replace(ids, "little", "big", 1)), CodeUnsupported},
		{"byte length mismatch", r(ids, strings.Replace(ids, `"byte_length":"24"`, `"byte_length":"23"`, 1)), CodeInvalidManifest},
		{"count mismatch", r(ids, strings.Replace(ids, `"count":"3"`, `"count":"4"`, 1)), CodeInvalidManifest},
		{"count overflow width", r(ids, strings.Replace(ids, `"count":"3"`, `"count":"2305843009213693952"`, 1)), CodeInvalidManifest},
		{"sha256 uppercase", r("fcc4cc05", "FCC4CC05"), CodeInvalidManifest},
		{"sha256 short", r("fcc4cc05", "fcc4cc0"), CodeInvalidManifest},
		{"arrays not object", r(`"arrays":{"flags"`, `"arrays":[],"x":{"flags"`), CodeInvalidManifest},
		{"whitespace", r(`,"format"`, `, "format"`), CodeInvalidManifest},
		{"unsorted keys", "{\"version\":1," + strings.TrimSuffix(fixtureManifest[1:], `,"version":1}`) + "}", CodeInvalidManifest},
		{"escaped non-ASCII", r("ü", `\u00fc`), CodeInvalidManifest},
		{"escaped slash", r("shop.db/", `shop.db\/`), CodeInvalidManifest},
		{"escaped HTML", r("<all>", `\u003call>`), CodeInvalidManifest},
		{"tab as \\u0009", r(`\"q\"\t`, `\"q\"\u0009`), CodeInvalidManifest},
		{"uppercase hex escape", r(`\t\u0001`, `\t\u0001\u001F`), CodeInvalidManifest},
		{"lone surrogate", r(`"source_version":"v1"`, `"source_version":"\ud800"`), CodeInvalidManifest},
		{"too deep", r(`"failure_reasons":[]`, `"failure_reasons":[[[[[[[[[[]]]]]]]]]]`), CodeInvalidManifest},
	}
	seen := map[string]bool{}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if tc.data == fixtureManifest {
				t.Fatal("case does not change the fixture")
			}
			if seen[tc.data] {
				t.Fatal("case duplicates another case")
			}
			seen[tc.data] = true
			_, err := decodeManifest([]byte(tc.data))
			if err == nil {
				t.Fatal("decodeManifest accepted it")
			}
			if got := codeOf(err); got != tc.code {
				t.Fatalf("code %q, want %q (%v)", got, tc.code, err)
			}
		})
	}
}

func TestIntent(t *testing.T) {
	id := mustID(t, fixtureID)
	want := `{"format":"pipewhy.snapshot.intent","snapshot_id":"0123456789abcdef0123456789abcdef","version":1}`
	if got := string(encodeIntent(id)); got != want {
		t.Fatalf("intent %s, want %s", got, want)
	}
	if got, err := decodeIntent([]byte(want)); err != nil || got != id {
		t.Fatalf("decodeIntent = %v, %v", got, err)
	}
	for _, bad := range []string{"", "{}", want + " ", strings.Replace(want, `:1}`, `:2}`, 1),
		strings.Replace(want, `intent`, `intent2`, 1), strings.Replace(want, `"version":1`, `"version":1,"x":1`, 1),
		strings.Replace(want, `0123`, `X123`, 1)} {
		if _, err := decodeIntent([]byte(bad)); err == nil {
			t.Errorf("decodeIntent(%q) accepted", bad)
		}
	}
}

func entryOf(key string, a Array) entry {
	return entry{File: arrayFile(key), DType: a.dtype, Count: uint64(a.Len()), ByteLength: uint64(len(a.data)), SHA256: sha256Sum(a.data)}
}

// TestManifestRejectsAtField: the error names the field that breaks the rule, joined
// with dots from the root (a root field has no leading dot).
func TestManifestRejectsAtField(t *testing.T) {
	r := func(old, new string) string {
		if !strings.Contains(fixtureManifest, old) {
			t.Fatalf("fixture has no %q", old)
		}
		return strings.Replace(fixtureManifest, old, new, 1)
	}
	ids := `"ids":{"byte_length":"24","count":"3","dtype":"uint64"`
	withIDs := func(bl, count, dt string) string {
		return r(ids, `"ids":{"byte_length":"`+bl+`","count":"`+count+`","dtype":"`+dt+`"`)
	}
	for _, tc := range []struct{ name, data, field, msg string }{
		{"misspelled arrays", r(`"arrays":{`, `"arrayz":{`), "arrays", "required field is missing"},
		{"missing sha256", r(`,"sha256":"fcc4cc05323d8851a676a44e87879ee41dff197698e6054d955b561c2bf62df6"`, ``), "arrays.ids.sha256", "required field is missing"},
		{"unknown entry field", r(`"file":"array-ids.bin",`, `"file":"array-ids.bin","offset":"0",`), "arrays.ids", `unknown field "offset"`},
		{"unknown top field", r(`"format":`, `"extra":1,"format":`), "", `unknown field "extra"`},
		// count * 8 is 2**64, 0 modulo 2**64: the product must not wrap to byte_length 0.
		{"count * width wraps to 0", withIDs("0", "2305843009213693952", "uint64"), "arrays.ids.byte_length", "byte_length is not count * dtype width"},
	} {
		_, err := decodeManifest([]byte(tc.data))
		var e *Error
		if !errors.As(err, &e) || e.Code != CodeInvalidManifest || e.Field != tc.field || e.Msg != tc.msg {
			t.Errorf("%s: %v, want %s at field %q: %s", tc.name, err, CodeInvalidManifest, tc.field, tc.msg)
		}
	}
	// The largest counts whose byte_length fits in 64 bits, floor((2**64-1)/width), decode
	// (the manifest is checked alone: no payload of that size is needed).
	for _, tc := range []struct{ bl, count, dt string }{
		{"18446744073709551615", "18446744073709551615", "uint8"},
		{"18446744073709551608", "2305843009213693951", "uint64"},
	} {
		_, err := decodeManifest([]byte(withIDs(tc.bl, tc.count, tc.dt)))
		var e *Error
		t.Logf("%s: %v", tc.dt, err)
		if errors.As(err, &e) && strings.HasSuffix(e.Field, "byte_length") {
			t.Errorf("%s count %s byte_length %s: %v", tc.dt, tc.count, tc.bl, err)
		}
	}
}

// TestIntentWrongVersion: an intent of another version or format is refused as such,
// not as a non-canonical one.
func TestIntentWrongVersion(t *testing.T) {
	want := `{"format":"pipewhy.snapshot.intent","snapshot_id":"0123456789abcdef0123456789abcdef","version":1}`
	for _, bad := range []string{strings.Replace(want, `:1}`, `:2}`, 1), strings.Replace(want, `intent"`, `intent2"`, 1)} {
		_, err := decodeIntent([]byte(bad))
		var e *Error
		if !errors.As(err, &e) || e.Code != CodeInvalidManifest || e.Msg != "not a version 1 pipewhy.snapshot.intent" {
			t.Errorf("%s: %v", bad, err)
		}
	}
}
