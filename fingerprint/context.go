package fingerprint

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"

	"github.com/pipewhy/pipewhy/normalize"
)

// Mode says whether record order is part of a dataset's meaning.
type Mode uint8

const (
	// Multiset: a dataset is the multiset of its records; order and batch boundaries never
	// change its fingerprint, repeated records count repeatedly.
	Multiset Mode = 1
	// Ordered: each record digest also covers the record's global position (0-based), so
	// a reordering changes the fingerprint; partitions still merge given their offsets.
	Ordered Mode = 2
)

func (m Mode) String() string {
	switch m {
	case Multiset:
		return "multiset"
	case Ordered:
		return "ordered"
	}
	return "Mode(" + uitoa(uint64(m)) + ")"
}

// ParseMode returns the mode named s ("multiset" or "ordered").
func ParseMode(s string) (Mode, error) {
	switch s {
	case "multiset":
		return Multiset, nil
	case "ordered":
		return Ordered, nil
	}
	return 0, newErr("context", CodeContext, "unknown mode")
}

// ContextIDPrefix begins every context identity string.
const ContextIDPrefix = "pipewhy.fingerprint.context/sha256:"

// Context is what makes fingerprints comparable: the algorithm, the full C2 profile
// identity, the source schema identity and the mode. Fingerprints of different contexts
// are never compared, merged or subtracted. A Context is immutable and cheap to copy; the
// zero Context is invalid.
type Context struct{ c *contextData }

type contextData struct {
	alg        Algorithm
	profile    string
	schema     SchemaDescriptor // validated copy, fields sorted
	schemaID   string
	mode       Mode
	descriptor []byte
	key        [32]byte // SHA-256 of descriptor: the digest key
	id         string
	fields     *fieldTable
	ext        bool // profile is a C2 extension 1 profile: type codes 10..14 are valid
}

// NewContext builds the context of alg, the full C2 profile identity profileID (as
// normalize's Profile.ID returns it, e.g.
// "pipewhy.normalization/strict-v1/wire-1/sha256:<64 hex>"), schema and mode.
func NewContext(alg Algorithm, profileID string, schema SchemaDescriptor, mode Mode) (Context, error) {
	if !alg.Valid() {
		return Context{}, newErr("context", CodeAlgorithm, "invalid algorithm")
	}
	if mode != Multiset && mode != Ordered {
		return Context{}, newErr("context", CodeContext, "invalid mode")
	}
	if err := checkProfileID(profileID); err != nil {
		return Context{}, err
	}
	fields, err := schema.sorted()
	if err != nil {
		return Context{}, err
	}
	schemaID, err := schema.ID()
	if err != nil {
		return Context{}, err
	}
	ext := extensionProfile(profileID)
	if !ext {
		for _, f := range fields {
			if f.Type.Extended() {
				return Context{}, newErr("context", CodeSchema, "field "+uitoa(f.ID)+" has value type "+string(f.Type)+", which needs an extension profile (strict-v1+ext1 or logical-v1+ext1)")
			}
		}
	}
	d := &contextData{
		alg:      alg,
		profile:  profileID,
		schema:   SchemaDescriptor{Fields: fields, RenamePolicy: schema.RenamePolicy},
		schemaID: schemaID,
		mode:     mode,
		fields:   newFieldTable(fields),
		ext:      ext,
	}
	d.descriptor = contextDescriptor(alg.ID(), profileID, schemaID, mode)
	d.key = sha256.Sum256(d.descriptor)
	d.id = ContextIDPrefix + hex.EncodeToString(d.key[:])
	return Context{d}, nil
}

// contextDescriptor is the compact, key-sorted JSON the context identity hashes. Every
// member is ASCII without '"' or '\\' (checked by the callers), so no escaping arises.
func contextDescriptor(algID, profileID, schemaID string, mode Mode) []byte {
	return []byte(`{"algorithm":"` + algID +
		`","domain":"pipewhy.fingerprint.context","mode":"` + mode.String() +
		`","profile":"` + profileID +
		`","schema":"` + schemaID + `"}`)
}

// extensionProfile reports whether a profile identity (checked by checkProfileID) names
// a C2 extension 1 profile: its profile segment, "pipewhy.normalization/<profile>/...",
// ends in "+ext1" (normalize.StrictV1Ext1, normalize.LogicalV1Ext1). The segment is read
// rather than the whole identity matched, so an identity computed with another Unicode
// version is classified the same way.
func extensionProfile(id string) bool {
	rest := strings.TrimPrefix(id, "pipewhy.normalization/")
	name, _, _ := strings.Cut(rest, "/")
	return strings.HasSuffix(name, "+ext1")
}

// validateRecord is the C2 frame validation of the context's profile: tags 0..9, and
// 10..14 as well under an extension profile.
func (d *contextData) validateRecord(rec []uint64) error {
	if d.ext {
		return normalize.ValidateRecordWordsIn(rec, normalize.StrictV1Ext1)
	}
	return normalize.ValidateRecordWords(rec)
}

// checkProfileID accepts only a full C2 profile identity: "pipewhy.normalization/",
// printable ASCII without '"' or '\\', ending in "/sha256:" and 64 lowercase hex digits.
// A bare profile name such as "strict-v1" is not an identity.
func checkProfileID(id string) error {
	bad := func(msg string) error { return newErr("context", CodeContext, "profile identity "+msg) }
	if !strings.HasPrefix(id, "pipewhy.normalization/") {
		return bad("lacks the pipewhy.normalization/ prefix")
	}
	for i := 0; i < len(id); i++ {
		if c := id[i]; c < 0x21 || c > 0x7e || c == '"' || c == '\\' {
			return bad("has a character outside printable ASCII")
		}
	}
	i := strings.LastIndex(id, "/sha256:")
	if i < 0 || len(id)-i-len("/sha256:") != 64 {
		return bad("lacks a /sha256:<64 hex> suffix")
	}
	for _, c := range id[i+len("/sha256:"):] {
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return bad("digest is not lowercase hex")
		}
	}
	return nil
}

// Valid reports whether c was built by NewContext.
func (c Context) Valid() bool { return c.c != nil }

// ID returns the context identity: ContextIDPrefix and the lowercase hex SHA-256 of
// Descriptor. "" for the zero Context.
func (c Context) ID() string {
	if c.c == nil {
		return ""
	}
	return c.c.id
}

// Descriptor returns a copy of the exact bytes whose SHA-256 is the context identity.
func (c Context) Descriptor() []byte {
	if c.c == nil {
		return nil
	}
	return append([]byte(nil), c.c.descriptor...)
}

// Key returns the 32-byte digest key: the raw SHA-256 of Descriptor. Every digest of the
// context hashes it first.
func (c Context) Key() [32]byte {
	if c.c == nil {
		return [32]byte{}
	}
	return c.c.key
}

// Algorithm returns the context's algorithm.
func (c Context) Algorithm() Algorithm {
	if c.c == nil {
		return Algorithm{}
	}
	return c.c.alg
}

// Extended reports whether the context's profile is a C2 extension 1 profile
// (strict-v1+ext1, logical-v1+ext1), whose records may carry the type codes 10..14.
func (c Context) Extended() bool { return c.c != nil && c.c.ext }

// ProfileID returns the full C2 profile identity.
func (c Context) ProfileID() string {
	if c.c == nil {
		return ""
	}
	return c.c.profile
}

// SchemaID returns the schema identity (SchemaDescriptor.ID).
func (c Context) SchemaID() string {
	if c.c == nil {
		return ""
	}
	return c.c.schemaID
}

// Schema returns a copy of the schema descriptor, fields in ascending id order.
func (c Context) Schema() SchemaDescriptor {
	if c.c == nil {
		return SchemaDescriptor{}
	}
	s := c.c.schema
	s.Fields = append([]SchemaField(nil), s.Fields...)
	return s
}

// Mode returns the context's mode.
func (c Context) Mode() Mode {
	if c.c == nil {
		return 0
	}
	return c.c.mode
}

// Equal reports whether c and o are the same context (equal identities).
func (c Context) Equal(o Context) bool {
	return c.c != nil && o.c != nil && (c.c == o.c || c.c.key == o.c.key)
}

func (c Context) String() string {
	if c.c == nil {
		return "Context(invalid)"
	}
	return c.c.id
}
