package cli

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/pipewhy/pipewhy/scan"
)

func TestProgressLine(t *testing.T) {
	var buf bytes.Buffer
	clock := time.Unix(0, 0)
	now := func() time.Time { return clock }
	p := progressLine(&buf, "orders", now)
	clock = clock.Add(2 * time.Second)
	p(scan.Progress{Rows: 3_000_000})
	clock = clock.Add(50 * time.Millisecond) // throttled: no redraw within 100ms
	p(scan.Progress{Rows: 3_100_000})
	clock = clock.Add(1950 * time.Millisecond)
	p(scan.Progress{Rows: 8_000_000})
	want := "\r\x1b[Kscanning orders  3.0M rows  1.5M rows/s" + "\r\x1b[Kscanning orders  8.0M rows  2.0M rows/s"
	if got := buf.String(); got != want {
		t.Errorf("progress = %q, want %q", got, want)
	}

	// A known total draws a bar and the time left: 5M of 20M rows after 2 s is a quarter
	// (5 of 20 cells) at 2.5M rows/s, so 15M rows are left: 6 s.
	buf.Reset()
	clock = time.Unix(0, 0)
	p = progressLine(&buf, "orders", now)
	clock = clock.Add(2 * time.Second)
	p(scan.Progress{Rows: 5_000_000, Expected: 20_000_000, ExpectedKnown: true})
	want = "\r\x1b[Kscanning orders  █████░░░░░░░░░░░░░░░  5.0M/20.0M rows  2.5M rows/s  eta 0:00:06"
	if got := buf.String(); got != want {
		t.Errorf("progress with a total = %q, want %q", got, want)
	}
	// More rows than expected (the source's count was wrong): no bar, no negative eta.
	buf.Reset()
	clock = clock.Add(time.Second)
	p(scan.Progress{Rows: 21_000_000, Expected: 20_000_000, ExpectedKnown: true})
	if got := buf.String(); strings.Contains(got, "eta") || !strings.Contains(got, "21.0M rows") {
		t.Errorf("progress past the total = %q", got)
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
