package vfs

import (
	"io/fs"
	"os"
)

// Default is the operating-system filesystem.
var Default FS = osFS{}

type osFS struct{}

func (osFS) Create(name string) (File, error) {
	return os.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
}

func (osFS) Open(name string) (File, error) { return os.Open(name) }

func (osFS) Mkdir(name string, perm fs.FileMode) error { return os.Mkdir(name, perm) }

func (osFS) ReadDir(name string) ([]fs.DirEntry, error) { return os.ReadDir(name) }

func (osFS) Lstat(name string) (fs.FileInfo, error) { return os.Lstat(name) }

func (osFS) RenameNoReplace(oldname, newname string) error { return renameNoReplace(oldname, newname) }

func (osFS) SyncDir(name string) error { return syncDir(name) }

func (osFS) Remove(name string) error { return os.Remove(name) }
