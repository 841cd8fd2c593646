package cli

import (
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/pipewhy/pipewhy/compare/live"
	"github.com/pipewhy/pipewhy/internal/testenv"
)

// spillRows are n records; with changed, a few of them differ (a name, a qty, a price),
// some are left out and some added.
func spillRows(rng *rand.Rand, n int, changed bool) []cmpRow {
	var rows []cmpRow
	for i := range n {
		r := cmpRow{id: int64(i), name: fmt.Sprintf("n%dé", i), qty: int64(i % 97), price: float64(i) / 4,
			amount: fmt.Sprintf("%d.%02d", i, i%100), cents: int64(i*100 + i%100)}
		if changed {
			switch rng.IntN(400) {
			case 0:
				continue
			case 1:
				r.name = "renamed"
			case 2:
				r.qty = -1
			case 3:
				r.price = 0.5
			}
		}
		rows = append(rows, r)
	}
	if changed {
		for i := range 7 {
			rows = append(rows, cmpRow{id: int64(n + i), name: "new", amount: "0.00"})
		}
	}
	return rows
}

// observation masks what differs between two runs of one comparison: the observations'
// ids and times (the first text line; "snapshot" and "finished_at_ns" in JSON).
var observation = regexp.MustCompile(`(?m)\A.*$|"(snapshot|finished_at_ns)": *"[^"]*"`)

// TestCompareSpilledOutput: 'pipewhy compare' under a budget that spills prints what
// it prints in memory, byte for byte but the observations' ids and times: text and
// JSON, with several --limit, CSV against Parquet; its scratch directory ($TMPDIR
// outside a repository, the store's staging directory inside one) is gone after.
func TestCompareSpilledOutput(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 19))
	dir := t.TempDir()
	schema := writeCmpSchema(t, dir)
	a, b := filepath.Join(dir, "a.csv"), filepath.Join(dir, "b.parquet")
	writeCmpCSV(t, a, spillRows(rng, 6000, false))
	writeCmpParquet(t, b, spillRows(rng, 6000, true), "name")
	tmp := filepath.Join(dir, "tmp")
	if err := os.Mkdir(tmp, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("TMPDIR", tmp)
	work := filepath.Join(dir, "work")
	if err := os.Mkdir(work, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Chdir(work)
	for _, args := range [][]string{{}, {"--json"}, {"--limit", "0"}, {"--limit", "3", "--json"}, {"--limit", "1000"}} {
		base := append([]string{"compare", a, b, "--key", "id", "--schema", schema}, args...)
		codeMem, outMem, errMem := runCLI(t, base...)
		codeSp, outSp, errSp := runCLI(t, append(base, "--memory", "1KiB")...)
		if codeMem != ExitDifference || codeSp != codeMem {
			t.Fatalf("%v: exit %d in memory (%s), %d spilled (%s); want %d", args, codeMem, errMem, codeSp, errSp, ExitDifference)
		}
		if m, s := observation.ReplaceAllString(outMem, "…"), observation.ReplaceAllString(outSp, "…"); m != s {
			t.Errorf("%v: spilled output differs:\n%s\nin memory:\n%s", args, s, m)
		}
	}
	if left, _ := os.ReadDir(tmp); len(left) != 0 {
		t.Errorf("$TMPDIR holds %v after the comparisons", left)
	}

	// Inside a repository the scratch directory is made in its staging directory:
	// $TMPDIR, which does not exist, is never needed.
	t.Setenv("TMPDIR", filepath.Join(dir, "missing"))
	if code, _, e := runCLI(t, "compare", a, b, "--key", "id", "--schema", schema, "--memory", "1KiB"); code != ExitError {
		t.Fatalf("outside a repository with no $TMPDIR: exit %d (%s), want %d", code, e, ExitError)
	}
	if code, _, e := runCLI(t, "init"); code != 0 {
		t.Fatalf("init: exit %d: %s", code, e)
	}
	if code, _, e := runCLI(t, "compare", a, b, "--key", "id", "--schema", schema, "--memory", "1KiB"); code != ExitDifference {
		t.Fatalf("inside a repository: exit %d (%s), want %d", code, e, ExitDifference)
	}
	staging := filepath.Join(work, ".pipewhy", "store", "staging")
	if left, err := os.ReadDir(staging); err != nil || len(left) != 0 {
		t.Errorf("staging holds %v (%v) after the comparison", left, err)
	}

	// memory: in pipewhy.yaml's defaults is the budget when --memory is not given.
	if err := os.WriteFile(filepath.Join(work, "pipewhy.yaml"), []byte("version: 1\ndefaults:\n  memory: lots\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, _, e := runCLI(t, "compare", a, b, "--key", "id", "--schema", schema); code != ExitError || !regexp.MustCompile(`memory`).MatchString(e) {
		t.Errorf("memory: lots in pipewhy.yaml: exit %d (%s), want %d naming memory", code, e, ExitError)
	}
}

// compareInterrupted runs 'pipewhy compare A B' under a budget that spills and, as soon
// as a sorted run is on disk in its scratch directory ($TMPDIR), interrupts this
// process (SIGINT); it prints "INTERRUPTED" when it did, then "EXIT n" with compare's
// exit status and its stderr.
func compareInterrupted(a, b string) int {
	done := make(chan int, 1)
	var stderr strings.Builder
	go func() {
		done <- Main([]string{"compare", a, b, "--key", "id", "--memory", "1KiB"}, strings.NewReader(""), io.Discard, &stderr)
	}()
	runs := filepath.Join(os.TempDir(), "pipewhy-compare-*", "staging", "*", "spill", "run-*")
	for {
		select {
		case code := <-done:
			fmt.Printf("EXIT %d\n%s", code, stderr.String())
			return 0
		case <-time.After(time.Millisecond):
		}
		if m, _ := filepath.Glob(runs); len(m) > 0 {
			break
		}
	}
	if err := syscall.Kill(os.Getpid(), syscall.SIGINT); err != nil {
		fmt.Println(err)
		return 2
	}
	fmt.Println("INTERRUPTED")
	fmt.Printf("EXIT %d\n%s", <-done, stderr.String())
	return 0
}

// TestCompareInterrupted: an interrupt (SIGINT) in the middle of a spilling
// comparison ends it with exit 2, and its scratch directory is gone.
func TestCompareInterrupted(t *testing.T) {
	dir := t.TempDir()
	var sb strings.Builder
	sb.WriteString("id,name,note\n")
	for i := range 200000 {
		fmt.Fprintf(&sb, "%d,n%d,%s\n", i, i%977, strings.Repeat("x", i%13))
	}
	a, b := filepath.Join(dir, "a.csv"), filepath.Join(dir, "b.csv")
	for _, p := range []string{a, b} {
		if err := os.WriteFile(p, []byte(sb.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	tmp := filepath.Join(dir, "tmp")
	if err := os.Mkdir(tmp, 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Dir = dir // no repository there: the scratch directory goes to $TMPDIR
	cmd.Env = append(os.Environ(), helperEnv+"=compare-interrupted", "A="+a, "B="+b, "TMPDIR="+tmp)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("helper: %v\n%s", err, out)
	}
	if !strings.HasPrefix(string(out), "INTERRUPTED\nEXIT 2\n") || !strings.Contains(string(out), "context canceled") {
		t.Fatalf("helper said %q, want INTERRUPTED, exit 2 and the cancellation", out)
	}
	if left, _ := os.ReadDir(tmp); len(left) != 0 {
		t.Errorf("$TMPDIR holds %v after the interrupt", left)
	}
}

// compareUntilSpill compares A and B by id in the repository (.pipewhy) of the working directory
// under a tiny budget; once a sorted run is on disk in the scratch directory it prints
// "STOP" and waits there to be killed.
func compareUntilSpill(a, b string) int {
	go Main([]string{"compare", a, b, "--key", "id", "--memory", "1KiB"}, strings.NewReader(""), io.Discard, io.Discard)
	runs := filepath.Join(".pipewhy", "store", "staging", live.ScratchPrefix+"*", "staging", "*", "spill", "run-*")
	for deadline := time.Now().Add(time.Minute); time.Now().Before(deadline); time.Sleep(time.Millisecond) {
		if m, _ := filepath.Glob(runs); len(m) > 0 {
			fmt.Println("STOP")
			time.Sleep(time.Hour)
		}
	}
	fmt.Fprintln(os.Stderr, "no sorted run reached the scratch directory")
	return 2
}

// TestCompareKilledScratch: a comparison killed (SIGKILL) while it spills leaves its
// scratch directory in the repository's staging directory. While the comparison runs,
// gc-staging keeps that directory (its lock is held); once the process is gone,
// gc-staging --dry-run lists it and removes nothing, and gc-staging removes it.
func TestCompareKilledScratch(t *testing.T) {
	project := t.TempDir() // the comparison finds the repository from its working directory
	r := filepath.Join(project, ".pipewhy")
	if code, _, e := runCLI(t, "init", "--repo", r); code != 0 {
		t.Fatalf("init: exit %d: %s", code, e)
	}
	var sb strings.Builder
	sb.WriteString("id,name\n")
	for i := range 50000 {
		fmt.Fprintf(&sb, "%d,n%d\n", i, i%977)
	}
	a, b := filepath.Join(t.TempDir(), "a.csv"), filepath.Join(t.TempDir(), "b.csv")
	for _, p := range []string{a, b} {
		if err := os.WriteFile(p, []byte(sb.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	t.Chdir(project) // the helper finds the repository from the working directory it inherits
	cmd := testenv.StartAtStop(t, helperEnv+"=compare-until-spill", "A="+a, "B="+b)
	scratch, _ := filepath.Glob(filepath.Join(r, "store", "staging", live.ScratchPrefix+"*"))
	if len(scratch) != 1 {
		t.Fatalf("scratch directories in staging: %v", scratch)
	}
	code, out, e := runCLI(t, "snapshot", "gc-staging", "--repo", r)
	if code != ExitOK || !strings.Contains(out, "kept  "+scratch[0]+"  (a comparison's scratch directory: a running comparison is using it)") {
		t.Fatalf("gc-staging during the comparison: exit %d\n%s%s", code, out, e)
	}
	testenv.Kill(cmd)
	code, out, e = runCLI(t, "snapshot", "gc-staging", "--repo", r, "--dry-run")
	if code != ExitOK || !strings.HasPrefix(out, "would remove  "+scratch[0]+"  ") {
		t.Fatalf("gc-staging --dry-run after the kill: exit %d\n%s%s", code, out, e)
	}
	if _, err := os.Stat(scratch[0]); err != nil {
		t.Fatalf("--dry-run removed the scratch directory: %v", err)
	}
	code, out, e = runCLI(t, "snapshot", "gc-staging", "--repo", r)
	if code != ExitOK || !strings.HasPrefix(out, "removed  "+scratch[0]+"  ") {
		t.Fatalf("gc-staging after the kill: exit %d\n%s%s", code, out, e)
	}
	if left, err := os.ReadDir(filepath.Join(r, "store", "staging")); err != nil || len(left) != 0 {
		t.Fatalf("staging after gc-staging: %v %v", left, err)
	}
}
