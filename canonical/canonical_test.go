package canonical_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"math/rand/v2"
	"os"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/pipewhy/pipewhy/canonical"
	"github.com/pipewhy/pipewhy/canonical/vectors"
	"github.com/pipewhy/pipewhy/internal/testenv"
)

const officialCopy = "testdata/graphforge/canonical-fingerprint-v1.json"

// The copy in testdata must be the official file, unchanged.
func TestOfficialVectorsCopyIsIdentical(t *testing.T) {
	shared := "../../shared/vectors/graphforge/canonical-fingerprint-v1.json"
	want, err := os.ReadFile(shared)
	if errors.Is(err, os.ErrNotExist) {
		testenv.Missing(t, testenv.Shared, "../../shared (the project's founding documents) is not beside this checkout")
	}
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(officialCopy)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("%s differs from %s", officialCopy, shared)
	}
}

func mustHex(t *testing.T, s string) []byte {
	t.Helper()
	b, err := hex.DecodeString(strings.Join(strings.Fields(s), ""))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// The official uuid-text-case vector, built directly with arrow-go, through every public
// path: materialised bytes, streamed writer, streamed fingerprint, Sum over the bytes.
func TestOfficialVectorByHandAllPaths(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	schema := arrow.NewSchema([]arrow.Field{{Name: "node_uuid", Type: &arrow.FixedSizeBinaryType{ByteWidth: 16}}}, nil)
	b := array.NewFixedSizeBinaryBuilder(mem, &arrow.FixedSizeBinaryType{ByteWidth: 16})
	u, err := canonical.ParseUUID("018F47D2-A1B2-7C3D-8E4F-001122334455")
	if err != nil {
		t.Fatal(err)
	}
	b.Append(u[:])
	col := b.NewArray()
	b.Release()
	rec := array.NewRecordBatch(schema, []arrow.Array{col}, 1)
	col.Release()
	defer rec.Release()

	want := mustHex(t, "474654310000000000000027474653310000000100000000000000096e6f64655f757569640032000000100000000000000000000000000000000101018f47d2a1b27c3d8e4f001122334455")
	enc, err := canonical.NewEncoder(schema, nil)
	if err != nil {
		t.Fatal(err)
	}
	got, err := enc.AppendTable(nil, canonical.Records(rec))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("payload\n got %x\nwant %x", got, want)
	}
	var w bytes.Buffer
	n, rows, err := enc.WriteTable(&w, canonical.Records(rec))
	if err != nil || n != uint64(len(want)) || rows != 1 || !bytes.Equal(w.Bytes(), want) {
		t.Fatalf("WriteTable: n=%d rows=%d err=%v", n, rows, err)
	}
	fp, err := enc.Fingerprint(canonical.DomainArrowResult, canonical.Records(rec))
	if err != nil {
		t.Fatal(err)
	}
	if fp.Hex() != "3cc432a310818554c11f6eb272fead2c549bcd108ab059453a641ab379c7bbb9" {
		t.Errorf("sha256 %s", fp.Hex())
	}
	if fp.UUID().String() != "3cc432a3-1081-8554-811f-6eb272fead2c" {
		t.Errorf("uuid %s", fp.UUID())
	}
	if fp.PayloadBytes != uint64(len(want)) || fp.Version != 1 || fp.Domain != canonical.DomainArrowResult {
		t.Errorf("fingerprint fields %+v", fp)
	}
	sum, err := canonical.Sum(canonical.DomainArrowResult, 1, want)
	if err != nil || sum != fp {
		t.Errorf("Sum %+v, %v", sum, err)
	}
}

func TestEnvelopeRejectsBeforeHashing(t *testing.T) {
	if _, err := canonical.Sum("graphforge/unknown", 1, nil); canonical.CodeOf(err) != canonical.CodeEncoding {
		t.Errorf("unknown domain: %v", err)
	}
	if _, err := canonical.Sum(canonical.DomainSchema, 2, nil); !errors.Is(err, canonical.ErrUnsupported) {
		t.Errorf("version 2: %v", err)
	}
	if _, err := canonical.ParseDomain("GRAPHFORGE/SCHEMA"); err == nil {
		t.Error("domain tags are exact lowercase")
	}
	for _, d := range canonical.Domains {
		if got, err := canonical.ParseDomain(string(d)); err != nil || got != d {
			t.Errorf("ParseDomain(%q) = %q, %v", d, got, err)
		}
	}
	// Header bytes by hand: "GFFP" 01, u16 17, "graphforge/schema", u32 1, u64 5.
	hdr, err := canonical.AppendEnvelopeHeader(nil, canonical.DomainSchema, 1, 5)
	want := mustHex(t, "47464650 01 0011 6772617068666f7267652f736368656d61 00000001 0000000000000005")
	if err != nil || !bytes.Equal(hdr, want) {
		t.Errorf("header %x, %v", hdr, err)
	}
	if _, err := canonical.AppendEnvelopeHeader(nil, canonical.DomainSchema, 1, 1<<31+1); !errors.Is(err, canonical.ErrLimit) {
		t.Errorf("payload limit: %v", err)
	}
	if _, err := canonical.AppendEnvelopeHeader(nil, canonical.DomainSchema, 1, 1<<31); err != nil {
		t.Errorf("payload of exactly 2 GiB is allowed: %v", err)
	}
}

func TestUUIDv8Projection(t *testing.T) {
	var sum [32]byte
	for i := range sum {
		sum[i] = 0xff
	}
	// ff.. -> byte 6 = 8f, byte 8 = bf
	if got := canonical.UUIDv8(sum).String(); got != "ffffffff-ffff-8fff-bfff-ffffffffffff" {
		t.Errorf("all ones: %s", got)
	}
	sum = [32]byte{}
	if got := canonical.UUIDv8(sum).String(); got != "00000000-0000-8000-8000-000000000000" {
		t.Errorf("all zeros: %s", got)
	}
}

func TestParseUUID(t *testing.T) {
	good := map[string]string{
		"018f47d2-a1b2-7c3d-8e4f-001122334455": "018f47d2-a1b2-7c3d-8e4f-001122334455",
		"018F47D2-A1B2-7C3D-8E4F-001122334455": "018f47d2-a1b2-7c3d-8e4f-001122334455",
		"018f47d2-A1B2-7c3d-BE4F-001122334455": "018f47d2-a1b2-7c3d-be4f-001122334455",
		"00000000-0000-0000-0000-000000000000": "00000000-0000-0000-0000-000000000000",
		"ffffffff-ffff-ffff-ffff-ffffffffffff": "ffffffff-ffff-ffff-ffff-ffffffffffff",
	}
	for in, want := range good {
		u, err := canonical.ParseUUID(in)
		if err != nil || u.String() != want {
			t.Errorf("ParseUUID(%q) = %s, %v", in, u, err)
		}
	}
	bad := []string{
		"", "018f47d2a1b27c3d8e4f001122334455", "{018f47d2-a1b2-7c3d-8e4f-001122334455}",
		"urn:uuid:018f47d2-a1b2-7c3d-8e4f-001122334455", " 018f47d2-a1b2-7c3d-8e4f-001122334455",
		"018f47d2-a1b2-7c3d-8e4f-00112233445 ", "018f47d2-a1b2-7c3d-8e4f-00112233445g",
		"018f47d2-a1b27-c3d-8e4f-001122334455", "018f47d2-a1b2-7c3d-0e4f-001122334455", // NCS variant
		"018f47d2-a1b2-7c3d-ce4f-001122334455", // Microsoft variant
		"018f47d2+a1b2-7c3d-8e4f-001122334455",
	}
	for _, in := range bad {
		if _, err := canonical.ParseUUID(in); canonical.CodeOf(err) != canonical.CodeEncoding {
			t.Errorf("ParseUUID(%q) err = %v", in, err)
		}
	}
}

func TestStoreFailsClosed(t *testing.T) {
	var s canonical.Store
	a, err := s.Add(canonical.DomainAssertion, []byte("payload-a"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Add(canonical.DomainAssertion, []byte("payload-a")); err != nil {
		t.Errorf("same bytes again: %v", err)
	}
	// A fabricated fingerprint collision: same key, different bytes.
	if err := s.Put(a, []byte("payload-b")); !errors.Is(err, canonical.ErrCollision) {
		t.Errorf("collision: %v", err)
	}
	if got, _ := s.Get(a); string(got) != "payload-a" {
		t.Errorf("collision overwrote: %q", got)
	}
	// A UUID collision: a different full fingerprint with the same first 16 bytes
	// (outside the version and variant bits).
	b := a
	b.Sum[31] ^= 1
	if err := s.Put(b, []byte("payload-c")); !errors.Is(err, canonical.ErrCollision) {
		t.Errorf("uuid collision: %v", err)
	}
	// Fingerprints are scoped by domain: the same sum in another domain is independent.
	c := a
	c.Domain = canonical.DomainLineage
	if err := s.Put(c, []byte("payload-b")); err != nil {
		t.Errorf("other domain: %v", err)
	}
	c.Version = 2
	if err := s.Put(c, nil); !errors.Is(err, canonical.ErrUnsupported) {
		t.Errorf("version 2: %v", err)
	}
}

func TestFloatRules(t *testing.T) {
	f16 := map[uint16]uint16{0x8000: 0, 0x0000: 0, 0x7c01: 0x7e00, 0xfe00: 0x7e00, 0xfc01: 0x7e00, 0x7e00: 0x7e00,
		0x7c00: 0x7c00, 0xfc00: 0xfc00, 0x0001: 0x0001, 0x8001: 0x8001, 0x3c00: 0x3c00}
	for in, want := range f16 {
		if got := canonical.Float16Bits(in); got != want {
			t.Errorf("f16 %04x -> %04x, want %04x", in, got, want)
		}
	}
	f32 := map[uint32]uint32{0x80000000: 0, 0x7f800001: 0x7fc00000, 0xffffffff: 0x7fc00000, 0x7fc00000: 0x7fc00000,
		0x7f800000: 0x7f800000, 0xff800000: 0xff800000, 0x80000001: 0x80000001}
	for in, want := range f32 {
		if got := canonical.Float32Bits(in); got != want {
			t.Errorf("f32 %08x -> %08x, want %08x", in, got, want)
		}
	}
	f64 := map[uint64]uint64{0x8000000000000000: 0, 0x7ff0000000000001: 0x7ff8000000000000,
		0xfff8123412341234: 0x7ff8000000000000, 0x7ff0000000000000: 0x7ff0000000000000,
		0xfff0000000000000: 0xfff0000000000000, 0x8000000000000001: 0x8000000000000001}
	for in, want := range f64 {
		if got := canonical.Float64Bits(in); got != want {
			t.Errorf("f64 %016x -> %016x, want %016x", in, got, want)
		}
	}
}

func TestToMicros(t *testing.T) {
	const maxI, minI = int64(^uint64(0) >> 1), -int64(^uint64(0)>>1) - 1
	cases := []struct {
		v, f, want int64
		ok         bool
	}{
		{1, 1_000_000, 1_000_000, true}, {-1, 1_000_000, -1_000_000, true}, {1, 1000, 1000, true},
		{5, 1, 5, true}, {1000, -1000, 1, true}, {-1000, -1000, -1, true}, {1, -1000, 0, false},
		{-1, -1000, 0, false}, {-1500, -1000, 0, false}, {maxI / 1_000_000, 1_000_000, maxI / 1_000_000 * 1_000_000, true},
		{maxI/1_000_000 + 1, 1_000_000, 0, false}, {minI/1000 - 1, 1000, 0, false}, {minI, 1, minI, true},
		{minI / 1000 * 1000, -1000, minI / 1000, true},
	}
	for _, c := range cases {
		got, ok := canonical.ToMicros(c.v, c.f)
		if ok != c.ok || (ok && got != c.want) {
			t.Errorf("ToMicros(%d, %d) = %d, %v; want %d, %v", c.v, c.f, got, ok, c.want, c.ok)
		}
	}
}

func TestLimitChecks(t *testing.T) {
	checks := []struct {
		name  string
		check func(uint64) error
		limit uint64
	}{
		{"payload", canonical.CheckPayloadLength, 2 << 30},
		{"text", canonical.CheckTextLength, 16 << 20},
		{"binary", canonical.CheckBinaryLength, 64 << 20},
		{"elements", canonical.CheckElementCount, 10_000_000},
		{"rows", canonical.CheckRowCount, 100_000_000},
	}
	for _, c := range checks {
		if err := c.check(c.limit); err != nil {
			t.Errorf("%s at the limit: %v", c.name, err)
		}
		err := c.check(c.limit + 1)
		var ce *canonical.Error
		if !errors.As(err, &ce) || ce.Code != canonical.CodeLimit || ce.Observed != c.limit+1 || ce.Limit != c.limit {
			t.Errorf("%s over the limit: %v", c.name, err)
		}
	}
}

// Error messages carry only code, domain, version, path and sizes: never values.
func TestErrorsCarryNoValues(t *testing.T) {
	const secret = "SECRET-VALUE"
	mem := memory.NewGoAllocator()
	mt := arrow.MapOf(arrow.BinaryTypes.String, arrow.PrimitiveTypes.Int64)
	mb := array.NewMapBuilder(mem, arrow.BinaryTypes.String, arrow.PrimitiveTypes.Int64, false)
	mb.Append(true)
	mb.KeyBuilder().(*array.StringBuilder).Append(secret)
	mb.ItemBuilder().(*array.Int64Builder).Append(1)
	mb.KeyBuilder().(*array.StringBuilder).Append(secret)
	mb.ItemBuilder().(*array.Int64Builder).Append(2)
	sb := array.NewStringBuilder(mem)
	sb.Append(secret + "\xff")
	schema := arrow.NewSchema([]arrow.Field{{Name: "m", Type: mt}, {Name: "s", Type: arrow.BinaryTypes.String}}, nil)
	m, s := mb.NewArray(), sb.NewArray()
	rec := array.NewRecordBatch(schema, []arrow.Array{m, s}, 1)
	_, err := canonical.FingerprintTable(canonical.DomainArrowResult, schema, []arrow.RecordBatch{rec}, nil)
	if !errors.Is(err, canonical.ErrMapKey) {
		t.Fatalf("want map key error, got %v", err)
	}
	if strings.Contains(err.Error(), secret) {
		t.Errorf("error leaks a value: %v", err)
	}
	var ce *canonical.Error
	if !errors.As(err, &ce) || ce.Domain != canonical.DomainArrowResult || ce.Version != 1 || !strings.Contains(ce.Path, "row 0") {
		t.Errorf("error context: %+v", ce)
	}
	schema2 := arrow.NewSchema([]arrow.Field{{Name: "s", Type: arrow.BinaryTypes.String}}, nil)
	rec2 := array.NewRecordBatch(schema2, []arrow.Array{s}, 1)
	_, err = canonical.TableBytes(schema2, []arrow.RecordBatch{rec2}, nil)
	if !errors.Is(err, canonical.ErrUTF8) || strings.Contains(err.Error(), secret) {
		t.Errorf("utf8: %v", err)
	}
}

// The canonical schema bytes are checked against a hand-written layout, with options.
func TestSchemaOptions(t *testing.T) {
	md := arrow.NewMetadata([]string{"graphforge.seed", "graphforge.algorithm", "x"}, []string{"7", "pr", "y"})
	schema := arrow.NewSchema(nil, &md)
	if _, err := canonical.SchemaBytes(schema, nil); canonical.CodeOf(err) != canonical.CodeEncoding {
		t.Errorf("undeclared result-contract keys must be rejected: %v", err)
	}
	got, err := canonical.SchemaBytes(schema, &canonical.Options{Metadata: canonical.MetadataRegistry{Semantic: []string{"graphforge.algorithm", "graphforge.seed"}}})
	if err != nil {
		t.Fatal(err)
	}
	want := mustHex(t, `47465331 00000000 00000002
		0000000000000014 6772617068666f7267652e616c676f726974686d 0000000000000002 7072
		000000000000000f 6772617068666f7267652e73656564 0000000000000001 37`)
	if !bytes.Equal(got, want) {
		t.Errorf("schema\n got %x\nwant %x", got, want)
	}
	if err := (&canonical.Options{Metadata: canonical.MetadataRegistry{Semantic: []string{"graphforge.query_id"}}}).Validate(); err == nil {
		t.Error("a volatile key cannot be declared")
	}
}

func nestedList(depth int) arrow.DataType {
	var t arrow.DataType = arrow.PrimitiveTypes.Int64
	for range depth {
		t = arrow.ListOf(t)
	}
	return t
}

func TestDepthLimit(t *testing.T) {
	for _, c := range []struct {
		dt   arrow.DataType
		fail bool
	}{
		{nestedList(32), false},
		{nestedList(33), true},
		{arrow.StructOf(arrow.Field{Name: "a", Type: nestedList(31)}), false},
		{arrow.StructOf(arrow.Field{Name: "a", Type: nestedList(32)}), true},
		{arrow.MapOf(arrow.BinaryTypes.String, nestedList(31)), false},
		{arrow.MapOf(arrow.BinaryTypes.String, nestedList(32)), true},
		{&arrow.DictionaryType{IndexType: arrow.PrimitiveTypes.Int8, ValueType: arrow.BinaryTypes.String}, false},
	} {
		_, err := canonical.SchemaBytes(arrow.NewSchema([]arrow.Field{{Name: "x", Type: c.dt}}, nil), nil)
		if c.fail != errors.Is(err, canonical.ErrLimit) || (!c.fail && err != nil) {
			t.Errorf("%s: err %v, want failure %v", c.dt, err, c.fail)
		}
	}
}

func TestExtensionRegistry(t *testing.T) {
	reg := &canonical.Options{Extensions: []canonical.Extension{{Name: "graphforge.id", Version: 1, Storage: arrow.BinaryTypes.String}}}
	good := vectors.NewExtensionType("graphforge.id", "1", true, arrow.BinaryTypes.LargeString)
	schema := arrow.NewSchema([]arrow.Field{{Name: "e", Type: good}}, nil)
	got, err := canonical.SchemaBytes(schema, reg)
	if err != nil {
		t.Fatal(err)
	}
	// field "e", 00, tag 70, text "graphforge.id", u32 1, storage tag 30, md 0; schema md 0
	want := mustHex(t, `47465331 00000001 0000000000000001 65 00
		70 000000000000000d 6772617068666f7267652e6964 00000001 30 00000000 00000000`)
	if !bytes.Equal(got, want) {
		t.Errorf("extension schema\n got %x\nwant %x", got, want)
	}
	// The same extension as an arrow-go reader leaves an unknown one: metadata keys.
	md := arrow.NewMetadata([]string{"ARROW:extension:name", "ARROW:extension:metadata"}, []string{"graphforge.id", "1"})
	raw := arrow.NewSchema([]arrow.Field{{Name: "e", Type: arrow.BinaryTypes.String, Metadata: md}}, nil)
	if got2, err := canonical.SchemaBytes(raw, reg); err != nil || !bytes.Equal(got2, want) {
		t.Errorf("metadata-form extension: %x, %v", got2, err)
	}
	// A typed extension whose field also carries the Arrow extension keys: consumed, not
	// duplicated.
	both := arrow.NewSchema([]arrow.Field{{Name: "e", Type: good, Metadata: md}}, nil)
	if got3, err := canonical.SchemaBytes(both, reg); err != nil || !bytes.Equal(got3, want) {
		t.Errorf("typed extension with extension keys: %x, %v", got3, err)
	}
	bad := map[string]arrow.DataType{
		"unregistered":    vectors.NewExtensionType("graphforge.other", "1", true, arrow.BinaryTypes.String),
		"wrong version":   vectors.NewExtensionType("graphforge.id", "2", true, arrow.BinaryTypes.String),
		"no version":      vectors.NewExtensionType("graphforge.id", "", false, arrow.BinaryTypes.String),
		"leading zero":    vectors.NewExtensionType("graphforge.id", "01", true, arrow.BinaryTypes.String),
		"storage differs": vectors.NewExtensionType("graphforge.id", "1", true, arrow.BinaryTypes.Binary),
	}
	for name, dt := range bad {
		_, err := canonical.SchemaBytes(arrow.NewSchema([]arrow.Field{{Name: "e", Type: dt}}, nil), reg)
		if !errors.Is(err, canonical.ErrArrowType) {
			t.Errorf("%s: %v", name, err)
		}
	}
	if _, err := canonical.SchemaBytes(schema, nil); !errors.Is(err, canonical.ErrArrowType) {
		t.Errorf("the default registry is empty: %v", err)
	}
}

func TestBatchSchemaMismatch(t *testing.T) {
	mem := memory.NewGoAllocator()
	schema := arrow.NewSchema([]arrow.Field{{Name: "x", Type: arrow.PrimitiveTypes.Int64}}, nil)
	other := arrow.NewSchema([]arrow.Field{{Name: "x", Type: arrow.PrimitiveTypes.Int32}}, nil)
	b := array.NewInt32Builder(mem)
	b.Append(1)
	rec := array.NewRecordBatch(other, []arrow.Array{b.NewArray()}, 1)
	if _, err := canonical.TableBytes(schema, []arrow.RecordBatch{rec}, nil); canonical.CodeOf(err) != canonical.CodeEncoding {
		t.Errorf("mismatched batch: %v", err)
	}
}

// A plain sha256 check that the streamed fingerprint hashes exactly preimage bytes.
func TestStreamedEqualsMaterialised(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	for iter := 0; iter < 30; iter++ {
		rows := 1 + rng.IntN(200)
		if iter%10 == 0 {
			rows = 4000 // a payload of several 64 KiB chunks
		}
		schema, recs := randomTable(mem, rng, rows)
		enc, err := canonical.NewEncoder(schema, nil)
		if err != nil {
			t.Fatal(err)
		}
		payload, err := enc.AppendTable(nil, canonical.Records(recs...))
		if err != nil {
			t.Fatal(err)
		}
		pre, _ := canonical.AppendPreimage(nil, canonical.DomainArrowResult, 1, payload)
		want := sha256.Sum256(pre)
		fp, err := enc.Fingerprint(canonical.DomainArrowResult, canonical.Records(recs...))
		if err != nil {
			t.Fatal(err)
		}
		if fp.Sum != want || fp.PayloadBytes != uint64(len(payload)) {
			t.Fatalf("iteration %d: streamed fingerprint differs", iter)
		}
		var w bytes.Buffer
		if _, _, err := enc.WriteTable(&w, canonical.Records(recs...)); err != nil || !bytes.Equal(w.Bytes(), payload) {
			t.Fatalf("iteration %d: WriteTable differs from AppendTable (%v)", iter, err)
		}
		size, _, err := enc.Size(canonical.Records(recs...))
		if err != nil || size != uint64(len(payload)) {
			t.Fatalf("iteration %d: size %d, payload %d, %v", iter, size, len(payload), err)
		}
		for _, r := range recs {
			r.Release()
		}
	}
}
