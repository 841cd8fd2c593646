package scan

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"

	"github.com/pipewhy/pipewhy/repo"
	"github.com/pipewhy/pipewhy/snapshot"
	"github.com/pipewhy/pipewhy/source"
)

// TestRunProgress: a value scan of a CSV with inferred types reports every phase, in
// order, each with real totals: the file's size while inferring and reading, the
// records while sorting and building, and the published arrays' bytes while hashing,
// writing and reading them back.
func TestRunProgress(t *testing.T) {
	r, err := repo.Init(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(shop, "v1", "orders.csv")
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var got []Progress
	res, err := Run(context.Background(), r, Options{Address: path, Resolution: snapshot.ResolutionValue,
		Key: []string{"order_id"}, Source: source.Options{Infer: true},
		Progress: func(p Progress) {
			mu.Lock()
			got = append(got, p)
			mu.Unlock()
		}})
	if err != nil {
		t.Fatal(err)
	}
	var phases []Phase
	last := map[Phase]Progress{}
	for _, p := range got {
		if len(phases) == 0 || phases[len(phases)-1] != p.Phase {
			phases = append(phases, p.Phase)
		}
		if p.Bytes > p.BytesTotal {
			t.Errorf("%+v: more bytes than the total", p)
		}
		if q, ok := last[p.Phase]; ok && p.BytesTotal != q.BytesTotal {
			t.Errorf("%s: total changed from %d to %d", p.Phase, q.BytesTotal, p.BytesTotal)
		}
		if q := last[p.Phase]; p.Bytes >= q.Bytes {
			last[p.Phase] = p
		}
	}
	want := []Phase{PhaseInfer, PhaseRead, PhaseSort, PhaseBuild, PhaseChecksum, PhaseWrite, PhaseVerify}
	if !slices.Equal(phases, want) {
		t.Fatalf("phases %v, want %v", phases, want)
	}
	size := uint64(fi.Size())
	for _, ph := range []Phase{PhaseInfer, PhaseRead} {
		if p := last[ph]; p.Bytes != size || p.BytesTotal != size {
			t.Errorf("%s ends at %d of %d bytes, want the file's %d", ph, p.Bytes, p.BytesTotal, size)
		}
	}
	if p := last[PhaseRead]; p.Rows != 200 {
		t.Errorf("read ends at %d rows, want 200", p.Rows)
	}
	for _, ph := range []Phase{PhaseSort, PhaseBuild} {
		if p := last[ph]; p.Rows != 200 || p.BytesTotal != 0 {
			t.Errorf("%s: %+v, want 200 records and no byte total", ph, p)
		}
	}
	_, inv, err := r.Store().Stat(res.ID)
	if err != nil {
		t.Fatal(err)
	}
	var payload uint64
	for _, a := range inv {
		payload += a.ByteLength
	}
	for _, ph := range []Phase{PhaseChecksum, PhaseWrite, PhaseVerify} {
		if p := last[ph]; p.Bytes != payload || p.BytesTotal != payload {
			t.Errorf("%s ends at %d of %d bytes, want the arrays' %d", ph, p.Bytes, p.BytesTotal, payload)
		}
	}
}
