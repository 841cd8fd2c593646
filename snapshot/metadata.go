package snapshot

import (
	"slices"
	"unicode/utf8"
)

// Resolution declares the detail a capture retained (PW-07.01). It is not a promise that
// finer historical data can be recovered later.
type Resolution string

// The resolutions.
const (
	ResolutionDataset Resolution = "dataset"
	ResolutionRecord  Resolution = "record"
	ResolutionValue   Resolution = "value"
)

// CoverageStatus says how much of the declared scope a capture read.
type CoverageStatus string

// The coverage statuses.
const (
	Complete    CoverageStatus = "COMPLETE"
	Partial     CoverageStatus = "PARTIAL"
	Unavailable CoverageStatus = "UNAVAILABLE"
)

// Count is a uint64 that may be unknown. An unknown count is distinct from zero.
type Count struct {
	N     uint64
	Known bool
}

// Known returns a known count.
func Known(n uint64) Count { return Count{N: n, Known: true} }

// Coverage records how much of its scope a capture returned. The rules (PW-07.01):
//
//   - COMPLETE: Expected is known and equals Returned, and there are no failure reasons;
//   - PARTIAL: at least one failure reason, and Returned <= Expected when Expected is known;
//   - UNAVAILABLE: at least one failure reason, and Returned == 0.
//
// Failure reasons are nonempty UTF-8 strings.
type Coverage struct {
	Status         CoverageStatus
	Expected       Count
	Returned       uint64
	FailureReasons []string
}

// FingerprintContext is the full identity of the C3 fingerprint context a snapshot's
// fingerprints were computed in: algorithm name and full ID, context ID, full C2
// normalization profile ID, source schema ID and mode. Every field is a nonempty UTF-8
// string. The store checks only that; Options.VerifyContext is where a caller resolves
// the exact current C3 context and checks its identity. Different historical contexts
// stay explicit: the store never converts one into another.
type FingerprintContext struct {
	AlgorithmName  string
	AlgorithmID    string
	ContextID      string
	ProfileID      string
	SourceSchemaID string
	Mode           string
}

// Metadata describes one snapshot: one explicitly versioned source scope (PW-07.01).
// Times are Unix epoch nanoseconds. Parent, when not nil, is the ID of a previously
// published complete snapshot and never the snapshot itself.
type Metadata struct {
	ID                ID
	Parent            *ID
	SourceNamespace   string
	SourceVersion     string
	SourceConsistency string
	Scope             string
	StartedAtNs       uint64
	FinishedAtNs      uint64
	Resolution        Resolution
	Coverage          Coverage
	Fingerprint       FingerprintContext
}

// Validate checks every PW-07.01 rule that does not need the store: the parent's
// existence is checked by Publish.
func (m *Metadata) Validate() error {
	if m.Parent != nil && *m.Parent == m.ID {
		return &Error{Code: CodeParent, Op: "validate", Field: "parent_id", Msg: "a snapshot cannot be its own parent"}
	}
	for _, f := range []struct{ name, v string }{
		{"source_namespace", m.SourceNamespace},
		{"source_version", m.SourceVersion},
		{"source_consistency", m.SourceConsistency},
		{"scope", m.Scope},
	} {
		if err := checkText(f.name, f.v); err != nil {
			return err
		}
	}
	if m.FinishedAtNs < m.StartedAtNs {
		return invalidMeta("finished_at_ns", "finish is before start")
	}
	switch m.Resolution {
	case ResolutionDataset, ResolutionRecord, ResolutionValue:
	default:
		return invalidMeta("resolution", "resolution is not dataset, record or value")
	}
	if err := m.Coverage.validate(); err != nil {
		return err
	}
	return m.Fingerprint.validate()
}

func (c *Coverage) validate() error {
	for _, r := range c.FailureReasons {
		if err := checkText("coverage.failure_reasons", r); err != nil {
			return err
		}
	}
	failures := len(c.FailureReasons) > 0
	switch c.Status {
	case Complete:
		if !c.Expected.Known {
			return invalidMeta("coverage.expected_records", "COMPLETE requires a known expected count")
		}
		if c.Expected.N != c.Returned {
			return invalidMeta("coverage.returned_records", "COMPLETE requires returned == expected")
		}
		if failures {
			return invalidMeta("coverage.failure_reasons", "COMPLETE allows no failure reasons")
		}
	case Partial:
		if !failures {
			return invalidMeta("coverage.failure_reasons", "PARTIAL requires failure reasons")
		}
		if c.Expected.Known && c.Returned > c.Expected.N {
			return invalidMeta("coverage.returned_records", "PARTIAL cannot return more than the expected count")
		}
	case Unavailable:
		if !failures {
			return invalidMeta("coverage.failure_reasons", "UNAVAILABLE requires failure reasons")
		}
		if c.Returned != 0 {
			return invalidMeta("coverage.returned_records", "UNAVAILABLE requires returned == 0")
		}
	default:
		return invalidMeta("coverage.status", "status is not COMPLETE, PARTIAL or UNAVAILABLE")
	}
	return nil
}

func (f *FingerprintContext) validate() error {
	for _, x := range []struct{ name, v string }{
		{"fingerprint_context.algorithm_name", f.AlgorithmName},
		{"fingerprint_context.algorithm_id", f.AlgorithmID},
		{"fingerprint_context.context_id", f.ContextID},
		{"fingerprint_context.profile_id", f.ProfileID},
		{"fingerprint_context.source_schema_id", f.SourceSchemaID},
		{"fingerprint_context.mode", f.Mode},
	} {
		if err := checkText(x.name, x.v); err != nil {
			return err
		}
	}
	return nil
}

func checkText(field, v string) error {
	if v == "" {
		return invalidMeta(field, "must be a nonempty string")
	}
	if !utf8.ValidString(v) {
		return invalidMeta(field, "must be valid UTF-8")
	}
	return nil
}

// clone returns a deep copy of m, so stored and returned metadata share nothing.
func (m Metadata) clone() Metadata {
	if m.Parent != nil {
		p := *m.Parent
		m.Parent = &p
	}
	m.Coverage.FailureReasons = slices.Clone(m.Coverage.FailureReasons)
	return m
}
