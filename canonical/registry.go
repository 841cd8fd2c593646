package canonical

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// MetadataRegistry is what an owning schema registry declares about graphforge.* metadata
// keys: the contract lets result-contract keys participate only when the owning registry
// declares them, and rejects any other graphforge.* key "until its owning registry
// classifies it as semantic or volatile". Keys beginning graphforge.contract. always
// participate and graphforge.query_id, ontology_mode and ontology_version are always
// excluded, whatever a registry says; neither may be listed.
//
// Its JSON form (a registry file, and the "metadata_registry" member of a vector file) is
//
//	{"semantic_keys": ["graphforge.algorithm", ...], "volatile_keys": ["graphforge.run", ...]}
//
// with both members optional and no other member allowed.
type MetadataRegistry struct {
	// Semantic keys participate in the schema bytes when present.
	Semantic []string `json:"semantic_keys,omitempty"`
	// Volatile keys are excluded from the schema bytes.
	Volatile []string `json:"volatile_keys,omitempty"`
}

// StandardResultRegistry returns GraphForge's standard result registry, the owning
// registry of graphforge/arrow-result payloads: the keys GraphForge's Rust engine
// classifies as semantic when it fingerprints a public Arrow result (metadata_class in
// crates/gf-api/src/canonical_arrow.rs of github.com/CurateLabs/graphforge, commit
// 0425381f47a9b76e76dc05fedb68dc167b92334e). They are the seven result-contract keys the
// contract lists, plus four keys that registry classifies as semantic: the random-number
// generator's version and derivation, the valid-time policy and base_snapshot_unchanged.
func StandardResultRegistry() MetadataRegistry {
	return MetadataRegistry{Semantic: append(slices.Clone(ResultContractKeys),
		"graphforge.rng_version",
		"graphforge.rng_derivation",
		"graphforge.valid_time.policy",
		"graphforge.base_snapshot_unchanged",
	)}
}

// DefaultOptions returns the declarations of domain d's owning registry when the caller
// names none: StandardResultRegistry for graphforge/arrow-result, and nothing (every
// result-contract key rejected, no extension) for every other domain.
func DefaultOptions(d Domain) *Options {
	if d == DomainArrowResult {
		return &Options{Metadata: StandardResultRegistry()}
	}
	return &Options{}
}

// Validate checks that every key is a graphforge.* key outside graphforge.contract.*,
// that no key is listed twice, that no always-excluded key is semantic and that no
// result-contract key is volatile (the contract makes those semantic).
func (r *MetadataRegistry) Validate() error {
	seen := make(map[string]bool, len(r.Semantic)+len(r.Volatile))
	check := func(name string, keys []string, forbidden []string, why string) error {
		for i, k := range keys {
			path := name + "[" + strconv.Itoa(i) + "]"
			switch {
			case len(k) > MaxTextBytes:
				return limitErr("registry "+path, uint64(len(k)), MaxTextBytes)
			case !utf8.ValidString(k):
				return &Error{Code: CodeUTF8, Op: "registry", Path: path}
			case !strings.HasPrefix(k, graphforgePrefix):
				return &Error{Code: CodeEncoding, Op: "registry", Path: path + " not a graphforge.* key"}
			case strings.HasPrefix(k, contractPrefix):
				return &Error{Code: CodeEncoding, Op: "registry", Path: path + " graphforge.contract.* keys always participate"}
			case slices.Contains(forbidden, k):
				return &Error{Code: CodeEncoding, Op: "registry", Path: path + " " + k + " " + why}
			case seen[k]:
				return &Error{Code: CodeEncoding, Op: "registry", Path: path + " listed twice"}
			}
			seen[k] = true
		}
		return nil
	}
	if err := check("semantic_keys", r.Semantic, VolatileKeys, "is always excluded"); err != nil {
		return err
	}
	return check("volatile_keys", r.Volatile, ResultContractKeys, "is a result-contract key")
}

// maxRegistryBytes bounds a registry file: a few hundred keys at most.
const maxRegistryBytes = 1 << 20

// ReadMetadataRegistry reads and validates a registry in its JSON form. Unknown members,
// trailing data and files over 1 MiB are errors.
func ReadMetadataRegistry(r io.Reader) (MetadataRegistry, error) {
	data, err := io.ReadAll(io.LimitReader(r, maxRegistryBytes+1))
	if err != nil {
		return MetadataRegistry{}, &Error{Code: CodeEncoding, Op: "registry", Err: err}
	}
	if len(data) > maxRegistryBytes {
		return MetadataRegistry{}, limitErr("registry file", uint64(len(data)), maxRegistryBytes)
	}
	return ParseMetadataRegistry(data)
}

// ParseMetadataRegistry decodes and validates a registry in its JSON form.
func ParseMetadataRegistry(data []byte) (MetadataRegistry, error) {
	var reg MetadataRegistry
	if err := json.Unmarshal(data, &reg); err != nil {
		return MetadataRegistry{}, &Error{Code: CodeEncoding, Op: "registry", Err: fmt.Errorf("metadata registry: %w", err)}
	}
	if err := reg.Validate(); err != nil {
		return MetadataRegistry{}, err
	}
	return reg, nil
}

// UnmarshalJSON decodes the JSON form strictly (no unknown member), so that a vector file
// that misspells a member fails instead of declaring nothing.
func (r *MetadataRegistry) UnmarshalJSON(data []byte) error {
	type plain MetadataRegistry
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var p plain
	if err := dec.Decode(&p); err != nil {
		return err
	}
	*r = MetadataRegistry(p)
	return nil
}
