//go:build unix

package live

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestRemoveStale: a scratch directory is removed only when no comparison holds its lock,
// when it is old enough for --older-than, and, without a lock file, when it is older than
// the creation grace; --dry-run removes nothing; other names and symbolic links are
// never removed.
func TestRemoveStale(t *testing.T) {
	staging := t.TempDir()
	old := time.Now().Add(-2 * time.Hour)
	mk := func(name string, lock bool, mod time.Time) string {
		t.Helper()
		dir := filepath.Join(staging, name)
		if err := os.MkdirAll(filepath.Join(dir, "staging"), 0o700); err != nil {
			t.Fatal(err)
		}
		if lock {
			release, err := lockScratch(filepath.Join(dir, scratchLock))
			if err != nil {
				t.Fatal(err)
			}
			release()
		}
		for _, p := range []string{filepath.Join(dir, "staging"), filepath.Join(dir, scratchLock), dir} {
			os.Chtimes(p, mod, mod) // the lock file may not exist
		}
		return dir
	}
	exists := func(p string) bool { _, err := os.Lstat(p); return err == nil }

	held := mk(ScratchPrefix+"held", false, old)
	release, err := lockScratch(filepath.Join(held, scratchLock))
	if err != nil {
		t.Fatal(err)
	}
	defer release()
	if gone, why, err := RemoveStale(held, 0, false); err != nil || gone || why != "a running comparison is using it" || !exists(held) {
		t.Errorf("held: %v %q %v", gone, why, err)
	}

	stale := mk(ScratchPrefix+"stale", true, old)
	if gone, _, err := RemoveStale(stale, 0, true); err != nil || !gone || !exists(stale) {
		t.Errorf("dry run: %v %v, exists %v", gone, err, exists(stale))
	}
	if gone, why, err := RemoveStale(stale, 3*time.Hour, false); err != nil || gone || why != "modified less than 3h0m0s ago" {
		t.Errorf("older-than: %v %q %v", gone, why, err)
	}
	if gone, _, err := RemoveStale(stale, time.Hour, false); err != nil || !gone || exists(stale) {
		t.Errorf("stale: %v %v, exists %v", gone, err, exists(stale))
	}

	fresh := mk(ScratchPrefix+"fresh", false, time.Now())
	if gone, why, err := RemoveStale(fresh, 0, false); err != nil || gone || why != "a comparison is creating it" {
		t.Errorf("no lock file, fresh: %v %q %v", gone, why, err)
	}
	nolock := mk(ScratchPrefix+"nolock", false, old)
	if gone, _, err := RemoveStale(nolock, 0, false); err != nil || !gone || exists(nolock) {
		t.Errorf("no lock file, old: %v %v", gone, err)
	}

	other := mk("other", true, old)
	if gone, _, err := RemoveStale(other, 0, false); err != nil || gone || !exists(other) {
		t.Errorf("other name: %v %v", gone, err)
	}
	target := mk("target", true, old)
	link := filepath.Join(staging, ScratchPrefix+"link")
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	if gone, why, err := RemoveStale(link, 0, false); err != nil || gone || why != "not a directory" || !exists(target) {
		t.Errorf("symbolic link: %v %q %v", gone, why, err)
	}
}
