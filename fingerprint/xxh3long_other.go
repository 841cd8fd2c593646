//go:build !amd64 || purego

package fingerprint

import "unsafe"

// longKernel is false: without the amd64 vector routine every message goes through the
// copy and zeebo/xxh3.
const longKernel = false

func hashKeyedLongAVX2(key *[keySize]byte, rec unsafe.Pointer, recBytes uint64) (lo, hi uint64) {
	panic("fingerprint: hashKeyedLongAVX2 without the amd64 kernel")
}
