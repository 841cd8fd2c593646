package arrays

import (
	"errors"
	"math"
	"testing"
)

// Tests that pin the exact boundaries and error fields of the C1 rules (issue 22: each one
// kills a mutant of the validators or the checked arithmetic that the other tests let
// live). Expected values come from docs/contracts/C1-arrays.md and the Error type's
// documented fields, not from the code's output.

// wantErr checks that err is an *Error with exactly this code, column and row.
func wantErr(t *testing.T, err error, code Code, column string, row int) {
	t.Helper()
	var e *Error
	if !errors.As(err, &e) {
		t.Fatalf("error %v: not an *Error, want code %q", err, code)
	}
	if e.Code != code || e.Column != column || e.Row != row {
		t.Fatalf("error %v: code %q column %q row %d, want %q %q %d", err, e.Code, e.Column, e.Row, code, column, row)
	}
}

// TestNoRowErrorsHaveRowMinusOne: an error that is not about one row has Row -1 (the
// documented meaning of Error.Row), so Error() prints no index.
func TestNoRowErrorsHaveRowMinusOne(t *testing.T) {
	_, err := BitmapWords(-1)
	wantErr(t, err, CodeRange, "", -1)
	_, err = AllValid(-5)
	wantErr(t, err, CodeRange, "", -1)
	_, err = AddUint64(math.MaxUint64, 1)
	wantErr(t, err, CodeOverflow, "", -1)
	_, err = MulUint64(1<<32, 1<<32)
	wantErr(t, err, CodeOverflow, "", -1)
	_, err = ToInt(math.MaxInt + 1)
	wantErr(t, err, CodeRange, "", -1)
	_, _, err = SliceBounds(6, 0, 5)
	wantErr(t, err, CodeSliceOffset, "", -1)
	_, _, err = SliceBounds(2, 4, 5)
	wantErr(t, err, CodeSliceLength, "", -1)

	// Table-level rules: unequal column lengths, a missing context, a nil table.
	a := chain(2)
	a.NameID = a.NameID[:1]
	wantErr(t, a.Validate(ctxAll(t)), CodeColumnLength, "name_id", -1)
	ctx := ctxAll(t)
	ctx.Names = nil
	wantErr(t, chain(2).Validate(ctx), CodeMissingContext, "name_id", -1)
	var nilArt *ArtifactTable
	wantErr(t, nilArt.Validate(ctxAll(t)), CodeNilTable, "", -1)
	var nilObs *ObservationTable
	wantErr(t, nilObs.Validate(ctxAll(t), chain(1)), CodeNilTable, "", -1)
}

// TestBitmapTailRow: CodeBitmapTail is reported at the first set bit at or past rows.
func TestBitmapTailRow(t *testing.T) {
	for _, tt := range []struct {
		rows int
		bit  uint // bit of the last word set past the rows
		row  int
	}{
		{1, 1, 1},     // the first unused bit
		{1, 63, 63},   // the last bit of the word
		{3, 5, 5},     // bits 3 and 4 clear: two positions on
		{65, 1, 65},   // second word
		{70, 40, 104}, // 64 + 40
	} {
		b, err := AllValid(tt.rows)
		if err != nil {
			t.Fatal(err)
		}
		b[len(b)-1] |= 1 << tt.bit
		wantErr(t, b.Validate(tt.rows), CodeBitmapTail, "", tt.row)
	}
}

// obsOne is a one-row observation table of artifact 0 that passes validation with
// ctxAll: status UNKNOWN, no fingerprint words.
func obsOne() *ObservationTable {
	return &ObservationTable{
		ObservationID: []uint64{0}, ArtifactID: []uint64{0}, SnapshotID: []uint64{0},
		ObservedAtNs: []uint64{0}, StatusID: []uint8{StatusUnknown}, PolicyID: []uint64{0},
		AlgorithmID: []uint64{0}, FingerprintOffset: []uint64{0}, FingerprintLength: []uint64{0},
	}
}

// TestObservationLimits: observed_at_ns is non-negative as int64, so 2**63-1 is the last
// accepted value and 2**63 the first rejected; status 2 (ERROR) is the last code.
func TestObservationLimits(t *testing.T) {
	ctx, arts := ctxAll(t), chain(1)
	o := obsOne()
	o.ObservedAtNs[0] = 1<<63 - 1
	if err := o.Validate(ctx, arts); err != nil {
		t.Fatalf("observed_at_ns 2**63-1: %v", err)
	}
	o.ObservedAtNs[0] = 1 << 63
	wantErr(t, o.Validate(ctx, arts), CodeTimestamp, "observed_at_ns", 0)

	o = obsOne()
	o.StatusID[0] = StatusError
	if err := o.Validate(ctx, arts); err != nil {
		t.Fatalf("status ERROR without fingerprint words: %v", err)
	}
	o.StatusID[0] = 3
	wantErr(t, o.Validate(ctx, arts), CodeStatus, "status_id", 0)
}

// TestEdgeRelationLimit: relation 2 (DERIVED) is the last code, with or without a
// transform; 3 is rejected.
func TestEdgeRelationLimit(t *testing.T) {
	ctx, arts := ctxAll(t), chain(1)
	e := &EdgeTable{EdgeID: []uint64{0, 1}, SourceID: []uint64{0, 0}, TargetID: []uint64{0, 0},
		RelationID: []uint8{RelationDerived, RelationDerived}, EvidenceID: []uint64{0, 0},
		TransformID: []uint64{Absent, 7}}
	if err := e.Validate(ctx, arts); err != nil {
		t.Fatalf("DERIVED: %v", err)
	}
	e.RelationID[1] = 3
	wantErr(t, e.Validate(ctx, arts), CodeRelation, "relation_id", 1)
}

// TestRowSliceIndexLimits: the row index must be below the id column's length and below
// each slice column's length, each checked on its own (a longer slice column does not make
// a row past the ids addressable).
func TestRowSliceIndexLimits(t *testing.T) {
	words := []uint64{5, 6, 7}
	// One row, longer offset and length columns: row 1 is not a row.
	v := &ValueTable{ValueID: []uint64{1}, PayloadOffset: []uint64{0, 0}, PayloadLength: []uint64{1, 1},
		PayloadWords: words, ValidityBitmap: Bitmap{1}}
	if w, ok, err := v.Payload(0); err != nil || !ok || len(w) != 1 || w[0] != 5 {
		t.Fatalf("Payload(0) = %v, %v, %v", w, ok, err)
	}
	_, _, err := v.Payload(1)
	wantErr(t, err, CodeIndex, "", 1)
	// Two rows, the length column one short: row 1 fails with CodeIndex, no panic.
	o := &ObservationTable{ObservationID: []uint64{1, 2}, FingerprintOffset: []uint64{0, 1}, FingerprintLength: []uint64{1}, FingerprintWords: words}
	_, err = o.Fingerprint(1)
	wantErr(t, err, CodeIndex, "", 1)
	// Two rows, the offset column one short.
	o = &ObservationTable{ObservationID: []uint64{1, 2}, FingerprintOffset: []uint64{0}, FingerprintLength: []uint64{1, 1}, FingerprintWords: words}
	_, err = o.Fingerprint(1)
	wantErr(t, err, CodeIndex, "", 1)
	// A slice ending exactly at the end of the words is in range; one word more is not.
	o = &ObservationTable{ObservationID: []uint64{1, 2}, FingerprintOffset: []uint64{1, 1}, FingerprintLength: []uint64{2, 3}, FingerprintWords: words}
	if w, err := o.Fingerprint(0); err != nil || len(w) != 2 || w[0] != 6 || w[1] != 7 {
		t.Fatalf("Fingerprint(0) = %v, %v", w, err)
	}
	_, err = o.Fingerprint(1)
	wantErr(t, err, CodeSliceLength, "fingerprint_length", 1)

	_, err = Schema("bogus")
	wantErr(t, err, CodeTableKind, "", -1)
}

// TestArtifactRowsRules checks the row rules of the index path (artifactRows: tables of
// 2**32-1 rows or more, which Validate cannot reach in a test) against PW-02.05 directly,
// for both node widths: each broken rule with its code, column and lowest row.
func TestArtifactRowsRules(t *testing.T) {
	names, err := NewIDSet(10, 11, 12, 13)
	if err != nil {
		t.Fatal(err)
	}
	kinds, err := NewIDSet(0, 1)
	if err != nil {
		t.Fatal(err)
	}
	ctx := &Context{Names: names, Kinds: kinds}
	for _, tt := range []struct {
		name    string
		parents []uint64
		kind    []uint8
		nameID  []uint64
		code    Code
		column  string
		row     int
	}{
		{"valid", []uint64{Absent, 0, 1, 1}, []uint8{0, 1, 0, 1}, []uint64{10, 11, 12, 13}, "", "", 0},
		{"self parent", []uint64{Absent, 0, 2, 1}, []uint8{0, 0, 0, 0}, []uint64{10, 10, 10, 10}, CodeSelfParent, "parent_id", 2},
		{"unresolved parent", []uint64{Absent, 7, 1, 1}, []uint8{0, 0, 0, 0}, []uint64{10, 10, 10, 10}, CodeUnresolved, "parent_id", 1},
		{"unknown kind", []uint64{Absent, 0, 1, 1}, []uint8{0, 0, 2, 0}, []uint64{10, 10, 10, 10}, CodeUnresolved, "kind_id", 2},
		{"unresolved name", []uint64{Absent, 0, 1, 1}, []uint8{0, 0, 0, 0}, []uint64{10, 10, 10, 14}, CodeUnresolved, "name_id", 3},
		{"absent name", []uint64{Absent, 0, 1, 1}, []uint8{0, 0, 0, 0}, []uint64{10, Absent, 10, 10}, CodeAbsentReference, "name_id", 1},
		{"cycle", []uint64{Absent, 3, 1, 2}, []uint8{0, 0, 0, 0}, []uint64{10, 10, 10, 10}, CodeCycle, "parent_id", 1},
	} {
		a := chain(len(tt.parents))
		a.ParentID, a.KindID, a.NameID = tt.parents, tt.kind, tt.nameID
		idx, err := NewIndex(a.ArtifactID)
		if err != nil {
			t.Fatal(err)
		}
		for w, err := range map[string]error{
			"uint32": artifactRows(ctx, idx, a, make([]node[uint32], len(tt.parents))),
			"uint64": artifactRows(ctx, idx, a, make([]node[uint64], len(tt.parents))),
		} {
			if tt.code == "" {
				if err != nil {
					t.Errorf("%s %s: %v", tt.name, w, err)
				}
				continue
			}
			var e *Error
			if !errors.As(err, &e) || e.Code != tt.code || e.Column != tt.column || e.Row != tt.row || e.Table != "artifact" {
				t.Errorf("%s %s: %v, want %s.%s row %d %q", tt.name, w, err, "artifact", tt.column, tt.row, tt.code)
			}
		}
	}
}
