package snapshot

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// randomArrays returns arrays of random dtypes, lengths and contents (constant,
// arithmetic, random bits), as a scan's payloads are.
func randomArrays(r *rand.Rand) map[string]Array {
	out := map[string]Array{}
	for i := range 1 + r.IntN(5) {
		d := []DType{Int8, Uint8, Int16, Uint16, Int32, Uint32, Int64, Uint64}[r.IntN(8)]
		n := r.IntN(5000)
		if r.IntN(8) == 0 {
			n = 0
		}
		b := make([]byte, n*d.Width())
		switch r.IntN(3) {
		case 0:
			for j := range b {
				b[j] = byte(r.Uint32())
			}
		case 1:
			for j := range b {
				b[j] = byte(j / d.Width() % 251)
			}
		}
		a, err := NewArray(d, b)
		if err != nil {
			panic(err)
		}
		out["a"+string(rune('0'+i))] = a
	}
	return out
}

// TestCompressedRoundTrip: the same random arrays published by a version 1 store and
// by a compressing store open, stream and verify as the same logical arrays byte for
// byte, with the same logical sha256 in both manifests, and each store reads the
// other's snapshot.
func TestCompressedRoundTrip(t *testing.T) {
	defer func(b int) { zBlock = b }(zBlock)
	zBlock = 4096 // many blocks per payload
	r := rand.New(rand.NewPCG(7, 8))
	root := t.TempDir()
	plain, err := Open(root, Options{})
	if err != nil {
		t.Fatal(err)
	}
	packed, err := Open(root, Options{Compress: true})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for c := range 30 {
		arrays := randomArrays(r)
		md1 := fixtureMetadata(t)
		md1.ID[0], md1.ID[1] = byte(c), 1
		md2 := md1
		md2.ID[1] = 2
		if err := plain.Publish(ctx, md1, arrays); err != nil {
			t.Fatal(err)
		}
		if c%2 == 0 {
			if err := packed.Publish(ctx, md2, arrays); err != nil {
				t.Fatal(err)
			}
		} else { // the streamed writer, in uneven pieces
			w, err := packed.Create(ctx, md2.ID)
			if err != nil {
				t.Fatal(err)
			}
			for k, a := range arrays {
				st, err := w.Append(k, a.DType())
				if err != nil {
					t.Fatal(err)
				}
				b := a.Bytes()
				for len(b) > 0 {
					n := min(len(b), r.IntN(9000))
					if _, err := st.Write(b[:n]); err != nil {
						t.Fatal(err)
					}
					b = b[n:]
				}
				if err := st.Close(); err != nil {
					t.Fatal(err)
				}
			}
			if err := w.Commit(ctx, md2, nil); err != nil {
				t.Fatal(err)
			}
		}
		man, err := os.ReadFile(filepath.Join(packed.Path(md2.ID), manifestName))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.HasSuffix(man, []byte(`,"version":2}`)) || !bytes.Contains(man, []byte(`"encoding":"zstd-blocks"`)) {
			t.Fatalf("case %d: not a version 2 manifest of zstd-blocks: %s", c, man)
		}
		for _, s := range []*Store{plain, packed} {
			for _, id := range []ID{md1.ID, md2.ID} {
				snap, err := s.Open(id)
				if err != nil {
					t.Fatalf("case %d: %v", c, err)
				}
				for k, a := range arrays {
					if !snap.Arrays[k].Equal(a) {
						t.Fatalf("case %d: array %s differs after Open", c, k)
					}
					if got := streamBytes(t, s, id, k, a); !bytes.Equal(got, a.Bytes()) {
						t.Fatalf("case %d: array %s differs after ReadArray", c, k)
					}
				}
				if err := s.VerifyArrays(id, nil, nil); err != nil {
					t.Fatal(err)
				}
			}
		}
		_, inv1, err := plain.Stat(md1.ID)
		if err != nil {
			t.Fatal(err)
		}
		_, inv2, err := plain.Stat(md2.ID)
		if err != nil {
			t.Fatal(err)
		}
		for i := range inv1 {
			if inv1[i].SHA256 != inv2[i].SHA256 || inv1[i].ByteLength != inv2[i].ByteLength || inv1[i].Count != inv2[i].Count {
				t.Fatalf("case %d: logical entry %s differs between layouts", c, inv1[i].Key)
			}
			want := sha256.Sum256(arrays[inv1[i].Key].Bytes())
			if inv1[i].SHA256 != hex.EncodeToString(want[:]) {
				t.Fatalf("case %d: sha256 is not of the logical bytes", c)
			}
		}
	}
}

// streamBytes reads the payload key of id through ReadArray.
func streamBytes(t *testing.T, s *Store, id ID, key string, a Array) []byte {
	t.Helper()
	ar, err := s.ReadArray(id, key)
	if err != nil {
		t.Fatal(err)
	}
	defer ar.Close()
	var out []byte
	switch a.DType().Width() {
	case 8:
		v := make([]uint64, a.Len())
		if err := ar.Uint64s(v); err != nil {
			t.Fatal(err)
		}
		for _, x := range v {
			out = binary.LittleEndian.AppendUint64(out, x)
		}
	case 1:
		out = make([]byte, a.Len())
		if err := ar.Uint8s(out); err != nil {
			t.Fatal(err)
		}
	default:
		out, err = io.ReadAll(ar.r)
		if err != nil {
			t.Fatal(err)
		}
	}
	return out
}

// TestCompressedFixture opens a version 2 package written by hand from
// docs/contracts/C5-compressed.md: the worked example's 51 bytes as array "a", its entry
// with both checksums computed from the bytes the contract gives, the snapshot block of
// the version 1 fixture.
func TestCompressedFixture(t *testing.T) {
	s := newStore(t, Options{})
	logical := sha256.Sum256(zFixtureLogical)
	stored := sha256.Sum256(zFixture)
	// Array "r" is the same logical bytes stored raw: stored_length and stored_sha256
	// repeat byte_length and sha256 (PW-C5Z.02).
	rawEntry := `"r":{"byte_length":"24","count":"3","dtype":"uint64","encoding":"raw",` +
		`"endianness":"little","file":"array-r.bin","sha256":"` + hex.EncodeToString(logical[:]) +
		`","stored_length":"24","stored_sha256":"` + hex.EncodeToString(logical[:]) + `"}`
	arrays := `"arrays":{"a":{"byte_length":"24","count":"3","dtype":"uint64","encoding":"zstd-blocks",` +
		`"endianness":"little","file":"array-a.bin","sha256":"` + hex.EncodeToString(logical[:]) +
		`","stored_length":"51","stored_sha256":"` + hex.EncodeToString(stored[:]) + `"},` + rawEntry + `}`
	i, j := strings.Index(fixtureManifest, `"arrays":`), strings.Index(fixtureManifest, `,"format":`)
	man := fixtureManifest[:i] + arrays + fixtureManifest[j:]
	man = strings.Replace(man, `"version":1}`, `"version":2}`, 1)
	dir := filepath.Join(s.Root(), snapshotsDir, fixtureID)
	sum := sha256.Sum256([]byte(man))
	files := map[string][]byte{
		intentName:    []byte(`{"format":"pipewhy.snapshot.intent","snapshot_id":"` + fixtureID + `","version":1}`),
		manifestName:  []byte(man),
		markerName:    []byte(hex.EncodeToString(sum[:]) + "\n"),
		"array-a.bin": zFixture,
		"array-r.bin": zFixtureLogical,
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for n, b := range files {
		if err := os.WriteFile(filepath.Join(dir, n), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	snap, err := s.Open(mustID(t, fixtureID))
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"a", "r"} {
		if got := snap.Arrays[k].Bytes(); !bytes.Equal(got, zFixtureLogical) {
			t.Fatalf("array %s is % x", k, got)
		}
	}
	// A raw entry whose stored fields disagree with its logical ones is invalid.
	if _, err := decodeManifest([]byte(strings.Replace(man, `"stored_length":"24"`, `"stored_length":"25"`, 1))); codeOf(err) != CodeInvalidManifest {
		t.Fatalf("raw entry with another stored_length: %v", err)
	}
	if _, err := decodeManifest([]byte(strings.Replace(man, `"encoding":"raw"`, `"encoding":"lz4"`, 1))); codeOf(err) != CodeUnsupported {
		t.Fatalf("unknown encoding: %v", err)
	}
	// The same package with one stored byte changed (the RLE byte: it still decodes)
	// fails both checksums; with stored_sha256 fixed up, the logical one still catches it.
	bad := bytes.Clone(zFixture)
	bad[len(bad)-1] = 8
	if err := os.WriteFile(filepath.Join(dir, "array-a.bin"), bad, 0o644); err != nil {
		t.Fatal(err)
	}
	wantIntegrity(t, s.Verify(mustID(t, fixtureID)), "array-a.bin")
	badSum := sha256.Sum256(bad)
	man2 := strings.Replace(man, hex.EncodeToString(stored[:]), hex.EncodeToString(badSum[:]), 1)
	sum2 := sha256.Sum256([]byte(man2))
	if err := os.WriteFile(filepath.Join(dir, manifestName), []byte(man2), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, markerName), []byte(hex.EncodeToString(sum2[:])+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	wantIntegrity(t, s.Verify(mustID(t, fixtureID)), "array-a.bin")
	// The two-pass reader: VerifyArrays checks only the stored bytes (which match their
	// fixed-up stored_sha256), and the stream that decodes them reads the three
	// elements (1, 2 and the 8s) and fails at its end, on the logical sha256.
	if err := s.VerifyArrays(mustID(t, fixtureID), nil, nil); err != nil {
		t.Fatalf("VerifyArrays checks the stored bytes only: %v", err)
	}
	ar, err := s.ReadArray(mustID(t, fixtureID), "a")
	if err != nil {
		t.Fatal(err)
	}
	v := make([]uint64, 3)
	if err := ar.Uint64s(v); err != nil || v[2] != 0x0808080808080808 {
		t.Fatalf("decoded %x, %v", v, err)
	}
	wantIntegrity(t, ar.End(), "array-a.bin")
	ar.Close()
	// Unread elements, and Drain, which reads them: the same verdict.
	ar, err = s.ReadArray(mustID(t, fixtureID), "a")
	if err != nil {
		t.Fatal(err)
	}
	wantIntegrity(t, ar.End(), "array-a.bin")
	wantIntegrity(t, ar.Drain(), "array-a.bin")
	ar.Close()
	// The raw array beside it ends cleanly.
	ar, err = s.ReadArray(mustID(t, fixtureID), "r")
	if err != nil {
		t.Fatal(err)
	}
	if err := ar.Drain(); err != nil {
		t.Fatalf("raw array: %v", err)
	}
	ar.Close()
	// A truncated payload: a size mismatch before anything is decoded, and a streaming
	// reader of a file cut after the check gets an integrity error, not a panic.
	if err := os.WriteFile(filepath.Join(dir, "array-a.bin"), zFixture[:40], 0o644); err != nil {
		t.Fatal(err)
	}
	wantIntegrity(t, s.Verify(mustID(t, fixtureID)), "array-a.bin")
}

// TestCompressedCorruptStream: a published compressed payload damaged in place gives
// integrity errors from Verify, Open and a streaming ReadArray.
func TestCompressedCorruptStream(t *testing.T) {
	s := newStore(t, Options{Compress: true})
	id := publishFixture(t, s)
	p := filepath.Join(s.Path(id), "array-ids.bin")
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	for _, off := range []int{0, 4, 8, 12, len(b) - 1} {
		bad := bytes.Clone(b)
		bad[off] ^= 0x40
		if err := os.Chmod(p, 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, bad, 0o644); err != nil {
			t.Fatal(err)
		}
		wantIntegrity(t, s.Verify(id), "array-ids.bin")
		_, err := s.Open(id)
		wantIntegrity(t, err, "array-ids.bin")
		ar, err := s.ReadArray(id, "ids")
		if err != nil {
			t.Fatal(err)
		}
		// Read without the checksum pass: a damaged block fails as it is decoded, a
		// block that still decodes fails at the end, on the logical sha256.
		v := make([]uint64, 3)
		rerr := ar.Uint64s(v)
		if rerr == nil {
			rerr = ar.End()
		}
		ar.Close()
		wantIntegrity(t, rerr, "array-ids.bin")
		// VerifyArrays reads only the stored bytes, and catches them all.
		wantIntegrity(t, s.VerifyArrays(id, nil, nil), "array-ids.bin")
	}
	// Undamaged, the stream ends cleanly.
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := s.VerifyArrays(id, nil, nil); err != nil {
		t.Fatal(err)
	}
	ar, err := s.ReadArray(id, "ids")
	if err != nil {
		t.Fatal(err)
	}
	defer ar.Close()
	if err := ar.Drain(); err != nil {
		t.Fatal(err)
	}
}
