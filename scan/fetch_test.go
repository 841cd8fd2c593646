package scan

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/pipewhy/pipewhy/fingerprint"
	"github.com/pipewhy/pipewhy/normalize"
	"github.com/pipewhy/pipewhy/normalize/columnar"
	"github.com/pipewhy/pipewhy/repo"
	"github.com/pipewhy/pipewhy/snapshot"
)

// encodedRecords encodes s's batches serially (the reference's encoder) and returns
// every record by its key words (key field 1) as test-built key strings.
func encodedRecords(t *testing.T, s *manySource) map[string][]uint64 {
	t.Helper()
	cols := []columnar.Column{{Index: 0, Field: 1, Treatment: columnar.Encode}, {Index: 1, Field: 2, Treatment: columnar.Encode}, {Index: 2, Field: 3, Treatment: columnar.Encode}}
	enc, err := columnar.NewEncoder(manySchema, cols, normalize.StrictV1)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][]uint64{}
	for _, r := range s.recs {
		b := &normalize.RecordBatch{ProfileID: normalize.StrictV1.ID()}
		if err := enc.Append(b, r); err != nil {
			t.Fatal(err)
		}
		for i := range b.Len() {
			out[fmt.Sprint(projectKey(nil, b.Record(i), []uint64{1}))] = slices.Clone(b.Record(i))
		}
	}
	return out
}

// TestFetch: a scan with Fetch returns exactly the records of the wanted keys (as the
// serial encoder gives them; nil for a key the source lacks), at record resolution
// and at value resolution without payloads, with any encoder count and tile size;
// its state is the reference's; DigestsOnly keeps the reference's value digests and
// no value table.
func TestFetch(t *testing.T) {
	for _, res := range []snapshot.Resolution{snapshot.ResolutionRecord, snapshot.ResolutionValue} {
		for _, workers := range []int{1, 2, 5} {
			for _, tiny := range []bool{false, true} {
				t.Run(fmt.Sprintf("%s/workers=%d/tiny=%v", res, workers, tiny), func(t *testing.T) {
					if tiny {
						tinyTiles(t)
					}
					seed := uint64(workers)*11 + uint64(len(res))
					ref := newManySource(seed, 30, false, -1, 0)
					all := encodedRecords(t, ref)
					if len(all) < 20 {
						t.Fatalf("only %d records", len(all))
					}
					// Every 7th id from 1, and keys no record has: an id past the end, and a
					// key whose id frame is typed otherwise (text "3").
					var want [][]uint64
					for id := 1; id <= len(all); id += 7 {
						want = append(want, []uint64{1, 2, 1, 1, uint64(normalize.Uint64), 1, uint64(id)})
					}
					want = append(want, []uint64{1, 2, 1, 1, uint64(normalize.Uint64), 1, uint64(len(all) + 1)})
					want = append(want, []uint64{1, 2, 1, 1, uint64(normalize.Text), 2, 1, '3'})
					s := newManySource(seed, 30, false, -1, 0)
					got, err := observeMany(t, context.Background(), s, Options{Resolution: res, Key: []string{"id"},
						Workers: workers, Fetch: want, DigestsOnly: res == snapshot.ResolutionValue})
					if err != nil {
						t.Fatal(err)
					}
					if len(got.Fetched) != len(want) {
						t.Fatalf("%d fetched, want %d", len(got.Fetched), len(want))
					}
					for i, k := range want {
						exp := all[fmt.Sprint(k)] // nil for the last two
						if (i >= len(want)-2) != (exp == nil) {
							t.Fatalf("key %v: test data has record %v", k, exp)
						}
						if !slices.Equal(got.Fetched[i], exp) || (exp == nil) != (got.Fetched[i] == nil) {
							t.Errorf("key %v: fetched %v, want %v", k, got.Fetched[i], exp)
						}
					}
					fres := fingerprint.RecordResolution
					if res == snapshot.ResolutionValue {
						fres = fingerprint.ValueResolution
					}
					r := reference(t, newManySource(seed, 30, false, -1, 0), got.Scan.Context, fres, []uint64{1})
					if eq, _ := got.Scan.State.Equal(r.fr.State); !eq || !slices.Equal(got.Scan.Records, r.fr.Records) {
						t.Error("state or record entries differ from the reference")
					}
					if res == snapshot.ResolutionValue {
						if got.Scan.ValueTable != nil {
							t.Error("DigestsOnly scan has a value table")
						}
						if len(got.Scan.Values) == 0 || !slices.Equal(got.Scan.Values, r.fr.Values) || !slices.Equal(got.Scan.ValueOffsets, r.fr.ValueOffsets) {
							t.Error("value digests differ from the reference")
						}
					}
					s.Close()
					s.mem.AssertSize(t, 0)
				})
			}
		}
	}
}

// TestFetchOptions: the new options are refused where they cannot apply, and neither
// is ever published.
func TestFetchOptions(t *testing.T) {
	for _, tc := range []struct {
		name string
		o    Options
	}{
		{"DigestsOnly at record resolution", Options{Resolution: snapshot.ResolutionRecord, Key: []string{"id"}, DigestsOnly: true}},
		{"DigestsOnly at dataset resolution", Options{DigestsOnly: true}},
		{"Fetch without key", Options{Resolution: snapshot.ResolutionValue, Fetch: [][]uint64{{1, 2, 0}}}},
		{"Fetch at dataset resolution", Options{Key: []string{"id"}, Fetch: [][]uint64{{1, 2, 0}}}},
		{"Select at dataset resolution", Options{Select: func(fingerprint.Digest) bool { return true }}},
		{"Select at value resolution with payloads", Options{Resolution: snapshot.ResolutionValue, Key: []string{"id"}, Select: func(fingerprint.Digest) bool { return true }}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := newManySource(1, 3, false, -1, 0)
			defer s.Close()
			_, err := observeMany(t, context.Background(), s, tc.o)
			var se *Error
			if !errors.As(err, &se) || se.Code != CodeOptions {
				t.Fatalf("err %v, want %s", err, CodeOptions)
			}
		})
	}
	r, err := repo.Init(filepath.Join(t.TempDir(), "r"))
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), "a.csv")
	if err := os.WriteFile(p, []byte("id,x\n1,a\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, o := range []Options{
		{Address: p, Resolution: snapshot.ResolutionValue, Key: []string{"id"}, DigestsOnly: true},
		{Address: p, Resolution: snapshot.ResolutionRecord, Key: []string{"id"}, Fetch: [][]uint64{{1, 2, 0}}},
		{Address: p, Resolution: snapshot.ResolutionRecord, Key: []string{"id"}, Select: func(fingerprint.Digest) bool { return true }},
	} {
		_, err = Run(context.Background(), r, o)
		var se *Error
		if !errors.As(err, &se) || se.Code != CodeOptions {
			t.Fatalf("Run with DigestsOnly %v, Fetch %v: err %v, want %s", o.DigestsOnly, o.Fetch, err, CodeOptions)
		}
	}
	if ms, err := r.Store().List(); err != nil || len(ms) != 0 {
		t.Errorf("store holds %d snapshots (%v), want none", len(ms), err)
	}
}

// TestSelect: a scan with Select keeps the entries, key words and value digests of the
// selected keys only, exactly as the scan without it has them; the state is the same.
func TestSelect(t *testing.T) {
	for _, res := range []snapshot.Resolution{snapshot.ResolutionRecord, snapshot.ResolutionValue} {
		t.Run(string(res), func(t *testing.T) {
			o := Options{Resolution: res, Key: []string{"id"}, Workers: 2, DigestsOnly: res == snapshot.ResolutionValue}
			all, err := observeMany(t, context.Background(), newManySource(5, 30, false, -1, 0), o)
			if err != nil {
				t.Fatal(err)
			}
			o.Select = func(k fingerprint.Digest) bool { return k.Hi%2 == 1 }
			got, err := observeMany(t, context.Background(), newManySource(5, 30, false, -1, 0), o)
			if err != nil {
				t.Fatal(err)
			}
			a, g := all.Scan, got.Scan
			if eq, _ := g.State.Equal(a.State); !eq {
				t.Fatal("state differs")
			}
			var recs, keys, vals []uint64
			for i := 0; i < len(a.Records)/4; i++ {
				if a.Records[i*4+1]%2 == 1 {
					recs = append(recs, a.Records[i*4:i*4+4]...)
					keys = append(keys, a.Key(i)...)
					if a.Values != nil {
						vals = append(vals, a.Values[a.ValueOffsets[i]*3:a.ValueOffsets[i+1]*3]...)
					}
				}
			}
			if len(recs) == 0 || len(recs) == len(a.Records) {
				t.Fatalf("test data: %d of %d entries selected", len(recs)/4, len(a.Records)/4)
			}
			if !slices.Equal(g.Records, recs) || !slices.Equal(g.KeyWords, keys) || !slices.Equal(g.Values, vals) {
				t.Error("selected entries differ from the full scan's")
			}
		})
	}
}
