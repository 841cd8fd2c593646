package fingerprint

import (
	"encoding/binary"
	"testing"

	"github.com/pipewhy/pipewhy/normalize"
)

// BenchmarkWords32Parts splits BenchmarkWords32V2's path=v2-columnar (the 32-word records:
// a UINT64 and a 168-byte TEXT, benchTile of them, in cache) into its parts, each per
// record: the uint64 kernel, the text kernel, the record digests from the tile, and all
// three (the sum of the parts when nothing else costs).
func BenchmarkWords32Parts(b *testing.B) {
	const n = benchTile
	c := mustContext(b, XXH3Columnar, Multiset)
	ids := make([]uint64, n)
	offs := make([]int32, n+1)
	var text []byte
	var w [8]byte
	for i := range n {
		x := uint64(i) * 0x9e3779b97f4a7c15
		for j := range 21 {
			binary.LittleEndian.PutUint64(w[:], x+uint64(j))
			text = append(text, w[:]...)
		}
		ids[i] = uint64(i)
		offs[i+1] = int32(len(text))
	}
	k, err := NewColumnar(c, []uint64{1, 7})
	if err != nil {
		b.Fatal(err)
	}
	tile := NewTile(n, 2)
	recs := make([]Digest, n)
	check := func(d Digest, err error) {
		if err != nil {
			b.Fatal(err)
		}
		sink += d.Lo
	}
	uints := func() { check(Uints(k, tile, 0, ids, Validity{})) }
	strs := func() { check(Strings(k, tile, 1, normalize.Text, offs, text, Validity{})) }
	records := func() { check(k.Records(recs, tile, 0)) }
	for _, p := range []struct {
		name string
		f    func()
	}{
		{"uint64", uints},
		{"text168", strs},
		{"records", records},
		{"all", func() { uints(); strs(); records() }},
	} {
		b.Run(p.name, func(b *testing.B) { loopCPU(b, n, "record", p.f) })
	}
}

// BenchmarkMidText is midText.sum alone on 168-byte values, without the Strings kernel
// around it.
func BenchmarkMidText(b *testing.B) {
	const n = benchTile
	data := make([]byte, 168*n+8)
	for i := range data {
		data[i] = byte(i * 7)
	}
	var key [keySize]byte
	ks := newKeyedShort(&key)
	m := newMidText(&ks, 7, uint64(normalize.Text))
	loopCPU(b, n, "value", func() {
		var s uint64
		for i := range n {
			s += m.sum(data[168*i:], 168).Lo
		}
		sink += s
	})
}
