package snapshot

import (
	"context"
	"encoding/binary"
	"math/rand/v2"
	"testing"
)

// TestStreamBufferGrows: a stream starts with a buffer of firstBuffer bytes, however
// large streamBuffer is, and grows it by doubling before handing any over. Payloads of
// every size around the growth steps, written in random pieces through Write and
// AppendUint64, are published byte for byte, in both layouts.
func TestStreamBufferGrows(t *testing.T) {
	defer func(b int) { streamBuffer = b }(streamBuffer)
	streamBuffer = 4 * firstBuffer
	rng := rand.New(rand.NewPCG(7, 19))
	for _, compress := range []bool{false, true} {
		for _, size := range []int{0, 8, firstBuffer - 8, firstBuffer, firstBuffer + 8, 2*firstBuffer + 16, streamBuffer, 3*streamBuffer + 24} {
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
			if cap(st.buf) != firstBuffer {
				t.Fatalf("a new stream's buffer holds %d bytes, want %d", cap(st.buf), firstBuffer)
			}
			want := make([]byte, 0, size)
			for len(want) < size {
				if rng.IntN(2) == 0 {
					n := min(1+rng.IntN(3*firstBuffer), size-len(want))
					p := make([]byte, n)
					for i := range p {
						p[i] = byte(rng.Uint32())
					}
					if _, err := st.Write(p); err != nil {
						t.Fatal(err)
					}
					want = append(want, p...)
					continue
				}
				v := make([]uint64, min(1+rng.IntN(firstBuffer/4), (size-len(want))/8))
				for i := range v {
					v[i] = rng.Uint64()
					want = binary.LittleEndian.AppendUint64(want, v[i])
				}
				if err := st.AppendUint64(v...); err != nil {
					t.Fatal(err)
				}
			}
			if size <= firstBuffer && cap(st.buf) != firstBuffer {
				t.Errorf("size %d: the buffer grew to %d bytes, want %d", size, cap(st.buf), firstBuffer)
			}
			if cap(st.buf) > streamBuffer {
				t.Errorf("size %d: the buffer grew to %d bytes, past streamBuffer %d", size, cap(st.buf), streamBuffer)
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
				t.Fatalf("compress %v, size %d: %d bytes back, want %d", compress, size, len(got), len(want))
			}
		}
	}
}
