package mysql

import (
	"math/big"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/decimal128"
)

// Expected values are derived by hand: days from 1970-01-01, and
// microseconds as (((days*24+h)*60+m)*60+s)*1e6+µs.
func TestParseTemporal(t *testing.T) {
	dates := []struct {
		in     string
		days   int64
		detail string
	}{
		{"1970-01-01", 0, ""}, {"1970-01-02", 1, ""}, {"1969-12-31", -1, ""},
		{"2000-03-01", 11017, ""}, {"2024-02-29", 19782, ""}, {"0000-01-01", -719528, ""},
		{"0000-00-00", 0, "zero date"}, {"2024-00-10", 0, "zero date"}, {"2024-01-00", 0, "zero date"},
		{"2023-02-29", 0, "invalid calendar date"}, {"2024-13-01", 0, "invalid calendar date"}, {"1900-02-29", 0, "invalid calendar date"},
		{"2024-1-01", 0, "not a date"}, {"2024/01/01", 0, "not a date"}, {"2024-01-0x", 0, "not a date"}, {"", 0, "not a date"},
	}
	for _, d := range dates {
		got, detail := parseDate([]byte(d.in))
		if !strings.HasPrefix(detail, d.detail) || (d.detail == "" && (detail != "" || got != d.days)) {
			t.Errorf("date %q: %d %q, want %d %q", d.in, got, detail, d.days, d.detail)
		}
	}
	dts := []struct {
		in  string
		fsp int64
		us  int64
		ok  bool
	}{
		{"1970-01-01 00:00:00", 0, 0, true},
		{"1970-01-01 00:00:00.000001", 6, 1, true},
		{"1969-12-31 23:59:59.999999", 6, -1, true},
		{"2000-03-01 01:02:03.5", 1, (11017*86400+3723)*1_000_000 + 500_000, true},
		{"1970-01-01 00:00:00.5", 0, 0, false}, // more fraction digits than fsp
		{"1970-01-01 24:00:00", 0, 0, false},
		{"1970-01-01 00:60:00", 0, 0, false},
		{"1970-01-01T00:00:00", 0, 0, false},
		{"1970-01-01 00:00:00.", 6, 0, false},
		{"0000-00-00 00:00:00", 0, 0, false},
	}
	for _, d := range dts {
		got, detail := parseDateTime([]byte(d.in), d.fsp)
		if (detail == "") != d.ok || (d.ok && got != d.us) {
			t.Errorf("datetime %q fsp %d: %d %q, want %d ok=%v", d.in, d.fsp, got, detail, d.us, d.ok)
		}
	}
	times := []struct {
		in  string
		fsp int64
		us  int64
		ok  bool
	}{
		{"00:00:00", 0, 0, true}, {"-00:00:01", 0, -1_000_000, true}, {"838:59:59", 0, 3020399_000_000, true},
		{"-838:59:59.999999", 6, -3020399_999_999, true}, {"100:00:00.25", 2, 360000_250_000, true},
		{"839:00:00", 0, 0, false}, {"1:00:00", 0, 0, false}, {"00:60:00", 0, 0, false}, {"00:00:00.1234567", 6, 0, false},
		{"--1:00:00", 0, 0, false}, {"", 0, 0, false}, {"12:00", 0, 0, false},
	}
	for _, d := range times {
		got, detail := parseTime([]byte(d.in), d.fsp)
		if (detail == "") != d.ok || (d.ok && got != d.us) {
			t.Errorf("time %q fsp %d: %d %q, want %d ok=%v", d.in, d.fsp, got, detail, d.us, d.ok)
		}
	}
}

func TestParseDecimal(t *testing.T) {
	cases := []struct {
		in          string
		prec, scale int32
		want        string // unscaled integer; "" = error
	}{
		{"0.00", 10, 2, "0"}, {"-0.01", 10, 2, "-1"}, {"12.5", 10, 2, "1250"}, {"99999999.99", 10, 2, "9999999999"},
		{"007", 3, 0, "7"}, {"-123456789012345678.9", 19, 1, "-1234567890123456789"},
		{"99999999999999999999999999999999999999", 38, 0, "99999999999999999999999999999999999999"},
		{"1.001", 10, 2, ""}, {"100000000.00", 10, 2, ""}, {"1e5", 10, 2, ""}, {"", 10, 2, ""}, {"-", 10, 2, ""},
		{".5", 10, 2, ""}, {"5.", 10, 2, ""}, {"+1", 10, 2, ""}, {"1.2.3", 10, 2, ""}, {"--1", 10, 2, ""},
	}
	for _, c := range cases {
		var cl cell
		detail := parseDecimal([]byte(c.in), c.prec, c.scale, &cl)
		if c.want == "" {
			if detail == "" {
				t.Errorf("decimal %q (%d,%d): accepted", c.in, c.prec, c.scale)
			}
			continue
		}
		w, _ := new(big.Int).SetString(c.want, 10)
		if detail != "" || cl.d128 != decimal128.FromBigInt(w) {
			t.Errorf("decimal %q (%d,%d): %v %q, want %s", c.in, c.prec, c.scale, cl.d128, detail, c.want)
		}
	}
}

func TestParseIntRanges(t *testing.T) {
	c8, _ := mapWire("x", "TINYINT", 0, 0, 64)
	u64, _ := mapWire("x", "UNSIGNED BIGINT", 0, 0, 64)
	bit3, _ := mapWire("x", "BIT", 0, 0, 3)
	var cl cell
	for _, tc := range []struct {
		col  column
		v    any
		fail bool
	}{
		{c8, int64(-128), false}, {c8, int64(128), true}, {c8, int64(-129), true}, {c8, 1.5, true},
		{u64, []byte("18446744073709551615"), false}, {u64, []byte("18446744073709551616"), true}, {u64, int64(-1), true}, {u64, []byte("+1"), true},
		{bit3, []byte{7}, false}, {bit3, []byte{8}, true}, {bit3, []byte{0, 0, 0, 0, 0, 0, 0, 0, 5}, false}, {bit3, []byte{1, 0, 0, 0, 0, 0, 0, 0, 0}, true},
	} {
		if d := tc.col.parse(tc.v, &cl); (d != "") != tc.fail {
			t.Errorf("%s %v: detail %q, want fail=%v", tc.col.wire, tc.v, d, tc.fail)
		}
	}
	if _, ok := mapWire("x", "GEOMETRY", 0, 0, 64); ok {
		t.Error("GEOMETRY mapped")
	}
	if _, ok := mapWire("x", "DATETIME", 31, 31, 64); ok {
		t.Error("DATETIME with unfixed decimals mapped")
	}
}

// FuzzParsers: no parser panics, and accepted values lie in range.
func FuzzParsers(f *testing.F) {
	for _, s := range []string{"2024-02-29", "1970-01-01 00:00:00.000001", "-838:59:59.999999", "-12.50", "9999-12-31 23:59:59.999999", "0000-00-00"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if len(s) > 1<<16 { // bounds each run, and so each minimization
			t.Skip("input over 64 KiB")
		}
		b := []byte(s)
		if d, detail := parseDate(b); detail == "" && (d < -719528 || d > 2932896) {
			t.Fatalf("date %q -> %d", s, d)
		}
		parseDateTime(b, 6)
		if v, detail := parseTime(b, 6); detail == "" && (v > 3020399_999_999 || v < -3020399_999_999) {
			t.Fatalf("time %q -> %d", s, v)
		}
		var c cell
		if parseDecimal(b, 10, 2, &c) == "" {
			r, _ := new(big.Float).SetString(s)
			if r == nil {
				t.Fatalf("decimal %q accepted", s)
			}
		}
		parseDecimal(b, 65, 30, &c)
	})
}
