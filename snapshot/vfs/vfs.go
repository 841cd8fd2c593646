// Package vfs is the filesystem seam of the snapshot store: the few operations the
// publication state machine and its readers need, implemented by the operating system
// (Default) and wrapped by Inject for fault injection, tracing and crash tests.
//
// Every path is an operating-system path. Implementations must give these guarantees:
//
//   - Create makes a new regular file and fails if the name exists (O_CREATE|O_EXCL);
//   - Mkdir fails if the name exists;
//   - RenameNoReplace moves a file or directory and fails with an error satisfying
//     errors.Is(err, fs.ErrExist) when newname exists, never replacing it;
//   - SyncDir makes the directory's entries durable where the platform can (fsync of the
//     directory on POSIX; a no-op on Windows, which has no equivalent);
//   - Remove deletes one file, symbolic link (never its target) or empty directory.
package vfs

import (
	"io"
	"io/fs"
)

// File is an open file: read-only from Open, write-only from Create.
type File interface {
	io.Reader
	io.Writer
	io.Closer
	Sync() error
	Stat() (fs.FileInfo, error)
}

// FS is the set of filesystem operations the snapshot store uses.
type FS interface {
	// Create creates a new file for writing; it fails if name exists.
	Create(name string) (File, error)
	// Open opens an existing file for reading.
	Open(name string) (File, error)
	// Mkdir creates a directory; it fails if name exists.
	Mkdir(name string, perm fs.FileMode) error
	// ReadDir lists a directory sorted by name.
	ReadDir(name string) ([]fs.DirEntry, error)
	// Lstat describes name without following a final symbolic link.
	Lstat(name string) (fs.FileInfo, error)
	// RenameNoReplace renames oldname to newname and never replaces an existing newname.
	RenameNoReplace(oldname, newname string) error
	// SyncDir flushes a directory's entries to stable storage where supported.
	SyncDir(name string) error
	// Remove deletes a file, a symbolic link itself or an empty directory.
	Remove(name string) error
}
