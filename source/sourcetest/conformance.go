package sourcetest

import (
	"testing"

	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/pipewhy/pipewhy/source"
	"github.com/pipewhy/pipewhy/source/sourcetest/confdata"
)

// Conformance is the shared conformance suite of source adapters: src is an adapter
// opened on the dataset of package confdata, written in the adapter's own format (a
// file, a database table). It drains src through ReadAll and requires confdata's column
// names and Arrow values, COMPLETE coverage of every row, and evidence that names kind,
// consistency, a namespace and a version. It returns the evidence for the checks of the
// adapter's own.
func Conformance(t testing.TB, src source.Source, kind source.Kind, consistency string) source.Evidence {
	t.Helper()
	got, ev := ReadAll(t, src)
	want := confdata.Columns()
	if n := src.Schema().NumFields(); n != len(confdata.Names) {
		t.Fatalf("%d fields, want %d (%v)", n, len(confdata.Names), src.Schema())
	}
	for i, n := range confdata.Names {
		if src.Schema().Field(i).Name != n {
			t.Errorf("field %d named %q, want %q", i, src.Schema().Field(i).Name, n)
		}
		if !array.Equal(got[i], want[i]) {
			t.Errorf("column %s = %v, want %v", n, got[i], want[i])
		}
	}
	rows := uint64(len(confdata.Rows))
	c := ev.Coverage
	if c.Status != source.StatusComplete || !c.ExpectedKnown || c.Expected != rows || c.Returned != rows || c.FailureCount != 0 {
		t.Errorf("coverage %+v, want COMPLETE %d/%d", c, rows, rows)
	}
	if ev.Adapter != kind || ev.Consistency != consistency || ev.Version == "" || ev.Namespace == "" {
		t.Errorf("evidence %+v, want adapter %s, consistency %s, a namespace and a version", ev, kind, consistency)
	}
	return ev
}
