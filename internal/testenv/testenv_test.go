package testenv

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestChildMissing is run by TestMissing in a child process; alone it does nothing.
func TestChildMissing(t *testing.T) {
	if os.Getenv("TESTENV_CHILD") != "1" {
		return
	}
	Missing(t, Tools, "xxhsum not found: %s", "exec: not in PATH")
	t.Log("reached after Missing")
}

// Missing skips with the reason, or fails when the variable is "1" (and only "1"); the
// test never goes on after it.
func TestMissing(t *testing.T) {
	for _, c := range []struct {
		value string
		want  string
	}{
		{"", "--- SKIP: TestChildMissing"},
		{"0", "--- SKIP: TestChildMissing"},
		{"1", "--- FAIL: TestChildMissing"},
	} {
		cmd := exec.Command(os.Args[0], "-test.run=^TestChildMissing$", "-test.v")
		cmd.Env = append(os.Environ(), "TESTENV_CHILD=1", "PIPEWHY_REQUIRE_TOOLS="+c.value)
		out, _ := cmd.CombinedOutput()
		s := string(out)
		if !strings.Contains(s, c.want) {
			t.Errorf("PIPEWHY_REQUIRE_TOOLS=%q: want %q in\n%s", c.value, c.want, s)
		}
		if !strings.Contains(s, "xxhsum not found: exec: not in PATH") || !strings.Contains(s, "PIPEWHY_REQUIRE_TOOLS=1") {
			t.Errorf("PIPEWHY_REQUIRE_TOOLS=%q: the reason or the variable is not named in\n%s", c.value, s)
		}
		if strings.Contains(s, "reached after Missing") {
			t.Errorf("PIPEWHY_REQUIRE_TOOLS=%q: the test went on after Missing", c.value)
		}
	}
}

// .ci/run exports every PIPEWHY_REQUIRE_* variable as 1, and no code outside this
// package reads one (each such decision goes through Missing).
func TestCIRequiresEverything(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "..", ".ci", "run"))
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range All {
		if !regexp.MustCompile(`(?m)^export ` + n.Var + `=1$`).Match(data) {
			t.Errorf(".ci/run does not export %s=1", n.Var)
		}
	}
	root := filepath.Join("..", "..")
	self, err := filepath.Abs(".")
	if err != nil {
		t.Fatal(err)
	}
	err = filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if abs, _ := filepath.Abs(path); abs == self || path != root && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") {
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		if strings.Contains(string(b), `"PIPEWHY_REQUIRE_`) {
			t.Errorf("%s reads a PIPEWHY_REQUIRE_ variable itself: use testenv.Missing", path)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func TestBenchDir(t *testing.T) {
	builds := 0
	build := func(dir string) error {
		builds++
		return os.WriteFile(filepath.Join(dir, "ready"), nil, 0o644)
	}
	kept := filepath.Join(t.TempDir(), "kept")
	t.Setenv(BenchDirVar, kept)
	for range 2 { // built once, then reused as it is
		dir, temp, err := BenchDir("pipewhy-test-", "ready", build)
		if err != nil || dir != kept || temp || builds != 1 {
			t.Fatalf("kept: %q %v %v after %d builds", dir, temp, err, builds)
		}
	}
	t.Setenv(BenchDirVar, "")
	dir, temp, err := BenchDir("pipewhy-test-", "ready", build)
	if err != nil || !temp || builds != 2 || !strings.HasPrefix(filepath.Base(dir), "pipewhy-test-") {
		t.Fatalf("temporary: %q %v %v after %d builds", dir, temp, err, builds)
	}
	os.RemoveAll(dir)
}
