package snapshot

import (
	"context"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/pipewhy/pipewhy/snapshot/vfs"
)

// recordingStore opens s's root again through a filesystem that records every
// operation, and returns it with the function that returns (and clears) the record.
func recordingStore(t *testing.T, s *Store) (*Store, func() []vfs.Op) {
	t.Helper()
	var mu sync.Mutex
	var ops []vfs.Op
	r, err := Open(s.Root(), Options{FS: vfs.Inject(vfs.Default, func(op vfs.Op) error {
		mu.Lock()
		ops = append(ops, op)
		mu.Unlock()
		return nil
	})})
	if err != nil {
		t.Fatal(err)
	}
	return r, func() []vfs.Op {
		mu.Lock()
		defer mu.Unlock()
		got := ops
		ops = nil
		return got
	}
}

// syncsOf counts the syncs of directory dir among ops.
func syncsOf(ops []vfs.Op, dir string) int {
	n := 0
	for _, op := range ops {
		if op.Kind == vfs.OpSyncDir && op.Path == dir {
			n++
		}
	}
	return n
}

// TestRemoveStagingAge: an attempt is kept while its age is under OlderThan and removed
// from the instant it equals it; OlderThan 0 removes every attempt, even one whose
// modification time is after Now.
func TestRemoveStagingAge(t *testing.T) {
	ctx := context.Background()
	s := newStore(t, Options{})
	failedAttempt(t, s, vfs.OpRename, mustID(t, "11111111111111111111111111111111"))
	entries, err := s.Staging()
	if err != nil || len(entries) != 1 {
		t.Fatalf("staging %+v: %v", entries, err)
	}
	mod := entries[0].ModTime
	for _, tc := range []struct {
		older time.Duration
		now   time.Time
		kept  bool
	}{
		{time.Hour, mod.Add(time.Hour - time.Nanosecond), true},
		{time.Hour, mod.Add(time.Hour), false},
		{0, mod.Add(-time.Hour), false},
	} {
		removed, kept, err := s.RemoveStaging(ctx, StagingOptions{OlderThan: tc.older, Now: tc.now, DryRun: true})
		if err != nil || len(removed)+len(kept) != 1 || (len(kept) == 1) != tc.kept {
			t.Errorf("older than %v, age %v: removed %v kept %v: %v", tc.older, tc.now.Sub(mod), removed, kept, err)
		}
	}
}

// TestCleanupSyncsStaging: RemoveStaging and RemoveClaimed sync root/staging after they
// removed something (the removal is durable), and touch nothing when there is nothing
// to remove.
func TestCleanupSyncsStaging(t *testing.T) {
	ctx := context.Background()
	s := newStore(t, Options{})
	r, ops := recordingStore(t, s)
	dir := stagingDirOf(s)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}

	ops()
	if removed, _, err := r.RemoveStaging(ctx, StagingOptions{}); err != nil || len(removed) != 0 {
		t.Fatalf("nothing staged: removed %v: %v", removed, err)
	}
	if done, err := r.RemoveClaimed(ctx); err != nil || len(done) != 0 {
		t.Fatalf("nothing claimed: removed %v: %v", done, err)
	}
	for _, op := range ops() {
		if op.Mutating() {
			t.Errorf("nothing to remove, yet %v", op)
		}
	}

	failedAttempt(t, s, vfs.OpRename, mustID(t, "11111111111111111111111111111111"))
	ops()
	if removed, _, err := r.RemoveStaging(ctx, StagingOptions{}); err != nil || len(removed) != 1 {
		t.Fatalf("removed %v: %v", removed, err)
	}
	got := ops()
	if last := got[len(got)-1]; last.Kind != vfs.OpSyncDir || last.Path != dir {
		t.Errorf("RemoveStaging's last operation %v, want a sync of %s", last, dir)
	}

	a := failedAttempt(t, s, vfs.OpRename, mustID(t, "22222222222222222222222222222222"))
	if err := os.Rename(a, a+claimSuffix); err != nil {
		t.Fatal(err)
	}
	ops()
	if done, err := r.RemoveClaimed(ctx); err != nil || len(done) != 1 {
		t.Fatalf("claimed: removed %v: %v", done, err)
	}
	got = ops()
	if last := got[len(got)-1]; last.Kind != vfs.OpSyncDir || last.Path != dir || syncsOf(got, dir) != 1 {
		t.Errorf("RemoveClaimed's operations %v, want one sync of %s, last", got, dir)
	}
}
