package mutant

import (
	"math"
	"os"
	"testing"
)

// TestHelpers checks each helper with no mutant, its first and its second mutant active,
// against the operator it stands for; NaN operands included.
func TestHelpers(t *testing.T) {
	defer func(a int) { active = a }(active)
	nan := math.NaN()
	type tc struct {
		name string
		f    func() any
		want [3]any // no mutant, id active, id+1 active
	}
	const id = 5
	for _, c := range []tc{
		{"1<2", func() any { return Lt(id, 1, 2) }, [3]any{true, true, false}},
		{"2<2", func() any { return Lt(id, 2, 2) }, [3]any{false, true, true}},
		{"2<=2", func() any { return Le(id, 2, 2) }, [3]any{true, false, false}},
		{"3>2", func() any { return Gt(id, 3, 2) }, [3]any{true, true, false}},
		{"2>=2", func() any { return Ge(id, 2, 2) }, [3]any{true, false, false}},
		{"NaN<1", func() any { return Lt(id, nan, 1) }, [3]any{false, false, false}},
		{"NaN>=1", func() any { return Ge(id, nan, 1) }, [3]any{false, false, false}},
		{"a<b strings", func() any { return Lt(id, "a", "b") }, [3]any{true, true, false}},
		{"7+2", func() any { return Add(id, 7, 2) }, [3]any{9, 5, 9}},
		{"7-2", func() any { return Sub(id, 7, 2) }, [3]any{5, 9, 5}},
		{"7*2", func() any { return Mul(id, 7, 2) }, [3]any{14, 3, 14}},
		{"7/2", func() any { return Quo(id, 7, 2) }, [3]any{3, 14, 3}},
		{"7%2", func() any { return Rem(id, 7, 2) }, [3]any{1, 14, 1}},
		{"uint8 250+10", func() any { return Add(id, uint8(250), 10) }, [3]any{uint8(4), uint8(240), uint8(4)}},
		{"-3", func() any { return Neg(id, 3) }, [3]any{-3, 3, -3}},
		{"3++", func() any { return Inc(id, 3) }, [3]any{4, 2, 4}},
		{"3--", func() any { return Dec(id, 3) }, [3]any{2, 4, 2}},
		{"p++", func() any { x := 3; IncP(id, &x); return x }, [3]any{4, 2, 4}},
		{"p--", func() any { x := 3; DecP(id, &x); return x }, [3]any{2, 4, 2}},
		{"(x==1)!=On", func() any { x := 1; return (x == 1) != On(id) }, [3]any{true, false, true}},
	} {
		for i, a := range []int{0, id, id + 1} {
			active = a
			if got := c.f(); got != c.want[i] {
				t.Errorf("%s with mutant %d active: %v, want %v", c.name, a, got, c.want[i])
			}
		}
	}
}

// TestRecord checks the coverage mode: each id reached is written once.
func TestRecord(t *testing.T) {
	f := t.TempDir() + "/rec"
	t.Setenv("PIPEWHY_MUTANT_RECORD", f)
	defer func() { recording = false }()
	recording = true
	for range 3 {
		Lt(7, 1, 2)
		On(70000)
	}
	b, err := os.ReadFile(f)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := string(b), "7\n8\n70000\n"; got != want {
		t.Errorf("record file %q, want %q", got, want)
	}
}
