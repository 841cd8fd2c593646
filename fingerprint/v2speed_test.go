package fingerprint

import (
	"encoding/binary"
	"math/rand/v2"
	"testing"

	"github.com/zeebo/xxh3"

	"github.com/pipewhy/pipewhy/normalize"
)

// midWant is XXH3-128(key ‖ [id, code, 1+w, n, v packed into w words]) built byte by
// byte and hashed by zeebo/xxh3: the definition the 129–240-byte text paths must meet.
func midWant(key *[keySize]byte, id, code uint64, v []byte) Digest {
	w := (len(v) + 7) / 8
	frame := []uint64{id, code, uint64(1 + w), uint64(len(v))}
	p := make([]byte, 8*w)
	copy(p, v)
	for i := range w {
		var x uint64
		for j := 7; j >= 0; j-- {
			x = x<<8 | uint64(p[8*i+j])
		}
		frame = append(frame, x)
	}
	msg := append([]byte(nil), key[:]...)
	for _, x := range frame {
		for j := range 8 {
			msg = append(msg, byte(x>>(8*j)))
		}
	}
	h := xxh3.Hash128(msg)
	return Digest{Lo: h.Lo, Hi: h.Hi}
}

// TestMidText requires midText.sum and, where the machine has it, the eight-lane vector
// routine to equal XXH3-128 over the built message for every length of the 129–240-byte
// path, at unaligned starts, with the bytes after each value not zero (they must be
// masked off).
func TestMidText(t *testing.T) {
	if !midKernel {
		// The scalar path is still checked on every length below; scripts/test.sh also
		// runs this package with -tags purego, where the vector routines are left out.
		t.Log("this CPU has no AVX-512F/DQ (or the build is purego): the eight-lane routine is not run here")
	}
	rng := rand.New(rand.NewPCG(61, 1))
	for n := midTextMin; n <= midTextMax; n++ {
		var key [keySize]byte
		for i := range key {
			key[i] = byte(rng.Uint32())
		}
		id, code := rng.Uint64N(1<<20), uint64(4+rng.IntN(2))
		ks := newKeyedShort(&key)
		m := newMidText(&ks, id, code)
		data := make([]byte, 24*n+200) // three groups of values one after another, and slack
		for i := range data {
			data[i] = byte(rng.Uint32())
		}
		var a midRunArgs
		for i := range a.offs {
			a.offs[i] = int64(i*n + rng.IntN(7))
		}
		for i, at := range a.offs {
			want := midWant(&key, id, code, data[at:at+int64(n)])
			if got := m.sum(data[at:], n); got != want {
				t.Fatalf("n=%d value %d: sum %x, xxh3 %x", n, i, got, want)
			}
		}
		if !midKernel {
			continue
		}
		// One group at the starts above, digests every third entry; then three groups
		// of values one after another from an odd start.
		out := make([]Digest, 3*8)
		sum := m.run(&a, data, n, 1, 0, out, 3)
		var want Digest
		for i, d := range out {
			w := Digest{}
			if i%3 == 0 {
				at := a.offs[i/3]
				w = midWant(&key, id, code, data[at:at+int64(n)])
			}
			if d != w {
				t.Fatalf("n=%d entry %d: run %x, want %x", n, i, d, w)
			}
			want.Lo += w.Lo
			want.Hi += w.Hi
		}
		if sum != want {
			t.Fatalf("n=%d: run's sum %x, want %x", n, sum, want)
		}
		base := 1 + rng.IntN(7)
		for i := range a.offs {
			a.offs[i] = int64(base + i*n)
		}
		out = make([]Digest, 3*8)
		m.run(&a, data, n, 3, int64(8*n), out, 1)
		for i, d := range out {
			at := base + i*n
			if w := midWant(&key, id, code, data[at:at+n]); d != w {
				t.Fatalf("n=%d value %d of three groups: run %x, xxh3 %x", n, i, d, w)
			}
		}
	}
}

// TestStringsLengths runs the Strings kernel on columns whose values are 0 to 300 bytes
// long, in runs of one length (so that groups of eight values of one length take the
// vector routine where the machine has it, and shorter runs the scalar paths), starting
// at unaligned offsets in a buffer with no zero byte (a value's bytes must be masked off
// from what follows), with and without validity bitmaps, int32 and int64 offsets, TEXT
// and BYTES, and requires every digest and the sums to equal XXH3-128 of the C2 frame
// built by hand (refField).
func TestStringsLengths(t *testing.T) {
	r := rand.New(rand.NewPCG(61, 2))
	c := v2Context(t, Multiset)
	k, err := NewColumnar(c, kernelFields)
	if err != nil {
		t.Fatal(err)
	}
	for trial := range 60 {
		code := []normalize.TypeCode{normalize.Text, normalize.Bytes}[trial%2]
		col := map[normalize.TypeCode]int{normalize.Text: colText, normalize.Bytes: colBytes}[code]
		// Lengths: runs of 1 to 20 values of one length, half of them on the
		// 129–240-byte path (65 to 176 bytes).
		var lens []int
		for len(lens) < 300 {
			n := r.IntN(301)
			if r.IntN(2) == 0 {
				n = midTextMin + r.IntN(midTextMax-midTextMin+1)
			}
			for range 1 + r.IntN(20) {
				lens = append(lens, n)
			}
		}
		rows := len(lens)
		data := make([]byte, r.IntN(8))
		offs := []int64{int64(len(data))}
		for _, n := range lens {
			for range n {
				data = append(data, byte(r.Uint32())|0x80)
			}
			offs = append(offs, int64(len(data)))
		}
		if trial%3 != 0 { // slack after the last value (else the buffer ends there)
			for range r.IntN(200) {
				data = append(data, byte(r.Uint32())|0x80)
			}
		}
		valid := randValidity(r, rows)
		tile := NewTile(rows, len(kernelFields))
		var sum Digest
		if trial%4 < 2 {
			o32 := make([]int32, len(offs))
			for i, o := range offs {
				o32[i] = int32(o)
			}
			sum, err = Strings(k, tile, col, code, o32, data, valid)
		} else {
			sum, err = Strings(k, tile, col, code, offs, data, valid)
		}
		if err != nil {
			t.Fatal(err)
		}
		var want Digest
		for i := range rows {
			w := refField(c, frame(kernelFields[col], normalize.Null))
			if isValid(valid, i) {
				w = refField(c, frame(kernelFields[col], code, packed(data[offs[i]:offs[i+1]])...))
			}
			if got := tile.Digests[i*tile.Cols+col]; got != w {
				t.Fatalf("trial %d row %d (%d bytes at %d, valid %v): %x, XXH3-128 %x", trial, i, lens[i], offs[i], isValid(valid, i), got, w)
			}
			want.Lo += w.Lo
			want.Hi += w.Hi
		}
		if sum != want {
			t.Fatalf("trial %d: sum %x, want %x", trial, sum, want)
		}
	}
}

// TestRecordsTwoFields requires the record digests of two-field tiles (the inline and
// the eight-row vector paths, with the rows past the last group of eight) to equal
// XXH3-128 of K_R ‖ the row's field digests built by hand (refHash), and their sums.
func TestRecordsTwoFields(t *testing.T) {
	r := rand.New(rand.NewPCG(61, 3))
	c := v2Context(t, Multiset)
	k, err := NewColumnar(c, []uint64{1, 2})
	if err != nil {
		t.Fatal(err)
	}
	keys := refV2Keys(c)
	for _, rows := range []int{0, 1, 7, 8, 9, 15, 16, 17, 63, 64, 65, 1000} {
		tile := NewTile(rows+r.IntN(3), 2) // the tile may hold more rows than asked for
		for i := range tile.Digests {
			tile.Digests[i] = Digest{Lo: r.Uint64(), Hi: r.Uint64()}
		}
		dst := make([]Digest, rows)
		sum, err := k.Records(dst, tile, 0)
		if err != nil {
			t.Fatal(err)
		}
		var want Digest
		for i := range rows {
			a, b := tile.Digests[2*i], tile.Digests[2*i+1]
			w := refHash(keys.record, a.Lo, a.Hi, b.Lo, b.Hi)
			if dst[i] != w {
				t.Fatalf("rows=%d row %d: %x, XXH3-128 %x", rows, i, dst[i], w)
			}
			want.Lo += w.Lo
			want.Hi += w.Hi
		}
		if sum != want {
			t.Fatalf("rows=%d: sum %x, want %x", rows, sum, want)
		}
	}
}

// TestWordsGroups requires the one-word kernels on 64-bit values (eight at a time in the
// vector routine where the machine has it, then one at a time) to give XXH3-128 of the
// frame built by hand, for every row count from 0 to 40 and a long column, negative and
// non-negative values mixed, in tiles of one and of eleven columns.
func TestWordsGroups(t *testing.T) {
	r := rand.New(rand.NewPCG(61, 4))
	c := v2Context(t, Multiset)
	k, err := NewColumnar(c, kernelFields)
	if err != nil {
		t.Fatal(err)
	}
	one, err := NewColumnar(c, kernelFields[:1])
	if err != nil {
		t.Fatal(err)
	}
	id := kernelFields[colInt]
	for rows := range 42 {
		if rows == 41 {
			rows = 1000
		}
		ints := randInts[int64](r, rows)
		uints := randUints[uint64](r, rows)
		for _, kc := range []*Columnar{k, one} {
			tile := NewTile(rows, kc.Fields())
			check := func(what string, sum Digest, err error, frame func(i int) []uint64) {
				t.Helper()
				if err != nil {
					t.Fatal(err)
				}
				var want Digest
				for i := range rows {
					w := refField(c, frame(i))
					if got := tile.Digests[i*tile.Cols+colInt]; got != w {
						t.Fatalf("%s rows=%d cols=%d row %d: %x, XXH3-128 %x", what, rows, tile.Cols, i, got, w)
					}
					want.Lo += w.Lo
					want.Hi += w.Hi
				}
				if sum != want {
					t.Fatalf("%s rows=%d: sum %x, want %x", what, rows, sum, want)
				}
			}
			sum, err := Ints(kc, tile, colInt, ints, Validity{})
			check("Ints", sum, err, func(i int) []uint64 {
				if ints[i] < 0 {
					return frame(id, normalize.Int64, uint64(ints[i]))
				}
				return frame(id, normalize.Uint64, uint64(ints[i]))
			})
			sum, err = Uints(kc, tile, colInt, uints, Validity{})
			check("Uints", sum, err, func(i int) []uint64 { return frame(id, normalize.Uint64, uints[i]) })
		}
	}
}

// TestMidSecrets requires the secret words the 129–240-byte text path uses as constants
// to be the default secret's words at their byte offsets.
func TestMidSecrets(t *testing.T) {
	for off, c := range map[int]uint64{
		3: s3, 11: s11, 19: s19, 27: s27, 35: s35, 43: s43, 48: s48, 51: s51, 56: s56, 59: s59,
		64: s64, 67: s67, 72: s72, 75: s75, 80: s80, 83: s83, 88: s88, 91: s91, 96: s96,
		103: s103, 104: s104, 111: s111, 112: s112, 119: s119, 120: s120, 127: s127,
	} {
		if want := binary.LittleEndian.Uint64(xxhSecret[off:]); c != want {
			t.Errorf("s%d = %#x, the secret's word is %#x", off, c, want)
		}
	}
}
