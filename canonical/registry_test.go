package canonical_test

import (
	"bytes"
	"crypto/sha256"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/pipewhy/pipewhy/canonical"
)

// dfsResult builds the table GraphForge's engine returns for a depth-first traversal
// (node_uuid fixed_size_binary(16), depth uint64, order uint64, none nullable) with two
// rows and the given schema metadata.
func dfsResult(t *testing.T, keys, vals []string) (*arrow.Schema, arrow.RecordBatch) {
	t.Helper()
	md := arrow.NewMetadata(keys, vals)
	schema := arrow.NewSchema([]arrow.Field{
		{Name: "node_uuid", Type: &arrow.FixedSizeBinaryType{ByteWidth: 16}},
		{Name: "depth", Type: arrow.PrimitiveTypes.Uint64},
		{Name: "order", Type: arrow.PrimitiveTypes.Uint64},
	}, &md)
	b := array.NewRecordBuilder(memory.NewGoAllocator(), schema)
	defer b.Release()
	for i, last := range []byte{0x55, 0x66} {
		b.Field(0).(*array.FixedSizeBinaryBuilder).Append([]byte{0x01, 0x8f, 0x47, 0xd2, 0xa1, 0xb2, 0x7c, 0x3d, 0x8e, 0x4f, 0x00, 0x11, 0x22, 0x33, 0x44, last})
		b.Field(1).(*array.Uint64Builder).Append(uint64(i))
		b.Field(2).(*array.Uint64Builder).Append(uint64(i))
	}
	rec := b.NewRecordBatch()
	t.Cleanup(rec.Release)
	return schema, rec
}

var gfKeys = []string{"graphforge.verb", "graphforge.algorithm", "graphforge.algorithm_schema_version"}

// Hand-derived from the contract text: the schema bytes of dfsResult, up to the schema
// metadata (three non-nullable fields: fixed_size_binary tag 32 with u32 width 16, uint64
// tag 17, each with an empty field metadata map).
const dfsFieldsHex = `47465331 00000003
	0000000000000009 6e6f64655f75756964 00 32 00000010 00000000
	0000000000000005 6465707468 00 17 00000000
	0000000000000005 6f72646572 00 17 00000000`

// The three entries GraphForge writes, sorted by raw key bytes ("graphforge.algorithm"
// is a prefix of "graphforge.algorithm_schema_version", so it comes first).
const (
	mdAlgorithmDFS = `0000000000000014 6772617068666f7267652e616c676f726974686d 0000000000000003 646673`
	mdAlgorithmBFS = `0000000000000014 6772617068666f7267652e616c676f726974686d 0000000000000003 626673`
	mdSchemaV1     = `0000000000000023 6772617068666f7267652e616c676f726974686d5f736368656d615f76657273696f6e 0000000000000001 31`
	mdVerbPaths    = `000000000000000f 6772617068666f7267652e76657262 0000000000000005 7061746873`
	// The two rows: presence 01 and the 16 UUID bytes, presence 01 and u64 depth,
	// presence 01 and u64 order.
	dfsRowsHex = `0000000000000002
	01 018f47d2a1b27c3d8e4f001122334455 01 0000000000000000 01 0000000000000000
	01 018f47d2a1b27c3d8e4f001122334466 01 0000000000000001 01 0000000000000001`
)

// handTable assembles "GFT1", the u64 schema length, the schema bytes and the rows, and
// checks the schema length against the one worked out by hand.
func handTable(t *testing.T, schemaLen int, schemaHex ...string) []byte {
	t.Helper()
	schema := mustHex(t, strings.Join(schemaHex, " "))
	if len(schema) != schemaLen {
		t.Fatalf("hand-written schema is %d bytes, worked out %d", len(schema), schemaLen)
	}
	out := mustHex(t, "47465431")
	out = append(out, 0, 0, 0, 0, 0, 0, 0, byte(schemaLen))
	out = append(out, schema...)
	return append(out, mustHex(t, dfsRowsHex)...)
}

// handArrowResultSum is SHA-256 over the envelope written out by hand: "GFFP", 01, u16
// 23, "graphforge/arrow-result", u32 1, u64 payload length, payload.
func handArrowResultSum(t *testing.T, payload []byte) [32]byte {
	t.Helper()
	pre := mustHex(t, "47464650 01 0017 6772617068666f7267652f6172726f772d726573756c74 00000001 00000000")
	n := len(payload)
	pre = append(pre, byte(n>>24), byte(n>>16), byte(n>>8), byte(n))
	return sha256.Sum256(append(pre, payload...))
}

// A GraphForge result carries graphforge.algorithm, .verb and .algorithm_schema_version
// in its schema metadata. The default registry of graphforge/arrow-result (GraphForge's
// standard result registry) declares them, so they participate: the bytes and the
// fingerprint are the hand-derived ones, and changing a declared value changes both.
func TestStandardResultRegistryGraphForgeResult(t *testing.T) {
	opts := canonical.DefaultOptions(canonical.DomainArrowResult)
	// 8 + 3 fields (27 + 19 + 19) + u32 count + entries (39 + 52 + 36) = 204.
	wantDFS := handTable(t, 204, dfsFieldsHex, "00000003", mdAlgorithmDFS, mdSchemaV1, mdVerbPaths)
	wantBFS := handTable(t, 204, dfsFieldsHex, "00000003", mdAlgorithmBFS, mdSchemaV1, mdVerbPaths)
	if len(wantDFS) != 294 {
		t.Fatalf("hand payload %d bytes, worked out 294", len(wantDFS))
	}
	cases := []struct {
		name       string
		keys, vals []string
		want       []byte
	}{
		{"dfs", gfKeys, []string{"paths", "dfs", "1"}, wantDFS},
		// Volatile and non-GraphForge keys are excluded: the same bytes.
		{"dfs with volatile and producer keys", append(slices.Clone(gfKeys), "graphforge.query_id", "writer"),
			[]string{"paths", "dfs", "1", "q-42", "pyarrow 21"}, wantDFS},
		{"bfs", gfKeys, []string{"paths", "bfs", "1"}, wantBFS},
	}
	sums := map[string][32]byte{}
	for _, c := range cases {
		schema, rec := dfsResult(t, c.keys, c.vals)
		got, err := canonical.TableBytes(schema, []arrow.RecordBatch{rec}, opts)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if !bytes.Equal(got, c.want) {
			t.Fatalf("%s: table bytes\n got %x\nwant %x", c.name, got, c.want)
		}
		fp, err := canonical.FingerprintTable(canonical.DomainArrowResult, schema, []arrow.RecordBatch{rec}, opts)
		if err != nil {
			t.Fatal(err)
		}
		if want := handArrowResultSum(t, c.want); fp.Sum != want {
			t.Errorf("%s: fingerprint %s, want %x", c.name, fp.Hex(), want)
		}
		sums[c.name] = fp.Sum
	}
	if sums["dfs"] == sums["bfs"] {
		t.Error("changing graphforge.algorithm did not change the fingerprint")
	}

	// Without a registry the same table is rejected, naming the undeclared key.
	schema, rec := dfsResult(t, gfKeys, []string{"paths", "dfs", "1"})
	_, err := canonical.TableBytes(schema, []arrow.RecordBatch{rec}, nil)
	var ce *canonical.Error
	if !errors.As(err, &ce) || ce.Code != canonical.CodeEncoding || !strings.Contains(ce.Path, "undeclared result-contract key graphforge.") {
		t.Errorf("zero options: %v, want an undeclared result-contract key", err)
	}
	// Another domain's default declares nothing.
	if _, err := canonical.TableBytes(schema, []arrow.RecordBatch{rec}, canonical.DefaultOptions(canonical.DomainAssertion)); canonical.CodeOf(err) != canonical.CodeEncoding {
		t.Errorf("assertion domain: %v, want GF_CANONICAL_ENCODING", err)
	}
	// An unclassified graphforge.* key is rejected with its code under the default too.
	schema, rec = dfsResult(t, append(slices.Clone(gfKeys), "graphforge.extra"), []string{"paths", "dfs", "1", "x"})
	_, err = canonical.TableBytes(schema, []arrow.RecordBatch{rec}, opts)
	if !errors.As(err, &ce) || ce.Code != canonical.CodeEncoding || !strings.Contains(ce.Path, "unknown graphforge key") {
		t.Errorf("unknown key: %v", err)
	}
}

// A user-supplied registry replaces the default one. A table carrying a key of the user's
// own, which the default rejects, fingerprints once the user's registry classifies it:
// semantic (it participates) or volatile (it is excluded). A registry that leaves out a
// key the table carries rejects the table.
func TestUserRegistryOverrides(t *testing.T) {
	schema, rec := dfsResult(t, append(slices.Clone(gfKeys), "graphforge.extra"), []string{"paths", "dfs", "1", "x"})
	if _, err := canonical.TableBytes(schema, []arrow.RecordBatch{rec}, canonical.DefaultOptions(canonical.DomainArrowResult)); canonical.CodeOf(err) != canonical.CodeEncoding {
		t.Fatalf("default registry: %v, want GF_CANONICAL_ENCODING", err)
	}
	// "graphforge.extra" (16 bytes) = "x": 8 + 16 + 8 + 1 = 33 bytes, sorted between
	// graphforge.algorithm_schema_version and graphforge.verb.
	const mdExtra = `0000000000000010 6772617068666f7267652e6578747261 0000000000000001 78`
	for _, c := range []struct {
		json string
		want []byte
	}{
		{`{"semantic_keys": ["graphforge.algorithm", "graphforge.algorithm_schema_version", "graphforge.verb", "graphforge.extra"]}`,
			handTable(t, 237, dfsFieldsHex, "00000004", mdAlgorithmDFS, mdSchemaV1, mdExtra, mdVerbPaths)},
		{`{"semantic_keys": ["graphforge.algorithm", "graphforge.algorithm_schema_version", "graphforge.verb"], "volatile_keys": ["graphforge.extra"]}`,
			handTable(t, 204, dfsFieldsHex, "00000003", mdAlgorithmDFS, mdSchemaV1, mdVerbPaths)},
	} {
		reg, err := canonical.ParseMetadataRegistry([]byte(c.json))
		if err != nil {
			t.Fatal(err)
		}
		got, err := canonical.TableBytes(schema, []arrow.RecordBatch{rec}, &canonical.Options{Metadata: reg})
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, c.want) {
			t.Errorf("%s: table bytes\n got %x\nwant %x", c.json, got, c.want)
		}
	}
	narrow := &canonical.Options{Metadata: canonical.MetadataRegistry{Semantic: []string{"graphforge.algorithm", "graphforge.verb"}, Volatile: []string{"graphforge.extra"}}}
	_, err := canonical.TableBytes(schema, []arrow.RecordBatch{rec}, narrow)
	if err == nil || !strings.Contains(err.Error(), "undeclared result-contract key graphforge.algorithm_schema_version") {
		t.Errorf("narrow registry: %v", err)
	}
}

func TestStandardResultRegistryListsTheContractKeys(t *testing.T) {
	std := canonical.StandardResultRegistry()
	for _, k := range canonical.ResultContractKeys {
		if !slices.Contains(std.Semantic, k) {
			t.Errorf("standard result registry lacks %s", k)
		}
	}
	if err := std.Validate(); err != nil {
		t.Error(err)
	}
}

func TestMetadataRegistryRejects(t *testing.T) {
	for _, c := range []struct {
		name, json string
		code       canonical.Code
	}{
		{"not a graphforge key", `{"semantic_keys": ["producer"]}`, canonical.CodeEncoding},
		{"contract key", `{"semantic_keys": ["graphforge.contract.unit"]}`, canonical.CodeEncoding},
		{"always volatile as semantic", `{"semantic_keys": ["graphforge.query_id"]}`, canonical.CodeEncoding},
		{"result-contract key as volatile", `{"volatile_keys": ["graphforge.seed"]}`, canonical.CodeEncoding},
		{"twice in one list", `{"semantic_keys": ["graphforge.x", "graphforge.x"]}`, canonical.CodeEncoding},
		{"in both lists", `{"semantic_keys": ["graphforge.x"], "volatile_keys": ["graphforge.x"]}`, canonical.CodeEncoding},
		{"unknown member", `{"semantic_keys": [], "declared_keys": ["graphforge.seed"]}`, canonical.CodeEncoding},
		{"trailing data", `{} {}`, canonical.CodeEncoding},
		{"not an object", `["graphforge.seed"]`, canonical.CodeEncoding},
	} {
		if _, err := canonical.ParseMetadataRegistry([]byte(c.json)); canonical.CodeOf(err) != c.code {
			t.Errorf("%s: %v, want %s", c.name, err, c.code)
		}
	}
	bad := canonical.MetadataRegistry{Semantic: []string{"graphforge.\xff"}}
	if err := bad.Validate(); canonical.CodeOf(err) != canonical.CodeUTF8 {
		t.Errorf("invalid UTF-8 key: %v", err)
	}
	if _, err := canonical.ReadMetadataRegistry(strings.NewReader(`{"semantic_keys": ["graphforge.x"]}` + strings.Repeat(" ", 1<<20))); canonical.CodeOf(err) != canonical.CodeLimit {
		t.Errorf("oversized registry file: %v", err)
	}
	empty, err := canonical.ParseMetadataRegistry([]byte(`{}`))
	if err != nil || len(empty.Semantic)+len(empty.Volatile) != 0 {
		t.Errorf("empty registry: %+v %v", empty, err)
	}
}
