package fingerprint

import (
	"github.com/pipewhy/pipewhy/internal/hugemem"
	"github.com/pipewhy/pipewhy/normalize"
)

// colAcc accumulates one column's state.
type colAcc struct {
	count uint64
	lanes [maxLanes]uint64
}

// partial is one worker's accumulator; only that worker touches it until the merge.
type partial struct {
	e        *Engine
	index    int
	h        *hasher
	count    uint64
	lanes    [maxLanes]uint64
	cols     []colAcc
	blocks   [][]entry // record entries in append order, in fixed-size blocks (no regrowth copies)
	nrecs    int       // entries in blocks
	recs     []entry   // after the run: all entries, sorted
	released int64     // bytes of the blocks finish let go
	ords     blockList // Options.Origins: the run ordinal of each of recs, in append order
	keys     wordStore // Options.KeyWords: the key record of each of recs, in append order
	vals     wordStore // value resolution: the value entries of each of recs, in append order
	valBuf   []uint64  // the current record's value entries
	keyBuf   []uint64
	keyAt    []int // frame start of each key field in the current record

	// XXH3Columnar: each field digest is computed once and serves the record digest,
	// the key digest and the column state (value digest).
	v2    *v2Hasher
	fds   []uint64 // the current record's [position?, FD(F_1).Lo, FD(F_1).Hi, ...]
	keyFD []int    // where each key field's digest lies in fds
}

func (e *Engine) newPartial(index int) *partial {
	p := &partial{e: e, index: index, h: newHasher(e.ctx)}
	p.keys.framed = true // key records are C2 records (see wordStore)
	if e.columns {
		p.cols = make([]colAcc, len(e.ctx.c.schema.Fields))
	}
	p.keyAt = make([]int, len(e.keys))
	p.v2 = p.h.v2
	p.keyFD = make([]int, len(e.keys))
	return p
}

// finish ends a record- or value-resolution partial after its last record: it sorts
// the entries for the merge.
func (p *partial) finish() {
	p.recs = sortEntries(p.blocks, p.nrecs)
	for _, b := range p.blocks {
		p.released += int64(cap(b)) * entryBytes
	}
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
	v2 := p.v2
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
		if v2 != nil {
			p.fds = p.fds[:0]
			if ordered {
				p.fds = append(p.fds, pos)
			}
		}
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
			var d Digest // the value digest, when column states are kept
			if v2 != nil {
				fd := v2.field(rec[f:end])
				if ki < len(keys) && keys[ki] == id {
					p.keyFD[ki] = len(p.fds)
				}
				p.fds = append(p.fds, fd.Lo, fd.Hi)
				if p.cols != nil {
					d = v2.value(pos, fd)
				}
			} else if p.cols != nil {
				d = p.h.digest(ordered, pos, rec[f:end])
			}
			if p.cols != nil {
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
		var d Digest
		if v2 != nil {
			d = v2.combine(p.fds)
		} else {
			d = p.h.record(pos, rec)
		}
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

// recordErr is the error of record i of batch bi.
func recordErr(bi, i int, code Code, msg string, err error) error {
	x := wrapErr("run", code, msg, err)
	x.Batch, x.Record = bi, i
	return x
}

// key returns the key digest of rec: the digest (never positional) of the record projected
// onto the key fields, [1, 2, k, key frames...]; with no key fields, of the whole record.
// d is rec's record digest, reused when it already is the key digest.
//
// Under XXH3Columnar the key digest is the record digest of the projection, computed
// from the field digests the record's walk left in p.fds; the projected words are built
// only when Options.KeyWords keeps them.
func (p *partial) key(rec []uint64, d Digest) Digest {
	keys := p.e.keys
	if len(keys) == 0 {
		if !p.h.ordered {
			return d
		}
		if p.v2 != nil {
			return p.v2.combine(p.fds[1:]) // without the position
		}
		return p.h.digest(false, 0, rec)
	}
	if p.v2 == nil || p.e.opt.KeyWords {
		kb := append(p.keyBuf[:0], normalize.WireVersion, normalize.RecordDomain, uint64(len(keys)))
		for _, f := range p.keyAt {
			kb = append(kb, rec[f:f+3+int(rec[f+2])]...)
		}
		p.keyBuf = kb
	}
	if p.v2 == nil {
		return p.h.digest(false, 0, p.keyBuf)
	}
	n := len(p.fds)
	for _, at := range p.keyFD {
		p.fds = append(p.fds, p.fds[at], p.fds[at+1])
	}
	k := p.v2.combine(p.fds[n:])
	p.fds = p.fds[:n]
	return k
}
