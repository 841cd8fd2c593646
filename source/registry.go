package source

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strconv"

	"github.com/apache/arrow-go/v18/arrow"
)

// Registry file format identifiers; they never change for version 1.
const (
	RegistryFormat  = "pipewhy.source-registry"
	RegistryVersion = 1
	// SchemaDescriptorTag starts every schema identity descriptor.
	SchemaDescriptorTag = "pipewhy.source-schema.v1\n"
)

// ChangeKind classifies a schema change.
type ChangeKind string

// Schema change kinds.
const (
	ChangeAdded    ChangeKind = "added"
	ChangeRemoved  ChangeKind = "removed"
	ChangeRetyped  ChangeKind = "retyped"  // the values' family (C3 value type) changed
	ChangePhysical ChangeKind = "physical" // only the Arrow type, width or nullability changed
	ChangeRenamed  ChangeKind = "renamed"  // only through Registry.Rename
)

// Change is one difference between the schema last assigned in a namespace
// and the one being assigned now.
type Change struct {
	Kind    ChangeKind `json:"kind"`
	FieldID uint64     `json:"field_id,string"`
	Name    string     `json:"name"`               // the current name (the old one for removed fields)
	OldName string     `json:"old_name,omitempty"` // renamed
	OldType string     `json:"old_type,omitempty"` // retyped, physical, removed: "type/width/nullable"
	NewType string     `json:"new_type,omitempty"` // retyped, physical, added

	from, to FieldType // retyped, physical
}

// Differences names what changed in a retyped or physical change, as
// FieldType.Differences phrases it ("arrow int64 → int32", "nullable → not null").
func (c Change) Differences() []string { return c.from.Differences(c.to) }

// Assignment is the result of Registry.Assign.
type Assignment struct {
	IDs      []uint64      // field id per schema field, in schema order
	Schema   *arrow.Schema // the input schema with MetaFieldID on every field
	SchemaID string        // SchemaIdentity(Schema)
	Changes  []Change      // sorted by field id; empty for the first scan and for no change
	First    bool          // no schema was recorded for the namespace before
}

type regFile struct {
	Format     string               `json:"format"`
	Version    int                  `json:"version"`
	Namespaces map[string]*regSpace `json:"namespaces"`
}

type regSpace struct {
	NextID  uint64      `json:"next_id,string"`
	Names   []regName   `json:"names"`             // every name with an id, sorted by id
	Renames []regRename `json:"renames"`           // in the order they were requested
	Current *regSchema  `json:"current,omitempty"` // the schema last assigned
}

type regName struct {
	ID   uint64 `json:"id,string"`
	Name string `json:"name"`
}

type regRename struct {
	ID      uint64 `json:"id,string"`
	From    string `json:"from"`
	To      string `json:"to"`
	Applied bool   `json:"applied"` // reported by an Assign since
}

type regSchema struct {
	SchemaID string   `json:"schema_id"`
	Fields   []regCol `json:"fields"` // in schema order
}

type regCol struct {
	ID       uint64 `json:"id,string"`
	Name     string `json:"name"`
	Type     string `json:"type"`
	Width    uint64 `json:"width,string"`
	Nullable bool   `json:"nullable"`
}

func (c regCol) typeString() string {
	return fmt.Sprintf("%s/%d/%t", c.Type, c.Width, c.Nullable)
}

// fieldType is what the registry records of the column's type. A spelling ValueFamily
// does not know (a hand-edited file) is its own family, so it never hides a retyping.
func (c regCol) fieldType() FieldType {
	f, ok := ValueFamily(c.Type)
	if !ok {
		f = "?" + c.Type
	}
	return FieldType{Family: f, Arrow: c.Type, Width: c.Width, Nullable: c.Nullable}
}

// Registry assigns stable field ids per source namespace and keeps them in
// a JSON file (OpenRegistry), or in memory only (NewRegistry). It is not safe
// for concurrent use, and two processes must not update one file at the same
// time.
type Registry struct {
	path string // "" for a registry in memory
	f    regFile
}

// NewRegistry returns an empty registry that lives in memory only: it assigns
// ids as a registry file does, and Save fails. It gives ids to schemas that are
// never stored, such as those of a live comparison (package compare).
func NewRegistry() *Registry {
	return &Registry{f: regFile{Format: RegistryFormat, Version: RegistryVersion, Namespaces: map[string]*regSpace{}}}
}

// OpenRegistry loads the registry at path; a missing file is an empty
// registry. The file is validated completely before use.
func OpenRegistry(path string) (*Registry, error) {
	r := NewRegistry()
	r.path = path
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return r, nil
	}
	if err != nil {
		return nil, &Error{Code: CodeIO, Op: "registry open", Source: path, Err: err}
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	var f regFile
	if err := dec.Decode(&f); err != nil {
		return nil, &Error{Code: CodeRegistry, Op: "registry open", Source: path, Msg: "malformed JSON", Err: err}
	}
	if dec.More() {
		return nil, &Error{Code: CodeRegistry, Op: "registry open", Source: path, Msg: "text after the JSON object"}
	}
	if err := f.validate(); err != nil {
		return nil, &Error{Code: CodeRegistry, Op: "registry open", Source: path, Msg: err.Error()}
	}
	r.f = f
	return r, nil
}

func (f *regFile) validate() error {
	if f.Format != RegistryFormat || f.Version != RegistryVersion {
		return errors.New("unsupported format or version")
	}
	if f.Namespaces == nil {
		return errors.New("namespaces missing")
	}
	for ns, s := range f.Namespaces {
		if s == nil || !validName(ns) {
			return fmt.Errorf("namespace entry invalid")
		}
		ids := map[uint64]string{}
		names := map[string]bool{}
		for i, n := range s.Names {
			if n.ID == 0 || n.ID >= s.NextID || n.ID == math.MaxUint64 || !validName(n.Name) {
				return fmt.Errorf("namespace %q: field id or name invalid", ns)
			}
			if _, dup := ids[n.ID]; dup || names[n.Name] {
				return fmt.Errorf("namespace %q: duplicate field id or name", ns)
			}
			if i > 0 && s.Names[i-1].ID > n.ID {
				return fmt.Errorf("namespace %q: names not sorted by id", ns)
			}
			ids[n.ID], names[n.Name] = n.Name, true
		}
		for _, rn := range s.Renames {
			if _, ok := ids[rn.ID]; !ok || !validName(rn.From) || !validName(rn.To) {
				return fmt.Errorf("namespace %q: rename invalid", ns)
			}
		}
		if s.Current != nil {
			seen := map[uint64]bool{}
			for _, c := range s.Current.Fields {
				if _, ok := ids[c.ID]; !ok || seen[c.ID] || !validName(c.Name) {
					return fmt.Errorf("namespace %q: current schema names an unknown or repeated field id", ns)
				}
				seen[c.ID] = true
			}
		}
	}
	return nil
}

// Assign gives every field of schema its stable id in namespace (the same
// name keeps the same id across scans; a new name gets the next unused id,
// starting at 1) and reports the changes since the last assignment. It
// updates the registry in memory; call Save to persist.
func (r *Registry) Assign(namespace string, schema *arrow.Schema) (*Assignment, error) {
	return r.AssignPreferring(namespace, schema, nil)
}

// AssignPreferring is Assign where a name the namespace has never seen takes the id
// prefer gives it, when the namespace has never used that id (else the next unused id,
// as Assign). Names the namespace knows keep their ids whatever prefer says, so existing
// snapshots stay valid. A COPY edge uses it to give the copy the field ids of its source
// (package lineage), which makes their fingerprints comparable by construction.
func (r *Registry) AssignPreferring(namespace string, schema *arrow.Schema, prefer map[string]uint64) (*Assignment, error) {
	bad := func(d string) error {
		return &Error{Code: CodeRegistry, Op: "registry assign", Source: namespace, Msg: d}
	}
	if !validName(namespace) {
		return nil, bad("namespace is empty or not UTF-8")
	}
	s := r.f.Namespaces[namespace]
	if s == nil {
		s = &regSpace{NextID: 1}
	}
	byName := map[string]uint64{}
	used := map[uint64]bool{}
	for _, n := range s.Names {
		byName[n.Name] = n.ID
		used[n.ID] = true
	}
	var cols []regCol
	seen := map[string]bool{}
	nextID := s.NextID
	var added []regName
	fields := make([]arrow.Field, schema.NumFields())
	ids := make([]uint64, schema.NumFields())
	for i, f := range schema.Fields() {
		if !validName(f.Name) {
			return nil, bad(fmt.Sprintf("field %d has an empty or non-UTF-8 name", i+1))
		}
		if seen[f.Name] {
			return nil, bad(fmt.Sprintf("field %q appears twice", f.Name))
		}
		seen[f.Name] = true
		tn, ok := TypeName(f.Type)
		if !ok {
			return nil, &Error{Code: CodeUnsupported, Op: "registry assign", Source: namespace, Msg: fmt.Sprintf("field %q has an unsupported type", f.Name)}
		}
		id, ok := byName[f.Name]
		if !ok {
			if p, want := prefer[f.Name]; want && p != 0 && p != math.MaxUint64 && !used[p] {
				id = p
				if id >= nextID {
					nextID = id + 1
				}
			} else {
				// Every used id is below nextID (validate checks it of a file; a preferred
				// id at or past nextID moves nextID past it), so nextID is unused.
				if nextID == math.MaxUint64 {
					return nil, bad("field ids exhausted")
				}
				id = nextID
				nextID++
			}
			used[id] = true
			added = append(added, regName{ID: id, Name: f.Name})
			byName[f.Name] = id
		}
		w := uint64(typeWidth(f.Type))
		if j := f.Metadata.FindKey(MetaSourceWidth); j >= 0 {
			v, err := strconv.ParseUint(f.Metadata.Values()[j], 10, 16)
			if err != nil {
				return nil, bad(fmt.Sprintf("field %q has a malformed %s", f.Name, MetaSourceWidth))
			}
			w = v
		}
		cols = append(cols, regCol{ID: id, Name: f.Name, Type: tn, Width: w, Nullable: f.Nullable})
		ids[i] = id
		fields[i] = setMeta(f, MetaFieldID, strconv.FormatUint(id, 10))
	}
	out := arrow.NewSchema(fields, nil)
	sid := identity(cols)
	a := &Assignment{IDs: ids, Schema: out, SchemaID: sid, First: s.Current == nil}
	if s.Current != nil {
		a.Changes = diffSchemas(s.Current.Fields, cols)
	}
	// Commit to memory only after every check passed.
	s.NextID = nextID
	s.Names = append(s.Names, added...)
	sort.Slice(s.Names, func(i, j int) bool { return s.Names[i].ID < s.Names[j].ID })
	for i := range s.Renames {
		s.Renames[i].Applied = true
	}
	s.Current = &regSchema{SchemaID: sid, Fields: cols}
	r.f.Namespaces[namespace] = s
	return a, nil
}

func diffSchemas(old, cur []regCol) []Change {
	o := map[uint64]regCol{}
	for _, c := range old {
		o[c.ID] = c
	}
	n := map[uint64]regCol{}
	for _, c := range cur {
		n[c.ID] = c
	}
	var ch []Change
	for _, c := range cur {
		p, ok := o[c.ID]
		if !ok {
			ch = append(ch, Change{Kind: ChangeAdded, FieldID: c.ID, Name: c.Name, NewType: c.typeString()})
			continue
		}
		if p.Name != c.Name {
			ch = append(ch, Change{Kind: ChangeRenamed, FieldID: c.ID, Name: c.Name, OldName: p.Name})
		}
		if k := TypeChange(p.fieldType(), c.fieldType()); k != "" {
			ch = append(ch, Change{Kind: k, FieldID: c.ID, Name: c.Name, OldType: p.typeString(), NewType: c.typeString(),
				from: p.fieldType(), to: c.fieldType()})
		}
	}
	for _, p := range old {
		if _, ok := n[p.ID]; !ok {
			ch = append(ch, Change{Kind: ChangeRemoved, FieldID: p.ID, Name: p.Name, OldType: p.typeString()})
		}
	}
	sort.SliceStable(ch, func(i, j int) bool { return ch[i].FieldID < ch[j].FieldID })
	return ch
}

// Rename records that column from is now called to in namespace: the field
// keeps its id, and the next Assign reports a renamed change. It is the only
// way a field id survives a name change. to must not be a name the
// namespace has ever used.
func (r *Registry) Rename(namespace, from, to string) error {
	bad := func(code Code, d string) error {
		return &Error{Code: code, Op: "registry rename", Source: namespace, Msg: d}
	}
	s := r.f.Namespaces[namespace]
	if s == nil {
		return bad(CodeNotFound, "unknown namespace")
	}
	if !validName(to) {
		return bad(CodeRegistry, "new name is empty or not UTF-8")
	}
	at := -1
	for i, n := range s.Names {
		if n.Name == to {
			return bad(CodeRegistry, fmt.Sprintf("name %q already has a field id", to))
		}
		if n.Name == from {
			at = i
		}
	}
	if at < 0 {
		return bad(CodeNotFound, fmt.Sprintf("no field named %q", from))
	}
	s.Names[at].Name = to
	s.Renames = append(s.Renames, regRename{ID: s.Names[at].ID, From: from, To: to})
	return nil
}

// FieldIDs returns the name → id map of a namespace (nil if unknown).
func (r *Registry) FieldIDs(namespace string) map[string]uint64 {
	s := r.f.Namespaces[namespace]
	if s == nil {
		return nil
	}
	m := make(map[string]uint64, len(s.Names))
	for _, n := range s.Names {
		m[n.Name] = n.ID
	}
	return m
}

// Save writes the registry crash-safely: a temporary file in the same
// directory is written, fsynced and closed, renamed over the target, and
// the directory is fsynced. A reader sees the old or the new file, never a
// mix.
func (r *Registry) Save() error {
	if r.path == "" {
		return &Error{Code: CodeRegistry, Op: "registry save", Msg: "the registry lives in memory only (NewRegistry)"}
	}
	b, err := json.MarshalIndent(&r.f, "", "  ")
	if err != nil {
		return &Error{Code: CodeRegistry, Op: "registry save", Source: r.path, Err: err}
	}
	b = append(b, '\n')
	return writeFileAtomic(r.path, b)
}

// saveStep, when set (tests only), is called before each step of
// writeFileAtomic; an error it returns fails that step.
var saveStep func(step string) error

func step(name string) error {
	if saveStep != nil {
		return saveStep(name)
	}
	return nil
}

// writeFileAtomic performs: create temp, write, fsync, close, rename,
// fsync directory. Before the rename the target is untouched and the
// temporary file is removed on failure.
func writeFileAtomic(path string, b []byte) (err error) {
	ioErr := func(d string, e error) error {
		return &Error{Code: CodeIO, Op: "registry save", Source: path, Msg: d, Err: e}
	}
	dir := filepath.Dir(path)
	if err := step("create"); err != nil {
		return ioErr("create temporary file", err)
	}
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		return ioErr("create temporary file", err)
	}
	renamed := false
	defer func() {
		if err != nil && !renamed {
			tmp.Close()
			_ = os.Remove(tmp.Name()) // the write error is the one to report
		}
	}()
	if err := step("write"); err != nil {
		return ioErr("write", err)
	}
	if _, err := tmp.Write(b); err != nil {
		return ioErr("write", err)
	}
	if err := step("fsync"); err != nil {
		return ioErr("fsync file", err)
	}
	if err := tmp.Sync(); err != nil {
		return ioErr("fsync file", err)
	}
	if err := step("close"); err != nil {
		return ioErr("close", err)
	}
	if err := tmp.Close(); err != nil {
		return ioErr("close", err)
	}
	if err := step("rename"); err != nil {
		return ioErr("rename", err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return ioErr("rename", err)
	}
	renamed = true
	// After the rename the new file is visible; a directory fsync failure
	// leaves its durability uncertain, and is reported as such.
	if err := step("fsync-dir"); err != nil {
		return ioErr("fsync directory (the new registry is in place but may not be durable)", err)
	}
	d, err := os.Open(dir)
	if err != nil {
		return ioErr("open directory (the new registry is in place but may not be durable)", err)
	}
	defer d.Close()
	if err := d.Sync(); err != nil {
		return ioErr("fsync directory (the new registry is in place but may not be durable)", err)
	}
	return nil
}

func setMeta(f arrow.Field, key, val string) arrow.Field {
	keys := append([]string(nil), f.Metadata.Keys()...)
	vals := append([]string(nil), f.Metadata.Values()...)
	if j := f.Metadata.FindKey(key); j >= 0 {
		vals[j] = val
	} else {
		keys, vals = append(keys, key), append(vals, val)
	}
	f.Metadata = arrow.NewMetadata(keys, vals)
	return f
}

// SchemaDescriptor returns the fixed byte descriptor whose SHA-256 is the
// schema identity. Every field must carry MetaFieldID. Layout (integers
// little-endian uint64):
//
//	"pipewhy.source-schema.v1\n"
//	field_count
//	per field, in increasing field id order:
//	  field_id
//	  len(name), name (UTF-8)
//	  len(type), type (TypeName spelling)
//	  width (MetaSourceWidth, else the Arrow type's bit width, else 0)
//	  nullable (0 or 1)
func SchemaDescriptor(schema *arrow.Schema) ([]byte, error) {
	cols := make([]regCol, 0, schema.NumFields())
	seen := map[uint64]bool{}
	for _, f := range schema.Fields() {
		j := f.Metadata.FindKey(MetaFieldID)
		if j < 0 {
			return nil, &Error{Code: CodeSchema, Op: "schema descriptor", Msg: fmt.Sprintf("field %q has no field id", f.Name)}
		}
		id, err := strconv.ParseUint(f.Metadata.Values()[j], 10, 64)
		if err != nil || id == math.MaxUint64 || seen[id] {
			return nil, &Error{Code: CodeSchema, Op: "schema descriptor", Msg: fmt.Sprintf("field %q has an invalid or duplicate field id", f.Name)}
		}
		seen[id] = true
		tn, ok := TypeName(f.Type)
		if !ok {
			return nil, &Error{Code: CodeUnsupported, Op: "schema descriptor", Msg: fmt.Sprintf("field %q has an unsupported type", f.Name)}
		}
		w := uint64(typeWidth(f.Type))
		if k := f.Metadata.FindKey(MetaSourceWidth); k >= 0 {
			if w, err = strconv.ParseUint(f.Metadata.Values()[k], 10, 16); err != nil {
				return nil, &Error{Code: CodeSchema, Op: "schema descriptor", Msg: fmt.Sprintf("field %q has a malformed width", f.Name)}
			}
		}
		cols = append(cols, regCol{ID: id, Name: f.Name, Type: tn, Width: w, Nullable: f.Nullable})
	}
	return descriptor(cols), nil
}

func descriptor(cols []regCol) []byte {
	cs := append([]regCol(nil), cols...)
	sort.Slice(cs, func(i, j int) bool { return cs[i].ID < cs[j].ID })
	b := []byte(SchemaDescriptorTag)
	b = binary.LittleEndian.AppendUint64(b, uint64(len(cs)))
	for _, c := range cs {
		b = binary.LittleEndian.AppendUint64(b, c.ID)
		b = binary.LittleEndian.AppendUint64(b, uint64(len(c.Name)))
		b = append(b, c.Name...)
		b = binary.LittleEndian.AppendUint64(b, uint64(len(c.Type)))
		b = append(b, c.Type...)
		b = binary.LittleEndian.AppendUint64(b, c.Width)
		if c.Nullable {
			b = append(b, 1)
		} else {
			b = append(b, 0)
		}
	}
	return b
}

func identity(cols []regCol) string {
	sum := sha256.Sum256(descriptor(cols))
	return hex.EncodeToString(sum[:])
}

// SchemaIdentity is the lowercase hex SHA-256 of SchemaDescriptor(schema).
func SchemaIdentity(schema *arrow.Schema) (string, error) {
	d, err := SchemaDescriptor(schema)
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256(d)
	return hex.EncodeToString(sum[:]), nil
}
