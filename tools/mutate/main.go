package main

import (
	"crypto/sha256"
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
	Package    string   `json:"package"`
	Files      []string `json:"files,omitempty"`
	Tests      int      `json:"tests"`
	BuildSecs  float64  `json:"build_seconds"`
	RecordSecs float64  `json:"record_seconds"`
	RunSecs    float64  `json:"mutant_seconds"`
	Summary    string   `json:"summary"`
	// Sources is the SHA-256 (hex) of each mutated file's text, so that -keep can tell
	// whether an earlier result still describes the same code.
	Sources map[string]string `json:"sources"`
	Mutants []*Mutant         `json:"mutants"`
}

func main() {
	files := flag.String("files", "", "only these files of the package (names in its directory, space- or comma-separated)")
	out := flag.String("o", "", "write the JSON result here")
	workers := flag.Int("workers", 1, "mutants run at once")
	coeff := flag.Float64("timeout-coeff", 3, "a mutant's tests time out after this many times their coverage run, plus -margin")
	margin := flag.Duration("margin", 5*time.Second, "added to every mutant's timeout (process start, a loaded machine)")
	dry := flag.Bool("dry-run", false, "list the mutants and build the binary; run no test")
	verbose := flag.Bool("v", false, "print every mutant as it finishes")
	keep := flag.String("keep", "", "an earlier JSON result: its killed mutants in files whose text is unchanged are kept killed, not run again (valid only when tests were added, none changed or removed)")
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
	var prev *result
	if *keep != "" {
		if prev, err = readResult(*keep); err != nil {
			fatal(err)
		}
	}
	res, err := mutate(root, dir, only, prev, *workers, *coeff, *margin, *dry, *verbose)
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

// readResult reads an earlier JSON result for -keep.
func readResult(path string) (*result, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var r result
	if err := json.Unmarshal(b, &r); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if len(r.Sources) == 0 {
		return nil, fmt.Errorf("%s: no source hashes (written by an older mutate); run it again in full", path)
	}
	return &r, nil
}

// keepKilled marks as kept every mutant that the earlier result prev killed, when its
// file's text is byte for byte the one prev mutated and the mutant is the same change at
// the same place. Adding tests cannot make a killed mutant live, so only the others need
// to run again; a changed file runs in full.
func keepKilled(res, prev *result) {
	type key struct{ pos, op, orig, mut string }
	killed := map[key]string{}
	for _, m := range prev.Mutants {
		if m.Status == Killed || m.Status == TimedOut || m.Status == Kept || m.Status == KeptTimedOut {
			killed[key{m.Pos, m.Operator, m.Original, m.Mutated}] = m.Status
		}
	}
	for _, m := range res.Mutants {
		if m.Status != "" || prev.Sources[m.file.rel] != res.Sources[m.file.rel] {
			continue
		}
		switch killed[key{m.Pos, m.Operator, m.Original, m.Mutated}] {
		case Killed, Kept:
			m.Status = Kept
		case TimedOut, KeptTimedOut:
			m.Status = KeptTimedOut
		}
	}
}

func fatal(err error) {
	fmt.Fprintln(os.Stderr, "mutate:", err)
	os.Exit(1)
}

func logf(format string, a ...any) { fmt.Fprintf(os.Stderr, format+"\n", a...) }

func mutate(root, dir string, only map[string]bool, prev *result, workers int, coeff float64, margin time.Duration, dry, verbose bool) (*result, error) {
	res := &result{Package: dir}
	for f := range only {
		res.Files = append(res.Files, f)
	}
	pm, err := load(root, dir, only, nil)
	if err != nil {
		return nil, err
	}
	res.Mutants = pm.mutants
	res.Sources = map[string]string{}
	for _, m := range pm.mutants {
		if _, ok := res.Sources[m.file.rel]; !ok {
			res.Sources[m.file.rel] = fmt.Sprintf("%x", sha256.Sum256(m.file.src))
		}
	}
	if prev != nil {
		keepKilled(res, prev)
	}
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
	if n[Kept] > 0 || n[KeptTimedOut] > 0 {
		k += n[Kept] + n[KeptTimedOut]
		s = fmt.Sprintf("%s: killed %d/%d (%d by timeout), lived %d, not covered %d, not mutable %d; %d of the killed kept from the earlier result",
			dir, k, k+n[Lived], n[TimedOut]+n[KeptTimedOut], n[Lived], n[NotCovered], n[NotMutable], n[Kept]+n[KeptTimedOut])
	}
	if n[NotRun] > 0 {
		s += fmt.Sprintf(", not run %d (dry run)", n[NotRun])
	}
	if ran > 0 {
		s += fmt.Sprintf("; %.2fs a mutant", secs/float64(ran))
	}
	return s
}
