package cli

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

const officialVectors = "../../canonical/testdata/graphforge/canonical-fingerprint-v1.json"

func TestCanonicalCheckVectorsOfficial(t *testing.T) {
	code, out, errOut := run(t, "", "canonical", "check-vectors", officialVectors)
	if code != ExitOK {
		t.Fatalf("exit %d\n%s%s", code, out, errOut)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 20 {
		t.Fatalf("%d lines, want 19 vectors and a summary:\n%s", len(lines), out)
	}
	if lines[0] != "ok    uuid-text-case" {
		t.Errorf("first line %q", lines[0])
	}
	if lines[9] != "ok    invalid-utf8 (GF_CANONICAL_UTF8)" {
		t.Errorf("first negative line %q", lines[9])
	}
	if lines[19] != "19 passed, 0 failed" {
		t.Errorf("summary %q", lines[19])
	}
}

func TestCanonicalCheckVectorsOwn(t *testing.T) {
	code, out, _ := run(t, "", "canonical", "check-vectors", "--json", "../../canonical/testdata/pipewhy/pipewhy-canonical-v1.json")
	if code != ExitOK {
		t.Fatalf("exit %d\n%s", code, out)
	}
	var res struct {
		Passed, Failed int
		Results        []struct{ ID string }
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatal(err)
	}
	if res.Failed != 0 || res.Passed != len(res.Results) || res.Passed < 80 {
		t.Errorf("passed %d failed %d of %d", res.Passed, res.Failed, len(res.Results))
	}
}

func TestCanonicalCheckVectorsFailure(t *testing.T) {
	data, err := os.ReadFile(officialVectors)
	if err != nil {
		t.Fatal(err)
	}
	// Corrupt one expected hash and one expected error code.
	bad := strings.Replace(string(data), "3cc432a310818554", "3cc432a310818555", 1)
	bad = strings.Replace(bad, `"error": "GF_CANONICAL_UTF8"`, `"error": "GF_CANONICAL_LIMIT"`, 1)
	path := filepath.Join(t.TempDir(), "bad.json")
	if err := os.WriteFile(path, []byte(bad), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, _ := run(t, "", "canonical", "check-vectors", path)
	if code != ExitDifference {
		t.Fatalf("exit %d, want %d\n%s", code, ExitDifference, out)
	}
	if !strings.Contains(out, "FAIL  uuid-text-case") || !strings.Contains(out, "FAIL  invalid-utf8: got GF_CANONICAL_UTF8, want GF_CANONICAL_LIMIT") {
		t.Errorf("failures not reported:\n%s", out)
	}
	if !strings.HasSuffix(out, "17 passed, 2 failed\n") {
		t.Errorf("summary:\n%s", out)
	}
}

func TestCanonicalCheckVectorsUnreadable(t *testing.T) {
	if code, _, _ := run(t, "", "canonical", "check-vectors", filepath.Join(t.TempDir(), "missing.json")); code != ExitError {
		t.Errorf("missing file: exit %d", code)
	}
	path := filepath.Join(t.TempDir(), "x.json")
	os.WriteFile(path, []byte(`{"format": "something-else"}`), 0o644)
	if code, _, _ := run(t, "", "canonical", "check-vectors", path); code != ExitError {
		t.Errorf("wrong format: exit %d", code)
	}
}

// writeIPC writes the official "ordered-rows-ab" table (value utf8 non-null: a, b) as an
// Arrow IPC file, in two batches.
func writeIPC(t *testing.T) string {
	mem := memory.NewGoAllocator()
	schema := arrow.NewSchema([]arrow.Field{{Name: "value", Type: arrow.BinaryTypes.String}}, nil)
	path := filepath.Join(t.TempDir(), "t.arrow")
	var buf bytes.Buffer
	w, err := ipc.NewFileWriter(&buf, ipc.WithSchema(schema))
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range []string{"a", "b"} {
		b := array.NewStringBuilder(mem)
		b.Append(v)
		rec := array.NewRecordBatch(schema, []arrow.Array{b.NewArray()}, 1)
		if err := w.Write(rec); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestCanonicalFingerprint(t *testing.T) {
	path := writeIPC(t)
	// Expected values: the official vector "ordered-rows-ab".
	code, out, errOut := run(t, "", "canonical", "fingerprint", path)
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if !strings.HasPrefix(out, "d09722eb88164d15155dcc9a9aecfc341428fe1572f3375e132749f45ca854eb  ") {
		t.Errorf("output %q", out)
	}
	code, out, errOut = run(t, "", "canonical", "fingerprint", "--json", path)
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var got map[string]any
	dec := json.NewDecoder(strings.NewReader(out))
	dec.UseNumber()
	if err := dec.Decode(&got); err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"domain": "graphforge/arrow-result", "canonical_version": "1",
		"sha256":        "d09722eb88164d15155dcc9a9aecfc341428fe1572f3375e132749f45ca854eb",
		"payload_bytes": "71", "rows": "2"}
	for k, v := range want {
		if s, ok := got[k].(json.Number); ok && s.String() == v {
			continue
		}
		if s, ok := got[k].(string); ok && s == v && k != "payload_bytes" && k != "rows" && k != "canonical_version" {
			continue
		}
		t.Errorf("%s = %#v, want %s", k, got[k], v)
	}
	if u, _ := got["uuid_v8"].(string); len(u) != 36 || u[14] != '8' {
		t.Errorf("uuid_v8 %q", u)
	}
	code, _, errOut = run(t, "", "canonical", "fingerprint", "--domain", "graphforge/nope", path)
	if code != ExitError || !strings.Contains(errOut, "unknown domain") {
		t.Errorf("unknown domain: exit %d %q", code, errOut)
	}
	code, _, _ = run(t, "", "canonical", "fingerprint", filepath.Join(t.TempDir(), "missing.arrow"))
	if code != ExitError {
		t.Errorf("missing file: exit %d", code)
	}
	code, out, _ = run(t, "", "canonical", "fingerprint", "--domain", "graphforge/schema", path)
	// The schema part of the official payload (31 bytes), hashed in graphforge/schema by
	// Python's hashlib over the envelope written out by hand.
	if code != ExitOK || !strings.HasPrefix(out, "2bbb6c50fbb5d02b6d2ce0dda06787e6694699937256e2db879aae17102252b5  ") {
		t.Errorf("schema domain: exit %d %q", code, out)
	}
}

const dfsResult = "../../canonical/testdata/graphforge-result/dfs.arrow"

// withMetadata rewrites dfsResult with other schema metadata into a temporary file.
func withMetadata(t *testing.T, keys, vals []string) string {
	t.Helper()
	fh, err := os.Open(dfsResult)
	if err != nil {
		t.Fatal(err)
	}
	defer fh.Close()
	r, err := ipc.NewFileReader(fh)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	md := arrow.NewMetadata(keys, vals)
	schema := arrow.NewSchema(r.Schema().Fields(), &md)
	var buf bytes.Buffer
	w, err := ipc.NewFileWriter(&buf, ipc.WithSchema(schema))
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < r.NumRecords(); i++ {
		rec, err := r.RecordBatch(i)
		if err != nil {
			t.Fatal(err)
		}
		if err := w.Write(array.NewRecordBatch(schema, rec.Columns(), rec.NumRows())); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "result.arrow")
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// A GraphForge-shaped result (graphforge.algorithm, .verb and .algorithm_schema_version in
// its schema metadata) fingerprints with the default registry of graphforge/arrow-result.
// The expected SHA-256 values are those of the table bytes written out by hand in
// canonical/registry_test.go, hashed in their envelope by Python's hashlib.
func TestCanonicalFingerprintGraphForgeResult(t *testing.T) {
	const (
		dfsSum   = "8ed9a25539b10dbce3b228282287cb61e30c43a6ff43986be77aa70271e1d033"
		bfsSum   = "7f56859f8294331a5f5ebe841ea308f015a7bb7b52be41c0870d0434732febc8"
		extraSum = "7f5b14bd57887994c0cee81001734ea613e3bd282ceaf37c81fbbe7cfaa7c1a0"
	)
	code, out, errOut := run(t, "", "canonical", "fingerprint", "--json", dfsResult)
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var got struct {
		SHA256       string `json:"sha256"`
		PayloadBytes uint64 `json:"payload_bytes"`
		Rows         uint64 `json:"rows"`
		Registry     struct {
			Semantic []string `json:"semantic_keys"`
		} `json:"metadata_registry"`
	}
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatal(err)
	}
	if got.SHA256 != dfsSum || got.PayloadBytes != 294 || got.Rows != 2 || len(got.Registry.Semantic) != 11 {
		t.Errorf("got %+v, want sha256 %s, 294 payload bytes, 2 rows, the 11-key standard registry", got, dfsSum)
	}

	// A declared key's value is part of the fingerprint.
	keys := []string{"graphforge.algorithm", "graphforge.algorithm_schema_version", "graphforge.verb"}
	bfs := withMetadata(t, keys, []string{"bfs", "1", "paths"})
	if code, out, errOut := run(t, "", "canonical", "fingerprint", bfs); code != ExitOK || !strings.HasPrefix(out, bfsSum+"  ") {
		t.Errorf("bfs: exit %d %q %s", code, out, errOut)
	}

	// A key no registry classifies is still rejected with its code.
	extra := withMetadata(t, append(keys, "graphforge.extra"), []string{"dfs", "1", "paths", "x"})
	code, _, errOut = run(t, "", "canonical", "fingerprint", extra)
	if code != ExitError || !strings.Contains(errOut, "GF_CANONICAL_ENCODING") || !strings.Contains(errOut, "unknown graphforge key") {
		t.Errorf("unclassified key: exit %d %q", code, errOut)
	}

	// --registry replaces the default: the user's registry classifies the key.
	reg := filepath.Join(t.TempDir(), "registry.json")
	os.WriteFile(reg, []byte(`{"semantic_keys": ["graphforge.algorithm", "graphforge.algorithm_schema_version", "graphforge.verb", "graphforge.extra"]}`), 0o644)
	if code, out, errOut := run(t, "", "canonical", "fingerprint", "--registry", reg, extra); code != ExitOK || !strings.HasPrefix(out, extraSum+"  ") {
		t.Errorf("--registry: exit %d %q %s", code, out, errOut)
	}
	// A registry that does not declare a result-contract key the table carries rejects it.
	os.WriteFile(reg, []byte(`{"semantic_keys": ["graphforge.algorithm", "graphforge.verb"]}`), 0o644)
	code, _, errOut = run(t, "", "canonical", "fingerprint", "--registry", reg, dfsResult)
	if code != ExitError || !strings.Contains(errOut, "GF_CANONICAL_ENCODING") || !strings.Contains(errOut, "undeclared result-contract key graphforge.algorithm_schema_version") {
		t.Errorf("narrow registry: exit %d %q", code, errOut)
	}
	// Another domain declares nothing by default.
	code, _, errOut = run(t, "", "canonical", "fingerprint", "--domain", "graphforge/assertion", dfsResult)
	if code != ExitError || !strings.Contains(errOut, "undeclared result-contract key") {
		t.Errorf("assertion domain: exit %d %q", code, errOut)
	}
	// An invalid registry file is an error before anything is read.
	for _, bad := range []string{`{"semantic_keys": ["producer"]}`, `{"declared": []}`, `not json`} {
		os.WriteFile(reg, []byte(bad), 0o644)
		if code, _, errOut := run(t, "", "canonical", "fingerprint", "--registry", reg, dfsResult); code != ExitError || !strings.Contains(errOut, "--registry") {
			t.Errorf("registry %s: exit %d %q", bad, code, errOut)
		}
	}
}
