package fingerprint

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"slices"
	"strconv"
	"testing"

	"github.com/pipewhy/pipewhy/normalize"
)

// fixtureV2Path is the portable fixture of contract §13, written by
// testdata/mkfixture_v2.py from hashlib, xxhsum and Python integers (never from this
// package).
const fixtureV2Path = "../tests/fixtures/fingerprint_v2.json"

type fixtureV2 struct {
	Contract  string              `json:"contract"`
	Section   string              `json:"section"`
	Note      string              `json:"note"`
	Algorithm string              `json:"algorithm"`
	Labels    map[string]string   `json:"labels"`
	Profile   string              `json:"profile"`
	Schema    fxSchema            `json:"schema"`
	Records   map[string][]string `json:"records"`
	KeyFields []string            `json:"key_fields"`
	Contexts  []struct {
		Mode       string                `json:"mode"`
		Descriptor string                `json:"descriptor"`
		ID         string                `json:"id"`
		Keys       map[string]string     `json:"keys"`
		Fields     map[string][]fxDigest `json:"fields"`
		Datasets   []struct {
			Name    string     `json:"name"`
			Records []string   `json:"records"`
			Digests []fxDigest `json:"digests"`
			State   []string   `json:"state"`
			Columns []struct {
				Field string   `json:"field"`
				State []string `json:"state"`
			} `json:"columns"`
		} `json:"datasets"`
		Extra []fxDigest `json:"extra"`
	} `json:"contexts"`
}

func TestV2Fixture(t *testing.T) {
	var fx fixtureV2
	loadJSON(t, fixtureV2Path, &fx)
	dec1 := func(s string) uint64 { return decWords(t, []string{s})[0] }
	profileFormula := "pipewhy.normalization/strict-v1+ext1/wire-1/sha256:" +
		sha(`{"domain":"pipewhy.normalization","extension":"pipewhy.c2-ext1","profile":"strict-v1+ext1","wire_version":1}`)
	if fx.Profile != profileFormula || ext1ID != profileFormula || fx.Algorithm != XXH3Columnar.ID() {
		t.Fatalf("fixture profile %s / algorithm %s, contract formula %s, normalize %s", fx.Profile, fx.Algorithm, profileFormula, ext1ID)
	}
	labels := map[string]string{"field": "pipewhy.fingerprint.v2/field", "record": "pipewhy.fingerprint.v2/record", "value": "pipewhy.fingerprint.v2/value"}
	if fmt.Sprint(fx.Labels) != fmt.Sprint(labels) {
		t.Fatalf("fixture labels %v, contract %v", fx.Labels, labels)
	}
	schema := fx.Schema.schema(t)
	records := map[string][]uint64{}
	for name, ws := range fx.Records {
		records[name] = decWords(t, ws)
		if err := normalize.ValidateRecordWordsIn(records[name], normalize.StrictV1Ext1); err != nil {
			t.Fatalf("fixture record %s: %v", name, err)
		}
	}
	keyFields := decWords(t, fx.KeyFields)

	xxh := newXXHQueue(t)
	// check verifies one listed digest independently of this package: its message is
	// rebuilt here from the contract's definition, its hex form must map to its words, and
	// it is queued for xxhsum. It returns the digest.
	check := func(what string, msg []byte, e fxDigest) Digest {
		t.Helper()
		if hex.EncodeToString(msg) != e.MessageHex {
			t.Fatalf("%s: message differs from the contract's bytes", what)
		}
		xxh.add(t, msg, e.DigestHex)
		return e.xxh3Digest(t, what)
	}
	le := func(prefix []byte, words ...uint64) []byte {
		m := slices.Clone(prefix)
		for _, w := range words {
			m = binary.LittleEndian.AppendUint64(m, w)
		}
		return m
	}

	for _, fc := range fx.Contexts {
		mode, err := ParseMode(fc.Mode)
		if err != nil {
			t.Fatal(err)
		}
		c, err := NewContext(XXH3Columnar, fx.Profile, schema, mode)
		if err != nil {
			t.Fatal(err)
		}
		if string(c.Descriptor()) != fc.Descriptor || c.ID() != fc.ID || fc.ID != ContextIDPrefix+sha(fc.Descriptor) {
			t.Fatalf("%s: context %s / %s, fixture %s / %s", fc.Mode, c.Descriptor(), c.ID(), fc.Descriptor, fc.ID)
		}
		key, _ := hex.DecodeString(fc.ID[len(ContextIDPrefix):])
		derived := map[string][]byte{}
		for name, label := range labels {
			s := sha256.Sum256(append(slices.Clone(key), label...))
			derived[name] = s[:]
			if hex.EncodeToString(s[:]) != fc.Keys[name] {
				t.Fatalf("%s: derived key %s is not SHA-256(K ‖ %q)", fc.Mode, name, label)
			}
		}

		// Field digests: K_F ‖ frame, by xxhsum, and by this package from words and as a
		// column of one row.
		fds := map[string][]Digest{}
		for rn, es := range fc.Fields {
			frames := refFrames(records[rn])
			if len(es) != len(frames) {
				t.Fatalf("%s %s: %d field digests for %d frames", fc.Mode, rn, len(es), len(frames))
			}
			for i, e := range es {
				what := fmt.Sprintf("%s %s field %d", fc.Mode, rn, frames[i][0])
				if !slices.Equal(decWords(t, e.Words), frames[i]) {
					t.Fatalf("%s: words differ from the record's frame", what)
				}
				d := check(what, le(derived["field"], frames[i]...), e)
				if got, err := c.FieldDigest(frames[i]); err != nil || got != d {
					t.Fatalf("%s: FieldDigest %x %v, fixture %x", what, got, err, d)
				}
				k, err := NewColumnar(c, []uint64{frames[i][0]})
				if err != nil {
					t.Fatal(err)
				}
				tile := NewTile(1, 1)
				if _, err := k.Frames(tile, 0, 1, frames[i]); err != nil || tile.Digests[0] != d {
					t.Fatalf("%s: Columnar.Frames %x %v, fixture %x", what, tile.Digests[0], err, d)
				}
				fds[rn] = append(fds[rn], d)
			}
		}
		if len(fc.Fields) != len(records) {
			t.Fatalf("%s: field digests of %d records, fixture has %d", fc.Mode, len(fc.Fields), len(records))
		}
		// recordTile is the tile of one record's field digests (from the fixture).
		recordTile := func(rn string) (*Columnar, Tile) {
			var ids []uint64
			for _, fr := range refFrames(records[rn]) {
				ids = append(ids, fr[0])
			}
			k, err := NewColumnar(c, ids)
			if err != nil {
				t.Fatal(err)
			}
			return k, Tile{Digests: slices.Clone(fds[rn]), Cols: len(ids)}
		}

		for _, ds := range fc.Datasets {
			what := fmt.Sprintf("%s [%s]", fc.Mode, ds.Name)
			var recs [][]uint64
			var digests []Digest
			for i, e := range ds.Digests {
				if e.Record != ds.Records[i] || (e.Position != nil) != (mode == Ordered) ||
					(e.Position != nil && *e.Position != strconv.Itoa(i)) {
					t.Fatalf("%s: digest %d lists record %s at %v", what, i, e.Record, e.Position)
				}
				var words []uint64
				if mode == Ordered {
					words = append(words, uint64(i))
				}
				for _, fd := range fds[e.Record] {
					words = append(words, fd.Lo, fd.Hi)
				}
				d := check(what, le(derived["record"], words...), e)
				r := records[e.Record]
				if got, err := c.RecordDigest(uint64(i), r); err != nil || got != d {
					t.Fatalf("%s: RecordDigest %x %v, fixture %x", what, got, err, d)
				}
				k, tile := recordTile(e.Record)
				dst := make([]Digest, 1)
				if _, err := k.Records(dst, tile, uint64(i)); err != nil || dst[0] != d {
					t.Fatalf("%s: Columnar.Records %x %v, fixture %x", what, dst[0], err, d)
				}
				recs = append(recs, r)
				digests = append(digests, d)
			}
			want := sumState(digests)
			if !slices.Equal(decWords(t, ds.State), want) {
				t.Fatalf("%s: fixture state %v is not the sum of its digests %v", what, ds.State, want)
			}
			res := run(t, c, Options{Workers: 2, Columns: true}, []*normalize.RecordBatch{batchOf(rngFor(ds.Name), ext1ID, recs)})
			if !slices.Equal(res.State.Words(), want) {
				t.Fatalf("%s: engine state %v, fixture %v", what, res.State.Words(), want)
			}
			if s, err := FromWords(c, fc.ID, want); err != nil || !slices.Equal(s.Words(), want) {
				t.Fatalf("%s: FromWords %v", what, err)
			}
			// Column states: the fixture lists the fields that occur; every other column
			// state is empty.
			listed := map[uint64][]uint64{}
			for _, col := range ds.Columns {
				listed[dec1(col.Field)] = decWords(t, col.State)
			}
			for _, cs := range res.Columns {
				want, ok := listed[cs.Field]
				if !ok {
					want = []uint64{1, 2, 0, 0, 0}
				}
				if !slices.Equal(cs.State.Words(), want) {
					t.Fatalf("%s: engine column %d state %v, fixture %v", what, cs.Field, cs.State.Words(), want)
				}
				delete(listed, cs.Field)
			}
			if len(listed) > 0 {
				t.Fatalf("%s: fixture columns %v are not schema fields", what, listed)
			}
			if mode == Multiset {
				// The column states are the sums of the listed field digests.
				sums := map[uint64][3]uint64{}
				for _, rn := range ds.Records {
					for i, fr := range refFrames(records[rn]) {
						s := sums[fr[0]]
						sums[fr[0]] = [3]uint64{s[0] + 1, s[1] + fds[rn][i].Lo, s[2] + fds[rn][i].Hi}
					}
				}
				for _, col := range ds.Columns {
					s := sums[dec1(col.Field)]
					if !slices.Equal(decWords(t, col.State), []uint64{1, 2, s[0], s[1], s[2]}) {
						t.Fatalf("%s: fixture column %s is not the sum of its field digests", what, col.Field)
					}
				}
			}
		}

		// The key digest of R1 and, in ordered mode, a positional value digest; through
		// the engine and through Columnar.
		res := run(t, c, Options{Resolution: ValueResolution, KeyFields: keyFields},
			[]*normalize.RecordBatch{batchOf(rngFor("R1"), ext1ID, [][]uint64{records["R1"]})})
		k, tile := recordTile("R1")
		var keyCols []int
		for i, fr := range refFrames(records["R1"]) {
			if slices.Contains(keyFields, fr[0]) {
				keyCols = append(keyCols, i)
			}
		}
		kinds := map[string]bool{}
		for _, e := range fc.Extra {
			what := fmt.Sprintf("%s %s digest", fc.Mode, e.Kind)
			kinds[e.Kind] = true
			switch e.Kind {
			case "key":
				if !slices.Equal(decWords(t, e.Fields), keyFields) {
					t.Fatalf("%s: of fields %v, fixture key fields %v", what, e.Fields, keyFields)
				}
				var words []uint64
				for _, i := range keyCols {
					words = append(words, fds["R1"][i].Lo, fds["R1"][i].Hi)
				}
				d := check(what, le(derived["record"], words...), e)
				dst := make([]Digest, 1)
				if err := k.Keys(dst, tile, keyCols); err != nil || dst[0] != d {
					t.Fatalf("%s: Columnar.Keys %x %v, fixture %x", what, dst[0], err, d)
				}
				if res.Records[0] != d.Lo || res.Records[1] != d.Hi {
					t.Fatalf("%s: engine %v, fixture %x", what, res.Records[:2], d)
				}
			case "value":
				if mode != Ordered || e.Position == nil || *e.Position != "0" {
					t.Fatalf("%s: positional value digests exist in ordered mode only", what)
				}
				i := slices.IndexFunc(refFrames(records["R1"]), func(f []uint64) bool { return f[0] == dec1(e.Field) })
				d := check(what, le(derived["value"], 0, fds["R1"][i].Lo, fds["R1"][i].Hi), e)
				dst := make([]Digest, 1)
				if _, err := k.Values(dst, tile, i, 0); err != nil || dst[0] != d {
					t.Fatalf("%s: Columnar.Values %x %v, fixture %x", what, dst[0], err, d)
				}
				if !slices.Equal(res.Values[3*i:3*i+3], []uint64{dec1(e.Field), d.Lo, d.Hi}) {
					t.Fatalf("%s: engine %v, fixture %x", what, res.Values[3*i:3*i+3], d)
				}
			default:
				t.Fatalf("unknown extra kind %q", e.Kind)
			}
		}
		if !kinds["key"] || kinds["value"] != (mode == Ordered) {
			t.Fatalf("%s: extra digests %v", fc.Mode, kinds)
		}
		if mode == Multiset {
			// Multiset value digests are the field digests.
			for i, fd := range fds["R1"] {
				if res.Values[3*i+1] != fd.Lo || res.Values[3*i+2] != fd.Hi {
					t.Fatalf("multiset value digest %d differs from the field digest", i)
				}
			}
		}
	}
	if len(fx.Contexts) != 2 {
		t.Fatalf("%d contexts, want multiset and ordered", len(fx.Contexts))
	}

	// Every XXH3 digest against the independent implementation.
	xxh.check(t, 100)
}
