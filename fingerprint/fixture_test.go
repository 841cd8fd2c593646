package fingerprint

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math/big"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"testing"

	"github.com/pipewhy/pipewhy/normalize"
)

// fixturePath is the portable C3 fixture, written by testdata/mkfixture.py from hashlib,
// xxhsum and Python integers (never from this package).
const fixturePath = "../tests/fixtures/fingerprint_v1.json"

// fxDigest is one digest a fixture lists: what it is of, its message bytes and the
// digest (hex as xxhsum prints it, and its words).
type fxDigest struct {
	Record     string   `json:"record"`
	Kind       string   `json:"kind"`
	Of         string   `json:"of"`
	Field      string   `json:"field"`
	Fields     []string `json:"fields"`
	Words      []string `json:"words"`
	Position   *string  `json:"position"`
	MessageHex string   `json:"message_hex"`
	DigestHex  string   `json:"digest_hex"`
	Lo         string   `json:"lo"`
	Hi         string   `json:"hi"`
}

// fxSchema is a fixture's schema: fields, descriptor and identity.
type fxSchema struct {
	RenamePolicy string `json:"rename_policy"`
	Fields       []struct {
		ID   string `json:"id"`
		Type string `json:"type"`
	} `json:"fields"`
	Descriptor string `json:"descriptor"`
	ID         string `json:"id"`
}

// schema returns the fixture's schema after checking that its descriptor is the
// contract's and its identity the descriptor's SHA-256.
func (fs fxSchema) schema(t *testing.T) SchemaDescriptor {
	t.Helper()
	schema := SchemaDescriptor{RenamePolicy: RenamePolicy(fs.RenamePolicy)}
	for _, f := range fs.Fields {
		schema.Fields = append(schema.Fields, SchemaField{ID: decWords(t, []string{f.ID})[0], Type: ValueType(f.Type)})
	}
	if d, err := schema.Descriptor(); err != nil || string(d) != fs.Descriptor {
		t.Fatalf("schema descriptor %s (%v), fixture %s", d, err, fs.Descriptor)
	}
	if id, _ := schema.ID(); id != fs.ID || id != SchemaIDPrefix+sha(fs.Descriptor) {
		t.Fatalf("schema id %s, fixture %s", id, fs.ID)
	}
	return schema
}

// xxh3Digest returns the listed XXH3 digest after checking that its hex form is hi then
// lo, as xxhsum prints it.
func (e fxDigest) xxh3Digest(t *testing.T, what string) Digest {
	t.Helper()
	d := Digest{Lo: decWords(t, []string{e.Lo})[0], Hi: decWords(t, []string{e.Hi})[0]}
	if e.DigestHex != fmt.Sprintf("%016x%016x", d.Hi, d.Lo) {
		t.Fatalf("%s: hex %s does not map to hi %d lo %d", what, e.DigestHex, d.Hi, d.Lo)
	}
	return d
}

// xxhQueue collects messages and the XXH3 digests a fixture lists for them, for one
// xxhsum run (check).
type xxhQueue struct {
	dir   string
	files []string
	want  map[string]string
}

func newXXHQueue(t *testing.T) *xxhQueue {
	return &xxhQueue{dir: t.TempDir(), want: map[string]string{}}
}

func (q *xxhQueue) add(t *testing.T, msg []byte, digestHex string) {
	t.Helper()
	name := filepath.Join(q.dir, fmt.Sprintf("m%04d", len(q.files)))
	if err := os.WriteFile(name, msg, 0o600); err != nil {
		t.Fatal(err)
	}
	q.files = append(q.files, name)
	q.want[name] = digestHex
}

// check compares every queued digest with xxhsum -H2 (an independent implementation),
// and requires at least min of them.
func (q *xxhQueue) check(t *testing.T, min int) {
	t.Run("xxhsum", func(t *testing.T) {
		got := runXXHSum(t, requireTool(t, "xxhsum"), q.files)
		for _, f := range q.files {
			if got[f] != q.want[f] {
				t.Errorf("%s: xxhsum %s, fixture %s", f, got[f], q.want[f])
			}
		}
		if len(q.files) < min {
			t.Fatalf("only %d XXH3 digests checked", len(q.files))
		}
	})
}

// sumState returns the state words of a dataset of the digests ds, summed with big
// integers mod 2**64 (hand arithmetic, not State's).
func sumState(ds []Digest) []uint64 {
	lo, hi := new(big.Int), new(big.Int)
	for _, d := range ds {
		lo.Add(lo, new(big.Int).SetUint64(d.Lo))
		hi.Add(hi, new(big.Int).SetUint64(d.Hi))
	}
	m := new(big.Int).Lsh(big.NewInt(1), 64)
	return []uint64{1, 2, uint64(len(ds)), lo.Mod(lo, m).Uint64(), hi.Mod(hi, m).Uint64()}
}

type fixture struct {
	Contract string              `json:"contract"`
	Note     string              `json:"note"`
	Profile  string              `json:"profile"`
	Schema   fxSchema            `json:"schema"`
	Records  map[string][]string `json:"records"`
	Contexts []struct {
		Algorithm  string `json:"algorithm"`
		Mode       string `json:"mode"`
		Descriptor string `json:"descriptor"`
		ID         string `json:"id"`
		Datasets   []struct {
			Name    string     `json:"name"`
			Records []string   `json:"records"`
			Digests []fxDigest `json:"digests"`
			State   []string   `json:"state"`
		} `json:"datasets"`
		Extra []fxDigest `json:"extra"`
	} `json:"contexts"`
}

func decWords(t *testing.T, ss []string) []uint64 {
	t.Helper()
	w := make([]uint64, len(ss))
	for i, s := range ss {
		v, err := strconv.ParseUint(s, 10, 64)
		if err != nil {
			t.Fatalf("word %q: %v", s, err)
		}
		w[i] = v
	}
	return w
}

func loadFixture(t *testing.T) *fixture {
	var fx fixture
	loadJSON(t, fixturePath, &fx)
	return &fx
}

// loadJSON decodes the JSON file at path into v, refusing members v does not declare.
func loadJSON(t *testing.T, path string, v any) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		t.Fatal(err)
	}
}

func TestFixture(t *testing.T) {
	fx := loadFixture(t)
	if fx.Profile != strictID || normalize.StrictV1.ID() != strictID {
		t.Fatalf("fixture profile %s, normalize %s, contract formula %s", fx.Profile, normalize.StrictV1.ID(), strictID)
	}
	schema := fx.Schema.schema(t)
	records := map[string][]uint64{}
	for name, ws := range fx.Records {
		records[name] = decWords(t, ws)
		if err := normalize.ValidateRecordWords(records[name]); err != nil {
			t.Fatalf("fixture record %s: %v", name, err)
		}
	}

	xxh := newXXHQueue(t)

	for _, fc := range fx.Contexts {
		alg, err := ParseAlgorithm(fc.Algorithm)
		if err != nil {
			t.Fatal(err)
		}
		mode, err := ParseMode(fc.Mode)
		if err != nil {
			t.Fatal(err)
		}
		c, err := NewContext(alg, fx.Profile, schema, mode)
		if err != nil {
			t.Fatal(err)
		}
		if string(c.Descriptor()) != fc.Descriptor || c.ID() != fc.ID || fc.ID != ContextIDPrefix+sha(fc.Descriptor) {
			t.Fatalf("%s %s: context %s / %s, fixture %s / %s", fc.Algorithm, fc.Mode, c.Descriptor(), c.ID(), fc.Descriptor, fc.ID)
		}
		key, _ := hex.DecodeString(fc.ID[len(ContextIDPrefix):])

		// checkDigest verifies one listed digest independently of this package (message
		// bytes rebuilt here; SHA-256 via crypto/sha256; XXH3 queued for xxhsum) and then
		// against Algorithm.Sum. It returns the digest.
		checkDigest := func(what string, words []uint64, e fxDigest) Digest {
			msg := slices.Clone(key)
			if e.Position != nil {
				msg = binary.LittleEndian.AppendUint64(msg, decWords(t, []string{*e.Position})[0])
			}
			for _, w := range words {
				msg = binary.LittleEndian.AppendUint64(msg, w)
			}
			if hex.EncodeToString(msg) != e.MessageHex {
				t.Fatalf("%s: message differs from the contract's bytes", what)
			}
			d := Digest{Lo: decWords(t, []string{e.Lo})[0], Hi: decWords(t, []string{e.Hi})[0]}
			switch alg {
			case XXH3:
				d = e.xxh3Digest(t, what)
				xxh.add(t, msg, e.DigestHex)
			case SHA256:
				s := sha256.Sum256(msg)
				if e.DigestHex != hex.EncodeToString(s[:16]) ||
					d.Lo != binary.LittleEndian.Uint64(s[:8]) || d.Hi != binary.LittleEndian.Uint64(s[8:16]) {
					t.Fatalf("%s: SHA-256 digest differs from crypto/sha256", what)
				}
			}
			if got := alg.Sum(msg); got != d {
				t.Fatalf("%s: Sum %x, fixture %x", what, got, d)
			}
			return d
		}

		for _, ds := range fc.Datasets {
			what := fmt.Sprintf("%s %s [%s]", fc.Algorithm, fc.Mode, ds.Name)
			var recs [][]uint64
			var ds2 []Digest
			for i, e := range ds.Digests {
				if e.Record != ds.Records[i] || (e.Position != nil) != (mode == Ordered) ||
					(e.Position != nil && *e.Position != strconv.Itoa(i)) {
					t.Fatalf("%s: digest %d lists record %s at %v", what, i, e.Record, e.Position)
				}
				r := records[e.Record]
				recs = append(recs, r)
				d := checkDigest(what, r, e)
				if got, err := c.RecordDigest(uint64(i), r); err != nil || got != d {
					t.Fatalf("%s: RecordDigest %x %v, fixture %x", what, got, err, d)
				}
				ds2 = append(ds2, d)
			}
			want := sumState(ds2)
			if !slices.Equal(decWords(t, ds.State), want) {
				t.Fatalf("%s: fixture state %v is not the sum of its digests %v", what, ds.State, want)
			}
			res := run(t, c, Options{Workers: 2}, []*normalize.RecordBatch{batchOf(rngFor(ds.Name), strictID, recs)})
			if !slices.Equal(res.State.Words(), want) {
				t.Fatalf("%s: engine state %v, fixture %v", what, res.State.Words(), want)
			}
			if s, err := FromWords(c, fc.ID, want); err != nil || !slices.Equal(s.Words(), want) {
				t.Fatalf("%s: FromWords %v", what, err)
			}
		}

		// Key and value digests of R1 (key field 1) through the engine at value resolution.
		res := run(t, c, Options{Resolution: ValueResolution, KeyFields: []uint64{1}}, []*normalize.RecordBatch{batchOf(rngFor("R1"), strictID, [][]uint64{records["R1"]})})
		for _, e := range fc.Extra {
			what := fmt.Sprintf("%s %s %s digest", fc.Algorithm, fc.Mode, e.Kind)
			d := checkDigest(what, decWords(t, e.Words), e)
			switch e.Kind {
			case "key":
				if res.Records[0] != d.Lo || res.Records[1] != d.Hi {
					t.Fatalf("%s: engine %v, fixture %x", what, res.Records[:2], d)
				}
			case "value":
				if !slices.Equal(res.Values[3:6], []uint64{7, d.Lo, d.Hi}) {
					t.Fatalf("%s: engine %v, fixture %x", what, res.Values, d)
				}
			default:
				t.Fatalf("unknown extra kind %q", e.Kind)
			}
		}
	}

	// The XXH3 digests against the independent implementation.
	xxh.check(t, 20)
}

func rngFor(s string) *rand.Rand {
	var seed uint64
	for i := 0; i < len(s); i++ {
		seed = seed*131 + uint64(s[i])
	}
	return rand.New(rand.NewPCG(seed, 1))
}
