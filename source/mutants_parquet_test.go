package source

// Tests written for the mutants of the Parquet readers, the registry and the other files
// of this slice that lived under the earlier tests (issue 22, docs/mutation/source-parquet.txt).
// Each pins a boundary or a value of the code's contract, derived from the Parquet format
// or the function's doc comment, at the limit and one past it.

import (
	"bytes"
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/encoding"
	"github.com/parquet-go/parquet-go/encoding/thrift"
	"github.com/parquet-go/parquet-go/format"
)

// chunkPage is one page of a column chunk built by testChunk: its header, and the bytes
// that follow it (body, normally h.CompressedPageSize of them; raw, when set, replaces
// the encoded header).
type chunkPage struct {
	h    format.PageHeader
	body int
	raw  []byte
}

// v1Page is a PLAIN data page (format v1) of n values and size bytes.
func v1Page(n, size int32) chunkPage {
	return chunkPage{h: format.PageHeader{Type: format.DataPage, UncompressedPageSize: size, CompressedPageSize: size,
		DataPageHeader: thrift.New(format.DataPageHeader{NumValues: n, Encoding: format.Plain,
			DefinitionLevelEncoding: format.RLE, RepetitionLevelEncoding: format.RLE})}, body: int(size)}
}

// v2Page is a PLAIN data page (format v2) of n values, nulls of them null, size bytes
// of which def are definition levels and rep repetition levels.
func v2Page(n, nulls, size, def, rep int32) chunkPage {
	return chunkPage{h: format.PageHeader{Type: format.DataPageV2, UncompressedPageSize: size, CompressedPageSize: size,
		DataPageHeaderV2: thrift.New(format.DataPageHeaderV2{NumValues: n, NumNulls: nulls, NumRows: n, Encoding: format.Plain,
			DefinitionLevelsByteLength: def, RepetitionLevelsByteLength: rep})}, body: int(size)}
}

// dictPage is a PLAIN dictionary page of n entries in size bytes (stored and
// uncompressed alike).
func dictPage(n, size int32) chunkPage {
	return chunkPage{h: format.PageHeader{Type: format.DictionaryPage, UncompressedPageSize: size, CompressedPageSize: size,
		DictionaryPageHeader: thrift.New(format.DictionaryPageHeader{NumValues: n, Encoding: format.Plain})}, body: int(size)}
}

// testChunk lays out pre bytes of padding, then the pages (header, body) and post bytes
// of padding; it returns the file and the chunk's metadata (data page offset pre, every
// byte of the pages counted in the sizes, uncompressed).
func testChunk(t *testing.T, pre, post int, pages ...chunkPage) ([]byte, *format.ColumnMetaData) {
	t.Helper()
	file := make([]byte, pre)
	for _, p := range pages {
		h := p.raw
		if h == nil {
			var err error
			if h, err = thrift.Marshal(new(thrift.CompactProtocol), &p.h); err != nil {
				t.Fatal(err)
			}
		}
		file = append(file, h...)
		file = append(file, make([]byte, p.body)...)
	}
	total := int64(len(file) - pre)
	file = append(file, make([]byte, post)...)
	return file, &format.ColumnMetaData{DataPageOffset: int64(pre), TotalCompressedSize: total, TotalUncompressedSize: total}
}

// runCheckPages runs checkPages over file for a column of kind k and rows rows.
func runCheckPages(file []byte, cm *format.ColumnMetaData, k pgKind, rows int) error {
	var buf []byte
	return checkPages(bytes.NewReader(file), int64(len(file)), cm, pgCol{kind: k, size: 16}, rows, &buf)
}

// wantPageHeaderErr fails unless err is a checkPages failure (errPageHeader) whose
// message contains want.
func wantPageHeaderErr(t *testing.T, what string, err error, want string) {
	t.Helper()
	if !errors.Is(err, errPageHeader) || !strings.Contains(err.Error(), want) {
		t.Errorf("%s: %v, want %v with %q", what, err, errPageHeader, want)
	}
}

func headerLen(t *testing.T, p chunkPage) int32 {
	t.Helper()
	h, err := thrift.Marshal(new(thrift.CompactProtocol), &p.h)
	if err != nil {
		t.Fatal(err)
	}
	return int32(len(h))
}

// TestCheckPagesChunkExtent: the chunk must lie inside the file, and may touch both
// of its ends: offset 0, and an end at the file's last byte; an empty chunk at the
// file's end holds no values. One byte past the end is refused before any read.
func TestCheckPagesChunkExtent(t *testing.T) {
	file, cm := testChunk(t, 0, 0, v1Page(3, 24))
	if err := runCheckPages(file, cm, pgInt64, 3); err != nil {
		t.Errorf("chunk at offset 0 ending at the end of the file: %v", err)
	}
	file, cm = testChunk(t, 4, 0, v1Page(3, 24))
	if err := runCheckPages(file, cm, pgInt64, 3); err != nil {
		t.Errorf("chunk ending at the end of the file: %v", err)
	}
	cm.TotalCompressedSize++
	wantPageHeaderErr(t, "chunk one byte past the end", runCheckPages(file, cm, pgInt64, 3), "outside the file")
	empty := &format.ColumnMetaData{DataPageOffset: int64(len(file))}
	if err := runCheckPages(file, empty, pgInt64, 0); err != nil {
		t.Errorf("empty chunk at the end of the file, no rows: %v", err)
	}
	empty.DataPageOffset++
	wantPageHeaderErr(t, "empty chunk past the end of the file", runCheckPages(file, empty, pgInt64, 0), "outside the file")
	neg := &format.ColumnMetaData{DataPageOffset: -1, TotalCompressedSize: 1}
	wantPageHeaderErr(t, "negative offset", runCheckPages(file, neg, pgInt64, 0), "outside the file")
	// The dictionary page offset, when set, is where the chunk starts.
	file, cm = testChunk(t, 4, 0, dictPage(2, 16), v1Page(3, 3))
	cm.DataPageOffset, cm.DictionaryPageOffset = 1000, 4
	if err := runCheckPages(file, cm, pgInt64, 3); err != nil {
		t.Errorf("chunk from its dictionary page offset: %v", err)
	}
}

// TestCheckPagesPageSizes: a page (header and body) may end exactly at the chunk's end,
// and may be empty; one byte more is refused, on the first page and on a later one, whose
// number the error names.
func TestCheckPagesPageSizes(t *testing.T) {
	for _, first := range []bool{true, false} {
		var pages []chunkPage
		if !first {
			pages = append(pages, v1Page(1, 8))
		}
		pages = append(pages, v1Page(2, 16))
		file, cm := testChunk(t, 4, 64, pages...)
		if err := runCheckPages(file, cm, pgInt64, len(pages)+1); err != nil {
			t.Errorf("first %v: pages that fill the chunk: %v", first, err)
		}
		last := &pages[len(pages)-1]
		last.h.CompressedPageSize++ // one byte more than the chunk has after the header (the file goes on)
		file, cm = testChunk(t, 4, 64, pages...)
		want := "page 1: sizes outside the column chunk"
		if !first {
			want = "page 2: sizes outside the column chunk"
		}
		wantPageHeaderErr(t, "one byte past the chunk", runCheckPages(file, cm, pgInt64, len(pages)+1), want)
	}
	// Pages of no bytes and no values (v1 and v2) before the page with the values.
	file, cm := testChunk(t, 4, 0, v1Page(0, 0), v2Page(0, 0, 0, 0, 0), v1Page(2, 16))
	if err := runCheckPages(file, cm, pgInt64, 2); err != nil {
		t.Errorf("empty pages: %v", err)
	}
	neg := v1Page(-1, 0)
	file, cm = testChunk(t, 4, 0, v1Page(1, 8), neg)
	wantPageHeaderErr(t, "negative count", runCheckPages(file, cm, pgInt64, 1), "page 2: negative value count")
	neg = v2Page(-1, 0, 0, 0, 0)
	file, cm = testChunk(t, 4, 0, v1Page(1, 8), neg)
	wantPageHeaderErr(t, "negative count v2", runCheckPages(file, cm, pgInt64, 1), "page 2: value or null count")
}

// TestCheckPagesV2Levels: a v2 page's levels may fill the page exactly (rep + def =
// compressed size) and not one byte more, counting both lengths.
func TestCheckPagesV2Levels(t *testing.T) {
	for _, c := range []struct {
		def, rep int32
		ok       bool
	}{{8, 0, true}, {0, 8, true}, {5, 3, true}, {9, 0, false}, {0, 9, false}, {5, 4, false}, {-1, 0, false}, {0, -1, false}} {
		file, cm := testChunk(t, 4, 0, v2Page(1, 1, 8, c.def, c.rep))
		err := runCheckPages(file, cm, pgInt64, 1)
		if c.ok && err != nil {
			t.Errorf("def %d rep %d in 8 bytes: %v", c.def, c.rep, err)
		}
		if !c.ok {
			wantPageHeaderErr(t, "levels", err, "page 1: levels larger than the page")
		}
	}
	// Nulls: at most the values.
	file, cm := testChunk(t, 4, 0, v2Page(2, 2, 8, 1, 0))
	if err := runCheckPages(file, cm, pgInt64, 2); err != nil {
		t.Errorf("every value null: %v", err)
	}
	file, cm = testChunk(t, 4, 0, v2Page(2, 3, 8, 1, 0))
	wantPageHeaderErr(t, "more nulls than values", runCheckPages(file, cm, pgInt64, 2), "page 1: value or null count")
}

// TestCheckPagesDictionaryEntries: a PLAIN dictionary page of b bytes holds at most
// 8*b/bits entries of bits bits each (64 for INT64, 32 for a byte array's length
// prefix, 8*size for FIXED_LEN_BYTE_ARRAY, 1 for BOOLEAN): that many pass, one more
// fails. With a codec the bound is by the uncompressed size.
func TestCheckPagesDictionaryEntries(t *testing.T) {
	for _, c := range []struct {
		k     pgKind
		size  int32
		most  int32
		label string
	}{{pgInt64, 24, 3, "int64"}, {pgBytes, 12, 3, "byte array"}, {pgDecFixed, 32, 2, "16-byte fixed"}, {pgBool, 2, 16, "boolean"}} {
		for _, n := range []int32{c.most, c.most + 1} {
			file, cm := testChunk(t, 4, 0, dictPage(n, c.size), v1Page(1, 1))
			err := runCheckPages(file, cm, c.k, 1)
			if n == c.most && err != nil {
				t.Errorf("%s: %d entries in %d bytes: %v", c.label, n, c.size, err)
			}
			if n > c.most {
				wantPageHeaderErr(t, c.label, err, fmt.Sprintf("page 1: %d dictionary entries in %d bytes", n, c.size))
			}
		}
	}
	// Compressed: 3 INT64 entries in 24 uncompressed bytes stored in 5.
	for _, n := range []int32{3, 4} {
		d := dictPage(n, 5)
		d.h.UncompressedPageSize = 24
		file, cm := testChunk(t, 4, 0, d, v1Page(1, 1))
		cm.Codec = format.Snappy
		cm.TotalUncompressedSize = 1 << 20
		err := runCheckPages(file, cm, pgInt64, 1)
		if n == 3 && err != nil {
			t.Errorf("compressed: 3 entries in 24 uncompressed bytes: %v", err)
		}
		if n == 4 {
			wantPageHeaderErr(t, "compressed", err, "4 dictionary entries in 24 bytes")
		}
	}
}

// TestCheckPagesUncompressedTotal: with a codec the pages' uncompressed sizes may add up
// to the chunk's total_uncompressed_size, not one byte more (the second page's is what
// passes it); without a codec the total is not consulted.
func TestCheckPagesUncompressedTotal(t *testing.T) {
	for _, extra := range []int64{0, 1} {
		p1, p2 := v1Page(1, 4), v1Page(1, 4)
		p1.h.UncompressedPageSize, p2.h.UncompressedPageSize = 8, 8
		file, cm := testChunk(t, 4, 0, p1, p2)
		cm.Codec = format.Snappy
		cm.TotalUncompressedSize = 16 - extra // the pages hold 16 uncompressed bytes
		err := runCheckPages(file, cm, pgInt64, 2)
		if extra == 0 && err != nil {
			t.Errorf("uncompressed sizes equal to the total: %v", err)
		}
		if extra == 1 {
			wantPageHeaderErr(t, "one byte over", err, "page 2: uncompressed sizes past the chunk's total")
		}
		cm.Codec = format.Uncompressed
		if err := runCheckPages(file, cm, pgInt64, 2); err != nil {
			t.Errorf("uncompressed chunk with a smaller total: %v", err)
		}
	}
}

// TestCheckPagesLongHeader: a header longer than the first read window (1 KiB; long
// statistics) is read with a larger window, on the first page and on a later one whose
// window reaches the chunk's end, which is the file's end. A header that does not
// decode within the chunk is refused, naming its page.
func TestCheckPagesLongHeader(t *testing.T) {
	long := v1Page(1, 8)
	long.h.DataPageHeader.V.Statistics = format.Statistics{MinValue: bytes.Repeat([]byte{'a'}, 1500), MaxValue: bytes.Repeat([]byte{'z'}, 1500)}
	if n := headerLen(t, long); n <= pageHeaderWindow {
		t.Fatalf("header of %d bytes, not longer than the window", n)
	}
	file, cm := testChunk(t, 4, 0, long, v1Page(1, 8))
	if err := runCheckPages(file, cm, pgInt64, 2); err != nil {
		t.Errorf("long header first: %v", err)
	}
	file, cm = testChunk(t, 4, 0, v1Page(1, 8), long)
	if err := runCheckPages(file, cm, pgInt64, 2); err != nil {
		t.Errorf("long header second, at the end of the file: %v", err)
	}
	// An undecodable header (a truncated one): page 2 of a chunk at the file's end.
	enc, err := thrift.Marshal(new(thrift.CompactProtocol), &long.h)
	if err != nil {
		t.Fatal(err)
	}
	file, cm = testChunk(t, 4, 0, v1Page(1, 8), chunkPage{raw: enc[:len(enc)/2]})
	wantPageHeaderErr(t, "truncated header", runCheckPages(file, cm, pgInt64, 2), "page 2: unreadable header")
}

// widthDescriptor is the schema descriptor (SchemaDescriptor's doc comment) of one
// field: id 1, name "n", type int64, width 12, nullable; written out by hand.
func widthDescriptor() []byte {
	var b []byte
	b = append(b, "pipewhy.source-schema.v1\n"...)
	b = append(b, 1, 0, 0, 0, 0, 0, 0, 0)                          // field count
	b = append(b, 1, 0, 0, 0, 0, 0, 0, 0)                          // field id
	b = append(b, 1, 0, 0, 0, 0, 0, 0, 0, 'n')                     // name
	b = append(b, 5, 0, 0, 0, 0, 0, 0, 0, 'i', 'n', 't', '6', '4') // type
	b = append(b, 12, 0, 0, 0, 0, 0, 0, 0)                         // width
	return append(b, 1)                                            // nullable
}

func sha256Hex(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

// TestRegistrySourceWidthMetadata: a MetaSourceWidth key replaces the type's width in the
// identity wherever it stands among the field's metadata keys (also first); a malformed
// one is refused by Assign (CodeRegistry) and SchemaDescriptor (CodeSchema).
func TestRegistrySourceWidthMetadata(t *testing.T) {
	first := arrow.Field{Name: "n", Type: arrow.PrimitiveTypes.Int64, Nullable: true,
		Metadata: arrow.NewMetadata([]string{MetaSourceWidth}, []string{"12"})}
	a, err := NewRegistry().Assign("ns", schemaOf(first))
	if err != nil {
		t.Fatal(err)
	}
	want := widthDescriptor()
	if a.SchemaID != sha256Hex(want) {
		t.Errorf("Assign: identity %s, want the descriptor with width 12 (%s)", a.SchemaID, sha256Hex(want))
	}
	// SchemaDescriptor: the width key first, the id second.
	f := arrow.Field{Name: "n", Type: arrow.PrimitiveTypes.Int64, Nullable: true,
		Metadata: arrow.NewMetadata([]string{MetaSourceWidth, MetaFieldID}, []string{"12", "1"})}
	got, err := SchemaDescriptor(schemaOf(f))
	if err != nil || !bytes.Equal(got, want) {
		t.Errorf("SchemaDescriptor, width key first: %x, %v\nwant %x", got, err, want)
	}
	f.Metadata = arrow.NewMetadata([]string{MetaFieldID, MetaSourceWidth}, []string{"1", "12"})
	if got, err := SchemaDescriptor(schemaOf(f)); err != nil || !bytes.Equal(got, want) {
		t.Errorf("SchemaDescriptor, width key second: %x, %v", got, err)
	}
	for _, bad := range []string{"", "x", "-1", "65536"} {
		f.Metadata = arrow.NewMetadata([]string{MetaFieldID, MetaSourceWidth}, []string{"1", bad})
		if _, err := SchemaDescriptor(schemaOf(f)); CodeOf(err) != CodeSchema {
			t.Errorf("SchemaDescriptor, width %q: %v, want %s", bad, err, CodeSchema)
		}
		first.Metadata = arrow.NewMetadata([]string{MetaSourceWidth}, []string{bad})
		if _, err := NewRegistry().Assign("ns", schemaOf(first)); CodeOf(err) != CodeRegistry {
			t.Errorf("Assign, width %q: %v, want %s", bad, err, CodeRegistry)
		}
	}
}

// TestRegistryReassignOwnOutput: assigning the schema an assignment returned (its fields
// carry MetaFieldID as their only key) replaces the id key, never adds a second one.
func TestRegistryReassignOwnOutput(t *testing.T) {
	r := NewRegistry()
	a, err := r.Assign("ns", schemaOf(fld("x", arrow.PrimitiveTypes.Int64, false)))
	if err != nil {
		t.Fatal(err)
	}
	b, err := r.Assign("other", a.Schema)
	if err != nil {
		t.Fatal(err)
	}
	md := b.Schema.Field(0).Metadata
	if md.Len() != 1 || md.Keys()[0] != MetaFieldID || md.Values()[0] != "1" {
		t.Errorf("metadata after a second assignment: %v, want only %s=1", md, MetaFieldID)
	}
	if _, err := SchemaIdentity(b.Schema); err != nil {
		t.Errorf("identity of the reassigned schema: %v", err)
	}
}

// TestAssignPreferringNextIDPersists: a preferred id at or past the namespace's next id
// moves the next id past it, so that the saved registry is valid (every id below
// next_id) and a later new name continues after it.
func TestAssignPreferringNextIDPersists(t *testing.T) {
	path := filepath.Join(t.TempDir(), "r.json")
	r, err := OpenRegistry(path)
	if err != nil {
		t.Fatal(err)
	}
	i64 := arrow.PrimitiveTypes.Int64
	// "at": a fresh namespace's next id is 1; "past": 5 lies beyond it.
	for ns, id := range map[string]uint64{"at": 1, "past": 5} {
		if a, err := r.AssignPreferring(ns, schemaOf(fld("x", i64, false)), map[string]uint64{"x": id}); err != nil || a.IDs[0] != id {
			t.Fatalf("%s: %v, %v", ns, a, err)
		}
	}
	if err := r.Save(); err != nil {
		t.Fatal(err)
	}
	r, err = OpenRegistry(path)
	if err != nil {
		t.Fatalf("reopening the saved registry: %v", err)
	}
	for ns, want := range map[string]uint64{"at": 2, "past": 6} {
		a, err := r.Assign(ns, schemaOf(fld("x", i64, false), fld("y", i64, false)))
		if err != nil || a.IDs[1] != want {
			t.Errorf("%s: new name after the preferred id: %v, %v; want id %d", ns, a, err, want)
		}
	}
}

// TestRegistryFieldIDsExhausted: ids run up to UINT64_MAX-1 (UINT64_MAX is never an id):
// with next_id UINT64_MAX-1 one new name fits, a second is CodeRegistry.
func TestRegistryFieldIDsExhausted(t *testing.T) {
	path := filepath.Join(t.TempDir(), "r.json")
	body := `{"format":"pipewhy.source-registry","version":1,"namespaces":{"n":{"next_id":"18446744073709551614","names":[],"renames":[]}}}`
	if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	r, err := OpenRegistry(path)
	if err != nil {
		t.Fatal(err)
	}
	i64 := arrow.PrimitiveTypes.Int64
	a, err := r.Assign("n", schemaOf(fld("x", i64, false)))
	if err != nil || a.IDs[0] != math.MaxUint64-1 {
		t.Fatalf("last id: %v, %v", a, err)
	}
	if _, err := r.Assign("n", schemaOf(fld("x", i64, false), fld("y", i64, false))); CodeOf(err) != CodeRegistry || !strings.Contains(err.Error(), "exhausted") {
		t.Fatalf("one id past the last: %v, want %s (ids exhausted)", err, CodeRegistry)
	}
}

// TestRegistryCurrentSchemaValidated: a namespace may lack a current schema; a current
// schema naming an unknown or repeated id is refused.
func TestRegistryCurrentSchemaValidated(t *testing.T) {
	dir := t.TempDir()
	head := `{"format":"pipewhy.source-registry","version":1,"namespaces":{"n":{"next_id":"3","names":[{"id":"1","name":"a"},{"id":"2","name":"b"}],"renames":[]`
	for name, c := range map[string]struct {
		body string
		ok   bool
	}{
		"no current": {head + `}}}`, true},
		"current":    {head + `,"current":{"schema_id":"x","fields":[{"id":"2","name":"b","type":"int64","width":"64","nullable":false}]}}}}`, true},
		"unknown id": {head + `,"current":{"schema_id":"x","fields":[{"id":"3","name":"c","type":"int64","width":"64","nullable":false}]}}}}`, false},
		"repeated":   {head + `,"current":{"schema_id":"x","fields":[{"id":"1","name":"a","type":"int64","width":"64","nullable":false},{"id":"1","name":"a","type":"int64","width":"64","nullable":false}]}}}}`, false},
	} {
		p := filepath.Join(dir, strings.ReplaceAll(name, " ", "_")+".json")
		if err := os.WriteFile(p, []byte(c.body), 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := OpenRegistry(p)
		if c.ok && err != nil {
			t.Errorf("%s: %v", name, err)
		}
		if !c.ok && (CodeOf(err) != CodeRegistry || !strings.Contains(err.Error(), "current schema")) {
			t.Errorf("%s: %v, want %s about the current schema", name, err, CodeRegistry)
		}
	}
}

// TestRegistryRenameFirstAndOrder: the first name of a namespace can be renamed; a field
// both renamed and retyped is reported as renamed, then retyped (the order diffSchemas
// emits them in, kept by the stable sort by field id).
func TestRegistryRenameFirstAndOrder(t *testing.T) {
	r := NewRegistry()
	i64, str := arrow.PrimitiveTypes.Int64, arrow.BinaryTypes.String
	if _, err := r.Assign("ns", schemaOf(fld("a", i64, false), fld("b", i64, false))); err != nil {
		t.Fatal(err)
	}
	if err := r.Rename("ns", "a", "z"); err != nil {
		t.Fatalf("renaming the first name: %v", err)
	}
	a, err := r.Assign("ns", schemaOf(fld("z", str, false), fld("b", i64, false)))
	if err != nil {
		t.Fatal(err)
	}
	var kinds []ChangeKind
	for _, c := range a.Changes {
		if c.FieldID != 1 {
			t.Errorf("change of field %d, want only field 1", c.FieldID)
		}
		kinds = append(kinds, c.Kind)
	}
	if !slices.Equal(kinds, []ChangeKind{ChangeRenamed, ChangeRetyped}) {
		t.Errorf("changes %v, want [renamed retyped]", kinds)
	}
}

// TestRegistryAssignNamesField: an invalid field name is reported with its 1-based
// position.
func TestRegistryAssignNamesField(t *testing.T) {
	_, err := NewRegistry().Assign("ns", schemaOf(fld("a", arrow.PrimitiveTypes.Int64, false), fld("", arrow.PrimitiveTypes.Int64, false)))
	if CodeOf(err) != CodeRegistry || !strings.Contains(err.Error(), "field 2 has an empty") {
		t.Errorf("empty second name: %v, want %s naming field 2", err, CodeRegistry)
	}
}

// TestAddressStringSQLiteTable: the canonical form of a SQLite table address keeps its
// #TABLE; other addresses are KIND:PATH.
func TestAddressStringSQLiteTable(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"sqlite:/d/x.db#t", "sqlite:/d/x.db#t"},
		{"/d/x.db#orders", "sqlite:/d/x.db#orders"},
		{"sqlite:/d/x.db", "sqlite:/d/x.db"},
		{"/d/x.csv", "csv:/d/x.csv"},
		{"parquet:/d/x", "parquet:/d/x"},
	} {
		a, err := ParseAddress(c.in)
		if err != nil || a.String() != c.want {
			t.Errorf("ParseAddress(%q).String() = %q, %v; want %q", c.in, a.String(), err, c.want)
		}
	}
}

// TestOptionsValidateLimits: BatchSize up to 16777216 (1<<24) is valid, one more is
// CodeOption; an empty Null spelling is valid, one that is not UTF-8 is CodeOption.
func TestOptionsValidateLimits(t *testing.T) {
	empty, bad := "", "\xff"
	for _, c := range []struct {
		o  Options
		ok bool
	}{
		{Options{BatchSize: 1 << 24}, true}, {Options{BatchSize: 1<<24 + 1}, false},
		{Options{BatchSize: 1}, true}, {Options{BatchSize: -1}, false},
		{Options{Null: &empty}, true}, {Options{Null: &bad}, false},
	} {
		err := c.o.Validate()
		if c.ok && err != nil {
			t.Errorf("%+v: %v", c.o, err)
		}
		if !c.ok && CodeOf(err) != CodeOption {
			t.Errorf("%+v: %v, want %s", c.o, err, CodeOption)
		}
	}
}

// TestCoverageReasonsAndCheck: Reasons is one line per kept failure plus the "more
// failures" line only when some were dropped (none for no failures); PARTIAL may return
// exactly the expected count, not one more; an error without a code is unavailable as
// CodeIO.
func TestCoverageReasonsAndCheck(t *testing.T) {
	if r := (Coverage{}).Reasons(); len(r) != 0 {
		t.Errorf("no failures: %q", r)
	}
	two := []Failure{{Code: CodeType, Line: 2}, {Code: CodeUTF8, Line: 5}}
	if r := (Coverage{FailureCount: 2, Failures: two}).Reasons(); !slices.Equal(r, []string{"PW_SOURCE_TYPE line 2", "PW_SOURCE_UTF8 line 5"}) {
		t.Errorf("all kept: %q", r)
	}
	if r := (Coverage{FailureCount: 3, Failures: two}).Reasons(); len(r) != 3 || r[2] != "PW_SOURCE_LIMIT: 1 more failures not kept" {
		t.Errorf("one dropped: %q", r)
	}
	c := Coverage{Status: StatusPartial, ExpectedKnown: true, Expected: 5, Returned: 5, FailureCount: 1}
	if err := c.Check(); err != nil {
		t.Errorf("PARTIAL returning the expected count: %v", err)
	}
	c.Returned = 6
	if err := c.Check(); CodeOf(err) != CodeCount {
		t.Errorf("PARTIAL returning one more than expected: %v, want %s", err, CodeCount)
	}
	u := UnavailableCoverage(errors.New("no code"))
	if len(u.Failures) != 1 || u.Failures[0].Code != CodeIO || u.Check() != nil {
		t.Errorf("unavailable without a code: %+v", u)
	}
	u = UnavailableCoverage(&Error{Code: CodeNotFound})
	if u.Failures[0].Code != CodeNotFound {
		t.Errorf("unavailable with a code: %+v", u)
	}
}

// errAfter is a context whose Err reports cancellation from its (after+1)th call on:
// a cancellation that arrives while Next reads a batch, at a known point.
type errAfter struct {
	context.Context
	calls, after int
}

func (c *errAfter) Err() error {
	c.calls++
	if c.calls > c.after {
		return context.Canceled
	}
	return nil
}

// TestSQLiteCancelWithinBatch: a context cancelled after Next has started ends the batch
// with the rows read so far (not an empty end of data), and the next call reports
// CodeIncomplete. Without Columns the schema choice is "schema=declared".
func TestSQLiteCancelWithinBatch(t *testing.T) {
	db := filepath.Join(t.TempDir(), "c.db")
	const total = 3000
	sqliteExec(t, db, "CREATE TABLE t(x INTEGER)",
		"WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i+1 FROM n WHERE i < 3000) INSERT INTO t SELECT i FROM n").Close()
	src, err := Open(context.Background(), "sqlite:"+db+"#t", Options{})
	if err != nil {
		t.Fatal(err)
	}
	if ch := src.Evidence().Choices; len(ch) == 0 || ch[0] != "schema=declared" {
		t.Errorf("choices %q, want schema=declared first", ch)
	}
	ctx := &errAfter{Context: context.Background(), after: 1}
	rec, err := src.Next(ctx)
	if err != nil {
		t.Fatalf("first batch: %v", err)
	}
	if n := rec.NumRows(); n == 0 || n >= total {
		t.Errorf("batch of %d rows, want the rows before the cancellation (0 < n < %d)", n, total)
	}
	rec.Release()
	if _, err := src.Next(ctx); CodeOf(err) != CodeIncomplete {
		t.Errorf("after the cancellation: %v, want %s", err, CodeIncomplete)
	}
	// Close ends the read transaction and closes the database handle, once.
	s := src.(*sqliteSource)
	tx, handle := s.tx, s.db
	if err := src.Close(); err != nil {
		t.Fatal(err)
	}
	if err := tx.Rollback(); !errors.Is(err, sql.ErrTxDone) {
		t.Errorf("the read transaction after Close: rollback %v, want %v", err, sql.ErrTxDone)
	}
	if err := handle.Ping(); err == nil || !strings.Contains(err.Error(), "database is closed") {
		t.Errorf("the database handle after Close: ping %v, want closed", err)
	}
	if err := src.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
}

// TestGroupPoolKeepsTwo: released row groups are kept for reuse up to maxIdleGroups (2);
// a third is dropped.
func TestGroupPoolKeepsTwo(t *testing.T) {
	p := newGroupPool(1)
	var gs []*groupMem
	for range 3 {
		g, err := p.get(context.Background(), false, 1)
		if err != nil {
			t.Fatal(err)
		}
		gs = append(gs, g)
	}
	for _, g := range gs {
		g.release()
	}
	if len(p.idle) != maxIdleGroups || maxIdleGroups != 2 || p.fresh != 3 {
		t.Errorf("%d idle of 3 released (%d allocated), want 2", len(p.idle), p.fresh)
	}
}

// editFooter returns a copy of the Parquet file orig with its footer changed by edit
// and re-encoded (the pages are left as they are).
func editFooter(t *testing.T, orig []byte, edit func(*format.FileMetaData)) []byte {
	t.Helper()
	proto := new(thrift.CompactProtocol)
	n := len(orig)
	flen := int(binary.LittleEndian.Uint32(orig[n-8:]))
	var md format.FileMetaData
	if err := thrift.Unmarshal(proto, orig[n-8-flen:n-8], &md); err != nil {
		t.Fatal(err)
	}
	edit(&md)
	footer, err := thrift.Marshal(proto, &md)
	if err != nil {
		t.Fatal(err)
	}
	out := slices.Concat(orig[:n-8-flen], footer)
	out = binary.LittleEndian.AppendUint32(out, uint32(len(footer)))
	return append(out, "PAR1"...)
}

// int64Parquet writes n rows 0..n-1 of a required int64 column "x" in row groups of
// group rows and returns the file's bytes.
func int64Parquet(t *testing.T, n int, group int64) []byte {
	t.Helper()
	b := array.NewInt64Builder(memory.DefaultAllocator)
	for i := range n {
		b.Append(int64(i))
	}
	col := b.NewArray()
	b.Release()
	defer col.Release()
	rec := array.NewRecordBatch(arrow.NewSchema([]arrow.Field{{Name: "x", Type: arrow.PrimitiveTypes.Int64}}, nil), []arrow.Array{col}, int64(n))
	defer rec.Release()
	p := filepath.Join(t.TempDir(), "x.parquet")
	writeParquet(t, p, rec, group)
	data, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// TestParquetGoErrorsNameTheirPlace: the parquet-go reader's errors name the 1-based
// column that is out of its scope and the 1-based row group that does not decode.
func TestParquetGoErrorsNameTheirPlace(t *testing.T) {
	t.Setenv(ParquetReaderEnv, "parquet-go")
	dir := t.TempDir()
	mem := memory.DefaultAllocator
	ib := array.NewInt64Builder(mem)
	ib.Append(1)
	ints := ib.NewArray()
	ib.Release()
	defer ints.Release()
	lb := array.NewListBuilder(mem, arrow.PrimitiveTypes.Int64)
	lb.Append(true)
	lb.ValueBuilder().(*array.Int64Builder).Append(2)
	list := lb.NewArray()
	lb.Release()
	defer list.Release()
	db := array.NewDecimal256Builder(mem, &arrow.Decimal256Type{Precision: 40, Scale: 2})
	db.AppendNull()
	dec := db.NewArray()
	db.Release()
	defer dec.Release()
	for _, c := range []struct {
		second arrow.Array
		want   string
	}{{list, "column 2 is nested"}, {dec, "column 2 is FIXED_LEN_BYTE_ARRAY"}} {
		sc := arrow.NewSchema([]arrow.Field{{Name: "a", Type: arrow.PrimitiveTypes.Int64}, {Name: "b", Type: c.second.DataType(), Nullable: true}}, nil)
		rec := array.NewRecordBatch(sc, []arrow.Array{ints, c.second}, 1)
		p := filepath.Join(dir, "scope.parquet")
		writeParquet(t, p, rec, 10)
		rec.Release()
		_, err := Open(context.Background(), p, Options{})
		if CodeOf(err) != CodeUnsupported || !errors.Is(err, errOutOfScope) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %s with %q", c.second.DataType(), err, CodeUnsupported, c.want)
		}
	}

	// Row groups of 5 rows; the footer claims 6 for the second: its pages hold fewer.
	data := editFooter(t, int64Parquet(t, 10, 5), func(md *format.FileMetaData) {
		md.RowGroups[1].NumRows++
		md.NumRows++
	})
	p := writeFile(t, dir, "group2.parquet", data)
	_, cols, _, err := pgRead(t, p, "parquet-go", 100)
	release(cols)
	if CodeOf(err) != CodeCorrupt || !strings.Contains(err.Error(), "row group 2:") {
		t.Errorf("second row group short of its rows: %v, want %s naming row group 2", err, CodeCorrupt)
	}
}

// TestParquetGoGroupRowsLimit: the reader decodes row groups of up to math.MaxInt32 rows
// (Arrow arrays are indexed by int32 offsets and bitmaps); a footer claiming exactly that
// many is checked against its pages (which hold 10), one more is refused by the row
// bound. The open-time bound (maxParquetGoGroupRows) is raised to let both through.
func TestParquetGoGroupRowsLimit(t *testing.T) {
	old := maxParquetGoGroupRows
	t.Cleanup(func() { maxParquetGoGroupRows = old })
	maxParquetGoGroupRows = math.MaxInt32 + 1
	orig := int64Parquet(t, 10, 10)
	dir := t.TempDir()
	for _, c := range []struct {
		rows int64
		want string
	}{{math.MaxInt32, "the pages hold 10 values, the row group 2147483647 rows"}, {math.MaxInt32 + 1, "row group of 2147483648 rows"}} {
		data := editFooter(t, orig, func(md *format.FileMetaData) { md.RowGroups[0].NumRows, md.NumRows = c.rows, c.rows })
		p := writeFile(t, dir, "big.parquet", data)
		_, cols, ev, err := pgRead(t, p, "parquet-go", 100)
		release(cols)
		if CodeOf(err) != CodeCorrupt || !strings.Contains(err.Error(), c.want) || !slices.Contains(ev.Choices, choiceReaderPQGo) {
			t.Errorf("%d rows claimed: %v, want %s with %q from the parquet-go reader", c.rows, err, CodeCorrupt, c.want)
		}
	}
}

// TestParquetEmptyAndAllExcluded, over both readers: a file of no rows is read COMPLETE
// with 0 rows expected (known); a file whose every column is excluded returns no batch,
// records CodeSchema first, and releases everything it allocated on Close.
func TestParquetEmptyAndAllExcluded(t *testing.T) {
	for _, mode := range []string{"pqarrow", "auto"} {
		t.Setenv(ParquetReaderEnv, mode)
		dir := t.TempDir()
		p := writeFile(t, dir, "empty.parquet", int64Parquet(t, 0, 10))
		_, cols, ev, err := pgRead(t, p, mode, 100)
		release(cols)
		if c := ev.Coverage; err != nil || c.Status != StatusComplete || !c.ExpectedKnown || c.Expected != 0 || c.Returned != 0 {
			t.Errorf("%s: empty file: %v, coverage %+v", mode, err, c)
		}

		mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
		p = writeFile(t, dir, "x.parquet", int64Parquet(t, 10, 5))
		src, err := Open(context.Background(), p, Options{Exclude: []string{"x"}, Allocator: mem})
		if err != nil {
			t.Fatalf("%s: %v", mode, err)
		}
		rec, err := src.Next(context.Background())
		if rec != nil || err != io.EOF {
			t.Errorf("%s: every column excluded: %v, %v; want io.EOF and no batch", mode, rec, err)
		}
		if c := src.Evidence().Coverage; c.Status == StatusComplete || len(c.Failures) == 0 || c.Failures[0].Code != CodeSchema {
			t.Errorf("%s: every column excluded: coverage %+v, want %s first, not COMPLETE", mode, c, CodeSchema)
		}
		if err := src.Close(); err != nil {
			t.Errorf("%s: close: %v", mode, err)
		}
		mem.AssertSize(t, 0)
	}
}

// fakePage is a parquet-go page with the counts, levels and values a test gives it
// (addPage calls only these methods).
type fakePage struct {
	parquet.Page
	n    int64
	defs []byte
	vals encoding.Values
	dict parquet.Dictionary
}

func (p fakePage) NumValues() int64               { return p.n }
func (p fakePage) DefinitionLevels() []byte       { return p.defs }
func (p fakePage) Data() encoding.Values          { return p.vals }
func (p fakePage) Dictionary() parquet.Dictionary { return p.dict }

// fakeDict is a dictionary whose page holds vals.
type fakeDict struct {
	parquet.Dictionary
	vals encoding.Values
}

func (d fakeDict) Page() parquet.Page { return fakePage{vals: d.vals} }

// TestAddPageCounts: a page of no values is accepted (and adds no row); a page may fill
// the row group's remaining rows exactly, not one row more.
func TestAddPageCounts(t *testing.T) {
	c := pgCol{kind: pgInt64}
	var b pgBuf
	b.reset(pgInt64, 3, 0)
	steps := []struct {
		vals []int64
		ok   bool
	}{{nil, true}, {[]int64{7, 8}, true}, {[]int64{9, 10}, false}, {[]int64{9}, true}, {nil, true}}
	for i, s := range steps {
		err := b.addPage(fakePage{n: int64(len(s.vals)), vals: encoding.Int64Values(s.vals)}, c, 3)
		if s.ok && err != nil {
			t.Fatalf("step %d: %v", i, err)
		}
		if !s.ok && (err == nil || !strings.Contains(err.Error(), "past the row group's 3 rows")) {
			t.Fatalf("step %d: a page of %d values with %d rows left: %v", i, len(s.vals), 3-b.rows, err)
		}
	}
	if b.rows != 3 || !slices.Equal(b.i64, []int64{7, 8, 9}) {
		t.Errorf("rows %d values %v, want 3 [7 8 9]", b.rows, b.i64)
	}
}

// TestAddPageDictionaryIndexes: a dictionary index must be below the dictionary's entry
// count (the last entry is readable; the count itself is refused), for fixed-width,
// byte-array and fixed-length decimal dictionaries of 2 entries.
func TestAddPageDictionaryIndexes(t *testing.T) {
	for _, c := range []struct {
		name string
		col  pgCol
		dict encoding.Values
	}{
		{"int64", pgCol{kind: pgInt64}, encoding.Int64Values([]int64{5, 6})},
		{"byte array", pgCol{kind: pgBytes}, encoding.ByteArrayValues([]byte("abc"), []uint32{0, 1, 3})},
		{"fixed", pgCol{kind: pgDecFixed, size: 4}, encoding.FixedLenByteArrayValues([]byte{0, 0, 0, 1, 0xff, 0xff, 0xff, 0xfe}, 4)},
	} {
		for _, idx := range []int32{1, 2} {
			var b pgBuf
			b.reset(c.col.kind, 1, 0)
			err := b.addPage(fakePage{n: 1, vals: encoding.Int32Values([]int32{idx}), dict: fakeDict{vals: c.dict}}, c.col, 1)
			if idx == 1 && err != nil {
				t.Errorf("%s: index 1 of 2 entries: %v", c.name, err)
			}
			if idx == 2 && (err == nil || !strings.Contains(err.Error(), "dictionary index 2 of 2 entries")) {
				t.Errorf("%s: index 2 of 2 entries: %v", c.name, err)
			}
		}
	}
}

// TestAddPageByteArrayOffsets: a page's byte-array offsets need not start at 0 (the
// values are data[offs[i]:offs[i+1]]), and an empty page may have no offsets at all.
func TestAddPageByteArrayOffsets(t *testing.T) {
	c := pgCol{kind: pgBytes}
	var b pgBuf
	b.reset(pgBytes, 3, 0)
	if err := b.addPage(fakePage{vals: encoding.ByteArrayValues(nil, nil)}, c, 3); err != nil {
		t.Fatalf("empty page without offsets: %v", err)
	}
	if err := b.addPage(fakePage{n: 2, vals: encoding.ByteArrayValues([]byte("xxabc"), []uint32{2, 3, 5})}, c, 3); err != nil {
		t.Fatal(err)
	}
	if err := b.addPage(fakePage{n: 1, vals: encoding.ByteArrayValues([]byte("zde"), []uint32{1, 3})}, c, 3); err != nil {
		t.Fatal(err)
	}
	if string(b.data) != "abcde" || !slices.Equal(b.offs, []int64{0, 1, 3, 5}) {
		t.Errorf("data %q offsets %v, want \"abcde\" [0 1 3 5]", b.data, b.offs)
	}
}

// TestCheckOffsets: offsets must not decrease and must end within the data (at its end
// at most); no offsets at all is an empty page.
func TestCheckOffsets(t *testing.T) {
	for _, c := range []struct {
		offs []uint32
		n    int
		ok   bool
	}{{nil, 0, true}, {[]uint32{0, 4}, 4, true}, {[]uint32{0, 5}, 4, false}, {[]uint32{0, 3, 2}, 4, false}, {[]uint32{5}, 4, false}} {
		err := checkOffsets(c.offs, c.n)
		if c.ok != (err == nil) {
			t.Errorf("checkOffsets(%v, %d) = %v", c.offs, c.n, err)
		}
	}
}

// TestPgBufArrayTwoGiB: a batch of a 32-bit-offset byte-array column may hold up to
// math.MaxInt32 bytes of values, measured from the batch's first offset; one byte more
// is refused (large_string/large_binary are the types for that). The 2 GiB of values
// are never written, so they stay virtual memory.
func TestPgBufArrayTwoGiB(t *testing.T) {
	if strconv.IntSize < 64 {
		t.Skip("a slice of 2 GiB + 1 bytes needs a 64-bit int")
	}
	twoGiB := int64(math.MaxInt32) + 1
	b := pgBuf{offs: []int64{0, 1 << 30, math.MaxInt32, twoGiB}, data: make([]byte, int(twoGiB))}
	pool := newGroupPool(1)
	g, err := pool.get(context.Background(), false, 1)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		lo, hi int
		ok     bool
	}{{0, 2, true}, {1, 2, true}, {1, 3, true}, {0, 3, false}} {
		a, err := b.array(g, arrow.BinaryTypes.String, pgBytes, c.lo, c.hi)
		if c.ok {
			if err != nil {
				t.Errorf("rows %d..%d (%d bytes): %v", c.lo, c.hi, b.offs[c.hi]-b.offs[c.lo], err)
				continue
			}
			s := a.(*array.String)
			if s.Len() != c.hi-c.lo || int64(s.ValueOffset(s.Len()-1)+len(s.Value(s.Len()-1))) != b.offs[c.hi]-b.offs[c.lo] {
				t.Errorf("rows %d..%d: offsets do not span the values", c.lo, c.hi)
			}
			a.Release()
		} else if err == nil || !strings.Contains(err.Error(), "more than 2 GiB") {
			t.Errorf("rows %d..%d (%d bytes): %v, want the 2 GiB refusal", c.lo, c.hi, b.offs[c.hi]-b.offs[c.lo], err)
		}
	}
	g.release()
}

// TestGroupMemReallocate: the allocator interface's Reallocate returns size bytes that
// begin with b's: within b's capacity b itself, past it a copy.
func TestGroupMemReallocate(t *testing.T) {
	var g groupMem
	b := []byte{1, 2, 3, 4}[:3:4]
	if got := g.Reallocate(4, b); len(got) != 4 || &got[0] != &b[0] || !bytes.Equal(got[:3], []byte{1, 2, 3}) {
		t.Errorf("within capacity: %v", got)
	}
	if got := g.Reallocate(6, b); len(got) != 6 || !bytes.Equal(got[:3], []byte{1, 2, 3}) {
		t.Errorf("past capacity: %v", got)
	}
	if got := g.Allocate(5); len(got) != 5 {
		t.Errorf("Allocate(5): %d bytes", len(got))
	}
}
