package cli

import (
	"context"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/pipewhy/pipewhy/repo"
	"github.com/pipewhy/pipewhy/scan"
	"github.com/pipewhy/pipewhy/snapshot"
)

// Tests that need a process killed mid-scan re-execute this test binary as a helper
// (the os/exec test pattern), chosen by this environment variable.
const helperEnv = "PIPEWHY_CLI_HELPER"

func TestMain(m *testing.M) {
	if os.Getenv(helperEnv) == "scan-until-write" {
		os.Exit(scanUntilWrite(os.Getenv("REPO"), os.Getenv("ADDRESS")))
	}
	if os.Getenv(helperEnv) == "compare-until-spill" {
		os.Exit(compareUntilSpill(os.Getenv("A"), os.Getenv("B")))
	}
	if os.Getenv(helperEnv) == "compare-interrupted" {
		os.Exit(compareInterrupted(os.Getenv("A"), os.Getenv("B")))
	}
	os.Exit(m.Run())
}

// scanUntilWrite scans ADDRESS at value resolution into the repository REPO and stops in
// the middle of writing the snapshot, once its first file is on disk: it prints "STOP"
// and waits there to be killed.
func scanUntilWrite(repoDir, addr string) int {
	r, err := repo.Open(repoDir)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	_, err = scan.Run(context.Background(), r, scan.Options{Address: addr, Resolution: snapshot.ResolutionValue,
		Progress: func(p scan.Progress) {
			if p.Phase == scan.PhaseWrite && p.Bytes > 0 {
				fmt.Println("STOP")
				time.Sleep(time.Hour)
			}
		}})
	fmt.Fprintln(os.Stderr, "the scan was not stopped:", err)
	return 2
}
