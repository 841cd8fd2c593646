package snapshot

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/pipewhy/pipewhy/snapshot/vfs"
)

// failedAttempt publishes the fixture through a filesystem that fails the first
// operation of kind op, and returns the attempt directory Publish kept.
func failedAttempt(t *testing.T, s *Store, op vfs.OpKind, id ID) string {
	t.Helper()
	failing, err := Open(s.Root(), Options{FS: failAt(func(k string) bool { return k == string(op) })})
	if err != nil {
		t.Fatal(err)
	}
	md := fixtureMetadata(t)
	md.ID = id
	before := listDir(t, stagingDirOf(s))
	if err := failing.Publish(context.Background(), md, fixtureArrays()); !errors.Is(err, errInjected) {
		t.Fatalf("publish with a failing %s: %v", op, err)
	}
	for _, n := range listDir(t, stagingDirOf(s)) {
		if !slices.Contains(before, n) {
			return filepath.Join(stagingDirOf(s), n)
		}
	}
	t.Fatalf("publish with a failing %s kept no attempt", op)
	return ""
}

// sizeOf sums the sizes of the regular files under dir, by hand.
func sizeOf(t *testing.T, dir string) uint64 {
	t.Helper()
	var n uint64
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			t.Fatal(err)
		}
		if d.Type().IsRegular() {
			fi, _ := d.Info()
			n += uint64(fi.Size())
		}
		return nil
	})
	return n
}

func TestRemoveStaging(t *testing.T) {
	ctx := context.Background()
	s := newStore(t, Options{})
	published := publishFixture(t, s)
	publishedTree := tree(t, s.Path(published))

	// Attempts in three phases: STAGING (the first file sync fails: intent.json only),
	// VALIDATED (the rename fails) and UNAVAILABLE (intent.json cannot be created: an
	// empty attempt).
	staging := failedAttempt(t, s, vfs.OpSync, mustID(t, "11111111111111111111111111111111"))
	validated := failedAttempt(t, s, vfs.OpRename, mustID(t, "22222222222222222222222222222222"))
	empty := failedAttempt(t, s, vfs.OpCreate, mustID(t, "33333333333333333333333333333333"))
	// What the store did not make: a stray file, a directory with another name, and a
	// symbolic link to a directory outside the store that must survive untouched.
	outside := t.TempDir()
	os.WriteFile(filepath.Join(outside, "precious"), []byte("keep"), 0o644)
	os.WriteFile(filepath.Join(stagingDirOf(s), "stray"), []byte("x"), 0o644)
	os.Mkdir(filepath.Join(stagingDirOf(s), "notes"), 0o755)
	link := filepath.Join(stagingDirOf(s), "44444444444444444444444444444444-0123456789abcdef")
	if err := os.Symlink(outside, link); err != nil {
		t.Fatal(err)
	}
	// A link inside an attempt is removed as a link; its target survives.
	if err := os.Symlink(filepath.Join(outside, "precious"), filepath.Join(validated, "link")); err != nil {
		t.Fatal(err)
	}

	entries, err := s.Staging()
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]StagedEntry{}
	for _, e := range entries {
		got[filepath.Base(e.Path)] = e
	}
	for _, a := range []string{staging, validated, empty} {
		e := got[filepath.Base(a)]
		if !e.Attempt || e.Reason != "" || e.Bytes != sizeOf(t, a) {
			t.Errorf("attempt %s: %+v, want an attempt of %d bytes", filepath.Base(a), e, sizeOf(t, a))
		}
	}
	if e := got[filepath.Base(empty)]; e.Files != 0 || e.Bytes != 0 {
		t.Errorf("empty attempt %+v", e)
	}
	// The fixture's payloads are 24 + 3 + 0 bytes; a validated attempt also holds the
	// intent, manifest and marker.
	if e := got[filepath.Base(validated)]; e.Files != 6 || e.Bytes <= 27 {
		t.Errorf("validated attempt %+v: want 6 files (the link is not one)", e)
	}
	for _, n := range []string{"stray", "notes", filepath.Base(link)} {
		if e := got[n]; e.Attempt || e.Reason == "" {
			t.Errorf("%s: %+v, want kept with a reason", n, e)
		}
	}
	if e := got[filepath.Base(link)]; !strings.Contains(e.Reason, "symbolic link") {
		t.Errorf("link: %+v", e)
	}

	// A dry run reports the three attempts and changes nothing.
	before := tree(t, s.Root())
	removed, kept, err := s.RemoveStaging(ctx, StagingOptions{DryRun: true})
	if err != nil || len(removed) != 3 || len(kept) != 3 {
		t.Fatalf("dry run: removed %v kept %v: %v", removed, kept, err)
	}
	if after := tree(t, s.Root()); !slices.Equal(before, after) {
		t.Fatal("a dry run changed the store")
	}
	// --older-than: every attempt was modified just now.
	removed, kept, err = s.RemoveStaging(ctx, StagingOptions{OlderThan: time.Hour})
	if err != nil || len(removed) != 0 || len(kept) != 6 {
		t.Fatalf("older than 1h: removed %v kept %v: %v", removed, kept, err)
	}
	for _, e := range kept {
		if e.Attempt && !strings.Contains(e.Reason, "less than 1h0m0s ago") {
			t.Errorf("young attempt %+v", e)
		}
	}
	// Two hours later they are old enough.
	removed, kept, err = s.RemoveStaging(ctx, StagingOptions{OlderThan: time.Hour, Now: time.Now().Add(2 * time.Hour)})
	if err != nil || len(removed) != 3 || len(kept) != 3 {
		t.Fatalf("removed %v kept %v: %v", removed, kept, err)
	}
	names := listDir(t, stagingDirOf(s))
	if want := []string{filepath.Base(link), "notes", "stray"}; !slices.Equal(names, want) {
		t.Errorf("staging holds %v, want %v", names, want)
	}
	if b, err := os.ReadFile(filepath.Join(outside, "precious")); err != nil || string(b) != "keep" {
		t.Fatalf("the link's target: %q %v", b, err)
	}
	if after := tree(t, s.Path(published)); !slices.Equal(after, publishedTree) {
		t.Fatal("the published snapshot changed")
	}
	if err := s.Verify(published); err != nil {
		t.Fatal(err)
	}
	if atts, err := s.InspectIncomplete(); err != nil || len(atts) != 3 {
		t.Fatalf("inspect after removal: %+v %v", atts, err)
	}
}

// TestRemoveStagingInterrupted: a removal that fails part way leaves its claimed
// attempt, reported by InspectIncomplete; the next removal finishes it.
func TestRemoveStagingInterrupted(t *testing.T) {
	ctx := context.Background()
	s := newStore(t, Options{})
	published := publishFixture(t, s)
	a := failedAttempt(t, s, vfs.OpRename, mustID(t, "11111111111111111111111111111111"))
	removes := 0
	faulty, err := Open(s.Root(), Options{FS: vfs.Inject(vfs.Default, func(op vfs.Op) error {
		if op.Kind == vfs.OpRemove {
			if removes++; removes == 3 {
				return errInjected
			}
		}
		return nil
	})})
	if err != nil {
		t.Fatal(err)
	}
	removed, _, err := faulty.RemoveStaging(ctx, StagingOptions{})
	if !errors.Is(err, errInjected) || codeOf(err) != CodeIO || len(removed) != 0 || !strings.Contains(err.Error(), filepath.Base(a)) {
		t.Fatalf("removed %v: %v", removed, err)
	}
	names := listDir(t, stagingDirOf(s))
	if len(names) != 1 || names[0] != filepath.Base(a)+claimSuffix {
		t.Fatalf("staging after a failed removal: %v", names)
	}
	if atts, err := s.InspectIncomplete(); err != nil || len(atts) != 1 {
		t.Fatalf("inspect: %+v %v", atts, err)
	}
	removed, kept, err := s.RemoveStaging(ctx, StagingOptions{})
	if err != nil || len(removed) != 1 || len(kept) != 0 || len(listDir(t, stagingDirOf(s))) != 0 {
		t.Fatalf("removed %v kept %v: %v; staging %v", removed, kept, err, listDir(t, stagingDirOf(s)))
	}
	if err := s.Verify(published); err != nil {
		t.Fatal(err)
	}
}

// TestRemoveStagingClaimsBeforePublish: a writer that renames its attempt into
// snapshots/ while RemoveStaging is deleting that attempt's files must fail, never
// publish a package with files missing. The writer has validated its package and is at
// its rename; the removal has deleted one file when the writer renames.
func TestRemoveStagingClaimsBeforePublish(t *testing.T) {
	ctx := context.Background()
	s := newStore(t, Options{})
	atRename, removing, renamed := make(chan struct{}), make(chan struct{}), make(chan struct{})
	writer, err := Open(s.Root(), Options{FS: vfs.Inject(vfs.Default, func(op vfs.Op) error {
		if op.Kind == vfs.OpRename {
			close(atRename)
			<-removing
		}
		return nil
	})})
	if err != nil {
		t.Fatal(err)
	}
	removes := 0
	gc, err := Open(s.Root(), Options{FS: vfs.Inject(vfs.Default, func(op vfs.Op) error {
		if op.Kind == vfs.OpRemove {
			if removes++; removes == 2 {
				close(removing)
				<-renamed
			}
		}
		return nil
	})})
	if err != nil {
		t.Fatal(err)
	}
	md := fixtureMetadata(t)
	var pubErr error
	go func() {
		pubErr = writer.Publish(ctx, md, fixtureArrays())
		close(renamed)
	}()
	<-atRename
	removed, _, gcErr := gc.RemoveStaging(ctx, StagingOptions{})
	<-renamed
	if gcErr != nil || len(removed) != 1 {
		t.Fatalf("removal during publish: %v %v", removed, gcErr)
	}
	if !errors.Is(pubErr, fs.ErrNotExist) {
		t.Fatalf("publish of an attempt being removed: %v", pubErr)
	}
	if n := listDir(t, filepath.Join(s.Root(), snapshotsDir)); len(n) != 0 {
		t.Fatalf("snapshots/ holds %v", n)
	}
	if n := listDir(t, stagingDirOf(s)); len(n) != 0 {
		t.Fatalf("staging/ holds %v", n)
	}
}

// TestRemoveStagingBadStaging: a staging path that is a symbolic link is refused as a
// bad store, never followed.
func TestRemoveStagingBadStaging(t *testing.T) {
	root := t.TempDir()
	outside := t.TempDir()
	os.Mkdir(filepath.Join(outside, "11111111111111111111111111111111-0123456789abcdef"), 0o755)
	if err := os.Symlink(outside, filepath.Join(root, stagingDir)); err != nil {
		t.Fatal(err)
	}
	// Open refuses such a store; a Store opened before the link appeared refuses to remove.
	if _, err := Open(root, Options{}); codeOf(err) != CodeBadStore {
		t.Fatalf("open: %v", err)
	}
	s := &Store{root: root, fs: vfs.Default}
	if _, _, err := s.RemoveStaging(context.Background(), StagingOptions{}); codeOf(err) != CodeBadStore {
		t.Fatalf("remove: %v", err)
	}
	if len(listDir(t, outside)) != 1 {
		t.Fatal("the link's target changed")
	}
}

func TestAttemptName(t *testing.T) {
	for name, want := range map[string]bool{
		"0123456789abcdef0123456789abcdef-0123456789abcdef":           true,
		"0123456789abcdef0123456789abcdef-0123456789abcdef.removing":  true,
		"0123456789abcdef0123456789abcdef-0123456789ABCDEF":           false,
		"0123456789abcdef0123456789abcdef-0123456789abcde":            false,
		"0123456789abcdef0123456789abcdef":                            false,
		"0123456789abcdef0123456789abcdeg-0123456789abcdef":           false,
		"0123456789abcdef0123456789abcdef-0123456789abcdef.removing2": false,
		"..": false, "": false, "notes": false,
	} {
		if got := attemptName(name); got != want {
			t.Errorf("attemptName(%q) = %v, want %v", name, got, want)
		}
	}
}
