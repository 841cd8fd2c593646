package repo

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// TestInitReportsDirectorySync: a configuration written but whose directory could not be
// fsynced is reported, not taken for durable.
func TestInitReportsDirectorySync(t *testing.T) {
	failed := errors.New("fsync failed")
	old := syncDir
	syncDir = func(string) error { return failed }
	t.Cleanup(func() { syncDir = old })
	_, err := Init(filepath.Join(t.TempDir(), "r"))
	if !errors.Is(err, failed) || CodeOf(err) != CodeIO || !strings.Contains(err.Error(), "may not be durable") {
		t.Fatalf("Init = %v, want the fsync failure", err)
	}
}

// TestSyncDirErrors: the real syncDir reports the failure of each step: a directory
// that cannot be opened is that open error (not a later one on the nil file), and a
// failed fsync is reported even though the close after it succeeds.
func TestSyncDirErrors(t *testing.T) {
	if err := syncDir(t.TempDir()); err != nil {
		t.Fatalf("syncDir of a directory: %v", err)
	}
	if err := syncDir(filepath.Join(t.TempDir(), "missing")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("syncDir of a missing directory = %v, want the open's ErrNotExist", err)
	}
	// fsync of /dev/null fails (EINVAL) on Linux; checked here first, independently.
	if runtime.GOOS != "linux" {
		t.Skip("fsync of /dev/null fails on Linux only")
	}
	f, err := os.Open(os.DevNull)
	if err != nil {
		t.Skip(err)
	}
	serr := f.Sync()
	f.Close()
	if serr == nil {
		t.Skip("fsync of /dev/null succeeds here")
	}
	if err := syncDir(os.DevNull); err == nil {
		t.Errorf("syncDir(%s) = nil, want the fsync failure %v", os.DevNull, serr)
	}
}
