package compare

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/pipewhy/pipewhy/repo"
	"github.com/pipewhy/pipewhy/scan"
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

// TestDiffEqualStatesNeedNoArrays: two snapshots with equal dataset states are compared
// from their states; with a declared key nothing else is read, without one the record
// entries only (for the duplicated keys); the report is the one of the full diff.
// Snapshots that differ read every array the comparison needs.
func TestDiffEqualStatesNeedNoArrays(t *testing.T) {
	r, err := repo.Init(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	zips := filepath.Join(vega, "zipcodes-640.csv")
	edited := writeFile(t, t.TempDir(), "z.csv", strings.Replace(readFile(t, zips), "\n00501,40.922326,", "\n00501,40.9,", 1))
	run := func(addr string, key []string) snapshot.ID {
		res, err := scan.Run(context.Background(), r, scan.Options{Address: addr, Name: "zip", Resolution: snapshot.ResolutionValue, Key: key})
		if err != nil {
			t.Fatal(err)
		}
		return res.ID
	}
	for _, c := range []struct {
		name   string
		key    []string
		b      string
		equal  bool
		loaded repo.Parts // what Diff reads of each side
	}{
		{"keyed, equal", []string{"zip_code"}, zips, true, 0},
		{"keyless, equal", nil, zips, true, repo.PartRecords},
		{"keyed, one changed", []string{"zip_code"}, edited, false, repo.AllParts},
		{"keyless, one changed", nil, edited, false, repo.AllParts},
	} {
		a, b := run(zips, c.key), run(c.b, c.key)
		var loaded [2]repo.Parts
		sa, err := r.LoadParts(a, 0, nil)
		if err != nil {
			t.Fatal(err)
		}
		sb, err := r.LoadParts(b, 0, nil)
		if err != nil {
			t.Fatal(err)
		}
		load := func(s *repo.Scan, p repo.Parts) error {
			i := 0
			if s == sb {
				i = 1
			}
			loaded[i] |= p & s.Missing()
			return r.LoadMore(s, p, nil)
		}
		got, err := Diff(sa, sb, Options{Limit: -1, Load: load})
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if loaded != [2]repo.Parts{c.loaded, c.loaded} {
			t.Errorf("%s: loaded %b, want %b of each", c.name, loaded, c.loaded)
		}
		fa, _ := r.Load(a)
		fb, _ := r.Load(b)
		want, err := Diff(fa, fb, Options{Limit: -1})
		if err != nil {
			t.Fatal(err)
		}
		if got.Equal != c.equal || !reflect.DeepEqual(got, want) {
			t.Errorf("%s: equal %v; from summaries %+v\nfrom whole snapshots %+v", c.name, got.Equal, got, want)
		}
	}
	// Without Load, summaries of different snapshots cannot be compared.
	sa, _ := r.LoadParts(run(zips, nil), 0, nil)
	sb, _ := r.LoadParts(run(edited, nil), 0, nil)
	if _, err := Diff(sa, sb, Options{}); !errors.Is(err, &Error{Code: CodeRecords}) {
		t.Errorf("summaries without Load: %v", err)
	}
}

func writeFile(t testing.TB, dir, name, text string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func readFile(t *testing.T, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestColumnsDiffer: columns are named as differing only when their fingerprints say
// which changed: not when records were added or removed under a key (every column's
// fingerprint then differs), but when no record was, or, without a key or at dataset
// resolution, when the row counts are equal.
func TestColumnsDiffer(t *testing.T) {
	zips := filepath.Join(vega, "zipcodes-640.csv")
	dir := t.TempDir()
	orig := readFile(t, zips)
	added := writeFile(t, dir, "added.csv", orig+"99999,40.0,-70.0,Nowhere,NY,Suffolk\n")
	city := writeFile(t, dir, "city.csv", strings.Replace(orig, ",Holtsville,NY", ",Holtsvile,NY", 1))
	for _, c := range []struct {
		res  snapshot.Resolution
		key  []string
		b    string
		want []string
	}{
		{snapshot.ResolutionRecord, []string{"zip_code"}, added, nil},
		{snapshot.ResolutionRecord, []string{"zip_code"}, city, []string{"city"}},
		{snapshot.ResolutionValue, []string{"zip_code"}, added, nil},
		{snapshot.ResolutionRecord, nil, city, []string{"city"}}, // keyless: one removed, one added
		{snapshot.ResolutionRecord, nil, added, nil},
		{snapshot.ResolutionDataset, nil, city, []string{"city"}},
		{snapshot.ResolutionDataset, nil, added, nil},
	} {
		s := observeAll(t, "zip", c.res, c.key, zips, c.b)
		r, err := Diff(s[0], s[1], Options{})
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(r.ColumnsDiffer, c.want) {
			t.Errorf("%s key %v %s: columns differ %q, want %q", c.res, c.key, filepath.Base(c.b), r.ColumnsDiffer, c.want)
		}
	}
}
