package snapshot

import (
	"bytes"
	"context"
	"errors"
	"io"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/pipewhy/pipewhy/snapshot/vfs"
)

// TestWriterMatchesFixture streams the fixture's arrays in random pieces and finds the
// hand-written fixture manifest (PW-07.02) and the exact payload bytes: a streamed
// package is byte for byte the one Publish writes.
func TestWriterMatchesFixture(t *testing.T) {
	for seed := range uint64(20) {
		rng := rand.New(rand.NewPCG(seed, 1))
		s := newStore(t, Options{})
		md := fixtureMetadata(t)
		w, err := s.Create(context.Background(), md.ID)
		if err != nil {
			t.Fatal(err)
		}
		// A spill file is written and left for Commit to remove.
		f, err := w.CreateSpill("run-0")
		if err != nil {
			t.Fatal(err)
		}
		if _, err := f.Write([]byte("scratch")); err != nil {
			t.Fatal(err)
		}
		f.Close()
		keys := []string{"ids", "flags", "none"}
		rng.Shuffle(len(keys), func(i, j int) { keys[i], keys[j] = keys[j], keys[i] })
		for _, k := range keys {
			a := fixtureArrays()[k]
			if k == "flags" && rng.IntN(2) == 0 {
				if err := w.Put(k, a); err != nil {
					t.Fatal(err)
				}
				continue
			}
			st, err := w.Append(k, a.DType())
			if err != nil {
				t.Fatal(err)
			}
			b := a.Bytes()
			for len(b) > 0 { // random splits, including ones inside an element
				n := rng.IntN(len(b)) + 1
				if _, err := st.Write(b[:n]); err != nil {
					t.Fatal(err)
				}
				b = b[n:]
			}
			if err := st.Close(); err != nil {
				t.Fatal(err)
			}
		}
		if err := w.Commit(context.Background(), md, nil); err != nil {
			t.Fatal(err)
		}
		man, err := os.ReadFile(filepath.Join(s.Path(md.ID), manifestName))
		if err != nil {
			t.Fatal(err)
		}
		if string(man) != fixtureManifest {
			t.Fatalf("seed %d: manifest differs from the fixture:\n%s", seed, man)
		}
		snap, err := s.Open(md.ID)
		if err != nil {
			t.Fatal(err)
		}
		for k, a := range fixtureArrays() {
			if !snap.Arrays[k].Equal(a) {
				t.Fatalf("array %s differs", k)
			}
		}
		if got := listDir(t, stagingDirOf(s)); len(got) != 0 {
			t.Fatalf("staging holds %v after a commit", got)
		}
	}
}

// TestWriterAppendUint64 checks the element helper writes little-endian words: the
// bytes are spelled out by hand.
func TestWriterAppendUint64(t *testing.T) {
	s := newStore(t, Options{})
	md := fixtureMetadata(t)
	w, err := s.Create(context.Background(), md.ID)
	if err != nil {
		t.Fatal(err)
	}
	st, err := w.Append("ids", Uint64)
	if err != nil {
		t.Fatal(err)
	}
	v := make([]uint64, 200) // more than one internal block of 64
	for i := range v {
		v[i] = uint64(i) << 8
	}
	if err := st.AppendUint64(v...); err != nil {
		t.Fatal(err)
	}
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	if err := w.Commit(context.Background(), md, nil); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(s.Path(md.ID), "array-ids.bin"))
	if err != nil {
		t.Fatal(err)
	}
	if len(b) != 1600 || b[8] != 0 || b[9] != 1 || b[10] != 0 || b[8*199+1] != 199 {
		t.Fatalf("payload is not little-endian words: % x", b[:16])
	}
	if err := st.AppendUint64(1); err == nil {
		t.Fatal("append after close succeeded")
	}
}

// TestWriterRefusals: misuse is refused with ErrInvalid codes, and nothing is published.
func TestWriterRefusals(t *testing.T) {
	ctx := context.Background()
	s := newStore(t, Options{})
	md := fixtureMetadata(t)
	w, err := s.Create(ctx, md.ID)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.Append("Bad", Uint64); !errors.Is(err, ErrInvalid) {
		t.Fatalf("bad key: %v", err)
	}
	if _, err := w.Append("k", 0); !errors.Is(err, ErrInvalid) {
		t.Fatalf("bad dtype: %v", err)
	}
	if _, err := w.CreateSpill("../x"); !errors.Is(err, ErrInvalid) {
		t.Fatalf("bad spill name: %v", err)
	}
	st, err := w.Append("k", Uint32)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.Append("k", Uint32); !errors.Is(err, ErrInvalid) {
		t.Fatalf("second stream of one key: %v", err)
	}
	if err := w.Commit(ctx, md, nil); !errors.Is(err, ErrInvalid) {
		t.Fatalf("commit with an open stream: %v", err)
	}
	if _, err := st.Write([]byte{1, 2, 3}); err != nil {
		t.Fatal(err)
	}
	if err := st.Close(); !errors.Is(err, ErrInvalid) || codeOf(err) != CodeInvalidArray {
		t.Fatalf("3 bytes of uint32: %v", err)
	}
	if err := w.Commit(ctx, md, nil); codeOf(err) != CodeInvalidArray {
		t.Fatalf("commit after a failed stream: %v", err)
	}
	w2, err := s.Create(ctx, md.ID)
	if err != nil {
		t.Fatal(err)
	}
	other := md
	other.ID = NewID()
	if err := w2.Commit(ctx, other, nil); codeOf(err) != CodeInvalidMetadata {
		t.Fatalf("commit of another ID: %v", err)
	}
	w2.Abort()
	if err := w.Abort(); err != nil {
		t.Fatal(err)
	}
	if err := w.Put("z", FromUint8(nil)); !errors.Is(err, ErrInvalid) {
		t.Fatalf("put after abort: %v", err)
	}
	if _, err := s.Open(md.ID); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("something was published: %v", err)
	}
	// An already published ID is refused before any attempt is made.
	s2 := newStore(t, Options{})
	id := publishFixture(t, s2)
	if _, err := s2.Create(ctx, id); !errors.Is(err, fs.ErrExist) {
		t.Fatalf("create of a published ID: %v", err)
	}
	if got := listDir(t, stagingDirOf(s2)); len(got) != 0 {
		t.Fatalf("refused create left %v", got)
	}
}

// TestWriterAbortKeepsInspectableAttempt: an aborted writer's attempt stays in staging
// as STAGING, its spill directory gone; RemoveStaging removes it.
func TestWriterAbortKeepsInspectableAttempt(t *testing.T) {
	ctx := context.Background()
	s := newStore(t, Options{})
	md := fixtureMetadata(t)
	w, err := s.Create(ctx, md.ID)
	if err != nil {
		t.Fatal(err)
	}
	f, err := w.CreateSpill("run-0")
	if err != nil {
		t.Fatal(err)
	}
	f.Close()
	if err := w.Put("ids", fixtureArrays()["ids"]); err != nil {
		t.Fatal(err)
	}
	if _, err := w.Append("open", Uint8); err != nil {
		t.Fatal(err)
	}
	if err := w.Abort(); err != nil {
		t.Fatal(err)
	}
	atts, err := s.InspectIncomplete()
	if err != nil {
		t.Fatal(err)
	}
	if len(atts) != 1 || atts[0].Phase != PhaseStaging || atts[0].ID == nil || *atts[0].ID != md.ID {
		t.Fatalf("attempts %+v", atts)
	}
	if got := listDir(t, w.Attempt()); slices.Contains(got, spillDir) {
		t.Fatalf("abort kept the spill directory: %v", got)
	}
	if removed, _, err := s.RemoveStaging(ctx, StagingOptions{}); err != nil || len(removed) != 1 {
		t.Fatalf("remove staging: %v %v", removed, err)
	}
}

// TestWriterSpillFaults injects a failure into every operation on spill files in turn
// (create, write, sync, close, mkdir of the spill directory, remove): each gives a coded
// error naming the attempt or the file, nothing is published, and the attempt is
// inspectable.
func TestWriterSpillFaults(t *testing.T) {
	injected := errors.New("injected fault")
	for _, kind := range []vfs.OpKind{vfs.OpMkdir, vfs.OpCreate, vfs.OpWrite, vfs.OpSync, vfs.OpClose, vfs.OpRemove} {
		t.Run(string(kind), func(t *testing.T) {
			root := t.TempDir()
			fsys := vfs.Inject(vfs.Default, func(op vfs.Op) error {
				if op.Kind == kind && strings.Contains(filepath.ToSlash(op.Path), "/"+spillDir) {
					return injected
				}
				return nil
			})
			s, err := Open(root, Options{FS: fsys})
			if err != nil {
				t.Fatal(err)
			}
			ctx := context.Background()
			md := fixtureMetadata(t)
			w, err := s.Create(ctx, md.ID)
			if err != nil {
				t.Fatal(err)
			}
			err = spillAndCommit(ctx, w, md)
			if err == nil {
				t.Fatal("no error")
			}
			if !errors.Is(err, injected) || codeOf(err) != CodeIO {
				t.Fatalf("error %v: want the injected fault under %s", err, CodeIO)
			}
			w.Abort()
			if _, err := s.Open(md.ID); !errors.Is(err, fs.ErrNotExist) {
				t.Fatalf("published after a spill fault: %v", err)
			}
			atts, err := s.InspectIncomplete()
			if err != nil || len(atts) != 1 || atts[0].Phase != PhaseStaging {
				t.Fatalf("attempts %+v, %v", atts, err)
			}
		})
	}
}

// spillAndCommit writes a spill file, reads it back into the payload, removes it and
// commits.
func spillAndCommit(ctx context.Context, w *Writer, md Metadata) error {
	f, err := w.CreateSpill("run-0")
	if err != nil {
		return err
	}
	if _, err := f.Write(fixtureArrays()["ids"].Bytes()); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	r, err := w.OpenSpill("run-0")
	if err != nil {
		return err
	}
	b, err := io.ReadAll(r)
	r.Close()
	if err != nil {
		return err
	}
	if !bytes.Equal(b, fixtureArrays()["ids"].Bytes()) {
		return errors.New("spill read back differs")
	}
	st, err := w.Append("ids", Uint64)
	if err != nil {
		return err
	}
	if _, err := st.Write(b); err != nil {
		return err
	}
	if err := st.Close(); err != nil {
		return err
	}
	if err := w.RemoveSpill("run-0"); err != nil {
		return err
	}
	return w.Commit(ctx, md, nil)
}

// TestWriterPayloadWriteFault: a failing payload write sticks to the stream and to
// the writer, whose Commit refuses to publish.
func TestWriterPayloadWriteFault(t *testing.T) {
	injected := errors.New("injected fault")
	fsys := vfs.Inject(vfs.Default, func(op vfs.Op) error {
		if op.Kind == vfs.OpWrite && strings.HasSuffix(op.Path, "array-ids.bin") {
			return injected
		}
		return nil
	})
	s, err := Open(t.TempDir(), Options{FS: fsys})
	if err != nil {
		t.Fatal(err)
	}
	md := fixtureMetadata(t)
	w, err := s.Create(context.Background(), md.ID)
	if err != nil {
		t.Fatal(err)
	}
	st, err := w.Append("ids", Uint64)
	if err != nil {
		t.Fatal(err)
	}
	st.AppendUint64(1, 2, 3) // buffered: the fault surfaces at Close's flush
	if err := st.Close(); !errors.Is(err, injected) || codeOf(err) != CodeIO {
		t.Fatalf("close: %v", err)
	}
	if err := st.AppendUint64(4); !errors.Is(err, injected) {
		t.Fatalf("the error does not stick: %v", err)
	}
	if err := w.Commit(context.Background(), md, nil); !errors.Is(err, injected) {
		t.Fatalf("commit after a failed stream: %v", err)
	}
	if _, err := s.Open(md.ID); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("published after a payload fault: %v", err)
	}
}
