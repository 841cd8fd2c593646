package scan

import (
	"encoding/binary"
	"fmt"
	"slices"
	"unsafe"

	"github.com/pipewhy/pipewhy/fingerprint"
	"github.com/pipewhy/pipewhy/internal/hugemem"
	"github.com/pipewhy/pipewhy/snapshot"
)

// keyTemplate shortens the key words of a sorted run. A run's key records usually share
// everything but their payload words: with one int64 key field, each is
// [1 2 1 field_id 3 1 value], of which six words are the same for every entry. The
// template is the first entry's key record and the positions of its payload words
// (vary); an entry whose key record has the template's length and equals it outside
// vary is stored as its vary words alone (compactTag), any other entry whole. The
// encoding is lossless whatever the words: decoding puts the stored words back at vary
// into a copy of the template, so no entry depends on the key being valid C2. A run
// whose entries are two to three times smaller fits the memory kept for runs two to
// three times more often, and the runs that still spill write that much less.
type keyTemplate struct {
	words []uint64
	vary  []int    // ascending positions in words
	fixed [][2]int // the ranges of words outside vary, [lo, hi)
}

// compactTag marks an entry's key length word as a count of vary words (see
// keyTemplate); whole key records are far shorter than 2^63 words.
const compactTag = 1 << 63

// newKeyTemplate returns the template of key, a C2 record (header [version domain
// count], then frames [field_id type_code length payload...]): its payload words vary.
// It returns nil when key is not a well-formed record: its entries are then stored
// whole.
func newKeyTemplate(key []uint64) *keyTemplate {
	if len(key) < 3 || key[2] > uint64(len(key)) {
		return nil
	}
	t := &keyTemplate{words: slices.Clone(key)}
	pos := 3
	for range key[2] {
		if len(key)-pos < 3 || key[pos+2] > uint64(len(key)-pos-3) {
			return nil
		}
		l := int(key[pos+2])
		for p := pos + 3; p < pos+3+l; p++ {
			t.vary = append(t.vary, p)
		}
		pos += 3 + l
	}
	if pos != len(key) {
		return nil
	}
	if !t.setVary(t.vary) {
		return nil
	}
	return t
}

// setVary sets the vary positions (checked: ascending, inside words) and the fixed
// ranges between them; false when vary is not valid for the template's words.
func (t *keyTemplate) setVary(vary []int) bool {
	t.vary, t.fixed = vary, nil
	lo := 0
	for i, p := range vary {
		if p < lo || p >= len(t.words) || (i > 0 && p <= vary[i-1]) {
			return false
		}
		if p > lo {
			t.fixed = append(t.fixed, [2]int{lo, p})
		}
		lo = p + 1
	}
	if lo < len(t.words) {
		t.fixed = append(t.fixed, [2]int{lo, len(t.words)})
	}
	return true
}

// match reports whether key is stored as its vary words: its length and its words
// outside vary are the template's. A nil template matches nothing.
func (t *keyTemplate) match(key []uint64) bool {
	if t == nil || len(key) != len(t.words) {
		return false
	}
	for _, r := range t.fixed {
		if !slices.Equal(key[r[0]:r[1]], t.words[r[0]:r[1]]) {
			return false
		}
	}
	return true
}

// headerWords is the size of the run header that stores t (see encodeRun).
func (t *keyTemplate) headerWords() int64 {
	if t == nil {
		return 2
	}
	return 2 + int64(len(t.words)) + int64(len(t.vary))
}

// entryKeyWords is the words an entry with key record key takes after its key length
// word: its vary words, or the whole record.
func (t *keyTemplate) entryKeyWords(key []uint64) int64 {
	if t.match(key) {
		return int64(len(t.vary))
	}
	return int64(len(key))
}

// littleEndian reports whether this machine stores uint64s little-endian, as C5
// payloads are: then a slice of words is its payload bytes as it lies in memory.
var littleEndian = binary.NativeEndian.Uint16([]byte{1, 0}) == 1

// wordOut collects the words of one payload stream of the merge and writes them in
// blocks of outWords (a block larger than the stream's own buffer passes through it
// without a copy), as their little-endian bytes: on a little-endian machine the words'
// own memory, else an encoded copy.
type wordOut struct {
	st  *snapshot.Stream
	buf []uint64
	enc []byte // big-endian machines: the block encoded
}

// outWords is the block of a wordOut: 2 MiB, twice snapshot's stream buffer. A
// variable so that tests can make blocks tiny.
var outWords = 256 << 10

func newWordOut(st *snapshot.Stream) *wordOut {
	return &wordOut{st: st, buf: make([]uint64, 0, outWords)}
}

// add appends ws, writing a block when it is full.
func (o *wordOut) add(ws ...uint64) error {
	o.buf = append(o.buf, ws...)
	if len(o.buf) >= outWords {
		return o.flush()
	}
	return nil
}

// flush writes the collected words.
func (o *wordOut) flush() error {
	if len(o.buf) == 0 {
		return nil
	}
	var b []byte
	if littleEndian {
		b = unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(o.buf))), 8*len(o.buf))
	} else {
		o.enc = o.enc[:0]
		for _, w := range o.buf {
			o.enc = binary.LittleEndian.AppendUint64(o.enc, w)
		}
		b = o.enc
	}
	_, err := o.st.Write(b)
	o.buf = o.buf[:0]
	return err
}

// close writes what is left and closes the stream.
func (o *wordOut) close() error {
	if err := o.flush(); err != nil {
		_ = o.st.Close() // returns the same sticky error; it closes the file
		return err
	}
	return o.st.Close()
}

// keptRun is a sorted run of a record-resolution scan kept in memory without being
// encoded: the engine's records as they are (no copy), the vary words of the keys the
// template matches, in entry order, and the other keys whole, by entry ordinal. It
// reads back the entries of the run's encoding (runReader), in less memory (with one
// int64 key, 40 bytes an entry instead of 48) and without the encoding's copy.
type keptRun struct {
	recs     []uint64 // fingerprint.RecordStride words an entry
	tmpl     *keyTemplate
	vary     []uint64 // len(tmpl.vary) words per matching entry
	odd      []uint64 // the ordinals of the entries whose key is stored whole, ascending
	oddOff   []uint64 // len(odd)+1 offsets into oddWords
	oddWords []uint64
}

// newKeptRun keeps run fr under the plan rp (whose counts it must meet).
func newKeptRun(fr *fingerprint.Result, rp runPlan) (*keptRun, error) {
	n := len(fr.Records) / fingerprint.RecordStride
	if len(fr.KeyOffsets) != n+1 {
		return nil, &Error{Code: CodeInternal, Op: "fingerprint", Msg: "key words differ from the engine's entries"}
	}
	t := rp.tmpl
	kr := &keptRun{recs: fr.Records, tmpl: t, odd: make([]uint64, 0, rp.odd), oddOff: make([]uint64, 1, rp.odd+1),
		oddWords: make([]uint64, 0, rp.oddWords)}
	if t != nil {
		kr.vary = make([]uint64, 0, rp.matched*int64(len(t.vary)))
		hugemem.Advise(kr.vary[:cap(kr.vary)]) // written once, front to back
	}
	for e := range n {
		key := fr.KeyWords[fr.KeyOffsets[e]:fr.KeyOffsets[e+1]]
		if t.match(key) {
			for _, p := range t.vary {
				kr.vary = append(kr.vary, key[p])
			}
			continue
		}
		kr.odd = append(kr.odd, uint64(e))
		kr.oddWords = append(kr.oddWords, key...)
		kr.oddOff = append(kr.oddOff, uint64(len(kr.oddWords)))
	}
	if kr.bytes() != rp.kept {
		return nil, &Error{Code: CodeInternal, Op: "spill", Msg: fmt.Sprintf("run planned at %d bytes kept in %d", rp.kept, kr.bytes())}
	}
	return kr, nil
}

// bytes is the memory the run holds.
func (kr *keptRun) bytes() int64 {
	return 8 * int64(len(kr.recs)+len(kr.vary)+len(kr.odd)+len(kr.oddOff)+len(kr.oddWords))
}

// nextKept reads the next entry of rr's kept run; false after the last.
func (rr *runReader) nextKept() (bool, error) {
	kr, e := rr.kr, rr.e
	if e*fingerprint.RecordStride >= len(kr.recs) {
		return false, nil
	}
	copy(rr.rec[:], kr.recs[e*fingerprint.RecordStride:])
	words := 0
	if rr.oi < len(kr.odd) && kr.odd[rr.oi] == uint64(e) {
		lo, hi := kr.oddOff[rr.oi], kr.oddOff[rr.oi+1]
		if lo > hi || hi > uint64(len(kr.oddWords)) {
			return false, errMalformed
		}
		rr.key = kr.oddWords[lo:hi]
		words = int(hi - lo)
		rr.oi++
	} else {
		if kr.tmpl == nil || len(kr.vary)-rr.vi < len(kr.tmpl.vary) {
			return false, errMalformed
		}
		m := len(kr.tmpl.vary)
		for i, p := range kr.tmpl.vary {
			rr.tkey[p] = kr.vary[rr.vi+i]
		}
		rr.vi += m
		rr.key = rr.tkey
		words = m
	}
	rr.e++
	rr.read += 8 * uint64(fingerprint.RecordStride+words)
	return true, nil
}
