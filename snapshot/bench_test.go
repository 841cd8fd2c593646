package snapshot

import (
	"context"
	"os"
	"strconv"
	"testing"
)

// benchBytes is the total array size of one benchmark snapshot: PIPEWHY_BENCH_BYTES,
// or 64 MiB. bench/snapshot.sh runs these with 1 GiB next to cp and sha256sum.
func benchBytes(b *testing.B) int {
	if s := os.Getenv("PIPEWHY_BENCH_BYTES"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 64 {
			b.Fatalf("PIPEWHY_BENCH_BYTES=%q", s)
		}
		return n
	}
	return 64 << 20
}

// benchArrays splits size bytes over four arrays of different dtypes.
func benchArrays(size int) map[string]Array {
	q := size / 4
	u64 := make([]uint64, q/8)
	for i := range u64 {
		u64[i] = uint64(i) * 0x9e3779b97f4a7c15
	}
	i32 := make([]int32, q/4)
	for i := range i32 {
		i32[i] = int32(uint32(i) * 2654435761) // the same low 32 bits, on 32-bit platforms too
	}
	u16 := make([]uint16, q/2)
	for i := range u16 {
		u16[i] = uint16(i * 40503)
	}
	i8 := make([]int8, size-3*q)
	for i := range i8 {
		i8[i] = int8(i * 97)
	}
	return map[string]Array{"ids": FromUint64(u64), "values": FromInt32(i32), "codes": FromUint16(u16), "flags": FromInt8(i8)}
}

func BenchmarkPublish(b *testing.B) {
	size := benchBytes(b)
	arrays := benchArrays(size)
	s := newStore(b, Options{})
	md := fixtureMetadata(b)
	b.SetBytes(int64(size))
	b.ResetTimer()
	for b.Loop() {
		md.ID = NewID()
		if err := s.Publish(context.Background(), md, arrays); err != nil {
			b.Fatal(err)
		}
	}
}

func benchPublished(b *testing.B) (*Store, ID, int) {
	size := benchBytes(b)
	s := newStore(b, Options{})
	md := fixtureMetadata(b)
	if err := s.Publish(context.Background(), md, benchArrays(size)); err != nil {
		b.Fatal(err)
	}
	return s, md.ID, size
}

func BenchmarkOpen(b *testing.B) {
	s, id, size := benchPublished(b)
	b.SetBytes(int64(size))
	b.ResetTimer()
	for b.Loop() {
		if _, err := s.Open(id); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkVerify(b *testing.B) {
	s, id, size := benchPublished(b)
	b.SetBytes(int64(size))
	b.ResetTimer()
	for b.Loop() {
		if err := s.Verify(id); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkDecodeManifest(b *testing.B) {
	b.SetBytes(int64(len(fixtureManifest)))
	for b.Loop() {
		if _, err := decodeManifest([]byte(fixtureManifest)); err != nil {
			b.Fatal(err)
		}
	}
}
