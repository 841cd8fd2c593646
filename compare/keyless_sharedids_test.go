package compare

import (
	"errors"
	"path/filepath"
	"slices"
	"testing"

	"github.com/pipewhy/pipewhy/snapshot"
)

// TestDiffSharedFieldIDs: two snapshots of the same real file observed under two
// artifact names, each by a fresh registry (which numbers the same schema alike, as
// compare/live numbers both sides): with SharedFieldIDs they are compared without the note
// that each artifact numbered its fields on its own, and equal; with
// AllowDifferentArtifacts alone the note stays; with neither they are refused.
func TestDiffSharedFieldIDs(t *testing.T) {
	zips := filepath.Join(vega, "zipcodes-640.csv")
	a := observeAll(t, "zips-a", snapshot.ResolutionRecord, nil, zips)[0]
	b := observeAll(t, "zips-b", snapshot.ResolutionRecord, nil, zips)[0]
	r, err := Diff(a, b, Options{SharedFieldIDs: true})
	if err != nil {
		t.Fatal(err)
	}
	if !r.Equal || len(r.Notes) != 0 || r.A.Artifact != "zips-a" || r.B.Artifact != "zips-b" {
		t.Errorf("SharedFieldIDs: equal %v notes %q artifacts %s %s; want equal, no note, both names", r.Equal, r.Notes, r.A.Artifact, r.B.Artifact)
	}
	r, err = Diff(a, b, Options{AllowDifferentArtifacts: true})
	if err != nil {
		t.Fatal(err)
	}
	want := "different artifacts (zips-a, zips-b): columns matched by field id, which each artifact assigned on its own"
	if !r.Equal || !slices.Equal(r.Notes, []string{want}) {
		t.Errorf("AllowDifferentArtifacts: equal %v notes %q; want equal and %q", r.Equal, r.Notes, want)
	}
	if _, err := Diff(a, b, Options{}); !errors.Is(err, &Error{Code: CodeArtifacts}) {
		t.Errorf("no option: %v, want %s", err, CodeArtifacts)
	}
}
