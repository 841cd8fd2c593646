package normalize_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"math"
	"math/big"
	"math/rand/v2"
	"slices"
	"testing"

	"golang.org/x/text/unicode/norm"

	"github.com/pipewhy/pipewhy/normalize"
)

func bytesReader(b []byte) io.Reader { return bytes.NewReader(b) }

// TestExtensionProfiles pins the extension descriptors and identities (descriptor bytes
// written out here by hand) and checks that the v1 ones are untouched.
func TestExtensionProfiles(t *testing.T) {
	cases := []struct {
		p      normalize.Profile
		name   string
		desc   string
		prefix string
	}{
		{normalize.StrictV1, "strict-v1", `{"domain":"pipewhy.normalization","profile":"strict-v1","wire_version":1}`,
			"pipewhy.normalization/strict-v1/wire-1/sha256:"},
		{normalize.LogicalV1, "logical-v1", `{"domain":"pipewhy.normalization","profile":"logical-v1","unicode_version":"` + norm.Version + `","wire_version":1}`,
			"pipewhy.normalization/logical-v1/wire-1/unicode-" + norm.Version + "/sha256:"},
		{normalize.StrictV1Ext1, "strict-v1+ext1", `{"domain":"pipewhy.normalization","extension":"pipewhy.c2-ext1","profile":"strict-v1+ext1","wire_version":1}`,
			"pipewhy.normalization/strict-v1+ext1/wire-1/sha256:"},
		{normalize.LogicalV1Ext1, "logical-v1+ext1", `{"domain":"pipewhy.normalization","extension":"pipewhy.c2-ext1","profile":"logical-v1+ext1","unicode_version":"` + norm.Version + `","wire_version":1}`,
			"pipewhy.normalization/logical-v1+ext1/wire-1/unicode-" + norm.Version + "/sha256:"},
	}
	seen := map[string]bool{}
	for _, c := range cases {
		sum := sha256.Sum256([]byte(c.desc))
		id := c.prefix + hex.EncodeToString(sum[:])
		if c.p.Name() != c.name || string(c.p.Descriptor()) != c.desc || c.p.ID() != id {
			t.Errorf("%s: name %q descriptor %s id %s", c.name, c.p.Name(), c.p.Descriptor(), c.p.ID())
		}
		for _, s := range []string{c.name, id} {
			if p, err := normalize.ParseProfile(s); err != nil || p != c.p {
				t.Errorf("ParseProfile(%q) = %v, %v", s, p, err)
			}
		}
		if seen[c.p.ID()] {
			t.Errorf("%s: identity shared with another profile", c.name)
		}
		seen[c.p.ID()] = true
		ext := c.p == normalize.StrictV1Ext1 || c.p == normalize.LogicalV1Ext1
		logical := c.p == normalize.LogicalV1 || c.p == normalize.LogicalV1Ext1
		if c.p.Extended() != ext || c.p.Logical() != logical || c.p.Base().Logical() != logical || c.p.Base().Extended() {
			t.Errorf("%s: Extended %v Logical %v Base %v", c.name, c.p.Extended(), c.p.Logical(), c.p.Base())
		}
	}
	// The v1 identity strings are fixed by the fingerprint fixture; recompute the
	// strict one from the contract's formula as a guard.
	sum := sha256.Sum256([]byte(`{"domain":"pipewhy.normalization","profile":"strict-v1","wire_version":1}`))
	if normalize.StrictV1.ID() != "pipewhy.normalization/strict-v1/wire-1/sha256:"+hex.EncodeToString(sum[:]) {
		t.Error("strict-v1 identity changed")
	}
	if normalize.Profile(4).Valid() {
		t.Error("Profile(4) is valid")
	}
}

// TestExtensionKeepsV1Words: every v1 value encodes under an extension profile exactly
// as under its base profile (the v1 fixture vectors, re-run), except sub-microsecond
// timestamps, which the extension accepts as TIMESTAMP_NS instead of rejecting.
func TestExtensionKeepsV1Words(t *testing.T) {
	compared := 0
	defer func() {
		if compared < 100 {
			t.Errorf("only %d vectors compared", compared)
		}
	}()
	for _, v := range loadFixture(t) {
		if v.Fields != nil {
			continue
		}
		base, err := normalize.ParseProfile(v.Profile)
		if err != nil {
			t.Fatal(err)
		}
		ext := normalize.StrictV1Ext1
		if base == normalize.LogicalV1 {
			ext = normalize.LogicalV1Ext1
		}
		val, perr := normalize.ParseValueJSON(v.Input)
		if normalize.CodeOf(perr) == normalize.CodePrecision {
			// v1's parser rejects the nanosecond itself; read it as the ext1 fixture does.
			if val, perr = parseExtValue(t, v.Input); perr != nil {
				t.Fatalf("%s: %v", v.ID, perr)
			}
		}
		if perr != nil {
			continue // a parse error is profile-independent
		}
		compared++
		tc1, w1, err1 := normalize.EncodeValue(val, base)
		tc2, w2, err2 := normalize.EncodeValue(val, ext)
		if normalize.CodeOf(err1) == normalize.CodePrecision {
			if err2 != nil || tc2 != normalize.TimestampNS {
				t.Errorf("%s: extension: %v %v", v.ID, tc2, err2)
			}
			continue
		}
		if tc1 != tc2 || !slices.Equal(w1, w2) || normalize.CodeOf(err1) != normalize.CodeOf(err2) {
			t.Errorf("%s: %s gives %v %v %v, %s gives %v %v %v", v.ID, base, tc1, w1, err1, ext, tc2, w2, err2)
		}
	}
}

func TestDurationWords(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	mod := new(big.Int).Lsh(big.NewInt(1), 128)
	for i := range 20000 {
		v := int64(rng.Uint64()) >> rng.IntN(64)
		switch i {
		case 0:
			v = math.MinInt64
		case 1:
			v = math.MaxInt64
		case 2:
			v = 0
		}
		for _, f := range []uint64{1, 1000, 1_000_000, 1_000_000_000} {
			lo, hi := normalize.DurationWords(v, f)
			want := new(big.Int).Mul(big.NewInt(v), new(big.Int).SetUint64(f))
			want.Mod(want, mod) // two's complement
			got := new(big.Int).Lsh(new(big.Int).SetUint64(hi), 64)
			got.Or(got, new(big.Int).SetUint64(lo))
			if got.Cmp(want) != 0 {
				t.Fatalf("DurationWords(%d, %d) = %x %x, want %x", v, f, hi, lo, want)
			}
		}
	}
}

// TestValidateExtension: the extension tags pass only where the profile is an
// extension profile; their payload lengths are checked.
func TestValidateExtension(t *testing.T) {
	rec := func(tag uint64, payload ...uint64) []uint64 {
		return append([]uint64{1, 2, 1, 7, tag, uint64(len(payload))}, payload...)
	}
	good := [][]uint64{
		rec(10, 5), rec(11, 5), rec(12, 1, 2),
		rec(13, 1970, 1, 1, 0, 0, 0, 1, 0, 0, 0, 0),
		rec(13, 1970, 1, 1, 0, 0, 0, 1, 0, 1, 0, 3, 0x435455),
		rec(14, 0, 0),
		rec(14, 4, 0x31534647, 1, 1),
		rec(14, 9, 1, 2, 8, 3),
	}
	bad := []struct {
		words []uint64
		code  normalize.Code
	}{
		{rec(10), normalize.CodeBatchPayload},
		{rec(11, 1, 2), normalize.CodeBatchPayload},
		{rec(12, 1), normalize.CodeBatchPayload},
		{rec(12, 1, 2, 3), normalize.CodeBatchPayload},
		{rec(13, 1, 2, 3), normalize.CodeBatchPayload},
		{rec(13, 1970, 1, 1, 0, 0, 0, 1, 0, 1, 0, 9, 0), normalize.CodeBatchPayload},
		{rec(14), normalize.CodeBatchPayload},
		{rec(14, 0), normalize.CodeBatchPayload},
		{rec(14, 9, 1, 2), normalize.CodeBatchPayload},
		{rec(14, 1, 5, 9, 7), normalize.CodeBatchPayload},
		{rec(15), normalize.CodeBatchTag},
		{rec(99, 1), normalize.CodeBatchTag},
	}
	for _, p := range []normalize.Profile{normalize.StrictV1Ext1, normalize.LogicalV1Ext1} {
		for _, w := range good {
			if err := normalize.ValidateRecordWordsIn(w, p); err != nil {
				t.Errorf("%s %v: %v", p, w, err)
			}
			b := normalize.RecordBatch{ProfileID: p.ID(), Words: w, Offsets: []uint64{0}, Lengths: []uint64{uint64(len(w))}}
			if err := b.Validate(); err != nil {
				t.Errorf("batch %s %v: %v", p, w, err)
			}
		}
		for _, c := range bad {
			if err := normalize.ValidateRecordWordsIn(c.words, p); normalize.CodeOf(err) != c.code {
				t.Errorf("%s %v: %v, want %s", p, c.words, err, c.code)
			}
		}
	}
	// v1: unchanged, tags above 9 are rejected whatever the payload.
	for _, w := range good {
		if err := normalize.ValidateRecordWords(w); normalize.CodeOf(err) != normalize.CodeBatchTag {
			t.Errorf("ValidateRecordWords %v: %v", w, err)
		}
		for _, p := range []normalize.Profile{normalize.StrictV1, normalize.LogicalV1} {
			if err := normalize.ValidateRecordWordsIn(w, p); normalize.CodeOf(err) != normalize.CodeBatchTag {
				t.Errorf("ValidateRecordWordsIn %s %v: %v", p, w, err)
			}
		}
		for _, id := range []string{"", normalize.StrictV1.ID(), normalize.LogicalV1.ID(), "strict-v1+ext1", normalize.StrictV1Ext1.ID() + "x"} {
			b := normalize.RecordBatch{ProfileID: id, Words: w, Offsets: []uint64{0}, Lengths: []uint64{uint64(len(w))}}
			if err := b.Validate(); normalize.CodeOf(err) != normalize.CodeBatchTag {
				t.Errorf("batch %q %v: %v", id, w, err)
			}
		}
	}
	if err := normalize.ValidateRecordWordsIn(good[0], 9); normalize.CodeOf(err) != normalize.CodeInput {
		t.Errorf("invalid profile: %v", err)
	}
	for tc := normalize.TypeCode(0); tc < 16; tc++ {
		if tc.ValidIn(normalize.StrictV1) != (tc <= 9) || tc.ValidIn(normalize.LogicalV1Ext1) != (tc <= 14) || tc.Valid() != (tc <= 9) {
			t.Errorf("ValidIn(%d)", tc)
		}
	}
	if normalize.Date.String() != "DATE" || normalize.TimestampNS.String() != "TIMESTAMP_NS" || normalize.Nested.String() != "NESTED" || normalize.TypeCode(15).String() != "TypeCode(15)" {
		t.Error("type code names")
	}
}

// TestExtensionBatchAppend: RecordBatch.Append under an extension profile declares it,
// and the batch validates with the extension tags.
func TestExtensionBatchAppend(t *testing.T) {
	var b normalize.RecordBatch
	fields := []normalize.Field{{ID: 1, Value: normalize.DateValue{Year: 2024, Month: 2, Day: 29}}, {ID: 2, Value: normalize.TimeValue{Hour: 1}}}
	if err := b.Append(fields, normalize.LogicalV1Ext1); err != nil {
		t.Fatal(err)
	}
	if b.ProfileID != normalize.LogicalV1Ext1.ID() {
		t.Fatal(b.ProfileID)
	}
	if err := b.Validate(); err != nil {
		t.Fatal(err)
	}
	if err := b.Append(fields, normalize.LogicalV1); normalize.CodeOf(err) != normalize.CodeBatchProfile {
		t.Fatalf("mixing profiles: %v", err)
	}
	var v1 normalize.RecordBatch
	if err := v1.Append(fields, normalize.StrictV1); normalize.CodeOf(err) != normalize.CodeUnsupported || v1.Len() != 0 {
		t.Fatalf("v1 batch took an extension value: %v", err)
	}
}

func TestLoadZone(t *testing.T) {
	if loc, err := normalize.LoadZone("Europe/Berlin"); err != nil || loc.String() != "Europe/Berlin" {
		t.Errorf("Europe/Berlin: %v %v", loc, err)
	}
	for _, k := range []string{"", "Local", "/etc/localtime", "../x", "Mars/Olympus"} {
		if _, err := normalize.LoadZone(k); normalize.CodeOf(err) != normalize.CodeTimezone {
			t.Errorf("LoadZone(%q): %v", k, err)
		}
	}
}
