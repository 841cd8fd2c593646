package scan

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/pipewhy/pipewhy/repo"
	"github.com/pipewhy/pipewhy/snapshot"
)

// The kill test re-executes this test binary as a helper process (the os/exec test
// pattern), chosen by this environment variable.
const helperEnv = "PIPEWHY_SCAN_HELPER"

func TestMain(m *testing.M) {
	if os.Getenv(helperEnv) == "spill-loop" {
		os.Exit(spillLoop())
	}
	os.Exit(m.Run())
}

// spillLoop scans CSV into the repository ROOT again and again under a tiny memory
// budget and tiles of a few rows, so that most of its time is spent spilling and
// merging sorted runs, until it is killed.
func spillLoop() int {
	tileWords, minTileRows, maxTileRows, firstTileRows = 60, 1, 7, 3
	r, err := repo.Open(os.Getenv("ROOT"))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 3
	}
	for {
		if _, err := Run(context.Background(), r, Options{Address: os.Getenv("CSV"), Resolution: snapshot.ResolutionValue,
			Key: []string{"id"}, Memory: 4000}); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 4
		}
		fmt.Println("published")
	}
}

// TestKillSpillingScan kills a scan that spills (a real process, SIGKILL at random
// times) and finds only valid snapshots, each equal to the scan sorted in memory, and
// inspectable staging attempts; no file was written outside the repository (the
// helper's TMPDIR stays empty). It repeats until at least one kill left an attempt
// with its spill directory, so a kill during spilling is always exercised.
func TestKillSpillingScan(t *testing.T) {
	iters := 6
	if testing.Short() {
		iters = 2
	}
	tinyTiles(t)
	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, 1))
	csv := randomCSV(t, rng, 300, false)
	// The reference: the same file sorted in memory.
	want, _, _, err := publishedArrays(t, Options{Address: csv, Resolution: snapshot.ResolutionValue, Key: []string{"id"}, Memory: -1})
	if err != nil {
		t.Fatal(err)
	}
	duringSpill, kills := 0, 0
	for iter := 0; iter < 40 && (duringSpill == 0 || iter < iters); iter++ {
		root := filepath.Join(t.TempDir(), "r")
		r, err := repo.Init(root)
		if err != nil {
			t.Fatal(err)
		}
		tmp := t.TempDir()
		cmd := exec.Command(os.Args[0], "-test.run=^$")
		cmd.Env = append(os.Environ(), helperEnv+"=spill-loop", "ROOT="+root, "CSV="+csv, "TMPDIR="+tmp)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		time.Sleep(time.Duration(30+rng.IntN(2000)) * time.Millisecond)
		cmd.Process.Kill() // SIGKILL on POSIX
		cmd.Wait()
		kills++
		if ents, err := os.ReadDir(tmp); err != nil || len(ents) != 0 {
			t.Fatalf("the scan wrote outside the repository, in TMPDIR: %v %v", ents, err)
		}
		ids, err := r.Store().List()
		if err != nil {
			t.Fatalf("list after a kill: %v", err)
		}
		for _, md := range ids {
			snap, err := r.Store().Open(md.ID)
			if err != nil {
				t.Fatalf("open %s after a kill: %v", md.ID, err)
			}
			if _, err := r.Load(md.ID); err != nil {
				t.Fatalf("load %s after a kill: %v", md.ID, err)
			}
			for k, a := range want {
				if k != "observation_observed_at_ns" && !snap.Arrays[k].Equal(a) {
					t.Fatalf("snapshot %s: array %s differs from the in-memory scan's", md.ID, k)
				}
			}
		}
		atts, err := r.Store().InspectIncomplete()
		if err != nil {
			t.Fatal(err)
		}
		for _, a := range atts {
			if a.Diagnostic == "" || a.Phase == snapshot.PhaseInvalid {
				t.Fatalf("attempt %s: %s %q", a.Path, a.Phase, a.Diagnostic)
			}
			if _, err := os.Stat(filepath.Join(a.Path, "spill")); err == nil {
				duringSpill++
			}
		}
		// What a kill leaves, the explicit cleanup removes.
		if _, _, err := r.Store().RemoveStaging(context.Background(), snapshot.StagingOptions{}); err != nil {
			t.Fatal(err)
		}
		if ents, _ := r.Store().Staging(); len(ents) != 0 {
			t.Fatalf("staging after cleanup: %v", ents)
		}
		t.Logf("kill %d: %d published, %d attempts", iter, len(ids), len(atts))
	}
	if duringSpill == 0 {
		t.Fatalf("none of %d kills hit a spilling scan", kills)
	}
	t.Logf("%d kills, %d during spilling", kills, duringSpill)
}
