package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// testRun is one top-level test's coverage run: how long it took and the ids it reached.
type testRun struct {
	name    string
	seconds float64
	reached map[int]bool
}

// testCmd runs the test binary in the package directory (where go test runs it: tests
// read testdata/ relative to it), in a process group of its own so that a timeout ends
// whatever it started.
func testCmd(ctx context.Context, bin, dir string, env []string, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 5 * time.Second
	return cmd
}

// listTests returns the binary's top-level tests, examples and fuzz targets (their seeds
// run as tests); benchmarks do not run under go test.
func listTests(bin, dir string) ([]string, error) {
	out, err := testCmd(context.Background(), bin, dir, nil, "-test.list", ".").Output()
	if err != nil {
		return nil, fmt.Errorf("-test.list: %v", err)
	}
	var names []string
	for _, l := range strings.Fields(string(out)) {
		if strings.HasPrefix(l, "Test") || strings.HasPrefix(l, "Example") || strings.HasPrefix(l, "Fuzz") {
			names = append(names, l)
		}
	}
	return names, nil
}

// record runs each test alone with the record mode on. A test that fails without any
// mutant is reported and left out.
func record(bin, dir, tmp string, names []string, logf func(string, ...any)) []*testRun {
	var runs []*testRun
	for i, name := range names {
		rec := filepath.Join(tmp, "record-"+strconv.Itoa(i))
		start := time.Now()
		out, err := testCmd(context.Background(), bin, dir, []string{"PIPEWHY_MUTANT_RECORD=" + rec},
			"-test.run", "^"+regexp.QuoteMeta(name)+"$", "-test.count=1").CombinedOutput()
		secs := time.Since(start).Seconds()
		if err != nil {
			logf("test %s fails without a mutant (left out): %v\n%s", name, err, tail(out))
			continue
		}
		tr := &testRun{name: name, seconds: secs, reached: map[int]bool{}}
		if b, err := os.ReadFile(rec); err == nil {
			sc := bufio.NewScanner(bytes.NewReader(b))
			for sc.Scan() {
				if id, err := strconv.Atoi(sc.Text()); err == nil {
					tr.reached[id] = true
				}
			}
		}
		runs = append(runs, tr)
	}
	return runs
}

func tail(b []byte) string {
	if len(b) > 2000 {
		b = b[len(b)-2000:]
	}
	return string(b)
}

var failLine = regexp.MustCompile(`(?m)^--- FAIL: (\S+)`)
var panicTest = regexp.MustCompile(`(?m)^=== RUN\s+(\S+)`)

// runMutant runs the tests that reach m with m active: a failure or a timeout kills it.
func runMutant(m *Mutant, bin, dir string, tests []*testRun, coeff float64, margin time.Duration) {
	var names []string
	budget := 0.0
	for _, t := range tests {
		names = append(names, regexp.QuoteMeta(t.name))
		budget += t.seconds
	}
	timeout := time.Duration(coeff*budget*float64(time.Second)) + margin
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	start := time.Now()
	out, err := testCmd(ctx, bin, dir, []string{"PIPEWHY_MUTANT=" + strconv.Itoa(m.ID)},
		"-test.run", "^("+strings.Join(names, "|")+")$", "-test.failfast", "-test.count=1").CombinedOutput()
	m.Seconds = time.Since(start).Seconds()
	switch {
	case ctx.Err() != nil:
		m.Status, m.Killer = TimedOut, fmt.Sprintf("after %.1fs", m.Seconds)
	case err == nil:
		m.Status = Lived
	default:
		m.Status = Killed
		var ee *exec.ExitError
		if k := failLine.FindSubmatch(out); k != nil {
			m.Killer = string(k[1])
		} else if errors.As(err, &ee) {
			m.Killer = "exit " + strconv.Itoa(ee.ExitCode())
			if r := panicTest.FindAllSubmatch(out, -1); len(r) > 0 {
				m.Killer += " in " + string(r[len(r)-1][1])
			}
		}
	}
}

// runAll runs the covered mutants on workers goroutines.
func runAll(ms []*Mutant, runs []*testRun, bin, dir string, workers int, coeff float64, margin time.Duration, progress func(*Mutant)) {
	work := make(chan *Mutant)
	var wg sync.WaitGroup
	var mu sync.Mutex
	for range max(workers, 1) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for m := range work {
				var tests []*testRun
				for _, t := range runs {
					if t.reached[m.ID] {
						tests = append(tests, t)
					}
				}
				runMutant(m, bin, dir, tests, coeff, margin)
				mu.Lock()
				progress(m)
				mu.Unlock()
			}
		}()
	}
	for _, m := range ms {
		work <- m
	}
	close(work)
	wg.Wait()
}
