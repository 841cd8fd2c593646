package source

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/pipewhy/pipewhy/internal/decimaltext"
)

func schemaOf(fields ...arrow.Field) *arrow.Schema { return arrow.NewSchema(fields, nil) }

func fld(name string, dt arrow.DataType, nullable bool) arrow.Field {
	return arrow.Field{Name: name, Type: dt, Nullable: nullable}
}

func TestRegistryLifecycle(t *testing.T) {
	path := filepath.Join(t.TempDir(), "registry.json")
	r, err := OpenRegistry(path)
	if err != nil {
		t.Fatal(err)
	}
	const ns = "file:/data/orders.csv"
	i64, str := arrow.PrimitiveTypes.Int64, arrow.BinaryTypes.String
	a1, err := r.Assign(ns, schemaOf(fld("id", i64, false), fld("status", str, false), fld("amount", i64, true)))
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(a1.IDs, []uint64{1, 2, 3}) || !a1.First || len(a1.Changes) != 0 {
		t.Fatalf("first assignment %+v", a1)
	}
	if v := a1.Schema.Field(2).Metadata.Values()[a1.Schema.Field(2).Metadata.FindKey(MetaFieldID)]; v != "3" {
		t.Fatalf("field id metadata %q", v)
	}
	if err := r.Save(); err != nil {
		t.Fatal(err)
	}
	// Reopen: ids survive; same schema in another column order → same ids,
	// same identity, no changes.
	r, err = OpenRegistry(path)
	if err != nil {
		t.Fatal(err)
	}
	a2, err := r.Assign(ns, schemaOf(fld("amount", i64, true), fld("id", i64, false), fld("status", str, false)))
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(a2.IDs, []uint64{3, 1, 2}) || a2.First || len(a2.Changes) != 0 || a2.SchemaID != a1.SchemaID {
		t.Fatalf("second assignment %+v (first id %s)", a2, a1.SchemaID)
	}
	// Remove status, narrow amount (a physical change: its values are integers still),
	// add note.
	a3, err := r.Assign(ns, schemaOf(fld("id", i64, false), fld("amount", arrow.PrimitiveTypes.Int32, true), fld("note", str, true)))
	if err != nil {
		t.Fatal(err)
	}
	want := []Change{
		{Kind: ChangeRemoved, FieldID: 2, Name: "status", OldType: "utf8/0/false"},
		{Kind: ChangePhysical, FieldID: 3, Name: "amount", OldType: "int64/64/true", NewType: "int32/32/true",
			from: FieldType{Family: "int", Arrow: "int64", Width: 64, Nullable: true},
			to:   FieldType{Family: "int", Arrow: "int32", Width: 32, Nullable: true}},
		{Kind: ChangeAdded, FieldID: 4, Name: "note", NewType: "utf8/0/true"},
	}
	if !reflect.DeepEqual(a3.Changes, want) || !reflect.DeepEqual(a3.IDs, []uint64{1, 3, 4}) || a3.SchemaID == a1.SchemaID {
		t.Fatalf("changes %+v ids %v", a3.Changes, a3.IDs)
	}
	// A removed name that returns gets its old id back.
	a4, _ := r.Assign(ns, schemaOf(fld("id", i64, false), fld("amount", arrow.PrimitiveTypes.Int32, true), fld("note", str, true), fld("status", str, false)))
	if a4.IDs[3] != 2 || len(a4.Changes) != 1 || a4.Changes[0].Kind != ChangeAdded {
		t.Fatalf("re-added %+v", a4)
	}
	// Renames only through Rename.
	if err := r.Rename(ns, "note", "status"); CodeOf(err) != CodeRegistry {
		t.Fatalf("rename onto a used name: %v", err)
	}
	if err := r.Rename(ns, "nosuch", "x"); CodeOf(err) != CodeNotFound {
		t.Fatalf("rename unknown: %v", err)
	}
	if err := r.Rename("file:/other", "a", "b"); CodeOf(err) != CodeNotFound {
		t.Fatalf("rename in unknown namespace: %v", err)
	}
	if err := r.Rename(ns, "note", "comment"); err != nil {
		t.Fatal(err)
	}
	if err := r.Save(); err != nil {
		t.Fatal(err)
	}
	r, err = OpenRegistry(path)
	if err != nil {
		t.Fatal(err)
	}
	a5, err := r.Assign(ns, schemaOf(fld("id", i64, false), fld("amount", arrow.PrimitiveTypes.Int32, true), fld("comment", str, true), fld("status", str, false)))
	if err != nil {
		t.Fatal(err)
	}
	if a5.IDs[2] != 4 || !reflect.DeepEqual(a5.Changes, []Change{{Kind: ChangeRenamed, FieldID: 4, Name: "comment", OldName: "note"}}) {
		t.Fatalf("rename %+v", a5)
	}
	// A name not renamed is a new field: "note" now is unknown → new id 5.
	a6, _ := r.Assign(ns, schemaOf(fld("id", i64, false), fld("note", str, true)))
	if a6.IDs[1] != 5 {
		t.Fatalf("note after rename got id %d", a6.IDs[1])
	}
	// Namespaces are independent.
	b, _ := r.Assign("sqlite:/x.db#t", schemaOf(fld("note", str, true)))
	if b.IDs[0] != 1 {
		t.Fatalf("other namespace id %d", b.IDs[0])
	}
	if ids := r.FieldIDs(ns); ids["comment"] != 4 || ids["status"] != 2 || len(ids) != 5 {
		t.Fatalf("FieldIDs %v", ids)
	}
}

// A type change is retyped when the family of the values changes, and physical when only
// how they are stored changes (TypeChange: the rule compare's diff follows too).
func TestRegistryTypeChanges(t *testing.T) {
	r, err := OpenRegistry(filepath.Join(t.TempDir(), "registry.json"))
	if err != nil {
		t.Fatal(err)
	}
	const ns = "t"
	dec := &arrow.Decimal128Type{Precision: 3, Scale: 2}
	if _, err := r.Assign(ns, schemaOf(fld("a", arrow.PrimitiveTypes.Int64, true), fld("b", dec, true),
		fld("c", arrow.BinaryTypes.LargeString, true), fld("d", arrow.PrimitiveTypes.Int64, true))); err != nil {
		t.Fatal(err)
	}
	a, err := r.Assign(ns, schemaOf(fld("a", arrow.BinaryTypes.String, true), fld("b", decimaltext.New(), false),
		fld("c", arrow.BinaryTypes.String, true), fld("d", arrow.PrimitiveTypes.Int64, true)))
	if err != nil {
		t.Fatal(err)
	}
	type got struct {
		kind  ChangeKind
		name  string
		diffs string
	}
	want := []got{
		{ChangeRetyped, "a", "arrow int64 → utf8, width 64 → 0"},
		{ChangePhysical, "b", "arrow decimal128(3,2) → decimal_text, nullable → not null"},
		{ChangePhysical, "c", "arrow large_utf8 → utf8"},
	}
	var have []got
	for _, c := range a.Changes {
		have = append(have, got{c.Kind, c.Name, strings.Join(c.Differences(), ", ")})
	}
	if !reflect.DeepEqual(have, want) {
		t.Errorf("changes %+v, want %+v", have, want)
	}
}

func TestTypeChangeRule(t *testing.T) {
	base := FieldType{Family: "decimal", Arrow: "decimal128(3,2)", Source: "decimal(3,2)", Width: 0, Nullable: true}
	for _, c := range []struct {
		name string
		edit func(*FieldType)
		want ChangeKind
	}{
		{"same", func(*FieldType) {}, ""},
		{"family", func(f *FieldType) { f.Family = "float64" }, ChangeRetyped},
		{"family and arrow", func(f *FieldType) { f.Family, f.Arrow = "text", "utf8" }, ChangeRetyped},
		{"arrow", func(f *FieldType) { f.Arrow = "decimal_text" }, ChangePhysical},
		{"source", func(f *FieldType) { f.Source = "number" }, ChangePhysical},
		{"width", func(f *FieldType) { f.Width = 128 }, ChangePhysical},
		{"nullability", func(f *FieldType) { f.Nullable = false }, ChangePhysical},
	} {
		b := base
		c.edit(&b)
		if got := TypeChange(base, b); got != c.want {
			t.Errorf("%s: %q, want %q", c.name, got, c.want)
		}
	}
	for name, want := range map[string]string{"int32": "int", "uint64": "int", "float32": "float64", "large_utf8": "text",
		"large_binary": "bytes", "decimal256(40,2)": "decimal", "decimal_text": "decimal", "timestamp(us,UTC)": "timestamp",
		"date64": "date", "time64(ns)": "time", "duration(s)": "duration", `list<"element":int64>`: "nested",
		`map<"key":utf8 not null,"value":int64>`: "nested", "struct<>": "nested", "bool": "bool"} {
		if got, ok := ValueFamily(name); !ok || got != want {
			t.Errorf("ValueFamily(%q) = %q %v, want %q", name, got, ok, want)
		}
	}
	for _, name := range []string{"", "int", "decimal(3,2)", "utf8_view", "interval"} {
		if got, ok := ValueFamily(name); ok {
			t.Errorf("ValueFamily(%q) = %q, want none", name, got)
		}
	}
}

func TestRegistryRejects(t *testing.T) {
	r, _ := OpenRegistry(filepath.Join(t.TempDir(), "r.json"))
	i64 := arrow.PrimitiveTypes.Int64
	if _, err := r.Assign("ns", schemaOf(fld("a", i64, false), fld("a", i64, false))); CodeOf(err) != CodeRegistry {
		t.Fatalf("duplicate: %v", err)
	}
	if _, err := r.Assign("ns", schemaOf(fld("d", arrow.FixedWidthTypes.Float16, false))); CodeOf(err) != CodeUnsupported {
		t.Fatalf("unsupported: %v", err)
	}
	if _, err := r.Assign("", schemaOf(fld("a", i64, false))); CodeOf(err) != CodeRegistry {
		t.Fatalf("empty namespace: %v", err)
	}
	// A failed Assign changes nothing.
	if r.FieldIDs("ns") != nil {
		t.Fatalf("failed assign left state")
	}
	dir := t.TempDir()
	for name, body := range map[string]string{
		"garbage":     "not json",
		"version":     `{"format":"pipewhy.source-registry","version":2,"namespaces":{}}`,
		"unknown key": `{"format":"pipewhy.source-registry","version":1,"namespaces":{},"x":1}`,
		"id zero":     `{"format":"pipewhy.source-registry","version":1,"namespaces":{"n":{"next_id":"2","names":[{"id":"0","name":"a"}],"renames":[]}}}`,
		"id >= next":  `{"format":"pipewhy.source-registry","version":1,"namespaces":{"n":{"next_id":"2","names":[{"id":"2","name":"a"}],"renames":[]}}}`,
		"dup name":    `{"format":"pipewhy.source-registry","version":1,"namespaces":{"n":{"next_id":"3","names":[{"id":"1","name":"a"},{"id":"2","name":"a"}],"renames":[]}}}`,
		"trailing":    `{"format":"pipewhy.source-registry","version":1,"namespaces":{}} {}`,
	} {
		p := filepath.Join(dir, name+".json")
		os.WriteFile(p, []byte(body), 0o644)
		if _, err := OpenRegistry(p); CodeOf(err) != CodeRegistry {
			t.Errorf("%s: %v, want %s", name, err, CodeRegistry)
		}
	}
}

// TestSchemaDescriptorBytes checks the descriptor byte for byte against a
// layout written out by hand from the documentation.
func TestSchemaDescriptorBytes(t *testing.T) {
	f1 := setMeta(fld("é", arrow.PrimitiveTypes.Int32, true), MetaFieldID, "7")
	f0 := setMeta(fld("ab", arrow.BinaryTypes.String, false), MetaFieldID, "2")
	got, err := SchemaDescriptor(schemaOf(f1, f0))
	if err != nil {
		t.Fatal(err)
	}
	var want []byte
	want = append(want, "pipewhy.source-schema.v1\n"...)
	want = append(want, 2, 0, 0, 0, 0, 0, 0, 0) // field count
	// field id 2 first (sorted by id)
	want = append(want, 2, 0, 0, 0, 0, 0, 0, 0)
	want = append(want, 2, 0, 0, 0, 0, 0, 0, 0, 'a', 'b')
	want = append(want, 4, 0, 0, 0, 0, 0, 0, 0, 'u', 't', 'f', '8')
	want = append(want, 0, 0, 0, 0, 0, 0, 0, 0) // width
	want = append(want, 0)                      // not nullable
	// field id 7
	want = append(want, 7, 0, 0, 0, 0, 0, 0, 0)
	want = append(want, 2, 0, 0, 0, 0, 0, 0, 0, 0xc3, 0xa9)
	want = append(want, 5, 0, 0, 0, 0, 0, 0, 0, 'i', 'n', 't', '3', '2')
	want = append(want, 32, 0, 0, 0, 0, 0, 0, 0)
	want = append(want, 1)
	if !bytes.Equal(got, want) {
		t.Fatalf("descriptor\n got %x\nwant %x", got, want)
	}
	id, _ := SchemaIdentity(schemaOf(f1, f0))
	sum := sha256.Sum256(want)
	if id != hex.EncodeToString(sum[:]) {
		t.Fatalf("identity %s", id)
	}
	// A source width in metadata replaces the type's width.
	f2 := setMeta(f1, MetaSourceWidth, "16")
	d2, _ := SchemaDescriptor(schemaOf(f2, f0))
	if bytes.Equal(d2, want) {
		t.Fatalf("source width ignored")
	}
	if _, err := SchemaDescriptor(schemaOf(fld("x", arrow.PrimitiveTypes.Int64, true))); CodeOf(err) != CodeSchema {
		t.Fatalf("missing field id: %v", err)
	}
}

func TestRegistryAssignMatchesSchemaIdentity(t *testing.T) {
	r, _ := OpenRegistry(filepath.Join(t.TempDir(), "r.json"))
	a, err := r.Assign("ns", schemaOf(fld("x", arrow.PrimitiveTypes.Uint8, false), fld("y", &arrow.Decimal128Type{Precision: 12, Scale: 2}, true)))
	if err != nil {
		t.Fatal(err)
	}
	id, err := SchemaIdentity(a.Schema)
	if err != nil || id != a.SchemaID {
		t.Fatalf("SchemaIdentity %s, Assign %s, %v", id, a.SchemaID, err)
	}
}

func TestRegistrySaveLeavesNoTemp(t *testing.T) {
	dir := t.TempDir()
	r, _ := OpenRegistry(filepath.Join(dir, "r.json"))
	r.Assign("ns", schemaOf(fld("x", arrow.PrimitiveTypes.Int64, false)))
	if err := r.Save(); err != nil {
		t.Fatal(err)
	}
	ents, _ := os.ReadDir(dir)
	if len(ents) != 1 || ents[0].Name() != "r.json" {
		t.Fatalf("directory holds %v", ents)
	}
	// Saving into a missing directory fails visibly.
	r2, _ := OpenRegistry(filepath.Join(dir, "no", "r.json"))
	if err := r2.Save(); CodeOf(err) != CodeIO {
		t.Fatalf("save into missing dir: %v", err)
	}
}

// TestRegistrySaveSteps checks the crash-safe write sequence and that a
// failure at any step before the rename leaves the previous file intact
// and no temporary file behind.
func TestRegistrySaveSteps(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "r.json")
	r, _ := OpenRegistry(path)
	r.Assign("ns", schemaOf(fld("x", arrow.PrimitiveTypes.Int64, false)))
	var trace []string
	saveStep = func(s string) error { trace = append(trace, s); return nil }
	defer func() { saveStep = nil }()
	if err := r.Save(); err != nil {
		t.Fatal(err)
	}
	if want := []string{"create", "write", "fsync", "close", "rename", "fsync-dir"}; !reflect.DeepEqual(trace, want) {
		t.Fatalf("save steps %v, want %v", trace, want)
	}
	before, _ := os.ReadFile(path)
	r.Assign("ns", schemaOf(fld("x", arrow.PrimitiveTypes.Int64, false), fld("y", arrow.PrimitiveTypes.Int64, false)))
	for _, failAt := range []string{"create", "write", "fsync", "close", "rename", "fsync-dir"} {
		saveStep = func(s string) error {
			if s == failAt {
				return errors.New("injected")
			}
			return nil
		}
		err := r.Save()
		if CodeOf(err) != CodeIO {
			t.Fatalf("fail at %s: %v", failAt, err)
		}
		ents, _ := os.ReadDir(dir)
		if len(ents) != 1 {
			t.Fatalf("fail at %s: directory holds %v", failAt, ents)
		}
		now, _ := os.ReadFile(path)
		if failAt != "fsync-dir" && !bytes.Equal(now, before) {
			t.Fatalf("fail at %s: registry changed before the rename", failAt)
		}
		if failAt == "fsync-dir" {
			if bytes.Equal(now, before) {
				t.Fatalf("fail at fsync-dir: the rename had happened; the new file must be in place")
			}
			if _, err := OpenRegistry(path); err != nil {
				t.Fatalf("file after fsync-dir failure: %v", err)
			}
		}
	}
}

// TestNewRegistry: a registry in memory assigns the ids a new registry file does, and
// refuses to be saved.
func TestNewRegistry(t *testing.T) {
	sc := arrow.NewSchema([]arrow.Field{{Name: "b", Type: arrow.PrimitiveTypes.Int64}, {Name: "a", Type: arrow.BinaryTypes.String}}, nil)
	file, err := OpenRegistry(filepath.Join(t.TempDir(), "r.json"))
	if err != nil {
		t.Fatal(err)
	}
	mem := NewRegistry()
	want, err := file.Assign("ns", sc)
	if err != nil {
		t.Fatal(err)
	}
	got, err := mem.Assign("ns", sc)
	if err != nil || !slices.Equal(got.IDs, want.IDs) || got.SchemaID != want.SchemaID {
		t.Fatalf("in memory %+v %v, from a file %+v", got, err, want)
	}
	if err := mem.Save(); CodeOf(err) != CodeRegistry {
		t.Errorf("Save = %v, want %s", err, CodeRegistry)
	}
}
