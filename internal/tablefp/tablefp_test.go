package tablefp

import (
	"context"
	"slices"
	"testing"

	"github.com/pipewhy/pipewhy/fingerprint"
	"github.com/pipewhy/pipewhy/normalize"
)

var cols = []Column{{ID: 1, Name: "name", Type: fingerprint.TypeText}, {ID: 2, Name: "n", Type: fingerprint.TypeInt}}

// TestTableMatchesEngine: a Table's state equals the C3 engine's state of the same
// records, in any row order.
func TestTableMatchesEngine(t *testing.T) {
	rows := [][]normalize.Value{
		{normalize.TextValue("a"), normalize.Int(1)},
		{Text(""), normalize.Int(-2)},
		{normalize.TextValue("a"), normalize.Int(1)},
	}
	tb, err := New(cols)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rows {
		if err := tb.Add(cols, r...); err != nil {
			t.Fatal(err)
		}
	}
	batch := &normalize.RecordBatch{}
	for _, r := range slices.Backward(rows) {
		if err := batch.Append([]normalize.Field{{ID: 1, Value: r[0]}, {ID: 2, Value: r[1]}}, normalize.StrictV1); err != nil {
			t.Fatal(err)
		}
	}
	eng, err := fingerprint.NewEngine(tb.Context(), fingerprint.Options{Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	res, err := eng.Run(context.Background(), func(yield func(*normalize.RecordBatch, error) bool) { yield(batch, nil) })
	if err != nil {
		t.Fatal(err)
	}
	if eq, err := res.State.Equal(tb.State()); err != nil || !eq || tb.State().Count() != 3 {
		t.Fatalf("table %v, engine %v", tb.State().Words(), res.State.Words())
	}
	md := Metadata(tb.Context())
	if md.ContextID != tb.Context().ID() || md.ProfileID != normalize.StrictV1.ID() || md.Mode != "multiset" || md.AlgorithmName != "xxh3-128" {
		t.Fatalf("metadata %+v", md)
	}
	if _, ok := Text("").(normalize.NullValue); !ok {
		t.Fatal("empty text is null")
	}
}
