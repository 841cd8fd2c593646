package arrays

import (
	"errors"
	"math/rand/v2"
	"slices"
	"testing"
)

// refIndex is the reference id check: Absent at the lowest row first, then,
// inserting in row order into a Go map, the first row whose id is present.
func refIndex(table, column string, ids []uint64) (map[uint64]int, error) {
	for i, id := range ids {
		if id == Absent {
			return nil, rowErr(opValidate, table, column, i, CodeSentinelID)
		}
	}
	row := make(map[uint64]int, len(ids))
	for i, id := range ids {
		if _, ok := row[id]; ok {
			return nil, rowErr(opValidate, table, column, i, CodeDuplicateID)
		}
		row[id] = i
	}
	return row, nil
}

// refArtifactValidate is the artifact validator as it was before the
// bitmap, partition and order passes: an index in row order, the row rules
// row by row, then the stamping walk over rows (the original findCycle,
// copied here so that the reference does not share code with the path under
// test).
func refArtifactValidate(ctx *Context, t *ArtifactTable) error {
	const table = string(TableArtifact)
	if ctx == nil {
		ctx = &emptyContext
	}
	n, err := checkLengths(TableArtifact, t.columns())
	if err != nil {
		return err
	}
	if err := checkContexts(TableArtifact, need{"kind_id", ctx.Kinds}, need{"name_id", ctx.Names}); err != nil {
		return err
	}
	rowOf, err := refIndex(table, "artifact_id", t.ArtifactID)
	if err != nil {
		return err
	}
	parent := make([]int, n)
	for i, id := range t.ArtifactID[:n] {
		switch p := t.ParentID[i]; {
		case p == Absent:
			parent[i] = -1
		case p == id:
			return rowErr(opValidate, table, "parent_id", i, CodeSelfParent)
		default:
			r, ok := rowOf[p]
			if !ok {
				return rowErr(opValidate, table, "parent_id", i, CodeUnresolved)
			}
			parent[i] = r
		}
		if !ctx.Kinds.Contains(uint64(t.KindID[i])) {
			return rowErr(opValidate, table, "kind_id", i, CodeUnresolved)
		}
		if c := ref(ctx.Names, t.NameID[i]); c != "" {
			return rowErr(opValidate, table, "name_id", i, c)
		}
	}
	stamp := make([]int, n)
	for i := range n {
		if stamp[i] != 0 {
			continue
		}
		s := i + 1
		for j := i; ; {
			if stamp[j] != 0 {
				if stamp[j] == s {
					lowest := j
					for k := parent[j]; k != j; k = parent[k] {
						lowest = min(lowest, k)
					}
					return rowErr(opValidate, table, "parent_id", lowest, CodeCycle)
				}
				break
			}
			stamp[j] = s
			if parent[j] < 0 {
				break
			}
			j = parent[j]
		}
	}
	return nil
}

// sameErr reports whether two validator results are identical: both nil, or
// *Errors with equal fields.
func sameErr(a, b error) bool {
	var ea, eb *Error
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	return errors.As(a, &ea) && errors.As(b, &eb) && *ea == *eb
}

// withBucketLog lowers the partition bucket size so that small tables spread
// over many buckets.
func withBucketLog(t *testing.T, b int) {
	old := bucketLog
	bucketLog = b
	t.Cleanup(func() { bucketLog = old })
}

// smallCtx resolves kinds and names 0..5 only.
func smallCtx(t testing.TB) *Context {
	s, err := NewIDSet(0, 1, 2, 3, 4, 5)
	if err != nil {
		t.Fatal(err)
	}
	return &Context{Names: s, Kinds: s}
}

// randIDs returns n distinct ids of one of several layouts.
func randIDs(r *rand.Rand, n int) []uint64 {
	seen := map[uint64]bool{Absent: true}
	ids := make([]uint64, 0, n)
	add := func(id uint64) bool {
		if seen[id] {
			return false
		}
		seen[id] = true
		ids = append(ids, id)
		return true
	}
	switch r.IntN(6) {
	case 0: // dense from 0
		for _, p := range r.Perm(n) {
			add(uint64(p))
		}
	case 1: // dense with gaps, right below the sentinel
		base := Absent - uint64(2*n+2)
		for _, p := range r.Perm(2*n + 1)[:n] {
			add(base + uint64(p))
		}
	case 2: // random 64-bit
		for len(ids) < n {
			add(r.Uint64())
		}
	case 3: // increasing with random gaps: id order means something
		v := r.Uint64N(1 << 40)
		for len(ids) < n {
			v += 1 + r.Uint64N(1<<(1+r.IntN(40)))
			add(v)
		}
	case 4: // two far clusters
		for len(ids) < n {
			if r.IntN(2) == 0 {
				add(r.Uint64N(uint64(4 * (n + 1))))
			} else {
				add(Absent - 1 - r.Uint64N(uint64(4*(n+1))))
			}
		}
	default: // sparse, span just above the dense limit
		for len(ids) < n {
			add(r.Uint64N(uint64(3*n + 70)))
		}
	}
	return ids
}

// randArtifacts builds an n-row artifact table: a forest over nodes (random
// recursive tree, chain, wide tree, or random parents), nodes mapped to ids
// in increasing or random order and to rows in node, reversed or random
// order, then a few faults: cycles of random lengths, self parents,
// unresolved parents, duplicate ids, the sentinel as an id, bad kinds and
// names.
func randArtifacts(r *rand.Rand, n int) *ArtifactTable {
	ids := randIDs(r, n)
	if r.IntN(2) == 0 {
		slices.Sort(ids) // node v gets the v-th smallest id
	}
	parentNode := make([]int, n) // -1: root
	shape := r.IntN(4)
	for v := range n {
		switch {
		case v == 0 || r.IntN(20) == 0:
			parentNode[v] = -1
		case shape == 0:
			parentNode[v] = r.IntN(v)
		case shape == 1:
			parentNode[v] = v - 1
		case shape == 2:
			parentNode[v] = (v - 1) / 8
		default:
			parentNode[v] = r.IntN(n) // may form cycles or self loops
		}
	}
	for range r.IntN(3) * r.IntN(2) { // cycles
		l := 2 + r.IntN(max(1, min(n-1, 1+r.IntN(50))))
		if l > n {
			break
		}
		c := r.Perm(n)[:l]
		for k := range c {
			parentNode[c[k]] = c[(k+1)%l]
		}
	}
	rowOfNode := make([]int, n)
	switch r.IntN(3) {
	case 0:
		for v := range rowOfNode {
			rowOfNode[v] = v
		}
	case 1:
		for v := range rowOfNode {
			rowOfNode[v] = n - 1 - v
		}
	default:
		copy(rowOfNode, r.Perm(n))
	}
	a := &ArtifactTable{ArtifactID: make([]uint64, n), ParentID: make([]uint64, n),
		KindID: make([]uint8, n), NameID: make([]uint64, n)}
	for v := range n {
		i := rowOfNode[v]
		a.ArtifactID[i] = ids[v]
		a.ParentID[i] = Absent
		if p := parentNode[v]; p >= 0 {
			a.ParentID[i] = ids[p]
		}
		a.KindID[i] = uint8(r.IntN(6))
		a.NameID[i] = uint64(r.IntN(6))
	}
	if n == 0 {
		return a
	}
	for range r.IntN(3) {
		i := r.IntN(n)
		switch r.IntN(9) {
		case 0:
			a.ParentID[i] = a.ArtifactID[i]
		case 1:
			a.ParentID[i] = r.Uint64() // almost surely unresolved
		case 2:
			a.ParentID[i] = slices.Max(ids) + 1 // above the span, or Absent
		case 3:
			a.ParentID[i] = slices.Min(ids) - 1 // below the span, or wraps
		case 4: // one or more repeated ids, in any rows
			for range 1 + r.IntN(3) {
				a.ArtifactID[r.IntN(n)] = a.ArtifactID[r.IntN(n)]
			}
		case 5:
			a.ArtifactID[i] = Absent
		case 6:
			a.KindID[i] = 6 + uint8(r.IntN(250))
		case 7:
			a.NameID[i] = []uint64{6, Absent, Absent - 1}[r.IntN(3)]
		}
	}
	return a
}

// TestArtifactMatchesReference compares the artifact validator with the
// reference on random tables of every id layout, structure and row order,
// with duplicates, missing parents, self parents, cycles and sentinels.
func TestArtifactMatchesReference(t *testing.T) {
	ctx := smallCtx(t)
	iters := 6000
	if testing.Short() {
		iters = 1500
	}
	for _, bl := range []int{12, 3, 0} {
		r := rand.New(rand.NewPCG(11, uint64(bl)))
		withBucketLog(t, bl)
		codes := map[Code]int{}
		for iter := range iters {
			n := r.IntN(40)
			if iter%10 == 0 {
				n = r.IntN(3000)
			}
			a := randArtifacts(r, n)
			got, want := a.Validate(ctx), refArtifactValidate(ctx, a)
			if !sameErr(got, want) {
				t.Fatalf("bucketLog %d iter %d (n=%d): got %v, want %v\nids %v\nparents %v",
					bl, iter, n, got, want, a.ArtifactID, a.ParentID)
			}
			codes[CodeOf(want)]++
		}
		// The generator must reach every outcome, or the comparison is weak.
		for _, c := range []Code{"", CodeSentinelID, CodeDuplicateID, CodeSelfParent, CodeUnresolved, CodeCycle} {
			if codes[c] < iters/200 {
				t.Errorf("bucketLog %d: outcome %q only %d times: %v", bl, c, codes[c], codes)
			}
		}
	}
}

// TestCheckUniqueMatchesReference: the id checks of tables that nothing
// looks up report what an index built in row order reports.
func TestCheckUniqueMatchesReference(t *testing.T) {
	r := rand.New(rand.NewPCG(13, 14))
	withBucketLog(t, 2)
	for iter := range 3000 {
		n := r.IntN(60)
		if iter%20 == 0 {
			n = r.IntN(5000)
		}
		ids := randIDs(r, n)
		if n > 0 {
			for range r.IntN(4) {
				switch i := r.IntN(n); r.IntN(4) {
				case 0:
					ids[i] = Absent
				default:
					ids[i] = ids[r.IntN(n)]
				}
			}
		}
		_, want := refIndex("t", "c", ids)
		got := checkUnique("t", "c", ids)
		if !sameErr(got, want) {
			t.Fatalf("iter %d: checkUnique %v, want %v (ids %v)", iter, got, want, ids)
		}
		if _, err := newIndex("t", "c", ids); !sameErr(err, want) {
			t.Fatalf("iter %d: newIndex %v, want %v", iter, err, want)
		}
	}
}

// TestArtifactCycleRows: hand-derived cases for the row the cycle error
// names, with dense and with sparse ids. The walk starts at row 0 and
// follows parents; the first cycle it closes is reported at that cycle's
// lowest row, even when another cycle has lower rows.
func TestArtifactCycleRows(t *testing.T) {
	ctx := smallCtx(t)
	withBucketLog(t, 0)
	for _, scale := range []uint64{1, 1 << 40} { // dense ids, sparse ids
		id := func(v uint64) uint64 { return 100 + v*scale }
		cases := []struct {
			name    string
			parents []int // parent row, -1 = Absent
			row     int
		}{
			// rows 1,2 form a cycle and row 0 hangs below it.
			{"below", []int{1, 2, 1, 4, 3}, 1},
			// row 0 hangs below the cycle {3,4}; {1,2} is also a cycle,
			// with lower rows, but the walk from row 0 closes {3,4} first.
			{"first found", []int{4, 2, 1, 4, 3}, 3},
			// roots first, then a 3-cycle entered at its highest row.
			{"entered high", []int{-1, 0, 4, 2, 3}, 2},
			// one cycle through every row, listed backwards.
			{"ring", []int{4, 0, 1, 2, 3}, 0},
		}
		for _, c := range cases {
			n := len(c.parents)
			a := &ArtifactTable{ArtifactID: make([]uint64, n), ParentID: make([]uint64, n),
				KindID: make([]uint8, n), NameID: make([]uint64, n)}
			for i, p := range c.parents {
				a.ArtifactID[i] = id(uint64(i))
				a.ParentID[i] = Absent
				if p >= 0 {
					a.ParentID[i] = id(uint64(p))
				}
			}
			err := a.Validate(ctx)
			var e *Error
			if !errors.As(err, &e) || e.Code != CodeCycle || e.Row != c.row || e.Column != "parent_id" {
				t.Errorf("scale %d %s: got %v, want containment_cycle at row %d", scale, c.name, err, c.row)
			}
		}
	}
}

// TestArtifactSparseDuplicateRow: the duplicate reported is the lowest row
// whose id occurs at an earlier row, whichever partition bucket holds it.
func TestArtifactSparseDuplicateRow(t *testing.T) {
	ctx := smallCtx(t)
	for _, bl := range []int{0, 1, 12} {
		withBucketLog(t, bl)
		// 1<<40 repeats at row 4, 5 at row 3: row 3 is reported.
		a := &ArtifactTable{ArtifactID: []uint64{1 << 40, 5, 1 << 50, 5, 1 << 40, 1 << 50},
			ParentID: make([]uint64, 6), KindID: make([]uint8, 6), NameID: make([]uint64, 6)}
		for i := range a.ParentID {
			a.ParentID[i] = Absent
		}
		err := a.Validate(ctx)
		var e *Error
		if !errors.As(err, &e) || e.Code != CodeDuplicateID || e.Row != 3 || e.Column != "artifact_id" {
			t.Errorf("bucketLog %d: got %v, want duplicate_id at row 3", bl, err)
		}
	}
}

// TestResolveMatchesMap resolves random reference columns against random id
// columns of every layout and compares each answer with a Go map.
func TestResolveMatchesMap(t *testing.T) {
	r := rand.New(rand.NewPCG(17, 18))
	for _, bl := range []int{12, 2, 0} {
		withBucketLog(t, bl)
		for iter := range 400 {
			n := r.IntN(50)
			if iter%10 == 0 {
				n = r.IntN(4000)
			}
			ids := randIDs(r, n)
			x, err := newIDTable("t", "c", ids)
			if err != nil {
				t.Fatal(err)
			}
			want := make(map[uint64]int, n)
			for i, id := range ids {
				want[id] = i
			}
			refs := make([]uint64, r.IntN(2*n+2))
			for i := range refs {
				switch k := r.IntN(8); {
				case k < 4 && n > 0:
					refs[i] = ids[r.IntN(n)]
				case k == 4:
					refs[i] = Absent
				case k == 5 && n > 0:
					refs[i] = slices.Max(ids) + uint64(r.IntN(3)) // may be an id, above, or Absent
				case k == 6 && n > 0:
					refs[i] = slices.Min(ids) - uint64(r.IntN(3)) // may be an id, below, or wrap
				default:
					refs[i] = r.Uint64N(uint64(4*n + 8))
				}
			}
			res := x.resolve(refs)
			for i, ref := range refs {
				row, ok := res.row(i)
				w, in := want[ref]
				if ok != in || (ok && row != w) {
					t.Fatalf("bucketLog %d iter %d: ref %d resolves to (%d, %v), want (%d, %v)", bl, iter, ref, row, ok, w, in)
				}
			}
		}
	}
}

// TestSparseReferences: the tables that reference sparse artifact and
// observation ids report the first unresolved reference in row order, each
// row's columns left to right.
func TestSparseReferences(t *testing.T) {
	ctx := ctxAll(t)
	withBucketLog(t, 0)
	big := func(v uint64) uint64 { return v<<44 | 7 }
	arts := &ArtifactTable{ArtifactID: []uint64{big(1), big(2), big(3)}, ParentID: []uint64{Absent, big(1), big(1)},
		KindID: make([]uint8, 3), NameID: make([]uint64, 3)}
	if err := arts.Validate(ctx); err != nil {
		t.Fatal(err)
	}
	edges := &EdgeTable{EdgeID: []uint64{1, 2, 3, 4}, SourceID: []uint64{big(1), big(3), big(2), big(9)},
		TargetID: []uint64{big(2), big(3), big(4), big(1)}, RelationID: make([]uint8, 4),
		EvidenceID: make([]uint64, 4), TransformID: []uint64{Absent, Absent, Absent, Absent}}
	// Row 2's target big(4) is not an artifact; row 3's source is not
	// either, but row 2 comes first.
	err := edges.Validate(ctx, arts)
	var e *Error
	if !errors.As(err, &e) || e.Code != CodeUnresolved || e.Row != 2 || e.Column != "target_id" {
		t.Errorf("edges: got %v, want unresolved target_id at row 2", err)
	}
	obs := &ObservationTable{ObservationID: []uint64{big(5), big(6)}, ArtifactID: []uint64{big(2), big(3)},
		SnapshotID: make([]uint64, 2), ObservedAtNs: make([]uint64, 2), StatusID: make([]uint8, 2),
		PolicyID: make([]uint64, 2), AlgorithmID: make([]uint64, 2), FingerprintOffset: make([]uint64, 2),
		FingerprintLength: make([]uint64, 2)}
	inc := &IncidentTable{IncidentID: []uint64{1, 2, 3}, ArtifactID: []uint64{big(2), big(3), big(3)},
		ObservationID: []uint64{big(5), big(6), big(5)}, ReasonID: make([]uint8, 3),
		EvidenceID: make([]uint64, 3), GroupingPolicyID: make([]uint64, 3)}
	// Row 2 names observation big(5), which belongs to artifact big(2).
	err = (&Tables{Artifacts: arts, Observations: obs, Incidents: inc}).Validate(ctx)
	if !errors.As(err, &e) || e.Code != CodeIncidentArtifact || e.Row != 2 || e.Table != "incident" {
		t.Errorf("incidents: got %v, want incident_artifact at row 2", err)
	}
	inc.ObservationID[1] = Absent
	err = inc.Validate(ctx, arts, obs)
	if !errors.As(err, &e) || e.Code != CodeAbsentReference || e.Row != 1 || e.Column != "observation_id" {
		t.Errorf("incidents: got %v, want absent_reference observation_id at row 1", err)
	}
}

// FuzzArtifactMatchesReference: on any table the fuzzer builds (biased to
// colliding ids, the sentinel and raw 64-bit values), the artifact validator
// reports exactly the reference's error, with many partition buckets.
func FuzzArtifactMatchesReference(f *testing.F) {
	seeds(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > 1<<16 { // bounds each run, and so each minimization
			t.Skip("input over 64 KiB")
		}
		withBucketLog(t, 0)
		r := &fuzzReader{b: data}
		a := &ArtifactTable{}
		r.fill(a, int(r.byte()%32))
		ctx := fuzzCtx(t)
		if got, want := a.Validate(ctx), refArtifactValidate(ctx, a); !sameErr(got, want) {
			t.Fatalf("got %v, want %v: %+v", got, want, a)
		}
	})
}
