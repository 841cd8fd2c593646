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

// TestLostPublishRace makes the race deterministic: just before this writer's final
// rename another writer publishes the same ID. The loser's error is exactly CodeExists
// and fs.ErrExist, names its kept attempt, and the attempt is still inspectable; the
// winner's snapshot is untouched.
func TestLostPublishRace(t *testing.T) {
	root := t.TempDir()
	winner, err := Open(root, Options{})
	if err != nil {
		t.Fatal(err)
	}
	md := fixtureMetadata(t)
	raced := false
	hook := func(op vfs.Op) error {
		if op.Kind == vfs.OpRename && !raced {
			raced = true
			if err := winner.Publish(context.Background(), md, fixtureArrays()); err != nil {
				t.Errorf("winner: %v", err)
			}
		}
		return nil
	}
	loser, err := Open(root, Options{FS: vfs.Inject(vfs.Default, hook)})
	if err != nil {
		t.Fatal(err)
	}
	arrays := fixtureArrays()
	arrays["extra"] = FromUint8([]uint8{7})
	err = loser.Publish(context.Background(), md, arrays)
	if !raced {
		t.Fatal("the publish never reached its rename")
	}
	if codeOf(err) != CodeExists || !errors.Is(err, fs.ErrExist) {
		t.Fatalf("lost race: %v (code %q), want %s and fs.ErrExist", err, codeOf(err), CodeExists)
	}
	attempts, ierr := winner.InspectIncomplete()
	if ierr != nil {
		t.Fatal(ierr)
	}
	if len(attempts) != 1 || !strings.Contains(err.Error(), attempts[0].Path) {
		t.Fatalf("attempts %+v; error %q must name the kept attempt", attempts, err)
	}
	snap, err := winner.Open(md.ID)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := snap.Arrays["extra"]; ok {
		t.Fatal("the loser's content replaced the winner's")
	}
}

// TestRenameFailureIsNotARace: a rename that fails for any other reason is CodeIO, and
// neither CodeExists nor fs.ErrExist ("another writer published first" would be false).
func TestRenameFailureIsNotARace(t *testing.T) {
	s, err := Open(t.TempDir(), Options{FS: failAt(func(op string) bool { return op == string(vfs.OpRename) })})
	if err != nil {
		t.Fatal(err)
	}
	err = s.Publish(context.Background(), fixtureMetadata(t), fixtureArrays())
	if codeOf(err) != CodeIO || errors.Is(err, fs.ErrExist) || !errors.Is(err, errInjected) {
		t.Fatalf("rename failure: %v (code %q), want %s wrapping the injected fault", err, codeOf(err), CodeIO)
	}
	if _, statErr := os.Lstat(s.Path(fixtureMetadata(t).ID)); !errors.Is(statErr, fs.ErrNotExist) {
		t.Fatalf("nothing may be published: %v", statErr)
	}
}

// TestParentSizeCheck: the structure check a parent goes through (sizes only, no
// hashing) rejects a payload one byte longer or shorter than its byte_length, so a grown
// or truncated parent is CodeParent with a StorageIntegrityError inside.
func TestParentSizeCheck(t *testing.T) {
	for _, change := range []string{"grown", "shrunk"} {
		t.Run(change, func(t *testing.T) {
			s := newStore(t, Options{})
			parent := publishFixture(t, s)
			p := filepath.Join(s.Path(parent), arrayFile("ids"))
			b, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			if change == "grown" {
				b = append(b, 0)
			} else {
				b = b[:len(b)-1]
			}
			if err := os.WriteFile(p, b, 0o644); err != nil {
				t.Fatal(err)
			}
			child := fixtureMetadata(t)
			child.ID = NewID()
			child.Parent = &parent
			err = s.Publish(context.Background(), child, nil)
			var ie *StorageIntegrityError
			if codeOf(err) != CodeParent || !errors.As(err, &ie) || !strings.Contains(ie.Reason, "size") {
				t.Fatalf("%s parent: %v (code %q)", change, err, codeOf(err))
			}
		})
	}
}
