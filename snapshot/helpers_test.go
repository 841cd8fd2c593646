package snapshot

import (
	"context"
	"crypto/sha256"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// fixtureManifest is written by hand from PW-07.01/.02/.03 and the canonical JSON rules
// (sorted keys, compact, non-ASCII and <>& raw, only '"', '\\' and controls escaped). The
// SHA-256 values were computed with sha256sum over the little-endian bytes written out
// by hand: ids = 01 00..00 02 00..00 ff..ff, flags = 80 ff 7f, none = empty.
const fixtureManifest = `{"array_schema_version":"1.0","arrays":{"flags":{"byte_length":"3","count":"3","dtype":"int8","endianness":"little","file":"array-flags.bin","sha256":"93e772956f17992a47a91298caf462d300d74a96ef3833c7a667462b87ee90ed"},"ids":{"byte_length":"24","count":"3","dtype":"uint64","endianness":"little","file":"array-ids.bin","sha256":"fcc4cc05323d8851a676a44e87879ee41dff197698e6054d955b561c2bf62df6"},"none":{"byte_length":"0","count":"0","dtype":"uint32","endianness":"little","file":"array-none.bin","sha256":"e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"}},"format":"pipewhy.snapshot","snapshot":{"coverage":{"expected_records":"3","failure_reasons":[],"returned_records":"3","status":"COMPLETE"},"fingerprint_context":{"algorithm_id":"alg-id","algorithm_name":"xxh3-128-sum","context_id":"ctx-id","mode":"unordered","profile_id":"profile-id","source_schema_id":"schema-id"},"finished_at_ns":"18446744073709551615","parent_id":null,"resolution":"record","scope":"orders — <all> & \"q\"\t\u0001","snapshot_id":"0123456789abcdef0123456789abcdef","source_consistency":"read-committed","source_namespace":"sqlite:shop.db/ü","source_version":"v1","started_at_ns":"0"},"version":1}`

const fixtureID = "0123456789abcdef0123456789abcdef"

func mustID(t testing.TB, s string) ID {
	t.Helper()
	id, err := ParseID(s)
	if err != nil {
		t.Fatal(err)
	}
	return id
}

// fixtureMetadata is the metadata of fixtureManifest.
func fixtureMetadata(t testing.TB) Metadata {
	return Metadata{
		ID:                mustID(t, fixtureID),
		SourceNamespace:   "sqlite:shop.db/ü",
		SourceVersion:     "v1",
		SourceConsistency: "read-committed",
		Scope:             "orders — <all> & \"q\"\t\x01",
		StartedAtNs:       0,
		FinishedAtNs:      1<<64 - 1,
		Resolution:        ResolutionRecord,
		Coverage:          Coverage{Status: Complete, Expected: Known(3), Returned: 3, FailureReasons: []string{}},
		Fingerprint: FingerprintContext{AlgorithmName: "xxh3-128-sum", AlgorithmID: "alg-id", ContextID: "ctx-id",
			ProfileID: "profile-id", SourceSchemaID: "schema-id", Mode: "unordered"},
	}
}

func fixtureArrays() map[string]Array {
	return map[string]Array{
		"ids":   FromUint64([]uint64{1, 2, 1<<64 - 1}),
		"flags": FromInt8([]int8{-128, -1, 127}),
		"none":  FromUint32(nil),
	}
}

// newStore opens a store in a fresh temporary directory.
func newStore(t testing.TB, opts Options) *Store {
	t.Helper()
	s, err := Open(t.TempDir(), opts)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func publishFixture(t testing.TB, s *Store) ID {
	t.Helper()
	md := fixtureMetadata(t)
	if err := s.Publish(context.Background(), md, fixtureArrays()); err != nil {
		t.Fatal(err)
	}
	return md.ID
}

func codeOf(err error) Code {
	var e *Error
	if errors.As(err, &e) {
		return e.Code
	}
	return ""
}

// wantIntegrity checks err is a *StorageIntegrityError naming file.
func wantIntegrity(t testing.TB, err error, file string) {
	t.Helper()
	var ie *StorageIntegrityError
	if !errors.As(err, &ie) {
		t.Fatalf("error %v (%T) is not a StorageIntegrityError", err, err)
	}
	if !strings.Contains(err.Error(), file) {
		t.Fatalf("error %q does not name %s", err, file)
	}
}

func listDir(t testing.TB, dir string) []string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	var names []string
	for _, e := range ents {
		names = append(names, e.Name())
	}
	return names
}

func stagingDirOf(s *Store) string { return filepath.Join(s.Root(), stagingDir) }

func sha256Sum(b []byte) [32]byte { return sha256.Sum256(b) }
