//go:build amd64 && !purego

package fingerprint

import (
	"unsafe"

	"golang.org/x/sys/cpu"
)

// longKernel reports whether hashKeyedLong may be used on this machine.
var longKernel = cpu.X86.HasAVX2

// longAVX512 selects the 512-bit form of the routine (one vector per stripe).
var longAVX512 = cpu.X86.HasAVX512F

// hashLong is the routine hashKeyedLong uses on this machine, chosen once.
var hashLong = func() func(*[keySize]byte, unsafe.Pointer, uint64) (uint64, uint64) {
	if longAVX512 {
		return hashKeyedLongAVX512
	}
	return hashKeyedLongAVX2
}()

// hashKeyedLongAVX2 is hashKeyedLong's vector routine (xxh3long_amd64.s).
//
//go:noescape
func hashKeyedLongAVX2(key *[keySize]byte, rec unsafe.Pointer, recBytes uint64) (lo, hi uint64)

// hashKeyedLongAVX512 is hashKeyedLongAVX2 with 512-bit vectors (xxh3long_amd64.s).
//
//go:noescape
func hashKeyedLongAVX512(key *[keySize]byte, rec unsafe.Pointer, recBytes uint64) (lo, hi uint64)
