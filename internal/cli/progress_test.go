package cli

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// The expected lines are worked out by hand from the counts: a 20-cell bar fills
// done*20/total cells, rates are done/elapsed, the time left is (total-done)/rate.
func TestProgressText(t *testing.T) {
	cases := []struct {
		name string
		s    status
		el   time.Duration
		want string
	}{
		{"rows of expected", status{phase: "read", rows: 5_000_000, expected: 20_000_000, expectedKnown: true}, 2 * time.Second,
			"read   █████░░░░░░░░░░░░░░░  5.0M/20.0M rows  2.5M rows/s  0:00:06 left"},
		{"bytes of the file", status{phase: "read", rows: 100_000, bytes: 10_000_000, total: 40_000_000}, 2 * time.Second,
			"read   █████░░░░░░░░░░░░░░░  10.0 MB/40.0 MB  100.0k rows  50.0k rows/s  0:00:06 left"},
		{"rows only", status{phase: "read", rows: 3_000_000}, 2 * time.Second,
			"read   3.0M rows  1.5M rows/s"},
		// A source whose count was wrong: no bar, no negative time left.
		{"more rows than expected", status{phase: "read", rows: 21_000_000, expected: 20_000_000, expectedKnown: true}, 3 * time.Second,
			"read   21.0M rows  7.0M rows/s"},
		{"nothing read yet", status{phase: "read", expected: 10, expectedKnown: true}, time.Second,
			"read   ░░░░░░░░░░░░░░░░░░░░  0/10 rows  0 rows/s"},
		{"infer", status{phase: "infer", bytes: 1_000_000, total: 4_000_000}, time.Second,
			"infer  █████░░░░░░░░░░░░░░░  1.0 MB/4.0 MB  1.0 MB/s  0:00:03 left"},
		{"sort", status{phase: "sort", rows: 1_200_000, rowsWord: "records"}, 4 * time.Second,
			"sort   1.2M records  0:00:04"},
		{"write", status{phase: "write", bytes: 400_000_000, total: 1_200_000_000}, 8 * time.Second,
			"write  ██████░░░░░░░░░░░░░░  400.0 MB/1.2 GB  50.0 MB/s  0:00:16 left"},
		{"compare", status{phase: "compare"}, 61 * time.Second, "compare 0:01:01"},
	}
	for _, c := range cases {
		if got := c.s.text(c.el); got != c.want {
			t.Errorf("%s:\n got %q\nwant %q", c.name, got, c.want)
		}
	}
}

// TestProgressLine: nothing is drawn in the first second; then a report draws at once
// when its phase changed, else when 100ms passed since the last draw; the ticker
// redraws a silent phase; reports out of order keep the largest count; stop erases the
// line once and ends drawing.
func TestProgressLine(t *testing.T) {
	var buf bytes.Buffer
	clock := time.Unix(0, 0)
	p := newProgressAt(&buf, "scanning orders", func() time.Time { return clock })
	read := func(rows uint64) status { return status{phase: "read", rows: rows} }
	p.report(0, read(1000))
	clock = clock.Add(500 * time.Millisecond)
	p.report(0, read(2000))
	if buf.Len() != 0 {
		t.Fatalf("drawn before a second: %q", buf.String())
	}
	clock = clock.Add(500 * time.Millisecond) // 1 s after the start, 1 s into the read
	p.report(0, read(3000))
	if got, want := buf.String(), "\r\x1b[Kscanning orders  read   3000 rows  3000 rows/s"; got != want {
		t.Fatalf("first draw %q, want %q", got, want)
	}
	buf.Reset()
	clock = clock.Add(50 * time.Millisecond)
	p.report(0, read(4000)) // throttled
	if buf.Len() != 0 {
		t.Fatalf("drawn within 100ms: %q", buf.String())
	}
	clock = clock.Add(10 * time.Millisecond)
	p.report(0, status{phase: "sort", rows: 4000, rowsWord: "records"}) // a new phase draws at once
	if got, want := buf.String(), "\r\x1b[Kscanning orders  sort   4000 records  0:00:00"; got != want {
		t.Fatalf("phase change %q, want %q", got, want)
	}
	buf.Reset()
	clock = clock.Add(3 * time.Second)
	p.tick()
	if got, want := buf.String(), "\r\x1b[Kscanning orders  sort   4000 records  0:00:03"; got != want {
		t.Fatalf("tick %q, want %q", got, want)
	}
	// Hashing goroutines report out of order: the line never goes back.
	p.report(0, status{phase: "checksum", bytes: 2000, total: 4000})
	clock = clock.Add(time.Second)
	buf.Reset()
	p.report(0, status{phase: "checksum", bytes: 1000, total: 4000})
	if !strings.Contains(buf.String(), "2.0 kB/4.0 kB") {
		t.Fatalf("out-of-order report drew %q", buf.String())
	}
	buf.Reset()
	p.stop()
	p.stop()
	p.report(0, read(1))
	p.tick()
	if got := buf.String(); got != "\r\x1b[K" {
		t.Fatalf("after stop: %q", got)
	}
	// Two tasks, named.
	buf.Reset()
	clock = time.Unix(0, 0)
	p = newProgressAt(&buf, "comparing", func() time.Time { return clock }, "A", "B")
	clock = clock.Add(2 * time.Second)
	p.report(1, read(10))
	p.report(0, read(20))
	// Both phases started just now: counts, no rates yet.
	if got, want := buf.String()[strings.LastIndex(buf.String(), "\r"):], "\r\x1b[Kcomparing  A: read   20 rows  B: read   10 rows"; got != want {
		t.Fatalf("two tasks %q, want %q", got, want)
	}
	// A nil progress (not a terminal) draws nothing and needs no checks.
	var none *progress
	none.report(0, read(1))
	none.stop()
	if none.scan(0) != nil || none.compare() != nil {
		t.Fatal("a nil progress returns callbacks")
	}
}

// fakeTerminal makes w count as a terminal and progress draw at once, for the test.
func fakeTerminal(t *testing.T, w io.Writer) {
	t.Helper()
	term, delay, redraw := terminal, progressDelay, progressRedraw
	terminal = func(x io.Writer) bool { return x == w }
	progressDelay, progressRedraw = 0, 0
	t.Cleanup(func() { terminal, progressDelay, progressRedraw = term, delay, redraw })
}

// TestProgressOnTerminal: scan, compare and diff draw their progress on stderr when it
// is a terminal, phase by phase, and erase it; stdout stays clean. Without a terminal
// nothing is drawn.
func TestProgressOnTerminal(t *testing.T) {
	r := newRepo(t)
	v1, v2 := filepath.Join(shop, "v1", "orders.csv"), filepath.Join(shop, "v2", "orders.csv")
	var out, errb bytes.Buffer
	fakeTerminal(t, &errb)
	if code := Main([]string{"scan", "--repo", r, "--infer", "--key", "order_id", "--resolution", "value", v1}, strings.NewReader(""), &out, &errb); code != 0 {
		t.Fatal(errb.String())
	}
	size := fileSize(t, v1)
	e := errb.String()
	// The read phase shows the bytes of the file (a CSV's row count is known at its end).
	for _, want := range []string{"scanning orders  open   0:00:00", "scanning orders  infer", "scanning orders  read", "/" + bytesText(size) + "  0 rows",
		"scanning orders  sort   200 records", "scanning orders  build", "scanning orders  checksum", "scanning orders  write", "scanning orders  verify"} {
		if !strings.Contains(e, want) {
			t.Errorf("scan progress lacks %q:\n%.600q", want, e)
		}
	}
	if !strings.HasSuffix(e, "\r\x1b[K") || strings.Contains(out.String(), "\r") || !strings.HasPrefix(out.String(), "snapshot ") {
		t.Errorf("stderr %.300q, stdout %q: want the line erased and stdout clean", e, out.String())
	}
	a := snapRe.FindStringSubmatch(out.String())[1]
	b := scanShop(t, r, 2, "orders", "order_id", "value")
	errb.Reset()
	Main([]string{"diff", "--repo", r, a, b}, strings.NewReader(""), &out, &errb)
	if e := errb.String(); !strings.Contains(e, "diff  load   ") || !strings.Contains(e, "diff  compare") || !strings.HasSuffix(e, "\r\x1b[K") {
		t.Errorf("diff progress %.600q", e)
	}
	errb.Reset()
	Main([]string{"compare", "--key", "order_id", v1, v2}, strings.NewReader(""), &out, &errb)
	for _, want := range []string{"comparing  A: open   0:00:00  B: open   0:00:00", "comparing  A: read", "B: read", "A: re-read", "B: re-read"} {
		if !strings.Contains(errb.String(), want) {
			t.Errorf("compare progress lacks %q: %.600q", want, errb.String())
		}
	}
	// Not a terminal: nothing.
	var plain bytes.Buffer
	if code := Main([]string{"scan", "--repo", r, v1}, strings.NewReader(""), &out, &plain); code != 0 || plain.Len() != 0 {
		t.Errorf("progress on a non-terminal: exit %d, %q", code, plain.String())
	}
}

func fileSize(t *testing.T, path string) uint64 {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return uint64(fi.Size())
}
