package fingerprint

import (
	"math/bits"
	"runtime"
	"slices"
	"sort"
	"sync"
	"unsafe"

	"github.com/pipewhy/pipewhy/internal/hugemem"
)

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

// merge sums the partial states and merges the sorted record entries. Sums commute, and
// the entries are totally ordered by their words, so the result does not depend on how
// records were spread over workers.
func (e *Engine) merge(parts []*partial) *Result {
	collectSorted(parts)
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
	switch {
	case e.opt.KeyWords && e.opt.KeyStore:
		r.Keys = &KeyStore{stores: make([]wordStore, len(parts)), refs: make([]uint64, total)}
		for w, p := range parts {
			r.Keys.stores[w] = p.keys
		}
		hugemem.Advise(r.Keys.refs)
	case e.opt.KeyWords:
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

// entryBytes is the size of an entry.
const entryBytes = int64(unsafe.Sizeof(entry{}))

// sortedGCBytes is how many bytes of entry blocks the sort must have let go for the
// merge to collect them first (collectSorted).
var sortedGCBytes int64 = 16 << 20

// collectSorted runs a garbage collection when the workers' sorts let go of at least
// sortedGCBytes of entry blocks, so that the merge's outputs reuse that memory instead
// of growing the heap beside it: the blocks are as large as the sorted entries, and a
// collection is not otherwise due before the merge allocates (the heap grows to twice
// its live size first); docs/performance.md, "Compare", gives the peak of 'pipewhy
// compare' with it and what that peak holds. The collection's cost is small
// beside the merge's: the entries hold no pointers, so marking skips them.
func collectSorted(parts []*partial) {
	var released int64
	for _, p := range parts {
		released += p.released
		p.released = 0
	}
	if released >= sortedGCBytes {
		runtime.GC()
	}
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
	gatherKeys := len(parts) > 0 && parts[0].e.opt.KeyWords && !parts[0].e.opt.KeyStore
	if gatherKeys {
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
		if gatherKeys {
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
	gatherKeys := e.opt.KeyWords && !e.opt.KeyStore
	if r.Keys != nil {
		copy(r.Keys.refs[g.first:], g.refs)
	}
	if !wantVals && !e.opt.Origins && !gatherKeys {
		return
	}
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
		if gatherKeys {
			kat += p.keys.copyRun(r.KeyWords[kat:], g.locs[i])
			r.KeyOffsets[x+1] = uint64(kat)
		}
	}
}
