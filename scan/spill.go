package scan

import (
	"bufio"
	"cmp"
	"context"
	"encoding/binary"
	"fmt"
	"io"
	"maps"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/pipewhy/pipewhy/arrays"
	"github.com/pipewhy/pipewhy/fingerprint"
	"github.com/pipewhy/pipewhy/internal/hugemem"
	"github.com/pipewhy/pipewhy/normalize"
	"github.com/pipewhy/pipewhy/normalize/c2text"
	"github.com/pipewhy/pipewhy/repo"
	"github.com/pipewhy/pipewhy/snapshot"
	"github.com/pipewhy/pipewhy/snapshot/vfs"
)

// DefaultMemory is the memory budget of a scan whose Options.Memory is 0: 1 GiB.
const DefaultMemory = 1 << 30

// A sorted run may take half of the memory budget, as estimated by runCost (which
// counts the run at its peak: the engine's entries beside their sorted copy), and the
// runs kept in memory (see keep) a third; while runs are kept, the current run is cut
// sooner, so that it and the kept runs together stay within two thirds: the rest is
// the garbage collector's room and the reader's batches. A source whose entries fit
// half the budget is sorted in memory and spills nothing.
const (
	runShare  = 2 // a run: 1/runShare of the budget
	keptShare = 3 // the kept runs: 1/keptShare of the budget
)

// Estimated bytes per record of a run (see runCost): an engine entry (40), its
// location and ordinal words (16), the sorted result's record, offsets and origin (48),
// and slack. Measured (TestRunCostBasis's figures, runtime.MemStats): a record scan of
// the 5-column benchmark table keyed by id (8 key words a record) peaks at 234 bytes a
// record above the heap before it, 640 without a key (33 key words: the whole record):
// 103 bytes a record and 16.4 a key word.
const runRecordBytes = 112

// runKeyWordBytes is the estimate per key word of a run: the engine's store and its
// sorted result hold each entry's key words once each.
const runKeyWordBytes = 16

// spillBuffer is the buffer of each spill file written or read (the merge reads every
// run at once: with a small budget and many runs, it shrinks to fit).
var spillBuffer = 1 << 20

// spiller sorts a record- or value-resolution scan out of core. The pipeline's
// encoders add their tiles to the current run's fingerprint.Feed under a read lock;
// when the run's estimated memory reaches its share of the budget, the encoder that
// noticed takes the write lock (every Add has returned), takes the run's sorted result,
// writes it as one spill file in the snapshot's staging attempt and starts a new Feed.
// The states of the runs are summed (C3 states are sums). After the read, merge k-way
// merges the runs straight into the snapshot's payload streams.
//
// When the whole source fits one run nothing is spilled and the scan is published from
// memory as before: the spiller only decides, and the result is the same bytes either
// way (TestSpillMatchesMemory).
type spiller struct {
	ctx      context.Context
	open     func() (*snapshot.Store, error) // the store, called when the first run spills
	id       snapshot.ID
	eng      *fingerprint.Engine
	lanes    int
	values   bool     // value resolution: the run's tiles are kept to write value payloads
	keyIDs   []uint64 // the declared key fields (none: the key is the whole record)
	memory   int64    // the budget
	runBytes int64    // a run's share (runShare)
	keptMax  int64    // the kept runs' share (keptShare)

	mu    sync.RWMutex // read: an Add in flight; write: a run being cut
	feed  *fingerprint.Feed
	limit int64      // the current run is cut when its estimate reaches it (see cutLimit)
	tmu   sync.Mutex // guards tiles among the readers
	tiles []runTile
	used  atomic.Int64

	// Under mu's write lock, or after the read.
	state   fingerprint.State
	columns []fingerprint.ColumnState
	runs    []string // spill file names, in the order written
	w       *snapshot.Writer
	// kept is the runs held in memory instead of spill files, each encoded as a run
	// file's words (value resolution), keptRecs those of record resolution (keptRun);
	// keptBytes their size.
	kept      [][]uint64
	keptRecs  []*keptRun
	keptBytes int64
	nkept     int // runs kept, also once merge took them
}

// runTile is a tile of the current run and the ordinal of its first record.
type runTile struct {
	first uint64
	b     *normalize.RecordBatch
}

func newSpiller(ctx context.Context, open func() (*snapshot.Store, error), id snapshot.ID, eng *fingerprint.Engine, lanes int, values bool, keyIDs []uint64, memory int64) (*spiller, error) {
	feed, err := eng.NewFeed(lanes)
	if err != nil {
		return nil, &Error{Code: CodeFingerprint, Op: "fingerprint", Msg: "engine", Err: err}
	}
	sp := &spiller{ctx: ctx, open: open, id: id, eng: eng, lanes: lanes, values: values, keyIDs: keyIDs,
		memory: memory, runBytes: max(memory/runShare, 1), keptMax: max(memory/keptShare, 1), feed: feed}
	sp.limit = sp.cutLimit()
	return sp, nil
}

// cutLimit is the estimate at which the current run is cut: its share of the budget,
// or less while runs are kept, so that it and the kept runs together stay within two
// thirds of the budget (at least a third is left to it: the kept runs take at most a
// third).
func (sp *spiller) cutLimit() int64 {
	return max(min(sp.runBytes, 2*sp.memory/3-sp.keptBytes), 1)
}

// runCost estimates the memory tile b adds to a run at the run's peak, when the engine
// sorts it: runRecordBytes a record and runKeyWordBytes a key word (the key record of
// the declared key fields, or without them the whole record); at value resolution also
// the tile itself, the value entries (3 words per field, twice) and the payload words
// written out: 32 bytes a record word.
func (sp *spiller) runCost(b *normalize.RecordBatch) int64 {
	c := int64(b.Len())*runRecordBytes + int64(keyWords(b, sp.keyIDs))*runKeyWordBytes
	if sp.values {
		c += int64(len(b.Words)) * 8 * 4
	}
	return c
}

// keyWords is the number of key words the engine keeps for the records of b: per
// record, the key record's 3 header words and the frames of the key fields keyIDs; with
// no key fields, the whole record. The records come from columnar.Encoder (valid C2).
func keyWords(b *normalize.RecordBatch, keyIDs []uint64) int {
	if len(keyIDs) == 0 {
		return len(b.Words)
	}
	n := 0
	for i := range b.Len() {
		rec := b.Record(i)
		n += 3
		pos := 3
		for k := uint64(0); k < rec[2] && pos+2 < len(rec); k++ {
			l := 3 + int(rec[pos+2])
			if slices.Contains(keyIDs, rec[pos]) {
				n += l
			}
			pos += l
		}
	}
	return n
}

// add digests tile b (lane w) into the current run, then cuts the run when it is full.
func (sp *spiller) add(w int, b *normalize.RecordBatch, batch int, first uint64) error {
	sp.mu.RLock()
	err := sp.feed.Add(w, b, batch, first)
	if err == nil && sp.values {
		sp.tmu.Lock()
		sp.tiles = append(sp.tiles, runTile{first: first, b: b})
		sp.tmu.Unlock()
	}
	full := sp.used.Add(sp.runCost(b)) >= sp.limit
	sp.mu.RUnlock()
	if err != nil {
		return &Error{Code: CodeFingerprint, Op: "fingerprint", Msg: fmt.Sprintf("digesting the batch from source row %d", first+1), Err: err}
	}
	if !full {
		return nil
	}
	sp.mu.Lock()
	defer sp.mu.Unlock()
	if sp.used.Load() < sp.limit {
		return nil // another encoder cut it first
	}
	return sp.cut()
}

// cut ends the current run (mu held for writing, or the read over): its entries are
// sorted by the engine, added to the states and written to a spill file, and a new
// run starts.
func (sp *spiller) cut() error {
	fr, err := sp.feed.Result()
	if err != nil {
		return &Error{Code: CodeFingerprint, Op: "fingerprint", Msg: "engine result", Err: err}
	}
	fr.Gather() // a run is encoded from the key arrays (Options.KeyStore applies to memory)
	tiles := sp.tiles
	sp.tiles = nil
	sp.used.Store(0)
	if sp.feed, err = sp.eng.NewFeed(sp.lanes); err != nil {
		return &Error{Code: CodeFingerprint, Op: "fingerprint", Msg: "engine", Err: err}
	}
	if err := sp.sum(fr); err != nil {
		return err
	}
	if len(fr.Records) == 0 {
		return nil
	}
	if err := sp.ctx.Err(); err != nil {
		return &Error{Code: CodeSource, Op: "read", Msg: "reading stopped", Err: err}
	}
	rp := sp.planRun(fr, tiles)
	if sp.keep(rp, false) {
		return sp.keepRun(fr, tiles, rp)
	}
	if err := sp.create(); err != nil {
		return err
	}
	name := fmt.Sprintf("run-%06d", len(sp.runs))
	if err := sp.writeRun(name, fr, tiles, rp); err != nil {
		return err
	}
	sp.runs = append(sp.runs, name)
	return nil
}

// create makes the staging attempt that holds the spill files and receives the merge,
// in the store it opens then.
func (sp *spiller) create() error {
	if sp.w != nil {
		return nil
	}
	store, err := sp.open()
	if err != nil {
		return &Error{Code: CodeSpill, Op: "spill", Msg: "snapshot store", Err: err}
	}
	if sp.w, err = store.Create(sp.ctx, sp.id); err != nil {
		return &Error{Code: CodeSpill, Op: "spill", Msg: "staging attempt", Err: err}
	}
	return nil
}

// keep decides whether the sorted run fr (of tiles) is kept in memory, encoded as a run
// file's words, rather than spilled: writing a run and reading it back costs the
// kernel's copies (at value resolution, most of a spilled scan's system time), and
// an encoded run is a quarter or less of the estimate (runCost) of the run it
// replaces. Runs are kept while all kept runs together stay within their share of
// the budget (keptMax), and the run being read is cut sooner beside them (cutLimit);
// the last run (last: the read is over and no run follows) is always
// kept, since its entries and tiles, larger than its words, are freed once encoded.
func (sp *spiller) keep(rp runPlan, last bool) bool {
	return last || sp.keptBytes+rp.kept <= sp.keptMax
}

// runPlan is how a run is encoded: its key template (nil: every key whole), the size
// of its encoding in bytes and of it kept in memory (kept: a keptRun at record
// resolution, the encoding at value resolution), and the counts of entries whose key
// the template matches and of the others and their words.
type runPlan struct {
	tmpl                   *keyTemplate
	bytes, kept            int64
	matched, odd, oddWords int64
}

// planRun plans the encoding of run fr (see writeRun): the header (its key template)
// and per entry 5 words and the key words (the vary words of a key its template
// matches); at value resolution also per entry the record's words less its 3-word
// header, plus 1 word and 2 per field.
func (sp *spiller) planRun(fr *fingerprint.Result, tiles []runTile) runPlan {
	n := len(fr.Records) / fingerprint.RecordStride
	var t *keyTemplate
	if n > 0 && len(fr.KeyOffsets) == n+1 {
		t = newKeyTemplate(fr.KeyWords[fr.KeyOffsets[0]:fr.KeyOffsets[1]])
	}
	rp := runPlan{tmpl: t}
	if len(fr.KeyOffsets) == n+1 {
		for e := range n {
			key := fr.KeyWords[fr.KeyOffsets[e]:fr.KeyOffsets[e+1]]
			if t.match(key) {
				rp.matched++
			} else {
				rp.odd++
				rp.oddWords += int64(len(key))
			}
		}
	}
	var vary int64
	if t != nil {
		vary = rp.matched * int64(len(t.vary))
	}
	w := t.headerWords() + 5*int64(n) + vary + rp.oddWords
	rp.kept = 8 * (4*int64(n) + vary + 2*rp.odd + 1 + rp.oddWords)
	if sp.values {
		for _, t := range tiles {
			w += int64(len(t.b.Words))
		}
		w += -2*int64(n) + 2*int64(len(fr.Values)/fingerprint.ValueStride)
		rp.kept = 8 * w
	}
	rp.bytes = 8 * w
	return rp
}

// keepRun encodes run fr into memory (see keep).
func (sp *spiller) keepRun(fr *fingerprint.Result, tiles []runTile, rp runPlan) error {
	if !sp.values {
		kr, err := newKeptRun(fr, rp)
		if err != nil {
			return err
		}
		sp.keptRecs = append(sp.keptRecs, kr)
		sp.nkept++
		sp.keptBytes += kr.bytes()
		sp.limit = sp.cutLimit()
		return nil
	}
	ww := &wordWriter{mem: true, kept: make([]uint64, 0, rp.bytes/8)}
	// Huge pages before the first touch: the run is written once, front to back, and a
	// page fault per 4 KiB was most of the cost of keeping it (docs/performance.md).
	hugemem.Advise(ww.kept[:cap(ww.kept)])
	if err := sp.encodeRun(ww, fr, tiles, rp.tmpl); err != nil {
		return err
	}
	if len(ww.kept) != cap(ww.kept) { // keep decided on the plan's size: it must be exact
		return &Error{Code: CodeInternal, Op: "spill", Msg: fmt.Sprintf("run of %d words encoded into %d", cap(ww.kept), len(ww.kept))}
	}
	sp.kept = append(sp.kept, ww.kept)
	sp.nkept++
	sp.keptBytes += 8 * int64(len(ww.kept))
	sp.limit = sp.cutLimit()
	return nil
}

// sum adds a run's dataset and column states to the scan's.
func (sp *spiller) sum(fr *fingerprint.Result) error {
	if sp.columns == nil {
		sp.state, sp.columns = fr.State, slices.Clone(fr.Columns)
		return nil
	}
	if err := sp.state.Merge(fr.State); err != nil {
		return &Error{Code: CodeInternal, Op: "fingerprint", Msg: "run states", Err: err}
	}
	if len(fr.Columns) != len(sp.columns) {
		return &Error{Code: CodeInternal, Op: "fingerprint", Msg: "run column states differ"}
	}
	for i, c := range fr.Columns {
		if c.Field != sp.columns[i].Field {
			return &Error{Code: CodeInternal, Op: "fingerprint", Msg: "run column states differ"}
		}
		if err := sp.columns[i].State.Merge(c.State); err != nil {
			return &Error{Code: CodeInternal, Op: "fingerprint", Msg: "run column states", Err: err}
		}
	}
	return nil
}

// finish ends the read. Without a spilled run it returns the single run's result and
// its tiles in source order (the in-memory path); else it spills the last run and
// returns the summed states alone (no per-record arrays: merge publishes them).
func (sp *spiller) finish() (*fingerprint.Result, []*normalize.RecordBatch, error) {
	if !sp.spilled() {
		fr, err := sp.feed.Result()
		if err != nil {
			return nil, nil, &Error{Code: CodeFingerprint, Op: "fingerprint", Msg: "engine result", Err: err}
		}
		if sp.columns != nil { // runs cut before were empty (a Select of nothing)
			if err := sp.sum(fr); err != nil {
				return nil, nil, err
			}
			fr.State, fr.Columns = sp.state, sp.columns
		}
		slices.SortFunc(sp.tiles, func(a, b runTile) int { return cmp.Compare(a.first, b.first) })
		kept := make([]*normalize.RecordBatch, len(sp.tiles))
		for i, t := range sp.tiles {
			kept[i] = t.b
		}
		sp.tiles = nil
		return fr, kept, nil
	}
	fr, err := sp.feed.Result()
	if err != nil {
		return nil, nil, &Error{Code: CodeFingerprint, Op: "fingerprint", Msg: "engine result", Err: err}
	}
	fr.Gather() // as in cut
	tiles := sp.tiles
	sp.tiles, sp.feed = nil, nil
	if err := sp.sum(fr); err != nil {
		return nil, nil, err
	}
	if len(fr.Records) > 0 {
		if err := sp.keepRun(fr, tiles, sp.planRun(fr, tiles)); err != nil {
			return nil, nil, err
		}
	}
	if err := sp.create(); err != nil { // every run may have been kept
		return nil, nil, err
	}
	return &fingerprint.Result{State: sp.state, Columns: sp.columns}, nil, nil
}

// spilled reports whether runs were cut, spilled or kept (then merge publishes).
func (sp *spiller) spilled() bool { return len(sp.runs)+sp.nkept > 0 }

// merged is the number of sorted runs merge merges: those spilled and those kept.
func (sp *spiller) merged() int { return len(sp.runs) + sp.nkept }

// A run file is a header and a sequence of entries in the engine's order, all
// little-endian words. The header is the run's key template (keyTemplate):
//
//	tlen  template words (tlen)  vcount  vary positions (vcount)
//
// (tlen = vcount = 0: no template), each entry
//
//	key_lo key_hi record_lo record_hi  klen  key words (klen)
//	                               or  compactTag|vcount  the key's vary words (vcount)
//	and at value resolution:           vlen  value words (vlen)
//
// where the value words are, for each field of the record in field id order:
// field_id value_lo value_hi type_code payload_length payload words. Nothing else is
// stored: the value table's ids, offsets and validity follow from the merged order.

// writeRun writes the run fr (with its tiles at value resolution) to the spill file.
func (sp *spiller) writeRun(name string, fr *fingerprint.Result, tiles []runTile, rp runPlan) error {
	f, err := sp.w.CreateSpill(name)
	if err != nil {
		return &Error{Code: CodeSpill, Op: "spill", Msg: "sorted run", Err: err}
	}
	ww := &wordWriter{b: bufio.NewWriterSize(f, spillBuffer)}
	err = sp.encodeRun(ww, fr, tiles, rp.tmpl)
	if err == nil {
		err = ww.flush()
	}
	// No fsync: a run is scratch that only this process reads back; after a crash the
	// attempt is not published whatever its runs hold.
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		if _, ok := err.(*Error); ok {
			return err
		}
		return &Error{Code: CodeSpill, Op: "spill", Msg: "sorted run", Err: err}
	}
	return nil
}

func (sp *spiller) encodeRun(ww *wordWriter, fr *fingerprint.Result, tiles []runTile, t *keyTemplate) error {
	n := len(fr.Records) / fingerprint.RecordStride
	if len(fr.KeyOffsets) != n+1 {
		return &Error{Code: CodeInternal, Op: "fingerprint", Msg: "key words differ from the engine's entries"}
	}
	if sp.values {
		if len(fr.ValueOffsets) != n+1 || len(fr.Origins) != n {
			return &Error{Code: CodeInternal, Op: "fingerprint", Msg: "value offsets differ from the engine's entries"}
		}
		slices.SortFunc(tiles, func(a, b runTile) int { return cmp.Compare(a.first, b.first) })
	}
	if t == nil {
		ww.words([]uint64{0, 0})
	} else {
		ww.word(uint64(len(t.words)))
		ww.words(t.words)
		ww.word(uint64(len(t.vary)))
		for _, p := range t.vary {
			ww.word(uint64(p))
		}
	}
	var entry []uint64 // one entry's record and key words, written at once
	for e := range n {
		key := fr.KeyWords[fr.KeyOffsets[e]:fr.KeyOffsets[e+1]]
		entry = append(entry[:0], fr.Records[e*4:e*4+4]...)
		if t.match(key) {
			entry = append(entry, compactTag|uint64(len(t.vary)))
			for _, p := range t.vary {
				entry = append(entry, key[p])
			}
		} else {
			entry = append(entry, uint64(len(key)))
			entry = append(entry, key...)
		}
		ww.words(entry)
		if !sp.values {
			continue
		}
		rec, ok := recordAt(tiles, fr.Origins[e])
		if !ok {
			return &Error{Code: CodeInternal, Op: "fingerprint", Msg: "engine record origin outside the run"}
		}
		lo, hi := fr.ValueOffsets[e], fr.ValueOffsets[e+1]
		if len(rec) < 3 || hi-lo != rec[2] || hi < lo || hi*fingerprint.ValueStride > uint64(len(fr.Values)) {
			return &Error{Code: CodeInternal, Op: "fingerprint", Msg: "value entries differ from the record's fields"}
		}
		// The value words are the record's fields, each with 2 more header words: their
		// count is known before they are written, so they go straight to ww.
		ww.word(uint64(len(rec)-3) + 2*(hi-lo))
		pos := 3
		for j := lo; j < hi; j++ {
			if len(rec)-pos < 3 || rec[pos+2] > uint64(len(rec)-pos-3) || fr.Values[j*3] != rec[pos] {
				return &Error{Code: CodeInternal, Op: "fingerprint", Msg: "value entry differs from the record's field"}
			}
			l := int(rec[pos+2])
			head := [5]uint64{fr.Values[j*3], fr.Values[j*3+1], fr.Values[j*3+2], rec[pos+1], uint64(l)}
			ww.words(head[:])
			ww.words(rec[pos+3 : pos+3+l])
			pos += 3 + l
		}
		if pos != len(rec) {
			return &Error{Code: CodeInternal, Op: "fingerprint", Msg: "record words beyond its fields"}
		}
	}
	return ww.err
}

// recordAt returns the record with ordinal o from tiles (sorted by first ordinal).
func recordAt(tiles []runTile, o uint64) ([]uint64, bool) {
	i, _ := slices.BinarySearchFunc(tiles, o, func(t runTile, o uint64) int {
		if t.first > o {
			return 1
		}
		if o-t.first < uint64(t.b.Len()) {
			return 0
		}
		return -1
	})
	if i >= len(tiles) || o < tiles[i].first || o-tiles[i].first >= uint64(tiles[i].b.Len()) {
		return nil, false
	}
	return tiles[i].b.Record(int(o - tiles[i].first)), true
}

// wordWriter writes little-endian words to b, or with mem appends them to kept; its
// first error sticks.
type wordWriter struct {
	b    *bufio.Writer
	buf  [1]uint64
	err  error
	mem  bool
	kept []uint64
}

func (w *wordWriter) word(x uint64) {
	w.buf[0] = x
	w.words(w.buf[:1])
}

// words encodes xs straight into the buffer's free space.
func (w *wordWriter) words(xs []uint64) {
	if w.mem {
		w.kept = append(w.kept, xs...)
		return
	}
	for len(xs) > 0 && w.err == nil {
		if w.b.Available() < 8 {
			if w.err = w.b.Flush(); w.err != nil {
				return
			}
		}
		k := min(len(xs), w.b.Available()/8)
		buf := w.b.AvailableBuffer()
		for _, x := range xs[:k] {
			buf = binary.LittleEndian.AppendUint64(buf, x)
		}
		_, w.err = w.b.Write(buf)
		xs = xs[k:]
	}
}

func (w *wordWriter) flush() error {
	if w.err == nil {
		w.err = w.b.Flush()
	}
	return w.err
}

// runReader reads one run file's entries in order.
type runReader struct {
	f      vfs.File      // nil for the run kept in memory
	r      *bufio.Reader // nil for the run kept in memory
	mem    []uint64      // the kept run's words not yet read
	values bool
	rec    [4]uint64
	key    []uint64 // the current entry's key record: full, or tkey
	full   []uint64 // a whole key record read from a file
	tmpl   *keyTemplate
	tkey   []uint64 // the template with the current compact entry's vary words
	vwords []uint64 // a compact entry's vary words read from a file
	vals   []uint64
	scr    []byte
	read   uint64 // bytes read
	// kr, when set, is the kept run read (nextKept): e is the next entry, oi the next
	// of its odd entries, vi the next of its vary words.
	kr        *keptRun
	e, oi, vi int
}

// errMalformed is the error of a run whose words do not follow its format.
var errMalformed = &Error{Code: CodeSpill, Op: "merge", Msg: "sorted run entry is malformed"}

// start reads the run's header (its key template); before the first next.
func (rr *runReader) start() error {
	if rr.kr != nil {
		if t := rr.kr.tmpl; t != nil {
			rr.tmpl, rr.tkey = t, slices.Clone(t.words)
		}
		return nil
	}
	var n [1]uint64
	if err := rr.fill(n[:]); err != nil {
		return unexpected(err)
	}
	if n[0] > 1<<32 {
		return errMalformed
	}
	words, err := rr.take(nil, n[0])
	if err != nil {
		return err
	}
	if err := rr.fill(n[:]); err != nil {
		return unexpected(err)
	}
	if n[0] > uint64(len(words)) {
		return errMalformed
	}
	vary, err := rr.take(nil, n[0])
	if err != nil {
		return err
	}
	if len(words) == 0 {
		return nil
	}
	t := &keyTemplate{words: slices.Clone(words)}
	pos := make([]int, len(vary))
	for i, p := range vary {
		if p >= uint64(len(words)) {
			return errMalformed
		}
		pos[i] = int(p)
	}
	if !t.setVary(pos) {
		return errMalformed
	}
	rr.tmpl, rr.tkey = t, slices.Clone(t.words)
	return nil
}

// next reads the next entry; false at the end of the file.
func (rr *runReader) next() (bool, error) {
	if rr.kr != nil {
		return rr.nextKept()
	}
	err := rr.fill(rr.rec[:])
	if err != nil {
		if err == io.EOF {
			return false, nil
		}
		return false, err
	}
	var n [1]uint64
	if err := rr.fill(n[:]); err != nil {
		return false, unexpected(err)
	}
	if n[0]&compactTag != 0 {
		if rr.tmpl == nil || n[0]&^compactTag != uint64(len(rr.tmpl.vary)) {
			return false, errMalformed
		}
		if rr.vwords, err = rr.take(rr.vwords, n[0]&^compactTag); err != nil {
			return false, err
		}
		for i, p := range rr.tmpl.vary {
			rr.tkey[p] = rr.vwords[i]
		}
		rr.key = rr.tkey
	} else {
		if n[0] > 1<<32 {
			return false, errMalformed
		}
		if rr.full, err = rr.take(rr.full, n[0]); err != nil {
			return false, err
		}
		rr.key = rr.full
	}
	if rr.values {
		if err := rr.fill(n[:]); err != nil {
			return false, unexpected(err)
		}
		if n[0] > 1<<40 {
			return false, errMalformed
		}
		if rr.vals, err = rr.take(rr.vals, n[0]); err != nil {
			return false, err
		}
	}
	return true, nil
}

// take reads the next n words into buf, or from a kept run returns them in place.
func (rr *runReader) take(buf []uint64, n uint64) ([]uint64, error) {
	if rr.r == nil {
		if n > uint64(len(rr.mem)) {
			return buf, io.ErrUnexpectedEOF
		}
		ws := rr.mem[:n:n]
		rr.mem = rr.mem[n:]
		rr.read += 8 * n
		return ws, nil
	}
	buf = slices.Grow(buf[:0], int(n))[:n]
	return buf, unexpected(rr.fill(buf))
}

func unexpected(err error) error {
	if err == io.EOF {
		return io.ErrUnexpectedEOF
	}
	return err
}

// fill reads len(dst) words; io.EOF only when nothing was read.
func (rr *runReader) fill(dst []uint64) error {
	if rr.r == nil {
		if len(rr.mem) == 0 && len(dst) > 0 {
			return io.EOF
		}
		k := copy(dst, rr.mem)
		rr.mem = rr.mem[k:]
		rr.read += 8 * uint64(k)
		if k < len(dst) {
			return io.ErrUnexpectedEOF
		}
		return nil
	}
	for len(dst) > 0 {
		k := min(len(dst), 512)
		b := slices.Grow(rr.scr[:0], 8*k)[:8*k]
		rr.scr = b
		got, err := io.ReadFull(rr.r, b)
		rr.read += uint64(got)
		if err != nil {
			if err == io.EOF && got == 0 {
				return io.EOF
			}
			return unexpected(err)
		}
		for i := range k {
			dst[i] = binary.LittleEndian.Uint64(b[8*i:])
		}
		dst = dst[k:]
	}
	return nil
}

// runHeap is a binary min-heap of the readers by their current entry (the engine's
// entry order: key digest, then record digest); equal entries are equal records, whose
// words are equal, so their order does not change the bytes. Its own sift rather than
// container/heap's: no interface call per comparison, once per merged entry.
type runHeap []*runReader

func entryLess(a, b *runReader) bool {
	for k := range 4 {
		if a.rec[k] != b.rec[k] {
			return a.rec[k] < b.rec[k]
		}
	}
	return false
}

// down restores the heap below i.
func (h runHeap) down(i int) {
	n := len(h)
	for {
		l := 2*i + 1
		if l >= n {
			return
		}
		m := l
		if r := l + 1; r < n && entryLess(h[r], h[l]) {
			m = r
		}
		if !entryLess(h[m], h[i]) {
			return
		}
		h[i], h[m] = h[m], h[i]
		i = m
	}
}

func (h runHeap) init() {
	for i := len(h)/2 - 1; i >= 0; i-- {
		h.down(i)
	}
}

// popTop removes the least reader.
func (h *runHeap) popTop() {
	old := *h
	last := len(old) - 1
	old[0] = old[last]
	*h = old[:last]
	h.down(0)
}

// mergeOut is the payload streams of the per-record arrays, each written in blocks
// (wordOut), the value table's type ids through types.
type mergeOut struct {
	records, keyWords, keyOffsets       *wordOut
	values, valueOffsets                *wordOut
	vID, vArtifact, vField              *wordOut
	vOffset, vLength, vPayload, vValid  *wordOut
	vType                               *snapshot.Stream
	types                               []byte
	keyAt, payAt, nvals, validWord, row uint64
}

// merge k-way merges the runs into the writer's payload streams (records, key words
// and offsets; at value resolution the value digests, offsets and the C1 value table),
// checking declared keys for duplicates as the merged order passes, and reporting the
// run bytes merged to progress. It removes each run once merged.
func (sp *spiller) merge(sc *repo.Scan, keyed bool, progress func(done, total uint64)) error {
	w := sp.w
	var total uint64
	readers := make([]*runReader, 0, len(sp.runs))
	defer func() {
		for _, rr := range readers {
			if rr.f != nil {
				rr.f.Close()
			}
		}
	}()
	buf := max(4096, min(spillBuffer, int(sp.runBytes)/max(len(sp.runs), 1)))
	h := runHeap{}
	// first reads a run's header and first entry and adds a run with one to the heap.
	first := func(rr *runReader) error {
		err := rr.start()
		ok := false
		if err == nil {
			ok, err = rr.next()
		}
		if err != nil {
			return &Error{Code: CodeSpill, Op: "merge", Msg: "sorted run", Err: err}
		}
		if ok {
			h = append(h, rr)
		}
		return nil
	}
	for _, k := range sp.kept {
		total += 8 * uint64(len(k))
		if err := first(&runReader{mem: k, values: sp.values}); err != nil {
			return err
		}
	}
	for _, kr := range sp.keptRecs {
		total += uint64(kr.bytes())
		if err := first(&runReader{kr: kr}); err != nil {
			return err
		}
	}
	sp.kept, sp.keptRecs = nil, nil // the readers hold them
	for _, name := range sp.runs {
		f, err := w.OpenSpill(name)
		if err != nil {
			return &Error{Code: CodeSpill, Op: "merge", Msg: "sorted run", Err: err}
		}
		rr := &runReader{f: f, r: bufio.NewReaderSize(f, buf), values: sp.values}
		readers = append(readers, rr)
		if fi, err := f.Stat(); err == nil {
			total += uint64(fi.Size())
		}
		if err := first(rr); err != nil {
			return err
		}
	}
	h.init()
	out, err := sp.openStreams()
	if err != nil {
		return err
	}
	if err := out.start(); err != nil {
		return err
	}
	art := map[uint64]uint64{}
	for i, f := range sc.Descriptor.Fields {
		art[uint64(f.ID)] = uint64(i + 1)
	}
	dup := &DuplicateKeyError{}
	var prevKey [2]uint64
	var prevWords []uint64
	run := 0 // entries with prevKey so far
	endGroup := func() {
		if run > 1 {
			dup.Keys++
			dup.Records += run
			if len(dup.Examples) < 10 {
				dup.Examples = append(dup.Examples, c2text.Record(prevWords, fieldNamer(&sc.Descriptor)))
			}
		}
	}
	var done uint64
	for len(h) > 0 {
		rr := h[0]
		if keyed {
			if run > 0 && rr.rec[0] == prevKey[0] && rr.rec[1] == prevKey[1] {
				run++
			} else {
				endGroup()
				prevKey, run = [2]uint64{rr.rec[0], rr.rec[1]}, 1
				prevWords = append(prevWords[:0], rr.key...)
			}
		}
		if err := out.entry(rr, art); err != nil {
			return err
		}
		before := rr.read
		ok, err := rr.next()
		if err != nil {
			return &Error{Code: CodeSpill, Op: "merge", Msg: "sorted run", Err: err}
		}
		done += rr.read - before
		if ok {
			h.down(0)
		} else {
			h.popTop()
		}
		if out.row%(1<<16) == 0 {
			if err := sp.ctx.Err(); err != nil {
				return &Error{Code: CodeSource, Op: "merge", Msg: "stopped", Err: err}
			}
			if progress != nil {
				progress(done, total)
			}
		}
	}
	endGroup()
	if dup.Keys > 0 {
		return dup
	}
	if err := out.close(); err != nil {
		return err
	}
	if progress != nil {
		progress(total, total)
	}
	for _, rr := range readers {
		rr.f.Close()
	}
	readers = nil // the kept runs are not among them
	for _, name := range sp.runs {
		if err := w.RemoveSpill(name); err != nil {
			return &Error{Code: CodeSpill, Op: "merge", Msg: "merged run", Err: err}
		}
	}
	return nil
}

// valueKey is the snapshot key of the value table column name.
func valueKey(name string) string { return string(arrays.TableValue) + "_" + name }

func (sp *spiller) openStreams() (*mergeOut, error) {
	out := &mergeOut{}
	type want struct {
		p   **wordOut
		key string
	}
	ws := []want{{&out.records, repo.KeyRecords}, {&out.keyWords, repo.KeyKeyWords}, {&out.keyOffsets, repo.KeyKeyOffsets}}
	if sp.values {
		ws = append(ws, want{&out.values, repo.KeyValues}, want{&out.valueOffsets, repo.KeyValueOffsets},
			want{&out.vID, valueKey("value_id")}, want{&out.vArtifact, valueKey("artifact_id")},
			want{&out.vField, valueKey("field_id")}, want{&out.vOffset, valueKey("payload_offset")},
			want{&out.vLength, valueKey("payload_length")}, want{&out.vPayload, valueKey("payload_words")},
			want{&out.vValid, valueKey("validity_bitmap")})
	}
	for _, x := range ws {
		st, err := sp.w.Append(x.key, snapshot.Uint64)
		if err != nil {
			return nil, &Error{Code: CodePublish, Op: "publish", Msg: "snapshot store", Err: err}
		}
		*x.p = newWordOut(st)
	}
	if sp.values {
		st, err := sp.w.Append(valueKey("type_id"), snapshot.Uint8)
		if err != nil {
			return nil, &Error{Code: CodePublish, Op: "publish", Msg: "snapshot store", Err: err}
		}
		out.vType, out.types = st, make([]byte, 0, 8*outWords)
	}
	return out, nil
}

func (o *mergeOut) outs() []*wordOut {
	all := []*wordOut{o.records, o.keyWords, o.keyOffsets, o.values, o.valueOffsets, o.vID, o.vArtifact,
		o.vField, o.vOffset, o.vLength, o.vPayload, o.vValid}
	return slices.DeleteFunc(all, func(w *wordOut) bool { return w == nil })
}

// publishErr wraps a stream error.
func publishErr(err error) error {
	if err == nil {
		return nil
	}
	return &Error{Code: CodePublish, Op: "publish", Msg: "snapshot store", Err: err}
}

// start writes the leading zero of the offset arrays.
func (o *mergeOut) start() error {
	if err := o.keyOffsets.add(0); err != nil {
		return publishErr(err)
	}
	if o.valueOffsets != nil {
		return publishErr(o.valueOffsets.add(0))
	}
	return nil
}

// entry appends one merged entry to every stream.
func (o *mergeOut) entry(rr *runReader, art map[uint64]uint64) error {
	o.row++
	o.keyAt += uint64(len(rr.key))
	err := o.records.add(rr.rec[:]...)
	if err == nil {
		err = o.keyWords.add(rr.key...)
	}
	if err == nil {
		err = o.keyOffsets.add(o.keyAt)
	}
	if err != nil {
		return publishErr(err)
	}
	if o.values == nil {
		return nil
	}
	v := rr.vals
	for len(v) > 0 {
		if len(v) < 5 || v[4] > uint64(len(v)-5) {
			return errMalformed
		}
		fid, tc, l := v[0], v[3], v[4]
		a, ok := art[fid]
		if !ok || tc > 255 {
			return errMalformed
		}
		j := o.nvals
		err := o.values.add(v[0], v[1], v[2])
		if err == nil {
			err = o.vID.add(j)
		}
		if err == nil {
			err = o.vArtifact.add(a)
		}
		if err == nil {
			err = o.vField.add(fid)
		}
		if err == nil {
			if o.types = append(o.types, byte(tc)); len(o.types) == cap(o.types) {
				_, err = o.vType.Write(o.types)
				o.types = o.types[:0]
			}
		}
		if err == nil {
			err = o.vOffset.add(o.payAt)
		}
		if err == nil {
			err = o.vLength.add(l)
		}
		if err == nil {
			err = o.vPayload.add(v[5 : 5+l]...)
		}
		if err != nil {
			return publishErr(err)
		}
		if normalize.TypeCode(tc) != normalize.Null && normalize.TypeCode(tc) != normalize.Missing {
			o.validWord |= 1 << (j % 64)
		}
		o.nvals++
		o.payAt += l
		if o.nvals%64 == 0 {
			if err := o.vValid.add(o.validWord); err != nil {
				return publishErr(err)
			}
			o.validWord = 0
		}
		v = v[5+l:]
	}
	return publishErr(o.valueOffsets.add(o.nvals))
}

// close writes the validity bitmap's last word and what every stream holds, and closes
// them.
func (o *mergeOut) close() error {
	if o.vValid != nil && o.nvals%64 != 0 {
		if err := o.vValid.add(o.validWord); err != nil {
			return publishErr(err)
		}
	}
	if o.vType != nil {
		_, err := o.vType.Write(o.types)
		if cerr := o.vType.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return publishErr(err)
		}
	}
	for _, w := range o.outs() {
		if err := w.close(); err != nil {
			return publishErr(err)
		}
	}
	return nil
}

// spillPlan is where Run lets a scan spill: the store and the ID of the snapshot whose
// staging attempt holds the runs, and the spiller the read used (nil: none).
type spillPlan struct {
	open func() (*snapshot.Store, error) // see ObserveSpillingTo
	id   snapshot.ID
	sp   *spiller
	done bool
}

// spilled reports whether the scan wrote sorted runs; false on a nil plan.
func (p *spillPlan) spilled() bool { return p != nil && p.sp != nil && p.sp.spilled() }

// abort ends an unpublished attempt: its spill files are removed, the attempt itself
// stays in staging for inspection (C5). Nothing happens after a publish.
func (p *spillPlan) abort() {
	if p.done || p.sp == nil || p.sp.w == nil {
		return
	}
	// An abort that cannot remove the spill files leaves them in the attempt, where
	// InspectIncomplete shows it and gc-staging removes it; the scan's own error is
	// the one to report.
	_ = p.sp.w.Abort()
}

// publish writes the small arrays, merges the runs into the per-record payloads and
// commits the snapshot.
func (p *spillPlan) publish(ctx context.Context, o Options, sc *repo.Scan, arrs map[string]snapshot.Array, progress snapshot.ProgressFunc) error {
	w := p.sp.w
	for _, k := range slices.Sorted(maps.Keys(arrs)) {
		if err := w.Put(k, arrs[k]); err != nil {
			return &Error{Code: CodePublish, Op: "publish", Msg: "snapshot store", Err: err}
		}
	}
	var fn func(done, total uint64)
	if o.Progress != nil {
		rows := uint64(sc.Descriptor.Rows)
		o.Progress(Progress{Phase: PhaseSort, Rows: rows})
		fn = func(done, total uint64) {
			o.Progress(Progress{Phase: PhaseWrite, Rows: rows, Bytes: done, BytesTotal: total})
		}
	}
	if err := p.sp.merge(sc, len(sc.Descriptor.KeyFields) > 0, fn); err != nil {
		return err
	}
	if err := w.Commit(ctx, sc.Metadata, progress); err != nil {
		return &Error{Code: CodePublish, Op: "publish", Msg: "snapshot store", Err: err}
	}
	p.done = true
	return nil
}
