package vfs

import (
	"errors"
	"io/fs"
	"os"
	"syscall"
)

// plainRenameNoReplace checks that newname is absent, then renames. Between the check
// and the rename another writer may create newname; a plain rename then fails for a
// nonempty directory (ENOTEMPTY or EEXIST on POSIX, an access error on Windows) and
// only an empty directory could be replaced, which is never a published snapshot.
// Errors naming an existing destination are reported as fs.ErrExist.
func plainRenameNoReplace(oldname, newname string) error {
	if _, err := os.Lstat(newname); err == nil {
		return &os.LinkError{Op: "rename", Old: oldname, New: newname, Err: fs.ErrExist}
	}
	err := os.Rename(oldname, newname)
	if err != nil && isNotEmpty(err) {
		return &os.LinkError{Op: "rename", Old: oldname, New: newname, Err: fs.ErrExist}
	}
	return err
}

func isNotEmpty(err error) bool {
	var errno syscall.Errno
	if !errors.As(err, &errno) {
		return false
	}
	return errno == syscall.ENOTEMPTY || errno == syscall.EEXIST
}
