package snapshot

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"io/fs"
	"path/filepath"
	"strings"
)

// CodeNotRemovable: a published snapshot's directory is not a plain directory of this
// store (a symbolic link, a file, or a path that resolves elsewhere), so Remove refuses
// to touch it.
const CodeNotRemovable Code = "not_removable"

// CheckRemovable reports whether Remove may remove the published snapshot id: its entry
// root/snapshots/<id> must be a directory, not a symbolic link, and its fully resolved
// path must be exactly <resolved root>/snapshots/<id>, so that nothing Remove renames or
// deletes lies outside the store or is reached through a link. A missing id matches
// fs.ErrNotExist; a refused one has CodeNotRemovable. It only reads; the resolution uses
// the operating system's filesystem (filepath.EvalSymlinks), whatever Options.FS is.
func (s *Store) CheckRemovable(id ID) error {
	p := s.Path(id)
	fi, err := s.fs.Lstat(p)
	if errors.Is(err, fs.ErrNotExist) {
		return &Error{Code: CodeNotFound, Op: "remove", Path: p, Msg: "no published snapshot with this ID", Err: err}
	}
	if err != nil {
		return &Error{Code: CodeIO, Op: "remove", Path: p, Err: err}
	}
	switch {
	case fi.Mode()&fs.ModeSymlink != 0:
		return &Error{Code: CodeNotRemovable, Op: "remove", Path: p, Msg: "a symbolic link, never followed or removed"}
	case !fi.IsDir():
		return &Error{Code: CodeNotRemovable, Op: "remove", Path: p, Msg: "not a directory"}
	}
	root, err := filepath.EvalSymlinks(s.root)
	if err != nil {
		return &Error{Code: CodeIO, Op: "remove", Path: s.root, Msg: "cannot resolve the store root", Err: err}
	}
	got, err := filepath.EvalSymlinks(p)
	if err != nil {
		return &Error{Code: CodeIO, Op: "remove", Path: p, Msg: "cannot resolve the path", Err: err}
	}
	if want := filepath.Join(root, snapshotsDir, id.String()); got != want {
		return &Error{Code: CodeNotRemovable, Op: "remove", Path: p, Msg: "resolves to " + got + ", not to " + want}
	}
	return nil
}

// Remove unpublishes and deletes the published snapshot id: the explicit deletion C5
// PW-07.18 leaves to a retention policy (the policy, which snapshots may go, is the
// caller's: package retention). The order makes an interruption at any point safe:
//
//  1. CheckRemovable; nothing is touched if it refuses;
//  2. rename root/snapshots/<id> to root/staging/<id>-<16 hex>.removing (never replacing
//     anything), then fsync root/snapshots and root/staging: from here the snapshot is no
//     longer published, and what is left is a claimed staging entry;
//  3. delete the claimed directory's files, then the directory, every path checked to lie
//     under root/staging and no symbolic link followed; fsync root/staging.
//
// A process killed before step 2's rename leaves the snapshot published and whole; after
// it, a claimed directory in staging that InspectIncomplete reports and RemoveStaging
// (or a new Remove of another snapshot, never of this one) deletes. A published snapshot
// is never left half-deleted. It returns the claimed path (empty when the rename did not
// happen); an error after the rename names it too. Callers hold the repository's writer
// lock: a snapshot removed while a writer uses it as a parent is that writer's loss.
func (s *Store) Remove(ctx context.Context, id ID) (claimed string, err error) {
	if err := ctx.Err(); err != nil {
		return "", &Error{Code: CodeCanceled, Op: "remove", Err: err}
	}
	if err := s.CheckRemovable(id); err != nil {
		return "", err
	}
	if err := s.ensureDirs(); err != nil {
		return "", opErr(err, "remove")
	}
	var rnd [8]byte
	rand.Read(rnd[:])
	staging := filepath.Join(s.root, stagingDir)
	claimed = filepath.Join(staging, id.String()+"-"+hex.EncodeToString(rnd[:])+claimSuffix)
	if err := s.fs.RenameNoReplace(s.Path(id), claimed); err != nil {
		return "", &Error{Code: CodeIO, Op: "remove", Path: s.Path(id), Msg: "cannot move the snapshot into staging", Err: err}
	}
	for _, d := range []string{filepath.Join(s.root, snapshotsDir), staging} {
		if err := s.fs.SyncDir(d); err != nil {
			return claimed, &Error{Code: CodeIO, Op: "remove", Path: d, Msg: "the snapshot is unpublished, its files are in " + claimed, Err: err}
		}
	}
	if err := s.removeAttempt(staging, claimed); err != nil {
		return claimed, &Error{Code: CodeIO, Op: "remove", Path: claimed, Msg: "the snapshot is unpublished; 'gc-staging' removes what is left", Err: err}
	}
	if err := s.fs.SyncDir(staging); err != nil {
		return claimed, &Error{Code: CodeIO, Op: "remove", Path: staging, Err: err}
	}
	return claimed, nil
}

// ClaimSuffix ends the name of a staging entry claimed for removal (by Remove or
// RemoveStaging) whose deletion was interrupted.
const ClaimSuffix = claimSuffix

// RemoveClaimed deletes the claimed entries of root/staging (named <id>-<16 hex> plus
// ClaimSuffix): what an interrupted Remove or RemoveStaging left. Unlike RemoveStaging it
// leaves every other attempt alone. It returns the entries it deleted.
func (s *Store) RemoveClaimed(ctx context.Context) ([]StagedEntry, error) {
	entries, err := s.Staging()
	if err != nil {
		return nil, opErr(err, "remove claimed")
	}
	dir := filepath.Join(s.root, stagingDir)
	var done []StagedEntry
	for _, e := range entries {
		if !e.Attempt || e.Reason != "" || !strings.HasSuffix(e.Path, claimSuffix) {
			continue
		}
		if err := ctx.Err(); err != nil {
			return done, &Error{Code: CodeCanceled, Op: "remove claimed", Err: err}
		}
		if err := s.removeAttempt(dir, e.Path); errors.Is(err, fs.ErrNotExist) {
			continue
		} else if err != nil {
			return done, &Error{Code: CodeIO, Op: "remove claimed", Path: e.Path, Err: err}
		}
		done = append(done, e)
	}
	if len(done) > 0 {
		if err := s.fs.SyncDir(dir); err != nil {
			return done, &Error{Code: CodeIO, Op: "remove claimed", Path: dir, Err: err}
		}
	}
	return done, nil
}
