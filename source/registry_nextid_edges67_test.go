package source

import (
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
)

// TestAssignNextIDUnused pins what lets AssignPreferring take nextID without looking for
// a free one: a preferred id at or past nextID moves nextID past it, a free preferred id
// below it leaves nextID alone, so the fallback id is never one already used; a
// preference of UINT64_MAX-1 leaves no id for the next new name (CodeRegistry, nothing
// committed); a registry file with an id at or past its next_id is refused on open.
func TestAssignNextIDUnused(t *testing.T) {
	i64 := arrow.PrimitiveTypes.Int64
	r := NewRegistry()
	a, err := r.AssignPreferring("ns", schemaOf(fld("a", i64, false), fld("b", i64, false), fld("c", i64, false), fld("d", i64, false)),
		map[string]uint64{"a": 10, "c": 5})
	if err != nil || !reflect.DeepEqual(a.IDs, []uint64{10, 11, 5, 12}) {
		t.Fatalf("ids %v, %v; want [10 11 5 12]: b and d follow the preference ahead, c takes its free one below", a, err)
	}
	a, err = r.AssignPreferring("ns", schemaOf(fld("e", i64, false), fld("f", i64, false)), map[string]uint64{"e": 13})
	if err != nil || !reflect.DeepEqual(a.IDs, []uint64{13, 14}) {
		t.Fatalf("ids %v, %v; want [13 14]: a preference equal to nextID moves it on", a, err)
	}

	_, err = r.AssignPreferring("full", schemaOf(fld("x", i64, false), fld("y", i64, false)), map[string]uint64{"x": math.MaxUint64 - 1})
	if CodeOf(err) != CodeRegistry {
		t.Fatalf("after a preference of UINT64_MAX-1: %v, want %s", err, CodeRegistry)
	}
	if r.FieldIDs("full") != nil {
		t.Fatalf("a failed assignment committed %v", r.FieldIDs("full"))
	}

	path := filepath.Join(t.TempDir(), "registry.json")
	file := `{"format":"pipewhy.source-registry","version":1,"namespaces":{"ns":{"next_id":"3","names":[{"id":"1","name":"a"},{"id":"3","name":"b"}],"renames":[]}}}`
	if err := os.WriteFile(path, []byte(file), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := OpenRegistry(path); CodeOf(err) != CodeRegistry {
		t.Fatalf("an id at next_id: OpenRegistry = %v, want %s", err, CodeRegistry)
	}
}

// TestAssignPreferringRandomUnique: over random assignments with random preferences
// (taken, free, ahead, invalid), a namespace never gives two names one id, and a name's
// id never changes.
func TestAssignPreferringRandomUnique(t *testing.T) {
	i64 := arrow.PrimitiveTypes.Int64
	rng := rand.New(rand.NewPCG(67, 4))
	for round := range 50 {
		r := NewRegistry()
		ids := map[string]uint64{}
		for range 20 {
			var fs []arrow.Field
			prefer := map[string]uint64{}
			seen := map[string]bool{}
			for range 1 + rng.IntN(4) {
				name := "c" + strconv.Itoa(rng.IntN(30))
				if seen[name] {
					continue
				}
				seen[name] = true
				fs = append(fs, fld(name, i64, false))
				if rng.IntN(2) == 0 {
					prefer[name] = uint64(rng.IntN(40))
				}
			}
			a, err := r.AssignPreferring("ns", schemaOf(fs...), prefer)
			if err != nil {
				t.Fatal(err)
			}
			for i, f := range fs {
				if old, ok := ids[f.Name]; ok && old != a.IDs[i] {
					t.Fatalf("round %d: %s changed id %d -> %d", round, f.Name, old, a.IDs[i])
				}
				ids[f.Name] = a.IDs[i]
			}
			byID := map[uint64]string{}
			for name, id := range r.FieldIDs("ns") {
				if other, dup := byID[id]; dup {
					t.Fatalf("round %d: %s and %s share id %d", round, name, other, id)
				}
				byID[id] = name
			}
		}
	}
}
