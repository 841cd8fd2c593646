//go:build windows

package vfs

import "os"

// syncDir only checks that the directory exists: Windows has no directory fsync in the
// standard library, so no power-loss durability of directory entries is claimed there.
func syncDir(name string) error {
	_, err := os.Stat(name)
	return err
}
