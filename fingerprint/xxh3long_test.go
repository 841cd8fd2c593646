package fingerprint

import (
	"math/rand/v2"
	"testing"
	"unsafe"

	"github.com/zeebo/xxh3"

	"github.com/pipewhy/pipewhy/internal/testenv"
)

// TestHashKeyedLong requires the kernel to equal zeebo/xxh3 over the built message for
// every record length it accepts, with random keys and words.
func TestHashKeyedLong(t *testing.T) {
	if !longKernel {
		testenv.Missing(t, testenv.AVX2, "no AVX2 kernel on this machine: digests use zeebo/xxh3 only")
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for n := longMinWords; n <= longMaxWords; n++ {
		for range 50 {
			key, words, want := randomKeyed(rng, n)
			for _, k := range longKernels() {
				got := k.fn(&key, words)
				if got.Lo != want.Lo || got.Hi != want.Hi {
					t.Fatalf("%s n=%d: kernel %016x%016x, xxh3 %016x%016x", k.name, n, got.Hi, got.Lo, want.Hi, want.Lo)
				}
			}
		}
	}
}

type longVariant struct {
	name string
	fn   func(*[keySize]byte, []uint64) Digest
}

// longKernels returns every form of the kernel this machine can run.
func longKernels() []longVariant {
	wrap := func(f func(*[keySize]byte, unsafe.Pointer, uint64) (uint64, uint64)) func(*[keySize]byte, []uint64) Digest {
		return func(k *[keySize]byte, w []uint64) Digest {
			lo, hi := f(k, unsafe.Pointer(&w[0]), uint64(8*len(w)))
			return Digest{Lo: lo, Hi: hi}
		}
	}
	var v []longVariant
	if longKernel {
		v = append(v, longVariant{"avx2", wrap(hashKeyedLongAVX2)})
	}
	return v
}

func BenchmarkHashKeyedLong(b *testing.B) {
	var key [keySize]byte
	words := make([]uint64, 32)
	msg := make([]byte, keySize+8*32)
	for _, k := range longKernels() {
		b.Run(k.name, func(b *testing.B) {
			for b.Loop() {
				sink += k.fn(&key, words).Lo
			}
		})
	}
	b.Run("copy+xxh3", func(b *testing.B) {
		for b.Loop() {
			putWords(msg[keySize:], words)
			sink += xxh3.Hash128(msg).Lo
		}
	})
}
