package normalize

import (
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/pipewhy/pipewhy/internal/civil"
)

// TestCivilDays checks civilFromDays, the inverse of civil.DaysFromCivil, against Go's
// time package over years 0..10000.
func TestCivilDays(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	check := func(y, m, d int) {
		want := time.Date(y, time.Month(m), d, 0, 0, 0, 0, time.UTC).Unix() / 86400
		if got := civil.DaysFromCivil(int64(y), int64(m), int64(d)); got != want {
			t.Fatalf("DaysFromCivil(%d-%d-%d) = %d, want %d", y, m, d, got, want)
		}
		if yy, mm, dd := civilFromDays(want); yy != y || mm != m || dd != d {
			t.Fatalf("civilFromDays(%d) = %d-%d-%d, want %d-%d-%d", want, yy, mm, dd, y, m, d)
		}
	}
	for _, y := range []int{0, 1, 2, 4, 99, 100, 400, 1600, 1900, 1969, 1970, 2000, 2024, 9999, 10000} {
		for m := 1; m <= 12; m++ {
			check(y, m, 1)
			check(y, m, int(civil.DaysInMonth(int64(y), int64(m))))
		}
	}
	for i := 0; i < 20000; i++ {
		y, m := r.IntN(10001), 1+r.IntN(12)
		check(y, m, 1+r.IntN(int(civil.DaysInMonth(int64(y), int64(m)))))
	}
}

func TestTimestampFields(t *testing.T) {
	base := TimestampValue{Year: 2024, Month: 2, Day: 29, Hour: 23, Minute: 59, Second: 59, Microsecond: 999999, Fold: 1}
	if _, _, err := EncodeValue(base, StrictV1); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		edit func(*TimestampValue)
		code Code
	}{
		{func(v *TimestampValue) { v.Year = 2023 }, CodeInput}, // 2023-02-29
		{func(v *TimestampValue) { v.Year = 1900 }, CodeInput}, // not a leap year
		{func(v *TimestampValue) { v.Year = 0 }, CodeInput},
		{func(v *TimestampValue) { v.Year = 10000 }, CodeInput},
		{func(v *TimestampValue) { v.Month = 0 }, CodeInput},
		{func(v *TimestampValue) { v.Day = 0 }, CodeInput},
		{func(v *TimestampValue) { v.Hour = -1 }, CodeInput},
		{func(v *TimestampValue) { v.Minute = 60 }, CodeInput},
		{func(v *TimestampValue) { v.Second = -1 }, CodeInput},
		{func(v *TimestampValue) { v.Microsecond = 1000000 }, CodeInput},
		{func(v *TimestampValue) { v.Fold = -1 }, CodeInput},
		{func(v *TimestampValue) { v.Nanosecond = 1 }, CodePrecision},
		{func(v *TimestampValue) { v.Nanosecond = 999 }, CodePrecision},
		{func(v *TimestampValue) { v.Nanosecond = 1000 }, CodeInput},
		{func(v *TimestampValue) { v.Zone = Zone{Kind: 3} }, CodeTimezone},
		{func(v *TimestampValue) { v.Zone = FixedZone(0, "\xff") }, CodeUTF8},
		{func(v *TimestampValue) { v.Zone = FixedZone(-86400e6, "x") }, CodeTimezone},
	}
	for i, c := range cases {
		v := base
		c.edit(&v)
		if _, _, err := EncodeValue(v, StrictV1); CodeOf(err) != c.code {
			t.Errorf("case %d: got %v, want %s", i, err, c.code)
		}
	}
}

func TestZoneKeys(t *testing.T) {
	for _, key := range []string{"", "Local", "/usr/share/zoneinfo/UTC", "../UTC", "./UTC", "Europe/./Berlin",
		"Europe/", "Europe\\Berlin", "UTC\x00", "\xffUTC", "No/Such_Zone", "Europe"} {
		ts := TimestampValue{Year: 2021, Month: 1, Day: 1, Zone: IANAZone(key)}
		if _, _, err := EncodeValue(ts, StrictV1); CodeOf(err) != CodeTimezone {
			t.Errorf("key %q: %v", key, err)
		}
	}
	for _, key := range []string{"UTC", "Etc/GMT+5", "Asia/Kolkata", "America/Argentina/Buenos_Aires"} {
		ts := TimestampValue{Year: 2021, Month: 1, Day: 1, Zone: IANAZone(key)}
		if _, _, err := EncodeValue(ts, StrictV1); err != nil {
			t.Errorf("key %q: %v", key, err)
		}
	}
}

// TestPEP495 covers zones beyond the fixture: a 30-minute DST shift (Lord Howe), negative
// DST (Dublin: winter GMT is the "DST" period in tzdata), an offset change with no DST
// (Pacific/Apia skipped 2011-12-30 entirely) and a non-hour LMT. Offsets in seconds.
func TestPEP495(t *testing.T) {
	cases := []struct {
		key            string
		y, m, d, h, mi int
		fold0, fold1   int64
	}{
		// Lord Howe: +10:30 standard, +11:00 summer; 2021-10-03 02:00 -> 02:30, 2021-04-04 02:00 -> 01:30.
		{"Australia/Lord_Howe", 2021, 10, 3, 2, 15, 37800, 39600},
		{"Australia/Lord_Howe", 2021, 4, 4, 1, 45, 39600, 37800},
		// Dublin: IST +01:00 in summer, GMT +00:00 in winter; 2021-03-28 01:00 -> 02:00, 2021-10-31 02:00 -> 01:00.
		{"Europe/Dublin", 2021, 3, 28, 1, 30, 0, 3600},
		{"Europe/Dublin", 2021, 10, 31, 1, 30, 3600, 0},
		// Apia jumped from -10:00 to +14:00 at the end of 2011-12-29: all of 2011-12-30 is a gap.
		{"Pacific/Apia", 2011, 12, 30, 12, 0, -36000, 50400},
		// Kolkata before the 1854 first transition: LMT +5:53:28 = 21208 s.
		{"Asia/Kolkata", 1800, 6, 1, 12, 0, 21208, 21208},
		// A time far from any transition: fold has no effect.
		{"America/New_York", 2021, 7, 4, 12, 0, -14400, -14400},
	}
	for _, c := range cases {
		for fold, want := range []int64{c.fold0, c.fold1} {
			ts := TimestampValue{Year: c.y, Month: c.m, Day: c.d, Hour: c.h, Minute: c.mi, Fold: fold, Zone: IANAZone(c.key)}
			_, w, err := EncodeValue(ts, StrictV1)
			if err != nil {
				t.Fatal(err)
			}
			if got := int64(w[9]); got != want*1e6 {
				t.Errorf("%s %d-%02d-%02d %02d:%02d fold=%d: offset %d us, want %d s", c.key, c.y, c.m, c.d, c.h, c.mi, fold, got, want)
			}
		}
	}
}

func TestLogicalTimestampAgreesAcrossZones(t *testing.T) {
	// The same instant written in three zones becomes the same logical-v1 words.
	a := TimestampValue{Year: 2021, Month: 10, Day: 31, Hour: 2, Minute: 30, Fold: 1, Zone: IANAZone("Europe/Berlin")}
	b := TimestampValue{Year: 2021, Month: 10, Day: 31, Hour: 1, Minute: 30, Zone: FixedZone(0, "UTC")}
	c := TimestampValue{Year: 2021, Month: 10, Day: 30, Hour: 21, Minute: 30, Zone: IANAZone("America/New_York")}
	_, wa := mustEncode(t, a, LogicalV1)
	_, wb := mustEncode(t, b, LogicalV1)
	_, wc := mustEncode(t, c, LogicalV1)
	if !slices.Equal(wa, wb) || !slices.Equal(wb, wc) {
		t.Fatalf("%v %v %v", wa, wb, wc)
	}
	_, sa := mustEncode(t, a, StrictV1)
	_, sb := mustEncode(t, b, StrictV1)
	if slices.Equal(sa, sb) {
		t.Fatal("strict-v1 must keep the zones apart")
	}
}
