//go:build amd64 && !purego

package fingerprint

import (
	"unsafe"

	"golang.org/x/sys/cpu"
)

// longKernel reports whether hashKeyedLong may be used on this machine.
var longKernel = cpu.X86.HasAVX2

// hashKeyedLongAVX2 is hashKeyedLong's vector routine (xxh3long_amd64.s). A 512-bit
// form (one vector per stripe) was slower than this one on the development machine in a
// one-off comparison, and was not kept.
//
//go:noescape
func hashKeyedLongAVX2(key *[keySize]byte, rec unsafe.Pointer, recBytes uint64) (lo, hi uint64)
