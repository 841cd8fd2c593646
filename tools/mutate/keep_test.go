package main

import "testing"

// TestKeepKilled pins -keep: a mutant killed before is kept only when its file's text is
// unchanged and it is the same change at the same place; lived ones run again.
func TestKeepKilled(t *testing.T) {
	a := &srcFile{rel: "p/a.go"}
	b := &srcFile{rel: "p/b.go"}
	mk := func(f *srcFile, pos, status string) *Mutant {
		return &Mutant{Pos: pos, Operator: "CONDITIONALS_BOUNDARY", Original: "x < y", Mutated: "x <= y", Status: status, file: f}
	}
	prev := &result{
		Sources: map[string]string{"p/a.go": "aaa", "p/b.go": "old"},
		Mutants: []*Mutant{
			mk(a, "p/a.go:1:1", Killed),
			mk(a, "p/a.go:2:1", TimedOut),
			mk(a, "p/a.go:3:1", Lived),
			mk(a, "p/a.go:4:1", Kept),
			mk(b, "p/b.go:1:1", Killed),
		},
	}
	res := &result{
		Sources: map[string]string{"p/a.go": "aaa", "p/b.go": "new"},
		Mutants: []*Mutant{
			mk(a, "p/a.go:1:1", ""),
			mk(a, "p/a.go:2:1", ""),
			mk(a, "p/a.go:3:1", ""),
			mk(a, "p/a.go:4:1", ""),
			mk(b, "p/b.go:1:1", ""),
			mk(a, "p/a.go:5:1", ""),
		},
	}
	other := mk(a, "p/a.go:1:1", "")
	other.Mutated = "x >= y" // same place, another change
	res.Mutants = append(res.Mutants, other)
	keepKilled(res, prev)
	want := []string{Kept, KeptTimedOut, "", Kept, "", "", ""}
	for i, m := range res.Mutants {
		if m.Status != want[i] {
			t.Errorf("mutant %d (%s %s): status %q, want %q", i, m.Pos, m.Mutated, m.Status, want[i])
		}
	}
}
