package chain

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pipewhy/pipewhy/fingerprint"
	"github.com/pipewhy/pipewhy/internal/tablefp"
	"github.com/pipewhy/pipewhy/normalize"
	"github.com/pipewhy/pipewhy/snapshot"
)

var cols = []tablefp.Column{{ID: 1, Name: "x", Type: fingerprint.TypeInt}}

func state(t *testing.T, n int) fingerprint.State {
	tb, err := tablefp.New(cols)
	if err != nil {
		t.Fatal(err)
	}
	for i := range n {
		if err := tb.Add(cols, normalize.Int(int64(i))); err != nil {
			t.Fatal(err)
		}
	}
	return tb.State()
}

// TestChain: appends form a chain (numbered, each the parent of the next, the rows the
// coverage); a snapshot that breaks it, or one of another context, fails List.
func TestChain(t *testing.T) {
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "c")
	c := New(dir, "pipewhy:test", cols)
	if st, metas, err := c.List(); st != nil || metas != nil || err != nil {
		t.Fatalf("empty chain: %v %v %v", st, metas, err)
	}
	arrays := map[string]snapshot.Array{"a": snapshot.FromUint8([]byte{1})}
	var prev []snapshot.Metadata
	for i := range 3 {
		md, err := c.Append(ctx, prev, snapshot.NewID(), "test", state(t, i+1), arrays)
		if err != nil {
			t.Fatal(err)
		}
		prev = append(prev, md)
	}
	_, metas, err := c.List()
	if err != nil || len(metas) != 3 {
		t.Fatalf("%d snapshots, %v", len(metas), err)
	}
	for i, m := range metas {
		if m.SourceVersion != string(rune('1'+i)) || m.Coverage.Returned != uint64(i+1) || (i > 0) != (m.Parent != nil) || (i > 0 && *m.Parent != metas[i-1].ID) {
			t.Fatalf("snapshot %d: %+v", i, m)
		}
	}
	// A fourth snapshot appended after the first only: two "version 2"s.
	if _, err := c.Append(ctx, metas[:1], snapshot.NewID(), "test", state(t, 1), arrays); err != nil {
		t.Fatal(err)
	}
	if _, _, err := c.List(); err == nil || !strings.Contains(err.Error(), "missing, repeated or foreign") {
		t.Fatalf("broken chain: %v", err)
	}
	// Another chain's context is refused by the store itself.
	other := New(filepath.Join(t.TempDir(), "o"), "pipewhy:test", []tablefp.Column{{ID: 1, Name: "y", Type: fingerprint.TypeInt}})
	if _, err := other.Append(ctx, nil, snapshot.NewID(), "test", state(t, 1), arrays); err == nil {
		t.Fatal("a snapshot of another context was published")
	}
}
