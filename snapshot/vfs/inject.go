package vfs

import (
	"fmt"
	"io/fs"
)

// OpKind names one filesystem operation, as it appears in traces.
type OpKind string

// The operations Inject reports. Write and Sync and Close apply to files from Create.
const (
	OpCreate  OpKind = "create"
	OpWrite   OpKind = "write"
	OpSync    OpKind = "sync"
	OpClose   OpKind = "close"
	OpMkdir   OpKind = "mkdir"
	OpRename  OpKind = "rename"
	OpSyncDir OpKind = "syncdir"
	OpOpen    OpKind = "open"
	OpReadDir OpKind = "readdir"
	OpLstat   OpKind = "lstat"
	OpRemove  OpKind = "remove"
)

// Op is one operation about to run. Path is the file or directory; for OpRename it is the
// old name and NewPath the new one.
type Op struct {
	Kind    OpKind
	Path    string
	NewPath string
}

// String formats op as one trace line.
func (op Op) String() string {
	if op.Kind == OpRename {
		return fmt.Sprintf("%s %s -> %s", op.Kind, op.Path, op.NewPath)
	}
	return fmt.Sprintf("%s %s", op.Kind, op.Path)
}

// Mutating reports whether op changes the filesystem or its durability.
func (op Op) Mutating() bool {
	switch op.Kind {
	case OpCreate, OpWrite, OpSync, OpClose, OpMkdir, OpRename, OpSyncDir, OpRemove:
		return true
	}
	return false
}

// Inject wraps fsys so that hook runs before every operation. A non-nil error from hook
// fails that operation with the error, without performing it. Reads of open files are not
// reported. Inject is how tests inject faults, record traces and stop a process at an
// exact step.
func Inject(fsys FS, hook func(Op) error) FS { return &injectFS{fs: fsys, hook: hook} }

type injectFS struct {
	fs   FS
	hook func(Op) error
}

func (f *injectFS) Create(name string) (File, error) {
	if err := f.hook(Op{Kind: OpCreate, Path: name}); err != nil {
		return nil, &fs.PathError{Op: "create", Path: name, Err: err}
	}
	file, err := f.fs.Create(name)
	if err != nil {
		return nil, err
	}
	return &injectFile{File: file, name: name, hook: f.hook}, nil
}

func (f *injectFS) Open(name string) (File, error) {
	if err := f.hook(Op{Kind: OpOpen, Path: name}); err != nil {
		return nil, &fs.PathError{Op: "open", Path: name, Err: err}
	}
	return f.fs.Open(name)
}

func (f *injectFS) Mkdir(name string, perm fs.FileMode) error {
	if err := f.hook(Op{Kind: OpMkdir, Path: name}); err != nil {
		return &fs.PathError{Op: "mkdir", Path: name, Err: err}
	}
	return f.fs.Mkdir(name, perm)
}

func (f *injectFS) ReadDir(name string) ([]fs.DirEntry, error) {
	if err := f.hook(Op{Kind: OpReadDir, Path: name}); err != nil {
		return nil, &fs.PathError{Op: "readdir", Path: name, Err: err}
	}
	return f.fs.ReadDir(name)
}

func (f *injectFS) Lstat(name string) (fs.FileInfo, error) {
	if err := f.hook(Op{Kind: OpLstat, Path: name}); err != nil {
		return nil, &fs.PathError{Op: "lstat", Path: name, Err: err}
	}
	return f.fs.Lstat(name)
}

func (f *injectFS) RenameNoReplace(oldname, newname string) error {
	if err := f.hook(Op{Kind: OpRename, Path: oldname, NewPath: newname}); err != nil {
		return &fs.PathError{Op: "rename", Path: oldname, Err: err}
	}
	return f.fs.RenameNoReplace(oldname, newname)
}

func (f *injectFS) SyncDir(name string) error {
	if err := f.hook(Op{Kind: OpSyncDir, Path: name}); err != nil {
		return &fs.PathError{Op: "syncdir", Path: name, Err: err}
	}
	return f.fs.SyncDir(name)
}

func (f *injectFS) Remove(name string) error {
	if err := f.hook(Op{Kind: OpRemove, Path: name}); err != nil {
		return &fs.PathError{Op: "remove", Path: name, Err: err}
	}
	return f.fs.Remove(name)
}

type injectFile struct {
	File
	name string
	hook func(Op) error
}

func (f *injectFile) Write(p []byte) (int, error) {
	if err := f.hook(Op{Kind: OpWrite, Path: f.name}); err != nil {
		return 0, &fs.PathError{Op: "write", Path: f.name, Err: err}
	}
	return f.File.Write(p)
}

func (f *injectFile) Sync() error {
	if err := f.hook(Op{Kind: OpSync, Path: f.name}); err != nil {
		return &fs.PathError{Op: "sync", Path: f.name, Err: err}
	}
	return f.File.Sync()
}

func (f *injectFile) Close() error {
	if err := f.hook(Op{Kind: OpClose, Path: f.name}); err != nil {
		f.File.Close() // release the descriptor; the injected error is what the caller sees
		return &fs.PathError{Op: "close", Path: f.name, Err: err}
	}
	return f.File.Close()
}
