package vfs

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
)

func TestRenameNoReplace(t *testing.T) {
	for name, rename := range map[string]func(string, string) error{
		"default": Default.RenameNoReplace,
		"plain":   plainRenameNoReplace,
	} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			src := filepath.Join(dir, "src")
			os.Mkdir(src, 0o755)
			os.WriteFile(filepath.Join(src, "f"), []byte("new"), 0o644)

			// An existing empty directory: a plain rename(2) would replace it.
			empty := filepath.Join(dir, "empty")
			os.Mkdir(empty, 0o755)
			// An existing nonempty directory.
			full := filepath.Join(dir, "full")
			os.Mkdir(full, 0o755)
			os.WriteFile(filepath.Join(full, "f"), []byte("old"), 0o644)
			// An existing file.
			file := filepath.Join(dir, "file")
			os.WriteFile(file, []byte("old"), 0o644)

			for _, dst := range []string{empty, full, file} {
				if err := rename(src, dst); !errors.Is(err, fs.ErrExist) {
					t.Errorf("rename onto %s: %v, want fs.ErrExist", filepath.Base(dst), err)
				}
			}
			if b, _ := os.ReadFile(filepath.Join(full, "f")); string(b) != "old" {
				t.Error("destination changed")
			}
			if ents, _ := os.ReadDir(empty); len(ents) != 0 {
				t.Error("empty destination was replaced")
			}
			dst := filepath.Join(dir, "dst")
			if err := rename(src, dst); err != nil {
				t.Fatal(err)
			}
			if b, _ := os.ReadFile(filepath.Join(dst, "f")); string(b) != "new" {
				t.Error("renamed contents differ")
			}
			if _, err := os.Stat(src); !errors.Is(err, fs.ErrNotExist) {
				t.Error("source still exists")
			}
			if err := rename(src, filepath.Join(dir, "x")); !errors.Is(err, fs.ErrNotExist) {
				t.Errorf("rename of a missing source: %v", err)
			}
		})
	}
}

func TestCreateIsExclusive(t *testing.T) {
	p := filepath.Join(t.TempDir(), "f")
	f, err := Default.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	f.Write([]byte("x"))
	if err := f.Sync(); err != nil {
		t.Fatal(err)
	}
	f.Close()
	if _, err := Default.Create(p); !errors.Is(err, fs.ErrExist) {
		t.Fatalf("second Create: %v", err)
	}
	if err := Default.SyncDir(filepath.Dir(p)); err != nil {
		t.Fatal(err)
	}
	if err := Default.SyncDir(filepath.Join(p, "nope")); err == nil {
		t.Fatal("SyncDir of a missing directory succeeded")
	}
}

func TestInject(t *testing.T) {
	dir := t.TempDir()
	boom := errors.New("boom")
	var seen []string
	fsys := Inject(Default, func(op Op) error {
		seen = append(seen, op.String())
		if op.Kind == OpSync {
			return boom
		}
		return nil
	})
	p := filepath.Join(dir, "f")
	f, err := fsys.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.Write([]byte("x")); err != nil {
		t.Fatal(err)
	}
	if err := f.Sync(); !errors.Is(err, boom) {
		t.Fatalf("Sync: %v", err)
	}
	f.Close()
	want := []string{"create " + p, "write " + p, "sync " + p, "close " + p}
	if len(seen) != len(want) {
		t.Fatalf("ops %v", seen)
	}
	for i := range want {
		if seen[i] != want[i] {
			t.Fatalf("ops %v, want %v", seen, want)
		}
	}
	if (Op{Kind: OpRename, Path: "a", NewPath: "b"}).String() != "rename a -> b" || (Op{Kind: OpOpen}).Mutating() {
		t.Fatal("Op formatting")
	}
}

// TestNoSync: through NoSync, a file's Sync and SyncDir never reach the filesystem
// below; creating, writing and closing do, with their errors.
func TestNoSync(t *testing.T) {
	var ops []OpKind
	fsys := NoSync(Inject(Default, func(op Op) error {
		ops = append(ops, op.Kind)
		return nil
	}))
	dir := t.TempDir()
	f, err := fsys.Create(filepath.Join(dir, "f"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.Write([]byte("x")); err != nil {
		t.Fatal(err)
	}
	if err := f.Sync(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	if err := fsys.SyncDir(dir); err != nil {
		t.Fatal(err)
	}
	if got := fmt.Sprint(ops); got != "[create write close]" {
		t.Errorf("operations %s, want [create write close]", got)
	}
	if _, err := fsys.Create(filepath.Join(dir, "f")); err == nil {
		t.Error("Create of an existing file succeeded through NoSync")
	}
}
