package compare

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/pipewhy/pipewhy/repo"
	"github.com/pipewhy/pipewhy/scan"
	"github.com/pipewhy/pipewhy/snapshot"
)

// TestStreamDiffRejectsCorruptKeyRecord: a snapshot whose checksums are good but whose
// key words hold a record that is not a C2 frame (its field count past its frames, or a
// trailing word, the offsets still tiling the words) fails the streamed diff with
// repo.CodeFormat naming the key record, without a panic and without a report; the
// same snapshots uncorrupted diff cleanly.
func TestStreamDiffRejectsCorruptKeyRecord(t *testing.T) {
	dir := t.TempDir()
	r, err := repo.Init(filepath.Join(dir, "r"))
	if err != nil {
		t.Fatal(err)
	}
	var snaps []*snapshot.Snapshot
	p := filepath.Join(dir, "t.csv") // one artifact, two versions
	for _, csv := range []string{"k,v\n1,a\n2,b\n3,c\n", "k,v\n1,a\n2,x\n4,d\n"} {
		if err := os.WriteFile(p, []byte(csv), 0o644); err != nil {
			t.Fatal(err)
		}
		out, err := scan.Run(context.Background(), r, scan.Options{Address: p, Resolution: snapshot.ResolutionValue, Key: []string{"k"}})
		if err != nil {
			t.Fatal(err)
		}
		s, err := r.Store().Open(out.ID)
		if err != nil {
			t.Fatal(err)
		}
		snaps = append(snaps, s)
	}
	words := func(s *snapshot.Snapshot, key string) []uint64 {
		w, err := s.Arrays[key].Uint64s()
		if err != nil {
			t.Fatal(err)
		}
		return slices.Clone(w)
	}
	kw, ko := words(snaps[1], repo.KeyKeyWords), words(snaps[1], repo.KeyKeyOffsets)
	fieldCount := slices.Clone(kw)
	fieldCount[ko[0]+2]++
	trailW := slices.Insert(slices.Clone(kw), int(ko[1]), 7)
	trailO := slices.Clone(ko)
	for i := 1; i < len(trailO); i++ {
		trailO[i]++
	}
	for _, c := range []struct {
		name        string
		words, offs []uint64
		fails       bool
	}{
		{"uncorrupted", kw, ko, false},
		{"field count past the frames", fieldCount, ko, true},
		{"trailing word", trailW, trailO, true},
	} {
		// Publish both sides in a store of their own, b's key arrays replaced: the
		// checksums are of the replaced words, so only the record rules can catch them.
		st, err := snapshot.Open(t.TempDir(), snapshot.Options{})
		if err != nil {
			t.Fatal(err)
		}
		bad := map[string]snapshot.Array{}
		for k, v := range snaps[1].Arrays {
			bad[k] = v
		}
		bad[repo.KeyKeyWords], bad[repo.KeyKeyOffsets] = snapshot.FromUint64(c.words), snapshot.FromUint64(c.offs)
		if err := st.Publish(context.Background(), snaps[0].Metadata, snaps[0].Arrays); err != nil {
			t.Fatal(err)
		}
		if err := st.Publish(context.Background(), snaps[1].Metadata, bad); err != nil {
			t.Fatal(err)
		}
		rs := repo.OnStore(st, repo.DefaultAlgorithm)
		a, err := rs.LoadParts(snaps[0].Metadata.ID, 0, nil)
		if err != nil {
			t.Fatal(err)
		}
		b, err := rs.LoadParts(snaps[1].Metadata.ID, 0, nil)
		if err != nil {
			t.Fatal(err)
		}
		rep, err := Diff(a, b, Options{Limit: 10, Stream: func(s *repo.Scan, parts repo.Parts) (*repo.EntryReader, error) {
			return rs.Entries(s, parts, nil)
		}})
		if !c.fails {
			if err != nil || rep == nil || rep.Records == nil || rep.Records.Changed != 1 || rep.Records.Added != 1 || rep.Records.Removed != 1 {
				t.Fatalf("%s: report %+v, %v; want 1 changed, 1 added, 1 removed", c.name, rep, err)
			}
			continue
		}
		var e *repo.Error
		if repo.CodeOf(err) != repo.CodeFormat || !errors.As(err, &e) || !strings.HasPrefix(e.Msg, "key record ") || rep != nil {
			t.Errorf("%s: Diff = %v, %v; want no report and %s naming a key record", c.name, rep, err, repo.CodeFormat)
		}
	}
}
