package cli

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/pipewhy/pipewhy/snapshot"
	"github.com/pipewhy/pipewhy/snapshot/vfs"
)

func testMetadata(id snapshot.ID, finished uint64) snapshot.Metadata {
	return snapshot.Metadata{
		ID: id, SourceNamespace: "sqlite:shop.db", SourceVersion: "v1", SourceConsistency: "snapshot",
		Scope: "orders <all>", StartedAtNs: 1, FinishedAtNs: finished, Resolution: snapshot.ResolutionRecord,
		Coverage: snapshot.Coverage{Status: snapshot.Partial, Expected: snapshot.Known(10), Returned: 7,
			FailureReasons: []string{"page 3 timed out"}},
		Fingerprint: snapshot.FingerprintContext{AlgorithmName: "xxh3", AlgorithmID: "alg", ContextID: "ctx",
			ProfileID: "prof", SourceSchemaID: "schema", Mode: "unordered"},
	}
}

// testStore publishes two snapshots and returns the root and their IDs.
func testStore(t *testing.T) (string, snapshot.ID, snapshot.ID) {
	t.Helper()
	root := t.TempDir()
	st, err := snapshot.Open(root, snapshot.Options{})
	if err != nil {
		t.Fatal(err)
	}
	a, _ := snapshot.ParseID("aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa")
	b, _ := snapshot.ParseID("bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb")
	for i, id := range []snapshot.ID{a, b} {
		md := testMetadata(id, uint64(2-i)*1_000_000_000)
		if id == b {
			md.Parent = &a
			md.Coverage = snapshot.Coverage{Status: snapshot.Complete, Expected: snapshot.Known(3), Returned: 3}
		}
		arrays := map[string]snapshot.Array{"ids": snapshot.FromUint64([]uint64{1, 2, 1<<64 - 1}), "kind": snapshot.FromInt8([]int8{-1})}
		if err := st.Publish(context.Background(), md, arrays); err != nil {
			t.Fatal(err)
		}
	}
	return root, a, b
}

func TestSnapshotList(t *testing.T) {
	root, a, b := testStore(t)
	code, out, errOut := run(t, "", "snapshot", "list", "--store", root)
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 3 || !strings.HasPrefix(lines[1], b.String()) || !strings.HasPrefix(lines[2], a.String()) ||
		!strings.Contains(lines[1], "1970-01-01T00:00:01Z") || !strings.Contains(lines[2], "PARTIAL") ||
		!strings.Contains(lines[1], "orders <all>") {
		t.Fatalf("list output:\n%s", out)
	}
	code, out, _ = run(t, "", "snapshot", "list", "--store", root, "--json")
	var doc struct {
		Snapshots []map[string]string `json:"snapshots"`
	}
	if code != ExitOK || json.Unmarshal([]byte(out), &doc) != nil || len(doc.Snapshots) != 2 {
		t.Fatalf("exit %d, json %s", code, out)
	}
	want := map[string]string{"id": a.String(), "namespace": "sqlite:shop.db", "scope": "orders <all>",
		"finished_at_ns": "2000000000", "finished_at": "1970-01-01T00:00:02Z", "resolution": "record", "coverage": "PARTIAL"}
	for k, v := range want {
		if doc.Snapshots[1][k] != v {
			t.Errorf("%s = %q, want %q", k, doc.Snapshots[1][k], v)
		}
	}
	// An empty directory is an empty store.
	code, out, _ = run(t, "", "snapshot", "list", "--store", t.TempDir(), "--json")
	if code != ExitOK || strings.TrimSpace(out) != `{
  "snapshots": []
}` {
		t.Fatalf("empty store: exit %d, %q", code, out)
	}
}

func TestSnapshotShow(t *testing.T) {
	root, a, b := testStore(t)
	code, out, errOut := run(t, "", "snapshot", "show", "--store", root, "--json", b.String())
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var doc struct {
		Metadata map[string]any      `json:"metadata"`
		Arrays   []map[string]string `json:"arrays"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	if doc.Metadata["snapshot_id"] != b.String() || doc.Metadata["parent_id"] != a.String() ||
		doc.Metadata["finished_at_ns"] != "1000000000" || doc.Metadata["resolution"] != "record" {
		t.Fatalf("metadata %v", doc.Metadata)
	}
	cov := doc.Metadata["coverage"].(map[string]any)
	if cov["status"] != "COMPLETE" || cov["expected_records"] != "3" || cov["returned_records"] != "3" {
		t.Fatalf("coverage %v", cov)
	}
	if _, ok := doc.Arrays[0]["encoding"]; ok {
		t.Errorf("a C5 version 1 entry shows an encoding: %v", doc.Arrays[0])
	}
	if len(doc.Arrays) != 2 || doc.Arrays[0]["key"] != "ids" || doc.Arrays[0]["dtype"] != "uint64" ||
		doc.Arrays[0]["count"] != "3" || doc.Arrays[0]["byte_length"] != "24" || doc.Arrays[1]["key"] != "kind" ||
		doc.Arrays[0]["sha256"] != "fcc4cc05323d8851a676a44e87879ee41dff197698e6054d955b561c2bf62df6" {
		t.Fatalf("arrays %v", doc.Arrays)
	}
	code, out, _ = run(t, "", "snapshot", "show", "--store", root, a.String())
	for _, want := range []string{"snapshot     " + a.String(), "parent       -", "coverage     PARTIAL, expected 10, returned 7",
		"failure      page 3 timed out", "layout       C5 version 1\n", "size         25 bytes of arrays\n", "ids   uint64  3      24"} {
		if code != ExitOK || !strings.Contains(out, want) {
			t.Errorf("show text lacks %q:\n%s", want, out)
		}
	}
}

func TestSnapshotErrors(t *testing.T) {
	root, _, _ := testStore(t)
	tests := []struct {
		name string
		args []string
		code int
		msg  string
	}{
		{"no repository", []string{"snapshot", "list", "--repo", root}, ExitError, "not a pipewhy repository"},
		{"missing store", []string{"snapshot", "list", "--store", filepath.Join(root, "nope")}, ExitError, "store root is not accessible"},
		{"store and repo", []string{"snapshot", "list", "--store", root, "--repo", root}, ExitError, "--repo or --store, not both"},
		{"unknown id", []string{"snapshot", "show", "--store", root, "cccccccccccccccccccccccccccccccc"}, ExitError, "no snapshot cccc"},
		{"malformed id", []string{"snapshot", "show", "--store", root, "../etc"}, ExitError, "not a snapshot id or prefix"},
		{"abbreviated id", []string{"snapshot", "show", "--store", root, "aaaa"}, ExitOK, "aaaaaaaa"},
		{"verify unknown id", []string{"snapshot", "verify", "--store", root, "cccccccccccccccccccccccccccccccc"}, ExitError, "no snapshot"},
		{"verify malformed id", []string{"snapshot", "verify", "--store", root, "A"}, ExitError, "prefix of at least 4"},
		{"show needs an id", []string{"snapshot", "show", "--store", root}, ExitError, "accepts 1 arg"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			code, out, errOut := run(t, "", tc.args...)
			if code != tc.code || !strings.Contains(errOut+out, tc.msg) {
				t.Fatalf("exit %d, stdout %q, stderr %q; want exit %d and %q", code, out, errOut, tc.code, tc.msg)
			}
		})
	}
}

func TestSnapshotVerify(t *testing.T) {
	root, a, b := testStore(t)
	code, out, _ := run(t, "", "snapshot", "verify", "--store", root)
	if code != ExitOK || strings.Count(out, "ok ") != 2 {
		t.Fatalf("verify all: exit %d\n%s", code, out)
	}
	code, out, _ = run(t, "", "snapshot", "verify", "--store", root, a.String(), "--json")
	if code != ExitOK || !strings.Contains(out, `"ok": true`) {
		t.Fatalf("verify one: exit %d\n%s", code, out)
	}
	// Corrupt one payload byte of a.
	p := filepath.Join(root, "snapshots", a.String(), "array-ids.bin")
	data, _ := os.ReadFile(p)
	data[0] ^= 1
	os.WriteFile(p, data, 0o644)
	code, out, _ = run(t, "", "snapshot", "verify", "--store", root, a.String(), b.String())
	if code != ExitDifference || !strings.Contains(out, "FAIL  "+a.String()) || !strings.Contains(out, "array-ids.bin") ||
		!strings.Contains(out, "ok    "+b.String()) {
		t.Fatalf("verify corrupt: exit %d\n%s", code, out)
	}
	code, _, errOut := run(t, "", "snapshot", "list", "--store", root)
	if code != ExitDifference || !strings.Contains(errOut, "array-ids.bin") {
		t.Fatalf("list corrupt: exit %d, %s", code, errOut)
	}
	code, _, errOut = run(t, "", "snapshot", "show", "--store", root, a.String())
	if code != ExitDifference || !strings.Contains(errOut, "storage integrity") {
		t.Fatalf("show corrupt: exit %d, %s", code, errOut)
	}
}

func TestSnapshotInspect(t *testing.T) {
	root, _, _ := testStore(t)
	code, out, _ := run(t, "", "snapshot", "inspect", "--store", root, "--json")
	if code != ExitOK || strings.TrimSpace(out) != "{\n  \"attempts\": []\n}" {
		t.Fatalf("no attempts: exit %d %q", code, out)
	}
	// An attempt whose rename fails stays VALIDATED in staging.
	failRename := vfs.Inject(vfs.Default, func(op vfs.Op) error {
		if op.Kind == vfs.OpRename {
			return errors.New("injected")
		}
		return nil
	})
	st, err := snapshot.Open(root, snapshot.Options{FS: failRename})
	if err != nil {
		t.Fatal(err)
	}
	id := snapshot.NewID()
	if err := st.Publish(context.Background(), testMetadata(id, 5), nil); err == nil {
		t.Fatal("publish did not fail")
	}
	code, out, _ = run(t, "", "snapshot", "inspect", "--store", root, "--json")
	var doc struct {
		Attempts []struct {
			Path, Phase, Diagnostic string
			ID                      *string
		} `json:"attempts"`
	}
	if code != ExitOK || json.Unmarshal([]byte(out), &doc) != nil || len(doc.Attempts) != 1 {
		t.Fatalf("exit %d: %s", code, out)
	}
	at := doc.Attempts[0]
	if at.Phase != "VALIDATED" || at.ID == nil || *at.ID != id.String() || at.Diagnostic == "" ||
		!strings.HasPrefix(at.Path, filepath.Join(root, "staging")) {
		t.Fatalf("attempt %+v", at)
	}
	code, out, _ = run(t, "", "snapshot", "inspect", "--store", root)
	if code != ExitOK || !strings.HasPrefix(out, "VALIDATED   "+id.String()) {
		t.Fatalf("inspect text: %q", out)
	}
	// The unpublished attempt is not listed.
	code, out, _ = run(t, "", "snapshot", "list", "--store", root)
	if code != ExitOK || strings.Contains(out, id.String()) {
		t.Fatalf("list shows a staged attempt:\n%s", out)
	}
}

// TestSnapshotShowCompressed: in a C5-compressed snapshot (what a new repository writes)
// show gives every array's encoding, and its stored size and SHA-256 are those of the
// file on disk, computed here from the file; the text totals the logical and stored bytes.
func TestSnapshotShowCompressed(t *testing.T) {
	r := newRepo(t)
	id := scanShop(t, r, 1, "customers", "customer_id", "record")
	code, out, errOut := run(t, "", "snapshot", "show", "--repo", r, "--json", id)
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var doc struct {
		Arrays []map[string]string `json:"arrays"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(r, "store", "snapshots", id)
	var logical, stored uint64
	zstd := 0
	for _, a := range doc.Arrays {
		b, err := os.ReadFile(filepath.Join(dir, a["file"]))
		if err != nil {
			t.Fatal(err)
		}
		sum := sha256.Sum256(b)
		if a["stored_length"] != strconv.Itoa(len(b)) || a["stored_sha256"] != hex.EncodeToString(sum[:]) {
			t.Errorf("%s: stored %s %s, the file has %d bytes, sha256 %x", a["key"], a["stored_length"], a["stored_sha256"], len(b), sum)
		}
		switch a["encoding"] {
		case snapshot.EncodingZstd:
			zstd++
		case snapshot.EncodingRaw:
			if a["stored_length"] != a["byte_length"] || a["stored_sha256"] != a["sha256"] {
				t.Errorf("%s: a raw entry whose file is not its logical bytes: %v", a["key"], a)
			}
		default:
			t.Errorf("%s: encoding %q", a["key"], a["encoding"])
		}
		n, _ := strconv.ParseUint(a["byte_length"], 10, 64)
		logical += n
		stored += uint64(len(b))
	}
	if len(doc.Arrays) == 0 || zstd == 0 {
		t.Fatalf("no zstd-blocks array in a new repository's snapshot: %v", doc.Arrays)
	}
	code, out, _ = run(t, "", "snapshot", "show", "--repo", r, id)
	for _, want := range []string{"layout       C5-compressed version 2 ",
		fmt.Sprintf("size         %d bytes of arrays, %d stored\n", logical, stored), "ENCODING  ", "STORED"} {
		if code != ExitOK || !strings.Contains(out, want) {
			t.Errorf("show text lacks %q:\n%s", want, out)
		}
	}
}
