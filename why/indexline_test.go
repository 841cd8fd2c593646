package why

import (
	"encoding/json"
	"testing"
)

// TestIndexLineLayouts: a line as indexLineOf writes it is read from its layout; a
// valid line laid out otherwise is read in full; a line whose summary carries data after
// the value, even with a sum over all of it, is rejected either way.
func TestIndexLineLayouts(t *testing.T) {
	const id = "0123456789abcdef0123456789abcdef"
	s := &Summary{Snapshot: id, Artifact: "orders", FinishedAtNs: 7}
	line, err := indexLineOf(s)
	if err != nil {
		t.Fatal(err)
	}
	js, _ := json.Marshal(s)
	if got, ok := indexLayout(line, id); !ok || string(got) != string(js) {
		t.Fatalf("indexLineOf's own line is not read from its layout: %q", got)
	}
	if got := decodeIndexLine(line, id); got == nil || got.Artifact != "orders" || got.FinishedAtNs != 7 {
		t.Fatalf("decoded %+v", got)
	}
	if decodeIndexLine(line, "ffffffffffffffffffffffffffffffff") != nil {
		t.Fatal("a line read for another snapshot")
	}
	// Reordered and spaced: valid JSON, read by the full decoding.
	other := []byte(`{"summary": ` + string(js) + `, "sum": "` + digest(js) + `", "snapshot": "` + id + `"}`)
	if _, ok := indexLayout(other, id); ok {
		t.Fatal("a reordered line matched the layout")
	}
	if got := decodeIndexLine(other, id); got == nil || got.Artifact != "orders" {
		t.Fatalf("a reordered line: %+v", got)
	}
	// Data after the summary value, covered by the sum: the outer JSON would take the
	// tail as another field and check the sum over the value alone.
	tail := append(append([]byte{}, js...), `,"x":1`...)
	bad := []byte(`{"snapshot":"` + id + `","sum":"` + digest(tail) + `","summary":` + string(tail) + `}`)
	if decodeIndexLine(bad, id) != nil {
		t.Fatal("a summary with data after it was read")
	}
	// A damaged summary fails its sum.
	dmg := []byte(string(line[:len(line)-3]) + "8}")
	if decodeIndexLine(dmg, id) != nil {
		t.Fatal("a damaged line was read")
	}
}
