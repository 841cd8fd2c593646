package snapshot

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pipewhy/pipewhy/snapshot/vfs"
)

// publishTwo publishes the fixture and a second snapshot (another id, same arrays) and
// returns their ids.
func publishTwo(t *testing.T, s *Store) (ID, ID) {
	t.Helper()
	a := publishFixture(t, s)
	md := fixtureMetadata(t)
	md.ID = mustID(t, "22222222222222222222222222222222")
	if err := s.Publish(context.Background(), md, fixtureArrays()); err != nil {
		t.Fatal(err)
	}
	return a, md.ID
}

// TestRemove: the removed snapshot is gone from snapshots/ and from List, nothing is left
// in staging, and the other snapshot still verifies. Removing it again is not found.
func TestRemove(t *testing.T) {
	ctx := context.Background()
	s := newStore(t, Options{})
	a, b := publishTwo(t, s)
	claimed, err := s.Remove(ctx, a)
	if err != nil {
		t.Fatal(err)
	}
	if filepath.Dir(claimed) != stagingDirOf(s) || !strings.HasPrefix(filepath.Base(claimed), a.String()+"-") || !strings.HasSuffix(claimed, claimSuffix) {
		t.Errorf("claimed path %s", claimed)
	}
	if names := listDir(t, filepath.Join(s.Root(), snapshotsDir)); len(names) != 1 || names[0] != b.String() {
		t.Errorf("snapshots/ after the removal: %v", names)
	}
	if names := listDir(t, stagingDirOf(s)); len(names) != 0 {
		t.Errorf("staging after the removal: %v", names)
	}
	if mds, err := s.List(); err != nil || len(mds) != 1 || mds[0].ID != b {
		t.Errorf("list: %v %v", mds, err)
	}
	if err := s.Verify(b); err != nil {
		t.Error(err)
	}
	if _, err := s.Remove(ctx, a); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("removing it again: %v", err)
	}
}

// TestRemoveRefusesLinks: a published entry that is a symbolic link (to a snapshot
// outside the store), or a snapshots/ directory that is itself a link, is refused with
// CodeNotRemovable, before anything is touched; the link's target keeps every file.
func TestRemoveRefusesLinks(t *testing.T) {
	ctx := context.Background()
	outside := newStore(t, Options{})
	id := publishFixture(t, outside)
	target := outside.Path(id)

	s := newStore(t, Options{})
	publishTwo(t, s) // creates snapshots/ (the fixture's id is there too: replace it by a link)
	if err := os.RemoveAll(s.Path(id)); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, s.Path(id)); err != nil {
		t.Fatal(err)
	}
	for _, try := range []func() error{
		func() error { return s.CheckRemovable(id) },
		func() error { _, err := s.Remove(ctx, id); return err },
	} {
		if err := try(); codeOf(err) != CodeNotRemovable || !strings.Contains(err.Error(), "symbolic link") {
			t.Errorf("a linked snapshot: %v", err)
		}
	}
	if err := outside.Verify(id); err != nil {
		t.Errorf("the link's target: %v", err)
	}
	if fi, err := os.Lstat(s.Path(id)); err != nil || fi.Mode()&fs.ModeSymlink == 0 {
		t.Errorf("the link: %v %v", fi, err)
	}

	// snapshots/ replaced by a link to another store's after the store was opened.
	ls := newStore(t, Options{})
	publishFixture(t, ls)
	if err := os.Rename(filepath.Join(ls.Root(), snapshotsDir), filepath.Join(ls.Root(), "moved")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(outside.Root(), snapshotsDir), filepath.Join(ls.Root(), snapshotsDir)); err != nil {
		t.Fatal(err)
	}
	if _, err := ls.Remove(ctx, id); codeOf(err) != CodeNotRemovable || !strings.Contains(err.Error(), "resolves to") {
		t.Errorf("a store whose snapshots/ is a link: %v", err)
	}
	if err := outside.Verify(id); err != nil {
		t.Errorf("the linked store's snapshot: %v", err)
	}
}

// TestRemoveFaultAtEveryStep simulates a process that stops at each filesystem operation
// of Remove: operation i and every later one fail, as if the process had died just
// before it. Whatever i, the store holds only valid published snapshots (the removed one
// whole, or not at all) plus, once it was renamed, one claimed entry in staging that
// InspectIncomplete reports and RemoveStaging deletes, after which the store is exactly
// as a complete removal leaves it.
func TestRemoveFaultAtEveryStep(t *testing.T) {
	ctx := context.Background()
	// The trace of a removal that succeeds.
	var trace []vfs.Op
	{
		s := newStore(t, Options{})
		a, _ := publishTwo(t, s)
		on := false
		traced, err := Open(s.Root(), Options{FS: vfs.Inject(vfs.Default, func(op vfs.Op) error {
			if on {
				trace = append(trace, op)
			}
			return nil
		})})
		if err != nil {
			t.Fatal(err)
		}
		on = true
		if _, err := traced.Remove(ctx, a); err != nil {
			t.Fatal(err)
		}
	}
	renameAt, removes := -1, 0
	for i, op := range trace {
		if op.Kind == vfs.OpRename {
			renameAt = i
		}
		if op.Kind == vfs.OpRemove {
			removes++
		}
	}
	// A snapshot holds intent, manifest, marker and three payloads: six files and its
	// directory, each removed once, after the rename.
	if renameAt < 0 || removes != 7 {
		t.Fatalf("trace: rename at %d, %d removes: %v", renameAt, removes, trace)
	}
	for i := range trace {
		s := newStore(t, Options{})
		a, b := publishTwo(t, s)
		n, armed := 0, false
		faulty, err := Open(s.Root(), Options{FS: vfs.Inject(vfs.Default, func(op vfs.Op) error {
			if n++; armed && n > i {
				return errInjected // op i, and every one after it: the process is gone
			}
			return nil
		})})
		if err != nil {
			t.Fatal(err)
		}
		armed, n = true, 0
		_, err = faulty.Remove(ctx, a)
		if !errors.Is(err, errInjected) {
			t.Fatalf("fault at op %d (%v): %v", i, trace[i], err)
		}
		mds, err := s.List()
		if err != nil {
			t.Fatalf("fault at op %d: list: %v", i, err)
		}
		stillPublished := len(mds) == 2
		if stillPublished != (i <= renameAt) || mds[len(mds)-1].ID != b {
			t.Fatalf("fault at op %d (rename at %d): published %v", i, renameAt, mds)
		}
		atts, err := s.InspectIncomplete()
		if err != nil {
			t.Fatal(err)
		}
		// Once renamed, the claimed entry stays until its own removal, which only the
		// last operation (the fsync of staging/) follows.
		if want := !stillPublished && i < len(trace)-1; want != (len(atts) == 1) || len(atts) > 1 {
			t.Fatalf("fault at op %d: staging %+v", i, atts)
		}
		if len(atts) == 1 && (atts[0].ID != nil && *atts[0].ID != a || !strings.HasSuffix(atts[0].Path, claimSuffix)) {
			t.Fatalf("fault at op %d: staging %+v", i, atts[0])
		}
		if _, _, err := s.RemoveStaging(ctx, StagingOptions{}); err != nil {
			t.Fatal(err)
		}
		if !stillPublished {
			if names := listDir(t, stagingDirOf(s)); len(names) != 0 {
				t.Fatalf("fault at op %d: staging after gc: %v", i, names)
			}
		} else if _, err := s.Remove(ctx, a); err != nil { // a re-run finishes the job
			t.Fatal(err)
		}
		if mds, err := s.List(); err != nil || len(mds) != 1 || mds[0].ID != b {
			t.Fatalf("fault at op %d: finally %v %v", i, mds, err)
		}
	}
}

// TestRemoveClaimed: RemoveClaimed deletes what an interrupted Remove left claimed in
// staging and leaves an interrupted writer's attempt (gc-staging's to remove) alone.
func TestRemoveClaimed(t *testing.T) {
	ctx := context.Background()
	s := newStore(t, Options{})
	a, b := publishTwo(t, s)
	attempt := failedAttempt(t, s, vfs.OpRename, mustID(t, "33333333333333333333333333333333"))
	removes := 0
	faulty, err := Open(s.Root(), Options{FS: vfs.Inject(vfs.Default, func(op vfs.Op) error {
		if op.Kind == vfs.OpRemove {
			if removes++; removes == 2 {
				return errInjected
			}
		}
		return nil
	})})
	if err != nil {
		t.Fatal(err)
	}
	claimed, err := faulty.Remove(ctx, a)
	if !errors.Is(err, errInjected) || !strings.HasSuffix(claimed, ClaimSuffix) || !strings.Contains(err.Error(), claimed) {
		t.Fatalf("claimed %q: %v", claimed, err)
	}
	done, err := s.RemoveClaimed(ctx)
	if err != nil || len(done) != 1 || done[0].Path != claimed {
		t.Fatalf("removed %+v: %v", done, err)
	}
	if names := listDir(t, stagingDirOf(s)); len(names) != 1 || names[0] != filepath.Base(attempt) {
		t.Fatalf("staging: %v", names)
	}
	if mds, err := s.List(); err != nil || len(mds) != 1 || mds[0].ID != b {
		t.Fatalf("list: %v %v", mds, err)
	}
}
