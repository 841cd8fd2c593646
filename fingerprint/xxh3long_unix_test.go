//go:build unix

package fingerprint

import (
	"syscall"
	"testing"
	"unsafe"

	"github.com/zeebo/xxh3"

	"github.com/pipewhy/pipewhy/internal/testenv"
)

// TestHashKeyedLongBounds places records against an unmapped page on both sides: a read
// outside key or record faults.
func TestHashKeyedLongBounds(t *testing.T) {
	if !longKernel {
		testenv.Missing(t, testenv.AVX2, "no AVX2 kernel on this machine: digests use zeebo/xxh3 only")
	}
	page := syscall.Getpagesize()
	mem, err := syscall.Mmap(-1, 0, 3*page, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_ANON|syscall.MAP_PRIVATE)
	if err != nil {
		t.Fatalf("mmap: %v", err) // three anonymous pages: nothing in the environment excuses a failure
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
