package snapshot

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pipewhy/pipewhy/snapshot/vfs"
)

// checkAllFail checks that Verify, Open and List all reject the store with a
// StorageIntegrityError naming file.
func checkAllFail(t *testing.T, s *Store, id ID, file string) {
	t.Helper()
	wantIntegrity(t, s.Verify(id), file)
	_, err := s.Open(id)
	wantIntegrity(t, err, file)
	_, err = s.List()
	wantIntegrity(t, err, file)
	_, _, err = s.Stat(id)
	wantIntegrity(t, err, file)
}

// TestCorruption damages one published file at a time, in place, and restores it.
func TestCorruption(t *testing.T) {
	s := newStore(t, Options{})
	id := publishFixture(t, s)
	dir := s.Path(id)
	files := []string{"array-flags.bin", "array-ids.bin", "array-none.bin", "complete.sha256", "intent.json", "manifest.json"}
	orig := map[string][]byte{}
	for _, f := range files {
		b, err := os.ReadFile(filepath.Join(dir, f))
		if err != nil {
			t.Fatal(err)
		}
		orig[f] = b
	}
	write := func(f string, b []byte) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(dir, f), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	restore := func() {
		t.Helper()
		for _, f := range files {
			write(f, orig[f])
		}
		if err := s.Verify(id); err != nil {
			t.Fatalf("restored store does not verify: %v", err)
		}
	}
	for _, f := range files {
		// Flip the low bit of each byte, one byte at a time.
		// Every byte goes through Verify; the first one through every reader.
		for i := range orig[f] {
			b := append([]byte(nil), orig[f]...)
			b[i] ^= 0x01
			write(f, b)
			if i == 0 {
				checkAllFail(t, s, id, f)
			} else {
				wantIntegrity(t, s.Verify(id), f)
			}
			write(f, orig[f])
		}
		// Truncate by one byte and to empty; extend by one byte (wrong byte length).
		if n := len(orig[f]); n > 0 {
			write(f, orig[f][:n-1])
			checkAllFail(t, s, id, f)
			write(f, nil)
			checkAllFail(t, s, id, f)
		}
		write(f, append(append([]byte(nil), orig[f]...), 0))
		checkAllFail(t, s, id, f)
		restore()
		// Remove it.
		if err := os.Remove(filepath.Join(dir, f)); err != nil {
			t.Fatal(err)
		}
		checkAllFail(t, s, id, f)
		restore()
		// Replace it with a symbolic link to an identical file.
		if f != "complete.sha256" && f != "manifest.json" {
			other := filepath.Join(t.TempDir(), f)
			os.WriteFile(other, orig[f], 0o644)
			os.Remove(filepath.Join(dir, f))
			if err := os.Symlink(other, filepath.Join(dir, f)); err != nil {
				t.Fatal(err)
			}
			checkAllFail(t, s, id, f)
			os.Remove(filepath.Join(dir, f))
			restore()
		}
	}
	// Extra files and directories.
	for _, extra := range []string{"array-extra.bin", "notes.txt", "MANIFEST.JSON", ".hidden"} {
		write(extra, []byte("x"))
		checkAllFail(t, s, id, extra)
		os.Remove(filepath.Join(dir, extra))
	}
	os.Mkdir(filepath.Join(dir, "sub"), 0o755)
	checkAllFail(t, s, id, "sub")
	os.Remove(filepath.Join(dir, "sub"))
	restore()

	// A consistent rewrite of a payload, its manifest entry and the marker is not
	// detected: checksums address accidental corruption, not an attacker (PW-07.03).
	// Here the manifest's snapshot_id disagrees with the directory instead.
	other := NewID()
	m, _ := decodeManifest(orig["manifest.json"])
	m.Meta.ID = other
	man := m.encode()
	write("manifest.json", man)
	write("complete.sha256", []byte(hexSum(man)+"\n"))
	write("intent.json", encodeIntent(other))
	checkAllFail(t, s, id, "manifest.json")
	restore()
}

func TestStrayEntriesInSnapshots(t *testing.T) {
	for _, name := range []string{"junk", "0123456789ABCDEF0123456789ABCDEF", "00000000000000000000000000000000"} {
		s := newStore(t, Options{})
		publishFixture(t, s)
		p := filepath.Join(s.Root(), "snapshots", name)
		if name == "junk" {
			os.WriteFile(p, nil, 0o644)
		} else {
			os.Mkdir(p, 0o755)
		}
		_, err := s.List()
		wantIntegrity(t, err, name)
	}
}

func hexSum(b []byte) string {
	s := sha256Sum(b)
	const digits = "0123456789abcdef"
	out := make([]byte, 64)
	for i, c := range s {
		out[2*i], out[2*i+1] = digits[c>>4], digits[c&15]
	}
	return string(out)
}

// TestFirstErrorInKeyOrder: the payload files are hashed concurrently, but the error
// reported is the one a check of one array after the other meets first (arrays in key
// order: flags, ids, none): a damaged earlier file beats a later damaged one or one that
// cannot be opened, and a file that cannot be opened beats damage after it.
func TestFirstErrorInKeyOrder(t *testing.T) {
	errOpen := errors.New("injected open failure")
	for _, tc := range []struct {
		name            string
		damage          []string // damaged payloads (same length: only the SHA-256 tells)
		refuse          string   // payload whose open fails
		want            string
		integrity, isIO bool
	}{
		{"damage before refusal", []string{"array-flags.bin"}, "array-ids.bin", "array-flags.bin", true, false},
		{"refusal before damage", []string{"array-ids.bin"}, "array-flags.bin", "array-flags.bin", false, true},
		{"damage before damage", []string{"array-ids.bin", "array-flags.bin"}, "", "array-flags.bin", true, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root := t.TempDir()
			plain, err := Open(root, Options{})
			if err != nil {
				t.Fatal(err)
			}
			id := publishFixture(t, plain)
			for _, f := range tc.damage {
				p := filepath.Join(plain.Path(id), f)
				b, err := os.ReadFile(p)
				if err != nil {
					t.Fatal(err)
				}
				b[0] ^= 1
				if err := os.WriteFile(p, b, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			s, err := Open(root, Options{FS: vfs.Inject(vfs.Default, func(op vfs.Op) error {
				if op.Kind == vfs.OpOpen && tc.refuse != "" && filepath.Base(op.Path) == tc.refuse {
					return errOpen
				}
				return nil
			})})
			if err != nil {
				t.Fatal(err)
			}
			_, err = s.Open(id)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want one naming %s", err, tc.want)
			}
			var ie *StorageIntegrityError
			if errors.As(err, &ie) != tc.integrity || errors.Is(err, errOpen) != tc.isIO {
				t.Fatalf("error %v: integrity %v, injected %v; want %v, %v", err, errors.As(err, &ie), errors.Is(err, errOpen), tc.integrity, tc.isIO)
			}
		})
	}
}
