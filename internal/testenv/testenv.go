package testenv

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// Need is something a test needs from the machine, and the variable that makes its
// absence a failure.
type Need struct {
	Var  string // the PIPEWHY_REQUIRE_* variable
	What string // what is needed, in the skip or failure message
}

var (
	// Tools: external programs the tests compare against (xxhsum).
	Tools = Need{"PIPEWHY_REQUIRE_TOOLS", "an external tool"}
	// Services: the PostgreSQL and MariaDB/MySQL servers of the server-source tests.
	Services = Need{"PIPEWHY_REQUIRE_SERVICES", "a database server"}
	// Shared: ../shared, the project's specifications beside the repository.
	Shared = Need{"PIPEWHY_REQUIRE_SHARED", "the shared specifications"}
	// HugePages: transparent huge pages whose advice can be read back (/proc/self/smaps).
	HugePages = Need{"PIPEWHY_REQUIRE_HUGEPAGES", "observable transparent huge pages"}
	// AVX2: a processor that runs the AVX2 hashing kernel.
	AVX2 = Need{"PIPEWHY_REQUIRE_AVX2", "an AVX2 processor"}
	// Browser: a headless Chromium (Debian's chromium) that loads the HTML reports.
	Browser = Need{"PIPEWHY_REQUIRE_BROWSER", "a headless Chromium"}
)

// All lists every Need; .ci/run sets each one's variable.
var All = []Need{Tools, Services, Shared, HugePages, AVX2, Browser}

// Required reports whether n's variable is "1": its absence is then a failure.
func Required(n Need) bool { return os.Getenv(n.Var) == "1" }

// Missing ends the test because n is missing, for the reason given by format and args:
// it skips, or fails when Required(n).
func Missing(t testing.TB, n Need, format string, args ...any) {
	t.Helper()
	reason := fmt.Sprintf(format, args...)
	if Required(n) {
		t.Fatalf("%s is required (%s=1) but missing: %s", n.What, n.Var, reason)
	}
	t.Skipf("skipped, %s is missing (%s=1 makes this a failure): %s", n.What, n.Var, reason)
}

// PostgresDSN is the PostgreSQL server of the tests: PIPEWHY_TEST_POSTGRES_DSN, or the
// local server that .ci/run starts.
func PostgresDSN() string {
	if d := os.Getenv("PIPEWHY_TEST_POSTGRES_DSN"); d != "" {
		return d
	}
	return "postgres://postgres@127.0.0.1:5432/test?sslmode=disable"
}

// MySQLAddress is the MariaDB/MySQL server of the tests, as a mysql:// address:
// PIPEWHY_TEST_MYSQL_DSN, or the local server that .ci/run starts.
func MySQLAddress() string {
	if d := os.Getenv("PIPEWHY_TEST_MYSQL_DSN"); d != "" {
		return d
	}
	return "mysql://root@127.0.0.1:3306/test"
}

// BenchDirVar names a directory where benchmarks keep the repository they build, so
// that later runs and the command line reuse it (bench/README.md).
const BenchDirVar = "PIPEWHY_BENCH_DIR"

// BenchDir returns the directory of a benchmark's data: the one BenchDirVar names, built
// there first with build when ready (a file of it, relative to the directory) does not
// exist, and never removed; or, when the variable is not set, a new directory named
// prefix… in /dev/shm when there is one (else the temporary directory), built now, which
// temp reports so that the caller removes it when done.
func BenchDir(prefix, ready string, build func(dir string) error) (dir string, temp bool, err error) {
	if dir = os.Getenv(BenchDirVar); dir != "" {
		if _, err := os.Stat(filepath.Join(dir, ready)); err == nil {
			return dir, false, nil
		}
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return "", false, err
		}
		return dir, false, build(dir)
	}
	base := os.TempDir()
	if st, err := os.Stat("/dev/shm"); err == nil && st.IsDir() {
		base = "/dev/shm"
	}
	if dir, err = os.MkdirTemp(base, prefix); err != nil {
		return "", false, err
	}
	return dir, true, build(dir)
}
