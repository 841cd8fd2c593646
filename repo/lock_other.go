//go:build !unix

package repo

// Lock is a no-op on systems without flock: run one scan at a time per repository.
func (r *Repo) Lock() (unlock func(), err error) { return func() {}, nil }

// TryLock is a no-op on systems without flock, like Lock.
func (r *Repo) TryLock() (unlock func(), err error) { return func() {}, nil }
