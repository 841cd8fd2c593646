package snapshot

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/pipewhy/pipewhy/snapshot/vfs"
)

// TestPublishProgress: every step starts at 0 and ends at the arrays' total, each report
// after the start counting new bytes; write
// progress never counts a byte that is not yet fsynced, and a file larger than the write
// chunk is fsynced a chunk at a time; Open reports its reads the same way.
func TestPublishProgress(t *testing.T) {
	defer func(h, w int) { hashChunk, writeChunk = h, w }(hashChunk, writeChunk)
	hashChunk, writeChunk = 512, 1000
	big := make([]uint64, 1000) // 8000 bytes: 8 write chunks
	for i := range big {
		big[i] = uint64(i) * 0x9e3779b97f4a7c15
	}
	arrays := map[string]Array{"big": FromUint64(big), "small": FromInt8([]int8{1, 2, 3}), "empty": FromUint32(nil)}
	const total = 8000 + 3

	var mu sync.Mutex
	synced := map[string]int64{} // array file -> bytes fsynced
	syncs := 0
	fsys := vfs.Inject(vfs.Default, func(op vfs.Op) error {
		if op.Kind == vfs.OpSync && strings.HasPrefix(filepath.Base(op.Path), "array-") {
			fi, err := os.Stat(op.Path)
			if err != nil {
				t.Error(err)
				return nil
			}
			mu.Lock()
			synced[op.Path] = fi.Size()
			syncs++
			mu.Unlock()
		}
		return nil
	})
	s, err := Open(t.TempDir(), Options{FS: fsys})
	if err != nil {
		t.Fatal(err)
	}
	type report struct {
		step        Step
		done, total uint64
	}
	var got []report
	fn := func(step Step, done, total uint64) {
		mu.Lock()
		defer mu.Unlock()
		if step == StepWrite {
			var onDisk int64
			for _, n := range synced {
				onDisk += n
			}
			// The write step's done is counted after the fsync of those bytes.
			if done > uint64(onDisk) {
				t.Errorf("write progress %d > %d bytes fsynced", done, onDisk)
			}
		}
		got = append(got, report{step, done, total})
	}
	md := fixtureMetadata(t)
	if err := s.PublishWithProgress(context.Background(), md, arrays, fn); err != nil {
		t.Fatal(err)
	}
	// 8 chunks of big, one of small, one (empty) of empty: 10 fsyncs of array files.
	if syncs != 10 {
		t.Errorf("%d fsyncs of array files, want 10", syncs)
	}
	check := func(step Step, reports []report, minCalls int) {
		t.Helper()
		var largest uint64
		n := 0
		seen := map[uint64]bool{}
		for i, r := range reports {
			if r.step != step {
				continue
			}
			// Each report after the start counts new bytes: done never repeats (the
			// reports of concurrent chunks may arrive out of order, so not "increases").
			if seen[r.done] {
				t.Errorf("%s report %d: done %d again, a report of no progress", step, i, r.done)
			}
			seen[r.done] = true
			if n == 0 && r.done != 0 {
				t.Errorf("%s starts at %d", step, r.done)
			}
			n++
			if r.total != total || r.done > total {
				t.Errorf("%s report %d: %d of %d, want of %d", step, i, r.done, r.total, total)
			}
			largest = max(largest, r.done)
		}
		if largest != total || n < minCalls {
			t.Errorf("%s: %d reports, largest %d, want at least %d ending at %d", step, n, largest, minCalls, total)
		}
	}
	// Checksum: 16 hash chunks of big + 1 of small + the start; write: 9 chunks + start;
	// verify reads through a 1 MiB buffer: the start and at least one read per file.
	check(StepChecksum, got, 18)
	check(StepWrite, got, 10)
	check(StepVerify, got, 3)
	order := []Step{}
	for _, r := range got {
		if len(order) == 0 || order[len(order)-1] != r.step {
			order = append(order, r.step)
		}
	}
	if strings.Join(stepsText(order), ",") != "checksum,write,verify" {
		t.Errorf("steps in order %v", order)
	}

	got = nil
	snap, err := s.OpenWithProgress(md.ID, fn)
	if err != nil {
		t.Fatal(err)
	}
	check(StepRead, got, 18)
	if len(snap.Arrays["big"].data) != 8000 {
		t.Fatal("open returned other bytes")
	}
}

func stepsText(s []Step) []string {
	out := make([]string, len(s))
	for i, x := range s {
		out[i] = string(x)
	}
	return out
}
