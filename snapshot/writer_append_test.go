package snapshot

import (
	"context"
	"encoding/binary"
	"errors"
	"strings"
	"testing"
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

	faulty, err := Open(t.TempDir(), Options{Compress: true, FS: failAt(func(k string) bool { return k == "sync" })})
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
