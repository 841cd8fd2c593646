package snapshot

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// TestReadSmallLimit: readSmall returns a file of at most max bytes whole, and refuses
// one byte more as a *StorageIntegrityError, for limits from 0 (an empty file only)
// through those below, at and above its first buffer (8 KiB).
func TestReadSmallLimit(t *testing.T) {
	s := newStore(t, Options{})
	dir := t.TempDir()
	for _, max := range []int{0, 1, 100, 8191, 8192, 8193, 20000} {
		for _, size := range []int{max, max + 1} {
			data := make([]byte, size)
			for i := range data {
				data[i] = byte(i*31 + 7)
			}
			p := filepath.Join(dir, "f")
			if err := os.WriteFile(p, data, 0o644); err != nil {
				t.Fatal(err)
			}
			got, err := s.readSmall(p, int64(max))
			if size <= max {
				if err != nil || !bytes.Equal(got, data) {
					t.Fatalf("max %d, %d bytes: %d bytes back, %v", max, size, len(got), err)
				}
				continue
			}
			var ie *StorageIntegrityError
			if !errors.As(err, &ie) || ie.Path != p {
				t.Fatalf("max %d, %d bytes: %v, want a *StorageIntegrityError", max, size, err)
			}
		}
	}
}
