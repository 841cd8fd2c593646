package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

var limitMem uint64

// result is the JSON output of one package.
type result struct {
	Package    string    `json:"package"`
	Files      []string  `json:"files,omitempty"`
	Tests      int       `json:"tests"`
	BuildSecs  float64   `json:"build_seconds"`
	RecordSecs float64   `json:"record_seconds"`
	RunSecs    float64   `json:"mutant_seconds"`
	Summary    string    `json:"summary"`
	Mutants    []*Mutant `json:"mutants"`
}

func main() {
	files := flag.String("files", "", "only these files of the package (names in its directory, space- or comma-separated)")
	out := flag.String("o", "", "write the JSON result here")
	workers := flag.Int("workers", 1, "mutants run at once")
	coeff := flag.Float64("timeout-coeff", 3, "a mutant's tests time out after this many times their coverage run, plus -margin")
	margin := flag.Duration("margin", 5*time.Second, "added to every mutant's timeout (process start, a loaded machine)")
	dry := flag.Bool("dry-run", false, "list the mutants and build the binary; run no test")
	verbose := flag.Bool("v", false, "print every mutant as it finishes")
	memGiB := flag.Int("mem", 8, "address-space limit of the test runs, GiB (a mutated size can allocate without end; 0: none)")
	flag.Usage = func() {
		fmt.Fprintln(os.Stderr, "usage: mutate [flags] PKGDIR   (run in the module root; see doc.go)")
		flag.PrintDefaults()
	}
	flag.Parse()
	if flag.NArg() != 1 {
		flag.Usage()
		os.Exit(2)
	}
	only := map[string]bool{}
	for _, f := range strings.FieldsFunc(*files, func(r rune) bool { return r == ' ' || r == ',' }) {
		only[f] = true
	}
	root, err := os.Getwd()
	if err != nil {
		fatal(err)
	}
	dir := strings.TrimSuffix(strings.TrimPrefix(flag.Arg(0), "./"), "/")
	limitMem = uint64(*memGiB) << 30
	res, err := mutate(root, dir, only, *workers, *coeff, *margin, *dry, *verbose)
	if err != nil {
		fatal(err)
	}
	fmt.Println(res.Summary)
	if *out != "" {
		b, err := json.MarshalIndent(res, "", "  ")
		if err != nil {
			fatal(err)
		}
		if err := os.WriteFile(*out, append(b, '\n'), 0o644); err != nil {
			fatal(err)
		}
	}
}

func fatal(err error) {
	fmt.Fprintln(os.Stderr, "mutate:", err)
	os.Exit(1)
}

func logf(format string, a ...any) { fmt.Fprintf(os.Stderr, format+"\n", a...) }

func mutate(root, dir string, only map[string]bool, workers int, coeff float64, margin time.Duration, dry, verbose bool) (*result, error) {
	res := &result{Package: dir}
	for f := range only {
		res.Files = append(res.Files, f)
	}
	pm, err := load(root, dir, only, nil)
	if err != nil {
		return nil, err
	}
	res.Mutants = pm.mutants
	tmp, err := os.MkdirTemp("", "pipewhy-mutate-")
	if err != nil {
		return nil, err
	}
	defer func() { _ = os.RemoveAll(tmp) }() // a temporary directory: nothing to report
	bin := filepath.Join(tmp, "pkg.test")
	t0 := time.Now()
	if err := pm.build(root, tmp, bin); err != nil {
		return nil, err
	}
	res.BuildSecs = time.Since(t0).Seconds()
	// From here on this process only starts test binaries, which inherit the limit: a
	// mutant that allocates without end fails (killed) instead of pushing a shared machine
	// into swap.
	if limitMem > 0 {
		if err := syscall.Setrlimit(syscall.RLIMIT_AS, &syscall.Rlimit{Cur: limitMem, Max: limitMem}); err != nil {
			return nil, err
		}
	}
	pkgDir := filepath.Join(root, dir)
	var todo []*Mutant
	if dry {
		for _, m := range pm.mutants {
			if m.Status == "" {
				m.Status = NotRun
			}
		}
	} else {
		names, err := listTests(bin, pkgDir)
		if err != nil {
			return nil, err
		}
		t0 = time.Now()
		runs := record(bin, pkgDir, tmp, names, logf)
		res.RecordSecs, res.Tests = time.Since(t0).Seconds(), len(runs)
		for _, m := range pm.mutants {
			if m.Status != "" {
				continue
			}
			m.Status = NotCovered
			for _, r := range runs {
				if r.reached[m.ID] {
					m.Status = ""
					todo = append(todo, m)
					break
				}
			}
		}
		logf("%s: %d mutants, %d covered, %d tests; build %.0fs, coverage runs %.0fs", dir, len(pm.mutants), len(todo), len(runs), res.BuildSecs, res.RecordSecs)
		t0 = time.Now()
		done := 0
		runAll(todo, runs, bin, pkgDir, workers, coeff, margin, func(m *Mutant) {
			done++
			if verbose || m.Status == Lived || m.Status == TimedOut {
				logf("%4d/%d %-11s %s %s: %s -> %s %s", done, len(todo), m.Status, m.Pos, m.Operator, m.Original, m.Mutated, m.Killer)
			}
		})
		res.RunSecs = time.Since(t0).Seconds()
	}
	res.Summary = summary(dir, pm.mutants, len(todo), res.RunSecs)
	return res, nil
}

func summary(dir string, ms []*Mutant, ran int, secs float64) string {
	n := map[string]int{}
	for _, m := range ms {
		n[m.Status]++
	}
	k := n[Killed] + n[TimedOut]
	s := fmt.Sprintf("%s: killed %d/%d (%d by timeout), lived %d, not covered %d, not mutable %d",
		dir, k, k+n[Lived], n[TimedOut], n[Lived], n[NotCovered], n[NotMutable])
	if n[NotRun] > 0 {
		s += fmt.Sprintf(", not run %d (dry run)", n[NotRun])
	}
	if ran > 0 {
		s += fmt.Sprintf("; %.2fs a mutant", secs/float64(ran))
	}
	return s
}
