//go:build linux

package vfs

import (
	"errors"
	"os"

	"golang.org/x/sys/unix"
)

// renameNoReplace uses renameat2(RENAME_NOREPLACE), which fails with EEXIST whatever
// newname is, where a plain rename(2) would replace an empty directory. Filesystems that
// do not implement the flag (EINVAL) fall back to the plain rename: it still never
// replaces a nonempty directory, and every published snapshot directory is nonempty.
func renameNoReplace(oldname, newname string) error {
	err := unix.Renameat2(unix.AT_FDCWD, oldname, unix.AT_FDCWD, newname, unix.RENAME_NOREPLACE)
	if errors.Is(err, unix.EINVAL) || errors.Is(err, unix.ENOSYS) {
		return plainRenameNoReplace(oldname, newname)
	}
	if err != nil {
		return &os.LinkError{Op: "renameat2", Old: oldname, New: newname, Err: err}
	}
	return nil
}
