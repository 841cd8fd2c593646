package repo_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/pipewhy/pipewhy/normalize"
	"github.com/pipewhy/pipewhy/repo"
	"github.com/pipewhy/pipewhy/scan"
	"github.com/pipewhy/pipewhy/snapshot"
)

// FuzzLog: any log file content is read without panicking; a result is returned only
// when every complete line is a valid entry.
func FuzzLog(f *testing.F) {
	f.Add([]byte(`{"snapshot":"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa","artifact":"t","address":"t.csv","resolution":"dataset","rows":"3","coverage":"COMPLETE","finished_at_ns":"5"}` + "\n"))
	f.Add([]byte("{\"snapshot\":\"x\"}\n{"))
	f.Add([]byte("\n\n"))
	f.Add([]byte(`{"rows":"-1"}` + "\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		dir := t.TempDir()
		r, err := repo.Init(dir)
		if err != nil {
			t.Fatal(err)
		}
		os.WriteFile(filepath.Join(dir, repo.LogFile), data, 0o644)
		l, err := r.Log()
		if err == nil {
			for _, e := range l {
				if _, perr := snapshot.ParseID(e.Snapshot); perr != nil {
					t.Fatalf("accepted bad id %q", e.Snapshot)
				}
			}
		}
	})
}

// FuzzFormatValue: rendering never panics, whatever the words.
func FuzzFormatValue(f *testing.F) {
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
			repo.FormatValue(normalize.TypeCode(tc), p)
			repo.FormatRecord(append([]uint64{1, 2, 1, 7, uint64(tc), uint64(n)}, p...), func(uint64) string { return "f" })
		}
	})
}

// FuzzDecodeDescriptor: a scan snapshot whose descriptor bytes are replaced decodes
// only when they are a valid descriptor consistent with the rest; never panics.
func FuzzDecodeDescriptor(f *testing.F) {
	dir := f.TempDir()
	r, err := repo.Init(filepath.Join(dir, "r"))
	if err != nil {
		f.Fatal(err)
	}
	p := filepath.Join(dir, "t.csv")
	os.WriteFile(p, []byte("k,v\n1,a\n2,b\n"), 0o644)
	res, err := scan.Run(context.Background(), r, scan.Options{Address: p, Resolution: snapshot.ResolutionValue, Key: []string{"k"}})
	if err != nil {
		f.Fatal(err)
	}
	snap, err := r.Store().Open(res.ID)
	if err != nil {
		f.Fatal(err)
	}
	good, _ := snap.Arrays[repo.KeyDescriptor].Uint8s()
	f.Add(good)
	f.Add([]byte(`{}`))
	f.Add([]byte(`{"format":"pipewhy.scan","version":1,"fields":[{"id":"1"}]}`))
	f.Fuzz(func(t *testing.T, desc []byte) {
		s := *snap
		s.Arrays = map[string]snapshot.Array{}
		for k, v := range snap.Arrays {
			s.Arrays[k] = v
		}
		s.Arrays[repo.KeyDescriptor] = snapshot.FromUint8(desc)
		sc, err := repo.Decode(&s)
		if err == nil && sc.Len() != 2 {
			t.Fatalf("decoded %d records", sc.Len())
		}
	})
}
