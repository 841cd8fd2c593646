package fingerprint

import (
	"math/bits"
	"slices"

	"github.com/pipewhy/pipewhy/internal/hugemem"
)

// blockList is an append-only list of words in blocks that double in size (the first
// holds listBase words): no regrowth copies, at most twice the words in use, and the
// large blocks are advised for huge pages (the merge reads them at random).
type blockList struct {
	blocks [][]uint64
	n      int
}

const listBase = 1 << 12

func (l *blockList) add(x uint64) {
	b := len(l.blocks)
	if b == 0 || len(l.blocks[b-1]) == cap(l.blocks[b-1]) {
		nb := make([]uint64, 0, listBase<<b)
		hugemem.Advise(nb)
		l.blocks = append(l.blocks, nb)
		b++
	}
	last := &l.blocks[b-1]
	*last = append(*last, x)
	l.n++
}

// at returns word j. Block b starts at word listBase·(2^b − 1).
func (l *blockList) at(j uint64) uint64 {
	b := bits.Len64(j/listBase+1) - 1
	return l.blocks[b][j-listBase*(1<<b-1)]
}

// wordStore keeps variable-length runs of words (a record's key record, or its value
// entries) in chunks that double in size from keyChunkMin words up to keyChunkMax, each
// run whole inside one chunk; a run of bigKey words or more gets a chunk of its own.
// Nothing is copied as it grows, and the large chunks are advised for huge pages. One
// word per run locates it (one random read in the merge, not two):
//
//	chunk index << 40 | offset in the chunk << 16 | length   (length < bigKey)
//	chunk index << 40 | bigKey                               (the whole chunk)
//
// A store of C2 records (framed: key records) keeps its first run as a template, and a
// later run that equals the template outside its frames' payload words is kept as those
// payload words alone, its location word marked with templated: a key of one int64
// field is 7 words, of which 6 are the same in every record (10 M keys: 80 instead of
// 560 MB). copyRun writes any run back whole.
type wordStore struct {
	chunks [][]uint64
	where  blockList
	total  int // words in all runs, whole

	framed  bool
	tmpl    []uint64 // the first run (framed), or nil
	payload []int    // the positions of tmpl's payload words; nil: no template
}

const (
	keyChunkMin = 1 << 12
	keyChunkMax = 1 << 22 // offsets within a chunk fit 24 bits
	bigKey      = 1<<16 - 1
	templated   = 1 << 63 // location of a run kept as its payload words (chunk index < 2^23)
)

func (s *wordStore) add(k []uint64) {
	if s.framed && s.tmpl == nil && len(k) < bigKey {
		s.tmpl, s.payload = slices.Clone(k), payloadPositions(k)
	}
	if s.payload != nil && s.matches(k) {
		s.total += len(k)
		w := s.put(len(s.payload), func(dst []uint64) {
			for i, p := range s.payload {
				dst[i] = k[p]
			}
		})
		s.where.add(w | templated)
		return
	}
	s.total += len(k)
	s.where.add(s.put(len(k), func(dst []uint64) { copy(dst, k) }))
}

// put appends a run of n words, written by fill, and returns its location word.
func (s *wordStore) put(n int, fill func([]uint64)) uint64 {
	c := len(s.chunks)
	if n >= bigKey {
		run := make([]uint64, n) // full: no later run shares it
		fill(run)
		s.chunks = append(s.chunks, run)
		return uint64(c)<<40 | bigKey
	}
	if c == 0 || cap(s.chunks[c-1])-len(s.chunks[c-1]) < n {
		size := keyChunkMin
		if c > 0 {
			size = min(2*cap(s.chunks[c-1]), keyChunkMax)
		}
		size = max(size, n)
		nc := make([]uint64, 0, size)
		hugemem.Advise(nc)
		s.chunks = append(s.chunks, nc)
		c++
	}
	ch := &s.chunks[c-1]
	off := len(*ch)
	*ch = (*ch)[:off+n]
	fill((*ch)[off:])
	return uint64(c-1)<<40 | uint64(off)<<16 | uint64(n)
}

// matches reports whether k equals the template outside its payload positions.
func (s *wordStore) matches(k []uint64) bool {
	if len(k) != len(s.tmpl) {
		return false
	}
	from := 0
	for _, p := range s.payload {
		if !slices.Equal(k[from:p], s.tmpl[from:p]) {
			return false
		}
		from = p + 1
	}
	return slices.Equal(k[from:], s.tmpl[from:])
}

// payloadPositions returns the positions of the payload words of the C2 record rec's
// frames, or nil when rec has none or is not a well-formed record (no template then).
func payloadPositions(rec []uint64) []int {
	if len(rec) < 3 {
		return nil
	}
	var ps []int
	for f := 3; f < len(rec); {
		if len(rec)-f < 3 || rec[f+2] > uint64(len(rec)-f-3) {
			return nil
		}
		end := f + 3 + int(rec[f+2])
		for p := f + 3; p < end; p++ {
			ps = append(ps, p)
		}
		f = end
	}
	return ps
}

// at returns run j, whole (a copy when it was kept as payload words).
func (s *wordStore) at(j uint64) []uint64 {
	w := s.where.at(j)
	if w&templated != 0 {
		out := make([]uint64, len(s.tmpl))
		s.copyRun(out, w)
		return out
	}
	return s.get(w)
}

// size returns the whole length of the run at location w (a word of where).
func (s *wordStore) size(w uint64) int {
	if w&templated != 0 {
		return len(s.tmpl)
	}
	if size := w & 0xffff; size != bigKey {
		return int(size)
	}
	return len(s.chunks[w>>40])
}

// copyRun writes the run at location w, whole, to dst and returns its length.
func (s *wordStore) copyRun(dst []uint64, w uint64) int {
	if w&templated == 0 {
		return copy(dst, s.get(w))
	}
	n := copy(dst, s.tmpl)
	for i, x := range s.get(w &^ templated) {
		dst[s.payload[i]] = x
	}
	return n
}

// get returns the stored words at location w (not templated).
func (s *wordStore) get(w uint64) []uint64 {
	c := s.chunks[w>>40]
	size := w & 0xffff
	if size == bigKey {
		return c
	}
	off := w >> 16 & (1<<24 - 1)
	return c[off : off+size]
}
