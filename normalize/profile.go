package normalize

import (
	"crypto/sha256"
	"encoding/hex"

	"golang.org/x/text/unicode/norm"
)

// Profile selects the C2 normalization profile (PW-03.01). The zero value is StrictV1,
// the default.
type Profile uint8

// The two v1 profiles, and their PipeWhy extension 1 counterparts
// (docs/contracts/C2-extensions.md). An extension profile encodes every v1 value to
// exactly the words its base profile does and adds the extension type codes 10..14
// (DATE, TIME, DURATION, TIMESTAMP_NS, NESTED); it has its own name, descriptor and
// identity, so v1 identities never change.
const (
	StrictV1      Profile = 0 // "strict-v1": representation is preserved exactly (default)
	LogicalV1     Profile = 1 // "logical-v1": the documented equivalences only
	StrictV1Ext1  Profile = 2 // "strict-v1+ext1": strict-v1 plus extension 1 types
	LogicalV1Ext1 Profile = 3 // "logical-v1+ext1": logical-v1 plus extension 1 types
)

// ext1Name is the extension member of the extension profiles' descriptors.
const ext1Name = "pipewhy.c2-ext1"

type profileInfo struct {
	name       string
	descriptor string
	id         string
}

var profiles [4]profileInfo

func init() {
	for p, name := range [...]string{"strict-v1", "logical-v1", "strict-v1+ext1", "logical-v1+ext1"} {
		// Compact JSON with sorted keys; every member is a fixed ASCII string, so the
		// bytes are written literally rather than through a JSON encoder. The v1
		// descriptors have no "extension" member, so their bytes and identities are
		// exactly those of the typed-values contract.
		ext := ""
		if Profile(p).Extended() {
			ext = `"extension":"` + ext1Name + `",`
		}
		var desc, id string
		if Profile(p).Logical() {
			desc = `{"domain":"pipewhy.normalization",` + ext + `"profile":"` + name + `","unicode_version":"` + norm.Version + `","wire_version":1}`
			id = "pipewhy.normalization/" + name + "/wire-1/unicode-" + norm.Version
		} else {
			desc = `{"domain":"pipewhy.normalization",` + ext + `"profile":"` + name + `","wire_version":1}`
			id = "pipewhy.normalization/" + name + "/wire-1"
		}
		sum := sha256.Sum256([]byte(desc))
		profiles[p] = profileInfo{name: name, descriptor: desc, id: id + "/sha256:" + hex.EncodeToString(sum[:])}
	}
}

func (p Profile) info() *profileInfo {
	if int(p) < len(profiles) {
		return &profiles[p]
	}
	return nil
}

// Valid reports whether p is one of the four defined profiles.
func (p Profile) Valid() bool { return p.info() != nil }

// Logical reports whether p applies the logical-v1 equivalences (LogicalV1 and
// LogicalV1Ext1).
func (p Profile) Logical() bool { return p == LogicalV1 || p == LogicalV1Ext1 }

// Extended reports whether p is an extension profile, which accepts the extension
// type codes 10..14 (StrictV1Ext1 and LogicalV1Ext1).
func (p Profile) Extended() bool { return p == StrictV1Ext1 || p == LogicalV1Ext1 }

// Base returns the v1 profile whose equivalences p applies: StrictV1 or LogicalV1.
func (p Profile) Base() Profile {
	if p.Logical() {
		return LogicalV1
	}
	return StrictV1
}

// Name returns "strict-v1", "logical-v1", "strict-v1+ext1" or "logical-v1+ext1" ("" for
// an invalid Profile).
func (p Profile) Name() string {
	if i := p.info(); i != nil {
		return i.name
	}
	return ""
}

// String returns Name, or a diagnostic for an invalid Profile.
func (p Profile) String() string {
	if i := p.info(); i != nil {
		return i.name
	}
	return "Profile(invalid)"
}

// Descriptor returns a new copy of the fixed profile descriptor whose SHA-256 is the
// identity: compact, key-sorted JSON, including the Unicode version (norm.Version) for
// logical-v1.
func (p Profile) Descriptor() []byte {
	if i := p.info(); i != nil {
		return []byte(i.descriptor)
	}
	return nil
}

// ID returns the full profile identity string,
// pipewhy.normalization/<profile>/wire-1[/unicode-<version>]/sha256:<64 hex>.
// Observations and RecordBatch.ProfileID carry this string, never a truncation.
func (p Profile) ID() string {
	if i := p.info(); i != nil {
		return i.id
	}
	return ""
}

// ParseProfile returns the profile named by s: a profile name ("strict-v1",
// "logical-v1", "strict-v1+ext1", "logical-v1+ext1") or a full identity string as ID
// returns it. A full identity computed
// with another Unicode version does not match (by design). Errors are CodeInput.
func ParseProfile(s string) (Profile, error) {
	for p := range profiles {
		if s == profiles[p].name || s == profiles[p].id {
			return Profile(p), nil
		}
	}
	return 0, newErr("profile", CodeInput, "unknown normalization profile")
}
