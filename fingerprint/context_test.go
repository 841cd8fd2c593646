package fingerprint

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"math"
	"strings"
	"testing"
	"unicode/utf8"
)

func sha(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])
}

func TestSchemaDescriptorExact(t *testing.T) {
	s := SchemaDescriptor{
		RenamePolicy: RenameKeepsIdentity,
		Fields: []SchemaField{
			{ID: 10, Name: "amount", Type: TypeDecimal, Source: "postgres:numeric(12,2)"},
			{ID: 2, Name: "id", Type: TypeInt, Source: "postgres:int4"},
		},
	}
	want := `{"domain":"pipewhy.fingerprint.schema","fields":[{"id":"2","type":"int"},{"id":"10","type":"decimal"}],"rename_policy":"keep-identity","version":1}`
	d, err := s.Descriptor()
	if err != nil || string(d) != want {
		t.Fatalf("descriptor\n got %s, %v\nwant %s", d, err, want)
	}
	id, _ := s.ID()
	if id != "pipewhy.schema/sha256:"+sha(want) {
		t.Fatalf("ID %s", id)
	}

	// Physical source types and, under keep-identity, names do not participate.
	s2 := SchemaDescriptor{RenamePolicy: RenameKeepsIdentity, Fields: []SchemaField{
		{ID: 2, Name: "order_id", Type: TypeInt, Source: "parquet:int64"},
		{ID: 10, Name: "total", Type: TypeDecimal, Source: "parquet:decimal128(12,2)"},
	}}
	if id2, _ := s2.ID(); id2 != id {
		t.Errorf("source widths or names changed a keep-identity schema id")
	}

	// Under change-identity, names participate (escaped like Python's json.dumps).
	s3 := SchemaDescriptor{RenamePolicy: RenameChangesIdentity, Fields: []SchemaField{
		{ID: 7, Name: "a\"b\\c\n\t\x01é", Type: TypeText},
	}}
	want3 := `{"domain":"pipewhy.fingerprint.schema","fields":[{"id":"7","name":"a\"b\\c\n\t\u0001é","type":"text"}],"rename_policy":"change-identity","version":1}`
	if d3, err := s3.Descriptor(); err != nil || string(d3) != want3 {
		t.Errorf("descriptor\n got %s, %v\nwant %s", d3, err, want3)
	}
	s4 := s3
	s4.Fields = []SchemaField{{ID: 7, Name: "renamed", Type: TypeText}}
	id3, _ := s3.ID()
	id4, _ := s4.ID()
	if id3 == id4 {
		t.Error("rename did not change a change-identity schema id")
	}

	// Every type and the type change of a field participate.
	s5 := s
	s5.Fields = []SchemaField{{ID: 2, Type: TypeAny}, {ID: 10, Type: TypeDecimal}}
	if id5, _ := s5.ID(); id5 == id {
		t.Error("retyped field kept the schema id")
	}
	empty := SchemaDescriptor{RenamePolicy: RenameKeepsIdentity}
	if d, _ := empty.Descriptor(); string(d) != `{"domain":"pipewhy.fingerprint.schema","fields":[],"rename_policy":"keep-identity","version":1}` {
		t.Errorf("empty schema descriptor %s", d)
	}
}

func TestSchemaInvalid(t *testing.T) {
	for name, s := range map[string]SchemaDescriptor{
		"policy":   {RenamePolicy: "", Fields: []SchemaField{{ID: 1, Type: TypeInt}}},
		"dup":      {RenamePolicy: RenameKeepsIdentity, Fields: []SchemaField{{ID: 1, Type: TypeInt}, {ID: 1, Type: TypeText}}},
		"sentinel": {RenamePolicy: RenameKeepsIdentity, Fields: []SchemaField{{ID: math.MaxUint64, Type: TypeInt}}},
		"type":     {RenamePolicy: RenameKeepsIdentity, Fields: []SchemaField{{ID: 1, Type: "int64"}}},
		"utf8":     {RenamePolicy: RenameChangesIdentity, Fields: []SchemaField{{ID: 1, Name: "\xff", Type: TypeInt}}},
	} {
		if _, err := s.ID(); CodeOf(err) != CodeSchema {
			t.Errorf("%s: %v, want %s", name, err, CodeSchema)
		}
		if _, err := NewContext(XXH3, strictID, s, Multiset); CodeOf(err) != CodeSchema {
			t.Errorf("%s: NewContext %v", name, err)
		}
	}
}

func TestContextDescriptorExact(t *testing.T) {
	c := mustContext(t, XXH3, Multiset)
	schemaID, _ := testSchema.ID()
	want := `{"algorithm":"pipewhy.fingerprint/xxh3-128/v1","domain":"pipewhy.fingerprint.context","mode":"multiset","profile":"` +
		strictID + `","schema":"` + schemaID + `"}`
	if string(c.Descriptor()) != want {
		t.Fatalf("descriptor\n got %s\nwant %s", c.Descriptor(), want)
	}
	if c.ID() != "pipewhy.fingerprint.context/sha256:"+sha(want) {
		t.Fatalf("ID %s", c.ID())
	}
	key := c.Key()
	if hex.EncodeToString(key[:]) != sha(want) {
		t.Fatal("key is not the raw SHA-256 of the descriptor")
	}
	if c.ProfileID() != strictID || c.SchemaID() != schemaID || c.Mode() != Multiset || c.Algorithm() != XXH3 {
		t.Fatal("accessors")
	}
	// Each component changes the identity.
	seen := map[string]bool{c.ID(): true}
	other := testSchema
	other.Fields = other.Fields[1:]
	for _, x := range []struct {
		alg    Algorithm
		prof   string
		schema SchemaDescriptor
		mode   Mode
	}{
		{SHA256, strictID, testSchema, Multiset},
		{XXH3, otherProfileID, testSchema, Multiset},
		{XXH3, strictID, other, Multiset},
		{XXH3, strictID, testSchema, Ordered},
	} {
		c2, err := NewContext(x.alg, x.prof, x.schema, x.mode)
		if err != nil {
			t.Fatal(err)
		}
		if seen[c2.ID()] {
			t.Errorf("context %v collides", x)
		}
		seen[c2.ID()] = true
		if c2.Equal(c) {
			t.Error("Equal across contexts")
		}
	}
	// Same inputs, separately built: equal.
	if c3 := mustContext(t, XXH3, Multiset); !c3.Equal(c) || c3.ID() != c.ID() {
		t.Error("rebuilt context differs")
	}
	// A schema differing only in physical source types is the same context.
	phys := testSchema
	phys.Fields = append([]SchemaField(nil), testSchema.Fields...)
	phys.Fields[0].Source = "postgres:int4"
	if c4, _ := NewContext(XXH3, strictID, phys, Multiset); !c4.Equal(c) {
		t.Error("physical source type changed the context")
	}
	var zero Context
	if zero.Valid() || zero.ID() != "" || zero.Equal(zero) {
		t.Error("zero Context")
	}
}

func TestContextInvalid(t *testing.T) {
	hex64 := strings.Repeat("a", 64)
	for name, tc := range map[string]struct {
		alg  Algorithm
		prof string
		mode Mode
		code Code
	}{
		"alg":          {Algorithm{}, strictID, Multiset, CodeAlgorithm},
		"mode0":        {XXH3, strictID, 0, CodeContext},
		"mode3":        {XXH3, strictID, 3, CodeContext},
		"bare name":    {XXH3, "strict-v1", Multiset, CodeContext},
		"no digest":    {XXH3, "pipewhy.normalization/strict-v1/wire-1", Multiset, CodeContext},
		"short hex":    {XXH3, "pipewhy.normalization/strict-v1/wire-1/sha256:" + hex64[:63], Multiset, CodeContext},
		"upper hex":    {XXH3, "pipewhy.normalization/strict-v1/wire-1/sha256:" + strings.ToUpper(hex64), Multiset, CodeContext},
		"quote":        {XXH3, "pipewhy.normalization/strict\"v1/wire-1/sha256:" + hex64, Multiset, CodeContext},
		"space":        {XXH3, "pipewhy.normalization/strict v1/wire-1/sha256:" + hex64, Multiset, CodeContext},
		"other ns":     {XXH3, "pipewhy.other/strict-v1/wire-1/sha256:" + hex64, Multiset, CodeContext},
		"non-ascii":    {XXH3, "pipewhy.normalization/é/sha256:" + hex64, Multiset, CodeContext},
		"backslash":    {XXH3, "pipewhy.normalization/a\\b/sha256:" + hex64, Multiset, CodeContext},
		"empty":        {XXH3, "", Multiset, CodeContext},
		"hex too long": {XXH3, "pipewhy.normalization/strict-v1/wire-1/sha256:" + hex64 + "a", Multiset, CodeContext},
	} {
		if _, err := NewContext(tc.alg, tc.prof, testSchema, tc.mode); CodeOf(err) != tc.code {
			t.Errorf("%s: %v, want %s", name, err, tc.code)
		}
	}
	for _, s := range []string{"multiset", "ordered"} {
		if m, err := ParseMode(s); err != nil || m.String() != s {
			t.Errorf("ParseMode(%q) = %v, %v", s, m, err)
		}
	}
	if _, err := ParseMode("Ordered"); CodeOf(err) != CodeContext {
		t.Error("ParseMode is case-sensitive")
	}
}

// FuzzSchemaName: any valid UTF-8 name yields a descriptor that is valid JSON whose
// field name decodes back to the name; invalid UTF-8 is CodeSchema.
func FuzzSchemaName(f *testing.F) {
	for _, s := range []string{"", "a", "\"\\\b\f\n\r\t\x00\x1f\x7f", "é", "\u2028", "\xff"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, name string) {
		if len(name) > 1<<16 { // bounds each run, and so each minimization
			t.Skip("input over 64 KiB")
		}
		s := SchemaDescriptor{RenamePolicy: RenameChangesIdentity, Fields: []SchemaField{{ID: 3, Name: name, Type: TypeAny}}}
		d, err := s.Descriptor()
		if !utf8.ValidString(name) {
			if CodeOf(err) != CodeSchema {
				t.Fatalf("invalid UTF-8 accepted: %v", err)
			}
			return
		}
		if err != nil {
			t.Fatal(err)
		}
		var v struct {
			Fields []struct{ Name string } `json:"fields"`
		}
		if err := json.Unmarshal(d, &v); err != nil || len(v.Fields) != 1 || v.Fields[0].Name != name {
			t.Fatalf("descriptor %q does not decode to the name: %v", d, err)
		}
	})
}
