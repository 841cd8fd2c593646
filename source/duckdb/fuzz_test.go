//go:build cgo

package duckdb

import (
	"context"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/pipewhy/pipewhy/source"
)

var (
	fuzzOnce sync.Once
	fuzzDB   []byte
)

// FuzzDamagedDatabase overwrites bytes of a valid database file and reads
// it: Open or Next may fail, always with a code, never with a panic, and
// the coverage stays consistent. (A crash inside DuckDB's C++ code would
// end the process; none was seen.)
func FuzzDamagedDatabase(f *testing.F) {
	f.Add(uint32(0), byte(0), uint16(1))
	f.Add(uint32(8), byte('X'), uint16(4))        // magic
	f.Add(uint32(4096), byte(0xff), uint16(64))   // database header 1
	f.Add(uint32(8192), byte(0xff), uint16(64))   // database header 2
	f.Add(uint32(12288), byte(0x00), uint16(512)) // first block
	f.Add(uint32(20000), byte(0x5a), uint16(9))
	f.Fuzz(func(t *testing.T, off uint32, val byte, n uint16) {
		fuzzOnce.Do(func() {
			dir, err := os.MkdirTemp("", "duckfuzz")
			if err != nil {
				return
			}
			defer os.RemoveAll(dir)
			p := filepath.Join(dir, "seed.duckdb")
			mkdb(t, p, "CREATE TABLE t(a BIGINT, s VARCHAR, d DOUBLE)", "INSERT INTO t SELECT i, 'v' || i, i / 3 FROM range(3000) r(i)", "CHECKPOINT")
			fuzzDB, _ = os.ReadFile(p)
		})
		if len(fuzzDB) == 0 {
			t.Fatal("no seed database")
		}
		b := append([]byte(nil), fuzzDB...)
		start := int(off % uint32(len(b)))
		for i := start; i < len(b) && i < start+int(n%4096); i++ {
			b[i] = val
		}
		p := filepath.Join(t.TempDir(), "f.duckdb")
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		src, err := Open(context.Background(), Options{Path: p, Table: "t"})
		if err != nil {
			if source.CodeOf(err) == "" {
				t.Fatalf("error without code: %v", err)
			}
			return
		}
		defer src.Close()
		for {
			rec, err := src.Next(context.Background())
			if err != nil {
				if err.Error() != "EOF" && source.CodeOf(err) == "" {
					t.Fatalf("error without code: %v", err)
				}
				break
			}
			rec.Release()
		}
		if err := src.Evidence().Coverage.Check(); err != nil {
			t.Fatal(err)
		}
	})
}
