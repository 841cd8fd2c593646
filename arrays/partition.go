package arrays

import (
	"math"
	"math/bits"
	"math/rand/v2"
	"slices"
)

// Hash-partitioned id join.
//
// For sparse ids (a span of 2n+64 or more) a global hash table costs a cache
// miss per insert and per lookup. Instead the (id, row) pairs and the
// (parent_id, row) pairs are scattered, each in one sequential pass, into
// buckets by the top bits of a seeded hash, so that one bucket's ids fit in
// a small hash table that stays in cache while the bucket's ids are inserted
// and its parents are looked up. The partition is stable: a bucket holds its
// pairs in row order, so the first repeated id met in a bucket is the lowest
// later row of a duplicate within that bucket, and the minimum over buckets
// is exactly the row the row-order index reports. The seed is random per
// call, so crafted ids cannot pile into one bucket or one probe run; expected
// cost is linear.

// entry is one (id, row) pair with the low 32 bits of the id's hash, which
// place it in its bucket's table (the bucket is the hash's top bits). The
// hash fills what would be padding.
type entry struct {
	key  uint64
	row  uint32
	hash uint32
}

// idParts is an id column partitioned into buckets: bucket b holds
// ents[start[b]:start[b+1]], in row order.
type idParts struct {
	seed  uint64
	shift uint // bucket of a key: mix(key, seed) >> shift
	start []uint32
	ents  []entry
}

// mix is the splitmix64 finalizer of the seeded key.
func mix(k, seed uint64) uint64 {
	z := k ^ seed
	z = (z ^ z>>30) * 0xbf58476d1ce4e5b9
	z = (z ^ z>>27) * 0x94d049bb133111eb
	return z ^ z>>31
}

// bucketLog is log2 of the largest target bucket size: buckets of 4096 to
// 8192 pairs (up to about 10000 for tables of over 8M rows, see
// maxBucketBits) keep a bucket's pairs and table (a few hundred KiB) in a
// core's L2 cache. Tests lower it to exercise many buckets on small tables.
var bucketLog = 13

// maxBucketBits caps the fan-out of the partition pass: scattering to more
// than 1024 output streams costs more in TLB and cache misses than larger
// buckets cost in the join (measured: 1024 streams about half the CPU time
// per pair of 4096 streams at 10M pairs).
const maxBucketBits = 10

// partitionIDs partitions the (id, row) pairs of ids (slotRows(len(ids))) into
// buckets of about 2**(bucketLog-1) to 2**bucketLog pairs, at most
// 2**maxBucketBits buckets.
func partitionIDs(ids []uint64, seed uint64) *idParts {
	b := min(uint(bits.Len(uint(len(ids))>>bucketLog)), maxBucketBits)
	x := &idParts{seed: seed, shift: 64 - b}
	x.start, x.ents = x.partition(ids, 0, Absent-1)
	return x
}

// partition scatters the pairs (keys[i], i) with keys[i]-lo <= hi-lo into
// x's buckets, stably; the others are left out.
func (x *idParts) partition(keys []uint64, lo, hi uint64) ([]uint32, []entry) {
	start := make([]uint32, 1<<(64-x.shift)+1)
	m := 0
	for _, k := range keys {
		if k-lo <= hi-lo {
			start[mix(k, x.seed)>>x.shift+1]++
			m++
		}
	}
	for b := 1; b < len(start); b++ {
		start[b] += start[b-1]
	}
	next := slices.Clone(start[:len(start)-1])
	ents := make([]entry, m)
	for i, k := range keys {
		if k-lo <= hi-lo {
			h := mix(k, x.seed)
			b := h >> x.shift
			j := next[b]
			next[b] = j + 1
			ents[j] = entry{k, uint32(i), uint32(h)}
		}
	}
	return start, ents
}

// bucketTable is an open-addressing table of positions in one bucket
// (position+1; 0 is empty), reused from bucket to bucket.
type bucketTable struct {
	slots []uint32
	mask  uint64
}

// reset sizes the table for m keys (load factor <= 1/2) and empties it. m is at most
// the rows of a table that slotRows admits, so 2*m and the size do not wrap an int.
func (t *bucketTable) reset(m int) {
	size := max(16, 1<<bits.Len(uint(2*m)))
	if cap(t.slots) < size {
		t.slots = make([]uint32, size)
	}
	t.slots = t.slots[:size]
	clear(t.slots)
	t.mask = uint64(size - 1)
}

// insert adds bucket position j with key k, or returns the position already
// holding k.
func (t *bucketTable) insert(ents []entry, j int, k, h uint64) (int, bool) {
	for s := h & t.mask; ; s = (s + 1) & t.mask {
		q := t.slots[s]
		if q == 0 {
			t.slots[s] = uint32(j) + 1
			return 0, false
		}
		if ents[q-1].key == k {
			return int(q - 1), true
		}
	}
}

// find returns the bucket position holding k.
func (t *bucketTable) find(ents []entry, k, h uint64) (int, bool) {
	for s := h & t.mask; ; s = (s + 1) & t.mask {
		q := t.slots[s]
		if q == 0 {
			return 0, false
		}
		if ents[q-1].key == k {
			return int(q - 1), true
		}
	}
}

// join checks the ids for duplicates and resolves refs against them. It
// returns the lowest row whose id occurs at an earlier row (-1 if none) and,
// when there is none and refs is not nil, each ref's row (noSlot when the
// ref is outside [lo, hi], Absent among them, or not an id), by ref row.
func (x *idParts) join(refs []uint64, lo, hi uint64) (dup int, rowOf []uint32) {
	var rstart []uint32
	var rents []entry
	if refs != nil {
		rstart, rents = x.partition(refs, lo, hi)
		rowOf = make([]uint32, len(refs))
		for i := range rowOf {
			rowOf[i] = noSlot
		}
	}
	dup = -1
	var tab bucketTable
	for b := range len(x.start) - 1 {
		ents := x.ents[x.start[b]:x.start[b+1]]
		tab.reset(len(ents))
		for j, e := range ents {
			if _, seen := tab.insert(ents, j, e.key, uint64(e.hash)); seen {
				if dup < 0 || int(e.row) < dup {
					dup = int(e.row)
				}
				break // later pairs of the bucket have higher rows
			}
		}
		if dup >= 0 || refs == nil {
			continue
		}
		for _, r := range rents[rstart[b]:rstart[b+1]] {
			if j, ok := tab.find(ents, r.key, uint64(r.hash)); ok {
				rowOf[r.row] = ents[j].row
			}
		}
	}
	if dup >= 0 {
		return dup, nil
	}
	return -1, rowOf
}

// idTable is the unique, sentinel-free id column of a table that other
// tables reference. It resolves a whole reference column at a time: dense
// ids through a direct-address Index, sparse ids by a partitioned join
// (idParts.join), tables that slotRows does not admit through a hash Index.
type idTable struct {
	ids    []uint64
	lo, hi uint64
	index  *Index   // dense or huge tables
	parts  *idParts // sparse ids
}

// newIDTable checks ids like newIndex (Absent at the lowest row, then the
// lowest row whose id occurs at an earlier row) and prepares resolution.
func newIDTable(table, column string, ids []uint64) (*idTable, error) {
	n := len(ids)
	if n == 0 || !slotRows(n, math.MaxInt) {
		idx, err := newIndex(table, column, ids)
		return &idTable{index: idx}, err
	}
	lo, hi, err := idSpan(table, column, ids)
	if err != nil {
		return nil, err
	}
	x := &idTable{ids: ids, lo: lo, hi: hi}
	if isDense(n, lo, hi) {
		x.index, err = newIndex(table, column, ids)
		return x, err
	}
	x.parts = partitionIDs(ids, rand.Uint64())
	if dup, _ := x.parts.join(nil, lo, hi); dup >= 0 {
		return nil, rowErr(opValidate, table, column, dup, CodeDuplicateID)
	}
	return x, nil
}

// resolved is a reference column resolved against an idTable.
type resolved struct {
	rows []uint32 // row of refs[i], noSlot if none; nil: ask index
	refs []uint64
	idx  *Index
}

// resolve resolves refs. Absent never resolves.
func (x *idTable) resolve(refs []uint64) resolved {
	if x.parts != nil && !slotRows(len(refs), math.MaxInt) {
		// Pair rows are uint32 (and the pairs must be addressable): index the ids
		// instead (they are valid, and slotRows(len(x.ids)) leaves room for the index).
		x.index, _ = newIndex("", "", x.ids)
		x.parts = nil
	}
	switch {
	case x.parts != nil:
		_, rows := x.parts.join(refs, x.lo, x.hi)
		if rows == nil { // refs is nil: no rows
			rows = []uint32{}
		}
		return resolved{rows: rows}
	case x.index.dense != nil:
		// Independent lookups in one loop, apart from the row rules.
		rows := make([]uint32, len(refs))
		base, dense := x.index.base, x.index.dense
		for i, id := range refs {
			rows[i] = noSlot
			if s := id - base; s < uint64(len(dense)) {
				rows[i] = dense[s] - 1 // 0 (empty) becomes noSlot
			}
		}
		return resolved{rows: rows}
	}
	return resolved{refs: refs, idx: x.index}
}

// row returns the row that reference i resolves to, and whether it does.
func (r *resolved) row(i int) (int, bool) {
	if r.rows != nil {
		v := r.rows[i]
		return int(v), v != noSlot
	}
	return r.idx.Row(r.refs[i])
}
