package internal_test

import (
	"os"
	"os/exec"
	"testing"
)

// TestVet32Bit type-checks and vets the whole module, tests included, for a 32-bit
// platform (GOARCH=386): a constant that overflows int there (1<<32, MaxUint32 compared
// with an int) fails to compile on such a platform and only shows up under that GOARCH.
// It runs the go command over every package (minutes on two cores from a cold cache),
// so -short skips it; CI runs it in the full suite.
func TestVet32Bit(t *testing.T) {
	if testing.Short() {
		t.Skip("vets every package for GOARCH=386 (minutes on a cold build cache); run without -short")
	}
	gobin, err := exec.LookPath("go")
	if err != nil {
		t.Skipf("no go command on PATH: %v", err)
	}
	cmd := exec.Command(gobin, "vet", "./...")
	cmd.Dir = ".." // the module root
	cmd.Env = append(os.Environ(), "GOARCH=386", "CGO_ENABLED=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("GOARCH=386 go vet ./...: %v\n%s", err, out)
	}
}
