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
		if len(stored) > 1<<16 { // bounds each run, and so each minimization
			t.Skip("input over 64 KiB")
		}
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

// zBlockBytes is one block of the stream: the header for raw_length raw and frame_length
// len(frames), then frames.
func zBlockBytes(raw uint32, frames []byte) []byte {
	b := binary.LittleEndian.AppendUint32(nil, raw)
	b = binary.LittleEndian.AppendUint32(b, uint32(len(frames)))
	return append(b, frames...)
}

// skippable is a zstd skippable frame (RFC 8878 3.1.2) of n bytes in all, n >= 8.
func skippable(n int) []byte {
	b := []byte{0x50, 0x2a, 0x4d, 0x18}
	b = binary.LittleEndian.AppendUint32(b, uint32(n-8))
	return append(b, make([]byte, n-8)...)
}

// TestZBlocksBoundsExact: PW-C5Z.03's bounds are inclusive. A block of raw_length
// exactly 4 MiB and one of frame_length exactly 4 MiB + 64 KiB (a frame padded with a
// skippable frame, which readers skip) decode; one element or one byte more does not.
func TestZBlocksBoundsExact(t *testing.T) {
	const maxRaw, maxFrame = 4194304, 4259840 // the contract's figures, not the constants
	big := make([]byte, maxRaw)
	for i := range big {
		big[i] = byte(i * 7)
	}
	frame := zEncoder().EncodeAll(big, nil)
	if got, err := zDecode(zBlockBytes(maxRaw, frame), 8, maxRaw); err != nil || !bytes.Equal(got, big) {
		t.Fatalf("raw_length 4 MiB: %v", err)
	}
	over := append(bytes.Clone(big), make([]byte, 8)...)
	if _, err := zDecode(zBlockBytes(maxRaw+8, zEncoder().EncodeAll(over, nil)), 8, maxRaw+8); err == nil {
		t.Fatal("raw_length 4 MiB + 8 accepted")
	}

	one := zFixtureLogical[:8]
	f := zEncoder().EncodeAll(one, nil)
	at := append(bytes.Clone(f), skippable(maxFrame-len(f))...)
	if got, err := zDecode(zBlockBytes(8, at), 8, 8); err != nil || !bytes.Equal(got, one) {
		t.Fatalf("frame_length 4 MiB + 64 KiB: %v", err)
	}
	past := append(bytes.Clone(f), skippable(maxFrame+1-len(f))...)
	var ie *StorageIntegrityError
	if _, err := zDecode(zBlockBytes(8, past), 8, 8); !errors.As(err, &ie) {
		t.Fatalf("frame_length 4 MiB + 64 KiB + 1: error %v, want a *StorageIntegrityError", err)
	}
}

// TestZBlocksNeverDeliverPastByteLength: a block that would take the decoded bytes past
// the manifest's byte_length is refused before any of it reaches the reader, so a
// caller never sees more bytes than byte_length, whatever the stream holds.
func TestZBlocksNeverDeliverPastByteLength(t *testing.T) {
	first := zFixture[:33] // the fixture's blocks are 16 then 8 bytes
	twice := append(bytes.Clone(first), first...)
	for _, c := range []struct {
		stored []byte
		want   uint64
	}{{zFixture, 0}, {zFixture, 8}, {zFixture, 16}, {twice, 24}} {
		stored, want := c.stored, c.want
		got, err := zDecode(stored, 8, want)
		var ie *StorageIntegrityError
		if !errors.As(err, &ie) {
			t.Fatalf("byte_length %d: error %v, want a *StorageIntegrityError", want, err)
		}
		if uint64(len(got)) > want {
			t.Fatalf("byte_length %d: %d bytes delivered", want, len(got))
		}
	}
}

// TestZBlocksReaderReusesBuffers: decoding allocates per stream, not per block: the
// frame and block buffers are reused when the next block fits them exactly.
func TestZBlocksReaderReusesBuffers(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector makes sync.Pool (the zstd decoder's state) drop items: allocations are not counted")
	}
	block := bytes.Repeat([]byte("0123456789abcdef"), 64) // 1 KiB
	frame := zEncoder().EncodeAll(block, nil)
	allocs := func(n int) float64 {
		stored := bytes.Repeat(zBlockBytes(uint32(len(block)), frame), n)
		buf := make([]byte, 4096)
		return testing.AllocsPerRun(5, func() {
			z := newZReader(bytes.NewReader(stored), "array-a.bin", 8, uint64(n*len(block)))
			for {
				if _, err := z.Read(buf); err == io.EOF {
					return
				} else if err != nil {
					t.Fatal(err)
				}
			}
		})
	}
	if few, many := allocs(2), allocs(66); many > few {
		t.Fatalf("2 blocks: %.0f allocations, 66 equal blocks: %.0f", few, many)
	}
}
