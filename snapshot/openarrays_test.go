package snapshot

import (
	"os"
	"path/filepath"
	"testing"
)

// TestOpenArrays: only the accepted arrays are read and checksummed; the structure of
// the whole package is still checked.
func TestOpenArrays(t *testing.T) {
	s := newStore(t, Options{})
	id := publishFixture(t, s)
	dir := s.Path(id)
	onlyFlags := func(k string) bool { return k == "flags" }
	snap, err := s.OpenArrays(id, onlyFlags, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(snap.Arrays) != 1 || !snap.Arrays["flags"].Equal(fixtureArrays()["flags"]) || snap.Metadata.ID != id {
		t.Fatalf("arrays %v", snap.Keys())
	}
	ids := filepath.Join(dir, "array-ids.bin")
	orig, err := os.ReadFile(ids)
	if err != nil {
		t.Fatal(err)
	}
	// An array not read is not checksummed: a flipped byte in it goes unnoticed here,
	// and Open still finds it.
	bad := append([]byte(nil), orig...)
	bad[0] ^= 1
	os.WriteFile(ids, bad, 0o644)
	if _, err := s.OpenArrays(id, onlyFlags, nil); err != nil {
		t.Errorf("OpenArrays of flags with ids damaged: %v", err)
	}
	_, err = s.Open(id)
	wantIntegrity(t, err, "array-ids.bin")
	_, err = s.OpenArrays(id, func(k string) bool { return k == "ids" }, nil)
	wantIntegrity(t, err, "array-ids.bin")
	// Its size is structure: checked whatever is read.
	os.WriteFile(ids, orig[:len(orig)-1], 0o644)
	_, err = s.OpenArrays(id, onlyFlags, nil)
	wantIntegrity(t, err, "array-ids.bin")
	os.Remove(ids)
	_, err = s.OpenArrays(id, onlyFlags, nil)
	wantIntegrity(t, err, "array-ids.bin")
	// The accepted array is checksummed.
	os.WriteFile(ids, orig, 0o644)
	flags := filepath.Join(dir, "array-flags.bin")
	fb, _ := os.ReadFile(flags)
	fb[1] ^= 1
	os.WriteFile(flags, fb, 0o644)
	_, err = s.OpenArrays(id, onlyFlags, nil)
	wantIntegrity(t, err, "array-flags.bin")
}
