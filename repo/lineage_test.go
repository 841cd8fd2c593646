package repo

import (
	"strings"
	"testing"

	"github.com/pipewhy/pipewhy/snapshot"
)

func TestScanLineageRoundTrip(t *testing.T) {
	l := &ScanLineage{Lineage: "0123456789abcdef0123456789abcdef", Aligned: []string{"raw"},
		Transforms: []TransformRun{{Sources: []string{"a", "b"}, Relation: "transform", Kind: "file", Ref: "m/x.sql", Identity: "sha256:00"},
			{Sources: []string{"c"}, Relation: "derived", Kind: "file", Ref: "gone.sql", Error: "the file does not exist"}}}
	a, err := encodeScanLineage(l)
	if err != nil {
		t.Fatal(err)
	}
	got, err := decodeScanLineage(&snapshot.Snapshot{Arrays: map[string]snapshot.Array{KeyLineage: a}})
	if err != nil || got.Format != ScanLineageFormat || len(got.Transforms) != 2 || got.Transforms[1].Error == "" || got.Aligned[0] != "raw" {
		t.Fatalf("%+v %v", got, err)
	}
	if got, err := decodeScanLineage(&snapshot.Snapshot{Arrays: map[string]snapshot.Array{}}); got != nil || err != nil {
		t.Fatalf("absent: %+v %v", got, err)
	}
	for _, c := range []struct{ name, js, msg string }{
		{"unknown field", `{"format":"pipewhy.scan-lineage","version":1,"lineage":"0123456789abcdef0123456789abcdef","aligned":[],"transforms":[],"x":1}`, "malformed"},
		{"version", `{"format":"pipewhy.scan-lineage","version":2,"lineage":"0123456789abcdef0123456789abcdef","aligned":[],"transforms":[]}`, "unsupported"},
		{"bad id", `{"format":"pipewhy.scan-lineage","version":1,"lineage":"xyz","aligned":[],"transforms":[]}`, "version id"},
		{"no transforms", `{"format":"pipewhy.scan-lineage","version":1,"lineage":"0123456789abcdef0123456789abcdef","aligned":[]}`, "required"},
		{"both identity and error", `{"format":"pipewhy.scan-lineage","version":1,"lineage":"0123456789abcdef0123456789abcdef","aligned":[],"transforms":[{"sources":["a"],"relation":"transform","kind":"file","ref":"x","identity":"i","error":"e"}]}`, "exactly one"},
		{"copy relation", `{"format":"pipewhy.scan-lineage","version":1,"lineage":"0123456789abcdef0123456789abcdef","aligned":[],"transforms":[{"sources":["a"],"relation":"copy","kind":"file","ref":"x","identity":"i","error":""}]}`, "relation"},
		{"trailing data", `{"format":"pipewhy.scan-lineage","version":1,"lineage":"0123456789abcdef0123456789abcdef","aligned":[],"transforms":[]} {}`, "malformed"},
	} {
		_, err := decodeScanLineage(&snapshot.Snapshot{Arrays: map[string]snapshot.Array{KeyLineage: snapshot.FromUint8([]byte(c.js))}})
		if CodeOf(err) != CodeFormat || !strings.Contains(err.Error(), c.msg) {
			t.Errorf("%s: %v", c.name, err)
		}
	}
}
