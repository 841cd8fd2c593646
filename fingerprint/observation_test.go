package fingerprint

import (
	"math"
	"slices"
	"testing"

	"github.com/pipewhy/pipewhy/arrays"
)

func TestObservationRoundTrip(t *testing.T) {
	cx := mustContext(t, XXH3, Multiset)
	cs := mustContext(t, SHA256, Multiset)
	ids := Identities{
		Algorithms: map[uint64]string{3: XXH3.ID(), 4: SHA256.ID()},
		Policies:   map[uint64]string{9: strictID, 10: otherProfileID},
	}
	sx := NewState(cx)
	sx.Add(Digest{Lo: 1, Hi: math.MaxUint64})
	ss := NewState(cs)
	ss.Add(Digest{Lo: 5, Hi: 6})
	ss.Add(Digest{Lo: 7, Hi: 8})

	var tab arrays.ObservationTable
	if err := AppendObservation(&tab, Observation{ObservationID: 100, ArtifactID: 1, SnapshotID: 2, ObservedAtNs: 3, PolicyID: 9, AlgorithmID: 3}, sx, ids); err != nil {
		t.Fatal(err)
	}
	if err := AppendObservation(&tab, Observation{ObservationID: 101, ArtifactID: 1, SnapshotID: 2, ObservedAtNs: 4, PolicyID: 9, AlgorithmID: 4}, ss, ids); err != nil {
		t.Fatal(err)
	}
	if want := []uint64{1, 2, 1, 1, math.MaxUint64, 1, 2, 2, 12, 14}; !slices.Equal(tab.FingerprintWords, want) {
		t.Fatalf("fingerprint words %v, want %v", tab.FingerprintWords, want)
	}
	if !slices.Equal(tab.FingerprintOffset, []uint64{0, 5}) || !slices.Equal(tab.FingerprintLength, []uint64{5, 5}) ||
		!slices.Equal(tab.StatusID, []uint8{arrays.StatusCaptured, arrays.StatusCaptured}) {
		t.Fatalf("row columns %+v", tab)
	}
	// The rows satisfy the C1 validator.
	set := func(v ...uint64) arrays.IDSet {
		s, err := arrays.NewIDSet(v...)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	arts := &arrays.ArtifactTable{ArtifactID: []uint64{1}, ParentID: []uint64{arrays.Absent}, KindID: []uint8{0}, NameID: []uint64{0}}
	actx := &arrays.Context{Snapshots: set(2), Policies: set(9, 10), Algorithms: set(3, 4), Names: set(0), Kinds: set(0)}
	if err := tab.Validate(actx, arts); err != nil {
		t.Fatalf("C1 validation: %v", err)
	}
	for i, want := range []State{sx, ss} {
		c := want.Context()
		got, err := ObservationState(&tab, i, c, ids, c.ID())
		if err != nil {
			t.Fatal(err)
		}
		if eq, _ := got.Equal(want); !eq {
			t.Fatalf("row %d: %v, want %v", i, got.Words(), want.Words())
		}
	}
	// Readback failures.
	for name, tc := range map[string]struct {
		row   int
		c     Context
		ids   Identities
		ctxID string
		code  Code
	}{
		"row range":        {2, cx, ids, cx.ID(), CodeObservation},
		"negative row":     {-1, cx, ids, cx.ID(), CodeObservation},
		"wrong algorithm":  {1, cx, ids, cx.ID(), CodeForeignContext},
		"unresolved alg":   {0, cx, Identities{Algorithms: map[uint64]string{}, Policies: ids.Policies}, cx.ID(), CodeObservation},
		"unresolved pol":   {0, cx, Identities{Algorithms: ids.Algorithms}, cx.ID(), CodeObservation},
		"other profile":    {0, cx, Identities{Algorithms: ids.Algorithms, Policies: map[uint64]string{9: otherProfileID}}, cx.ID(), CodeForeignContext},
		"other context id": {0, cx, ids, mustContext(t, XXH3, Ordered).ID(), CodeForeignContext},
	} {
		if _, err := ObservationState(&tab, tc.row, tc.c, tc.ids, tc.ctxID); CodeOf(err) != tc.code {
			t.Errorf("%s: %v, want %s", name, err, tc.code)
		}
	}
	// A row that is not CAPTURED, a corrupted state and a slice out of bounds.
	bad := tab
	bad.StatusID = []uint8{arrays.StatusError, arrays.StatusCaptured}
	if _, err := ObservationState(&bad, 0, cx, ids, cx.ID()); CodeOf(err) != CodeObservation {
		t.Errorf("not captured: %v", err)
	}
	bad = tab
	bad.FingerprintWords = slices.Clone(tab.FingerprintWords)
	bad.FingerprintWords[1] = 3
	if _, err := ObservationState(&bad, 0, cx, ids, cx.ID()); CodeOf(err) != CodeLaneCount {
		t.Errorf("corrupt lane count: %v", err)
	}
	bad = tab
	bad.FingerprintLength = []uint64{4, 5}
	if _, err := ObservationState(&bad, 0, cx, ids, cx.ID()); CodeOf(err) != CodeState {
		t.Errorf("short slice: %v", err)
	}
	bad.FingerprintLength = []uint64{11, 5}
	if _, err := ObservationState(&bad, 0, cx, ids, cx.ID()); CodeOf(err) != CodeObservation || arrays.CodeOf(err) != arrays.CodeSliceLength {
		t.Errorf("slice out of bounds: %v", err)
	}
	// Append refuses ids that do not resolve to the state's identities; t is unchanged.
	before := len(tab.ObservationID)
	for name, o := range map[string]Observation{
		"alg":        {ObservationID: 7, PolicyID: 9, AlgorithmID: 4},
		"policy":     {ObservationID: 7, PolicyID: 10, AlgorithmID: 3},
		"unresolved": {ObservationID: 7, PolicyID: 11, AlgorithmID: 3},
	} {
		if err := AppendObservation(&tab, o, sx, ids); err == nil {
			t.Errorf("%s: appended", name)
		}
	}
	if err := AppendObservation(&tab, Observation{}, State{}, ids); CodeOf(err) != CodeContext {
		t.Errorf("zero state: %v", err)
	}
	if len(tab.ObservationID) != before || len(tab.FingerprintWords) != 10 {
		t.Fatal("a failed append changed the table")
	}
}
