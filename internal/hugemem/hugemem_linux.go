package hugemem

import (
	"syscall"
	"unsafe"
)

const hugePage = 2 << 20

// Advise marks the 2 MiB-aligned interior of s's backing array, up to its capacity, for
// transparent huge pages. See the package documentation.
func Advise[T any](s []T) {
	var zero T
	size := uintptr(cap(s)) * unsafe.Sizeof(zero)
	if size < hugePage {
		return
	}
	start := uintptr(unsafe.Pointer(unsafe.SliceData(s)))
	lo := (start + hugePage - 1) &^ (hugePage - 1)
	hi := (start + size) &^ (hugePage - 1)
	if hi <= lo {
		return
	}
	b := unsafe.Slice((*byte)(unsafe.Add(unsafe.Pointer(unsafe.SliceData(s)), lo-start)), hi-lo)
	_ = syscall.Madvise(b, syscall.MADV_HUGEPAGE) // advice only: a refusal changes nothing
}
