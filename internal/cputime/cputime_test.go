package cputime

import (
	"runtime"
	"testing"
	"time"
)

// TestProcessAdvances: burning CPU makes the reading grow (on platforms that report it).
func TestProcessAdvances(t *testing.T) {
	if runtime.GOOS == "windows" || runtime.GOOS == "plan9" || runtime.GOOS == "js" || runtime.GOOS == "wasip1" {
		t.Skip("process CPU time is not read on " + runtime.GOOS)
	}
	start := Process()
	x := uint64(1)
	for deadline := time.Now().Add(50 * time.Millisecond); time.Now().Before(deadline); {
		for range 1000 {
			x = x*6364136223846793005 + 1
		}
	}
	if x == 0 || Process() <= start {
		t.Fatalf("CPU time did not advance: %v then %v", start, Process())
	}
}
