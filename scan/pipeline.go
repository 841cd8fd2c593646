package scan

import (
	"context"
	"errors"
	"io"
	"iter"
	"sync"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/pipewhy/pipewhy/normalize"
	"github.com/pipewhy/pipewhy/normalize/columnar"
	"github.com/pipewhy/pipewhy/source"
)

// pipeline reads a source and C2-encodes its batches on several goroutines, and hands
// the encoded batches to its consumer (the fingerprint engine's dispatch loop) in source
// order:
//
//	reader (1 goroutine: sources are not concurrent)
//	   │ jobs: Arrow batch + its sequence number and first row   (channel of len(encs))
//	   ▼
//	encoders (one goroutine per columnar.Encoder: an Encoder is not safe for concurrent use)
//	   │ done: encoded batch or encoder error                    (channel of depth)
//	   ▼
//	consumer (the goroutine ranging over batches): puts results back in sequence order
//
// At most depth batches are between the reader's Next and the consumer's yield (a slot
// is taken before each Next and given back at the yield), so memory stays bounded and
// no send on done ever blocks. Since the consumer yields in sequence order, the engine
// sees exactly the batches, batch indexes and record order of a serial read, and the
// first error in source order wins: an encoder error of an earlier batch is reported
// before a read error or an encoder error of a later one. Every Arrow batch is released
// exactly once, by the encoder goroutine that received it (after encoding it, or
// without encoding once the pipeline stops) or by the reader when it could not hand it
// over. When the iteration ends, for any reason, the goroutines are stopped and waited
// for before the iterator returns: none outlives the engine run, and the source is not
// read after it.
type pipeline struct {
	src  source.Source
	encs []*columnar.Encoder
	get  func() *normalize.RecordBatch  // an empty batch to encode into
	put  func(*normalize.RecordBatch)   // hands back a batch that will not be yielded
	kept func(*normalize.RecordBatch)   // nil, or called (consumer goroutine) with each batch before it is yielded
	prog func(rows uint64, cov expects) // nil, or called (consumer goroutine) after each batch, in row order

	// err is the scan error that ended the iteration (read or encode), set by the
	// consumer before it yields the engine an error; nil when the source ended.
	err error
}

// expects is the source's expected row count as its evidence said right after a batch
// was read (read on the reader goroutine, the only one that touches the source).
type expects struct {
	n     uint64
	known bool
}

type job struct {
	seq   int
	rec   arrow.RecordBatch
	first uint64 // 1-based source row of the batch's first row
	rows  uint64 // rows read, this batch included
	cov   expects
}

type encoded struct {
	job
	b   *normalize.RecordBatch // nil when err, or when the pipeline stopped first
	err error                  // the encoder's error
	ok  bool                   // a result is present (reorder ring)
}

// batches returns the encoded batches of p.src in source order. It may be ranged over
// once.
func (p *pipeline) batches(ctx context.Context) iter.Seq2[*normalize.RecordBatch, error] {
	return func(yield func(*normalize.RecordBatch, error) bool) {
		k := len(p.encs)
		depth := 2 * k
		pctx, cancel := context.WithCancel(ctx)
		jobs := make(chan job, k)
		done := make(chan encoded, depth)
		slots := make(chan struct{}, depth)
		var readErr error // written by the reader before it closes jobs
		var wg, encWG sync.WaitGroup
		wg.Go(func() {
			defer close(jobs)
			rows := uint64(0)
			for seq := 0; ; seq++ {
				select {
				case slots <- struct{}{}:
				case <-pctx.Done():
					return
				}
				rec, err := p.src.Next(pctx)
				if err != nil {
					if !errors.Is(err, io.EOF) {
						readErr = err
					}
					return
				}
				j := job{seq: seq, rec: rec, first: rows + 1}
				rows += uint64(rec.NumRows())
				j.rows = rows
				if p.prog != nil {
					cov := p.src.Evidence().Coverage
					j.cov = expects{cov.Expected, cov.ExpectedKnown}
				}
				select {
				case jobs <- j:
				case <-pctx.Done():
					rec.Release()
					return
				}
			}
		})
		for _, enc := range p.encs {
			encWG.Go(func() {
				for j := range jobs {
					r := encoded{job: j}
					if pctx.Err() == nil {
						b := p.get()
						if err := enc.Append(b, j.rec); err != nil {
							p.put(b) // unchanged on error
							r.err = err
						} else {
							r.b = b
						}
					}
					j.rec.Release()
					r.rec = nil
					done <- r // never blocks: at most depth results are pending
				}
			})
		}
		wg.Go(func() {
			encWG.Wait()
			close(done)
		})

		ring := make([]encoded, depth)
		defer func() {
			cancel()
			for _, r := range ring {
				if r.ok && r.b != nil {
					p.put(r.b)
				}
			}
			for r := range done {
				if r.b != nil {
					p.put(r.b)
				}
			}
			wg.Wait()
		}()
		for next := 0; ; next++ {
			for !ring[next%depth].ok {
				r, open := <-done
				if !open {
					// Every batch read was yielded: the reader stopped at batch next.
					if readErr != nil {
						p.err = &Error{Code: CodeSource, Op: "read", Msg: "reading stopped", Err: readErr}
						yield(nil, p.err)
					}
					return
				}
				r.ok = true
				ring[r.seq%depth] = r
			}
			r := ring[next%depth]
			ring[next%depth] = encoded{}
			<-slots
			if r.err != nil {
				p.err = encodeError(r.err, r.first)
				yield(nil, r.err)
				return
			}
			if r.b == nil { // ctx was canceled before this batch was encoded
				p.err = &Error{Code: CodeSource, Op: "read", Msg: "reading stopped", Err: ctx.Err()}
				yield(nil, p.err)
				return
			}
			if p.kept != nil {
				p.kept(r.b)
			}
			if p.prog != nil {
				p.prog(r.rows, r.cov)
			}
			if !yield(r.b, nil) {
				return
			}
		}
	}
}
