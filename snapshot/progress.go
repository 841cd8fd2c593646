package snapshot

import "sync/atomic"

// Step names a stage of PublishWithProgress or OpenWithProgress that reports bytes done.
type Step string

// The steps, in the order Publish runs them; Open reads only.
const (
	StepChecksum Step = "checksum" // Publish: SHA-256 of the arrays in memory
	StepWrite    Step = "write"    // Publish: payload files written and fsynced
	StepVerify   Step = "verify"   // Publish: payload files read back and checked
	StepRead     Step = "read"     // Open: payload files read and checked
)

// ProgressFunc receives, during a step, the bytes done of the step's total: once with
// 0 when the step starts, then after each chunk (at most 8 MiB read or hashed, 64 MiB
// written and fsynced). It may be called from several goroutines at once (payloads are
// hashed in parallel), so calls can arrive slightly out of order: the largest done
// seen is the progress. It must be quick and safe for concurrent use.
type ProgressFunc func(step Step, done, total uint64)

// Chunk sizes: variables for tests.
var (
	hashChunk  = 8 << 20  // bytes hashed or read between two progress reports
	writeChunk = 64 << 20 // bytes written and fsynced between two progress reports
)

// meter counts the bytes done of one step for a ProgressFunc. A nil meter counts
// nothing, so the paths without progress pay one nil check per chunk.
type meter struct {
	fn    ProgressFunc
	step  Step
	total uint64
	done  atomic.Uint64
}

// newMeter starts step (reporting 0 of total), or returns nil when fn is nil.
func newMeter(fn ProgressFunc, step Step, total uint64) *meter {
	if fn == nil {
		return nil
	}
	fn(step, 0, total)
	return &meter{fn: fn, step: step, total: total}
}

func (m *meter) add(n int) {
	if m != nil && n > 0 {
		m.fn(m.step, m.done.Add(uint64(n)), m.total)
	}
}
