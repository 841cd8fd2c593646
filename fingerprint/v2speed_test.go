package fingerprint

import (
	"math/rand/v2"
	"testing"

	"github.com/zeebo/xxh3"
)

// midWant is XXH3-128(key ‖ [id, code, 1+w, n, v packed into w words]) built byte by
// byte and hashed by zeebo/xxh3: the definition the 129–240-byte text paths must meet.
func midWant(key *[keySize]byte, id, code uint64, v []byte) Digest {
	w := (len(v) + 7) / 8
	frame := []uint64{id, code, uint64(1 + w), uint64(len(v))}
	p := make([]byte, 8*w)
	copy(p, v)
	for i := range w {
		var x uint64
		for j := 7; j >= 0; j-- {
			x = x<<8 | uint64(p[8*i+j])
		}
		frame = append(frame, x)
	}
	msg := append([]byte(nil), key[:]...)
	for _, x := range frame {
		for j := range 8 {
			msg = append(msg, byte(x>>(8*j)))
		}
	}
	h := xxh3.Hash128(msg)
	return Digest{Lo: h.Lo, Hi: h.Hi}
}

// TestMidText requires midText.sum and, where the machine has it, the eight-lane vector
// routine to equal XXH3-128 over the built message for every length of the 129–240-byte
// path, at unaligned starts, with the bytes after each value not zero (they must be
// masked off).
func TestMidText(t *testing.T) {
	rng := rand.New(rand.NewPCG(61, 1))
	for n := midTextMin; n <= midTextMax; n++ {
		var key [keySize]byte
		for i := range key {
			key[i] = byte(rng.Uint32())
		}
		id, code := rng.Uint64N(1<<20), uint64(4+rng.IntN(2))
		ks := newKeyedShort(&key)
		m := newMidText(&ks, id, code)
		data := make([]byte, 8*n+200)
		for i := range data {
			data[i] = byte(rng.Uint32())
		}
		var a mid8Args
		for i := range a.offs {
			a.offs[i] = int64(i*n + rng.IntN(7))
		}
		for i, at := range a.offs {
			want := midWant(&key, id, code, data[at:at+int64(n)])
			if got := m.sum(data[at:], n); got != want {
				t.Fatalf("n=%d value %d: sum %x, xxh3 %x", n, i, got, want)
			}
		}
		if !midKernel {
			continue
		}
		var d [8]Digest
		m.sum8(&a, data, n, &d)
		for i, at := range a.offs {
			if want := midWant(&key, id, code, data[at:at+int64(n)]); d[i] != want {
				t.Fatalf("n=%d value %d: sum8 %x, xxh3 %x", n, i, d[i], want)
			}
		}
	}
}
