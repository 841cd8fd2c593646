package human_test

import (
	"testing"

	"github.com/pipewhy/pipewhy/internal/human"
)

func TestCommas(t *testing.T) {
	for n, want := range map[uint64]string{
		0: "0", 7: "7", 999: "999", 1000: "1,000", 20000016: "20,000,016", 100000: "100,000",
		18446744073709551615: "18,446,744,073,709,551,615",
	} {
		if got := human.Commas(n); got != want {
			t.Errorf("Commas(%d) = %q, want %q", n, got, want)
		}
	}
}

func TestTime(t *testing.T) {
	for ns, want := range map[uint64]string{
		0:                         "1970-01-01 00:00:00",
		1_700_000_000_999_999_999: "2023-11-14 22:13:20", // truncated to the second, not rounded
	} {
		if got := human.Time(ns); got != want {
			t.Errorf("Time(%d) = %q, want %q", ns, got, want)
		}
	}
}

func TestPlural(t *testing.T) {
	if human.Plural(1) != "" || human.Plural(uint64(1)) != "" {
		t.Error("Plural(1) is not empty")
	}
	for _, n := range []int{0, 2, 10, -1} {
		if human.Plural(n) != "s" {
			t.Errorf("Plural(%d) = %q, want \"s\"", n, human.Plural(n))
		}
	}
}
