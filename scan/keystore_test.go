package scan

import (
	"context"
	"errors"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/pipewhy/pipewhy/repo"
	"github.com/pipewhy/pipewhy/snapshot"
)

// TestObserveKeyStore: a record-resolution scan with KeyStore holds the same entries
// and, entry by entry, the same keys as one without, in the engine's store instead of
// the key arrays; Arrays gathers them into the same arrays; duplicate declared keys are
// reported alike; value resolution refuses it.
func TestObserveKeyStore(t *testing.T) {
	tinyTiles(t)
	for _, key := range [][]string{{"id"}, nil} {
		o := Options{Resolution: snapshot.ResolutionRecord, Key: key, Workers: 2}
		want, err := observeMany(t, context.Background(), newManySource(7, 30, false, -1, 0), o)
		if err != nil {
			t.Fatal(err)
		}
		o.KeyStore = true
		got, err := observeMany(t, context.Background(), newManySource(7, 30, false, -1, 0), o)
		if err != nil {
			t.Fatal(err)
		}
		g, w := got.Scan, want.Scan
		if g.Keys == nil || g.KeyWords != nil || g.KeyOffsets != nil {
			t.Fatalf("key %v: KeyStore kept key arrays, or no store", key)
		}
		if !slices.Equal(g.Records, w.Records) || g.Len() == 0 {
			t.Fatalf("key %v: entries differ", key)
		}
		for i := range w.Len() {
			if !slices.Equal(g.Key(i), w.Key(i)) {
				t.Fatalf("key %v: entry %d's key differs", key, i)
			}
		}
		ga, err := g.Arrays()
		if err != nil {
			t.Fatal(err)
		}
		wa, err := w.Arrays()
		if err != nil {
			t.Fatal(err)
		}
		if g.Keys != nil {
			t.Fatalf("key %v: store kept after Arrays", key)
		}
		for _, name := range []string{repo.KeyRecords, repo.KeyKeyWords, repo.KeyKeyOffsets} {
			if a, ok := ga[name]; !ok || !a.Equal(wa[name]) || a.ByteLen() == 0 {
				t.Errorf("key %v: array %s differs or is missing", key, name)
			}
		}
	}
	// Duplicate declared keys: the same error, its examples read from the store.
	o := Options{Resolution: snapshot.ResolutionRecord, Key: []string{"id"}, Workers: 2}
	_, werr := observeMany(t, context.Background(), newManySource(8, 12, true, -1, 0), o)
	o.KeyStore = true
	_, gerr := observeMany(t, context.Background(), newManySource(8, 12, true, -1, 0), o)
	var dw, dg *DuplicateKeyError
	if !errors.As(werr, &dw) || !errors.As(gerr, &dg) || !slices.Equal(dg.Examples, dw.Examples) || dg.Keys != dw.Keys || len(dw.Examples) == 0 {
		t.Errorf("duplicate keys: %v, want %v", gerr, werr)
	}
	o = Options{Resolution: snapshot.ResolutionValue, Key: []string{"id"}, KeyStore: true}
	if _, err := observeMany(t, context.Background(), newManySource(7, 3, false, -1, 0), o); CodeOf(err) != CodeOptions {
		t.Errorf("value resolution with KeyStore: %v, want %s", err, CodeOptions)
	}
}

// TestSpillKeyStore: KeyStore keeps memory only: a scan that spills under it writes the
// same snapshot arrays as the scan in memory without it.
func TestSpillKeyStore(t *testing.T) {
	tinyTiles(t)
	rng := rand.New(rand.NewPCG(5, 23))
	path := randomCSV(t, rng, 500, false)
	null := ""
	o := Options{Address: path, Name: "t", Resolution: snapshot.ResolutionRecord, Key: []string{"id"}, Workers: 2}
	o.Source.Null = &null
	want := observeFile(t, o, nil)
	st, err := snapshot.Open(t.TempDir(), snapshot.Options{})
	if err != nil {
		t.Fatal(err)
	}
	o.Memory, o.KeyStore = 2000, true
	got := observeFile(t, o, st)
	if got.Runs < 2 {
		t.Fatalf("%d runs: want a spilled scan", got.Runs)
	}
	loaded, err := repo.OnStore(st, repo.DefaultAlgorithm).Load(got.ID)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(loaded.Records, want.Scan.Records) || !slices.Equal(loaded.KeyWords, want.Scan.KeyWords) ||
		!slices.Equal(loaded.KeyOffsets, want.Scan.KeyOffsets) || len(loaded.Records) == 0 {
		t.Error("the spilled snapshot's arrays differ from the scan in memory")
	}
}
