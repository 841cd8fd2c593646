//go:build unix

package fingerprint

import (
	"syscall"
	"testing"

	"github.com/pipewhy/pipewhy/normalize"
)

// TestStringsPageEnd places text columns of 65 to 176-byte values so that the last
// value ends at the end of a page followed by an unmapped one: the 129–240-byte paths
// (scalar and vector) read whole words from a value's start only where they lie inside
// the data, else a read past the buffer faults.
func TestStringsPageEnd(t *testing.T) {
	page := syscall.Getpagesize()
	mem, err := syscall.Mmap(-1, 0, 2*page, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_ANON|syscall.MAP_PRIVATE)
	if err != nil {
		t.Fatalf("mmap: %v", err) // two anonymous pages: nothing in the environment excuses a failure
	}
	defer syscall.Munmap(mem)
	if err := syscall.Mprotect(mem[page:], syscall.PROT_NONE); err != nil {
		t.Fatal(err)
	}
	c := v2Context(t, Multiset)
	k, err := NewColumnar(c, kernelFields)
	if err != nil {
		t.Fatal(err)
	}
	for n := midTextMin; n <= midTextMax; n++ {
		for _, rows := range []int{8, 9, 16, 17} {
			data := mem[page-rows*n : page]
			offs := make([]int32, rows+1)
			for i := range data {
				data[i] = byte(i*31+n) | 0x80
			}
			for i := range offs {
				offs[i] = int32(i * n)
			}
			tile := NewTile(rows, len(kernelFields))
			if _, err := Strings(k, tile, colText, normalize.Text, offs, data, Validity{}); err != nil {
				t.Fatal(err)
			}
			for i := range rows {
				want := refField(c, frame(kernelFields[colText], normalize.Text, packed(data[offs[i]:offs[i+1]])...))
				if got := tile.Digests[i*tile.Cols+colText]; got != want {
					t.Fatalf("n=%d rows=%d row %d: %x, XXH3-128 %x", n, rows, i, got, want)
				}
			}
		}
	}
}
