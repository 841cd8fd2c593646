package civil

import (
	"math/rand/v2"
	"testing"
	"time"
)

// TestDaysFromCivilByHand: day numbers worked out by hand from the calendar's rules.
func TestDaysFromCivilByHand(t *testing.T) {
	for _, tc := range []struct{ y, m, d, want int64 }{
		{1970, 1, 1, 0},
		{1970, 1, 2, 1},
		{1969, 12, 31, -1},
		{1970, 3, 1, 31 + 28},
		{1972, 3, 1, 2*365 + 31 + 29}, // 1972 is a leap year
		{2000, 1, 1, 30*365 + 7},      // leap days 1972..1996
		{2000, 3, 1, 30*365 + 7 + 31 + 29},
		{1900, 3, 1, -70*365 - 17 + 31 + 28}, // 1900 is not a leap year; leap days 1904..1968
	} {
		if got := DaysFromCivil(tc.y, tc.m, tc.d); got != tc.want {
			t.Errorf("DaysFromCivil(%d-%d-%d) = %d, want %d", tc.y, tc.m, tc.d, got, tc.want)
		}
	}
	for _, tc := range []struct{ y, m, want int64 }{
		{2024, 2, 29}, {2023, 2, 28}, {1900, 2, 28}, {2000, 2, 29}, {0, 2, 29}, {-4, 2, 29},
		{2023, 4, 30}, {2023, 6, 30}, {2023, 9, 30}, {2023, 11, 30}, {2023, 1, 31}, {2023, 12, 31},
	} {
		if got := DaysInMonth(tc.y, tc.m); got != tc.want {
			t.Errorf("DaysInMonth(%d, %d) = %d, want %d", tc.y, tc.m, got, tc.want)
		}
	}
}

// TestAgainstTime checks every month end and random days of years -500..10500 against
// Go's time package.
func TestAgainstTime(t *testing.T) {
	check := func(y, m, d int64) {
		want := time.Date(int(y), time.Month(m), int(d), 0, 0, 0, 0, time.UTC).Unix() / 86400
		if got := DaysFromCivil(y, m, d); got != want {
			t.Fatalf("DaysFromCivil(%d-%d-%d) = %d, want %d", y, m, d, got, want)
		}
		if gy, gm, gd := FromDays(want); gy != y || gm != m || gd != d {
			t.Fatalf("FromDays(%d) = %d-%d-%d, want %d-%d-%d", want, gy, gm, gd, y, m, d)
		}
		if next := time.Date(int(y), time.Month(m), int(d)+1, 0, 0, 0, 0, time.UTC); d == DaysInMonth(y, m) && next.Day() != 1 {
			t.Fatalf("%d-%d has more than %d days", y, m, d)
		}
	}
	for y := int64(-500); y <= 10500; y += 7 {
		for m := int64(1); m <= 12; m++ {
			check(y, m, 1)
			check(y, m, DaysInMonth(y, m))
		}
	}
	r := rand.New(rand.NewPCG(7, 8))
	for range 50_000 {
		y, m := r.Int64N(11001)-500, 1+r.Int64N(12)
		check(y, m, 1+r.Int64N(DaysInMonth(y, m)))
	}
}
