package repo_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pipewhy/pipewhy/repo"
)

// TestSnapshotEncoding: a new repository records snapshot_encoding zstd-blocks and
// writes compressed snapshots; a configuration without it (a repository made before
// the extension) keeps writing C5 version 1; an unknown encoding is refused.
func TestSnapshotEncoding(t *testing.T) {
	dir := t.TempDir()
	r, err := repo.Init(dir)
	if err != nil {
		t.Fatal(err)
	}
	cfg := filepath.Join(dir, repo.ConfigFile)
	b, err := os.ReadFile(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), `"snapshot_encoding":"zstd-blocks"`) || !r.Store().Compresses() {
		t.Fatalf("new repository does not opt in: %s", b)
	}
	legacy := strings.Replace(string(b), `,"snapshot_encoding":"zstd-blocks"`, "", 1)
	if err := os.WriteFile(cfg, []byte(legacy), 0o644); err != nil {
		t.Fatal(err)
	}
	if r, err = repo.Open(dir); err != nil {
		t.Fatal(err)
	} else if r.Store().Compresses() {
		t.Fatal("a repository without snapshot_encoding writes compressed snapshots")
	}
	other := strings.Replace(string(b), `"zstd-blocks"`, `"lz4"`, 1)
	if err := os.WriteFile(cfg, []byte(other), 0o644); err != nil {
		t.Fatal(err)
	}
	var e *repo.Error
	if _, err := repo.Open(dir); err == nil || !errors.As(err, &e) || e.Code != repo.CodeLayout {
		t.Fatalf("unknown encoding: %v", err)
	}
}
