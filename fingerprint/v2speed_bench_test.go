package fingerprint

import (
	"encoding/binary"
	"testing"

	"github.com/pipewhy/pipewhy/normalize"
)

// words32Columns returns count of BenchmarkDigestSum's 32-word records (a UINT64 and a
// 168-byte TEXT) as columns: the uint64s, and the texts in Arrow layout.
func words32Columns(count int) (ids []uint64, offs []int32, data []byte) {
	ids = make([]uint64, count)
	offs = make([]int32, count+1)
	data = make([]byte, 0, 168*count)
	for i := range count {
		x := uint64(i) * 0x9e3779b97f4a7c15
		ids[i] = uint64(i)
		for j := range 21 {
			data = binary.LittleEndian.AppendUint64(data, x+uint64(j))
		}
		offs[i+1] = int32(len(data))
	}
	return ids, offs, data
}

// BenchmarkWords32Parts splits BenchmarkWords32V2's path=v2-columnar (the 32-word records:
// a UINT64 and a 168-byte TEXT, benchTile of them, in cache) into its parts, each per
// record: the uint64 kernel, the text kernel, the record digests from the tile, and all
// three (the sum of the parts when nothing else costs).
func BenchmarkWords32Parts(b *testing.B) {
	const n = benchTile
	c := mustContext(b, XXH3Columnar, Multiset)
	ids, offs, text := words32Columns(n)
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
