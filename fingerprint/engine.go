package fingerprint

import (
	"context"
	"iter"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/pipewhy/pipewhy/normalize"
)

// Engine computes fingerprints of record batches for one context on all cores.
// An Engine holds only configuration: it is safe to call Run concurrently.
type Engine struct {
	ctx     Context
	opt     Options
	keys    []uint64 // sorted key field ids
	workers int
	chunk   int
	columns bool
}

// NewEngine returns an engine for context c. Invalid options are CodeOptions; bad key
// fields CodeKeyField.
func NewEngine(c Context, o Options) (*Engine, error) {
	if !c.Valid() {
		return nil, newErr("engine", CodeContext, "invalid context")
	}
	if o.Workers < 0 || o.Workers > maxWorkers {
		return nil, newErr("engine", CodeOptions, "workers out of range 0.."+uitoa(maxWorkers))
	}
	if o.Resolution > ValueResolution {
		return nil, newErr("engine", CodeOptions, "unknown resolution")
	}
	if o.ChunkRecords < 0 || o.ChunkRecords > maxChunk {
		return nil, newErr("engine", CodeOptions, "chunk size out of range 0.."+uitoa(maxChunk))
	}
	if o.Offset != 0 && c.Mode() != Ordered {
		return nil, newErr("engine", CodeOptions, "a position offset needs ordered mode")
	}
	if len(o.KeyFields) > 0 && o.Resolution == DatasetResolution {
		return nil, newErr("engine", CodeOptions, "key fields need record or value resolution")
	}
	if o.Select != nil && o.Resolution == DatasetResolution {
		return nil, newErr("engine", CodeOptions, "Select needs record or value resolution")
	}
	e := &Engine{ctx: c, opt: o, workers: o.Workers, chunk: o.ChunkRecords}
	if e.workers == 0 {
		e.workers = runtime.GOMAXPROCS(0)
	}
	if e.chunk == 0 {
		e.chunk = defaultChunk
	}
	e.columns = o.Columns || o.Resolution == ValueResolution
	e.keys = slices.Clone(o.KeyFields)
	slices.Sort(e.keys)
	for i, k := range e.keys {
		if i > 0 && e.keys[i-1] == k {
			return nil, newErr("engine", CodeKeyField, "duplicate key field "+uitoa(k))
		}
		if c.c.fields.index(k) < 0 {
			return nil, newErr("engine", CodeKeyField, "key field "+uitoa(k)+" is not in the schema")
		}
	}
	return e, nil
}

// Result is what a run produces.
//
// Records (record and value resolution) holds one entry of RecordStride words per record,
// [key_lo, key_hi, record_lo, record_hi], sorted ascending by the four words compared in
// that order as unsigned integers. Values (value resolution) holds, for the entries of
// Records in the same order, each record's fields in ascending field id as entries of
// ValueStride words [field_id, value_lo, value_hi]; the fields of record entry i are
// entries ValueOffsets[i] up to ValueOffsets[i+1] (len(ValueOffsets) = records+1).
//
// Origins (Options.Origins, record and value resolution) holds one word per record
// entry, in the order of Records: the ordinal of the input record the entry was
// computed from, counting every record of every batch from 0 in the order Run consumed
// them (batch order, then record order within a batch; Options.Offset does not take
// part). Record j of the run's batch b has ordinal (records of batches 0..b-1) + j.
// Origins is a permutation of 0..records-1 (with Options.Select, the ordinals of the
// selected records, in the order of their entries). Entries whose four words are equal (equal
// records without a declared key) may come in any order of their ordinals.
//
// KeyWords (Options.KeyWords, record and value resolution) holds, for the entries of
// Records in the same order, each entry's key record: the record projected onto the key
// fields, [1, 2, k, key frames in ascending field id] (the whole record when no key
// field is declared), whose digest is the entry's key digest. Entry i's key record is
// KeyWords[KeyOffsets[i]:KeyOffsets[i+1]] (len(KeyOffsets) = records+1, KeyOffsets[0] = 0).
// With Options.KeyStore, Keys holds the same key records in the engine's stores instead,
// and KeyWords and KeyOffsets are nil (Result.Gather makes them).
type Result struct {
	State        State
	Columns      []ColumnState // one per schema field, ascending field id; nil unless asked
	Records      []uint64
	Values       []uint64
	ValueOffsets []uint64
	Origins      []uint64
	KeyWords     []uint64
	KeyOffsets   []uint64
	Keys         *KeyStore
}

// ColumnState is the multiset state of one field's value digests over all records that
// carry the field (Count is that number of records).
type ColumnState struct {
	Field uint64
	State State
}

type task struct {
	ref    *batchRef
	batch  int    // batch index in the run
	lo, hi int    // record range
	pos    uint64 // global position of record lo
}

type batchRef struct {
	b       *normalize.RecordBatch
	pending atomic.Int64 // chunks not yet done
}

// Run consumes batches and returns the fingerprints of all their records. Every batch
// must carry the context's profile identity (else CodeForeignContext) and pass C2
// validation (CodeRecord; with Options.TrustedFrames all of it but payload shapes) and
// the schema (CodeSchemaMismatch). In Ordered mode records
// take global positions Options.Offset, Offset+1, ... in batch order and record order
// within a batch. A batch is read by the workers after the iterator has yielded it, so the
// producer must not modify it until Release reports it done (or Run returns). Run stops
// at the first error, or when ctx is canceled (CodeCanceled).
func (e *Engine) Run(ctx context.Context, batches iter.Seq2[*normalize.RecordBatch, error]) (*Result, error) {
	runCtx, cancel := context.WithCancel(ctx)
	defer cancel()

	var (
		errMu    sync.Mutex
		firstErr error
	)
	fail := func(err error) {
		errMu.Lock()
		if firstErr == nil {
			firstErr = err
		}
		errMu.Unlock()
		cancel()
	}

	tasks := make(chan task, 2*e.workers)
	parts := make([]*partial, e.workers)
	var wg sync.WaitGroup
	for w := range parts {
		p := e.newPartial(w)
		parts[w] = p
		wg.Go(func() {
			for t := range tasks {
				if runCtx.Err() != nil {
					continue // drain after a failure
				}
				if err := p.process(t); err != nil {
					fail(err)
					continue
				}
				if t.ref.pending.Add(-1) == 0 && e.opt.Release != nil {
					e.opt.Release(t.ref.b)
				}
			}
			if runCtx.Err() == nil && e.opt.Resolution >= RecordResolution {
				p.finish()
			}
		})
	}

	pos := e.opt.Offset
	exhausted := false // ordered mode: position MaxUint64 has been used, pos wrapped to 0
	bi := 0
dispatch:
	for b, err := range batches {
		if err != nil {
			fail(wrapErr("run", CodeInput, "batch source failed", err))
			break
		}
		if runCtx.Err() != nil {
			break
		}
		if err := e.checkBatch(b, bi, pos, exhausted); err != nil {
			fail(err)
			break
		}
		n := b.Len()
		if n == 0 {
			if e.opt.Release != nil {
				e.opt.Release(b)
			}
			bi++
			continue
		}
		ref := &batchRef{b: b}
		ref.pending.Store(int64((n + e.chunk - 1) / e.chunk))
		for lo := 0; lo < n; lo += e.chunk {
			hi := min(lo+e.chunk, n)
			select {
			case tasks <- task{ref: ref, batch: bi, lo: lo, hi: hi, pos: pos + uint64(lo)}:
			case <-runCtx.Done():
				break dispatch
			}
		}
		pos += uint64(n)
		exhausted = exhausted || pos == 0
		bi++
	}
	close(tasks)
	wg.Wait()

	if firstErr == nil && ctx.Err() != nil {
		firstErr = wrapErr("run", CodeCanceled, "", ctx.Err())
	}
	if firstErr != nil {
		return nil, firstErr
	}
	return e.merge(parts), nil
}

// checkBatch checks what can be checked once per batch, before its records are split.
func (e *Engine) checkBatch(b *normalize.RecordBatch, bi int, pos uint64, exhausted bool) error {
	fail := func(code Code, msg string, err error) error {
		x := wrapErr("run", code, msg, err)
		x.Batch = bi
		return x
	}
	if b == nil {
		return fail(CodeRecord, "nil batch", nil)
	}
	if b.ProfileID != e.ctx.ProfileID() {
		return fail(CodeForeignContext, "batch profile identity differs from the context's", nil)
	}
	if len(b.Offsets) != len(b.Lengths) {
		return fail(CodeRecord, "offsets and lengths differ in count", nil)
	}
	if e.ctx.Mode() == Ordered && b.Len() > 0 && (exhausted || uint64(b.Len()-1) > ^uint64(0)-pos) {
		return fail(CodePosition, "record positions overflow uint64", nil)
	}
	return nil
}
