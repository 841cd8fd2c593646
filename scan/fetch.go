package scan

import (
	"encoding/binary"
	"slices"
	"sync"

	"github.com/pipewhy/pipewhy/normalize"
)

// fetcher finds the records of Options.Fetch in the encoded tiles. Each record's key is
// projected as the engine projects it (the C2 record of the key fields, ascending id:
// fingerprint.Result.KeyWords), so a key taken from a scan's Key matches byte for byte.
type fetcher struct {
	keyIDs  []uint64       // ascending
	want    map[string]int // key words as little-endian bytes → index in got
	scratch [][]byte       // per encoder goroutine
	mu      sync.Mutex
	got     [][]uint64
}

func newFetcher(keys [][]uint64, keyIDs []uint64, workers int) *fetcher {
	f := &fetcher{keyIDs: keyIDs, want: make(map[string]int, len(keys)),
		scratch: make([][]byte, workers), got: make([][]uint64, len(keys))}
	for i, k := range keys {
		f.want[string(wordBytes(nil, k))] = i
	}
	return f
}

// tile is called by encoder goroutine w; the tile's records are C2 by construction
// (the engine checked their framing before this is called).
func (f *fetcher) tile(w int, b *normalize.RecordBatch) {
	for i := range b.Len() {
		rec := b.Record(i)
		k := f.project(f.scratch[w][:0], rec)
		f.scratch[w] = k
		if ix, ok := f.want[string(k)]; ok {
			f.mu.Lock()
			f.got[ix] = slices.Clone(rec)
			f.mu.Unlock()
		}
	}
}

// project appends the key record of rec ([version, domain, key count, key frames...])
// as little-endian bytes; a record lacking a key field (the engine refuses it) projects
// to fewer frames and matches no wanted key.
func (f *fetcher) project(dst []byte, rec []uint64) []byte {
	dst = wordBytes(dst, []uint64{normalize.WireVersion, normalize.RecordDomain, uint64(len(f.keyIDs))})
	ki := 0
	for p := 3; p+3 <= len(rec) && ki < len(f.keyIDs); {
		end := p + 3 + int(rec[p+2])
		if end > len(rec) {
			break
		}
		if rec[p] == f.keyIDs[ki] {
			dst = wordBytes(dst, rec[p:end])
			ki++
		}
		p = end
	}
	return dst
}

func wordBytes(dst []byte, w []uint64) []byte {
	for _, x := range w {
		dst = binary.LittleEndian.AppendUint64(dst, x)
	}
	return dst
}
