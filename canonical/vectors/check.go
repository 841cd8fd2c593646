package vectors

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/pipewhy/pipewhy/canonical"
)

// Result is the outcome of one vector.
type Result struct {
	ID       string
	Negative bool
	Err      error          // nil when the vector passed
	Got      canonical.Code // negative vectors: the code that was returned
}

// Passed reports whether the vector passed.
func (r Result) Passed() bool { return r.Err == nil }

// Checker checks vectors. Mem, when set, allocates every Arrow array (tests pass a
// memory.CheckedAllocator to prove nothing leaks).
type Checker struct {
	Mem memory.Allocator
	// Options, when set, are the owning-registry declarations of every source case,
	// whatever the file declares. When nil, a vector uses its own metadata_registry, else
	// the file's, else its domain's default (canonical.DefaultOptions).
	Options *canonical.Options
}

func (c *Checker) mem() memory.Allocator {
	if c.Mem == nil {
		return memory.NewGoAllocator()
	}
	return c.Mem
}

// CheckFile checks every positive and negative vector of f, in file order.
func (c *Checker) CheckFile(f *File) []Result {
	var out []Result
	for _, v := range f.Vectors {
		out = append(out, Result{ID: v.ID, Err: c.CheckVector(f, v)})
	}
	for _, n := range f.NegativeVectors {
		got, err := c.CheckNegative(f, n)
		out = append(out, Result{ID: n.ID, Negative: true, Got: got, Err: err})
	}
	return out
}

// options returns the declarations for a vector of domain d: Checker.Options, else the
// vector's registry, else the file's, else the domain's default.
func (c *Checker) options(d canonical.Domain, file, vector *canonical.MetadataRegistry) *canonical.Options {
	switch {
	case c.Options != nil:
		return c.Options
	case vector != nil:
		return &canonical.Options{Metadata: *vector}
	case file != nil:
		return &canonical.Options{Metadata: *file}
	}
	return canonical.DefaultOptions(d)
}

// Payload builds a source case and returns its canonical payload: schema bytes for kind
// "schema", table bytes for kind "table". With sliced, the table's columns are slices.
// The declarations are Checker.Options, else those of graphforge/arrow-result's default
// registry.
func (c *Checker) Payload(raw json.RawMessage, sliced bool) ([]byte, error) {
	src, err := ParseSource(raw)
	if err != nil {
		return nil, err
	}
	return c.payload(src, sliced, c.options(canonical.DomainArrowResult, nil, nil))
}

func (c *Checker) payload(src *Source, sliced bool, opts *canonical.Options) ([]byte, error) {
	enc, err := canonical.NewEncoder(src.Schema, opts)
	if err != nil {
		return nil, err
	}
	if src.Kind == "schema" {
		return bytes.Clone(enc.SchemaBytes()), nil
	}
	recs, err := src.Build(c.mem(), sliced)
	if err != nil {
		return nil, err
	}
	defer release(recs)
	return enc.AppendTable(nil, canonical.Records(recs...))
}

// streamed fingerprints a table source case with the streaming path.
func (c *Checker) streamed(src *Source, d canonical.Domain, opts *canonical.Options) (canonical.Fingerprint, error) {
	enc, err := canonical.NewEncoder(src.Schema, opts)
	if err != nil {
		return canonical.Fingerprint{}, err
	}
	recs, err := src.Build(c.mem(), false)
	if err != nil {
		return canonical.Fingerprint{}, err
	}
	defer release(recs)
	return enc.Fingerprint(d, canonical.Records(recs...))
}

func release(recs []arrow.RecordBatch) {
	for _, r := range recs {
		r.Release()
	}
}

// CheckVector checks one positive vector: for each source case (plain, and for tables
// also with sliced columns) the payload bytes first, then the rebuilt envelope, the
// SHA-256 (materialised and streamed) and the UUIDv8.
func (c *Checker) CheckVector(f *File, v Vector) error {
	if f.CanonicalContractVersion != int64(canonical.Version) || v.CanonicalVersion != int64(canonical.Version) {
		return fmt.Errorf("canonical version %d (file %d), this checker implements %d", v.CanonicalVersion, f.CanonicalContractVersion, canonical.Version)
	}
	d, err := canonical.ParseDomain(v.Domain)
	if err != nil {
		return fmt.Errorf("domain: %w", err)
	}
	want, err := hex.DecodeString(v.CanonicalPayloadHex)
	if err != nil {
		return fmt.Errorf("canonical_payload_hex: %w", err)
	}
	if len(v.SourceCases) == 0 {
		return fmt.Errorf("no source cases")
	}
	opts := c.options(d, f.MetadataRegistry, v.MetadataRegistry)
	for i, raw := range v.SourceCases {
		src, err := ParseSource(raw)
		if err != nil {
			return fmt.Errorf("source case %d: %w", i, err)
		}
		variants := []bool{false}
		if src.Kind == "table" {
			variants = append(variants, true)
		}
		for _, sliced := range variants {
			got, err := c.payload(src, sliced, opts)
			if err != nil {
				return fmt.Errorf("source case %d%s: %w", i, slicedWord(sliced), err)
			}
			if !bytes.Equal(got, want) {
				return fmt.Errorf("source case %d%s: payload differs at byte %d (got %d bytes, want %d)",
					i, slicedWord(sliced), firstDiff(got, want), len(got), len(want))
			}
		}
		if src.Kind == "table" {
			fp, err := c.streamed(src, d, opts)
			if err != nil {
				return fmt.Errorf("source case %d streamed: %w", i, err)
			}
			if fp.Hex() != v.SHA256 {
				return fmt.Errorf("source case %d: streamed sha256 %s, want %s", i, fp.Hex(), v.SHA256)
			}
		}
	}
	pre, err := canonical.AppendPreimage(nil, d, canonical.Version, want)
	if err != nil {
		return err
	}
	if v.FingerprintPreimageHex != hex.EncodeToString(pre) {
		wantPre, _ := hex.DecodeString(v.FingerprintPreimageHex)
		return fmt.Errorf("rebuilt preimage differs at byte %d", firstDiff(pre, wantPre))
	}
	fp, err := canonical.Sum(d, canonical.Version, want)
	if err != nil {
		return err
	}
	if fp.Hex() != v.SHA256 {
		return fmt.Errorf("sha256 %s, want %s", fp.Hex(), v.SHA256)
	}
	if v.UUIDv8 != "" && fp.UUID().String() != v.UUIDv8 {
		return fmt.Errorf("uuid_v8 %s, want %s", fp.UUID(), v.UUIDv8)
	}
	return nil
}

func slicedWord(sliced bool) string {
	if sliced {
		return " (sliced)"
	}
	return ""
}

func firstDiff(a, b []byte) int {
	n := min(len(a), len(b))
	for i := 0; i < n; i++ {
		if a[i] != b[i] {
			return i
		}
	}
	return n
}

// CheckNegative runs a negative vector of file f and returns the code it produced; the
// error is nil when that code conforms.
func (c *Checker) CheckNegative(f *File, n Negative) (canonical.Code, error) {
	err := c.runNegative(f, n)
	if err == nil {
		return "", fmt.Errorf("no error, want %s", n.Error)
	}
	got := canonical.CodeOf(err)
	if got == "" {
		return "", fmt.Errorf("error without a code (want %s): %v", n.Error, err)
	}
	if string(got) == n.Error {
		return got, nil
	}
	for _, a := range n.AcceptableErrors {
		if string(got) == a {
			return got, nil
		}
	}
	if n.ErrorNormative != nil && !*n.ErrorNormative && strings.HasPrefix(string(got), "GF_") {
		return got, nil
	}
	return got, fmt.Errorf("got %s, want %s", got, n.Error)
}

func (c *Checker) runNegative(f *File, n Negative) error {
	var src map[string]json.RawMessage
	if err := unmarshalNumber(n.Source, &src); err != nil {
		return fmt.Errorf("source: %w", err)
	}
	// Domain and version are checked first: they fail before anything is hashed.
	d := canonical.DomainArrowResult
	version := canonical.Version
	if n.Domain != nil {
		d = canonical.Domain(*n.Domain)
	}
	if n.CanonicalVersion != nil {
		if *n.CanonicalVersion < 0 || *n.CanonicalVersion > 1<<32-1 {
			return &canonical.Error{Code: canonical.CodeUnsupportedVersion, Op: "envelope"}
		}
		version = uint32(*n.CanonicalVersion)
	}
	if _, err := canonical.AppendEnvelopeHeader(nil, d, version, 0); err != nil {
		return err
	}
	for key, check := range simulated {
		if raw, ok := src[key]; ok {
			v, err := parseUint64(raw)
			if err != nil {
				return fmt.Errorf("%s: %w", key, err)
			}
			return check(v)
		}
	}
	var table json.RawMessage
	if _, ok := src["kind"]; ok {
		table = n.Source
	} else {
		var err error
		if table, err = specialSource(src); err != nil {
			return err
		}
	}
	s, err := ParseSource(table)
	if err != nil {
		return err
	}
	if s.Kind == "schema" && n.Domain == nil {
		d = canonical.DomainSchema
	}
	payload, err := c.payload(s, false, c.options(d, f.MetadataRegistry, n.MetadataRegistry))
	if err != nil {
		return err
	}
	_, err = canonical.Sum(d, version, payload)
	return err
}

// simulated are the size checks fed with sizes too large to build in a test; they are
// the same functions the encoder calls before it allocates.
var simulated = map[string]func(uint64) error{
	"simulated_payload_byte_length": canonical.CheckPayloadLength,
	"simulated_text_byte_length":    canonical.CheckTextLength,
	"simulated_binary_byte_length":  canonical.CheckBinaryLength,
	"simulated_list_element_count":  canonical.CheckElementCount,
	"simulated_row_count":           canonical.CheckRowCount,
}

// specialSource turns the official file's special negative shapes into a table source
// case: {"field": F, "value": v} is a one-row table of F; {"type": T, ...} is a one-row
// table of a nullable field "value" of T holding "value", "bytes_hex" or "entries" (no
// row when none is given); "nested_depth" nests T that many times around int64.
func specialSource(src map[string]json.RawMessage) (json.RawMessage, error) {
	var field json.RawMessage
	var value json.RawMessage
	if f, ok := src["field"]; ok {
		field, value = f, src["value"]
		if value == nil {
			return nil, fmt.Errorf("field source needs value")
		}
	} else {
		traw, ok := src["type"]
		if !ok {
			return nil, fmt.Errorf("negative source has no kind, field, type or simulated size")
		}
		t, err := specialType(traw, src)
		if err != nil {
			return nil, err
		}
		switch {
		case src["value"] != nil:
			value = src["value"]
		case src["entries"] != nil:
			value = src["entries"]
		case src["bytes_hex"] != nil:
			var h string
			if err := json.Unmarshal(src["bytes_hex"], &h); err != nil {
				return nil, err
			}
			var tn string
			_ = json.Unmarshal(t, &tn)
			if tn == "utf8" || tn == "large_utf8" {
				value, _ = json.Marshal(map[string]string{"utf8_hex": h})
			} else {
				value, _ = json.Marshal("hex:" + h)
			}
		}
		field, _ = json.Marshal(map[string]any{"name": "value", "nullable": true, "type": t})
	}
	obj := map[string]any{"kind": "table", "fields": []json.RawMessage{field}}
	if value != nil {
		obj["batches"] = [][][]json.RawMessage{{{value}}}
	}
	return json.Marshal(obj)
}

func specialType(traw json.RawMessage, src map[string]json.RawMessage) (json.RawMessage, error) {
	var name string
	if err := json.Unmarshal(traw, &name); err != nil {
		return traw, nil // a vocabulary object type
	}
	t := traw
	if name == "extension" {
		ext := map[string]json.RawMessage{"name": src["name"], "storage": src["storage"]}
		if v, ok := src["version"]; ok {
			ext["version"] = v
		}
		t, _ = json.Marshal(map[string]any{"extension": ext})
	} else if st, ok := specialTypeName(name, src); ok {
		t = st
	}
	if raw, ok := src["nested_depth"]; ok {
		depth, err := parseInt(raw, 32, true)
		if err != nil || depth < 1 || depth > 10_000 {
			return nil, fmt.Errorf("nested_depth")
		}
		inner := json.RawMessage(`"int64"`)
		if name != "list" && name != "large_list" {
			inner = t
		}
		kind := "list"
		if name == "large_list" {
			kind = name
		}
		for i := int64(0); i < depth; i++ {
			inner, _ = json.Marshal(map[string]any{kind: map[string]any{"item": inner, "item_nullable": true}})
		}
		t = inner
	}
	return t, nil
}
