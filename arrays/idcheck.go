package arrays

import (
	"math"
	"math/rand/v2"
)

// Cache-friendly id checks.
//
// A hash or direct-address index answers one lookup with one random memory
// access; over a table of millions of rows that is one cache miss per row,
// and a parent walk over rows in random physical order chains those misses
// one after the other. The checks below instead work in passes that read and
// write memory sequentially, or that scatter and gather without a dependency
// between one access and the next:
//
//   - id uniqueness: dense ids (span < 2n+64) set bits in a presence bitmap
//     of span bits (under 4 bits per row, mostly cache resident); sparse ids
//     are hash-partitioned into cache-sized buckets (partition.go), stably,
//     so the lowest later row of a duplicated id is found exactly;
//   - parent resolution: dense ids test the presence bitmap; sparse ids join
//     the partitioned (parent_id, row) pairs with the partitioned ids, one
//     bucket at a time, into a parent-row array;
//   - containment cycles: if every parent id is below its child's id, or
//     every parent row below its child's row, there is no cycle, which one
//     sequential pass proves; otherwise leaves are peeled off the parent-row
//     forest (Kahn), whose accesses within a wave are independent. Only when
//     a cycle exists does the stamping walk (findCycle) run, over rows, so
//     the error is the one of the contract's fixed order (the lowest row of
//     the cycle reached from the lowest row that reaches one).
//
// Every pass is linear (expected linear for the seeded hash partition) and
// iterative. Extra memory per row is at most about 40 bytes: sparse ids
// take 16 per id pair, 16 per parent pair and 4 for the parent row; dense
// ids under 20 (bitmap, parent slots, slot-to-row). Peeling adds 8 per row
// and the walk 8. Slots and rows are uint32; tables that slotRows does not admit
// (2**32-1 rows or more; on a 32-bit platform, those whose tables would not fit
// an int) use the index path (artifactRows).

// noSlot marks a row without a parent slot: a root, or an unresolved parent
// before the row rules have rejected it.
const noSlot = math.MaxUint32

// idSpan scans an id column once, rejecting Absent at the lowest row, and
// returns the smallest and largest id. ids must not be empty.
func idSpan(table, column string, ids []uint64) (lo, hi uint64, err error) {
	lo, hi = math.MaxUint64, 0
	for i, id := range ids {
		if id == Absent {
			return 0, 0, rowErr(opValidate, table, column, i, CodeSentinelID)
		}
		lo = min(lo, id)
		hi = max(hi, id)
	}
	return lo, hi, nil
}

// isDense reports whether n ids within [lo, hi] use direct addressing: the
// span is below 2n+64 (so direct tables cost O(n)) and fits uint32 slots.
// hi-lo cannot wrap: both are below Absent and lo <= hi.
func isDense(n int, lo, hi uint64) bool {
	span := hi - lo
	return slotRows(n, math.MaxInt) && span < 2*uint64(n)+64 && span < math.MaxUint32-1
}

// presence sets bit id-lo of a bitmap of hi-lo+1 bits for every id and
// returns it, or the lowest row whose id is set already (-1 if none).
func presence(ids []uint64, lo, hi uint64) ([]uint64, int) {
	set := make([]uint64, (hi-lo)/64+1)
	for i, id := range ids {
		s := id - lo
		w, b := &set[s>>6], uint64(1)<<(s&63)
		if *w&b != 0 {
			return nil, i
		}
		*w |= b
	}
	return set, -1
}

// checkUnique checks an id column that nothing else looks up: no Absent (the
// lowest such row), then no duplicate (the lowest row whose id occurs at an
// earlier row), the same errors newIndex reports, without building an index.
func checkUnique(table, column string, ids []uint64) error {
	n := len(ids)
	if n == 0 {
		return nil
	}
	if !slotRows(n, math.MaxInt) {
		_, err := newIndex(table, column, ids)
		return err
	}
	lo, hi, err := idSpan(table, column, ids)
	if err != nil {
		return err
	}
	dup := -1
	if isDense(n, lo, hi) {
		_, dup = presence(ids, lo, hi)
	} else {
		dup, _ = partitionIDs(ids, rand.Uint64()).join(nil, lo, hi)
	}
	if dup >= 0 {
		return rowErr(opValidate, table, column, dup, CodeDuplicateID)
	}
	return nil
}

// validateArtifacts is the artifact validator after the length and context
// checks, for tables that slotRows admits. It reports exactly the
// errors of artifactRows, in the same order.
func validateArtifacts(ctx *Context, t *ArtifactTable, n int) error {
	const table = string(TableArtifact)
	if n == 0 {
		return nil
	}
	ids, parents := t.ArtifactID[:n], t.ParentID[:n]
	lo, hi, err := idSpan(table, "artifact_id", ids)
	if err != nil {
		return err
	}
	if isDense(n, lo, hi) {
		return denseArtifacts(ctx, t, n, lo, hi)
	}
	// Sparse ids: hash-partitioned join of (id, row) with (parent_id, row).
	dup, parent := partitionIDs(ids, rand.Uint64()).join(parents, lo, hi) // parent row, by row
	if dup >= 0 {
		return rowErr(opValidate, table, "artifact_id", dup, CodeDuplicateID)
	}
	if err := artifactRules(ctx, t, parent); err != nil {
		return err
	}
	if idOrdered(ids, parents) || rowOrdered(parent) || acyclic(parent) {
		return nil
	}
	return cycleRows(parent)
}

// idOrdered reports whether every parent id is below its child's id, which
// rules out a cycle: ids strictly decrease along every parent chain.
func idOrdered(ids, parents []uint64) bool {
	parents = parents[:len(ids)]
	for i, id := range ids {
		if p := parents[i]; p != Absent && p >= id {
			return false
		}
	}
	return true
}

// rowOrdered reports whether every parent row precedes its child row, which
// rules out a cycle.
func rowOrdered(parent []uint32) bool {
	for i, p := range parent {
		if p != noSlot && p >= uint32(i) {
			return false
		}
	}
	return true
}

// acyclic reports whether the parent-row forest has no cycle, by peeling
// leaves (Kahn's algorithm): a row with no child is removed and its parent
// loses a child; exactly the rows on cycles are never removed. Unlike a walk
// up the parents, the accesses of one wave of leaves do not depend on each
// other, so cache misses overlap.
func acyclic(parent []uint32) bool {
	n := len(parent)
	children := make([]uint32, n)
	for _, p := range parent {
		if p != noSlot {
			children[p]++
		}
	}
	queue := make([]uint32, 0, n)
	for i, c := range children {
		if c == 0 {
			queue = append(queue, uint32(i))
		}
	}
	for h := 0; h < len(queue); h++ {
		if p := parent[queue[h]]; p != noSlot {
			if children[p]--; children[p] == 0 {
				queue = append(queue, p)
			}
		}
	}
	return len(queue) == n
}

// cycleRows runs the stamping walk over rows, whose error is the contract's.
func cycleRows(parent []uint32) error {
	nodes := make([]node[uint32], len(parent))
	for i, p := range parent {
		nodes[i].parent = p
	}
	return findCycle(nodes)
}

// denseArtifacts validates an artifact table whose ids lie in [lo, hi], a
// span below 2n+64: slots are id-lo.
func denseArtifacts(ctx *Context, t *ArtifactTable, n int, lo, hi uint64) error {
	const table = string(TableArtifact)
	ids, parents := t.ArtifactID[:n], t.ParentID[:n]
	set, dup := presence(ids, lo, hi)
	if dup >= 0 {
		return rowErr(opValidate, table, "artifact_id", dup, CodeDuplicateID)
	}
	span := hi - lo
	slot := make([]uint32, n) // parent's slot, by row
	for i, p := range parents {
		s := p - lo
		slot[i] = noSlot
		if s <= span && set[s>>6]>>(s&63)&1 != 0 {
			slot[i] = uint32(s)
		}
	}
	if err := artifactRules(ctx, t, slot); err != nil {
		return err
	}
	if idOrdered(ids, parents) {
		return nil
	}
	// Row order: rowOf maps a slot to its row; slot becomes the parent row.
	rowOf := make([]uint32, span+1)
	for i, id := range ids {
		rowOf[id-lo] = uint32(i)
	}
	for i, s := range slot {
		if s != noSlot {
			slot[i] = rowOf[s]
		}
	}
	if rowOrdered(slot) || acyclic(slot) {
		return nil
	}
	return cycleRows(slot)
}

// artifactRules checks the artifact row rules row by row, each row's columns
// left to right. slot[i] is noSlot when row i's parent is Absent or does not
// resolve.
func artifactRules(ctx *Context, t *ArtifactTable, slot []uint32) error {
	const table = string(TableArtifact)
	n := len(slot)
	ids, parents, kinds, names := t.ArtifactID[:n], t.ParentID[:n], t.KindID[:n], t.NameID[:n]
	for i, id := range ids {
		switch p := parents[i]; {
		case p == Absent:
		case p == id:
			return rowErr(opValidate, table, "parent_id", i, CodeSelfParent)
		case slot[i] == noSlot:
			return rowErr(opValidate, table, "parent_id", i, CodeUnresolved)
		}
		if !ctx.Kinds.Contains(uint64(kinds[i])) {
			return rowErr(opValidate, table, "kind_id", i, CodeUnresolved)
		}
		if c := ref(ctx.Names, names[i]); c != "" {
			return rowErr(opValidate, table, "name_id", i, c)
		}
	}
	return nil
}
