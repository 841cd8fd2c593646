package columnar_test

import (
	"errors"
	"slices"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/pipewhy/pipewhy/normalize"
	"github.com/pipewhy/pipewhy/normalize/columnar"
)

// TestTransitionInstants pins UTC instants at a transition T and at the end of the
// repeated hour: zoneinfo's fromutc gives fold 1 from T up to T+shift-1 after a
// transition that moves the clock back by shift, fold 0 before T and from T+shift; a
// transition forward has no fold. Expected wall times and offsets are derived from the
// transitions (and agree with Python's zoneinfo). Each instant is encoded alone and,
// to cross the encoder's cached zone bounds, all in one column, ascending and
// descending.
func TestTransitionInstants(t *testing.T) {
	type want struct {
		d                   int64 // seconds after T
		y, mo, da, h, mi, s uint64
		fold                uint64
		off                 int64 // seconds
	}
	cases := []struct {
		key   string
		T     int64
		wants []want
	}{
		// 2024-10-27T01:00Z: +02:00 -> +01:00.
		{"Europe/Berlin", 1729990800, []want{
			{-1, 2024, 10, 27, 2, 59, 59, 0, 7200},
			{0, 2024, 10, 27, 2, 0, 0, 1, 3600},
			{3599, 2024, 10, 27, 2, 59, 59, 1, 3600},
			{3600, 2024, 10, 27, 3, 0, 0, 0, 3600},
		}},
		// 2024-03-31T01:00Z: +01:00 -> +02:00, no fold.
		{"Europe/Berlin", 1711846800, []want{
			{-1, 2024, 3, 31, 1, 59, 59, 0, 3600},
			{0, 2024, 3, 31, 3, 0, 0, 0, 7200},
		}},
		// 2024-11-03T06:00Z: -04:00 -> -05:00.
		{"America/New_York", 1730613600, []want{
			{-1, 2024, 11, 3, 1, 59, 59, 0, -14400},
			{0, 2024, 11, 3, 1, 0, 0, 1, -18000},
			{3599, 2024, 11, 3, 1, 59, 59, 1, -18000},
			{3600, 2024, 11, 3, 2, 0, 0, 0, -18000},
		}},
		// 2024-04-06T15:00Z: +11:00 -> +10:30, a 30-minute fold.
		{"Australia/Lord_Howe", 1712415600, []want{
			{-1, 2024, 4, 7, 1, 59, 59, 0, 39600},
			{0, 2024, 4, 7, 1, 30, 0, 1, 37800},
			{1799, 2024, 4, 7, 1, 59, 59, 1, 37800},
			{1800, 2024, 4, 7, 2, 0, 0, 0, 37800},
		}},
	}
	for _, c := range cases {
		typ := &arrow.TimestampType{Unit: arrow.Second, TimeZone: c.key}
		wantWords := func(w want) []uint64 {
			return cat([]uint64{w.y, w.mo, w.da, w.h, w.mi, w.s, 0, w.fold, 2, uint64(w.off * 1e6)}, packStr(c.key))
		}
		var secs []int64
		for _, w := range c.wants {
			secs = append(secs, c.T+w.d)
			tc, got := encodeOne(t, tsArray(t, typ, c.T+w.d), normalize.StrictV1)
			if tc != normalize.Timestamp || !slices.Equal(got, wantWords(w)) {
				t.Errorf("%s T%+d: %v %v, want %v", c.key, w.d, tc, got, wantWords(w))
			}
		}
		for _, order := range []string{"ascending", "descending"} {
			idx := make([]int, len(secs))
			for i := range idx {
				idx[i] = i
			}
			if order == "descending" {
				slices.Reverse(idx)
			}
			vals := make([]int64, len(idx))
			for i, k := range idx {
				vals[i] = secs[k]
			}
			rows := encodeRecords(t, tsArray(t, typ, vals...), normalize.StrictV1)
			for i, k := range idx {
				if len(rows[i]) < 6 || !slices.Equal(rows[i][6:], wantWords(c.wants[k])) {
					t.Errorf("%s %s row %d (T%+d): %v, want %v", c.key, order, i, c.wants[k].d, rows[i][min(6, len(rows[i])):], wantWords(c.wants[k]))
				}
			}
		}
	}
}

// TestFixedOffsetLimits: a "+HH:MM" timezone takes hours 00..23 and minutes 00..59, so
// ±23:59 is the largest fixed offset (datetime.timezone requires |offset| < 24 h, and
// tzname() spells it "UTC+23:59"); one past either field is CodeTimezone.
func TestFixedOffsetLimits(t *testing.T) {
	for _, c := range []struct {
		tz    string
		words []uint64
	}{
		{"+23:59", cat([]uint64{1970, 1, 1, 23, 59, 0, 0, 0, 1, 86340e6}, packStr("UTC+23:59"))},
		{"-23:59", cat([]uint64{1969, 12, 31, 0, 1, 0, 0, 0, 1, neg(86340e6)}, packStr("UTC-23:59"))},
		{"+00:59", cat([]uint64{1970, 1, 1, 0, 59, 0, 0, 0, 1, 3540e6}, packStr("UTC+00:59"))},
		{"+23:00", cat([]uint64{1970, 1, 1, 23, 0, 0, 0, 0, 1, 82800e6}, packStr("UTC+23:00"))},
		{"+09:09", cat([]uint64{1970, 1, 1, 9, 9, 0, 0, 0, 1, 32940e6}, packStr("UTC+09:09"))},
	} {
		tc, got := encodeOne(t, tsArray(t, &arrow.TimestampType{Unit: arrow.Second, TimeZone: c.tz}, 0), normalize.StrictV1)
		if tc != normalize.Timestamp || !slices.Equal(got, c.words) {
			t.Errorf("%s: %v %v, want %v", c.tz, tc, got, c.words)
		}
	}
	for _, tz := range []string{"+24:00", "-24:00", "+00:60", "-23:60", "+-1:00", "+01:-1", "++1:00"} {
		typ := &arrow.TimestampType{Unit: arrow.Second, TimeZone: tz}
		schema := arrow.NewSchema([]arrow.Field{{Name: "x", Type: typ, Nullable: true}}, nil)
		_, err := columnar.NewEncoder(schema, []columnar.Column{{Name: "x", Field: 1}}, normalize.StrictV1)
		var ce *columnar.Error
		if !errors.As(err, &ce) || ce.Err.Code != normalize.CodeTimezone {
			t.Errorf("%s: %v, want %s", tz, err, normalize.CodeTimezone)
		}
	}
}
