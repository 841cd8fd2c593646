package c2text_test

import (
	"math"
	"testing"

	"github.com/pipewhy/pipewhy/normalize"
	"github.com/pipewhy/pipewhy/normalize/c2text"
)

// TestValueExt covers the C2 extension 1 type codes (docs/contracts/C2-extensions.md
// §2). Every expected string is derived by hand from the payload layout.
func TestValueExt(t *testing.T) {
	neg := func(v int64) uint64 { return uint64(v) }
	for _, c := range []struct {
		tc   normalize.TypeCode
		p    []uint64
		want string
	}{
		// DATE [days since 1970-01-01]: 2026-01-01 is day 56·365+14 = 20454, Nov 30 day
		// 304+29 of the year; 2000 is a leap year (day 30·365+7+59), 1900 is not
		// (1900-01-01 is day -(70·365+17) = -25567, +31+28 = Mar 1).
		{normalize.Date, []uint64{20787}, "2026-11-30"},
		{normalize.Date, []uint64{0}, "1970-01-01"},
		{normalize.Date, []uint64{neg(-1)}, "1969-12-31"},
		{normalize.Date, []uint64{11016}, "2000-02-29"},
		{normalize.Date, []uint64{neg(-25508)}, "1900-03-01"},
		{normalize.Date, []uint64{neg(-719162)}, "0001-01-01"}, // Python date.min
		{normalize.Date, []uint64{2932896}, "9999-12-31"},      // Python date.max
		{normalize.Date, []uint64{2932897}, "?"},
		{normalize.Date, []uint64{neg(-719163)}, "?"},
		{normalize.Date, []uint64{1, 2}, "?"},
		// TIME [ns since midnight]: 13:45:00 is 49500 s; the shortest exact fraction.
		{normalize.Time, []uint64{0}, "00:00:00"},
		{normalize.Time, []uint64{49500e9 + 123456789}, "13:45:00.123456789"},
		{normalize.Time, []uint64{49500e9 + 123456000}, "13:45:00.123456"},
		{normalize.Time, []uint64{49500e9 + 500e6}, "13:45:00.500"},
		{normalize.Time, []uint64{86400e9 - 1}, "23:59:59.999999999"},
		{normalize.Time, []uint64{86400e9}, "?"},
		// DURATION [lo, hi]: 128-bit two's-complement nanoseconds.
		{normalize.Duration, []uint64{1500e6, 0}, "1.5s"},
		{normalize.Duration, []uint64{neg(-250e6), math.MaxUint64}, "-0.25s"},
		{normalize.Duration, []uint64{0, 0}, "0s"},
		{normalize.Duration, []uint64{1, 0}, "0.000000001s"},
		{normalize.Duration, []uint64{86400e9, 0}, "86400s"},
		// (2^63-1)·10^9 = 499999999·2^64 + 18446744072709551616 (duration[s] max).
		{normalize.Duration, []uint64{18446744072709551616, 499999999}, "9223372036854775807s"},
		// -2^63·10^9 = -2^72·5^9: low word 0, high word 2^64 - 2^8·5^9.
		{normalize.Duration, []uint64{0, 18446744073209551616}, "-9223372036854775808s"},
		{normalize.Duration, []uint64{1}, "?"},
		// TIMESTAMP_NS: TIMESTAMP's layout, word 6 the nanosecond of the second.
		{normalize.TimestampNS, []uint64{2026, 11, 30, 8, 0, 0, 1, 0, 0, 0, 0}, "2026-11-30 08:00:00.000000001"},
		{normalize.TimestampNS, []uint64{2026, 11, 30, 8, 0, 0, 123456789, 0, 1, 0, 3, 0x435455}, "2026-11-30 08:00:00.123456789 UTC"},
		{normalize.TimestampNS, []uint64{2026, 11, 30}, "?"},
		// NESTED [len(T), T..., len(V), V...]: V shown in hex up to 32 bytes.
		{normalize.Nested, []uint64{4, 0x31534647, 3, 0x070001}, "<nested 3 bytes 0x010007>"},
		// 33 bytes 01 00 01 .. 1f: SHA-256 begins 491176b0.
		{normalize.Nested, []uint64{4, 0x31534647, 33, 0x0605040302010001, 0x0e0d0c0b0a090807, 0x161514131211100f, 0x1e1d1c1b1a191817, 0x1f},
			"<nested 33 bytes sha256:491176b0>"},
		{normalize.Nested, []uint64{4, 0x31534647}, "?"},
		{normalize.Nested, []uint64{9, 0x31534647, 1, 1}, "?"},
		{normalize.Nested, []uint64{math.MaxUint64, 1, 1}, "?"},
		{normalize.Nested, nil, "?"},
	} {
		if got := c2text.Value(c.tc, c.p); got != c.want {
			t.Errorf("FormatValue(%v, %v) = %q, want %q", c.tc, c.p, got, c.want)
		}
	}
}

// TestRecordExt: a key record holding an extension value renders (it was "?"
// under the v1-only validation).
func TestRecordExt(t *testing.T) {
	rec := []uint64{1, 2, 2, 1, uint64(normalize.Uint64), 1, 7, 2, uint64(normalize.Date), 1, 20787}
	name := func(id uint64) string { return map[uint64]string{1: "id", 2: "d"}[id] }
	if got := c2text.Record(rec, name); got != "id=7 d=2026-11-30" {
		t.Fatalf("FormatRecord = %q", got)
	}
}
