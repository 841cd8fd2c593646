package snapshot

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"sync"
	"testing"
)

// TestArrayReaderSplitReads: a payload read in several calls yields the same elements,
// in order, as the array that was published, raw and compressed, and then ends cleanly.
func TestArrayReaderSplitReads(t *testing.T) {
	for _, compress := range []bool{false, true} {
		s := newStore(t, Options{Compress: compress})
		id := publishFixture(t, s)
		ar, err := s.ReadArray(id, "ids")
		if err != nil {
			t.Fatal(err)
		}
		v := make([]uint64, 3)
		if err := ar.Uint64s(v[:2]); err != nil {
			t.Fatal(err)
		}
		if err := ar.Uint64s(v[2:]); err != nil {
			t.Fatal(err)
		}
		if v[0] != 1 || v[1] != 2 || v[2] != 1<<64-1 || ar.End() != nil {
			t.Fatalf("compress %v: read %v, end %v", compress, v, ar.End())
		}
		ar.Close()
		ar, err = s.ReadArray(id, "flags")
		if err != nil {
			t.Fatal(err)
		}
		b := make([]uint8, 3)
		if err := ar.Uint8s(b[:1]); err != nil {
			t.Fatal(err)
		}
		if err := ar.Uint8s(b[1:]); err != nil {
			t.Fatal(err)
		}
		if b[0] != 0x80 || b[1] != 0xff || b[2] != 0x7f || ar.End() != nil {
			t.Fatalf("compress %v: read % x, end %v", compress, b, ar.End())
		}
		ar.Close()
	}
}

// TestArrayReaderShortCause: a payload that ends early (the file shrank after it was
// opened) is a *StorageIntegrityError caused by io.ErrUnexpectedEOF; one whose block
// does not decode keeps the decoder's verdict as its cause, not an end of file.
func TestArrayReaderShortCause(t *testing.T) {
	for _, compress := range []bool{false, true} {
		s := newStore(t, Options{Compress: compress})
		id := publishFixture(t, s)
		p := filepath.Join(s.Path(id), "array-ids.bin")
		ar, err := s.ReadArray(id, "ids")
		if err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(p, 0o644); err != nil {
			t.Fatal(err)
		}
		if compress {
			b, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			b[8] ^= 1 // the first block's zstd magic
			if err := os.WriteFile(p, b, 0o644); err != nil {
				t.Fatal(err)
			}
		} else if err := os.Truncate(p, 20); err != nil {
			t.Fatal(err)
		}
		err = ar.Uint64s(make([]uint64, 3))
		ar.Close()
		wantIntegrity(t, err, "array-ids.bin")
		if errors.Is(err, io.ErrUnexpectedEOF) != !compress {
			t.Errorf("compress %v: %v: io.ErrUnexpectedEOF in its chain: %v", compress, err, !compress)
		}
	}
}

// TestVerifyArraysProgressCountsStoredBytes: VerifyArrays reads the stored bytes of a
// compressed payload without decoding them, so its progress runs to the size of the
// files on disk, not to the logical byte_length.
func TestVerifyArraysProgressCountsStoredBytes(t *testing.T) {
	s := newStore(t, Options{Compress: true})
	id := publishFixture(t, s)
	var onDisk uint64
	for _, k := range []string{"ids", "flags", "none"} {
		fi, err := os.Stat(filepath.Join(s.Path(id), arrayFile(k)))
		if err != nil {
			t.Fatal(err)
		}
		onDisk += uint64(fi.Size())
	}
	var mu sync.Mutex
	var last, lastTotal uint64
	fn := func(step Step, done, total uint64) {
		mu.Lock()
		last, lastTotal = max(last, done), total
		mu.Unlock()
	}
	if err := s.VerifyArrays(id, nil, fn); err != nil {
		t.Fatal(err)
	}
	if last != onDisk || lastTotal != onDisk || onDisk == 24+3 {
		t.Fatalf("progress %d of %d, want the %d stored bytes", last, lastTotal, onDisk)
	}
}
