package retention

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/pipewhy/pipewhy/internal/testenv"
	"github.com/pipewhy/pipewhy/repo"
	"github.com/pipewhy/pipewhy/scan"
	"github.com/pipewhy/pipewhy/snapshot"
)

// Tests that kill a prune re-execute this test binary as a helper, chosen by this
// environment variable.
const helperEnv = "PIPEWHY_RETENTION_HELPER"

func TestMain(m *testing.M) {
	if os.Getenv(helperEnv) == "prune" {
		os.Exit(pruneHelper(os.Getenv("REPO"), os.Getenv("STOP_AFTER")))
	}
	os.Exit(m.Run())
}

// pruneHelper prunes REPO keeping the newest scan. With STOP_AFTER=k it prints "STOP"
// after the k-th removal and waits there to be killed; with STOP_AFTER=start it prints
// "STOP" before the first removal and goes on, to be killed wherever it is.
func pruneHelper(dir, stop string) int {
	r, err := repo.Open(dir)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	if stop == "start" {
		beforeRemovals = func() { fmt.Println("STOP") }
	} else {
		k, _ := strconv.Atoi(stop)
		n := 0
		afterRemove = func(string) {
			if n++; n == k {
				fmt.Println("STOP")
				time.Sleep(time.Hour)
			}
		}
	}
	_, err = Prune(context.Background(), r, Options{Rule: Rule{KeepLast: 1}})
	fmt.Fprintln(os.Stderr, "the prune was not stopped:", err)
	return 2
}

// scanned returns a repository holding n scans of one artifact, alternating between two
// versions of the sample customers table.
func scanned(t *testing.T, n int) *repo.Repo {
	t.Helper()
	r, err := repo.Init(filepath.Join(t.TempDir(), "repo"))
	if err != nil {
		t.Fatal(err)
	}
	for i := range n {
		addr := filepath.Join("..", "examples", "shop", fmt.Sprintf("v%d", 1+i%2), "customers.csv")
		if _, err := scan.Run(context.Background(), r, scan.Options{Address: addr, Name: "customers"}); err != nil {
			t.Fatal(err)
		}
	}
	return r
}

// copyTree copies the directory src to dst (a new path; regular files only).
func copyTree(t *testing.T, src, dst string) {
	t.Helper()
	if err := os.CopyFS(dst, os.DirFS(src)); err != nil {
		t.Fatal(err)
	}
}

// killPrune runs the helper on the repository dir, waits for its "STOP", waits delay more
// and kills it (SIGKILL).
func killPrune(t *testing.T, dir, stop string, delay time.Duration) {
	t.Helper()
	testenv.KillAtStop(t, delay, helperEnv+"=prune", "REPO="+dir, "STOP_AFTER="+stop)
}

// TestPruneKilled kills a prune process after its k-th removal, and at moments spread
// over its removals. Whatever the moment, the store lists (every published snapshot
// passes every check), it holds the snapshots the plan keeps plus a suffix of its
// removals (removed newest first: what is still published is the oldest ones), staging
// holds at most one claimed entry and nothing else, and a second prune deletes that entry
// and the rest of the removals and ends exactly where an uninterrupted prune ends.
func TestPruneKilled(t *testing.T) {
	ctx := context.Background()
	base := scanned(t, 8)
	h, err := Load(base)
	if err != nil {
		t.Fatal(err)
	}
	plan, err := Decide(Rule{KeepLast: 1}, h)
	if err != nil {
		t.Fatal(err)
	}
	var kept, removals []string
	for _, d := range plan.Decisions {
		if !d.Remove {
			kept = append(kept, d.ID)
		}
	}
	for _, d := range plan.Removals() {
		removals = append(removals, d.ID)
	}
	// The newest scan and its parent stay; six go.
	if len(kept) != 2 || len(removals) != 6 {
		t.Fatalf("kept %v, removing %v", kept, removals)
	}
	slices.Sort(kept)
	type trial struct {
		stop  string
		delay time.Duration
	}
	trials := []trial{{"1", 0}, {"5", 0}}
	for i := range 8 {
		trials = append(trials, trial{"start", time.Duration(i) * 2500 * time.Microsecond})
	}
	for _, tr := range trials {
		t.Run(fmt.Sprintf("%s+%v", tr.stop, tr.delay), func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "repo")
			copyTree(t, base.Dir(), dir)
			killPrune(t, dir, tr.stop, tr.delay)
			r, err := repo.Open(dir)
			if err != nil {
				t.Fatal(err)
			}
			mds, err := r.Store().List()
			if err != nil {
				t.Fatalf("list after the kill: %v", err)
			}
			var left []string
			for _, m := range mds {
				left = append(left, m.ID.String())
			}
			slices.Sort(left)
			// What is left is the kept snapshots and the oldest n removals.
			n := len(left) - len(kept)
			want := append(slices.Clone(kept), removals[len(removals)-n:]...)
			slices.Sort(want)
			if n < 0 || !slices.Equal(left, want) {
				t.Fatalf("after the kill: %v, want %v", left, want)
			}
			if k, err := strconv.Atoi(tr.stop); err == nil && n != len(removals)-k {
				t.Fatalf("killed after removal %d: %d removals left", k, n)
			}
			staged, err := r.Store().Staging()
			if err != nil {
				t.Fatal(err)
			}
			if len(staged) > 1 || len(staged) == 1 && (!staged[0].Attempt || !strings.HasSuffix(staged[0].Path, snapshot.ClaimSuffix) ||
				!slices.Contains(removals, strings.Split(filepath.Base(staged[0].Path), "-")[0])) {
				t.Fatalf("staging after the kill: %+v", staged)
			}
			t.Logf("after the kill: %d removals left, %d claimed in staging", n, len(staged))
			rep, err := Prune(ctx, r, Options{Rule: Rule{KeepLast: 1}})
			if err != nil {
				t.Fatal(err)
			}
			if len(rep.Removed) != n || len(rep.Leftovers) != len(staged) {
				t.Fatalf("the re-run removed %d and %v, want %d and %d leftovers", len(rep.Removed), rep.Leftovers, n, len(staged))
			}
			ids, err := r.IDs()
			if err != nil {
				t.Fatal(err)
			}
			var final []string
			for _, id := range ids {
				final = append(final, id.String())
			}
			if !slices.Equal(final, kept) {
				t.Fatalf("after the re-run: %v, want %v", final, kept)
			}
			if staged, err := r.Store().Staging(); err != nil || len(staged) != 0 {
				t.Fatalf("staging after the re-run: %+v %v", staged, err)
			}
		})
	}
}

// TestPruneLocked: a prune refuses to run while a writer (a scan) holds the repository's
// lock, and removes nothing; a dry run, which changes nothing, does not need the lock.
func TestPruneLocked(t *testing.T) {
	r := scanned(t, 3)
	unlock, err := r.Lock()
	if err != nil {
		t.Fatal(err)
	}
	defer unlock()
	if _, err := Prune(context.Background(), r, Options{Rule: Rule{KeepLast: 1}}); repo.CodeOf(err) != repo.CodeBusy {
		t.Fatalf("prune while locked: %v", err)
	}
	rep, err := Prune(context.Background(), r, Options{Rule: Rule{KeepLast: 1}, DryRun: true})
	if err != nil || len(rep.Removed) != 1 {
		t.Fatalf("dry run while locked: %+v %v", rep, err)
	}
	if ids, err := r.IDs(); err != nil || len(ids) != 3 {
		t.Fatalf("after: %v %v", ids, err)
	}
}

// TestPruneRemoveFails: a removal that fails stops the prune with CodeRemove; the report
// holds the removals done before it, and every snapshot still published is whole. The
// failure: after the first removal, the staging directory is replaced by a file.
func TestPruneRemoveFails(t *testing.T) {
	r := scanned(t, 4)
	staging := filepath.Join(r.Store().Root(), "staging")
	defer func() { afterRemove = func(string) {} }()
	afterRemove = func(string) {
		afterRemove = func(string) {}
		if err := os.Remove(staging); err != nil {
			t.Error(err)
		}
		if err := os.WriteFile(staging, nil, 0o644); err != nil {
			t.Error(err)
		}
	}
	rep, err := Prune(context.Background(), r, Options{Rule: Rule{KeepLast: 1}})
	if CodeOf(err) != CodeRemove || rep == nil || len(rep.Removed) != 1 || len(rep.Plan.Removals()) != 2 {
		t.Fatalf("%+v: %v", rep, err)
	}
	mds, err := r.Store().List()
	if err != nil || len(mds) != 3 {
		t.Fatalf("list: %d %v", len(mds), err)
	}
	for _, m := range mds {
		if m.ID.String() == rep.Removed[0].ID {
			t.Fatalf("%s was reported removed", m.ID)
		}
	}
}
