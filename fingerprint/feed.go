package fingerprint

import (
	"sync"
	"sync/atomic"

	"github.com/pipewhy/pipewhy/normalize"
)

// A Feed runs an engine on batches that the caller digests on its own goroutines, for a
// producer that makes many small batches and digests each one on the goroutine that
// made it, while its words are still in that core's cache (Run instead hands every batch
// to the engine's workers, which read it from another core or from memory).
//
// A Feed has lanes 0..n-1. Each lane is one accumulator: at any time at most one
// goroutine may call Add with a given lane; different lanes may be used concurrently.
// Result is called once, after every Add has returned. The result equals Run's on the
// same batches in the same order, whatever lanes they went through and in whatever
// order Add was called, provided that every batch is added exactly once and its first
// argument is the ordinal a serial run gives its first record (the number of records of
// all batches before it).
type Feed struct {
	e      *Engine
	parts  []*partial
	failed atomic.Bool
	done   atomic.Bool
}

// NewFeed returns a Feed with n lanes (1 ≤ n ≤ 1024). Options.Workers, ChunkRecords and
// Release do not apply to a Feed.
func (e *Engine) NewFeed(n int) (*Feed, error) {
	if n < 1 || n > maxWorkers {
		return nil, newErr("feed", CodeOptions, "lanes out of range 1.."+uitoa(maxWorkers))
	}
	f := &Feed{e: e, parts: make([]*partial, n)}
	for w := range f.parts {
		f.parts[w] = e.newPartial(w)
	}
	return f, nil
}

// Add digests every record of b on lane w. first is the ordinal of b's first record in
// the run (see Result.Origins; in Ordered mode its position is Options.Offset + first),
// and batch is the index that errors report. Add reads b only during the call and
// retains nothing of it. The checks and error codes are Run's; after an error the Feed
// has no result.
func (f *Feed) Add(w int, b *normalize.RecordBatch, batch int, first uint64) error {
	if f.done.Load() { // before the lanes: Result lets them go
		return newErr("feed", CodeOptions, "Add after Result")
	}
	if w < 0 || w >= len(f.parts) {
		return newErr("feed", CodeOptions, "lane out of range")
	}
	e := f.e
	pos := e.opt.Offset + first
	exhausted := first > ^uint64(0)-e.opt.Offset // Offset + first wrapped past MaxUint64
	if err := e.checkBatch(b, batch, pos, exhausted); err != nil {
		f.failed.Store(true)
		return err
	}
	n := b.Len()
	if n == 0 {
		return nil
	}
	if err := f.parts[w].process(task{ref: &batchRef{b: b}, batch: batch, lo: 0, hi: n, pos: pos}); err != nil {
		f.failed.Store(true)
		return err
	}
	return nil
}

// AddSums adds to lane w the digests of n records that the caller computed itself with
// Columnar, at dataset resolution in Multiset mode (CodeOptions otherwise): records, the
// sum of their record digests, and columns[x], the sum of the value digests (= field
// digests in Multiset mode) of schema field x (ascending id), every record carrying every
// field. It is how a producer that hashes Arrow columns directly (contract §13.7) feeds
// the same result as Add would from the C2 records of those values; the caller answers
// for that equality (Columnar's kernels are tested against the scalar definition).
func (f *Feed) AddSums(w int, n uint64, records Digest, columns []Digest) error {
	if f.done.Load() { // before the lanes: Result lets them go
		return newErr("feed", CodeOptions, "AddSums after Result")
	}
	if w < 0 || w >= len(f.parts) {
		return newErr("feed", CodeOptions, "lane out of range")
	}
	e := f.e
	if e.opt.Resolution != DatasetResolution || e.ctx.Mode() != Multiset || e.ctx.Algorithm() != XXH3Columnar {
		return newErr("feed", CodeOptions, "AddSums needs dataset resolution, Multiset mode and "+XXH3Columnar.ID())
	}
	p := f.parts[w]
	if p.cols != nil && len(columns) != len(p.cols) {
		return newErr("feed", CodeOptions, "one column sum per schema field is needed")
	}
	p.count += n
	p.lanes[0] += records.Lo
	p.lanes[1] += records.Hi
	for x := range p.cols {
		c := &p.cols[x]
		c.count += n
		c.lanes[0] += columns[x].Lo
		c.lanes[1] += columns[x].Hi
	}
	return nil
}

// Result merges the lanes into the run's result. It must be called once, after every
// Add has returned; it fails (CodeInput) when an Add failed.
func (f *Feed) Result() (*Result, error) {
	if f.done.Swap(true) {
		return nil, newErr("feed", CodeOptions, "Result called twice")
	}
	if f.failed.Load() {
		return nil, newErr("feed", CodeInput, "a batch failed")
	}
	if f.e.opt.Resolution >= RecordResolution {
		var wg sync.WaitGroup
		for _, p := range f.parts {
			wg.Go(p.finish)
		}
		wg.Wait()
	}
	r := f.e.merge(f.parts)
	f.parts = nil // what the result needs of them (its key stores) it holds itself
	return r, nil
}
