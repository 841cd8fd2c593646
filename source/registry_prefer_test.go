package source

import (
	"path/filepath"
	"reflect"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
)

// TestAssignPreferring: a name the namespace has never seen takes the preferred id when
// the namespace never used it; known names keep their ids; taken or invalid preferences
// fall back to the next unused id, which skips ids a preference took; the result survives
// a save and reopen.
func TestAssignPreferring(t *testing.T) {
	path := filepath.Join(t.TempDir(), "registry.json")
	r, err := OpenRegistry(path)
	if err != nil {
		t.Fatal(err)
	}
	i64, str := arrow.PrimitiveTypes.Int64, arrow.BinaryTypes.String
	// The source: id=1, status=2, amount=3.
	if _, err := r.Assign("raw", schemaOf(fld("id", i64, false), fld("status", str, false), fld("amount", i64, true))); err != nil {
		t.Fatal(err)
	}
	prefer := r.FieldIDs("raw")
	// The copy's columns in another order: each takes the source's id.
	a, err := r.AssignPreferring("copy", schemaOf(fld("amount", i64, true), fld("status", str, false), fld("id", i64, false)), prefer)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(a.IDs, []uint64{3, 2, 1}) {
		t.Fatalf("aligned ids %v, want [3 2 1]", a.IDs)
	}
	// A column the source does not have gets the next unused id (4), past the preferred ones.
	a, err = r.AssignPreferring("copy", schemaOf(fld("id", i64, false), fld("note", str, true)), prefer)
	if err != nil || !reflect.DeepEqual(a.IDs, []uint64{1, 4}) {
		t.Fatalf("new column: %v, %v", a, err)
	}
	// Known names keep their ids whatever the preference says.
	a, err = r.AssignPreferring("copy", schemaOf(fld("id", i64, false)), map[string]uint64{"id": 9})
	if err != nil || !reflect.DeepEqual(a.IDs, []uint64{1}) {
		t.Fatalf("known name: %v, %v", a, err)
	}
	// A namespace scanned before the preference existed: its ids stay; a new name whose
	// preferred id is taken falls back.
	if _, err := r.Assign("late", schemaOf(fld("status", str, false), fld("id", i64, false))); err != nil {
		t.Fatal(err)
	}
	a, err = r.AssignPreferring("late", schemaOf(fld("status", str, false), fld("id", i64, false), fld("amount", i64, true)), prefer)
	if err != nil || !reflect.DeepEqual(a.IDs, []uint64{1, 2, 3}) {
		t.Fatalf("late namespace: status and id keep 1 and 2, amount takes its free preference 3: %v, %v", a.IDs, err)
	}
	a, err = r.AssignPreferring("late", schemaOf(fld("note", str, true)), map[string]uint64{"note": 1})
	if err != nil || !reflect.DeepEqual(a.IDs, []uint64{4}) {
		t.Fatalf("taken preference: %v, %v (want the next unused id 4)", a.IDs, err)
	}
	// A preference of 0 or UINT64_MAX is never taken.
	a, err = r.AssignPreferring("zero", schemaOf(fld("x", i64, false), fld("y", i64, false)), map[string]uint64{"x": 0, "y": ^uint64(0)})
	if err != nil || !reflect.DeepEqual(a.IDs, []uint64{1, 2}) {
		t.Fatalf("invalid preferences: %v, %v", a, err)
	}
	if err := r.Save(); err != nil {
		t.Fatal(err)
	}
	r2, err := OpenRegistry(path)
	if err != nil {
		t.Fatal(err)
	}
	if got := r2.FieldIDs("copy"); !reflect.DeepEqual(got, map[string]uint64{"id": 1, "status": 2, "amount": 3, "note": 4}) {
		t.Fatalf("reopened copy namespace %v", got)
	}
	// The next plain assignment continues after the highest id.
	a, err = r2.Assign("copy", schemaOf(fld("extra", i64, false)))
	if err != nil || !reflect.DeepEqual(a.IDs, []uint64{5}) {
		t.Fatalf("after reopen: %v, %v", a, err)
	}
}
