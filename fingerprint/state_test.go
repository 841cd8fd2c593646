package fingerprint

import (
	"math"
	"slices"
	"testing"
)

func TestStateArithmetic(t *testing.T) {
	c := mustContext(t, XXH3, Multiset)
	s := NewState(c)
	s.Add(Digest{Lo: math.MaxUint64, Hi: 1})
	s.Add(Digest{Lo: 2, Hi: math.MaxUint64})
	// Lanes wrap: MaxUint64+2 = 1, 1+MaxUint64 = 0.
	if want := []uint64{1, 2, 2, 1, 0}; !slices.Equal(s.Words(), want) {
		t.Fatalf("words %v, want %v", s.Words(), want)
	}
	o := NewState(c)
	o.Add(Digest{Lo: 2, Hi: math.MaxUint64})
	sum := s
	if err := sum.Merge(o); err != nil {
		t.Fatal(err)
	}
	if want := []uint64{1, 2, 3, 3, math.MaxUint64}; !slices.Equal(sum.Words(), want) {
		t.Fatalf("merge %v, want %v", sum.Words(), want)
	}
	if err := sum.Subtract(o); err != nil {
		t.Fatal(err)
	}
	if eq, err := sum.Equal(s); err != nil || !eq {
		t.Fatalf("merge then subtract: %v %v", sum.Words(), err)
	}
	// Subtracting a state of more records than held fails and leaves s unchanged.
	big := s
	if err := big.Merge(s); err != nil {
		t.Fatal(err)
	}
	before := s.Words()
	if err := s.Subtract(big); CodeOf(err) != CodeUnderflow {
		t.Fatalf("underflow: %v", err)
	}
	if !slices.Equal(s.Words(), before) {
		t.Fatal("failed Subtract changed the state")
	}
	// Subtract to empty.
	e := s
	if err := e.Subtract(s); err != nil || !slices.Equal(e.Words(), []uint64{1, 2, 0, 0, 0}) {
		t.Fatalf("self subtract: %v %v", e.Words(), err)
	}
	if eq, _ := e.Equal(NewState(c)); !eq {
		t.Fatal("empty state differs from NewState")
	}
	if eq, _ := s.Equal(o); eq {
		t.Fatal("different states equal")
	}
}

func TestStateCountOverflow(t *testing.T) {
	c := mustContext(t, XXH3, Multiset)
	full, err := FromWords(c, c.ID(), []uint64{1, 2, math.MaxUint64, 5, 6})
	if err != nil {
		t.Fatal(err)
	}
	before := full.Words()
	if err := full.Add(Digest{Lo: 1, Hi: 1}); CodeOf(err) != CodeCountOverflow {
		t.Errorf("Add on a full state: %v", err)
	}
	one := NewState(c)
	if err := one.Add(Digest{Lo: 1, Hi: 1}); err != nil {
		t.Fatal(err)
	}
	if err := full.Merge(one); CodeOf(err) != CodeCountOverflow {
		t.Errorf("Merge overflow: %v", err)
	}
	if !slices.Equal(full.Words(), before) {
		t.Error("failed Add/Merge changed the state")
	}
	// The largest count is still reachable exactly.
	almost, _ := FromWords(c, c.ID(), []uint64{1, 2, math.MaxUint64 - 1, 0, 0})
	if err := almost.Merge(one); err != nil || almost.Count() != math.MaxUint64 {
		t.Errorf("merge to the largest count: %v %d", err, almost.Count())
	}
}

func TestStateForeignContext(t *testing.T) {
	a := NewState(mustContext(t, XXH3, Multiset))
	for _, c := range []Context{mustContext(t, SHA256, Multiset), mustContext(t, XXH3, Ordered)} {
		b := NewState(c)
		if err := a.Merge(b); CodeOf(err) != CodeForeignContext {
			t.Errorf("merge: %v", err)
		}
		if err := a.Subtract(b); CodeOf(err) != CodeForeignContext {
			t.Errorf("subtract: %v", err)
		}
		if _, err := a.Equal(b); CodeOf(err) != CodeForeignContext {
			t.Errorf("equal: %v", err)
		}
	}
	if _, err := a.Equal(State{}); CodeOf(err) != CodeContext {
		t.Errorf("zero state: %v", err)
	}
	// A context rebuilt from the same inputs is the same context.
	if err := a.Merge(NewState(mustContext(t, XXH3, Multiset))); err != nil {
		t.Error(err)
	}
}

func TestFromWords(t *testing.T) {
	c := mustContext(t, XXH3, Multiset)
	good := []uint64{1, 2, 7, 11, 13}
	s, err := FromWords(c, c.ID(), good)
	if err != nil {
		t.Fatal(err)
	}
	if s.Count() != 7 || !slices.Equal(s.Lanes(), []uint64{11, 13}) || !slices.Equal(s.Words(), good) {
		t.Fatalf("decoded %v", s.Words())
	}
	good[3] = 99 // FromWords does not retain its input
	if s.Lanes()[0] != 11 {
		t.Fatal("FromWords retained the words")
	}
	for name, tc := range map[string]struct {
		ctxID string
		words []uint64
		code  Code
	}{
		"empty":        {c.ID(), nil, CodeState},
		"header only":  {c.ID(), []uint64{1, 2}, CodeState},
		"version 0":    {c.ID(), []uint64{0, 2, 0, 0, 0}, CodeStateVersion},
		"version 2":    {c.ID(), []uint64{2, 2, 0, 0, 0}, CodeStateVersion},
		"lanes 1":      {c.ID(), []uint64{1, 1, 0, 0}, CodeLaneCount},
		"lanes 3":      {c.ID(), []uint64{1, 3, 0, 0, 0, 0}, CodeLaneCount},
		"lanes max":    {c.ID(), []uint64{1, math.MaxUint64, 0}, CodeLaneCount},
		"short":        {c.ID(), []uint64{1, 2, 0, 0}, CodeState},
		"long":         {c.ID(), []uint64{1, 2, 0, 0, 0, 0}, CodeState},
		"foreign":      {mustContext(t, SHA256, Multiset).ID(), []uint64{1, 2, 0, 0, 0}, CodeForeignContext},
		"foreign mode": {mustContext(t, XXH3, Ordered).ID(), []uint64{1, 2, 0, 0, 0}, CodeForeignContext},
		"no context":   {"", []uint64{1, 2, 0, 0, 0}, CodeForeignContext},
	} {
		if _, err := FromWords(c, tc.ctxID, tc.words); CodeOf(err) != tc.code {
			t.Errorf("%s: %v, want %s", name, err, tc.code)
		}
	}
	if _, err := FromWords(Context{}, "", good); CodeOf(err) != CodeContext {
		t.Errorf("zero context: %v", err)
	}
}

func FuzzFromWords(f *testing.F) {
	f.Add([]byte{})
	f.Add(wordsBytes([]uint64{1, 2, 0, 0, 0}))
	f.Add(wordsBytes([]uint64{1, 2, 5, math.MaxUint64, 1}))
	f.Add(wordsBytes([]uint64{1, 3, 0, 0, 0, 0}))
	f.Add(wordsBytes([]uint64{2, 2, 0, 0, 0}))
	c := mustContext(f, XXH3, Multiset)
	f.Fuzz(func(t *testing.T, b []byte) {
		if len(b) > 1<<16 { // bounds each run, and so each minimization
			t.Skip("input over 64 KiB")
		}
		words := bytesWords(b)
		s, err := FromWords(c, c.ID(), words)
		if err != nil {
			if CodeOf(err) == "" {
				t.Fatalf("error without a code: %v", err)
			}
			return
		}
		// Accepted words round-trip exactly.
		if !slices.Equal(s.Words(), words) {
			t.Fatalf("round trip %v -> %v", words, s.Words())
		}
	})
}

func wordsBytes(w []uint64) []byte {
	b := make([]byte, 8*len(w))
	putWords(b, w)
	return b
}

func bytesWords(b []byte) []uint64 {
	w := make([]uint64, len(b)/8)
	for i := range w {
		for j := 7; j >= 0; j-- {
			w[i] = w[i]<<8 | uint64(b[8*i+j])
		}
	}
	return w
}
