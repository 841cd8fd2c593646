package report

import (
	"testing"
)

// TestStepLineLayouts: the line put writes is read from its layout; a valid line laid
// out otherwise is read in full; a step with data after its value, even under a sum over
// all of it, is not read.
func TestStepLineLayouts(t *testing.T) {
	const from, to = "0123456789abcdef0123456789abcdef", "fedcba9876543210fedcba9876543210"
	c := &stepCache{lines: map[[2]string][]byte{}}
	c.put(from, to, stepResult{Changed: true, Note: "n"})
	line := c.add[0]
	if _, ok := stepLayout(line, from, to); !ok {
		t.Fatalf("put's own line is not read from its layout: %s", line)
	}
	if s, ok := c.get(from, to); !ok || !s.Changed || s.Note != "n" {
		t.Fatalf("got %+v %v", s, ok)
	}
	step := `{"changed":true,"records":null,"note":"n"}`
	other := []byte(`{"to":"` + to + `", "from":"` + from + `", "step":` + step + `, "sum":"` + digest([]byte(step)) + `"}`)
	c.lines[[2]string{from, to}] = other
	if _, ok := stepLayout(other, from, to); ok {
		t.Fatal("a reordered line matched the layout")
	}
	if s, ok := c.get(from, to); !ok || s.Note != "n" {
		t.Fatalf("a reordered line: %+v %v", s, ok)
	}
	tail := step + `,"x":1`
	c.lines[[2]string{from, to}] = []byte(`{"from":"` + from + `","to":"` + to + `","sum":"` + digest([]byte(tail)) + `","step":` + tail + `}`)
	if _, ok := c.get(from, to); ok {
		t.Fatal("a step with data after it was read")
	}
	if _, ok := c.get(to, from); ok {
		t.Fatal("a step read for another pair")
	}
}
