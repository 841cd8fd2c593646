package fingerprint

import (
	"math/rand/v2"
	"syscall"
	"testing"
	"unsafe"

	"github.com/zeebo/xxh3"
)

// TestHashKeyedLong requires the kernel to equal zeebo/xxh3 over the built message for
// every record length it accepts, with random keys and words.
func TestHashKeyedLong(t *testing.T) {
	if !longKernel {
		t.Skip("no AVX2 kernel on this machine: digests use zeebo/xxh3 only")
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for n := longMinWords; n <= longMaxWords; n++ {
		for range 50 {
			var key [keySize]byte
			for i := range key {
				key[i] = byte(rng.Uint32())
			}
			words := make([]uint64, n)
			for i := range words {
				words[i] = rng.Uint64()
			}
			msg := append(key[:], make([]byte, 8*n)...)
			putWords(msg[keySize:], words)
			want := xxh3.Hash128(msg)
			for _, k := range longKernels() {
				got := k.fn(&key, words)
				if got.Lo != want.Lo || got.Hi != want.Hi {
					t.Fatalf("%s n=%d: kernel %016x%016x, xxh3 %016x%016x", k.name, n, got.Hi, got.Lo, want.Hi, want.Lo)
				}
			}
		}
	}
}

// TestHashKeyedLongBounds places records against an unmapped page on both sides: a read
// outside key or record faults.
func TestHashKeyedLongBounds(t *testing.T) {
	if !longKernel {
		t.Skip("no AVX2 kernel on this machine: digests use zeebo/xxh3 only")
	}
	page := syscall.Getpagesize()
	mem, err := syscall.Mmap(-1, 0, 3*page, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_ANON|syscall.MAP_PRIVATE)
	if err != nil {
		t.Skipf("mmap: %v", err)
	}
	defer syscall.Munmap(mem)
	if err := syscall.Mprotect(mem[:page], syscall.PROT_NONE); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mprotect(mem[2*page:], syscall.PROT_NONE); err != nil {
		t.Fatal(err)
	}
	mid := mem[page : 2*page]
	var key [keySize]byte
	for n := longMinWords; n <= longMaxWords; n++ {
		for _, at := range []int{0, page - 8*n} { // record at the start, then at the end, of the page
			words := unsafe.Slice((*uint64)(unsafe.Pointer(&mid[at])), n)
			for i := range words {
				words[i] = uint64(i) * 0x9e3779b97f4a7c15
			}
			msg := append(key[:], make([]byte, 8*n)...)
			putWords(msg[keySize:], words)
			want := xxh3.Hash128(msg)
			for _, k := range longKernels() {
				if got := k.fn(&key, words); got.Lo != want.Lo || got.Hi != want.Hi {
					t.Fatalf("%s n=%d at %d: digest differs from xxh3", k.name, n, at)
				}
			}
		}
	}
}

type longVariant struct {
	name string
	fn   func(*[keySize]byte, []uint64) Digest
}

// longKernels returns every form of the kernel this machine can run, each forced.
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
