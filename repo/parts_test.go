package repo_test

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/pipewhy/pipewhy/repo"
)

// TestLoadParts: LoadParts reads the summary and the parts asked for, LoadMore the
// rest; together they equal Load. An array not read is not checked until it is.
func TestLoadParts(t *testing.T) {
	r, id := valueScan(t)
	full, err := r.Load(id)
	if err != nil {
		t.Fatal(err)
	}
	if full.Missing() != 0 {
		t.Fatalf("Load misses %b", full.Missing())
	}
	s, err := r.LoadParts(id, 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	if s.Missing() != repo.AllParts || s.Records != nil || s.KeyWords != nil || s.Values != nil || s.ValueTable != nil {
		t.Fatalf("summary misses %b, holds records %v values %v", s.Missing(), s.Records != nil, s.Values != nil)
	}
	if eq, err := s.State.Equal(full.State); err != nil || !eq || !reflect.DeepEqual(s.Descriptor, full.Descriptor) || len(s.Columns) != len(full.Columns) {
		t.Fatalf("summary differs from Load: state equal %v (%v)", eq, err)
	}
	if err := r.LoadMore(s, repo.PartRecords, nil); err != nil {
		t.Fatal(err)
	}
	if s.Missing() != repo.PartKeys|repo.PartValues || !reflect.DeepEqual(s.Records, full.Records) || s.KeyWords != nil {
		t.Fatalf("after records: misses %b", s.Missing())
	}
	if err := r.LoadMore(s, repo.AllParts, nil); err != nil {
		t.Fatal(err)
	}
	if s.Missing() != 0 || !reflect.DeepEqual(s.KeyWords, full.KeyWords) || !reflect.DeepEqual(s.KeyOffsets, full.KeyOffsets) ||
		!reflect.DeepEqual(s.Values, full.Values) || !reflect.DeepEqual(s.ValueOffsets, full.ValueOffsets) || !reflect.DeepEqual(s.ValueTable, full.ValueTable) {
		t.Fatalf("after all: misses %b, arrays differ from Load's", s.Missing())
	}
	// A damaged value array: the summary and the records still load, the values do not.
	vals := filepath.Join(r.Store().Path(id), "array-"+repo.KeyValues+".bin")
	b, err := os.ReadFile(vals)
	if err != nil {
		t.Fatal(err)
	}
	b[0] ^= 1
	os.WriteFile(vals, b, 0o644)
	s, err = r.LoadParts(id, repo.PartRecords|repo.PartKeys, nil)
	if err != nil {
		t.Fatalf("records of a snapshot with damaged values: %v", err)
	}
	if err := r.LoadMore(s, repo.PartValues, nil); repo.CodeOf(err) != repo.CodeFormat {
		t.Errorf("damaged values: %v", err)
	}
	if _, err := r.Load(id); repo.CodeOf(err) != repo.CodeFormat {
		t.Errorf("Load of damaged values: %v", err)
	}
}
