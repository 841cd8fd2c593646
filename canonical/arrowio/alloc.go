package arrowio

import (
	"fmt"
	"sync/atomic"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/pipewhy/pipewhy/canonical"
)

// DefaultMaxAllocation caps one buffer allocation made while reading. No single Arrow
// buffer larger than a canonical payload can belong to a table whose payload is within
// the 2 GiB limit, except an oversized dictionary, which PipeWhy rejects.
const DefaultMaxAllocation = canonical.MaxPayloadBytes

// DefaultMaxLive caps the bytes held by a reader's allocator at one time.
const DefaultMaxLive = 8 << 30

// LimitedAllocator wraps an allocator and refuses, by panicking with an error that the
// read boundary recovers, any allocation over MaxAlloc bytes or one that would bring the
// live total over MaxLive. Corrupt files can declare huge buffer lengths; without this
// cap a reader would try to allocate them before noticing the file is short.
type LimitedAllocator struct {
	mem      memory.Allocator
	maxAlloc int64
	maxLive  int64
	live     atomic.Int64
}

// NewLimitedAllocator returns a LimitedAllocator over mem (the Go allocator when nil).
func NewLimitedAllocator(mem memory.Allocator, maxAlloc, maxLive int64) *LimitedAllocator {
	if mem == nil {
		mem = memory.NewGoAllocator()
	}
	return &LimitedAllocator{mem: mem, maxAlloc: maxAlloc, maxLive: maxLive}
}

func (a *LimitedAllocator) reserve(size int) {
	n := int64(size)
	if n < 0 || n > a.maxAlloc {
		panic(&allocError{fmt.Errorf("allocation of %d bytes over the %d-byte cap", n, a.maxAlloc)})
	}
	if live := a.live.Add(n); live > a.maxLive {
		a.live.Add(-n)
		panic(&allocError{fmt.Errorf("allocations would hold %d bytes, over the %d-byte cap", live, a.maxLive)})
	}
}

func (a *LimitedAllocator) Allocate(size int) []byte {
	a.reserve(size)
	return a.mem.Allocate(size)
}

func (a *LimitedAllocator) Reallocate(size int, b []byte) []byte {
	a.reserve(size)
	out := a.mem.Reallocate(size, b)
	a.live.Add(-int64(len(b)))
	return out
}

func (a *LimitedAllocator) Free(b []byte) {
	a.live.Add(-int64(len(b)))
	a.mem.Free(b)
}

// allocError is the panic value of a refused allocation; it carries sizes only.
type allocError struct{ error }
