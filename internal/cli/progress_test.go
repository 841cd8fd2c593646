package cli

import (
	"bytes"
	"strings"
	"testing"
	"time"
)

func TestProgressLine(t *testing.T) {
	var buf bytes.Buffer
	clock := time.Unix(0, 0)
	now := func() time.Time { return clock }
	p := progressLine(&buf, "orders", now)
	clock = clock.Add(2 * time.Second)
	p(3_000_000)
	clock = clock.Add(50 * time.Millisecond) // throttled: no redraw within 100ms
	p(3_100_000)
	clock = clock.Add(1950 * time.Millisecond)
	p(8_000_000)
	want := "\r\x1b[Kscanning orders  3.0M rows  1.5M rows/s" + "\r\x1b[Kscanning orders  8.0M rows  2.0M rows/s"
	if got := buf.String(); got != want {
		t.Errorf("progress = %q, want %q", got, want)
	}
	// Not a terminal (a buffer): scan prints no progress at all.
	r := newRepo(t)
	var out, errb bytes.Buffer
	if code := Main([]string{"scan", "--repo", r, shop + "/v1/orders.csv"}, strings.NewReader(""), &out, &errb); code != 0 {
		t.Fatal(errb.String())
	}
	if strings.Contains(out.String(), "scanning") || strings.Contains(out.String(), "\r") {
		t.Errorf("progress on a non-terminal: %q", out.String())
	}
}
