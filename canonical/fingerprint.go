package canonical

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"hash"
	"sync"
)

// Domain is a closed graphforge-canonical/1 domain tag. Domain strings are exact
// lowercase ASCII and never caller-defined: ParseDomain accepts only the constants below.
type Domain string

// The closed v1 domain tags.
const (
	DomainSchema               Domain = "graphforge/schema"
	DomainAssertion            Domain = "graphforge/assertion"
	DomainEvidenceLink         Domain = "graphforge/evidence-link"
	DomainConfidenceAssessment Domain = "graphforge/confidence-assessment"
	DomainProvenanceEvent      Domain = "graphforge/provenance-event"
	DomainLineage              Domain = "graphforge/lineage"
	DomainInvocationDescriptor Domain = "graphforge/invocation-descriptor"
	DomainGraphProjection      Domain = "graphforge/graph-projection"
	DomainArrowResult          Domain = "graphforge/arrow-result"
)

// Domains lists the closed v1 domain tags in the contract's order.
var Domains = []Domain{
	DomainSchema, DomainAssertion, DomainEvidenceLink, DomainConfidenceAssessment,
	DomainProvenanceEvent, DomainLineage, DomainInvocationDescriptor, DomainGraphProjection,
	DomainArrowResult,
}

// Valid reports whether d is one of the closed v1 domain tags.
func (d Domain) Valid() bool {
	for _, x := range Domains {
		if d == x {
			return true
		}
	}
	return false
}

// ParseDomain returns s as a Domain, or a GF_CANONICAL_ENCODING error when s is not one of
// the closed tags (the contract names no code for an unknown tag).
func ParseDomain(s string) (Domain, error) {
	if d := Domain(s); d.Valid() {
		return d, nil
	}
	return "", &Error{Code: CodeEncoding, Op: "domain"}
}

// checkEnvelope rejects an unknown domain or contract version before anything is hashed.
func checkEnvelope(d Domain, version uint32) error {
	if version != Version {
		return &Error{Code: CodeUnsupportedVersion, Op: "envelope", Domain: d, Version: version}
	}
	if !d.Valid() {
		return &Error{Code: CodeEncoding, Op: "domain", Version: version}
	}
	return nil
}

// Fingerprint is a domain-separated SHA-256 fingerprint of one canonical payload. The full
// 32 bytes, the domain and the contract version identify it; the UUIDv8 is a projection.
type Fingerprint struct {
	Domain       Domain
	Version      uint32
	Sum          [32]byte
	PayloadBytes uint64 // length of the canonical payload that was hashed
}

// Hex returns the fingerprint as 64 lowercase hexadecimal characters.
func (f Fingerprint) Hex() string { return hex.EncodeToString(f.Sum[:]) }

// UUID returns the deterministic UUIDv8 projection of the fingerprint.
func (f Fingerprint) UUID() UUID { return UUIDv8(f.Sum) }

// UUIDv8 projects a 32-byte fingerprint to a UUID: the first 16 bytes, with the high nibble
// of byte 6 set to 8 and the high two bits of byte 8 set to 10.
func UUIDv8(sum [32]byte) UUID {
	var u UUID
	copy(u[:], sum[:16])
	u[6] = u[6]&0x0f | 0x80
	u[8] = u[8]&0x3f | 0x80
	return u
}

// AppendEnvelopeHeader appends the fingerprint preimage up to and including the payload
// length: "GFFP", u8 1, u16 domain length, domain, u32 version, u64 payload length.
func AppendEnvelopeHeader(dst []byte, d Domain, version uint32, payloadLen uint64) ([]byte, error) {
	if err := checkEnvelope(d, version); err != nil {
		return dst, err
	}
	if err := CheckPayloadLength(payloadLen); err != nil {
		e := err.(*Error)
		e.Domain, e.Version = d, version
		return dst, e
	}
	dst = append(dst, "GFFP"...)
	dst = append(dst, 1)
	dst = binary.BigEndian.AppendUint16(dst, uint16(len(d)))
	dst = append(dst, d...)
	dst = binary.BigEndian.AppendUint32(dst, version)
	dst = binary.BigEndian.AppendUint64(dst, payloadLen)
	return dst, nil
}

// AppendPreimage appends the complete fingerprint preimage of payload to dst.
func AppendPreimage(dst []byte, d Domain, version uint32, payload []byte) ([]byte, error) {
	dst, err := AppendEnvelopeHeader(dst, d, version, uint64(len(payload)))
	if err != nil {
		return dst, err
	}
	return append(dst, payload...), nil
}

// Sum fingerprints a materialised canonical payload (schema or table bytes) in domain d.
func Sum(d Domain, version uint32, payload []byte) (Fingerprint, error) {
	h := sha256.New()
	hdr, err := AppendEnvelopeHeader(make([]byte, 0, 64), d, version, uint64(len(payload)))
	if err != nil {
		return Fingerprint{}, err
	}
	h.Write(hdr)
	h.Write(payload)
	return finish(h, d, version, uint64(len(payload))), nil
}

func finish(h hash.Hash, d Domain, version uint32, n uint64) Fingerprint {
	f := Fingerprint{Domain: d, Version: version, PayloadBytes: n}
	h.Sum(f.Sum[:0])
	return f
}

// Store maps fingerprints to canonical bytes and fails closed: it never deduplicates or
// overwrites different bytes under an existing fingerprint or derived UUID. Keys are
// scoped by domain and contract version. The zero Store is empty and ready to use; it is
// safe for concurrent use.
type Store struct {
	mu     sync.Mutex
	bySum  map[storeKey][]byte
	byUUID map[uuidKey][32]byte
}

type storeKey struct {
	d   Domain
	v   uint32
	sum [32]byte
}

type uuidKey struct {
	d Domain
	v uint32
	u UUID
}

// Put records payload under f. It returns a GF_FINGERPRINT_COLLISION error, and changes
// nothing, when f's fingerprint or its UUIDv8 is already associated with different bytes
// (or, for the UUID, with a different full fingerprint). Putting the same bytes again is
// a no-op. Put trusts f: use Add to compute it from the payload.
func (s *Store) Put(f Fingerprint, payload []byte) error {
	if err := checkEnvelope(f.Domain, f.Version); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	k := storeKey{f.Domain, f.Version, f.Sum}
	uk := uuidKey{f.Domain, f.Version, f.UUID()}
	if old, ok := s.bySum[k]; ok && !bytes.Equal(old, payload) {
		return &Error{Code: CodeCollision, Op: "store", Domain: f.Domain, Version: f.Version}
	}
	if sum, ok := s.byUUID[uk]; ok && sum != f.Sum {
		return &Error{Code: CodeCollision, Op: "store uuid", Domain: f.Domain, Version: f.Version}
	}
	if s.bySum == nil {
		s.bySum = make(map[storeKey][]byte)
		s.byUUID = make(map[uuidKey][32]byte)
	}
	s.bySum[k] = bytes.Clone(payload)
	s.byUUID[uk] = f.Sum
	return nil
}

// Add fingerprints payload in domain d (version 1) and records it as Put does.
func (s *Store) Add(d Domain, payload []byte) (Fingerprint, error) {
	f, err := Sum(d, Version, payload)
	if err != nil {
		return f, err
	}
	return f, s.Put(f, payload)
}

// Get returns the bytes recorded under f, if any.
func (s *Store) Get(f Fingerprint) ([]byte, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	b, ok := s.bySum[storeKey{f.Domain, f.Version, f.Sum}]
	return b, ok
}
