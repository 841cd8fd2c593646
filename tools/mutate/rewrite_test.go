package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestRewriteMatchesTextualMutants builds testdata/fixture inside the main module (through
// an overlay: nothing is written to the source tree), rewritten once, and compares the
// output of its probe test, for no mutant and for every mutant switched on, with the same
// probe built from the plain source and from each mutant applied as a source change (as
// gremlins applies it). The probe logs the order operands are evaluated in, so a helper
// that evaluated one twice or out of order would show.
func TestRewriteMatchesTextualMutants(t *testing.T) {
	if testing.Short() {
		t.Skip("builds one test binary per mutant")
	}
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	const dir = "internal/mutant/zzfixture"
	fixture, err := os.ReadFile("testdata/fixture/fixture.go")
	if err != nil {
		t.Fatal(err)
	}
	probe, err := os.ReadFile("testdata/fixture/probe_test.go")
	if err != nil {
		t.Fatal(err)
	}
	extra := map[string][]byte{
		filepath.Join(root, dir, "fixture.go"):    fixture,
		filepath.Join(root, dir, "probe_test.go"): probe,
	}
	pm, err := load(root, dir, nil, extra)
	if err != nil {
		t.Fatal(err)
	}
	tmp := t.TempDir()
	bin := filepath.Join(tmp, "rewritten.test")
	if err := pm.build(root, tmp, bin); err != nil {
		t.Fatal(err)
	}

	// Every operator is present; the one site that cannot compile (an untyped shift) is
	// the only one dropped.
	ops := map[string]int{}
	var live []*Mutant
	for _, m := range pm.mutants {
		if m.Status == NotMutable {
			if m.Original != "1<<s + 1" || !strings.HasPrefix(m.Killer, "does not compile") {
				t.Errorf("unexpected not mutable %s %s: %s", m.Pos, m.Original, m.Killer)
			}
			continue
		}
		ops[m.Operator]++
		live = append(live, m)
	}
	for _, op := range []string{"CONDITIONALS_BOUNDARY", "CONDITIONALS_NEGATION", "ARITHMETIC_BASE", "INCREMENT_DECREMENT", "INVERT_NEGATIVES"} {
		if ops[op] == 0 {
			t.Errorf("no %s mutant", op)
		}
	}
	if len(live) == len(pm.mutants) {
		t.Errorf("the untyped shift was not dropped")
	}
	out := string(pm.files[0].out)
	for _, want := range []string{"i = mutant.Inc(", "mutant.DecP(", "mutant.IncP(", "if mutant.On(", "mutant.Neg(", "mutant.Rem[int](", "case mutant.Gt[int](", "mutant.Sub[uint8](", "!= mutant.On("} {
		if !strings.Contains(out, want) {
			t.Errorf("rewritten fixture lacks %q", want)
		}
	}
	for _, no := range []string{"limit = mutant", "\"!\")"} {
		if strings.Contains(out, no) {
			t.Errorf("rewritten fixture holds %q (a constant or a concatenation mutated)", no)
		}
	}

	// The textual builds: one package per mutant (m0: the plain source), all in one go test.
	ov := map[string]string{}
	var pkgs []string
	write := func(name string, b []byte) string {
		p := filepath.Join(tmp, name)
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	probePath := write("probe_test.go", probe)
	textual := func(id int, src []byte) {
		d := filepath.Join(root, "internal/mutant", "zzm"+strconv.Itoa(id))
		ov[filepath.Join(d, "fixture.go")] = write(fmt.Sprintf("m%d.go", id), src)
		ov[filepath.Join(d, "probe_test.go")] = probePath
		pkgs = append(pkgs, "./internal/mutant/zzm"+strconv.Itoa(id))
	}
	textual(0, fixture)
	for _, m := range live {
		textual(m.ID, m.textual())
	}
	var js strings.Builder
	js.WriteString(`{"Replace":{`)
	i := 0
	for k, v := range ov {
		if i++; i > 1 {
			js.WriteString(",")
		}
		fmt.Fprintf(&js, "%q:%q", k, v)
	}
	js.WriteString("}}")
	ovPath := write("textual.json", []byte(js.String()))
	bins := filepath.Join(tmp, "bins") + "/"
	cmd := exec.Command("go", append([]string{"test", "-c", "-vet=off", "-overlay", ovPath, "-o", bins}, pkgs...)...)
	cmd.Dir = root
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("textual builds: %v\n%s", err, b)
	}

	run := func(bin string, id int) string {
		c := exec.Command(bin, "-test.run", "^TestProbe$", "-test.timeout", "60s")
		c.Env = append(os.Environ(), "PIPEWHY_MUTANT="+strconv.Itoa(id))
		b, err := c.CombinedOutput()
		if i := bytes.Index(b, []byte("panic:")); i >= 0 {
			b = b[:i+len("panic:")] // the stack differs (the helper's frame)
		}
		return fmt.Sprintf("%s\nerr=%v", bytes.TrimSuffix(b, []byte("PASS\n")), err != nil)
	}
	if got, want := run(bin, 0), run(bins+"zzm0.test", 0); got != want {
		t.Errorf("no mutant: rewritten\n%s\nplain\n%s", got, want)
	}
	for _, m := range live {
		got, want := run(bin, m.ID), run(bins+"zzm"+strconv.Itoa(m.ID)+".test", 0)
		if got != want {
			t.Errorf("mutant %d %s %s -> %s: rewritten\n%s\ntextual\n%s", m.ID, m.Pos, m.Original, m.Mutated, got, want)
		}
	}
	t.Logf("%d mutants compared with their textual builds", len(live))
}
