package vectors

import (
	"os"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"
)

func checkFile(t *testing.T, path string) []Result {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	f, err := Parse(data)
	if err != nil {
		t.Fatal(err)
	}
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	c := &Checker{Mem: mem}
	res := c.CheckFile(f)
	if len(res) != len(f.Vectors)+len(f.NegativeVectors) {
		t.Fatalf("%d results for %d vectors", len(res), len(f.Vectors)+len(f.NegativeVectors))
	}
	for _, r := range res {
		if !r.Passed() {
			t.Errorf("%s: %v", r.ID, r.Err)
		}
	}
	return res
}

func TestOfficialVectors(t *testing.T) {
	res := checkFile(t, "../testdata/graphforge/canonical-fingerprint-v1.json")
	var pos, neg int
	for _, r := range res {
		if r.Negative {
			neg++
		} else {
			pos++
		}
	}
	if pos != 9 || neg != 10 {
		t.Errorf("official file: %d positive, %d negative vectors, want 9 and 10", pos, neg)
	}
}

// PipeWhy's own vectors: every type, tag and error code, payloads written by hand
// (testdata/pipewhy/mkvectors.py spells each one out from the contract text).
func TestPipeWhyVectors(t *testing.T) {
	res := checkFile(t, "../testdata/pipewhy/pipewhy-canonical-v1.json")
	codes := map[string]bool{}
	for _, r := range res {
		if r.Negative && r.Passed() {
			codes[string(r.Got)] = true
		}
	}
	for _, c := range []string{"GF_CANONICAL_NULLABILITY", "GF_CANONICAL_ENCODING", "GF_CANONICAL_ARROW_TYPE",
		"GF_CANONICAL_TEMPORAL", "GF_CANONICAL_MAP_KEY", "GF_CANONICAL_UTF8", "GF_CANONICAL_LIMIT",
		"GF_UNSUPPORTED_CONTRACT_VERSION"} {
		if !codes[c] {
			t.Errorf("no negative vector produced %s", c)
		}
	}
}

// A vector whose payload is wrong by one byte must fail, and so must a wrong hash.
func TestCheckerDetectsMismatch(t *testing.T) {
	data, err := os.ReadFile("../testdata/graphforge/canonical-fingerprint-v1.json")
	if err != nil {
		t.Fatal(err)
	}
	f, err := Parse(data)
	if err != nil {
		t.Fatal(err)
	}
	c := &Checker{}
	v := f.Vectors[0]
	v.CanonicalPayloadHex = v.CanonicalPayloadHex[:len(v.CanonicalPayloadHex)-2] + "56"
	if err := c.CheckVector(f, v); err == nil {
		t.Error("a changed payload passed")
	}
	v = f.Vectors[0]
	v.SHA256 = "00" + v.SHA256[2:]
	if err := c.CheckVector(f, v); err == nil {
		t.Error("a changed sha256 passed")
	}
	v = f.Vectors[0]
	v.UUIDv8 = "00" + v.UUIDv8[2:]
	if err := c.CheckVector(f, v); err == nil {
		t.Error("a changed uuid passed")
	}
	v = f.Vectors[0]
	v.FingerprintPreimageHex = v.FingerprintPreimageHex[:10] + "ff" + v.FingerprintPreimageHex[12:]
	if err := c.CheckVector(f, v); err == nil {
		t.Error("a changed preimage passed")
	}
	n := f.NegativeVectors[0]
	n.Error = "GF_CANONICAL_LIMIT"
	if _, err := c.CheckNegative(f, n); err == nil {
		t.Error("a wrong expected code passed")
	}
}

// FuzzSource feeds arbitrary JSON to the source-case reader, the Arrow builders and the
// encoder: a malformed case is an error, never a panic.
func FuzzSource(f *testing.F) {
	data, err := os.ReadFile("../testdata/pipewhy/pipewhy-canonical-v1.json")
	if err != nil {
		f.Fatal(err)
	}
	file, err := Parse(data)
	if err != nil {
		f.Fatal(err)
	}
	for _, v := range file.Vectors {
		for _, sc := range v.SourceCases {
			f.Add([]byte(sc))
		}
	}
	f.Add([]byte(`{"kind":"table","fields":[{"name":"x","nullable":true,"type":{"map":{"key":"utf8","value":"int8","value_nullable":false}}}],"batches":[[[[["a",null]]]]]}`))
	f.Fuzz(func(t *testing.T, src []byte) {
		if len(src) > 4096 {
			return
		}
		mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
		_, _ = (&Checker{Mem: mem}).Payload(src, false)
		_, _ = (&Checker{Mem: mem}).Payload(src, true)
	})
}
