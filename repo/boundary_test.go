package repo_test

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/pipewhy/pipewhy/repo"
	"github.com/pipewhy/pipewhy/scan"
	"github.com/pipewhy/pipewhy/snapshot"
)

// TestLoadKeylessDuplicateRows: a keyless record scan keys each record by the whole
// record, so a table with two identical rows has two identical adjacent record entries.
// "Sorted" means non-descending: equal neighbours load, at both resolutions.
func TestLoadKeylessDuplicateRows(t *testing.T) {
	for _, res := range []snapshot.Resolution{snapshot.ResolutionRecord, snapshot.ResolutionValue} {
		t.Run(string(res), func(t *testing.T) {
			r, err := repo.Init(t.TempDir())
			if err != nil {
				t.Fatal(err)
			}
			p := filepath.Join(t.TempDir(), "t.csv")
			if err := os.WriteFile(p, []byte("k,v\n1,a\n2,b\n1,a\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			out, err := scan.Run(context.Background(), r, scan.Options{Address: p, Resolution: res})
			if err != nil {
				t.Fatal(err)
			}
			s, err := r.Load(out.ID)
			if err != nil {
				t.Fatalf("keyless scan with duplicate rows does not load: %v", err)
			}
			if s.Len() != 3 {
				t.Fatalf("%d records, want 3", s.Len())
			}
			dup := 0
			for i := 1; i < s.Len(); i++ {
				if slices.Equal(s.Records[(i-1)*4:i*4], s.Records[i*4:i*4+4]) {
					dup++
				}
			}
			if dup != 1 {
				t.Fatalf("%d pairs of equal neighbouring record entries, want 1", dup)
			}
		})
	}
}
