package fingerprint

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/pipewhy/pipewhy/normalize"
)

func TestV2Registry(t *testing.T) {
	a := XXH3Columnar
	if a.Name() != "xxh3-128-columnar" || a.Version() != 2 || a.Lanes() != 2 ||
		a.ID() != "pipewhy.fingerprint/xxh3-128-columnar/v2" || !a.Valid() {
		t.Fatalf("%v: name %q version %d lanes %d", a, a.Name(), a.Version(), a.Lanes())
	}
	if got, err := ParseAlgorithm("pipewhy.fingerprint/xxh3-128-columnar/v2"); err != nil || got != a {
		t.Fatalf("ParseAlgorithm: %v %v", got, err)
	}
	if got, err := LookupAlgorithm("xxh3-128-columnar", 2); err != nil || got != a {
		t.Fatalf("LookupAlgorithm: %v %v", got, err)
	}
	if _, err := ParseAlgorithm("pipewhy.fingerprint/xxh3-128-columnar/v1"); CodeOf(err) != CodeAlgorithmVersion {
		t.Fatalf("version 1 of the columnar algorithm: %v", err)
	}
	// v1 and v2 contexts of the same profile, schema and mode are different contexts.
	v1, v2 := mustContext(t, XXH3, Multiset), mustContext(t, XXH3Columnar, Multiset)
	if v1.Equal(v2) || v1.ID() == v2.ID() {
		t.Fatal("a v2 context equals its v1 counterpart")
	}
	s1, s2 := NewState(v1), NewState(v2)
	if err := s1.Merge(s2); CodeOf(err) != CodeForeignContext {
		t.Fatalf("merging v1 and v2 states: %v", err)
	}
}

// TestV2ScalarMatchesReference: the package's scalar v2 digests (Context.FieldDigest,
// Context.RecordDigest, which take the in-place XXH3 paths) equal the reference built
// from the contract's text, for random records of every type in both modes, and for
// frames and records of every length from 3 to 140 words (every XXH3 size class the
// messages reach: 17–128, 129–240, one long block, several blocks).
func TestV2ScalarMatchesReference(t *testing.T) {
	r := rand.New(rand.NewPCG(21, 1))
	for _, mode := range []Mode{Multiset, Ordered} {
		c := v2Context(t, mode)
		for i := range 500 {
			rec := randRecordV2(r)
			pos := r.Uint64()
			got, err := c.RecordDigest(pos, rec)
			if err != nil {
				t.Fatal(err)
			}
			if want := refRecordDigest(c, mode == Ordered, pos, rec); got != want {
				t.Fatalf("%v record %d: %x, reference %x", mode, i, got, want)
			}
			for _, fr := range refFrames(rec) {
				got, err := c.FieldDigest(fr)
				if err != nil {
					t.Fatal(err)
				}
				if want := refField(c, fr); got != want {
					t.Fatalf("%v field %d: %x, reference %x", mode, fr[0], got, want)
				}
			}
		}
		// Text frames of 4..140 words, and records of 0..70 fields of type any.
		for n := 0; n <= 8*136; n += 8 {
			fr := frame(7, normalize.Text, packed(make([]byte, n))...)
			if got, err := c.FieldDigest(fr); err != nil || got != refField(c, fr) {
				t.Fatalf("text of %d bytes: %v", n, err)
			}
		}
		wide := SchemaDescriptor{RenamePolicy: RenameKeepsIdentity}
		for id := range uint64(70) {
			wide.Fields = append(wide.Fields, SchemaField{ID: id, Type: TypeAny})
		}
		cw, err := NewContext(XXH3Columnar, ext1ID, wide, mode)
		if err != nil {
			t.Fatal(err)
		}
		for m := range 71 {
			var frames [][]uint64
			for id := range uint64(m) {
				frames = append(frames, frame(id, normalize.Uint64, r.Uint64()))
			}
			rec := rec(frames...)
			got, err := cw.RecordDigest(uint64(m), rec)
			if err != nil || got != refRecordDigest(cw, mode == Ordered, uint64(m), rec) {
				t.Fatalf("%v record of %d fields: %v", mode, m, err)
			}
		}
	}
}

// TestV2EngineMatchesReference: the Engine, which digests C2 words through the hasher,
// computes v2 exactly: state, column states, record, key and value entries equal the
// reference for random records, key fields, offsets, splits and worker counts.
func TestV2EngineMatchesReference(t *testing.T) {
	r := rand.New(rand.NewPCG(21, 2))
	for round := range 16 {
		mode := []Mode{Multiset, Ordered}[round%2]
		c := v2Context(t, mode)
		recs := make([][]uint64, r.IntN(200))
		for i := range recs {
			recs[i] = randRecordV2(r)
		}
		var keys []uint64
		switch round % 4 {
		case 1:
			keys = []uint64{1}
		case 2, 3:
			keys = []uint64{1, 16}
			for i := range recs {
				if !hasField(recs[i], 16) {
					recs[i] = rec(frame(1, normalize.Uint64, uint64(i)), frame(16, normalize.Null))
				}
			}
		}
		var offset uint64
		if mode == Ordered {
			offset = r.Uint64() >> 1
		}
		want := refV2Result(c, recs, offset, keys)
		for _, trusted := range []bool{false, true} {
			got := run(t, c, Options{
				Workers: 1 + r.IntN(4), ChunkRecords: 1 + r.IntN(40), Resolution: ValueResolution,
				KeyFields: keys, Offset: offset, TrustedFrames: trusted,
			}, split(r, ext1ID, recs))
			equalResults(t, fmt.Sprintf("round %d (%v, trusted %v, %d records)", round, mode, trusted, len(recs)), got, want)
		}
		// Record resolution without key fields: the key digest is the position-free
		// record digest.
		got := run(t, c, Options{Resolution: RecordResolution, Offset: offset}, split(r, ext1ID, recs))
		noKey := refV2Result(c, recs, offset, nil)
		if !slices.Equal(got.Records, noKey.Records) {
			t.Fatalf("round %d: record entries without key fields differ", round)
		}
	}
}

func TestV2FieldDigestErrors(t *testing.T) {
	c := v2Context(t, Multiset)
	for name, tc := range map[string]struct {
		ctx   Context
		frame []uint64
		code  Code
	}{
		"v1 context":        {mustContext(t, XXH3, Multiset), frame(1, normalize.Uint64, 1), CodeAlgorithm},
		"zero context":      {Context{}, frame(1, normalize.Uint64, 1), CodeContext},
		"short":             {c, []uint64{1, 4}, CodeRecord},
		"payload too long":  {c, []uint64{1, 4, 1, 5, 6}, CodeRecord},
		"payload too short": {c, []uint64{1, 4, 2, 5}, CodeRecord},
		"bad shape":         {c, frame(7, normalize.Text, 9, 0), CodeRecord},
		"unknown code":      {c, frame(40, 15, 0), CodeRecord},
		"not in schema":     {c, frame(3, normalize.Uint64, 1), CodeSchemaMismatch},
		"type not admitted": {c, frame(1, normalize.Text, 0), CodeSchemaMismatch},
	} {
		if _, err := tc.ctx.FieldDigest(tc.frame); CodeOf(err) != tc.code {
			t.Errorf("%s: %v, want %s", name, err, tc.code)
		}
	}
	// Extension codes need an extension profile.
	v1p, err := NewContext(XXH3Columnar, strictID, testSchema, Multiset)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := v1p.FieldDigest(frame(40, normalize.Date, 1)); CodeOf(err) != CodeRecord {
		t.Errorf("DATE under a v1 profile: %v", err)
	}
}
