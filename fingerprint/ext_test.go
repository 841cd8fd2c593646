package fingerprint

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"testing"

	"github.com/pipewhy/pipewhy/normalize"
)

// strictExt1ID is the strict-v1+ext1 profile identity, computed here from the
// descriptor written in docs/contracts/C2-extensions.md §1, not by normalize.
var strictExt1ID = func() string {
	sum := sha256.Sum256([]byte(`{"domain":"pipewhy.normalization","extension":"pipewhy.c2-ext1","profile":"strict-v1+ext1","wire_version":1}`))
	return "pipewhy.normalization/strict-v1+ext1/wire-1/sha256:" + hex.EncodeToString(sum[:])
}()

// logicalExt1OtherUnicode is a logical-v1+ext1 identity of another Unicode version: still
// an extension profile.
var logicalExt1OtherUnicode = func() string {
	sum := sha256.Sum256([]byte(`{"domain":"pipewhy.normalization","extension":"pipewhy.c2-ext1","profile":"logical-v1+ext1","unicode_version":"15.0.0","wire_version":1}`))
	return "pipewhy.normalization/logical-v1+ext1/wire-1/unicode-15.0.0/sha256:" + hex.EncodeToString(sum[:])
}()

var extSchema = SchemaDescriptor{
	RenamePolicy: RenameKeepsIdentity,
	Fields: []SchemaField{
		{ID: 1, Type: TypeInt},
		{ID: 2, Type: TypeDate},
		{ID: 3, Type: TypeTime},
		{ID: 4, Type: TypeDuration},
		{ID: 5, Type: TypeTimestamp},
		{ID: 6, Type: TypeNested},
		{ID: 7, Type: TypeAny},
	},
}

// TestExtSchemaDescriptorExact: the extension types are spelled by their names in the
// descriptor; the existing types' bytes are those of TestSchemaDescriptorExact.
func TestExtSchemaDescriptorExact(t *testing.T) {
	d, err := extSchema.Descriptor()
	if err != nil {
		t.Fatal(err)
	}
	const want = `{"domain":"pipewhy.fingerprint.schema","fields":[{"id":"1","type":"int"},{"id":"2","type":"date"},{"id":"3","type":"time"},{"id":"4","type":"duration"},{"id":"5","type":"timestamp"},{"id":"6","type":"nested"},{"id":"7","type":"any"}],"rename_policy":"keep-identity","version":1}`
	if string(d) != want {
		t.Fatalf("descriptor\n got %s\nwant %s", d, want)
	}
	id, _ := extSchema.ID()
	if id != SchemaIDPrefix+sha(want) {
		t.Fatalf("id %s", id)
	}
}

// TestExtTypesAdmit: each schema type admits exactly its C2 codes plus MISSING and NULL,
// TIMESTAMP_NS under timestamp (a timestamp(ns) column yields both codes).
func TestExtTypesAdmit(t *testing.T) {
	want := map[ValueType][]normalize.TypeCode{
		TypeBool:      {normalize.Bool},
		TypeInt:       {normalize.Int64, normalize.Uint64},
		TypeFloat64:   {normalize.Float64},
		TypeText:      {normalize.Text},
		TypeBytes:     {normalize.Bytes},
		TypeDecimal:   {normalize.Decimal},
		TypeTimestamp: {normalize.Timestamp, normalize.TimestampNS},
		TypeDate:      {normalize.Date},
		TypeTime:      {normalize.Time},
		TypeDuration:  {normalize.Duration},
		TypeNested:    {normalize.Nested},
		TypeAny:       {2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14},
	}
	for vt, codes := range want {
		admit := map[normalize.TypeCode]bool{normalize.Missing: true, normalize.Null: true}
		for _, c := range codes {
			admit[c] = true
		}
		for c := normalize.TypeCode(0); c < 16; c++ {
			if got := vt.tags()&(1<<c) != 0; got != admit[c] {
				t.Errorf("%s admits code %d: %v, want %v", vt, c, got, admit[c])
			}
		}
		if ext := vt == TypeDate || vt == TypeTime || vt == TypeDuration || vt == TypeNested; vt.Extended() != ext {
			t.Errorf("%s.Extended() = %v", vt, vt.Extended())
		}
	}
}

func TestExtContext(t *testing.T) {
	// An extension type needs an extension profile.
	if _, err := NewContext(XXH3, strictID, extSchema, Multiset); CodeOf(err) != CodeSchema {
		t.Fatalf("ext schema under strict-v1: %v, want %s", err, CodeSchema)
	}
	c, err := NewContext(XXH3, strictExt1ID, extSchema, Multiset)
	if err != nil || !c.Extended() {
		t.Fatalf("ext schema under strict-v1+ext1: %v extended %v", err, c.Extended())
	}
	if c2, err := NewContext(XXH3, logicalExt1OtherUnicode, extSchema, Multiset); err != nil || !c2.Extended() {
		t.Fatalf("logical-v1+ext1 of another Unicode version: %v", err)
	}
	if mustContext(t, XXH3, Multiset).Extended() || (Context{}).Extended() {
		t.Fatal("v1 or zero context reports Extended")
	}
	// Every extension code in its field is accepted, by the engine and RecordDigest
	// alike; a timestamp field takes both TIMESTAMP and TIMESTAMP_NS.
	ts := []uint64{2026, 11, 30, 8, 0, 0, 0, 0, 0, 0, 0}
	tsNS := []uint64{2026, 11, 30, 8, 0, 0, 1, 0, 0, 0, 0}
	good := [][]uint64{
		rec(frame(1, normalize.Uint64, 1), frame(2, normalize.Date, 20787), frame(3, normalize.Time, 49500e9),
			frame(4, normalize.Duration, 1500e6, 0), frame(5, normalize.Timestamp, ts...),
			frame(6, normalize.Nested, append(packed([]byte("GFS1")), packed([]byte{1})...)...)),
		rec(frame(1, normalize.Uint64, 2), frame(5, normalize.TimestampNS, tsNS...), frame(7, normalize.Date, 0)),
		rec(frame(2, normalize.Null), frame(4, normalize.Missing)),
	}
	var words, offs, lens []uint64
	for _, r := range good {
		offs, lens = append(offs, uint64(len(words))), append(lens, uint64(len(r)))
		words = append(words, r...)
		if _, err := c.RecordDigest(0, r); err != nil {
			t.Errorf("RecordDigest %v: %v", r, err)
		}
	}
	e, err := NewEngine(c, Options{Resolution: ValueResolution, Columns: true})
	if err != nil {
		t.Fatal(err)
	}
	res, err := e.Run(context.Background(), seqOf(&normalize.RecordBatch{ProfileID: strictExt1ID, Words: words, Offsets: offs, Lengths: lens}))
	if err != nil || res.State.Count() != 3 {
		t.Fatalf("engine: %v", err)
	}
	// Wrong field type, and an extension code under a v1 context (even for "any").
	bad := map[string]struct {
		c    Context
		r    []uint64
		code Code
	}{
		"date in int":          {c, rec(frame(1, normalize.Date, 1)), CodeSchemaMismatch},
		"timestamp_ns in date": {c, rec(frame(2, normalize.TimestampNS, tsNS...)), CodeSchemaMismatch},
		"time in duration":     {c, rec(frame(4, normalize.Time, 1)), CodeSchemaMismatch},
		"duration one word":    {c, rec(frame(4, normalize.Duration, 1)), CodeRecord},
		"code 15":              {c, rec(frame(7, 15)), CodeRecord},
		"date under strict-v1": {mustContext(t, XXH3, Multiset), rec(frame(40, normalize.Date, 1)), CodeRecord},
		"ns under strict-v1":   {mustContext(t, XXH3, Multiset), rec(frame(11, normalize.TimestampNS, tsNS...)), CodeRecord},
	}
	for name, tc := range bad {
		if _, err := tc.c.RecordDigest(0, tc.r); CodeOf(err) != tc.code {
			t.Errorf("%s: RecordDigest %v, want %s", name, err, tc.code)
		}
		e, _ := NewEngine(tc.c, Options{})
		_, err := e.Run(context.Background(), seqOf(&normalize.RecordBatch{ProfileID: tc.c.ProfileID(), Words: tc.r,
			Offsets: []uint64{0}, Lengths: []uint64{uint64(len(tc.r))}}))
		if CodeOf(err) != tc.code {
			t.Errorf("%s: engine %v, want %s", name, err, tc.code)
		}
	}
}
