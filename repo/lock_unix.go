//go:build unix

package repo

import (
	"os"
	"path/filepath"

	"golang.org/x/sys/unix"
)

// Lock takes the repository's exclusive writer lock (flock on LockFile), waiting for
// another writer to finish. Writers (scans) hold it from reading the schema registry
// to appending the log line, so concurrent scans never lose a registry update.
// The lock is released by the returned function, or by the process ending.
func (r *Repo) Lock() (unlock func(), err error) {
	p := filepath.Join(r.dir, LockFile)
	f, err := os.OpenFile(p, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, &Error{Code: CodeIO, Op: "lock", Path: p, Msg: "cannot open lock file", Err: err}
	}
	for {
		err = unix.Flock(int(f.Fd()), unix.LOCK_EX)
		if err != unix.EINTR {
			break
		}
	}
	if err != nil {
		f.Close()
		return nil, &Error{Code: CodeIO, Op: "lock", Path: p, Msg: "cannot lock", Err: err}
	}
	return func() {
		unix.Flock(int(f.Fd()), unix.LOCK_UN)
		f.Close()
	}, nil
}
