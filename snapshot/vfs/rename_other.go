//go:build !linux

package vfs

func renameNoReplace(oldname, newname string) error { return plainRenameNoReplace(oldname, newname) }
