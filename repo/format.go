package repo

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/pipewhy/pipewhy/arrays"
	"github.com/pipewhy/pipewhy/fingerprint"
	"github.com/pipewhy/pipewhy/normalize"
	"github.com/pipewhy/pipewhy/snapshot"
)

// Scan descriptor format identifiers (the "scan" array; docs/scan-format.md).
const (
	DescriptorFormat  = "pipewhy.scan"
	DescriptorVersion = 1
)

// Array keys of a scan snapshot that are not C1 table columns. C1 columns are stored
// under "<table>_<column>" (for example "observation_fingerprint_words").
const (
	KeyDescriptor   = "scan"          // uint8: the Descriptor as UTF-8 JSON
	KeyRecords      = "records"       // uint64: C3 Result.Records (stride 4, sorted)
	KeyKeyWords     = "key_words"     // uint64: key-projected C2 records, one per records entry
	KeyKeyOffsets   = "key_offsets"   // uint64: len(records)/4+1 offsets into key_words
	KeyValues       = "values"        // uint64: C3 Result.Values (stride 3)
	KeyValueOffsets = "value_offsets" // uint64: C3 Result.ValueOffsets
)

// Artifact kinds (artifact.kind_id) of a scan snapshot.
const (
	KindDataset uint8 = 0 // the scanned dataset, artifact 0, a root
	KindField   uint8 = 1 // one source column, artifact i (1-based schema position), parent 0
)

// Uint is a uint64 that JSON carries as a decimal string (exact in every JSON reader).
type Uint uint64

// MarshalJSON writes the decimal string.
func (u Uint) MarshalJSON() ([]byte, error) {
	return []byte(`"` + strconv.FormatUint(uint64(u), 10) + `"`), nil
}

// UnmarshalJSON reads a decimal string.
func (u *Uint) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return err
	}
	v, err := strconv.ParseUint(s, 10, 64)
	if err != nil || strconv.FormatUint(v, 10) != s {
		return fmt.Errorf("not a canonical uint64 decimal string")
	}
	*u = Uint(v)
	return nil
}

// Field is one source column as a scan saw it.
type Field struct {
	ID       Uint   `json:"id"`       // stable field id from the source registry
	Name     string `json:"name"`     // column name
	Type     string `json:"type"`     // C3 value type (fingerprint.ValueType): int, text, decimal, ...
	Source   string `json:"source"`   // the source's own type spelling (source.MetaSourceType)
	Arrow    string `json:"arrow"`    // Arrow type (source.TypeName spelling)
	Width    Uint   `json:"width"`    // source bit width of fixed-width numbers, else 0
	Nullable bool   `json:"nullable"` // the source column admits nulls
}

// Descriptor is the non-numeric part of a scan snapshot, stored as the "scan" array.
// Names (C1 artifact.name_id) resolve here: name 0 is Artifact, name i is Fields[i-1].Name.
type Descriptor struct {
	Format         string   `json:"format"`  // DescriptorFormat
	Version        int      `json:"version"` // DescriptorVersion
	Artifact       string   `json:"artifact"`
	Address        string   `json:"address"` // source address as given to scan
	Adapter        string   `json:"adapter"`
	Rows           Uint     `json:"rows"`
	KeyFields      []Uint   `json:"key_fields"` // ascending field ids; empty: the whole record is the key
	Fields         []Field  `json:"fields"`     // in source schema order
	SourceSchemaID string   `json:"source_schema_id"`
	Choices        []string `json:"choices"`
	Excluded       []string `json:"excluded"`
	ColumnStates   bool     `json:"column_states"` // observation rows 1..n hold per-field column states
}

// Scan is a decoded, validated scan snapshot. A loaded Scan's record and value slices
// share memory with the snapshot's arrays (no copy of hundreds of megabytes): treat
// them as read-only.
type Scan struct {
	Metadata     snapshot.Metadata
	Descriptor   Descriptor
	Context      fingerprint.Context
	State        fingerprint.State   // dataset state (observation row 0)
	Columns      []fingerprint.State // per Descriptor.Fields (nil without column states)
	Artifacts    *arrays.ArtifactTable
	Observations *arrays.ObservationTable

	// Record and value resolution.
	Records    []uint64 // [key_lo, key_hi, record_lo, record_hi]..., sorted
	KeyWords   []uint64
	KeyOffsets []uint64
	// Keys holds the key records instead of KeyWords and KeyOffsets (nil then) in a
	// scan observed with scan.Options.KeyStore: Key reads it, Arrays gathers it.
	Keys *fingerprint.KeyStore

	// Value resolution.
	Values       []uint64 // [field_id, value_lo, value_hi]...
	ValueOffsets []uint64
	ValueTable   *arrays.ValueTable // row j holds the C2 payload of Values entry j

	// Lineage is the lineage in force at scan time (nil when none was recorded).
	Lineage *ScanLineage

	missing Parts           // the parts of the snapshot's resolution not loaded (LoadParts)
	cx      *arrays.Context // the C1 id sets, to validate a value table loaded later
}

// Parts name the groups of a scan snapshot's arrays beyond its summary. The summary
// (descriptor, C1 artifact and observation tables, fingerprint context, dataset and
// column states) is small and always loaded; the parts hold per-record data, hundreds
// of megabytes for millions of records, and LoadParts reads only those asked for.
type Parts uint8

// The parts of a scan snapshot.
const (
	PartRecords Parts = 1 << iota // Records (record and value resolution)
	PartKeys                      // KeyWords and KeyOffsets (record and value resolution)
	PartValues                    // Values, ValueOffsets and ValueTable (value resolution)

	AllParts = PartRecords | PartKeys | PartValues
)

// resolutionParts are the parts a snapshot of resolution res holds.
func resolutionParts(res snapshot.Resolution) Parts {
	switch res {
	case snapshot.ResolutionRecord:
		return PartRecords | PartKeys
	case snapshot.ResolutionValue:
		return AllParts
	}
	return 0
}

// partOf is the part an array key belongs to; 0 for the summary's arrays.
func partOf(key string) Parts {
	switch {
	case key == KeyRecords:
		return PartRecords
	case key == KeyKeyWords || key == KeyKeyOffsets:
		return PartKeys
	case key == KeyValues || key == KeyValueOffsets || strings.HasPrefix(key, string(arrays.TableValue)+"_"):
		return PartValues
	}
	return 0
}

// Missing returns the parts of the snapshot's resolution that are not in memory: none
// for a scan from Load, Decode or package scan, the parts not asked for from LoadParts.
func (s *Scan) Missing() Parts { return s.missing }

// Len returns the number of record entries (record and value resolution).
func (s *Scan) Len() int { return len(s.Records) / fingerprint.RecordStride }

// Key returns the key-projected C2 record of entry i.
// It shares memory with the scan: it must not be modified.
func (s *Scan) Key(i int) []uint64 {
	if s.Keys != nil {
		return s.Keys.Key(i)
	}
	return s.KeyWords[s.KeyOffsets[i]:s.KeyOffsets[i+1]]
}

// FieldByID returns the field with id, and whether there is one.
func (s *Scan) FieldByID(id uint64) (Field, bool) {
	for _, f := range s.Descriptor.Fields {
		if uint64(f.ID) == id {
			return f, true
		}
	}
	return Field{}, false
}

// SchemaDescriptor returns the C3 schema descriptor of the scanned fields
// (RenameKeepsIdentity: names do not take part in the fingerprint schema identity).
func (d *Descriptor) SchemaDescriptor() fingerprint.SchemaDescriptor {
	sd := fingerprint.SchemaDescriptor{RenamePolicy: fingerprint.RenameKeepsIdentity}
	for _, f := range d.Fields {
		sd.Fields = append(sd.Fields, fingerprint.SchemaField{ID: uint64(f.ID), Name: f.Name,
			Type: fingerprint.ValueType(f.Type), Source: f.Source})
	}
	return sd
}

// Identities are the local ids of a scan's observation rows: policy 0 is the profile,
// algorithm 0 the algorithm, snapshot 0 the snapshot itself.
func Identities(c fingerprint.Context) fingerprint.Identities {
	return fingerprint.Identities{
		Algorithms: map[uint64]string{0: c.Algorithm().ID()},
		Policies:   map[uint64]string{0: c.ProfileID()},
	}
}

// Arrays returns the named arrays of s for snapshot.Publish. s.Metadata, s.State and
// s.Columns are not used: the observation table already carries the states. The arrays
// share memory with s.Records, s.KeyWords, s.KeyOffsets, s.Values, s.ValueOffsets and the
// columns of the C1 tables (hundreds of megabytes at record and value resolution): those
// must not be modified while the arrays are in use. Keys, when set, is first gathered
// into KeyWords and KeyOffsets (fingerprint.KeyStore.Gather) and dropped.
func (s *Scan) Arrays() (map[string]snapshot.Array, error) {
	if s.Keys != nil {
		s.KeyWords, s.KeyOffsets = s.Keys.Gather()
		s.Keys = nil
	}
	desc := s.Descriptor
	desc.Format, desc.Version = DescriptorFormat, DescriptorVersion
	js, err := json.Marshal(desc)
	if err != nil {
		return nil, &Error{Code: CodeFormat, Op: "encode", Msg: "cannot encode descriptor", Err: err}
	}
	out := map[string]snapshot.Array{KeyDescriptor: snapshot.FromUint8(js)}
	if s.Lineage != nil {
		if out[KeyLineage], err = encodeScanLineage(s.Lineage); err != nil {
			return nil, err
		}
	}
	tables := []arrays.Table{s.Artifacts, s.Observations}
	if s.Records != nil {
		out[KeyRecords] = snapshot.WrapUint64(s.Records)
		out[KeyKeyWords] = snapshot.WrapUint64(s.KeyWords)
		out[KeyKeyOffsets] = snapshot.WrapUint64(s.KeyOffsets)
	}
	if s.Values != nil {
		out[KeyValues] = snapshot.WrapUint64(s.Values)
		out[KeyValueOffsets] = snapshot.WrapUint64(s.ValueOffsets)
		tables = append(tables, s.ValueTable)
	}
	if err := TableArrays(out, tables...); err != nil {
		return nil, err
	}
	return out, nil
}

// Load opens snapshot id of the repository and decodes and validates it as a scan
// snapshot: the descriptor, the C1 tables (validated with their contexts), the
// fingerprint context (rebuilt from the metadata and the descriptor, its identity
// checked), the dataset and column states, and the shapes of the record and value
// arrays. Anything wrong is CodeFormat; nothing is trusted unchecked.
func (r *Repo) Load(id snapshot.ID) (*Scan, error) { return r.LoadParts(id, AllParts, nil) }

// LoadWithProgress is Load reporting the snapshot's bytes read to fn (snapshot.StepRead).
func (r *Repo) LoadWithProgress(id snapshot.ID, fn snapshot.ProgressFunc) (*Scan, error) {
	return r.LoadParts(id, AllParts, fn)
}

// LoadParts is LoadWithProgress reading, of the per-record arrays, only those of parts:
// a diff of two snapshots whose dataset states are equal needs none of them. The arrays
// not read are not checksummed either (snapshot.Store.OpenArrays); Missing names them,
// and LoadMore reads them when they are needed. A nil fn reports nothing.
func (r *Repo) LoadParts(id snapshot.ID, parts Parts, fn snapshot.ProgressFunc) (*Scan, error) {
	var keep func(string) bool
	if parts&AllParts != AllParts {
		keep = func(k string) bool { p := partOf(k); return p == 0 || p&parts != 0 }
	}
	snap, err := r.store.OpenArrays(id, keep, fn)
	if err != nil {
		return nil, &Error{Code: CodeFormat, Op: "load", Path: r.store.Path(id), Msg: "cannot open snapshot", Err: err}
	}
	s, err := decode(snap, parts)
	return s, r.withPath(err, id)
}

// LoadMore reads the parts of s that it lacks (s came from LoadParts of this
// repository), validated as Load validates them, reporting the bytes read to fn
// (nil: nothing).
func (r *Repo) LoadMore(s *Scan, parts Parts, fn snapshot.ProgressFunc) error {
	parts &= s.missing
	if parts == 0 {
		return nil
	}
	id := s.Metadata.ID
	snap, err := r.store.OpenArrays(id, func(k string) bool { return partOf(k)&parts != 0 }, fn)
	if err != nil {
		return &Error{Code: CodeFormat, Op: "load", Path: r.store.Path(id), Msg: "cannot open snapshot", Err: err}
	}
	if snap.Metadata.Fingerprint != s.Metadata.Fingerprint || snap.Metadata.Resolution != s.Metadata.Resolution {
		return &Error{Code: CodeFormat, Op: "load", Path: r.store.Path(id), Msg: "the snapshot read again is not the one loaded"}
	}
	return r.withPath(s.decodeParts(snap, parts), id)
}

// withPath sets the snapshot's path on a CodeFormat error that has none.
func (r *Repo) withPath(err error, id snapshot.ID) error {
	if e, ok := err.(*Error); ok && e.Path == "" {
		e.Path = r.store.Path(id)
	}
	return err
}

// Decode decodes and validates an opened snapshot as a scan snapshot (see Load).
func Decode(snap *snapshot.Snapshot) (*Scan, error) { return decode(snap, AllParts) }

// decode is Decode of the summary and of the parts of snapshot's resolution that parts
// names; snap holds at least those arrays.
func decode(snap *snapshot.Snapshot, parts Parts) (*Scan, error) {
	bad := func(msg string, err error) error {
		return &Error{Code: CodeFormat, Op: "load", Msg: msg, Err: err}
	}
	s := &Scan{Metadata: snap.Metadata}
	js, err := getU8(snap, KeyDescriptor)
	if err != nil {
		return nil, bad("not a scan snapshot (no descriptor)", err)
	}
	dec := json.NewDecoder(bytes.NewReader(js))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&s.Descriptor); err != nil {
		return nil, bad("malformed descriptor", err)
	}
	d := &s.Descriptor
	if d.Format != DescriptorFormat || d.Version != DescriptorVersion {
		return nil, bad("unsupported descriptor format or version", nil)
	}
	fieldIDs := make([]uint64, 0, len(d.Fields))
	for _, f := range d.Fields {
		fieldIDs = append(fieldIDs, uint64(f.ID))
	}
	// Context.
	fc := snap.Metadata.Fingerprint
	alg, err := fingerprint.ParseAlgorithm(fc.AlgorithmID)
	if err != nil {
		return nil, bad("unknown fingerprint algorithm", err)
	}
	mode, err := fingerprint.ParseMode(fc.Mode)
	if err != nil {
		return nil, bad("unknown fingerprint mode", err)
	}
	ctx, err := fingerprint.NewContext(alg, fc.ProfileID, d.SchemaDescriptor(), mode)
	if err != nil {
		return nil, bad("invalid fingerprint context", err)
	}
	if ctx.ID() != fc.ContextID || ctx.SchemaID() != fc.SourceSchemaID {
		return nil, bad("fingerprint context identity does not match the descriptor", nil)
	}
	s.Context = ctx
	// C1 tables.
	at, err := decodeTable(snap, arrays.TableArtifact)
	if err != nil {
		return nil, err
	}
	ot, err := decodeTable(snap, arrays.TableObservation)
	if err != nil {
		return nil, err
	}
	s.Artifacts = at.(*arrays.ArtifactTable)
	s.Observations = ot.(*arrays.ObservationTable)
	names := make([]uint64, len(d.Fields)+1)
	for i := range names {
		names[i] = uint64(i)
	}
	types := make([]uint64, normalize.Timestamp+1) // C2 v1 type codes 0..9
	if ctx.Extended() {
		types = make([]uint64, normalize.Nested+1) // and the extension codes 10..14
	}
	for i := range types {
		types[i] = uint64(i)
	}
	cx := &arrays.Context{
		Names: mustSet(names...), Kinds: mustSet(uint64(KindDataset), uint64(KindField)),
		Fields: mustSet(fieldIDs...), Types: mustSet(types...),
		Snapshots: mustSet(0), Policies: mustSet(0), Algorithms: mustSet(0),
	}
	if err := s.Artifacts.Validate(cx); err != nil {
		return nil, bad("artifact table", err)
	}
	if s.Artifacts.Len() != len(d.Fields)+1 {
		return nil, bad("artifact table does not hold the dataset and one artifact per field", nil)
	}
	if err := s.Observations.Validate(cx, s.Artifacts); err != nil {
		return nil, bad("observation table", err)
	}
	want := 1
	if d.ColumnStates {
		want += len(d.Fields)
	}
	if s.Observations.Len() != want {
		return nil, bad("observation table row count", nil)
	}
	ids := Identities(ctx)
	if s.State, err = fingerprint.ObservationState(s.Observations, 0, ctx, ids, fc.ContextID); err != nil {
		return nil, bad("dataset state", err)
	}
	if s.Observations.ArtifactID[0] != 0 {
		return nil, bad("observation 0 is not the dataset's", nil)
	}
	if d.ColumnStates {
		for i := range d.Fields {
			if s.Observations.ArtifactID[i+1] != uint64(i+1) {
				return nil, bad("column observation order", nil)
			}
			st, err := fingerprint.ObservationState(s.Observations, i+1, ctx, ids, fc.ContextID)
			if err != nil {
				return nil, bad("column state", err)
			}
			s.Columns = append(s.Columns, st)
		}
	}
	if s.State.Count() != uint64(d.Rows) {
		return nil, bad("dataset state count differs from the descriptor's rows", nil)
	}
	s.cx = cx
	s.missing = resolutionParts(snap.Metadata.Resolution)
	if err := s.decodeParts(snap, parts); err != nil {
		return nil, err
	}
	if s.Lineage, err = decodeScanLineage(snap); err != nil {
		return nil, err
	}
	return s, nil
}

// decodeParts decodes and validates the parts of snap that s misses and parts names.
func (s *Scan) decodeParts(snap *snapshot.Snapshot, parts Parts) error {
	parts &= s.missing
	if parts&PartRecords != 0 {
		if err := s.decodeRecords(snap); err != nil {
			return err
		}
	}
	if parts&PartKeys != 0 {
		if err := s.decodeKeys(snap); err != nil {
			return err
		}
	}
	if parts&PartValues != 0 {
		if err := s.decodeValues(snap, s.cx); err != nil {
			return err
		}
	}
	s.missing &^= parts
	return nil
}

func (s *Scan) decodeRecords(snap *snapshot.Snapshot) error {
	bad := func(msg string, err error) error {
		return &Error{Code: CodeFormat, Op: "load", Msg: msg, Err: err}
	}
	var err error
	if s.Records, err = getU64(snap, KeyRecords); err != nil {
		return bad("records", err)
	}
	n := len(s.Records) / fingerprint.RecordStride
	if len(s.Records)%fingerprint.RecordStride != 0 || uint64(n) != uint64(s.Descriptor.Rows) {
		return bad("records length does not match the row count", nil)
	}
	for i := 1; i < n; i++ {
		if compareEntry(s.Records[(i-1)*4:i*4], s.Records[i*4:i*4+4]) > 0 {
			return bad("records are not sorted", nil)
		}
	}
	return nil
}

func (s *Scan) decodeKeys(snap *snapshot.Snapshot) error {
	bad := func(msg string, err error) error {
		return &Error{Code: CodeFormat, Op: "load", Msg: msg, Err: err}
	}
	var err error
	if s.KeyWords, err = getU64(snap, KeyKeyWords); err != nil {
		return bad("key words", err)
	}
	if s.KeyOffsets, err = getU64(snap, KeyKeyOffsets); err != nil {
		return bad("key offsets", err)
	}
	// One offset per record and one more; n is taken from the array, never from the
	// descriptor's uint64, so it cannot overflow.
	n := len(s.KeyOffsets) - 1
	if n < 0 || uint64(n) != uint64(s.Descriptor.Rows) || s.KeyOffsets[0] != 0 || s.KeyOffsets[n] != uint64(len(s.KeyWords)) {
		return bad("key offsets do not tile the key words", nil)
	}
	for i := 0; i < n; i++ {
		if s.KeyOffsets[i] > s.KeyOffsets[i+1] {
			return bad("key offsets decrease", nil)
		}
		if err := validateKey(s.Context, s.Key(i)); err != nil {
			return bad("key record "+strconv.Itoa(i), err)
		}
	}
	return nil
}

func (s *Scan) decodeValues(snap *snapshot.Snapshot, cx *arrays.Context) error {
	bad := func(msg string, err error) error {
		return &Error{Code: CodeFormat, Op: "load", Msg: msg, Err: err}
	}
	var err error
	if s.Values, err = getU64(snap, KeyValues); err != nil {
		return bad("values", err)
	}
	if s.ValueOffsets, err = getU64(snap, KeyValueOffsets); err != nil {
		return bad("value offsets", err)
	}
	vt, err := decodeTable(snap, arrays.TableValue)
	if err != nil {
		return err
	}
	s.ValueTable = vt.(*arrays.ValueTable)
	if err := s.ValueTable.Validate(cx, s.Artifacts); err != nil {
		return bad("value table", err)
	}
	n := len(s.ValueOffsets) - 1 // as in decodeKeys
	m := len(s.Values) / fingerprint.ValueStride
	if len(s.Values)%fingerprint.ValueStride != 0 || n < 0 || uint64(n) != uint64(s.Descriptor.Rows) ||
		s.ValueOffsets[0] != 0 || s.ValueOffsets[n] != uint64(m) || s.ValueTable.Len() != m {
		return bad("value arrays do not match the records", nil)
	}
	for i := 0; i < n; i++ {
		lo, hi := s.ValueOffsets[i], s.ValueOffsets[i+1]
		if lo > hi {
			return bad("value offsets decrease", nil)
		}
		for j := lo; j < hi; j++ {
			if j > lo && s.Values[j*3] <= s.Values[(j-1)*3] {
				return bad("value fields not ascending", nil)
			}
			if s.ValueTable.FieldID[j] != s.Values[j*3] {
				return bad("value table row does not match its value digest entry", nil)
			}
		}
	}
	return nil
}

// compareEntry orders two record entries by their four words.
func compareEntry(a, b []uint64) int {
	for k := 0; k < 4; k++ {
		if a[k] != b[k] {
			if a[k] < b[k] {
				return -1
			}
			return 1
		}
	}
	return 0
}

func mustSet(ids ...uint64) arrays.IDSet {
	s, err := arrays.NewIDSet(ids...)
	if err != nil {
		panic(err) // only called with ids below Absent
	}
	return s
}

func decodeTable(snap *snapshot.Snapshot, kind arrays.TableKind) (arrays.Table, error) {
	specs, err := arrays.Schema(kind)
	if err != nil {
		return nil, &Error{Code: CodeFormat, Op: "load", Msg: "C1 schema", Err: err}
	}
	fr := arrays.Frame{Version: arrays.SchemaVersion, Table: kind, Columns: map[string]*arrays.View{}}
	for _, c := range specs {
		a, ok := snap.Arrays[string(kind)+"_"+c.Name]
		if !ok {
			return nil, &Error{Code: CodeFormat, Op: "load", Msg: "missing C1 column " + string(kind) + "." + c.Name}
		}
		dt, err := arrays.ParseDType(a.DType().String())
		if err != nil {
			return nil, &Error{Code: CodeFormat, Op: "load", Msg: "C1 column dtype", Err: err}
		}
		v, err := arrays.FromBytes(a.Bytes(), dt, arrays.Options{ReadOnly: true})
		if err != nil {
			return nil, &Error{Code: CodeFormat, Op: "load", Msg: "C1 column " + c.Name, Err: err}
		}
		fr.Columns[c.Name] = v
	}
	t, err := arrays.Decode(fr)
	if err != nil {
		return nil, &Error{Code: CodeFormat, Op: "load", Msg: "C1 table " + string(kind), Err: err}
	}
	return t, nil
}

func getU8(snap *snapshot.Snapshot, key string) ([]uint8, error) {
	a, ok := snap.Arrays[key]
	if !ok {
		return nil, fmt.Errorf("array %s missing", key)
	}
	return a.Uint8s()
}

func getU64(snap *snapshot.Snapshot, key string) ([]uint64, error) {
	a, ok := snap.Arrays[key]
	if !ok {
		return nil, fmt.Errorf("array %s missing", key)
	}
	return a.Uint64sView()
}

// FieldsSorted returns the descriptor's fields in ascending id order.
func (d *Descriptor) FieldsSorted() []Field {
	fs := append([]Field(nil), d.Fields...)
	sort.Slice(fs, func(i, j int) bool { return fs[i].ID < fs[j].ID })
	return fs
}

// validateKey is the C2 frame validation of a stored key record under the scan's
// profile: the extension type codes only under an extension profile.
func validateKey(c fingerprint.Context, rec []uint64) error {
	if c.Extended() {
		return normalize.ValidateRecordWordsIn(rec, normalize.StrictV1Ext1)
	}
	return normalize.ValidateRecordWords(rec)
}
