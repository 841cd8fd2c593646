//go:build unix

package live

import (
	"errors"
	"os"

	"golang.org/x/sys/unix"
)

var errScratchBusy = errors.New("the scratch directory is in use")

// lockScratch creates the lock file path and takes its exclusive lock, held until
// release runs or the process ends.
func lockScratch(path string) (release func(), err error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return nil, err
	}
	return flockFile(f)
}

// tryLockScratch takes the existing lock file path's lock without waiting:
// errScratchBusy when a comparison holds it, fs.ErrNotExist when there is no lock file.
func tryLockScratch(path string) (release func(), err error) {
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		return nil, err
	}
	return flockFile(f)
}

func flockFile(f *os.File) (release func(), err error) {
	for {
		err = unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB)
		if err != unix.EINTR {
			break
		}
	}
	if err != nil {
		f.Close()
		if err == unix.EWOULDBLOCK {
			return nil, errScratchBusy
		}
		return nil, err
	}
	return func() { f.Close() }, nil // closing the file releases the lock
}
