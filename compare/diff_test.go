package compare

import (
	"errors"
	"path/filepath"
	"testing"

	"github.com/pipewhy/pipewhy/snapshot"
)

// TestDiffDifferentArtifacts: snapshots of different artifacts are refused with
// CodeArtifacts unless AllowDifferentArtifacts, which compares them by field id with a
// note.
func TestDiffDifferentArtifacts(t *testing.T) {
	air := observeAll(t, "airports", snapshot.ResolutionRecord, nil, filepath.Join(vega, "airports-100.csv"))[0]
	fl := observeAll(t, "flights", snapshot.ResolutionRecord, nil, filepath.Join(vega, "flights-1k-arrowgo.parquet"))[0]
	if _, err := Diff(air, fl, Options{}); !errors.Is(err, &Error{Code: CodeArtifacts}) {
		t.Fatalf("error %v, want %s", err, CodeArtifacts)
	}
	r, err := Diff(air, fl, Options{AllowDifferentArtifacts: true})
	if err != nil {
		t.Fatal(err)
	}
	if r.Equal || len(r.Notes) == 0 || r.Notes[0] != "different artifacts (airports, flights): columns matched by field id, which each artifact assigned on its own" {
		t.Errorf("equal %v notes %q", r.Equal, r.Notes)
	}
}

func TestShellQuote(t *testing.T) {
	for in, want := range map[string]string{
		"data/orders.csv":            "data/orders.csv",
		"postgres://u@h:5432/db#s.t": "'postgres://u@h:5432/db#s.t'", // # starts a comment or a glob in some shells
		"my file.csv":                "'my file.csv'",
		"it's":                       `'it'\''s'`,
		"":                           "''",
		"a;rm -rf x":                 "'a;rm -rf x'",
		"$HOME":                      "'$HOME'",
	} {
		if got := shellQuote(in); got != want {
			t.Errorf("shellQuote(%q) = %s, want %s", in, got, want)
		}
	}
}
