package c2text_test

import (
	"testing"

	"github.com/pipewhy/pipewhy/normalize"
	"github.com/pipewhy/pipewhy/normalize/c2text"
)

// FuzzValue: rendering never panics, whatever the words.
func FuzzValue(f *testing.F) {
	f.Add(uint8(6), uint64(9), uint64(0x6867666564636261), uint64(0x69))
	f.Add(uint8(8), uint64(0), uint64(0), uint64(1))
	f.Add(uint8(9), uint64(2026), uint64(1<<63), uint64(3))
	f.Add(uint8(10), uint64(1<<63), uint64(0), uint64(0))          // DATE
	f.Add(uint8(11), uint64(86400e9-1), uint64(0), uint64(0))      // TIME
	f.Add(uint8(12), uint64(1), uint64(1<<63), uint64(0))          // DURATION
	f.Add(uint8(13), uint64(2026), uint64(999999999), uint64(3))   // TIMESTAMP_NS
	f.Add(uint8(14), uint64(4), uint64(0x31534647), uint64(1<<62)) // NESTED
	f.Fuzz(func(t *testing.T, tc uint8, a, b, c uint64) {
		for n := 0; n <= 12; n++ {
			p := make([]uint64, n)
			for i := range p {
				p[i] = []uint64{a, b, c}[i%3]
			}
			c2text.Value(normalize.TypeCode(tc), p)
			c2text.Record(append([]uint64{1, 2, 1, 7, uint64(tc), uint64(n)}, p...), func(uint64) string { return "f" })
		}
	})
}
