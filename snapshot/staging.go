package snapshot

import (
	"context"
	"errors"
	"io/fs"
	"path/filepath"
	"strings"
	"time"
)

// claimSuffix marks an attempt RemoveStaging has claimed (renamed) and is deleting; an
// interrupted removal leaves it, and the next RemoveStaging finishes it.
const claimSuffix = ".removing"

// StagedEntry is one entry of root/staging as the filesystem shows it, described from
// directory listings and Lstat alone: no file is opened, nothing is validated (that is
// InspectIncomplete's job), and no symbolic link is followed.
type StagedEntry struct {
	Path string // root/staging/<name>
	// Attempt is true for a directory named as Publish names attempts
	// (<32 hex>-<16 hex>) or as RemoveStaging names the ones it is removing.
	Attempt bool
	Bytes   uint64    // total size of the regular files under it (the entry's own size when it is a file)
	Files   int       // regular files under it
	ModTime time.Time // newest modification time of the entry and of everything under it
	// Reason says why RemoveStaging leaves the entry in place; empty when it removes it.
	Reason string
}

// Staging lists root/staging in name order, cheaply: one directory read and one Lstat
// per file, whatever the attempts' sizes. A store without a staging directory has no
// entries. Like InspectIncomplete it is advisory under concurrent publication.
func (s *Store) Staging() ([]StagedEntry, error) {
	dir := filepath.Join(s.root, stagingDir)
	ents, err := s.fs.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, &Error{Code: CodeIO, Op: "staging", Path: dir, Err: err}
	}
	out := make([]StagedEntry, 0, len(ents))
	for _, de := range ents {
		e, err := s.describe(filepath.Join(dir, de.Name()))
		if errors.Is(err, fs.ErrNotExist) {
			continue // published or removed since the listing
		}
		if err != nil {
			return nil, &Error{Code: CodeIO, Op: "staging", Path: e.Path, Err: err}
		}
		out = append(out, e)
	}
	return out, nil
}

// describe sizes the staging entry at path without following symbolic links.
func (s *Store) describe(path string) (StagedEntry, error) {
	e := StagedEntry{Path: path}
	fi, err := s.fs.Lstat(path)
	if err != nil {
		return e, err
	}
	e.ModTime = fi.ModTime()
	switch {
	case fi.Mode()&fs.ModeSymlink != 0:
		e.Reason = "a symbolic link: not followed, not removed"
		return e, nil
	case fi.Mode().IsRegular():
		e.Bytes, e.Files = uint64(fi.Size()), 1
		e.Reason = "a file, not an attempt directory"
		return e, nil
	case !fi.IsDir():
		e.Reason = "not a regular file or directory"
		return e, nil
	}
	if !attemptName(filepath.Base(path)) {
		e.Reason = "a directory not named like a staging attempt (<snapshot id>-<16 hex>)"
	} else {
		e.Attempt = true
	}
	return e, s.walk(path, func(p string, fi fs.FileInfo) error {
		if fi.ModTime().After(e.ModTime) {
			e.ModTime = fi.ModTime()
		}
		if fi.Mode().IsRegular() {
			e.Bytes += uint64(fi.Size())
			e.Files++
		}
		return nil
	})
}

// walk calls fn for every entry under the directory dir, children before their
// directory's own call returns, never following a symbolic link.
func (s *Store) walk(dir string, fn func(path string, fi fs.FileInfo) error) error {
	ents, err := s.fs.ReadDir(dir)
	if err != nil {
		return err
	}
	for _, de := range ents {
		p := filepath.Join(dir, de.Name())
		fi, err := s.fs.Lstat(p)
		if err != nil {
			return err
		}
		if fi.IsDir() {
			if err := s.walk(p, fn); err != nil {
				return err
			}
		}
		if err := fn(p, fi); err != nil {
			return err
		}
	}
	return nil
}

// attemptName reports whether name is <32 hex id>-<16 hex>, as newAttempt names an
// attempt, optionally followed by claimSuffix.
func attemptName(name string) bool {
	name = strings.TrimSuffix(name, claimSuffix)
	id, rnd, ok := strings.Cut(name, "-")
	if !ok || len(rnd) != 16 || strings.Trim(rnd, "0123456789abcdef") != "" {
		return false
	}
	_, err := ParseID(id)
	return err == nil
}

// StagingOptions select what RemoveStaging removes.
type StagingOptions struct {
	// OlderThan keeps attempts modified (anything in them) less than OlderThan ago;
	// 0 removes every attempt.
	OlderThan time.Duration
	// DryRun reports what would be removed and removes nothing.
	DryRun bool
	// Now is the current time for OlderThan; the zero value means time.Now().
	Now time.Time
}

// RemoveStaging removes staged attempts: the explicit cleanup action C5 PW-07.18 leaves to
// a policy. It returns the attempts it removed (with DryRun, would remove) and the
// entries it kept, each with its Reason. It only ever removes directories directly in
// root/staging that are named like attempts, and what is under them: never anything in
// root/snapshots, never a path outside root/staging, never the target of a symbolic
// link (a link is removed as a link, or left alone when it is a staging entry itself).
//
// Each attempt is first claimed by renaming it to <name>.removing within root/staging,
// so a Publish still using it fails at its own rename instead of publishing a package
// that is being deleted; then its files and directories are removed, deepest first,
// and root/staging is synced. An interrupted removal leaves the claimed directory,
// which the next RemoveStaging removes. RemoveStaging must not run while a writer may
// still publish an attempt it would remove: pass OlderThan, or hold the writers' lock
// (package repo's Lock).
func (s *Store) RemoveStaging(ctx context.Context, o StagingOptions) (removed, kept []StagedEntry, err error) {
	now := o.Now
	if now.IsZero() {
		now = time.Now()
	}
	dir := filepath.Join(s.root, stagingDir)
	if fi, err := s.fs.Lstat(dir); errors.Is(err, fs.ErrNotExist) {
		return nil, nil, nil
	} else if err != nil {
		return nil, nil, &Error{Code: CodeIO, Op: "remove staging", Path: dir, Err: err}
	} else if !fi.IsDir() {
		return nil, nil, &Error{Code: CodeBadStore, Op: "remove staging", Path: dir, Msg: "not a directory"}
	}
	entries, err := s.Staging()
	if err != nil {
		return nil, nil, opErr(err, "remove staging")
	}
	for _, e := range entries {
		if e.Attempt && o.OlderThan > 0 && now.Sub(e.ModTime) < o.OlderThan {
			e.Reason = "modified less than " + o.OlderThan.String() + " ago"
		}
		if e.Reason != "" {
			kept = append(kept, e)
			continue
		}
		if o.DryRun {
			removed = append(removed, e)
			continue
		}
		if err := ctx.Err(); err != nil {
			return removed, kept, &Error{Code: CodeCanceled, Op: "remove staging", Err: err}
		}
		if err := s.removeAttempt(dir, e.Path); errors.Is(err, fs.ErrNotExist) {
			continue // published or removed by someone else since the listing
		} else if err != nil {
			return removed, kept, &Error{Code: CodeIO, Op: "remove staging", Path: e.Path, Err: err}
		}
		removed = append(removed, e)
	}
	if len(removed) > 0 && !o.DryRun {
		if err := s.fs.SyncDir(dir); err != nil {
			return removed, kept, &Error{Code: CodeIO, Op: "remove staging", Path: dir, Err: err}
		}
	}
	return removed, kept, nil
}

// removeAttempt claims the attempt at path (a child of dir) by renaming it, then deletes
// it. Every path it removes is checked to lie under dir.
func (s *Store) removeAttempt(dir, path string) error {
	claimed := path
	if !strings.HasSuffix(path, claimSuffix) {
		claimed = path + claimSuffix
		if err := s.fs.RenameNoReplace(path, claimed); err != nil {
			return err
		}
	}
	remove := func(p string) error {
		if rel, err := filepath.Rel(dir, p); err != nil || rel == "." || strings.HasPrefix(rel, "..") || filepath.IsAbs(rel) {
			return &Error{Code: CodeBadStore, Op: "remove staging", Path: p, Msg: "outside the staging directory"}
		}
		return s.fs.Remove(p)
	}
	if err := s.walk(claimed, func(p string, _ fs.FileInfo) error { return remove(p) }); err != nil {
		return err
	}
	return remove(claimed)
}
