package scan

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/pipewhy/pipewhy/fingerprint"
	"github.com/pipewhy/pipewhy/normalize"
	"github.com/pipewhy/pipewhy/normalize/columnar"
	"github.com/pipewhy/pipewhy/source"
)

// pipeline reads a source, C2-encodes its batches and digests them on several
// goroutines, each encoder digesting what it has just encoded while the words are in its
// core's cache:
//
//	reader (1 goroutine: sources are not concurrent)
//	   │ jobs: Arrow batch + its sequence number and first row   (channel of depth)
//	   ▼
//	encoders (goroutine w owns columnar.Encoder w and the fingerprint.Feed's lane w):
//	   │ the batch is encoded in tiles of rows that stay in cache, each tile is added to
//	   │ the Feed at once; done: the batch's outcome            (channel of depth)
//	   ▼
//	consumer (run's caller): takes outcomes in sequence order
//
// The reader runs ahead of the encoders by at least 2×len(encs) batches, and by more
// while the batches in flight hold under maxAheadBytes of Arrow buffers (at most
// maxAheadBatches), so that a source that decodes in large units (a Parquet row group)
// keeps the encoders busy while it decodes the next one. A batch is in flight from the
// reader's Next until the consumer takes its outcome, so memory stays bounded and no
// send on jobs or done ever blocks.
//
// The Feed's result does not depend on which encoder digested which tile, since every
// tile is added with the ordinal of its first record in source order. The consumer takes
// outcomes in sequence order, so the first error in source order wins: an error of an
// earlier batch (encode or digest) is reported before a read error or an error of a
// later one; and progress is reported in row order. Every Arrow batch is released
// exactly once, by the encoder goroutine that received it (after encoding it, or without
// encoding once the pipeline stops) or by the reader when it could not hand it over. run
// returns only after every goroutine has returned: none outlives it, and the source is
// not read after it.
type pipeline struct {
	src  source.Source
	encs []*columnar.Encoder
	feed *fingerprint.Feed // lane w belongs to encoder goroutine w
	// spill, when set, takes every tile instead of feed (an out-of-core scan: see
	// spiller); its lanes are feed's.
	spill *spiller
	// newBatch returns an empty batch to encode into.
	newBatch func() *normalize.RecordBatch
	// kept is nil, or called (consumer goroutine) with the encoded tiles of each batch,
	// in source order: the caller then owns them. When nil, each encoder reuses one
	// batch for all its tiles.
	kept func([]*normalize.RecordBatch)
	// fetch is nil, or called by encoder goroutine w with each tile it encoded, right
	// after it was digested (the tile may be reused once it returns).
	fetch func(w int, tile *normalize.RecordBatch)
	prog  func(rows uint64, cov expects) // nil, or called (consumer goroutine) after each batch, in row order
	// direct is nil, or encoder goroutine w's direct path (direct.go): each tile it
	// takes is digested from its Arrow buffers, not encoded (dataset resolution, v2).
	direct []*direct
}

// Read-ahead bounds (see pipeline).
const (
	maxAheadBatches = 256
	maxAheadBytes   = 64 << 20
)

// admission bounds the batches between the reader and the consumer: the reader may read
// another batch while fewer than minN are in flight, or while fewer than maxN are and
// they hold under maxBytes.
type admission struct {
	mu         sync.Mutex
	n          int
	bytes      int64
	minN, maxN int
	maxBytes   int64
	freed      chan struct{} // a token after each give, so that wait checks again
}

func newAdmission(minN, maxN int, maxBytes int64) *admission {
	return &admission{minN: minN, maxN: max(minN, maxN), maxBytes: maxBytes, freed: make(chan struct{}, 1)}
}

func (a *admission) admits() bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.n < a.minN || (a.n < a.maxN && a.bytes < a.maxBytes)
}

// wait blocks until another batch may be read; false when ctx ended first.
func (a *admission) wait(ctx context.Context) bool {
	for !a.admits() {
		select {
		case <-a.freed:
		case <-ctx.Done():
			return false
		}
	}
	return ctx.Err() == nil
}

// take counts a batch read; give, one whose outcome the consumer took.
func (a *admission) take(bytes int64) {
	a.mu.Lock()
	a.n++
	a.bytes += bytes
	a.mu.Unlock()
}

func (a *admission) give(bytes int64) {
	a.mu.Lock()
	a.n--
	a.bytes -= bytes
	a.mu.Unlock()
	select {
	case a.freed <- struct{}{}:
	default:
	}
}

// batchBytes is the size of the buffers rec references (whole buffers, also where rec
// is a slice of them).
func batchBytes(rec arrow.RecordBatch) int64 {
	var n int64
	for _, c := range rec.Columns() {
		n += dataBytes(c.Data())
	}
	return n
}

func dataBytes(d arrow.ArrayData) int64 {
	var n int64
	for _, b := range d.Buffers() {
		if b != nil {
			n += int64(b.Len())
		}
	}
	for _, c := range d.Children() {
		n += dataBytes(c)
	}
	if dict, ok := d.Dictionary().(*array.Data); ok && dict != nil { // an interface holding a nil *Data without one
		n += dataBytes(dict)
	}
	return n
}

// Tile sizes: a tile aims at tileWords words (a quarter of a 2 MiB L2 cache), within
// minTileRows..maxTileRows rows; the first tile of each encoder has firstTileRows rows.
// Variables so that tests can make tiles tiny.
var (
	tileWords     = 64 << 10
	minTileRows   = 64
	maxTileRows   = 16 << 10
	firstTileRows = 1 << 10
)

// expects is the source's expected row count as its evidence said right after a batch
// was read (read on the reader goroutine, the only one that touches the source), and
// for a source that reads a file, the bytes of it read and its size (size 0 otherwise).
type expects struct {
	n          uint64
	known      bool
	read, size uint64
}

type job struct {
	seq   int
	rec   arrow.RecordBatch
	first uint64 // 1-based source row of the batch's first row
	rows  uint64 // rows read, this batch included
	bytes int64  // the Arrow batch's buffer bytes (admission)
	cov   expects
}

type outcome struct {
	job
	tiles []*normalize.RecordBatch // the encoded tiles, when kept
	err   error                    // a scan *Error: encode or digest
	ran   bool                     // the batch was encoded and digested (false: the pipeline stopped first)
	ok    bool                     // an outcome is present (reorder ring)
}

// run reads, encodes and digests the whole source. The error is a scan *Error.
func (p *pipeline) run(ctx context.Context) error {
	k := len(p.encs)
	adm := newAdmission(2*k, maxAheadBatches, maxAheadBytes)
	depth := adm.maxN
	pctx, cancel := context.WithCancel(ctx)
	defer cancel()
	jobs := make(chan job, depth)
	done := make(chan outcome, depth)
	var readErr error // written by the reader before it closes jobs
	var wg, encWG sync.WaitGroup
	wg.Go(func() {
		defer close(jobs)
		rows := uint64(0)
		for seq := 0; ; seq++ {
			if !adm.wait(pctx) {
				return
			}
			rec, err := p.src.Next(pctx)
			if err != nil {
				if !errors.Is(err, io.EOF) {
					readErr = err
				}
				return
			}
			j := job{seq: seq, rec: rec, first: rows + 1, bytes: batchBytes(rec)}
			adm.take(j.bytes)
			rows += uint64(rec.NumRows())
			j.rows = rows
			if p.prog != nil {
				cov := p.src.Evidence().Coverage
				j.cov = expects{n: cov.Expected, known: cov.ExpectedKnown}
				if fp, ok := p.src.(source.FileProgress); ok {
					j.cov.read, j.cov.size = fp.BytesRead()
				}
			}
			select {
			case jobs <- j:
			case <-pctx.Done():
				rec.Release()
				return
			}
		}
	})
	for w := range p.encs {
		encWG.Go(func() {
			t := tiler{p: p, w: w, rows: firstTileRows}
			for j := range jobs {
				r := outcome{job: j}
				if pctx.Err() == nil {
					r.tiles, r.err = t.batch(pctx, j)
					r.ran = r.err == nil && pctx.Err() == nil
				}
				j.rec.Release()
				r.rec = nil
				done <- r // never blocks: at most depth outcomes are pending
			}
		})
	}
	wg.Go(func() {
		encWG.Wait()
		close(done)
	})
	defer wg.Wait()

	ring := make([]outcome, depth)
	for next := 0; ; next++ {
		for !ring[next%depth].ok {
			r, open := <-done
			if !open {
				// Every batch read was taken: the reader stopped at batch next.
				if readErr != nil {
					return &Error{Code: CodeSource, Op: "read", Msg: "reading stopped", Err: readErr}
				}
				if ctx.Err() != nil {
					return &Error{Code: CodeSource, Op: "read", Msg: "reading stopped", Err: ctx.Err()}
				}
				return nil
			}
			r.ok = true
			ring[r.seq%depth] = r
		}
		r := ring[next%depth]
		ring[next%depth] = outcome{}
		adm.give(r.bytes)
		if r.err != nil {
			cancel()
			return r.err
		}
		if !r.ran { // ctx was canceled before this batch was digested
			cancel()
			return &Error{Code: CodeSource, Op: "read", Msg: "reading stopped", Err: ctx.Err()}
		}
		if p.kept != nil {
			p.kept(r.tiles)
		}
		if p.prog != nil {
			p.prog(r.rows, r.cov)
		}
	}
}

// tiler is one encoder goroutine's state: its lane, its reused batch and the tile size it
// has learned from the words per row of the tiles it encoded.
type tiler struct {
	p    *pipeline
	w    int
	own  *normalize.RecordBatch // reused for every tile when tiles are not kept
	rows int                    // rows of the next tile
}

// direct digests rows lo..hi of j's batch, rec, through the encoder goroutine's direct
// path; done is false when rec must take the general path.
func (t *tiler) direct(rec arrow.RecordBatch, j job, lo, hi int) (done bool, err error) {
	p := t.p
	d := p.direct[t.w]
	n, sum, cols, ok, encErr, fpErr := d.digest(rec)
	switch {
	case !ok:
		return false, nil
	case encErr != nil:
		return true, encodeError(encErr, j.first+uint64(lo))
	case fpErr != nil:
		return true, &Error{Code: CodeFingerprint, Op: "fingerprint", Msg: fmt.Sprintf("digesting the batch from source row %d", j.first+uint64(lo)), Err: fpErr}
	}
	if err := p.feed.AddSums(t.w, uint64(n), sum, cols); err != nil {
		return true, &Error{Code: CodeFingerprint, Op: "fingerprint", Msg: fmt.Sprintf("digesting the batch from source row %d", j.first+uint64(lo)), Err: err}
	}
	// A tile of field digests of about tileWords words.
	t.rows = min(max(tileWords/max(2*len(d.cols), 1), minTileRows), maxTileRows)
	return true, nil
}

// batch encodes and digests the Arrow batch of j in tiles. It returns the tiles when the
// pipeline keeps them.
func (t *tiler) batch(ctx context.Context, j job) ([]*normalize.RecordBatch, error) {
	p := t.p
	n := int(j.rec.NumRows())
	var tiles []*normalize.RecordBatch
	for lo := 0; lo < n && ctx.Err() == nil; {
		hi := min(lo+t.rows, n)
		rec := j.rec
		if lo > 0 || hi < n {
			rec = j.rec.NewSlice(int64(lo), int64(hi))
		}
		if p.direct != nil {
			done, err := t.direct(rec, j, lo, hi)
			if done || err != nil {
				if rec != j.rec {
					rec.Release()
				}
				if err != nil {
					return nil, err
				}
				lo = hi
				continue
			}
		}
		b := t.own
		if p.kept != nil || b == nil {
			b = p.newBatch()
		}
		if p.kept == nil {
			t.own = b
		}
		b.Words, b.Offsets, b.Lengths = b.Words[:0], b.Offsets[:0], b.Lengths[:0]
		err := p.encs[t.w].Append(b, rec)
		if rec != j.rec {
			rec.Release()
		}
		if err != nil {
			return nil, encodeError(err, j.first+uint64(lo))
		}
		if p.spill != nil {
			if err := p.spill.add(t.w, b, j.seq, j.first-1+uint64(lo)); err != nil {
				return nil, err
			}
		} else if err := p.feed.Add(t.w, b, j.seq, j.first-1+uint64(lo)); err != nil {
			return nil, &Error{Code: CodeFingerprint, Op: "fingerprint", Msg: fmt.Sprintf("digesting the batch from source row %d", j.first+uint64(lo)), Err: err}
		}
		if p.fetch != nil {
			p.fetch(t.w, b)
		}
		if p.kept != nil {
			tiles = append(tiles, b)
		}
		// Aim the next tile at tileWords words (hi > lo: a tile has at least one row).
		t.rows = min(max(tileWords/max(len(b.Words)/(hi-lo), 1), minTileRows), maxTileRows)
		lo = hi
	}
	return tiles, nil
}
