package repo

import (
	"errors"
	"path/filepath"
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
