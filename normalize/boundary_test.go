package normalize

import (
	"fmt"
	"testing"
)

// TestPEP495ExactInstant pins the wall time exactly at a transition's local threshold,
// where a `>` against `>=` slip gives the neighbouring offset. Expected values follow
// zoneinfo's rule (C2 seed; CPython's _ts_to_local and bisect_right): a transition at UTC
// instant T from offset a to offset b takes effect at local T+max(a,b) for fold=0 and at
// T+min(a,b) for fold=1, and a wall time equal to the threshold is already past it. So a
// gap [T+a, T+b) gives fold=0 the old offset and fold=1 the new one; at T+b both have the
// new one. A fold [T+b, T+a) gives fold=0 the old offset and fold=1 the new one; at T+a
// both have the new one. One second before T+min both still have the old offset.
// Offsets in seconds.
func TestPEP495ExactInstant(t *testing.T) {
	type at struct {
		h, mi, s     int
		fold0, fold1 int64
	}
	cases := []struct {
		key     string
		y, m, d int
		walls   []at
	}{
		// Berlin spring gap 2021-03-28: T = 01:00 UTC, +01:00 -> +02:00, gap [02:00, 03:00).
		{"Europe/Berlin", 2021, 3, 28, []at{
			{1, 59, 59, 3600, 3600},
			{2, 0, 0, 3600, 7200},
			{2, 59, 59, 3600, 7200},
			{3, 0, 0, 7200, 7200},
		}},
		// Berlin autumn fold 2021-10-31: T = 01:00 UTC, +02:00 -> +01:00, fold [02:00, 03:00).
		{"Europe/Berlin", 2021, 10, 31, []at{
			{1, 59, 59, 7200, 7200},
			{2, 0, 0, 7200, 3600},
			{2, 59, 59, 7200, 3600},
			{3, 0, 0, 3600, 3600},
		}},
		// New York spring gap 2021-03-14: T = 07:00 UTC, -05:00 -> -04:00, gap [02:00, 03:00).
		{"America/New_York", 2021, 3, 14, []at{
			{1, 59, 59, -18000, -18000},
			{2, 0, 0, -18000, -14400},
			{3, 0, 0, -14400, -14400},
		}},
		// New York autumn fold 2021-11-07: T = 06:00 UTC, -04:00 -> -05:00, fold [01:00, 02:00).
		{"America/New_York", 2021, 11, 7, []at{
			{0, 59, 59, -14400, -14400},
			{1, 0, 0, -14400, -18000},
			{2, 0, 0, -18000, -18000},
		}},
		// Lord Howe spring gap 2021-10-03: T = 15:30 UTC the day before, +10:30 -> +11:00,
		// gap [02:00, 02:30).
		{"Australia/Lord_Howe", 2021, 10, 3, []at{
			{1, 59, 59, 37800, 37800},
			{2, 0, 0, 37800, 39600},
			{2, 30, 0, 39600, 39600},
		}},
		// Lord Howe autumn fold 2021-04-04: T = 15:00 UTC the day before, +11:00 -> +10:30,
		// fold [01:30, 02:00).
		{"Australia/Lord_Howe", 2021, 4, 4, []at{
			{1, 29, 59, 39600, 39600},
			{1, 30, 0, 39600, 37800},
			{2, 0, 0, 37800, 37800},
		}},
		// Dublin's negative DST 2021-10-31: T = 01:00 UTC, +01:00 -> +00:00, fold [01:00, 02:00).
		{"Europe/Dublin", 2021, 10, 31, []at{
			{0, 59, 59, 3600, 3600},
			{1, 0, 0, 3600, 0},
			{2, 0, 0, 0, 0},
		}},
		// Apia skipped 2011-12-30: T = 10:00 UTC 2011-12-30, -10:00 -> +14:00, gap
		// [2011-12-30 00:00, 2011-12-31 00:00); the thresholds are a day apart.
		{"Pacific/Apia", 2011, 12, 30, []at{
			{0, 0, 0, -36000, 50400},
		}},
		{"Pacific/Apia", 2011, 12, 31, []at{
			{0, 0, 0, 50400, 50400},
		}},
	}
	for _, c := range cases {
		for _, w := range c.walls {
			for fold, want := range []int64{w.fold0, w.fold1} {
				name := fmt.Sprintf("%s %d-%02d-%02d %02d:%02d:%02d fold=%d", c.key, c.y, c.m, c.d, w.h, w.mi, w.s, fold)
				ts := TimestampValue{Year: c.y, Month: c.m, Day: c.d, Hour: w.h, Minute: w.mi, Second: w.s,
					Fold: fold, Zone: IANAZone(c.key)}
				_, words, err := EncodeValue(ts, StrictV1)
				if err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				if got := int64(words[9]); got != want*1e6 {
					t.Errorf("%s: offset %d us, want %d s", name, got, want)
				}
				if got := words[7]; got != uint64(fold) {
					t.Errorf("%s: fold word %d", name, got)
				}
			}
		}
	}
}

// TestTimestampFieldLimits puts every field at each end of its range (accepted) and one
// past it (CodeInput), so an off-by-one in any bound shows.
func TestTimestampFieldLimits(t *testing.T) {
	base := TimestampValue{Year: 2024, Month: 6, Day: 15, Hour: 12, Minute: 30, Second: 30, Microsecond: 500}
	cases := []struct {
		name string
		edit func(*TimestampValue)
		code Code // "" for accepted
	}{
		{"year 1", func(v *TimestampValue) { v.Year = 1 }, ""},
		{"year 9999", func(v *TimestampValue) { v.Year = 9999 }, ""},
		{"year 0", func(v *TimestampValue) { v.Year = 0 }, CodeInput},
		{"year 10000", func(v *TimestampValue) { v.Year = 10000 }, CodeInput},
		{"month 1", func(v *TimestampValue) { v.Month = 1 }, ""},
		{"month 12", func(v *TimestampValue) { v.Month = 12 }, ""},
		{"month 0", func(v *TimestampValue) { v.Month = 0 }, CodeInput},
		{"month 13", func(v *TimestampValue) { v.Month = 13 }, CodeInput},
		{"day 1", func(v *TimestampValue) { v.Day = 1 }, ""},
		{"day 30 of June", func(v *TimestampValue) { v.Day = 30 }, ""},
		{"day 0", func(v *TimestampValue) { v.Day = 0 }, CodeInput},
		{"day 31 of June", func(v *TimestampValue) { v.Day = 31 }, CodeInput},
		{"hour 0", func(v *TimestampValue) { v.Hour = 0 }, ""},
		{"hour 23", func(v *TimestampValue) { v.Hour = 23 }, ""},
		{"hour -1", func(v *TimestampValue) { v.Hour = -1 }, CodeInput},
		{"hour 24", func(v *TimestampValue) { v.Hour = 24 }, CodeInput},
		{"minute 0", func(v *TimestampValue) { v.Minute = 0 }, ""},
		{"minute 59", func(v *TimestampValue) { v.Minute = 59 }, ""},
		{"minute -1", func(v *TimestampValue) { v.Minute = -1 }, CodeInput},
		{"minute 60", func(v *TimestampValue) { v.Minute = 60 }, CodeInput},
		{"second 0", func(v *TimestampValue) { v.Second = 0 }, ""},
		{"second 59", func(v *TimestampValue) { v.Second = 59 }, ""},
		{"second -1", func(v *TimestampValue) { v.Second = -1 }, CodeInput},
		{"second 60", func(v *TimestampValue) { v.Second = 60 }, CodeInput},
		{"microsecond 0", func(v *TimestampValue) { v.Microsecond = 0 }, ""},
		{"microsecond 999999", func(v *TimestampValue) { v.Microsecond = 999999 }, ""},
		{"microsecond -1", func(v *TimestampValue) { v.Microsecond = -1 }, CodeInput},
		{"microsecond 1000000", func(v *TimestampValue) { v.Microsecond = 1000000 }, CodeInput},
		{"fold 0", func(v *TimestampValue) { v.Fold = 0 }, ""},
		{"fold 1", func(v *TimestampValue) { v.Fold = 1 }, ""},
		{"fold -1", func(v *TimestampValue) { v.Fold = -1 }, CodeInput},
		{"fold 2", func(v *TimestampValue) { v.Fold = 2 }, CodeInput},
		{"nanosecond -1", func(v *TimestampValue) { v.Nanosecond = -1 }, CodeInput},
		{"nanosecond 1000", func(v *TimestampValue) { v.Nanosecond = 1000 }, CodeInput},
		// A fixed offset must lie strictly within ±24 hours.
		{"offset +24h-1us", func(v *TimestampValue) { v.Zone = FixedZone(86400e6-1, "x") }, ""},
		{"offset -24h+1us", func(v *TimestampValue) { v.Zone = FixedZone(-86400e6+1, "x") }, ""},
		{"offset +24h", func(v *TimestampValue) { v.Zone = FixedZone(86400e6, "x") }, CodeTimezone},
		{"offset -24h", func(v *TimestampValue) { v.Zone = FixedZone(-86400e6, "x") }, CodeTimezone},
	}
	for _, c := range cases {
		v := base
		c.edit(&v)
		_, _, err := EncodeValue(v, StrictV1)
		if got := CodeOf(err); got != c.code {
			t.Errorf("%s: got %v (code %q), want code %q", c.name, err, got, c.code)
		}
	}
	// Nanosecond at both ends under an extension profile.
	for _, ns := range []int{1, 999} {
		v := base
		v.Nanosecond = ns
		tc, w, err := EncodeValue(v, StrictV1Ext1)
		if err != nil || tc != TimestampNS {
			t.Fatalf("nanosecond %d: %v %v", ns, tc, err)
		}
		if want := uint64(500*1000 + ns); w[6] != want {
			t.Errorf("nanosecond %d: word 6 = %d, want %d", ns, w[6], want)
		}
	}
}

// TestLogicalTimestampYearLimits converts to UTC right at the ends of years 1..9999: a
// conversion that lands exactly on the first or last representable microsecond is
// accepted, one microsecond further is CodeOverflow.
func TestLogicalTimestampYearLimits(t *testing.T) {
	last := TimestampValue{Year: 9999, Month: 12, Day: 31, Hour: 23, Minute: 59, Second: 59, Microsecond: 999999}
	first := TimestampValue{Year: 1, Month: 1, Day: 1}
	cases := []struct {
		name string
		v    TimestampValue
		off  int64 // fixed offset in microseconds
		want []uint64
		code Code
	}{
		{"last at UTC", last, 0, []uint64{9999, 12, 31, 23, 59, 59, 999999}, ""},
		{"last at +1us", last, 1, []uint64{9999, 12, 31, 23, 59, 59, 999998}, ""},
		{"last at -1us", last, -1, nil, CodeOverflow},
		{"first at UTC", first, 0, []uint64{1, 1, 1, 0, 0, 0, 0}, ""},
		{"first at -1us", first, -1, []uint64{1, 1, 1, 0, 0, 0, 1}, ""},
		{"first at +1us", first, 1, nil, CodeOverflow},
		// A negative remainder borrows a day: 0001-01-02 00:00 at +00:00:00.000001 is
		// 0001-01-01 23:59:59.999999 UTC.
		{"borrow", TimestampValue{Year: 1, Month: 1, Day: 2}, 1, []uint64{1, 1, 1, 23, 59, 59, 999999}, ""},
	}
	for _, c := range cases {
		v := c.v
		v.Zone = FixedZone(c.off, "x")
		_, w, err := EncodeValue(v, LogicalV1)
		if got := CodeOf(err); got != c.code {
			t.Errorf("%s: got %v, want code %q", c.name, err, c.code)
			continue
		}
		if c.want == nil {
			continue
		}
		for i, x := range c.want {
			if w[i] != x {
				t.Errorf("%s: words %v, want prefix %v", c.name, w[:7], c.want)
				break
			}
		}
	}
}
