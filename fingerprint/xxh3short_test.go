package fingerprint

import (
	"math/rand/v2"
	"testing"

	"github.com/zeebo/xxh3"
)

// TestKeyedShort requires keyedShort.sum to equal zeebo/xxh3 over the built message for
// every record length it accepts, with random keys and words.
func TestKeyedShort(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for n := shortMinWords; n <= shortMaxWords; n++ {
		for range 200 {
			key, words, want := randomKeyed(rng, n)
			ks := newKeyedShort(&key)
			if got := ks.sum(words); got.Lo != want.Lo || got.Hi != want.Hi {
				t.Fatalf("n=%d: %016x%016x, xxh3 %016x%016x", n, got.Hi, got.Lo, want.Hi, want.Lo)
			}
		}
	}
}

func FuzzKeyedShort(f *testing.F) {
	f.Add([]byte("0123456789abcdef0123456789abcdef"), []byte("a frame of words, a frame of words"))
	f.Fuzz(func(t *testing.T, k, data []byte) {
		if len(k)+len(data) > 1<<16 { // bounds each run, and so each minimization
			t.Skip("input over 64 KiB")
		}
		var key [keySize]byte
		copy(key[:], k)
		n := len(data) / 8
		if n < shortMinWords || n > shortMaxWords {
			return
		}
		words := make([]uint64, n)
		for i := range words {
			for j := 0; j < 8; j++ {
				words[i] |= uint64(data[8*i+j]) << (8 * j)
			}
		}
		msg := append(key[:], data[:8*n]...)
		want := xxh3.Hash128(msg)
		ks := newKeyedShort(&key)
		if got := ks.sum(words); got.Lo != want.Lo || got.Hi != want.Hi {
			t.Fatalf("n=%d: digest differs from xxh3", n)
		}
	})
}

func BenchmarkKeyedShort(b *testing.B) {
	var key [keySize]byte
	ks := newKeyedShort(&key)
	for _, n := range []int{6, 17} {
		words := make([]uint64, n)
		msg := make([]byte, keySize+8*n)
		b.Run("keyed/"+uitoa(uint64(n)), func(b *testing.B) {
			for b.Loop() {
				sink += ks.sum(words).Lo
			}
		})
		b.Run("copy+xxh3/"+uitoa(uint64(n)), func(b *testing.B) {
			for b.Loop() {
				putWords(msg[keySize:], words)
				sink += xxh3.Hash128(msg).Lo
			}
		})
	}
}
