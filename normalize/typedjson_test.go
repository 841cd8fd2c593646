package normalize

import (
	"testing"
)

func TestJSONString(t *testing.T) {
	cases := []struct {
		raw  string
		want string
		ok   bool
	}{
		{`"abc"`, "abc", true},
		{` "a\"b" `, `a"b`, true},
		{`"\\\/\b\f\n\r\t"`, "\\/\b\f\n\r\t", true},
		{`"\u00e9"`, "é", true},
		{`"\ud83d\ude00"`, "😀", true},
		{`"\ud800"`, "\xed\xa0\x80", true},                   // lone high surrogate kept as its bytes
		{`"\udc00\ud800"`, "\xed\xb0\x80\xed\xa0\x80", true}, // reversed pair is two lone ones
		{`"\ud800x"`, "\xed\xa0\x80x", true},
		{"\"\xff\"", "\xff", true}, // raw invalid byte kept
		{`"\u12"`, "", false},
		{`"\x"`, "", false},
		{"\"a\nb\"", "", false},
		{`"a"b"`, "", false},
		{`"abc`, "", false},
		{`abc`, "", false},
		{`12`, "", false},
		{``, "", false},
		{`"\"`, "", false},
	}
	for _, c := range cases {
		got, ok := jsonString([]byte(c.raw))
		if ok != c.ok || got != c.want {
			t.Errorf("jsonString(%q) = %q, %v; want %q, %v", c.raw, got, ok, c.want, c.ok)
		}
	}
}

func TestParseValueJSONShapes(t *testing.T) {
	cases := []struct {
		in   string
		code Code
	}{
		{`{"type":"null","value":1}`, CodeInput}, // unknown member
		{`{"type":"int","value":"1","extra":0}`, CodeInput},
		{`{"type":"timestamp","year":2021,"month":1,"day":1,"hour":0,"minute":0,"second":0,"microsecond":0,"fold":0,"tz":null,"nanosecnd":5}`, CodeInput},
		{`{"type":"timestamp","year":2021.0,"month":1,"day":1,"hour":0,"minute":0,"second":0,"microsecond":0,"fold":0,"tz":null}`, CodeInput},
		{`{"type":"timestamp","year":1e3,"month":1,"day":1,"hour":0,"minute":0,"second":0,"microsecond":0,"fold":0,"tz":null}`, CodeInput},
		{`{"type":"timestamp","year":99999999999999999999,"month":1,"day":1,"hour":0,"minute":0,"second":0,"microsecond":0,"fold":0,"tz":null}`, CodeInput},
		{`{"type":"timestamp","year":2021,"month":1,"day":1,"hour":0,"minute":0,"second":0,"microsecond":0,"fold":0,"tz":"UTC"}`, CodeInput},
		{`{"type":"timestamp","year":2021,"month":1,"day":1,"hour":0,"minute":0,"second":0,"microsecond":0,"fold":0,"tz":{"kind":"fixed","offset_us":3600000000,"name":"CET"}}`, CodeInput},
		{`{"type":"timestamp","year":2021,"month":1,"day":1,"hour":0,"minute":0,"second":0,"microsecond":0,"fold":0,"tz":{"kind":"fixed","offset_us":"0"}}`, CodeInput},
		{`{"type":"timestamp","year":2021,"month":1,"day":1,"hour":0,"minute":0,"second":0,"microsecond":0,"fold":0,"tz":{"kind":"fixed","offset_us":"99999999999999999999999","name":"x"}}`, CodeTimezone},
		{`{"type":"timestamp","year":2021,"month":1,"day":1,"hour":0,"minute":0,"second":0,"microsecond":0,"fold":0,"tz":{"kind":"fixed","offset_us":"-99999999999999999999999","name":"x"}}`, CodeTimezone},
		{`{"type":"timestamp","year":2021,"month":1,"day":1,"hour":0,"minute":0,"second":0,"microsecond":0,"fold":0,"tz":{"kind":"fixed","offset_us":"18446744073709551615","name":"x"}}`, CodeTimezone},
		{`{"type":"timestamp","year":2021,"month":1,"day":1,"hour":0,"minute":0,"second":0,"microsecond":0,"fold":0,"tz":{"kind":"zoneinfo"}}`, CodeInput},
		{`{"type":"timestamp","year":2021,"month":1,"day":1,"hour":0,"minute":0,"second":0,"microsecond":0,"fold":0,"tz":{"kind":"fixed","offset_us":"0","name":"\udfff"}}`, CodeUTF8},
		{`{"type":"timestamp","year":2021,"month":1,"day":1,"hour":0,"minute":0,"second":0,"microsecond":0,"fold":0,"nanosecond":-3,"tz":null}`, CodePrecision},
		{`{"type":"text"}`, CodeInput},
		{`{"type":"text","value":5}`, CodeInput},
		{`{"type":"bytes"}`, CodeInput},
		{`{"type":"bytes","hex":"0g"}`, CodeInput},
		{`{"type":"float","bits":"7ff800000000000g"}`, CodeInput},
		{`{"type":"float","bits":"+7ff800000000000"}`, CodeInput},
		{`{"type":"bool"}`, CodeInput},
		{`{"type":"bool","value":1}`, CodeInput},
		{`{"type":"int","value":"1e3"}`, CodeInput},
		{`{"type":"int","value":""}`, CodeInput},
		{`{"type":"decimal"}`, CodeInput},
		{`{"type":"decimal","value":"1e"}`, CodeDecimal},
		{`{"type":"missing","type":"tuple"}`, CodeUnsupported}, // the last duplicate wins, as in encoding/json
		{`[]`, CodeInput},
		{`null`, CodeInput},
		{`{"type":null}`, CodeInput},
		{`{"type":"null"`, CodeInput},
		{`{"type":"null"} {}`, CodeInput},
	}
	for _, c := range cases {
		v, err := ParseValueJSON([]byte(c.in))
		if err == nil {
			_, _, err = EncodeValue(v, StrictV1)
		}
		if CodeOf(err) != c.code {
			t.Errorf("%s: got %v, want %s", c.in, err, c.code)
		}
	}
}

func TestParseFieldsJSON(t *testing.T) {
	fs, err := ParseFieldsJSON([]byte(`[{"field_id":"5","value":{"type":"null"}},{"value":{"type":"missing"},"field_id":"0"}]`))
	if err != nil || len(fs) != 2 || fs[0].ID != 5 || fs[1].ID != 0 || fs[0].Value != Value(Nil) || fs[1].Value != Value(Absent) {
		t.Fatalf("got %+v %v", fs, err)
	}
	if fs, err := ParseFieldsJSON([]byte(`[]`)); err != nil || len(fs) != 0 {
		t.Fatalf("empty: %v %v", fs, err)
	}
	for _, in := range []string{`{}`, `null`, `[1]`, `[{"field_id":"1"}]`, `[{"value":{"type":"null"}}]`,
		`[{"field_id":"1","value":{"type":"null"},"x":1}]`, `[{"field_id":1,"value":{"type":"null"}}]`} {
		if _, err := ParseFieldsJSON([]byte(in)); CodeOf(err) != CodeInput {
			t.Errorf("%s: %v", in, err)
		}
	}
}
