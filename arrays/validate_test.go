package arrays

import (
	"errors"
	"math/rand/v2"
	"testing"
)

// ctxAll is a context whose sets hold the ids 0..255: enough for tables of
// small ids. It is an explicit set, not a range rule inside the validator.
func ctxAll(t testing.TB) *Context {
	ids := make([]uint64, 256)
	for i := range ids {
		ids[i] = uint64(i)
	}
	s, err := NewIDSet(ids...)
	if err != nil {
		t.Fatal(err)
	}
	return &Context{Names: s, Kinds: s, Fields: s, Types: s, Snapshots: s, Policies: s,
		Algorithms: s, Evidence: s, Transforms: s, GroupingPolicies: s}
}

// chain returns an artifact table of n rows, row i with id i and parent i-1.
func chain(n int) *ArtifactTable {
	a := &ArtifactTable{ArtifactID: make([]uint64, n), ParentID: make([]uint64, n), KindID: make([]uint8, n), NameID: make([]uint64, n)}
	for i := range n {
		a.ArtifactID[i] = uint64(i)
		a.ParentID[i] = uint64(i) - 1
	}
	if n > 0 {
		a.ParentID[0] = Absent
	}
	return a
}

func TestArtifactDeepChainNoRecursion(t *testing.T) {
	n := 1_000_000
	if testing.Short() {
		n = 100_000
	}
	a := chain(n)
	ctx := ctxAll(t)
	if err := a.Validate(ctx); err != nil {
		t.Fatal(err)
	}
	// Reverse physical order: the walk meets unvisited parents every time.
	for i, j := 0, n-1; i < j; i, j = i+1, j-1 {
		a.ArtifactID[i], a.ArtifactID[j] = a.ArtifactID[j], a.ArtifactID[i]
		a.ParentID[i], a.ParentID[j] = a.ParentID[j], a.ParentID[i]
	}
	if err := a.Validate(ctx); err != nil {
		t.Fatal(err)
	}
	// Close the chain into one cycle through every row: root becomes child of the last.
	a.ParentID[n-1] = uint64(n - 1)
	err := a.Validate(ctx)
	var e *Error
	if !errors.As(err, &e) || e.Code != CodeCycle || e.Row != 0 {
		t.Fatalf("got %v, want containment_cycle at row 0", err)
	}
}

func TestArtifactEmpty(t *testing.T) {
	if err := (&ArtifactTable{}).Validate(ctxAll(t)); err != nil {
		t.Fatal(err)
	}
	wantCode(t, (&ArtifactTable{}).Validate(nil), CodeMissingContext)
	var nilTab *ArtifactTable
	wantCode(t, nilTab.Validate(ctxAll(t)), CodeNilTable)
}

// naiveCycle is an independent quadratic reference: a row is on a cycle iff
// following parents from it returns to it within n steps.
func naiveCycle(a *ArtifactTable) (selfParent, unresolved, cycle bool) {
	n := len(a.ArtifactID)
	row := map[uint64]int{}
	for i, id := range a.ArtifactID {
		row[id] = i
	}
	for i := range n {
		if a.ParentID[i] == a.ArtifactID[i] {
			selfParent = true
		}
		if _, ok := row[a.ParentID[i]]; a.ParentID[i] != Absent && !ok {
			unresolved = true
		}
	}
	if selfParent || unresolved {
		return
	}
	for i := range n {
		j := i
		for range n {
			if a.ParentID[j] == Absent {
				break
			}
			j = row[a.ParentID[j]]
			if j == i {
				return false, false, true
			}
		}
	}
	return
}

func TestArtifactCycleProperty(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	ctx := ctxAll(t)
	for iter := range 2000 {
		n := 1 + r.IntN(12)
		ids := make([]uint64, n)
		for i, p := range r.Perm(n + 3)[:n] {
			ids[i] = uint64(p)
		}
		a := &ArtifactTable{ArtifactID: ids, ParentID: make([]uint64, n), KindID: make([]uint8, n), NameID: make([]uint64, n)}
		for i := range n {
			switch k := r.IntN(10); {
			case k < 2:
				a.ParentID[i] = Absent
			case k < 3:
				a.ParentID[i] = uint64(r.IntN(n + 3)) // may not resolve
			default:
				a.ParentID[i] = ids[r.IntN(n)] // may be itself
			}
		}
		self, unres, cyc := naiveCycle(a)
		err := a.Validate(ctx)
		code := CodeOf(err)
		switch {
		case self || unres:
			if code != CodeSelfParent && code != CodeUnresolved {
				t.Fatalf("iter %d: %v; naive self=%v unresolved=%v", iter, err, self, unres)
			}
		case cyc:
			if code != CodeCycle {
				t.Fatalf("iter %d: %v; naive found a cycle in %+v", iter, err, a)
			}
			// The reported row lies on a cycle.
			row := err.(*Error).Row
			j, back := row, false
			for range n {
				p := a.ParentID[j]
				if p == Absent {
					break
				}
				for k, id := range ids {
					if id == p {
						j = k
					}
				}
				if j == row {
					back = true
					break
				}
			}
			if !back {
				t.Fatalf("iter %d: row %d is not on a cycle", iter, row)
			}
		default:
			if err != nil {
				t.Fatalf("iter %d: %v; naive found nothing", iter, err)
			}
		}
	}
}

// TestArtifactRows64 runs the uint64 node path, used for tables of
// 2**32-1 rows or more, and checks it agrees with the uint32 path.
func TestArtifactRows64(t *testing.T) {
	ctx := ctxAll(t)
	for _, parents := range [][]uint64{
		{Absent, 0, 1, 1, 3},
		{Absent, 0, 4, 1, 2}, // cycle rows 2,4
		{Absent, 0, 1, 9, 3}, // unresolved row 3
	} {
		a := chain(len(parents))
		a.ParentID = parents
		idx, err := NewIndex(a.ArtifactID)
		if err != nil {
			t.Fatal(err)
		}
		e32 := artifactRows(ctx, idx, a, make([]node[uint32], len(parents)))
		e64 := artifactRows(ctx, idx, a, make([]node[uint64], len(parents)))
		if (e32 == nil) != (e64 == nil) || (e32 != nil && *e32.(*Error) != *e64.(*Error)) {
			t.Errorf("uint32 path %v, uint64 path %v", e32, e64)
		}
	}
}

func TestTablesNil(t *testing.T) {
	ctx := ctxAll(t)
	if err := (&Tables{}).Validate(ctx); err != nil {
		t.Errorf("no tables: %v", err)
	}
	cases := []struct {
		ts   Tables
		want TableKind
	}{
		{Tables{Values: &ValueTable{}}, TableArtifact},
		{Tables{Observations: &ObservationTable{}}, TableArtifact},
		{Tables{Edges: &EdgeTable{}}, TableArtifact},
		{Tables{Artifacts: &ArtifactTable{}, Incidents: &IncidentTable{}}, TableObservation},
	}
	for _, c := range cases {
		err := c.ts.Validate(ctx)
		var e *Error
		if !errors.As(err, &e) || e.Code != CodeNilTable || e.Table != string(c.want) {
			t.Errorf("%+v: %v", c.ts, err)
		}
	}
	wantCode(t, (&ValueTable{}).Validate(ctx, nil), CodeNilTable)
	wantCode(t, (&IncidentTable{}).Validate(ctx, &ArtifactTable{}, nil), CodeNilTable)
	var nv *ValueTable
	wantCode(t, nv.Validate(ctx, &ArtifactTable{}), CodeNilTable)
}

// TestIncidentReferencedObservationLengths: an observation table with
// unequal columns is reported, not indexed past its end.
func TestIncidentReferencedObservationLengths(t *testing.T) {
	ctx := ctxAll(t)
	arts := chain(2)
	obs := &ObservationTable{ObservationID: []uint64{1, 2}, ArtifactID: []uint64{0}}
	inc := &IncidentTable{IncidentID: []uint64{1}, ArtifactID: []uint64{0}, ObservationID: []uint64{2},
		ReasonID: []uint8{0}, EvidenceID: []uint64{0}, GroupingPolicyID: []uint64{0}}
	err := inc.Validate(ctx, arts, obs)
	var e *Error
	if !errors.As(err, &e) || e.Code != CodeColumnLength || e.Table != "observation" {
		t.Fatalf("got %v", err)
	}
}

// TestContextNotGuessedFromRanges: ids inside the span of a context that
// the context does not hold are unresolved.
func TestContextNotGuessedFromRanges(t *testing.T) {
	names, _ := NewIDSet(1, 3)
	kinds, _ := NewIDSet(0)
	a := &ArtifactTable{ArtifactID: []uint64{0}, ParentID: []uint64{Absent}, KindID: []uint8{0}, NameID: []uint64{2}}
	err := a.Validate(&Context{Names: names, Kinds: kinds})
	wantCode(t, err, CodeUnresolved)
}
