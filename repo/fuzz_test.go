package repo_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

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
		if len(data) > 1<<16 { // bounds each run, and so each minimization
			t.Skip("input over 64 KiB")
		}
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
		if len(desc) > 1<<16 { // bounds each run, and so each minimization
			t.Skip("input over 64 KiB")
		}
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
