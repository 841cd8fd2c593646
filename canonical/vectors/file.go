// Package vectors reads, builds and checks graphforge-canonical/1 golden-vector files in
// the JSON vocabulary of contracts/graphforge-vectors-json.md.
//
// Every source case is rebuilt as real Arrow data: arrays from arrow-go builders, real
// dictionary arrays with their own dictionaries per batch, real record batches, and, for
// positive vectors, a second rebuild in which every column is a slice (one hidden null
// row on each side) of a longer array. The checker compares canonical payload bytes first,
// then rebuilds the fingerprint envelope, then compares SHA-256 and the UUIDv8; for a
// negative vector it compares the stable error code.
//
// Beyond that vocabulary, a file may declare the owning metadata registry of its vectors:
// "metadata_registry" (canonical.MetadataRegistry's JSON form) at the top level applies to
// every vector, and in a vector or negative vector to that one. A vector with neither uses
// its domain's default (canonical.DefaultOptions).
package vectors

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"

	"github.com/pipewhy/pipewhy/canonical"
)

// Format is the value of the top-level "format" member that this package reads.
const Format = "graphforge-canonical-golden-v1"

// File is one golden-vector file.
type File struct {
	Format                   string     `json:"format"`
	CanonicalContractVersion int64      `json:"canonical_contract_version"`
	Vectors                  []Vector   `json:"vectors"`
	NegativeVectors          []Negative `json:"negative_vectors"`
	// MetadataRegistry, when present, is the owning registry of every vector of the file
	// that declares none itself; without either, a vector uses its domain's default
	// (canonical.DefaultOptions).
	MetadataRegistry *canonical.MetadataRegistry `json:"metadata_registry,omitempty"`
}

// Vector is a positive vector: every source case must produce exactly the payload.
type Vector struct {
	ID                     string            `json:"id"`
	Domain                 string            `json:"domain"`
	CanonicalVersion       int64             `json:"canonical_version"`
	LogicalVariants        []json.RawMessage `json:"logical_variants,omitempty"`
	SourceCases            []json.RawMessage `json:"source_cases"`
	CanonicalPayloadHex    string            `json:"canonical_payload_hex"`
	FingerprintPreimageHex string            `json:"fingerprint_preimage_hex"`
	SHA256                 string            `json:"sha256"`
	UUIDv8                 string            `json:"uuid_v8,omitempty"`
	// MetadataRegistry is this vector's owning registry; it overrides the file's.
	MetadataRegistry *canonical.MetadataRegistry `json:"metadata_registry,omitempty"`
}

// Negative is a negative vector: its source must fail with the expected code.
type Negative struct {
	ID               string          `json:"id"`
	Error            string          `json:"error"`
	AcceptableErrors []string        `json:"acceptable_errors,omitempty"`
	ErrorNormative   *bool           `json:"error_normative,omitempty"`
	Domain           *string         `json:"domain,omitempty"`
	CanonicalVersion *int64          `json:"canonical_version,omitempty"`
	Source           json.RawMessage `json:"source"`
	Note             string          `json:"note,omitempty"`
	// MetadataRegistry is this vector's owning registry; it overrides the file's.
	MetadataRegistry *canonical.MetadataRegistry `json:"metadata_registry,omitempty"`
}

// Load reads a vector file. Numbers are kept exact (json.Number) until a type gives them
// a width.
func Load(r io.Reader) (*File, error) {
	data, err := io.ReadAll(io.LimitReader(r, 256<<20))
	if err != nil {
		return nil, err
	}
	return Parse(data)
}

// Parse decodes a vector file from memory.
func Parse(data []byte) (*File, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var f File
	if err := dec.Decode(&f); err != nil {
		return nil, fmt.Errorf("vectors: %w", err)
	}
	if dec.More() {
		return nil, fmt.Errorf("vectors: trailing data after the JSON object")
	}
	if f.Format != Format {
		return nil, fmt.Errorf("vectors: format %q, want %q", f.Format, Format)
	}
	if len(f.Vectors) == 0 && len(f.NegativeVectors) == 0 {
		return nil, fmt.Errorf("vectors: no vectors")
	}
	regs := []*canonical.MetadataRegistry{f.MetadataRegistry}
	for _, v := range f.Vectors {
		regs = append(regs, v.MetadataRegistry)
	}
	for _, n := range f.NegativeVectors {
		regs = append(regs, n.MetadataRegistry)
	}
	for _, r := range regs {
		if r == nil {
			continue
		}
		if err := r.Validate(); err != nil {
			return nil, fmt.Errorf("vectors: metadata_registry: %w", err)
		}
	}
	return &f, nil
}
