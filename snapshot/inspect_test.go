package snapshot

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestInspectIncomplete(t *testing.T) {
	s := newStore(t, Options{})
	ctx := context.Background()
	// A VALIDATED attempt: the rename fails.
	failing, err := Open(s.Root(), Options{FS: failAt(func(op string) bool { return op == "rename" })})
	if err != nil {
		t.Fatal(err)
	}
	if err := failing.Publish(ctx, fixtureMetadata(t), fixtureArrays()); err == nil {
		t.Fatal("rename fault ignored")
	}
	atts, err := s.InspectIncomplete()
	if err != nil || len(atts) != 1 || atts[0].Phase != PhaseValidated {
		t.Fatalf("%+v %v", atts, err)
	}
	valid := atts[0].Path
	// Copy it and corrupt a payload of the copy: INVALID, naming the file.
	bad := filepath.Join(stagingDirOf(s), fixtureID+"-0000000000000000")
	os.Mkdir(bad, 0o755)
	for _, n := range listDir(t, valid) {
		b, _ := os.ReadFile(filepath.Join(valid, n))
		if n == "array-ids.bin" {
			b[3] ^= 0x80
		}
		os.WriteFile(filepath.Join(bad, n), b, 0o644)
	}
	// A stray file and an empty directory.
	os.WriteFile(filepath.Join(stagingDirOf(s), "stray"), []byte("x"), 0o644)
	os.Mkdir(filepath.Join(stagingDirOf(s), "empty"), 0o755)
	before := tree(t, s.Root())
	atts, err = s.InspectIncomplete()
	if err != nil {
		t.Fatal(err)
	}
	if after := tree(t, s.Root()); strings.Join(before, "\n") != strings.Join(after, "\n") {
		t.Fatal("InspectIncomplete changed the store")
	}
	got := map[string]Attempt{}
	for _, a := range atts {
		got[filepath.Base(a.Path)] = a
	}
	if a := got[filepath.Base(bad)]; a.Phase != PhaseInvalid || a.ID == nil || !strings.Contains(a.Diagnostic, "array-ids.bin") {
		t.Errorf("corrupt attempt %+v", a)
	}
	if a := got["stray"]; a.Phase != PhaseInvalid || a.ID != nil {
		t.Errorf("stray file %+v", a)
	}
	if a := got["empty"]; a.Phase != PhaseUnavailable || a.ID != nil || !strings.Contains(a.Diagnostic, "intent.json") {
		t.Errorf("empty attempt %+v", a)
	}
	if a := got[filepath.Base(valid)]; a.Phase != PhaseValidated || strings.Contains(a.Diagnostic, "is published") {
		t.Errorf("validated attempt %+v", a)
	}
	// Nothing in staging is ever listed or opened.
	if l, err := s.List(); err != nil || len(l) != 0 {
		t.Fatalf("list %v %v", l, err)
	}
	// After the ID is published by another attempt, the diagnostic says so.
	publishFixture(t, s)
	atts, _ = s.InspectIncomplete()
	for _, a := range atts {
		if a.ID != nil && !strings.Contains(a.Diagnostic, "a snapshot with this ID is published") {
			t.Errorf("attempt %+v does not mention the published ID", a)
		}
	}
}
