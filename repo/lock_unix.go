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
func (r *Repo) Lock() (unlock func(), err error) { return r.lock(unix.LOCK_EX) }

// TryLock is Lock without waiting: a lock another writer holds is CodeBusy.
func (r *Repo) TryLock() (unlock func(), err error) { return r.lock(unix.LOCK_EX | unix.LOCK_NB) }

func (r *Repo) lock(how int) (unlock func(), err error) {
	p := filepath.Join(r.dir, LockFile)
	f, err := os.OpenFile(p, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, &Error{Code: CodeIO, Op: "lock", Path: p, Msg: "cannot open lock file", Err: err}
	}
	for {
		err = unix.Flock(int(f.Fd()), how)
		if err != unix.EINTR {
			break
		}
	}
	if err == unix.EWOULDBLOCK {
		f.Close()
		return nil, &Error{Code: CodeBusy, Op: "lock", Path: r.dir, Msg: "another pipewhy process (a scan) is writing to this repository; try again when it has finished"}
	}
	if err != nil {
		f.Close()
		return nil, &Error{Code: CodeIO, Op: "lock", Path: p, Msg: "cannot lock", Err: err}
	}
	return func() {
		_ = unix.Flock(int(f.Fd()), unix.LOCK_UN) // closing the file releases the lock as well
		f.Close()
	}, nil
}
