package snapshot

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math/rand/v2"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/pipewhy/pipewhy/snapshot/vfs"
)

// TestPipeInterleavedStreams: streams written in turn, in pieces of random sizes that
// cross the (tiny) buffers, with AppendUint64 and Write mixed and streams closed at
// different times, publish exactly the bytes written to each, in both layouts, while
// the pipe hashes and writes them on its own goroutines. The expected payloads are the
// inputs themselves. No goroutine outlives the writer.
func TestPipeInterleavedStreams(t *testing.T) {
	defer func(b int) { streamBuffer = b }(streamBuffer)
	streamBuffer = 24
	before := runtime.NumGoroutine()
	for _, compress := range []bool{false, true} {
		rng := rand.New(rand.NewPCG(62, 1))
		s := newStore(t, Options{Compress: compress})
		md := fixtureMetadata(t)
		w, err := s.Create(context.Background(), md.ID)
		if err != nil {
			t.Fatal(err)
		}
		const n = 5
		sts := make([]*Stream, n)
		want := make([][]byte, n)
		for i := range sts {
			if sts[i], err = w.Append(fmt.Sprintf("a%d", i), Uint64); err != nil {
				t.Fatal(err)
			}
		}
		for round := range 200 {
			i := rng.IntN(n)
			if sts[i] == nil {
				continue
			}
			if rng.IntN(2) == 0 {
				v := make([]uint64, rng.IntN(9))
				for j := range v {
					v[j] = rng.Uint64()
					want[i] = binary.LittleEndian.AppendUint64(want[i], v[j])
				}
				if err := sts[i].AppendUint64(v...); err != nil {
					t.Fatal(err)
				}
			} else {
				b := make([]byte, 8*rng.IntN(7))
				for j := range b {
					b[j] = byte(rng.Uint32())
				}
				want[i] = append(want[i], b...)
				if _, err := sts[i].Write(b); err != nil {
					t.Fatal(err)
				}
			}
			if round > 100 && rng.IntN(40) == 0 { // close one early; the others go on
				if err := sts[i].Close(); err != nil {
					t.Fatal(err)
				}
				sts[i] = nil
			}
		}
		for _, st := range sts {
			if st != nil {
				if err := st.Close(); err != nil {
					t.Fatal(err)
				}
			}
		}
		if err := w.Commit(context.Background(), md, nil); err != nil {
			t.Fatal(err)
		}
		snap, err := s.Open(md.ID)
		if err != nil {
			t.Fatal(err)
		}
		for i := range n {
			if got := snap.Arrays[fmt.Sprintf("a%d", i)].Bytes(); string(got) != string(want[i]) {
				t.Fatalf("compress %v: array a%d has %d bytes, want %d", compress, i, len(got), len(want[i]))
			}
		}
	}
	waitGoroutines(t, before)
}

// waitGoroutines fails unless the goroutine count falls back to n.
func waitGoroutines(t *testing.T, n int) {
	t.Helper()
	for range 200 {
		if runtime.NumGoroutine() <= n {
			return
		}
		time.Sleep(5 * time.Millisecond)
	}
	t.Fatalf("%d goroutines, %d before", runtime.NumGoroutine(), n)
}

// TestPipeWriteFaultSticks: a write that fails on the pipe's goroutine is reported by
// a later Write or AppendUint64 of the same stream or at its Close, sticks, and makes
// Commit fail; Abort with streams open and buffers in flight ends the pipe's
// goroutines and keeps the attempt.
func TestPipeWriteFaultSticks(t *testing.T) {
	defer func(b int) { streamBuffer = b }(streamBuffer)
	streamBuffer = 16
	injected := errors.New("injected fault")
	fsys := vfs.Inject(vfs.Default, func(op vfs.Op) error {
		if op.Kind == vfs.OpWrite && strings.HasSuffix(op.Path, "array-bad.bin") {
			return injected
		}
		return nil
	})
	before := runtime.NumGoroutine()
	for _, compress := range []bool{false, true} {
		s, err := Open(t.TempDir(), Options{FS: fsys, Compress: compress})
		if err != nil {
			t.Fatal(err)
		}
		md := fixtureMetadata(t)
		w, err := s.Create(context.Background(), md.ID)
		if err != nil {
			t.Fatal(err)
		}
		good, err := w.Append("good", Uint64)
		if err != nil {
			t.Fatal(err)
		}
		bad, err := w.Append("bad", Uint64)
		if err != nil {
			t.Fatal(err)
		}
		// Pieces of 16 bytes: the compressed stream writes once its block encoder
		// flushes (at Close), the raw one at the first piece.
		var got error
		for i := range uint64(4096) {
			if err := good.AppendUint64(i); err != nil {
				t.Fatal(err)
			}
			if got = bad.AppendUint64(i); got != nil {
				break
			}
		}
		if err := bad.Close(); !errors.Is(err, injected) || codeOf(err) != CodeIO {
			t.Fatalf("compress %v: close %v (a write returned %v)", compress, err, got)
		}
		if !compress && !errors.Is(got, injected) {
			t.Fatalf("raw stream: no write reported the fault before Close: %v", got)
		}
		if err := bad.AppendUint64(1); !errors.Is(err, injected) {
			t.Fatalf("the error does not stick: %v", err)
		}
		if err := good.AppendUint64(1, 2, 3); err != nil {
			t.Fatal(err)
		}
		if err := good.Close(); err != nil {
			t.Fatal(err)
		}
		if err := w.Commit(context.Background(), md, nil); !errors.Is(err, injected) {
			t.Fatalf("commit: %v", err)
		}
		// A stream left open with buffers in flight when the writer is aborted.
		late, err := w.Append("late", Uint64)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := late.Write(make([]byte, 160)); err != nil {
			t.Fatal(err)
		}
		if err := w.Abort(); err != nil {
			t.Fatal(err)
		}
		if _, err := late.Write(make([]byte, 64)); err == nil {
			t.Fatal("a write after Abort was taken")
		}
		atts, err := s.InspectIncomplete()
		if err != nil || len(atts) != 1 {
			t.Fatalf("attempts %v, %v", atts, err)
		}
	}
	waitGoroutines(t, before)
}
