package snapshot

import (
	"context"
	"encoding/binary"
	"errors"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pipewhy/pipewhy/snapshot/vfs"
)

// TestCompressedPublishManyChunks: a compressed Publish streams each array in hash
// chunks; an array of many chunks is published whole, and a fault while writing it is
// reported as the I/O error it is, not as a checksum mismatch.
func TestCompressedPublishManyChunks(t *testing.T) {
	defer func(h int) { hashChunk = h }(hashChunk)
	hashChunk = 64 // 8 elements
	v := make([]uint64, 100)
	for i := range v {
		v[i] = uint64(i)*0x9e3779b97f4a7c15 + 1
	}
	s := newStore(t, Options{Compress: true})
	md := fixtureMetadata(t)
	if err := s.Publish(context.Background(), md, map[string]Array{"ids": FromUint64(v)}); err != nil {
		t.Fatal(err)
	}
	snap, err := s.Open(md.ID)
	if err != nil {
		t.Fatal(err)
	}
	got, err := snap.Arrays["ids"].Uint64s()
	if err != nil || len(got) != len(v) {
		t.Fatalf("%d elements back: %v", len(got), err)
	}
	for i := range v {
		if got[i] != v[i] {
			t.Fatalf("element %d: %#x, want %#x", i, got[i], v[i])
		}
	}

	faulty, err := Open(t.TempDir(), Options{Compress: true, FS: vfs.Inject(vfs.Default, func(op vfs.Op) error {
		if op.Kind == vfs.OpSync && strings.HasSuffix(op.Path, "array-ids.bin") {
			return errInjected
		}
		return nil
	})})
	if err != nil {
		t.Fatal(err)
	}
	err = faulty.Publish(context.Background(), md, map[string]Array{"ids": FromUint64(v)})
	if !errors.Is(err, errInjected) || codeOf(err) != CodeIO {
		t.Fatalf("publish with failing fsync: %v (code %q), want %s from the fault", err, codeOf(err), CodeIO)
	}
}

// TestAppendUint64Unaligned: AppendUint64 after a write that leaves the stream's buffer
// short of a whole element, over many buffers, writes every element in order.
func TestAppendUint64Unaligned(t *testing.T) {
	defer func(b int) { streamBuffer = b }(streamBuffer)
	streamBuffer = 64
	for _, compress := range []bool{false, true} {
		s := newStore(t, Options{Compress: compress})
		md := fixtureMetadata(t)
		w, err := s.Create(context.Background(), md.ID)
		if err != nil {
			t.Fatal(err)
		}
		st, err := w.Append("ids", Uint64)
		if err != nil {
			t.Fatal(err)
		}
		v := make([]uint64, 50)
		for i := range v {
			v[i] = uint64(i+1) << 40
		}
		want := []byte{1, 2, 3, 4}
		for _, x := range v {
			want = binary.LittleEndian.AppendUint64(want, x)
		}
		want = append(want, 5, 6, 7, 8)
		if _, err := st.Write(want[:4]); err != nil {
			t.Fatal(err)
		}
		if err := st.AppendUint64(v...); err != nil {
			t.Fatal(err)
		}
		if _, err := st.Write(want[len(want)-4:]); err != nil {
			t.Fatal(err)
		}
		if err := st.Close(); err != nil {
			t.Fatal(err)
		}
		if err := w.Commit(context.Background(), md, nil); err != nil {
			t.Fatal(err)
		}
		snap, err := s.Open(md.ID)
		if err != nil {
			t.Fatal(err)
		}
		if got := snap.Arrays["ids"].Bytes(); string(got) != string(want) {
			t.Fatalf("compress %v: %d bytes, want %d: % x", compress, len(got), len(want), got[:min(len(got), 24)])
		}
	}
}

// TestSpillNames: [a-z0-9][a-z0-9-]{0,63}: 1 to 64 characters, the first not '-'.
func TestSpillNames(t *testing.T) {
	for name, ok := range map[string]bool{
		"": false, "a": true, "0": true, "-": false, "-a": false, "a-": true, "a_b": false, "A": false,
		strings.Repeat("a", 64): true, strings.Repeat("a", 65): false, "a" + strings.Repeat("-", 63): true,
	} {
		if ValidSpillName(name) != ok {
			t.Errorf("ValidSpillName(%q) = %v, want %v", name, !ok, ok)
		}
	}
}

// TestCompressedPublishArrayChangedWhileWritten: Publish hashes the arrays (phase 1)
// before it writes them; an array whose bytes change in between (the caller broke the
// rule that arrays stay unchanged during Publish) fails as a storage integrity error,
// and nothing is published.
func TestCompressedPublishArrayChangedWhileWritten(t *testing.T) {
	s := newStore(t, Options{Compress: true})
	md := fixtureMetadata(t)
	arrays := fixtureArrays()
	changed := false
	fn := func(step Step, done, total uint64) {
		if step == StepWrite && !changed {
			arrays["ids"].data[0] ^= 1
			changed = true
		}
	}
	err := s.PublishWithProgress(context.Background(), md, arrays, fn)
	var ie *StorageIntegrityError
	if !changed || !errors.As(err, &ie) {
		t.Fatalf("changed %v: error %v, want a *StorageIntegrityError", changed, err)
	}
	if _, err := s.Open(md.ID); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("published: %v", err)
	}
}

// TestSpillRemoval: RemoveSpill removes a spill file, and one already gone is not an
// error; a failure to remove the spill directory at Commit fails the Commit.
func TestSpillRemoval(t *testing.T) {
	fsys := vfs.Inject(vfs.Default, func(op vfs.Op) error {
		if op.Kind == vfs.OpRemove && filepath.Base(op.Path) == spillDir {
			return errInjected
		}
		return nil
	})
	s, err := Open(t.TempDir(), Options{FS: fsys})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	md := fixtureMetadata(t)
	w, err := s.Create(ctx, md.ID)
	if err != nil {
		t.Fatal(err)
	}
	f, err := w.CreateSpill("run-0")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.Write([]byte("x")); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	if err := w.RemoveSpill("run-0"); err != nil {
		t.Fatalf("RemoveSpill: %v", err)
	}
	if _, err := w.OpenSpill("run-0"); err == nil {
		t.Fatal("the removed spill file opens")
	}
	if err := w.RemoveSpill("run-0"); err != nil {
		t.Fatalf("RemoveSpill of a removed file: %v", err)
	}
	err = w.Commit(ctx, md, nil)
	if !errors.Is(err, errInjected) {
		t.Fatalf("Commit with the spill directory left: %v, want the injected fault", err)
	}
	w.Abort()
}

// TestWriterCommitVerifiesContext: Commit refuses a fingerprint context the store's
// VerifyContext rejects, with CodeContext and the rejection as its cause, and publishes
// nothing.
func TestWriterCommitVerifiesContext(t *testing.T) {
	reject := errors.New("unknown context")
	s := newStore(t, Options{VerifyContext: func(FingerprintContext) error { return reject }})
	ctx := context.Background()
	md := fixtureMetadata(t)
	w, err := s.Create(ctx, md.ID)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Commit(ctx, md, nil); codeOf(err) != CodeContext || !errors.Is(err, reject) {
		t.Fatalf("commit with a rejected context: %v", err)
	}
	w.Abort()
	if _, err := s.Open(md.ID); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("published: %v", err)
	}
}
