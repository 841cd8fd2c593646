package live

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// ScratchPrefix begins the name of every scratch directory a comparison makes (the rest
// is os.MkdirTemp's). In a repository they are made in the store's staging directory.
const ScratchPrefix = "pipewhy-compare-"

// scratchLock is the file in a scratch directory whose exclusive lock (flock) the
// comparison holds for as long as it uses the directory: a directory whose lock can be
// taken belongs to no running comparison.
const scratchLock = "lock"

// creationGrace is how long a scratch directory without its lock file is taken to be
// one a comparison is still creating (the lock file is made right after the directory).
const creationGrace = time.Minute

// RemoveStale removes the scratch directory path when no running comparison holds it
// (what a comparison killed by SIGKILL or a crash left behind: any other exit removes
// its own) and it was last modified at least olderThan ago, or only reports that it
// would with dryRun. It returns whether the directory is (or would be) removed and, when
// not, why. It never follows a symbolic link and only removes a directory whose name
// begins with ScratchPrefix. Where flock is not available (not unix) a scratch directory
// is never taken to be stale.
func RemoveStale(path string, olderThan time.Duration, dryRun bool) (removed bool, reason string, err error) {
	if !strings.HasPrefix(filepath.Base(path), ScratchPrefix) {
		return false, "not a comparison's scratch directory", nil
	}
	fi, err := os.Lstat(path)
	if err != nil {
		return false, "", err
	}
	if !fi.IsDir() {
		return false, "not a directory", nil
	}
	newest, err := newestModTime(path)
	if err != nil {
		return false, "", err
	}
	age := time.Since(newest)
	if olderThan > 0 && age < olderThan {
		return false, "modified less than " + olderThan.String() + " ago", nil
	}
	release, err := tryLockScratch(filepath.Join(path, scratchLock))
	switch {
	case errors.Is(err, errScratchBusy):
		return false, "a running comparison is using it", nil
	case errors.Is(err, fs.ErrNotExist):
		if age < creationGrace {
			return false, "a comparison is creating it", nil
		}
	case err != nil:
		return false, "", err
	default:
		defer release()
	}
	if dryRun {
		return true, "", nil
	}
	return true, "", os.RemoveAll(path)
}

// newestModTime is the latest modification time of path and everything under it,
// symbolic links not followed.
func newestModTime(path string) (time.Time, error) {
	var t time.Time
	err := filepath.WalkDir(path, func(_ string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		if fi.ModTime().After(t) {
			t = fi.ModTime()
		}
		return nil
	})
	return t, err
}
