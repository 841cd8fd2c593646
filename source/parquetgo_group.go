package source

import (
	"context"
	"sync"
	"sync/atomic"

	"github.com/apache/arrow-go/v18/arrow/memory"
)

// groupMem is one decoded row group: its columns' Go buffers, shared by the
// batches cut from it instead of copied into each. It is reused for a later
// row group only when nothing refers to its memory any more: refs counts the
// Arrow buffers over it that are not yet released, plus one while the source
// still cuts batches from it. A batch its caller never releases keeps the
// group out of reuse (the garbage collector frees it then), so a caller that
// keeps batches sees their values unchanged either way.
//
// groupMem is the memory.Allocator of the buffers it hands out: Free, which
// arrow-go calls when a buffer's reference count reaches zero, is the release
// of one reference. Allocate and Reallocate are there for the interface
// (arrow-go never grows an immutable buffer) and allocate Go memory.
type groupMem struct {
	bufs []pgBuf
	refs atomic.Int64
	pool *groupPool
}

// buffer wraps b (memory of g) as an Arrow buffer that holds one reference.
func (g *groupMem) buffer(b []byte) *memory.Buffer {
	g.refs.Add(1)
	return memory.NewBufferWithAllocator(b, g)
}

// release drops one reference; the last one returns g to its pool.
func (g *groupMem) release() {
	switch n := g.refs.Add(-1); {
	case n == 0:
		g.pool.put(g)
	case n < 0:
		panic("source: row group memory released more often than referenced")
	}
}

func (g *groupMem) Allocate(size int) []byte { return make([]byte, size) }

func (g *groupMem) Reallocate(size int, b []byte) []byte {
	if size <= cap(b) {
		return b[:size]
	}
	out := make([]byte, size)
	copy(out, b)
	return out
}

func (g *groupMem) Free([]byte) { g.release() }

// groupPool keeps up to maxIdleGroups released row groups of one source for
// reuse: a reused group's memory is already mapped and warm, where a new one
// would be faulted in and zeroed page by page (tens of MB a row group).
type groupPool struct {
	mu     sync.Mutex
	cols   int
	idle   []*groupMem
	freed  chan struct{} // a token after every put, for a get that waits
	fresh  int           // groups allocated (reported to tests)
	closed bool          // the source is closed: nothing is kept for reuse
}

const maxIdleGroups = 2

func newGroupPool(cols int) groupPool {
	return groupPool{cols: cols, freed: make(chan struct{}, 1)}
}

// get returns an idle group holding the source's reference. When none is
// idle it allocates one, except with wait once most exist: it then waits for
// one to be released (Options.ReleasedPromptly), until ctx ends.
func (p *groupPool) get(ctx context.Context, wait bool, most int) (*groupMem, error) {
	for {
		p.mu.Lock()
		var g *groupMem
		if n := len(p.idle); n > 0 {
			g, p.idle = p.idle[n-1], p.idle[:n-1]
		} else if !wait || p.fresh < most {
			g = &groupMem{bufs: make([]pgBuf, p.cols), pool: p}
			p.fresh++
		}
		p.mu.Unlock()
		if g != nil {
			g.refs.Store(1)
			return g, nil
		}
		select {
		case <-p.freed:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
}

func (p *groupPool) put(g *groupMem) {
	p.mu.Lock()
	if !p.closed && len(p.idle) < maxIdleGroups {
		p.idle = append(p.idle, g)
	}
	p.mu.Unlock()
	select {
	case p.freed <- struct{}{}:
	default: // a token is already waiting
	}
}

// close drops the idle groups and keeps none released later.
func (p *groupPool) close() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.closed, p.idle = true, nil
}
