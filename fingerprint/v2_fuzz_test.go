package fingerprint

import (
	"encoding/binary"
	"math/rand/v2"
	"testing"

	"github.com/pipewhy/pipewhy/normalize"
)

// FuzzV2Record: arbitrary words never make the scalar v2 path panic or read out of range
// (the hasher's frame walk included, on words nobody validated); words that pass
// validation get exactly the reference record and field digests.
func FuzzV2Record(f *testing.F) {
	r := rand.New(rand.NewPCG(21, 8))
	for range 20 {
		w := randRecordV2(r)
		f.Add(recordBytes(w), uint64(r.IntN(3)))
		w[r.IntN(len(w))] ^= 1 << r.IntN(64)
		f.Add(recordBytes(w), uint64(0))
	}
	cs := []Context{v2Context(f, Multiset), v2Context(f, Ordered)}
	f.Fuzz(func(t *testing.T, data []byte, pos uint64) {
		if len(data) > 1<<16 { // bounds each run, and so each minimization
			t.Skip("input over 64 KiB")
		}
		w := bytesWords(data)
		for _, c := range cs {
			ordered := c.Mode() == Ordered
			h := newV2Hasher(c)
			h.record(ordered, pos, w) // unvalidated words: must not panic
			if d, err := c.RecordDigest(pos, w); err == nil {
				if want := refRecordDigest(c, ordered, pos, w); d != want {
					t.Fatalf("record digest %x, reference %x", d, want)
				}
			}
			if d, err := c.FieldDigest(w); err == nil && d != refField(c, w) {
				t.Fatalf("field digest %x, reference %x", d, refField(c, w))
			}
		}
	})
}

// FuzzColumnarFrames: Columnar.Frames on arbitrary words and row counts returns an error
// or the reference field digest of each frame, never a panic.
func FuzzColumnarFrames(f *testing.F) {
	r := rand.New(rand.NewPCG(21, 9))
	anyField := SchemaField{ID: 40, Type: TypeAny}
	for range 10 {
		var w []uint64
		n := r.IntN(4)
		for range n {
			w = append(w, randValue(r, anyField, true)...)
		}
		f.Add(recordBytes(w), uint8(n))
	}
	c := v2Context(f, Multiset)
	k, err := NewColumnar(c, []uint64{40})
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, data []byte, rows uint8) {
		if len(data) > 1<<16 { // bounds each run, and so each minimization
			t.Skip("input over 64 KiB")
		}
		w := bytesWords(data)
		tile := NewTile(int(rows)%8, 1)
		if _, err := k.Frames(tile, 0, int(rows)%8, w); err != nil {
			return
		}
		at := 0
		for r := range tile.Rows() {
			fr := w[at : at+3+int(w[at+2])]
			if tile.Digests[r] != refField(c, fr) {
				t.Fatalf("row %d: digest differs from the reference", r)
			}
			at += len(fr)
		}
	})
}

// FuzzColumnarStrings: Strings on arbitrary offsets, data and validity returns an error or
// the reference field digests, never a panic.
func FuzzColumnarStrings(f *testing.F) {
	f.Add([]byte{0, 0, 0, 0, 3, 0, 0, 0, 3, 0, 0, 0}, []byte("abc"), []byte{0xff}, uint8(0))
	f.Add([]byte{1, 0, 0, 0, 0, 0, 0, 0}, []byte("abc"), []byte(nil), uint8(3))
	f.Add([]byte{0, 0, 0, 0, 200, 0, 0, 0}, make([]byte, 200), []byte{0x01}, uint8(7))
	c := v2Context(f, Multiset)
	k, err := NewColumnar(c, []uint64{7})
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, rawOffs, data, bits []byte, off uint8) {
		if len(rawOffs)+len(data)+len(bits) > 1<<16 { // bounds each run, and so each minimization
			t.Skip("input over 64 KiB")
		}
		offs := make([]int32, len(rawOffs)/4)
		for i := range offs {
			offs[i] = int32(binary.LittleEndian.Uint32(rawOffs[4*i:]))
		}
		rows := max(len(offs)-1, 0)
		valid := Validity{Bits: bits, Offset: int(off % 16)}
		tile := NewTile(rows, 1)
		if _, err := Strings(k, tile, 0, normalize.Text, offs, data, valid); err != nil {
			return
		}
		for r := range rows {
			want := refField(c, frame(7, normalize.Null))
			if valid.Bits == nil || valid.valid(r) {
				want = refField(c, frame(7, normalize.Text, packed(data[offs[r]:offs[r+1]])...))
			}
			if tile.Digests[r] != want {
				t.Fatalf("row %d: digest differs from the reference", r)
			}
		}
	})
}
