package fingerprint

import (
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

func TestAlgorithmRegistry(t *testing.T) {
	for _, tc := range []struct {
		alg   Algorithm
		name  string
		id    string
		lanes int
	}{
		{XXH3, "xxh3-128", "pipewhy.fingerprint/xxh3-128/v1", 2},
		{SHA256, "sha256-128", "pipewhy.fingerprint/sha256-128/v1", 2},
	} {
		if tc.alg.Name() != tc.name || tc.alg.ID() != tc.id || tc.alg.Version() != 1 || tc.alg.Lanes() != tc.lanes {
			t.Errorf("%v: name %q id %q version %d lanes %d", tc.alg, tc.alg.Name(), tc.alg.ID(), tc.alg.Version(), tc.alg.Lanes())
		}
		if a, err := LookupAlgorithm(tc.name, 1); err != nil || a != tc.alg {
			t.Errorf("LookupAlgorithm(%q, 1) = %v, %v", tc.name, a, err)
		}
		if a, err := ParseAlgorithm(tc.id); err != nil || a != tc.alg {
			t.Errorf("ParseAlgorithm(%q) = %v, %v", tc.id, a, err)
		}
	}
	if (Algorithm{}).Valid() || (Algorithm{}).ID() != "" || (Algorithm{}).Lanes() != 0 {
		t.Error("zero Algorithm must be invalid")
	}
	for _, tc := range []struct {
		id   string
		code Code
	}{
		{"pipewhy.fingerprint/xxh3-128/v2", CodeAlgorithmVersion},
		{"pipewhy.fingerprint/sha256-128/v0", CodeAlgorithmVersion},
		{"pipewhy.fingerprint/xxh3-64/v1", CodeAlgorithm},
		{"pipewhy.fingerprint/xxh3-128/v01", CodeAlgorithm},
		{"pipewhy.fingerprint/xxh3-128/v", CodeAlgorithm},
		{"pipewhy.fingerprint/xxh3-128", CodeAlgorithm},
		{"xxh3-128/v1", CodeAlgorithm},
		{"", CodeAlgorithm},
		{"pipewhy.fingerprint/xxh3-128/v18446744073709551616", CodeAlgorithm},
	} {
		_, err := ParseAlgorithm(tc.id)
		if CodeOf(err) != tc.code {
			t.Errorf("ParseAlgorithm(%q) error %v, want code %s", tc.id, err, tc.code)
		}
		if !errors.Is(err, &Error{Code: tc.code}) {
			t.Errorf("errors.Is(%v, code %s) = false", err, tc.code)
		}
	}
	if _, err := LookupAlgorithm("xxh3-128", 2); CodeOf(err) != CodeAlgorithmVersion {
		t.Errorf("version mismatch: %v", err)
	}
	if _, err := LookupAlgorithm("md5", 1); CodeOf(err) != CodeAlgorithm {
		t.Errorf("unknown name: %v", err)
	}
}

// TestXXH3AgainstXXHSum cross-checks Sum against the independent C implementation:
// Debian's xxhsum -H2 prints the canonical (big-endian) XXH3-128 digest, i.e. Hi then Lo.
func TestXXH3AgainstXXHSum(t *testing.T) {
	xxhsum := requireTool(t, "xxhsum")
	dir := t.TempDir()
	r := rand.New(rand.NewPCG(1, 2))
	// Every length 0..300 covers all XXH3 size classes (0, 1-3, 4-8, 9-16, 17-128,
	// 129-240, long); a few longer ones cover several stripes and blocks.
	var lengths []int
	for n := 0; n <= 300; n++ {
		lengths = append(lengths, n)
	}
	lengths = append(lengths, 1023, 1024, 1025, 4096, 65537)
	var files []string
	msgs := map[string][]byte{}
	for _, n := range lengths {
		b := randBytes(r, 0)[:0]
		for range n {
			b = append(b, byte(r.Uint32()))
		}
		name := filepath.Join(dir, fmt.Sprintf("m%06d", n))
		if err := os.WriteFile(name, b, 0o600); err != nil {
			t.Fatal(err)
		}
		files = append(files, name)
		msgs[name] = b
	}
	got := runXXHSum(t, xxhsum, files)
	for _, f := range files {
		d := XXH3.Sum(msgs[f])
		if want := fmt.Sprintf("%016x%016x", d.Hi, d.Lo); got[f] != want {
			t.Errorf("length %d: xxhsum %s, Sum %s", len(msgs[f]), got[f], want)
		}
	}
}

// runXXHSum returns xxhsum -H2's digest per file.
func runXXHSum(t *testing.T, xxhsum string, files []string) map[string]string {
	t.Helper()
	out, err := exec.Command(xxhsum, append([]string{"-H2"}, files...)...).Output()
	if err != nil {
		t.Fatalf("xxhsum: %v", err)
	}
	got := map[string]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		// "<32 hex>  <path>"; some versions prefix the digest with "XXH3_" in -H2 mode.
		hexd, path, ok := strings.Cut(line, "  ")
		if !ok {
			t.Fatalf("unexpected xxhsum line %q", line)
		}
		got[path] = strings.TrimPrefix(hexd, "XXH3_")
	}
	if len(got) != len(files) {
		t.Fatalf("xxhsum printed %d digests for %d files", len(got), len(files))
	}
	return got
}

// TestSHA256Digest checks the SHA256 algorithm's word mapping against crypto/sha256
// computed here: Lo and Hi are bytes 0-7 and 8-15 of the SHA-256, little-endian.
func TestSHA256Digest(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for n := 0; n < 200; n++ {
		msg := make([]byte, n)
		for i := range msg {
			msg[i] = byte(r.Uint32())
		}
		s := sha256.Sum256(msg)
		var lo, hi uint64
		for i := 7; i >= 0; i-- {
			lo = lo<<8 | uint64(s[i])
			hi = hi<<8 | uint64(s[8+i])
		}
		if d := SHA256.Sum(msg); d.Lo != lo || d.Hi != hi {
			t.Fatalf("length %d: %x, want %x %x", n, d, lo, hi)
		}
	}
}

// TestPutWordsPortable checks the little-endian fast path equals the portable loop.
func TestPutWordsPortable(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for n := 0; n < 40; n++ {
		w := make([]uint64, n)
		for i := range w {
			w[i] = r.Uint64()
		}
		got := make([]byte, 8*n)
		putWords(got, w)
		want := make([]byte, 0, 8*n)
		for _, x := range w {
			want = binary.LittleEndian.AppendUint64(want, x)
		}
		if string(got) != string(want) {
			t.Fatalf("n=%d: putWords differs from the little-endian encoding", n)
		}
	}
}
