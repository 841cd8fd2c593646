package arrays

import (
	"math"
	"math/bits"
	"math/rand/v2"
	"unsafe"
)

// IDSet is a caller-supplied set of valid ids: a dictionary (names, kinds),
// a normalization schema (fields, types) or a registry (snapshots, policies,
// algorithms, evidence, transforms, grouping policies). Validators never guess
// membership from integer ranges. Implementations must be safe for concurrent
// Contains calls if they are shared between goroutines.
type IDSet interface {
	Contains(id uint64) bool
}

// Context supplies the valid-id sets that table references resolve in
// (PW-02.10). A nil set that a validated column needs is an error
// (CodeMissingContext), never "accept everything".
type Context struct {
	Names            IDSet // artifact.name_id
	Kinds            IDSet // artifact.kind_id (adapter-defined codes of the scan)
	Fields           IDSet // value.field_id (normalization schema)
	Types            IDSet // value.type_id (normalization schema)
	Snapshots        IDSet // observation.snapshot_id
	Policies         IDSet // observation.policy_id
	Algorithms       IDSet // observation.algorithm_id
	Evidence         IDSet // lineage_edge.evidence_id, incident.evidence_id
	Transforms       IDSet // lineage_edge.transform_id
	GroupingPolicies IDSet // incident.grouping_policy_id
}

// Index maps each id of a unique, sentinel-free id column to its row. It is an
// IDSet. Lookups cost O(1) expected time; building costs O(n). Dense id ranges
// use a direct-address table; other ids an open-addressing hash table with a
// random per-index seed, so crafted ids cannot force quadratic probing.
type Index struct {
	n int
	// direct mode: dense[id-base] = row+1, 0 = empty.
	base  uint64
	dense []uint32
	// hash mode: slots[s].key == Absent marks an empty slot. Key and row
	// share a slot, so a lookup touches one cache line.
	seed  uint64
	shift uint
	slots []idSlot
}

type idSlot struct{ key, row uint64 }

// NewIndex builds an index over ids, which must be unique (CodeDuplicateID,
// reported at the later row) and never Absent (CodeSentinelID).
func NewIndex(ids []uint64) (*Index, error) {
	return newIndex("", "", ids)
}

// NewIDSet returns the set of the given ids. Absent is rejected
// (CodeSentinelID); duplicates are allowed in this convenience form.
func NewIDSet(ids ...uint64) (*Index, error) {
	seen := make(map[uint64]struct{}, len(ids))
	uniq := make([]uint64, 0, len(ids))
	for _, id := range ids {
		if _, ok := seen[id]; !ok {
			seen[id] = struct{}{}
			uniq = append(uniq, id)
		}
	}
	return newIndex("", "", uniq)
}

func newIndex(table, column string, ids []uint64) (*Index, error) {
	n := len(ids)
	x := &Index{n: n}
	if n == 0 {
		return x, nil
	}
	lo, hi := uint64(math.MaxUint64), uint64(0)
	for i, id := range ids {
		if id == Absent {
			return nil, rowErr("validate", table, column, i, CodeSentinelID)
		}
		lo = min(lo, id)
		hi = max(hi, id)
	}
	// hi-lo cannot wrap: both are below Absent and lo <= hi.
	if span := hi - lo; slotRows(n, math.MaxInt) && span < 2*uint64(n)+64 {
		x.base = lo
		x.dense = make([]uint32, span+1)
		for i, id := range ids {
			s := &x.dense[id-lo]
			if *s != 0 {
				return nil, rowErr("validate", table, column, i, CodeDuplicateID)
			}
			*s = uint32(i) + 1
		}
		return x, nil
	}
	// Table size: power of two with load factor <= 2/3.
	// Checked, not wrapped: on a 32-bit platform the slots of a large table need more
	// than an int of bytes (and size itself can exceed an int).
	size := uint64(1) << bits.Len64(uint64(n)+uint64(n)/2)
	slots, err := allocLen(table, column, size, uint64(unsafe.Sizeof(idSlot{})), math.MaxInt)
	if err != nil {
		return nil, err
	}
	x.shift = uint(64 - bits.TrailingZeros64(size))
	x.seed = rand.Uint64() | 1
	x.slots = make([]idSlot, slots)
	for i := range x.slots {
		x.slots[i].key = Absent
	}
	mask := size - 1
	for i, id := range ids {
		s := x.slot(id)
		for {
			k := x.slots[s].key
			if k == Absent {
				x.slots[s] = idSlot{id, uint64(i)}
				break
			}
			if k == id {
				return nil, rowErr("validate", table, column, i, CodeDuplicateID)
			}
			s = (s + 1) & mask
		}
	}
	return x, nil
}

func (x *Index) slot(id uint64) uint64 {
	// splitmix64 finalizer over the seeded key, then the top bits.
	z := id ^ x.seed
	z = (z ^ z>>30) * 0xbf58476d1ce4e5b9
	z = (z ^ z>>27) * 0x94d049bb133111eb
	z ^= z >> 31
	return z >> x.shift
}

// Len returns the number of ids in the index.
func (x *Index) Len() int { return x.n }

// Row returns the row of id, and whether id is present.
func (x *Index) Row(id uint64) (int, bool) {
	if x.dense != nil {
		if id < x.base || id-x.base >= uint64(len(x.dense)) {
			return 0, false
		}
		r := x.dense[id-x.base]
		return int(r) - 1, r != 0
	}
	if x.slots == nil || id == Absent {
		return 0, false
	}
	mask := uint64(len(x.slots) - 1)
	for s := x.slot(id); ; s = (s + 1) & mask {
		switch sl := &x.slots[s]; sl.key {
		case id:
			return int(sl.row), true
		case Absent:
			return 0, false
		}
	}
}

// Contains reports whether id is in the index.
func (x *Index) Contains(id uint64) bool {
	_, ok := x.Row(id)
	return ok
}
