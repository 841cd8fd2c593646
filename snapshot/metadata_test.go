package snapshot

import (
	"errors"
	"strings"
	"testing"
)

func TestIDs(t *testing.T) {
	for _, s := range []string{fixtureID, "00000000000000000000000000000000", "ffffffffffffffffffffffffffffffff"} {
		id, err := ParseID(s)
		if err != nil || id.String() != s {
			t.Errorf("ParseID(%q) = %v, %v", s, id, err)
		}
	}
	for _, s := range []string{"", "0123456789abcdef0123456789abcde", "0123456789abcdef0123456789abcdef0",
		"0123456789ABCDEF0123456789ABCDEF", "0123456789abcdef0123456789abcdeg", "01234567-89ab-cdef-0123-456789abcdef",
		"../../../../../../../../../../etc", " 123456789abcdef0123456789abcdef", "0123456789abcdef0123456789abcde\n"} {
		if _, err := ParseID(s); err == nil || !errors.Is(err, ErrInvalid) {
			t.Errorf("ParseID(%q) error %v, want ErrInvalid", s, err)
		}
	}
	seen := map[ID]bool{}
	for range 1000 {
		id := NewID()
		s := id.String()
		if !isLowerHex(s, 32) || seen[id] {
			t.Fatalf("NewID gave %q (repeat %v)", s, seen[id])
		}
		seen[id] = true
	}
}

func TestMetadataRules(t *testing.T) {
	self := mustID(t, fixtureID)
	other := mustID(t, "ffffffffffffffffffffffffffffffff")
	tests := []struct {
		name  string
		edit  func(*Metadata)
		field string // "" means valid
	}{
		{"fixture", func(*Metadata) {}, ""},
		{"parent other", func(m *Metadata) { m.Parent = &other }, ""},
		{"parent self", func(m *Metadata) { m.Parent = &self }, "parent_id"},
		{"empty namespace", func(m *Metadata) { m.SourceNamespace = "" }, "source_namespace"},
		{"empty version", func(m *Metadata) { m.SourceVersion = "" }, "source_version"},
		{"empty consistency", func(m *Metadata) { m.SourceConsistency = "" }, "source_consistency"},
		{"empty scope", func(m *Metadata) { m.Scope = "" }, "scope"},
		{"invalid UTF-8 namespace", func(m *Metadata) { m.SourceNamespace = "a\xffb" }, "source_namespace"},
		{"invalid UTF-8 scope", func(m *Metadata) { m.Scope = "\xc3" }, "scope"},
		{"surrogate scope", func(m *Metadata) { m.Scope = "\xed\xa0\x80" }, "scope"},
		{"whitespace scope is nonempty", func(m *Metadata) { m.Scope = " " }, ""},
		{"start == finish", func(m *Metadata) { m.StartedAtNs, m.FinishedAtNs = 7, 7 }, ""},
		{"finish before start", func(m *Metadata) { m.StartedAtNs, m.FinishedAtNs = 8, 7 }, "finished_at_ns"},
		{"max times", func(m *Metadata) { m.StartedAtNs, m.FinishedAtNs = 1<<64-1, 1<<64-1 }, ""},
		{"resolution dataset", func(m *Metadata) { m.Resolution = ResolutionDataset }, ""},
		{"resolution value", func(m *Metadata) { m.Resolution = ResolutionValue }, ""},
		{"resolution empty", func(m *Metadata) { m.Resolution = "" }, "resolution"},
		{"resolution other", func(m *Metadata) { m.Resolution = "Record" }, "resolution"},
		{"status empty", func(m *Metadata) { m.Coverage.Status = "" }, "coverage.status"},
		{"status lowercase", func(m *Metadata) { m.Coverage.Status = "complete" }, "coverage.status"},
		{"complete zero of zero", func(m *Metadata) { m.Coverage = Coverage{Status: Complete, Expected: Known(0)} }, ""},
		{"complete unknown expected", func(m *Metadata) { m.Coverage = Coverage{Status: Complete, Returned: 0} }, "coverage.expected_records"},
		{"complete mismatch", func(m *Metadata) { m.Coverage = Coverage{Status: Complete, Expected: Known(3), Returned: 2} }, "coverage.returned_records"},
		{"complete with failure", func(m *Metadata) {
			m.Coverage = Coverage{Status: Complete, Expected: Known(3), Returned: 3, FailureReasons: []string{"x"}}
		}, "coverage.failure_reasons"},
		{"partial ok", func(m *Metadata) {
			m.Coverage = Coverage{Status: Partial, Expected: Known(3), Returned: 2, FailureReasons: []string{"timeout"}}
		}, ""},
		{"partial equal expected", func(m *Metadata) {
			m.Coverage = Coverage{Status: Partial, Expected: Known(3), Returned: 3, FailureReasons: []string{"checksum"}}
		}, ""},
		{"partial unknown expected", func(m *Metadata) {
			m.Coverage = Coverage{Status: Partial, Returned: 1 << 40, FailureReasons: []string{"x"}}
		}, ""},
		{"partial expected zero", func(m *Metadata) {
			m.Coverage = Coverage{Status: Partial, Expected: Known(0), Returned: 1, FailureReasons: []string{"x"}}
		}, "coverage.returned_records"},
		{"partial more than expected", func(m *Metadata) {
			m.Coverage = Coverage{Status: Partial, Expected: Known(3), Returned: 4, FailureReasons: []string{"x"}}
		}, "coverage.returned_records"},
		{"partial no failures", func(m *Metadata) { m.Coverage = Coverage{Status: Partial, Expected: Known(3), Returned: 2} }, "coverage.failure_reasons"},
		{"partial empty failure", func(m *Metadata) {
			m.Coverage = Coverage{Status: Partial, Returned: 2, FailureReasons: []string{""}}
		}, "coverage.failure_reasons"},
		{"partial invalid UTF-8 failure", func(m *Metadata) {
			m.Coverage = Coverage{Status: Partial, Returned: 2, FailureReasons: []string{"ok", "\xff"}}
		}, "coverage.failure_reasons"},
		{"unavailable ok", func(m *Metadata) {
			m.Coverage = Coverage{Status: Unavailable, FailureReasons: []string{"denied"}}
		}, ""},
		{"unavailable known expected", func(m *Metadata) {
			m.Coverage = Coverage{Status: Unavailable, Expected: Known(10), FailureReasons: []string{"denied"}}
		}, ""},
		{"unavailable returned", func(m *Metadata) {
			m.Coverage = Coverage{Status: Unavailable, Returned: 1, FailureReasons: []string{"denied"}}
		}, "coverage.returned_records"},
		{"unavailable no failures", func(m *Metadata) { m.Coverage = Coverage{Status: Unavailable} }, "coverage.failure_reasons"},
		{"empty algorithm name", func(m *Metadata) { m.Fingerprint.AlgorithmName = "" }, "fingerprint_context.algorithm_name"},
		{"empty algorithm id", func(m *Metadata) { m.Fingerprint.AlgorithmID = "" }, "fingerprint_context.algorithm_id"},
		{"empty context id", func(m *Metadata) { m.Fingerprint.ContextID = "" }, "fingerprint_context.context_id"},
		{"empty profile id", func(m *Metadata) { m.Fingerprint.ProfileID = "" }, "fingerprint_context.profile_id"},
		{"empty schema id", func(m *Metadata) { m.Fingerprint.SourceSchemaID = "" }, "fingerprint_context.source_schema_id"},
		{"empty mode", func(m *Metadata) { m.Fingerprint.Mode = "" }, "fingerprint_context.mode"},
		{"invalid UTF-8 profile", func(m *Metadata) { m.Fingerprint.ProfileID = "p\x80" }, "fingerprint_context.profile_id"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m := fixtureMetadata(t)
			tc.edit(&m)
			err := m.Validate()
			if tc.field == "" {
				if err != nil {
					t.Fatalf("rejected: %v", err)
				}
				// A valid metadata survives the manifest round trip unchanged.
				back, err := decodeManifest((&manifest{Meta: m}).encode())
				if err != nil {
					t.Fatalf("round trip: %v", err)
				}
				if !sameMetadata(back.Meta, m) {
					t.Fatalf("round trip changed metadata:\n got %+v\nwant %+v", back.Meta, m)
				}
				return
			}
			var e *Error
			if !errors.As(err, &e) || e.Field != tc.field || !errors.Is(err, ErrInvalid) {
				t.Fatalf("error %v, want field %s and ErrInvalid", err, tc.field)
			}
			// The manifest reader applies the same rule (invalid UTF-8 already fails as JSON).
			_, err = decodeManifest((&manifest{Meta: m}).encode())
			if err == nil || codeOf(err) != CodeInvalidManifest && !strings.Contains(err.Error(), tc.field) {
				t.Fatalf("decodeManifest error %v, want one naming %s", err, tc.field)
			}
		})
	}
}

func sameMetadata(a, b Metadata) bool {
	if (a.Parent == nil) != (b.Parent == nil) || a.Parent != nil && *a.Parent != *b.Parent {
		return false
	}
	if len(a.Coverage.FailureReasons) != len(b.Coverage.FailureReasons) {
		return false
	}
	for i := range a.Coverage.FailureReasons {
		if a.Coverage.FailureReasons[i] != b.Coverage.FailureReasons[i] {
			return false
		}
	}
	return a.ID == b.ID && a.SourceNamespace == b.SourceNamespace && a.SourceVersion == b.SourceVersion &&
		a.SourceConsistency == b.SourceConsistency && a.Scope == b.Scope && a.StartedAtNs == b.StartedAtNs &&
		a.FinishedAtNs == b.FinishedAtNs && a.Resolution == b.Resolution && a.Coverage.Status == b.Coverage.Status &&
		a.Coverage.Expected == b.Coverage.Expected && a.Coverage.Returned == b.Coverage.Returned &&
		a.Fingerprint == b.Fingerprint
}
