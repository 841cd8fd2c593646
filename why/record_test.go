package why

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pipewhy/pipewhy/normalize"
	"github.com/pipewhy/pipewhy/scan"
	"github.com/pipewhy/pipewhy/snapshot"
)

// TestRecord: the summary Record writes of a scan just published is the summary of the
// snapshot as loaded from the store, at every resolution, with and without a key or an
// exclusion, with lineage; a History reads it from the index.
func TestRecord(t *testing.T) {
	f := shop(t, true)
	ctx := context.Background()
	cases := []scan.Options{
		{Name: "raw", Key: []string{"id"}, Resolution: snapshot.ResolutionValue, Profile: normalize.StrictV1},
		{Name: "copy", Key: []string{"id"}, Resolution: snapshot.ResolutionRecord, Profile: normalize.StrictV1},
		{Name: "daily", Resolution: snapshot.ResolutionDataset, Profile: normalize.StrictV1},
		{Name: "other", Resolution: snapshot.ResolutionRecord, Source: sourceExclude("status"), Profile: normalize.LogicalV1},
	}
	for i, o := range cases {
		path := filepath.Join(f.project, "r.csv")
		writeFile(t, path, strings.Join(raw2, "\n")+"\n")
		o.Address = path
		res, err := scan.Run(ctx, f.r, o)
		if err != nil {
			t.Fatal(err)
		}
		if err := Record(f.r, res.ID); err != nil {
			t.Fatal(err)
		}
		loaded, err := f.r.LoadParts(res.ID, 0, nil)
		if err != nil {
			t.Fatal(err)
		}
		h, err := Open(f.r)
		if err != nil {
			t.Fatal(err)
		}
		line, ok := h.index[res.ID.String()]
		if !ok {
			t.Fatalf("case %d: no index line for the recorded scan", i)
		}
		got, _ := json.Marshal(decodeIndexLine(line, res.ID.String()))
		want, _ := json.Marshal(Summarize(loaded))
		if string(got) != string(want) {
			t.Errorf("case %d: recorded\n%s\nloaded\n%s", i, got, want)
		}
	}
	// A History reads the recorded summaries from the index: none is loaded again.
	h, _ := Open(f.r)
	for _, a := range []string{"raw", "copy", "daily", "other"} {
		ps := h.Snapshots(a)
		if _, err := h.Summary(ps[len(ps)-1]); err != nil {
			t.Fatal(err)
		}
	}
	if len(h.append) != 0 {
		t.Errorf("%d recorded summaries were built again", len(h.append))
	}
}
