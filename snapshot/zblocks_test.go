package snapshot

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"math/rand/v2"
	"testing"
)

// zFixture is the worked example of docs/contracts/C5-compressed.md, written byte by
// byte from the contract text: a uint64 array holding 1, 2 and 0x0707070707070707 as
// two blocks, the first a zstd frame with one Raw_Block, the second one RLE_Block.
var (
	zFixtureLogical = []byte{
		0x01, 0, 0, 0, 0, 0, 0, 0, 0x02, 0, 0, 0, 0, 0, 0, 0,
		7, 7, 7, 7, 7, 7, 7, 7,
	}
	zFixture = []byte{
		0x10, 0, 0, 0, 0x19, 0, 0, 0, // raw_length 16, frame_length 25
		0x28, 0xb5, 0x2f, 0xfd, 0x20, 0x10, // magic, single segment, content size 16
		0x81, 0x00, 0x00, // last, Raw_Block, size 16
		0x01, 0, 0, 0, 0, 0, 0, 0, 0x02, 0, 0, 0, 0, 0, 0, 0,
		0x08, 0, 0, 0, 0x0a, 0, 0, 0, // raw_length 8, frame_length 10
		0x28, 0xb5, 0x2f, 0xfd, 0x20, 0x08, // magic, single segment, content size 8
		0x43, 0x00, 0x00, // last, RLE_Block, size 8
		0x07,
	}
)

func zDecode(stored []byte, width int, want uint64) ([]byte, error) {
	return io.ReadAll(newZReader(bytes.NewReader(stored), "array-a.bin", width, want))
}

func zEncode(t testing.TB, logical []byte) []byte {
	var b bytes.Buffer
	z := newZWriter(&b)
	if _, err := z.Write(logical); err != nil {
		t.Fatal(err)
	}
	if err := z.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func TestZBlocksFixture(t *testing.T) {
	if len(zFixture) != 51 {
		t.Fatalf("fixture is %d bytes, the contract says 51", len(zFixture))
	}
	got, err := zDecode(zFixture, 8, 24)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, zFixtureLogical) {
		t.Fatalf("decoded % x", got)
	}
}

// TestZBlocksRoundTrip: random arrays (random widths, lengths, contents from constant
// to random, block sizes down to one element) survive encode then decode byte for byte.
func TestZBlocksRoundTrip(t *testing.T) {
	defer func(b int) { zBlock = b }(zBlock)
	r := rand.New(rand.NewPCG(1, 2))
	for i := range 300 {
		width := []int{1, 2, 4, 8}[r.IntN(4)]
		zBlock = width * (1 + r.IntN(3000))
		n := width * r.IntN(20000)
		if i%50 == 0 {
			n = 0
		}
		logical := make([]byte, n)
		switch r.IntN(3) {
		case 0: // random bits, incompressible
			for j := range logical {
				logical[j] = byte(r.Uint32())
			}
		case 1: // an arithmetic sequence of uint64 words, as offsets and ids
			for j := 0; j+8 <= n; j += 8 {
				binary.LittleEndian.PutUint64(logical[j:], uint64(j/8)*uint64(1+r.IntN(9)))
			}
		}
		stored := zEncode(t, logical)
		got, err := zDecode(stored, width, uint64(n))
		if err != nil {
			t.Fatalf("case %d (width %d, %d bytes, block %d): %v", i, width, n, zBlock, err)
		}
		if !bytes.Equal(got, logical) {
			t.Fatalf("case %d: round trip differs", i)
		}
		// The writer cuts a block every zBlock bytes of input however the writes are
		// split (whole blocks at a boundary are encoded in place, the rest copied):
		// the same bytes as encoding each zBlock-sized piece on its own.
		var want []byte
		for off := 0; off < n; off += zBlock {
			piece := logical[off:min(off+zBlock, n)]
			frame := zEncoder().EncodeAll(piece, nil)
			want = binary.LittleEndian.AppendUint32(want, uint32(len(piece)))
			want = binary.LittleEndian.AppendUint32(want, uint32(len(frame)))
			want = append(want, frame...)
		}
		var b bytes.Buffer
		z := newZWriter(&b)
		for rest := logical; len(rest) > 0; {
			k := min(len(rest), 1+r.IntN(3*zBlock))
			if _, err := z.Write(rest[:k]); err != nil {
				t.Fatal(err)
			}
			rest = rest[k:]
		}
		if err := z.Close(); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(b.Bytes(), want) || !bytes.Equal(stored, want) {
			t.Fatalf("case %d (block %d, %d bytes): the blocks depend on how the writes were split", i, zBlock, n)
		}
	}
}

func TestZBlocksCorrupt(t *testing.T) {
	le := binary.LittleEndian
	mod := func(f func(b []byte) []byte) []byte { return f(bytes.Clone(zFixture)) }
	cases := map[string]struct {
		stored []byte
		want   uint64
	}{
		"truncated header":          {zFixture[:4], 24},
		"truncated frame":           {zFixture[:30], 24},
		"truncated second block":    {zFixture[:len(zFixture)-1], 24},
		"missing last block":        {zFixture[:33], 24},
		"trailing bytes":            {append(bytes.Clone(zFixture), 0), 24},
		"trailing block":            {append(bytes.Clone(zFixture), zFixture[33:]...), 24},
		"more than byte_length":     {zFixture, 16},
		"less than byte_length":     {zFixture, 32},
		"zero raw_length":           {mod(func(b []byte) []byte { le.PutUint32(b, 0); return b }), 24},
		"raw_length too large":      {mod(func(b []byte) []byte { le.PutUint32(b, zMaxRaw+8); return b }), 1 << 30},
		"raw_length not whole":      {mod(func(b []byte) []byte { le.PutUint32(b, 12); return b }), 24},
		"raw_length != content":     {mod(func(b []byte) []byte { le.PutUint32(b, 8); return b }), 24},
		"zero frame_length":         {mod(func(b []byte) []byte { le.PutUint32(b[4:], 0); return b }), 24},
		"frame_length too large":    {mod(func(b []byte) []byte { le.PutUint32(b[4:], zMaxFrame+1); return b }), 24},
		"frame_length short":        {mod(func(b []byte) []byte { le.PutUint32(b[4:], 20); return b }), 24},
		"bad magic":                 {mod(func(b []byte) []byte { b[8] ^= 1; return b }), 24},
		"reserved block type":       {mod(func(b []byte) []byte { b[14] = 0x87; return b }), 24},
		"block size over content":   {mod(func(b []byte) []byte { b[14] = 0x89; return b }), 24},
		"dictionary id":             {mod(func(b []byte) []byte { b[12] = 0x21; return b }), 24},
		"empty stream, byte_length": {nil, 8},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			_, err := zDecode(c.stored, 8, c.want)
			var ie *StorageIntegrityError
			if !errors.As(err, &ie) {
				t.Fatalf("error %v (%T), want a *StorageIntegrityError", err, err)
			}
			if ie.ErrorCode() != string(CodeIntegrity) || ie.Path != "array-a.bin" {
				t.Fatalf("code %s path %q", ie.ErrorCode(), ie.Path)
			}
		})
	}
	if got, err := zDecode(nil, 8, 0); err != nil || len(got) != 0 {
		t.Fatalf("empty array: %v %d", err, len(got))
	}
}

func FuzzZBlocksDecode(f *testing.F) {
	f.Add(zFixture, uint64(24), uint8(8))
	f.Add(zEncode(f, bytes.Repeat([]byte("pipewhy!"), 1000)), uint64(8000), uint8(8))
	f.Add([]byte{}, uint64(0), uint8(1))
	f.Fuzz(func(t *testing.T, stored []byte, want uint64, w uint8) {
		width := []int{1, 2, 4, 8}[w%4]
		got, err := zDecode(stored, width, want)
		if err != nil {
			var ie *StorageIntegrityError
			if !errors.As(err, &ie) {
				t.Fatalf("error %v (%T), want a *StorageIntegrityError", err, err)
			}
			return
		}
		if uint64(len(got)) != want || len(got)%width != 0 {
			t.Fatalf("decoded %d bytes, manifest says %d", len(got), want)
		}
	})
}
