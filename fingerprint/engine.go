package fingerprint

import (
	"context"
	"iter"
	"math/bits"
	"runtime"
	"slices"
	"sort"
	"sync"
	"sync/atomic"

	"github.com/pipewhy/pipewhy/internal/hugemem"
	"github.com/pipewhy/pipewhy/normalize"
)

// Resolution selects how much an Engine run produces.
type Resolution uint8

const (
	// DatasetResolution produces the dataset State (and column states when asked).
	DatasetResolution Resolution = iota
	// RecordResolution adds the sorted (key digest, record digest) pairs.
	RecordResolution
	// ValueResolution adds per-field value digests of every record, and column states.
	ValueResolution
)

func (r Resolution) String() string {
	switch r {
	case DatasetResolution:
		return "dataset"
	case RecordResolution:
		return "record"
	case ValueResolution:
		return "value"
	}
	return "Resolution(" + uitoa(uint64(r)) + ")"
}

// Array strides of a Result.
const (
	// RecordStride is the words per record entry: key_lo, key_hi, record_lo, record_hi.
	RecordStride = 4
	// ValueStride is the words per value entry: field_id, value_lo, value_hi.
	ValueStride = 3
)

// Options configure an Engine. The zero Options run at dataset resolution on
// GOMAXPROCS workers.
type Options struct {
	// Workers is the number of goroutines digesting records; 0 means GOMAXPROCS.
	// Results never depend on it.
	Workers int
	// Resolution is what the run produces; see Result.
	Resolution Resolution
	// Columns asks for per-field column states at any resolution (always produced at
	// ValueResolution, where the value digests exist anyway).
	Columns bool
	// KeyFields are the field ids whose frames form a record's key (record and value
	// resolution only). Each must be in the schema and present in every record. Empty means
	// the whole record is its key.
	KeyFields []uint64
	// Offset is the global position of the first record of the run (Ordered mode only):
	// a partition fingerprinted with its offset merges into the one-pass result.
	Offset uint64
	// ChunkRecords is the number of records per unit of work; 0 means 4096. Results never
	// depend on it.
	ChunkRecords int
	// Release, if set, is called once for each batch the engine has completely read (from
	// Run's goroutine or a worker's), so that a producer can recycle its buffers. Whether or not it
	// was called, the engine reads no batch after Run returns and retains none.
	Release func(*normalize.RecordBatch)
	// Origins asks for Result.Origins (record and value resolution only): for every
	// record entry, which input record it came from.
	Origins bool
	// KeyWords asks for Result.KeyWords and Result.KeyOffsets (record and value resolution
	// only): every entry's key record, the words its key digest was computed from, so
	// that a caller need not keep the batches to know the keys.
	KeyWords bool
	// TrustedFrames skips the C2 payload-shape validation of each record: set it only
	// for batches produced by normalize/columnar.Encoder or normalize.AppendRecord, whose
	// words are valid C2 frames by construction (columnar's property tests compare it with
	// the scalar encoder, which validates). What is skipped is only the check that each
	// payload has the word count its type code's layout requires (text and bytes byte
	// counts, decimal coefficient counts, timestamp zone-name lengths, fixed widths).
	// Everything the engine itself relies on to read a record safely is still checked on
	// every record, in the same single walk over its frames that digests it: the record
	// slice lies inside the word pool; the header is [1, 2, field_count]; every field
	// header and payload lies inside the record; field ids strictly increase and are in
	// the schema; each type code is one the profile (v1 or extension) and the field's
	// schema type admit; the key fields are present; the frames end exactly at the record
	// end and their number is field_count. A malformed record is therefore still an error
	// (CodeRecord, CodeSchemaMismatch or CodeKeyField), never a panic or an out-of-range
	// read; only a frame whose payload shape is wrong but whose bounds are right is
	// digested as it is instead of being refused. Results of valid records do not depend
	// on it.
	TrustedFrames bool
	// Select, when set (record and value resolution), keeps the entries (and their key
	// words, values and origins) of only the records whose key digest it accepts; every
	// record still counts in the state and the column states. It is called from the
	// worker goroutines, concurrently. A second pass over data whose differences a
	// first pass found at record resolution looks at those records only, in as much
	// memory as they need. Without it, the state's lanes are the sums of the entries'
	// record words (and the column states of the value entries); with it, only of the
	// selected ones.
	Select func(key Digest) bool
}

const (
	defaultChunk = 4096
	maxChunk     = 1 << 30
	maxWorkers   = 1024
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
type Result struct {
	State        State
	Columns      []ColumnState // one per schema field, ascending field id; nil unless asked
	Records      []uint64
	Values       []uint64
	ValueOffsets []uint64
	Origins      []uint64
	KeyWords     []uint64
	KeyOffsets   []uint64
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

// entry is one record's record-resolution output, before the final sort and merge.
type entry struct {
	key, rec Digest
	ref      uint64 // worker index << 48 | record index within that worker's entries
}

const refShift = 48

func compareEntries(a, b entry) int {
	switch {
	case a.key.Lo != b.key.Lo:
		return cmpU64(a.key.Lo, b.key.Lo)
	case a.key.Hi != b.key.Hi:
		return cmpU64(a.key.Hi, b.key.Hi)
	case a.rec.Lo != b.rec.Lo:
		return cmpU64(a.rec.Lo, b.rec.Lo)
	}
	return cmpU64(a.rec.Hi, b.rec.Hi)
}

// sortEntries returns the n entries of blocks sorted by compareEntries. Digests are
// uniform, so a two-level radix scatter on the top bits of key.Lo leaves buckets of a few
// entries, finished by insertion sort. The first level has 256 buckets (sequential write
// streams out of the blocks); the second splits each first-level bucket, which fits in
// cache, into about 4 entries per bucket. Skewed keys (many equal keys) only make some
// buckets larger; those fall back to pdqsort.
func sortEntries(blocks [][]entry, n int) []entry {
	out := make([]entry, n)
	hugemem.Advise(out)
	if n < 1<<10 {
		out = out[:0]
		for _, bl := range blocks {
			out = append(out, bl...)
		}
		slices.SortFunc(out, compareEntries)
		return out
	}
	const top = 8
	var count [1<<top + 1]int
	for _, bl := range blocks {
		for i := range bl {
			count[bl[i].key.Lo>>(64-top)+1]++
		}
	}
	for b := 1; b < len(count); b++ {
		count[b] += count[b-1]
	}
	next := count
	for _, bl := range blocks {
		for i := range bl {
			b := bl[i].key.Lo >> (64 - top)
			out[next[b]] = bl[i]
			next[b]++
		}
	}
	var tmp []entry
	var sub []int
	for b := 0; b < 1<<top; b++ {
		es := out[count[b]:count[b+1]]
		if len(es) <= 16 {
			insertionSort(es)
			continue
		}
		// Second level: the next sb bits below the top 8.
		sb := min(bits.Len(uint(len(es)))-2, 16)
		shift := 64 - top - sb
		mask := uint64(1)<<sb - 1
		sub = slices.Grow(sub[:0], 1<<sb+1)[:1<<sb+1]
		clear(sub)
		for i := range es {
			sub[es[i].key.Lo>>shift&mask+1]++
		}
		for k := 1; k < len(sub); k++ {
			sub[k] += sub[k-1]
		}
		tmp = slices.Grow(tmp[:0], len(es))[:len(es)]
		for i := range es {
			k := es[i].key.Lo >> shift & mask
			tmp[sub[k]] = es[i]
			sub[k]++
		}
		// sub[k] is now the end of bucket k; bucket k starts at sub[k-1] (0 for k = 0).
		start := 0
		for k := 0; k < 1<<sb; k++ {
			g := tmp[start:sub[k]]
			if len(g) > 16 {
				slices.SortFunc(g, compareEntries)
			} else {
				insertionSort(g)
			}
			start = sub[k]
		}
		copy(es, tmp)
	}
	return out
}

func insertionSort(es []entry) {
	for i := 1; i < len(es); i++ {
		for j := i; j > 0 && compareEntries(es[j], es[j-1]) < 0; j-- {
			es[j], es[j-1] = es[j-1], es[j]
		}
	}
}

func cmpU64(a, b uint64) int {
	if a < b {
		return -1
	}
	if a > b {
		return 1
	}
	return 0
}

// colAcc accumulates one column's state.
type colAcc struct {
	count uint64
	lanes [maxLanes]uint64
}

// partial is one worker's accumulator; only that worker touches it until the merge.
type partial struct {
	e      *Engine
	index  int
	h      *hasher
	count  uint64
	lanes  [maxLanes]uint64
	cols   []colAcc
	blocks [][]entry // record entries in append order, in fixed-size blocks (no regrowth copies)
	nrecs  int       // entries in blocks
	recs   []entry   // after the run: all entries, sorted
	ords   blockList // Options.Origins: the run ordinal of each of recs, in append order
	keys   wordStore // Options.KeyWords: the key record of each of recs, in append order
	vals   wordStore // value resolution: the value entries of each of recs, in append order
	valBuf []uint64  // the current record's value entries
	keyBuf []uint64
	keyAt  []int // frame start of each key field in the current record
}

func (e *Engine) newPartial(index int) *partial {
	p := &partial{e: e, index: index, h: newHasher(e.ctx)}
	p.keys.framed = true // key records are C2 records (see wordStore)
	if e.columns {
		p.cols = make([]colAcc, len(e.ctx.c.schema.Fields))
	}
	p.keyAt = make([]int, len(e.keys))
	return p
}

// finish ends a record- or value-resolution partial after its last record: it sorts
// the entries for the merge.
func (p *partial) finish() {
	p.recs = sortEntries(p.blocks, p.nrecs)
	p.blocks = nil
}

// process digests the records of one task. It allocates nothing per record at dataset
// resolution; at record and value resolution only the amortized growth of its output.
func (p *partial) process(t task) error {
	e := p.e
	b := t.ref.b
	words := b.Words
	pool := uint64(len(words))
	ordered := p.h.ordered
	fields := e.ctx.c.fields
	wantRecs := e.opt.Resolution >= RecordResolution
	wantVals := e.opt.Resolution == ValueResolution
	keys := e.keys
	trusted := e.opt.TrustedFrames
	maxTag := uint64(normalize.Timestamp) // the v1 type codes 0..9
	if e.ctx.c.ext {
		maxTag = uint64(normalize.Nested) // and the extension 1 codes 10..14
	}
	for i := t.lo; i < t.hi; i++ {
		fail := func(code Code, msg string, err error) error { return recordErr(t.batch, i, code, msg, err) }
		off, n := b.Offsets[i], b.Lengths[i]
		if off > pool || n > pool-off {
			return fail(CodeRecord, "record slice leaves the word pool", nil)
		}
		rec := words[off : off+n : off+n]
		if !trusted {
			if err := e.ctx.c.validateRecord(rec); err != nil {
				return fail(CodeRecord, "", err)
			}
		} else if len(rec) < 3 || rec[0] != normalize.WireVersion || rec[1] != normalize.RecordDomain {
			return fail(CodeRecord, "record header is not [1, 2, field_count]", nil)
		}
		pos := t.pos + uint64(i-t.lo)
		p.valBuf = p.valBuf[:0]
		ki := 0
		nf, prev := uint64(0), uint64(0)
		for f := 3; f < len(rec); {
			if trusted {
				// The framing checks of validateRecord, minus payload shapes: after them
				// every index below lies inside rec. (Untrusted records were validated
				// whole above.)
				if len(rec)-f < 3 || rec[f+2] > uint64(len(rec)-f-3) {
					return fail(CodeRecord, "field frame runs past the record end", nil)
				}
				if nf > 0 && rec[f] <= prev {
					return fail(CodeRecord, "field ids do not increase", nil)
				}
				if rec[f+1] > maxTag {
					return fail(CodeRecord, "unknown type code", nil)
				}
				prev = rec[f]
				nf++
			}
			id, tag, end := rec[f], rec[f+1], f+3+int(rec[f+2])
			x := fields.index(id)
			if x < 0 {
				return fail(CodeSchemaMismatch, "field "+uitoa(id)+" is not in the schema", nil)
			}
			if fields.tags[x]&(1<<tag) == 0 {
				return fail(CodeSchemaMismatch, "field "+uitoa(id)+" has a type code its schema type does not admit", nil)
			}
			if p.cols != nil {
				d := p.h.digest(ordered, pos, rec[f:end])
				c := &p.cols[x]
				c.count++
				c.lanes[0] += d.Lo
				c.lanes[1] += d.Hi
				if wantVals {
					p.valBuf = append(p.valBuf, id, d.Lo, d.Hi)
				}
			}
			if ki < len(keys) {
				if keys[ki] < id {
					return fail(CodeKeyField, "record lacks key field "+uitoa(keys[ki]), nil)
				}
				if keys[ki] == id {
					p.keyAt[ki] = f
					ki++
				}
			}
			f = end
		}
		if trusted && nf != rec[2] {
			return fail(CodeRecord, "field count differs from the frames", nil)
		}
		if ki < len(keys) {
			return fail(CodeKeyField, "record lacks key field "+uitoa(keys[ki]), nil)
		}
		d := p.h.record(pos, rec)
		p.count++
		p.lanes[0] += d.Lo
		p.lanes[1] += d.Hi
		if wantRecs {
			k := p.key(rec, d)
			if sel := e.opt.Select; sel != nil && !sel(k) {
				continue
			}
			if e.opt.Origins {
				p.ords.add(pos - e.opt.Offset)
			}
			if e.opt.KeyWords {
				if len(keys) == 0 {
					p.keys.add(rec)
				} else {
					p.keys.add(p.keyBuf) // p.key projected rec into it
				}
			}
			if wantVals {
				p.vals.add(p.valBuf)
			}
			p.addEntry(entry{key: k, rec: d, ref: uint64(p.index)<<refShift | uint64(p.nrecs)})
		}
	}
	return nil
}

// A worker's entries go into blocks that double from blockEntries up to maxBlockEntries
// entries (no regrowth copies); the large ones are advised for huge pages, which they
// fill as they are written (a 10 M-row scan writes 400 MB of entries: 100 k page faults
// in 4 KiB pages). Variables for tests.
var (
	blockEntries    = 1 << 14
	maxBlockEntries = 1 << 20
)

func (p *partial) addEntry(en entry) {
	n := len(p.blocks)
	if n == 0 || len(p.blocks[n-1]) == cap(p.blocks[n-1]) {
		size := blockEntries
		if n > 0 {
			size = min(2*cap(p.blocks[n-1]), maxBlockEntries)
		}
		b := make([]entry, 0, size)
		hugemem.Advise(b)
		p.blocks = append(p.blocks, b)
		n++
	}
	last := &p.blocks[n-1]
	*last = append(*last, en)
	p.nrecs++
}

// blockList is an append-only list of words in blocks that double in size (the first
// holds listBase words): no regrowth copies, at most twice the words in use, and the
// large blocks are advised for huge pages (the merge reads them at random).
type blockList struct {
	blocks [][]uint64
	n      int
}

const listBase = 1 << 12

func (l *blockList) add(x uint64) {
	b := len(l.blocks)
	if b == 0 || len(l.blocks[b-1]) == cap(l.blocks[b-1]) {
		nb := make([]uint64, 0, listBase<<b)
		hugemem.Advise(nb)
		l.blocks = append(l.blocks, nb)
		b++
	}
	last := &l.blocks[b-1]
	*last = append(*last, x)
	l.n++
}

// at returns word j. Block b starts at word listBase·(2^b − 1).
func (l *blockList) at(j uint64) uint64 {
	b := bits.Len64(j/listBase+1) - 1
	return l.blocks[b][j-listBase*(1<<b-1)]
}

// wordStore keeps variable-length runs of words (a record's key record, or its value
// entries) in chunks that double in size from keyChunkMin words up to keyChunkMax, each
// run whole inside one chunk; a run of bigKey words or more gets a chunk of its own.
// Nothing is copied as it grows, and the large chunks are advised for huge pages. One
// word per run locates it (one random read in the merge, not two):
//
//	chunk index << 40 | offset in the chunk << 16 | length   (length < bigKey)
//	chunk index << 40 | bigKey                               (the whole chunk)
//
// A store of C2 records (framed: key records) keeps its first run as a template, and a
// later run that equals the template outside its frames' payload words is kept as those
// payload words alone, its location word marked with templated: a key of one int64
// field is 7 words, of which 6 are the same in every record (10 M keys: 80 instead of
// 560 MB). copyRun writes any run back whole.
type wordStore struct {
	chunks [][]uint64
	where  blockList
	total  int // words in all runs, whole

	framed  bool
	tmpl    []uint64 // the first run (framed), or nil
	payload []int    // the positions of tmpl's payload words; nil: no template
}

const (
	keyChunkMin = 1 << 12
	keyChunkMax = 1 << 22 // offsets within a chunk fit 24 bits
	bigKey      = 1<<16 - 1
	templated   = 1 << 63 // location of a run kept as its payload words (chunk index < 2^23)
)

func (s *wordStore) add(k []uint64) {
	if s.framed && s.tmpl == nil && len(k) < bigKey {
		s.tmpl, s.payload = slices.Clone(k), payloadPositions(k)
	}
	if s.payload != nil && s.matches(k) {
		s.total += len(k)
		w := s.put(len(s.payload), func(dst []uint64) {
			for i, p := range s.payload {
				dst[i] = k[p]
			}
		})
		s.where.add(w | templated)
		return
	}
	s.total += len(k)
	s.where.add(s.put(len(k), func(dst []uint64) { copy(dst, k) }))
}

// put appends a run of n words, written by fill, and returns its location word.
func (s *wordStore) put(n int, fill func([]uint64)) uint64 {
	c := len(s.chunks)
	if n >= bigKey {
		run := make([]uint64, n) // full: no later run shares it
		fill(run)
		s.chunks = append(s.chunks, run)
		return uint64(c)<<40 | bigKey
	}
	if c == 0 || cap(s.chunks[c-1])-len(s.chunks[c-1]) < n {
		size := keyChunkMin
		if c > 0 {
			size = min(2*cap(s.chunks[c-1]), keyChunkMax)
		}
		size = max(size, n)
		nc := make([]uint64, 0, size)
		hugemem.Advise(nc)
		s.chunks = append(s.chunks, nc)
		c++
	}
	ch := &s.chunks[c-1]
	off := len(*ch)
	*ch = (*ch)[:off+n]
	fill((*ch)[off:])
	return uint64(c-1)<<40 | uint64(off)<<16 | uint64(n)
}

// matches reports whether k equals the template outside its payload positions.
func (s *wordStore) matches(k []uint64) bool {
	if len(k) != len(s.tmpl) {
		return false
	}
	from := 0
	for _, p := range s.payload {
		if !slices.Equal(k[from:p], s.tmpl[from:p]) {
			return false
		}
		from = p + 1
	}
	return slices.Equal(k[from:], s.tmpl[from:])
}

// payloadPositions returns the positions of the payload words of the C2 record rec's
// frames, or nil when rec has none or is not a well-formed record (no template then).
func payloadPositions(rec []uint64) []int {
	if len(rec) < 3 {
		return nil
	}
	var ps []int
	for f := 3; f < len(rec); {
		if len(rec)-f < 3 || rec[f+2] > uint64(len(rec)-f-3) {
			return nil
		}
		end := f + 3 + int(rec[f+2])
		for p := f + 3; p < end; p++ {
			ps = append(ps, p)
		}
		f = end
	}
	return ps
}

// at returns run j, whole (a copy when it was kept as payload words).
func (s *wordStore) at(j uint64) []uint64 {
	w := s.where.at(j)
	if w&templated != 0 {
		out := make([]uint64, len(s.tmpl))
		s.copyRun(out, w)
		return out
	}
	return s.get(w)
}

// size returns the whole length of the run at location w (a word of where).
func (s *wordStore) size(w uint64) int {
	if w&templated != 0 {
		return len(s.tmpl)
	}
	if size := w & 0xffff; size != bigKey {
		return int(size)
	}
	return len(s.chunks[w>>40])
}

// copyRun writes the run at location w, whole, to dst and returns its length.
func (s *wordStore) copyRun(dst []uint64, w uint64) int {
	if w&templated == 0 {
		return copy(dst, s.get(w))
	}
	n := copy(dst, s.tmpl)
	for i, x := range s.get(w &^ templated) {
		dst[s.payload[i]] = x
	}
	return n
}

// get returns the stored words at location w (not templated).
func (s *wordStore) get(w uint64) []uint64 {
	c := s.chunks[w>>40]
	size := w & 0xffff
	if size == bigKey {
		return c
	}
	off := w >> 16 & (1<<24 - 1)
	return c[off : off+size]
}

// recordErr is the error of record i of batch bi.
func recordErr(bi, i int, code Code, msg string, err error) error {
	x := wrapErr("run", code, msg, err)
	x.Batch, x.Record = bi, i
	return x
}

// key returns the key digest of rec: the digest (never positional) of the record projected
// onto the key fields, [1, 2, k, key frames...]; with no key fields, of the whole record.
// d is rec's record digest, reused when it already is the key digest.
func (p *partial) key(rec []uint64, d Digest) Digest {
	keys := p.e.keys
	if len(keys) == 0 {
		if !p.h.ordered {
			return d
		}
		return p.h.digest(false, 0, rec)
	}
	kb := append(p.keyBuf[:0], normalize.WireVersion, normalize.RecordDomain, uint64(len(keys)))
	for _, f := range p.keyAt {
		kb = append(kb, rec[f:f+3+int(rec[f+2])]...)
	}
	p.keyBuf = kb
	return p.h.digest(false, 0, kb)
}

// merge sums the partial states and merges the sorted record entries. Sums commute, and
// the entries are totally ordered by their words, so the result does not depend on how
// records were spread over workers.
func (e *Engine) merge(parts []*partial) *Result {
	r := &Result{State: NewState(e.ctx)}
	for _, p := range parts {
		r.State.count += p.count
		for i := range p.lanes {
			r.State.lanes[i] += p.lanes[i]
		}
	}
	if e.columns {
		fields := e.ctx.c.schema.Fields
		r.Columns = make([]ColumnState, len(fields))
		for x, f := range fields {
			s := NewState(e.ctx)
			for _, p := range parts {
				c := &p.cols[x]
				s.count += c.count
				for i := range c.lanes {
					s.lanes[i] += c.lanes[i]
				}
			}
			r.Columns[x] = ColumnState{Field: f.ID, State: s}
		}
	}
	if e.opt.Resolution < RecordResolution {
		return r
	}
	total, nvals, kw := 0, 0, 0
	for _, p := range parts {
		total += len(p.recs)
		nvals += p.vals.total
		kw += p.keys.total
	}
	wantVals := e.opt.Resolution == ValueResolution
	r.Records = make([]uint64, total*RecordStride)
	hugemem.Advise(r.Records)
	if wantVals {
		r.Values = make([]uint64, nvals)
		r.ValueOffsets = make([]uint64, total+1)
		hugemem.Advise(r.Values)
		hugemem.Advise(r.ValueOffsets)
	}
	if e.opt.Origins {
		r.Origins = make([]uint64, total)
		hugemem.Advise(r.Origins)
	}
	if e.opt.KeyWords {
		r.KeyWords = make([]uint64, kw)
		r.KeyOffsets = make([]uint64, total+1)
		hugemem.Advise(r.KeyWords)
		hugemem.Advise(r.KeyOffsets)
	}
	// The merge runs on segments of the key space in parallel: the entries below
	// pivots taken from the largest worker's entries, cut out of every worker's sorted
	// entries by binary search. Entries equal to a pivot all fall in the segment it
	// starts, so each segment's merge order is the serial merge's. A segment knows where
	// its records start (the entries before it); where its value and key words start, it
	// learns in a first pass, so that every segment writes its part of each output in
	// place.
	segs := e.segments(parts, total)
	var wg sync.WaitGroup
	for i := range segs {
		wg.Go(func() { segs[i].order(parts, r) })
	}
	wg.Wait()
	valAt, keyAt := 0, 0
	for i := range segs {
		segs[i].valAt, segs[i].keyAt = valAt, keyAt
		valAt += segs[i].valWords
		keyAt += segs[i].keyWords
	}
	for i := range segs {
		wg.Go(func() { segs[i].gather(e, parts, r) })
	}
	wg.Wait()
	return r
}

// mergeSegmentMin is the fewest entries per merge segment: below it the merge runs on one
// goroutine. A variable so that tests can split tiny merges.
var mergeSegmentMin = 1 << 16

// segment is one range of the key space in the merge: for each worker w, its entries
// lo[w] up to hi[w], which become entries first.. of the result.
type segment struct {
	lo, hi   []int
	first    int
	refs     []uint64 // the entries' refs in merge order (order)
	locs     []uint64 // with key words: their keys' locations in the key stores (order)
	vlocs    []uint64 // at value resolution: their value entries' locations (order)
	valWords int      // value words of its entries (order)
	keyWords int      // key words of its entries (order)
	valAt    int      // where its value words start in Result.Values
	keyAt    int      // where its key words start in Result.KeyWords
}

// segments cuts the workers' sorted entries into up to GOMAXPROCS segments of at least
// mergeSegmentMin entries.
func (e *Engine) segments(parts []*partial, total int) []segment {
	n := max(1, min(runtime.GOMAXPROCS(0), total/max(mergeSegmentMin, 1)))
	big := 0
	for w, p := range parts {
		if len(p.recs) > len(parts[big].recs) {
			big = w
		}
	}
	cuts := make([][]int, n+1) // cuts[k][w]: worker w's first entry of segment k
	cuts[0] = make([]int, len(parts))
	cuts[n] = make([]int, len(parts))
	for w, p := range parts {
		cuts[n][w] = len(p.recs)
	}
	for k := 1; k < n; k++ {
		pivot := parts[big].recs[k*len(parts[big].recs)/n]
		cuts[k] = make([]int, len(parts))
		for w, p := range parts {
			cuts[k][w] = sort.Search(len(p.recs), func(i int) bool { return compareEntries(p.recs[i], pivot) >= 0 })
		}
	}
	segs := make([]segment, n)
	first := 0
	for k := range segs {
		segs[k].lo, segs[k].hi, segs[k].first = cuts[k], cuts[k+1], first
		for w := range parts {
			first += cuts[k+1][w] - cuts[k][w]
		}
	}
	return segs
}

// order merges the segment's entries (a linear scan of the heads: workers are few),
// writes their records into r and notes their refs and word counts.
func (g *segment) order(parts []*partial, r *Result) {
	heads := slices.Clone(g.lo)
	n := 0
	for w := range parts {
		n += g.hi[w] - g.lo[w]
	}
	g.refs = make([]uint64, 0, n)
	hugemem.Advise(g.refs)
	if len(parts) > 0 && parts[0].e.opt.KeyWords {
		g.locs = make([]uint64, 0, n)
		hugemem.Advise(g.locs)
	}
	if len(parts) > 0 && parts[0].e.opt.Resolution == ValueResolution {
		g.vlocs = make([]uint64, 0, n)
		hugemem.Advise(g.vlocs)
	}
	for range n {
		best := -1
		for w, p := range parts {
			if heads[w] < g.hi[w] && (best < 0 || compareEntries(p.recs[heads[w]], parts[best].recs[heads[best]]) < 0) {
				best = w
			}
		}
		en := parts[best].recs[heads[best]]
		heads[best]++
		x := (g.first + len(g.refs)) * RecordStride
		r.Records[x], r.Records[x+1], r.Records[x+2], r.Records[x+3] = en.key.Lo, en.key.Hi, en.rec.Lo, en.rec.Hi
		g.refs = append(g.refs, en.ref)
	}
	for _, ref := range g.refs {
		p, j := parts[ref>>refShift], ref&(1<<refShift-1)
		if p.e.opt.Resolution == ValueResolution {
			loc := p.vals.where.at(j)
			g.vlocs = append(g.vlocs, loc)
			g.valWords += p.vals.size(loc)
		}
		if p.e.opt.KeyWords {
			loc := p.keys.where.at(j)
			g.locs = append(g.locs, loc)
			g.keyWords += p.keys.size(loc)
		}
	}
}

// gather writes the segment's part of every output of r. Its random reads depend only on
// the refs and locations order noted, not on each other, so their misses overlap.
func (g *segment) gather(e *Engine, parts []*partial, r *Result) {
	wantVals := e.opt.Resolution == ValueResolution
	vat, kat := g.valAt, g.keyAt
	for i, ref := range g.refs {
		p, j, x := parts[ref>>refShift], ref&(1<<refShift-1), g.first+i
		if wantVals {
			vat += p.vals.copyRun(r.Values[vat:], g.vlocs[i])
			r.ValueOffsets[x+1] = uint64(vat / ValueStride)
		}
		if e.opt.Origins {
			r.Origins[x] = p.ords.at(j)
		}
		if e.opt.KeyWords {
			kat += p.keys.copyRun(r.KeyWords[kat:], g.locs[i])
			r.KeyOffsets[x+1] = uint64(kat)
		}
	}
}
