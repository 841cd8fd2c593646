package snapshot

import (
	"encoding/hex"
	"strconv"
)

// Format constants. They must never change for format version 1.
const (
	FormatName         = "pipewhy.snapshot"        // manifest "format"
	FormatVersion      = 1                         // manifest "version"
	FormatVersion2     = 2                         // manifest "version" of C5-compressed (PW-C5Z.01)
	ArraySchemaVersion = "1.0"                     // manifest "array_schema_version": C1 schema 1.0
	IntentFormatName   = "pipewhy.snapshot.intent" // intent.json "format"
	Endianness         = "little"                  // the only stored byte order

	manifestName = "manifest.json"
	markerName   = "complete.sha256"
	intentName   = "intent.json"
)

// entry describes one stored array in the manifest.
type entry struct {
	File       string
	DType      DType
	Count      uint64
	ByteLength uint64
	SHA256     [32]byte // of the logical bytes (count × width, little-endian)

	// Version 2 (C5-compressed) only: the payload's encoding and the exact size and
	// SHA-256 of its file. A version 1 entry has Encoding "" and stores the logical
	// bytes, so its stored length and hash are ByteLength and SHA256.
	Encoding     string
	StoredLength uint64
	StoredSHA256 [32]byte
}

// stored returns the size and SHA-256 of the entry's file.
func (e entry) stored() (uint64, [32]byte) {
	if e.Encoding == "" {
		return e.ByteLength, e.SHA256
	}
	return e.StoredLength, e.StoredSHA256
}

// zstd reports whether the file holds zstd-blocks rather than the logical bytes.
func (e entry) zstd() bool { return e.Encoding == EncodingZstd }

type manifest struct {
	Version int // FormatVersion (0 means it) or FormatVersion2
	Meta    Metadata
	Entries map[string]entry
}

func (m *manifest) version() int { return max(m.Version, FormatVersion) }

func (m *manifest) tree() *jvalue {
	md := &m.Meta
	parent := jnull()
	if md.Parent != nil {
		parent = jstr(md.Parent.String())
	}
	expected := jnull()
	if md.Coverage.Expected.Known {
		expected = jdec(md.Coverage.Expected.N)
	}
	reasons := make([]*jvalue, len(md.Coverage.FailureReasons))
	for i, r := range md.Coverage.FailureReasons {
		reasons[i] = jstr(r)
	}
	fp := &md.Fingerprint
	arrays := make(map[string]*jvalue, len(m.Entries))
	for k, e := range m.Entries {
		o := map[string]*jvalue{
			"file":        jstr(e.File),
			"dtype":       jstr(e.DType.String()),
			"count":       jdec(e.Count),
			"byte_length": jdec(e.ByteLength),
			"endianness":  jstr(Endianness),
			"sha256":      jstr(hex.EncodeToString(e.SHA256[:])),
		}
		if m.version() == FormatVersion2 {
			o["encoding"] = jstr(e.Encoding)
			o["stored_length"] = jdec(e.StoredLength)
			o["stored_sha256"] = jstr(hex.EncodeToString(e.StoredSHA256[:]))
		}
		arrays[k] = jobj(o)
	}
	return jobj(map[string]*jvalue{
		"format":               jstr(FormatName),
		"version":              jint(uint64(m.version())),
		"array_schema_version": jstr(ArraySchemaVersion),
		"snapshot": jobj(map[string]*jvalue{
			"snapshot_id":        jstr(md.ID.String()),
			"parent_id":          parent,
			"source_namespace":   jstr(md.SourceNamespace),
			"source_version":     jstr(md.SourceVersion),
			"source_consistency": jstr(md.SourceConsistency),
			"scope":              jstr(md.Scope),
			"started_at_ns":      jdec(md.StartedAtNs),
			"finished_at_ns":     jdec(md.FinishedAtNs),
			"resolution":         jstr(string(md.Resolution)),
			"coverage": jobj(map[string]*jvalue{
				"status":           jstr(string(md.Coverage.Status)),
				"expected_records": expected,
				"returned_records": jdec(md.Coverage.Returned),
				"failure_reasons":  jarr(reasons),
			}),
			"fingerprint_context": jobj(map[string]*jvalue{
				"algorithm_name":   jstr(fp.AlgorithmName),
				"algorithm_id":     jstr(fp.AlgorithmID),
				"context_id":       jstr(fp.ContextID),
				"profile_id":       jstr(fp.ProfileID),
				"source_schema_id": jstr(fp.SourceSchemaID),
				"mode":             jstr(fp.Mode),
			}),
		}),
		"arrays": jobj(arrays),
	})
}

// encode returns the canonical manifest bytes (no trailing newline).
func (m *manifest) encode() []byte { return appendJSON(nil, m.tree()) }

// decodeManifest parses and validates manifest bytes: strict JSON, exact field sets,
// types without coercion, supported versions, valid metadata and entries, and canonical
// form (the bytes must equal the canonical encoding of what they decode to).
func decodeManifest(data []byte) (*manifest, error) {
	root, err := parseJSON(data)
	if err != nil {
		return nil, manErr("", "malformed JSON", err)
	}
	d := decoder{}
	top := d.object(root, "", "format", "version", "array_schema_version", "snapshot", "arrays")
	if d.err != nil {
		return nil, d.err
	}
	// Version checks precede everything else.
	if f := d.str(top["format"], "format"); d.err == nil && f != FormatName {
		return nil, unsupported("format", "format is not "+strconv.Quote(FormatName))
	}
	if d.err != nil {
		return nil, d.err
	}
	if v := top["version"]; v.kind != jNumber {
		return nil, manErr("version", "version must be an integer, not a "+v.kind.String(), nil)
	} else if !isDecimal(v.str) {
		return nil, manErr("version", "version must be an integer literal", nil)
	} else if v.str != "1" && v.str != "2" {
		return nil, unsupported("version", "unsupported format version")
	}
	version := FormatVersion
	if top["version"].str == "2" {
		version = FormatVersion2
	}
	if s := d.str(top["array_schema_version"], "array_schema_version"); d.err == nil && s != ArraySchemaVersion {
		return nil, unsupported("array_schema_version", "unsupported array schema version")
	}
	if d.err != nil {
		return nil, d.err
	}

	m := &manifest{Version: version, Entries: map[string]entry{}}
	md := &m.Meta
	sn := d.object(top["snapshot"], "snapshot", "snapshot_id", "parent_id", "source_namespace",
		"source_version", "source_consistency", "scope", "started_at_ns", "finished_at_ns",
		"resolution", "coverage", "fingerprint_context")
	if d.err != nil {
		return nil, d.err
	}
	md.ID = d.id(sn["snapshot_id"], "snapshot.snapshot_id")
	if p := sn["parent_id"]; p.kind != jNull {
		id := d.id(p, "snapshot.parent_id")
		md.Parent = &id
	}
	md.SourceNamespace = d.str(sn["source_namespace"], "snapshot.source_namespace")
	md.SourceVersion = d.str(sn["source_version"], "snapshot.source_version")
	md.SourceConsistency = d.str(sn["source_consistency"], "snapshot.source_consistency")
	md.Scope = d.str(sn["scope"], "snapshot.scope")
	md.StartedAtNs = d.u64(sn["started_at_ns"], "snapshot.started_at_ns")
	md.FinishedAtNs = d.u64(sn["finished_at_ns"], "snapshot.finished_at_ns")
	md.Resolution = Resolution(d.str(sn["resolution"], "snapshot.resolution"))
	cov := d.object(sn["coverage"], "snapshot.coverage", "status", "expected_records", "returned_records", "failure_reasons")
	if d.err != nil {
		return nil, d.err
	}
	md.Coverage.Status = CoverageStatus(d.str(cov["status"], "snapshot.coverage.status"))
	if e := cov["expected_records"]; e.kind != jNull {
		md.Coverage.Expected = Known(d.u64(e, "snapshot.coverage.expected_records"))
	}
	md.Coverage.Returned = d.u64(cov["returned_records"], "snapshot.coverage.returned_records")
	if fr := cov["failure_reasons"]; fr.kind != jArray {
		d.fail("snapshot.coverage.failure_reasons", "must be an array, not a "+fr.kind.String())
	} else {
		md.Coverage.FailureReasons = make([]string, 0, len(fr.arr))
		for _, r := range fr.arr {
			md.Coverage.FailureReasons = append(md.Coverage.FailureReasons, d.str(r, "snapshot.coverage.failure_reasons"))
		}
	}
	fc := d.object(sn["fingerprint_context"], "snapshot.fingerprint_context", "algorithm_name", "algorithm_id",
		"context_id", "profile_id", "source_schema_id", "mode")
	if d.err != nil {
		return nil, d.err
	}
	md.Fingerprint = FingerprintContext{
		AlgorithmName:  d.str(fc["algorithm_name"], "snapshot.fingerprint_context.algorithm_name"),
		AlgorithmID:    d.str(fc["algorithm_id"], "snapshot.fingerprint_context.algorithm_id"),
		ContextID:      d.str(fc["context_id"], "snapshot.fingerprint_context.context_id"),
		ProfileID:      d.str(fc["profile_id"], "snapshot.fingerprint_context.profile_id"),
		SourceSchemaID: d.str(fc["source_schema_id"], "snapshot.fingerprint_context.source_schema_id"),
		Mode:           d.str(fc["mode"], "snapshot.fingerprint_context.mode"),
	}
	if d.err != nil {
		return nil, d.err
	}
	if err := md.Validate(); err != nil {
		if e, ok := err.(*Error); ok {
			e.Op = "decode manifest"
		}
		return nil, err
	}

	arrays := top["arrays"]
	if arrays.kind != jObject {
		return nil, manErr("arrays", "must be an object, not a "+arrays.kind.String(), nil)
	}
	for key, v := range arrays.obj {
		if !ValidKey(key) {
			return nil, manErr("arrays", "array key does not match [a-z][a-z0-9_]{0,63}", nil)
		}
		f := "arrays." + key
		fields := []string{"file", "dtype", "count", "byte_length", "endianness", "sha256"}
		if version == FormatVersion2 {
			fields = append(fields, "encoding", "stored_length", "stored_sha256")
		}
		o := d.object(v, f, fields...)
		if d.err != nil {
			return nil, d.err
		}
		var e entry
		if e.File = d.str(o["file"], f+".file"); d.err == nil && e.File != arrayFile(key) {
			return nil, manErr(f+".file", "file is not array-<key>.bin", nil)
		}
		ds := d.str(o["dtype"], f+".dtype")
		en := d.str(o["endianness"], f+".endianness")
		e.Count = d.u64(o["count"], f+".count")
		e.ByteLength = d.u64(o["byte_length"], f+".byte_length")
		sum := d.str(o["sha256"], f+".sha256")
		if d.err != nil {
			return nil, d.err
		}
		dt, err := ParseDType(ds)
		if err != nil {
			return nil, unsupported(f+".dtype", "unsupported dtype")
		}
		e.DType = dt
		if en != Endianness {
			return nil, unsupported(f+".endianness", "endianness is not little")
		}
		if e.Count > (1<<64-1)/uint64(dt.Width()) || e.Count*uint64(dt.Width()) != e.ByteLength {
			return nil, manErr(f+".byte_length", "byte_length is not count * dtype width", nil)
		}
		if !isLowerHex(sum, 64) {
			return nil, manErr(f+".sha256", "sha256 is not 64 lowercase hexadecimal characters", nil)
		}
		_, _ = hex.Decode(e.SHA256[:], []byte(sum)) // 64 lowercase hex digits, checked above
		if version == FormatVersion2 {
			if err := d.storedFields(o, f, &e); err != nil {
				return nil, err
			}
		}
		m.Entries[key] = e
	}
	if string(appendJSON(make([]byte, 0, len(data)), m.tree())) != string(data) { // m.encode(), sized
		return nil, manErr("", "manifest is not in canonical form", nil)
	}
	return m, nil
}

// storedFields reads the version 2 fields of an array entry (PW-C5Z.02).
func (d *decoder) storedFields(o map[string]*jvalue, f string, e *entry) error {
	e.Encoding = d.str(o["encoding"], f+".encoding")
	e.StoredLength = d.u64(o["stored_length"], f+".stored_length")
	sum := d.str(o["stored_sha256"], f+".stored_sha256")
	if d.err != nil {
		return d.err
	}
	if e.Encoding != EncodingRaw && e.Encoding != EncodingZstd {
		return unsupported(f+".encoding", "unsupported payload encoding")
	}
	if !isLowerHex(sum, 64) {
		return manErr(f+".stored_sha256", "stored_sha256 is not 64 lowercase hexadecimal characters", nil)
	}
	_, _ = hex.Decode(e.StoredSHA256[:], []byte(sum)) // 64 lowercase hex digits, checked above
	if e.Encoding == EncodingRaw && (e.StoredLength != e.ByteLength || e.StoredSHA256 != e.SHA256) {
		return manErr(f+".stored_length", "a raw payload's stored length and SHA-256 differ from its logical ones", nil)
	}
	return nil
}

// decoder accumulates the first error of a sequence of typed field reads.
type decoder struct{ err error }

func (d *decoder) fail(field, msg string) {
	if d.err == nil {
		d.err = manErr(field, msg, nil)
	}
}

// object checks that v is an object with exactly the given fields.
func (d *decoder) object(v *jvalue, field string, names ...string) map[string]*jvalue {
	if d.err != nil {
		return nil
	}
	if v.kind != jObject {
		d.fail(field, "must be an object, not a "+v.kind.String())
		return nil
	}
	for _, n := range names {
		if _, ok := v.obj[n]; !ok {
			d.fail(join(field, n), "required field is missing")
			return nil
		}
	}
	if len(v.obj) != len(names) {
		for k := range v.obj {
			known := false
			for _, n := range names {
				known = known || k == n
			}
			if !known {
				d.fail(field, "unknown field "+strconv.Quote(k))
				return nil
			}
		}
	}
	return v.obj
}

func (d *decoder) str(v *jvalue, field string) string {
	if d.err != nil {
		return ""
	}
	if v.kind != jString {
		d.fail(field, "must be a string, not a "+v.kind.String())
		return ""
	}
	return v.str
}

// u64 reads a uint64 stored as a decimal string without sign or leading zeros.
func (d *decoder) u64(v *jvalue, field string) uint64 {
	s := d.str(v, field)
	if d.err != nil {
		return 0
	}
	n, err := strconv.ParseUint(s, 10, 64)
	if err != nil || !isDecimal(s) {
		d.fail(field, "must be a uint64 as a decimal string without sign or leading zeros")
		return 0
	}
	return n
}

func (d *decoder) id(v *jvalue, field string) ID {
	s := d.str(v, field)
	if d.err != nil {
		return ID{}
	}
	id, err := ParseID(s)
	if err != nil {
		d.fail(field, "must be 32 lowercase hexadecimal characters")
	}
	return id
}

// isDecimal reports whether s is 0 or digits without a leading zero.
func isDecimal(s string) bool {
	if s == "" || (len(s) > 1 && s[0] == '0') {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

func join(a, b string) string {
	if a == "" {
		return b
	}
	return a + "." + b
}

func manErr(field, msg string, err error) error {
	return &Error{Code: CodeInvalidManifest, Op: "decode manifest", Field: field, Msg: msg, Err: err}
}

func unsupported(field, msg string) error {
	return &Error{Code: CodeUnsupported, Op: "decode manifest", Field: field, Msg: msg}
}

// encodeIntent returns the canonical intent.json bytes naming id.
func encodeIntent(id ID) []byte {
	return appendJSON(nil, jobj(map[string]*jvalue{
		"format":      jstr(IntentFormatName),
		"version":     jint(FormatVersion),
		"snapshot_id": jstr(id.String()),
	}))
}

// decodeIntent parses intent.json strictly.
func decodeIntent(data []byte) (ID, error) {
	root, err := parseJSON(data)
	if err != nil {
		return ID{}, &Error{Code: CodeInvalidManifest, Op: "decode intent", Msg: "malformed JSON", Err: err}
	}
	d := decoder{}
	o := d.object(root, "", "format", "version", "snapshot_id")
	f := d.str(o["format"], "format")
	id := d.id(o["snapshot_id"], "snapshot_id")
	if d.err == nil && (f != IntentFormatName || o["version"].kind != jNumber || o["version"].str != "1") {
		d.fail("", "not a version 1 pipewhy.snapshot.intent")
	}
	if d.err == nil && string(encodeIntent(id)) != string(data) {
		d.fail("", "intent is not in canonical form")
	}
	if d.err != nil {
		d.err.(*Error).Op = "decode intent"
		return ID{}, d.err
	}
	return id, nil
}
