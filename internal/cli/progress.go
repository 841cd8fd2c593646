package cli

import (
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/pipewhy/pipewhy/compare/live"
	"github.com/pipewhy/pipewhy/scan"
	"github.com/pipewhy/pipewhy/snapshot"
	"golang.org/x/term"
)

// terminal reports whether w is a terminal: progress is drawn only there. A variable,
// so that tests can draw into a buffer.
var terminal = func(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// Timing of the progress line (variables for tests).
var (
	progressDelay  = time.Second            // nothing is drawn for commands shorter than this
	progressRedraw = 100 * time.Millisecond // reports closer than this are not drawn, unless the phase changed
	progressTick   = time.Second            // the line is redrawn this often while nothing reports (elapsed time)
)

// status is one task's latest report: a phase and its real counts. Rows of expected is
// real progress when expectedKnown, bytes of total when total > 0; a phase with neither
// shows its elapsed time.
type status struct {
	phase         string
	rows          uint64 // rows read, or the records a later phase works on
	rowsWord      string // "rows" or "records"
	expected      uint64
	expectedKnown bool
	bytes, total  uint64
	since         time.Time // the phase's start
}

func scanStatus(p scan.Progress) status {
	word := "rows"
	if p.Phase != scan.PhaseRead {
		word = "records"
	}
	return status{phase: string(p.Phase), rows: p.Rows, rowsWord: word, expected: p.Expected,
		expectedKnown: p.ExpectedKnown, bytes: p.Bytes, total: p.BytesTotal}
}

// text renders s after el in its phase:
//
//	read   ██████░░░░░░░░░░░░░░  1.2M/4.0M rows  850.3k rows/s  0:00:03 left
//	read   ████░░░░░░░░░░░░░░░░  8.1 MB/40.0 MB  120.5k rows  60.2k rows/s  0:00:12 left
//	sort   1.2M records  0:00:04
//	write  ███████████░░░░░░░░░  412.0 MB/1.1 GB  50.1 MB/s  0:00:13 left
func (s status) text(el time.Duration) string {
	secs := el.Seconds()
	// Rates and the time left are shown once the phase has run a second: before, they
	// would be noise.
	timed := el >= time.Second
	rate := func() string {
		if !timed {
			return ""
		}
		return "  " + compact(float64(s.rows)/secs) + " rows/s"
	}
	left := func(done, total uint64) string {
		if !timed || done == 0 {
			return ""
		}
		rest := time.Duration(float64(total-done) / (float64(done) / secs) * float64(time.Second))
		return "  " + clock(rest) + " left"
	}
	out := fmt.Sprintf("%-6s ", s.phase)
	switch {
	case s.phase == string(scan.PhaseRead) && s.expectedKnown && s.expected > 0 && s.rows <= s.expected:
		out += bar(s.rows, s.expected) + "  " + compact(float64(s.rows)) + "/" + compact(float64(s.expected)) + " rows" +
			rate() + left(s.rows, s.expected)
	case s.total > 0 && s.bytes <= s.total:
		out += bar(s.bytes, s.total) + "  " + bytesText(s.bytes) + "/" + bytesText(s.total)
		if s.phase == string(scan.PhaseRead) {
			out += "  " + compact(float64(s.rows)) + " rows" + rate()
		} else if timed {
			out += "  " + bytesText(uint64(float64(s.bytes)/secs)) + "/s"
		}
		out += left(s.bytes, s.total)
	case s.phase == string(scan.PhaseRead):
		out += compact(float64(s.rows)) + " rows" + rate()
	default:
		if s.rows > 0 {
			out += compact(float64(s.rows)) + " " + s.rowsWord + "  "
		}
		out += clock(el)
	}
	return out
}

// bar is a 20-cell bar of done of total (done <= total, total > 0).
func bar(done, total uint64) string {
	const width = 20
	filled := int(float64(done) / float64(total) * width)
	return strings.Repeat("█", filled) + strings.Repeat("░", width-filled)
}

// clock formats d as h:mm:ss.
func clock(d time.Duration) string {
	d = d.Round(time.Second)
	return fmt.Sprintf("%d:%02d:%02d", int(d.Hours()), int(d.Minutes())%60, int(d.Seconds())%60)
}

// compact formats a count or rate in at most five characters: 12.3k, 4.5M.
func compact(v float64) string {
	switch {
	case v >= 1e9:
		return fmt.Sprintf("%.1fG", v/1e9)
	case v >= 1e6:
		return fmt.Sprintf("%.1fM", v/1e6)
	case v >= 1e4:
		return fmt.Sprintf("%.1fk", v/1e3)
	}
	return fmt.Sprintf("%.0f", v)
}

// progress draws one line on a terminal while a command works on one or more tasks
// (compare's two sides): "LABEL  TASK  TASK". Reports may come from several goroutines.
// The line is drawn once the command has run for progressDelay, redrawn on a phase
// change or after progressRedraw, and every progressTick while nothing reports; stop
// erases it. A nil *progress draws nothing, so callers need no terminal checks.
type progress struct {
	mu      sync.Mutex
	w       io.Writer
	now     func() time.Time
	label   string
	names   []string // task names ("" for a single task)
	tasks   []status
	begin   time.Time
	last    time.Time // of the last draw
	drawn   bool
	stopped bool
	stopc   chan struct{}
	done    sync.WaitGroup
}

// newProgress returns a progress line for tasks named names on w when w is a
// terminal (else nil), redrawn by a goroutine of its own until stop.
func newProgress(w io.Writer, label string, names ...string) *progress {
	if !terminal(w) {
		return nil
	}
	p := newProgressAt(w, label, time.Now, names...)
	p.stopc = make(chan struct{})
	p.done.Go(func() {
		t := time.NewTicker(progressTick)
		defer t.Stop()
		for {
			select {
			case <-t.C:
				p.tick()
			case <-p.stopc:
				return
			}
		}
	})
	return p
}

// newProgressAt is newProgress without the terminal check and the ticker goroutine,
// on the clock now.
func newProgressAt(w io.Writer, label string, now func() time.Time, names ...string) *progress {
	if len(names) == 0 {
		names = []string{""}
	}
	return &progress{w: w, now: now, label: label, names: names, tasks: make([]status, len(names)), begin: now()}
}

// report records task i's status and draws the line when it is due.
func (p *progress) report(i int, s status) {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	t := p.now()
	prev := p.tasks[i]
	changed := prev.phase != s.phase
	s.since = prev.since
	if changed {
		s.since = t
	} else if s.bytes < prev.bytes || s.rows < prev.rows {
		// Reports of hashing goroutines can arrive out of order: keep the largest.
		s.bytes, s.rows = max(s.bytes, prev.bytes), max(s.rows, prev.rows)
	}
	p.tasks[i] = s
	if changed || t.Sub(p.last) >= progressRedraw {
		p.draw(t)
	}
}

// scan reports a scan's progress as task i.
func (p *progress) scan(i int) func(scan.Progress) {
	if p == nil {
		return nil
	}
	return func(sp scan.Progress) { p.report(i, scanStatus(sp)) }
}

// compare reports live.Compare's progress, a task per side.
func (p *progress) compare() func(live.Progress) {
	if p == nil {
		return nil
	}
	return func(cp live.Progress) {
		s := scanStatus(cp.Scan)
		if cp.Pass == 2 {
			s.phase = "re-" + s.phase // the second read of the changed records
		}
		p.report(cp.Side, s)
	}
}

// tick redraws the line if it is due, for the elapsed time of a silent phase.
func (p *progress) tick() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.draw(p.now())
}

// draw writes the line at t (the caller holds mu).
func (p *progress) draw(t time.Time) {
	if p.stopped || t.Sub(p.begin) < progressDelay {
		return
	}
	var b strings.Builder
	b.WriteString("\r\x1b[K")
	b.WriteString(p.label)
	for i, s := range p.tasks {
		if s.phase == "" {
			continue
		}
		b.WriteString("  ")
		if p.names[i] != "" {
			b.WriteString(p.names[i] + ": ")
		}
		b.WriteString(s.text(t.Sub(s.since)))
	}
	_, _ = io.WriteString(p.w, b.String()) // the terminal: a failed write has nowhere to go
	p.last, p.drawn = t, true
}

// stop erases the line and ends the ticker; later reports draw nothing. It may be
// called more than once.
func (p *progress) stop() {
	if p == nil {
		return
	}
	p.mu.Lock()
	if p.stopped {
		p.mu.Unlock()
		return
	}
	if p.drawn {
		_, _ = io.WriteString(p.w, "\r\x1b[K")
	}
	p.drawn, p.stopped = false, true
	p.mu.Unlock()
	if p.stopc != nil {
		close(p.stopc)
		p.done.Wait()
	}
}

// loadProgress is diff's progress line: the bytes of both snapshots read and checked,
// as one total, then the comparison. A nil *loadProgress draws nothing.
type loadProgress struct {
	p           *progress
	mu          sync.Mutex
	done, total [2]uint64
}

func newLoadProgress(w io.Writer, label string) *loadProgress {
	p := newProgress(w, label)
	if p == nil {
		return nil
	}
	return &loadProgress{p: p}
}

// side is the snapshot.ProgressFunc of one load of snapshot i (0 or 1): its summary
// first, then the arrays the comparison needs, each load counted from zero.
func (l *loadProgress) side(i int) snapshot.ProgressFunc {
	if l == nil {
		return nil
	}
	l.mu.Lock()
	l.done[i], l.total[i] = 0, 0
	l.mu.Unlock()
	return func(_ snapshot.Step, done, total uint64) {
		l.mu.Lock()
		l.done[i], l.total[i] = max(l.done[i], done), total
		s := status{phase: "load", bytes: l.done[0] + l.done[1], total: l.total[0] + l.total[1]}
		l.mu.Unlock()
		l.p.report(0, s)
	}
}

// comparing reports the comparison after the loads.
func (l *loadProgress) comparing() {
	if l != nil {
		l.p.report(0, status{phase: "compare"})
	}
}

func (l *loadProgress) stop() {
	if l != nil {
		l.p.stop()
	}
}
