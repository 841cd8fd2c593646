package cli

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// writeJSONRecords writes records as a JSON array (form "json") or as JSON lines.
func writeJSONRecords(t *testing.T, dir, name, form string, records []string) string {
	t.Helper()
	var data string
	if form == "json" {
		data = "[" + strings.Join(records, ",\n") + "]"
	} else {
		data = strings.Join(records, "\n") + "\n"
	}
	p := filepath.Join(dir, name+"."+form)
	if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// A JSON number is the decimal its literal writes, whatever the other rows hold: 2.5 read
// beside 1.50 is the 2.5 of a file without 1.50 (it once became 2.50, a false change).
// Under strict-v1 1.50 and 1.5 differ, as Python's json.loads(parse_float=Decimal) and C2
// say (Decimal('1.50') has digits 150 and exponent -2, Decimal('1.5') 15 and -1); under
// logical-v1 they are equal. Through scan and diff, and through compare.
func TestJSONNumbersDependOnTheirLiteralOnly(t *testing.T) {
	for _, form := range []string{"json", "jsonl"} {
		t.Run(form, func(t *testing.T) {
			dir := t.TempDir()
			a := writeJSONRecords(t, dir, "a", form, []string{`{"id":1,"x":1.50}`, `{"id":2,"x":2.5}`})
			b := writeJSONRecords(t, dir, "b", form, []string{`{"id":1,"x":1.5}`, `{"id":2,"x":2.5}`})
			r := newRepo(t)
			for _, p := range []string{"strict-v1", "logical-v1"} {
				name := "t-" + p
				ia := scanID(t, "--repo", r, "--name", name, "--key", "id", "--resolution", "value", "--profile", p, a)
				ib := scanID(t, "--repo", r, "--name", name, "--key", "id", "--resolution", "value", "--profile", p, b)
				if p == "logical-v1" {
					d := diffJSONOf(t, ExitOK, "--repo", r, ia, ib)
					if !d.Equal || d.Records == nil || *d.Records.Unchanged != 2 || len(d.Physical) != 0 {
						t.Errorf("logical-v1 diff: %+v, want equal, 2 unchanged, no physical note", d)
					}
					c, _ := compareJSON(t, ExitOK, "--key", "id", "--profile", p, a, b)
					if !c.Equal || counts(c) != [4]uint64{0, 0, 0, 2} {
						t.Errorf("logical-v1 compare: equal %v counts %v", c.Equal, counts(c))
					}
					continue
				}
				d := diffJSONOf(t, ExitDifference, "--repo", r, ia, ib)
				if d.Records == nil || *d.Records.Changed != 1 || *d.Records.Unchanged != 1 || len(d.SchemaChanges) != 0 || len(d.Physical) != 0 {
					t.Fatalf("strict-v1 diff: %+v, want 1 changed (id=1), 1 unchanged (id=2), no schema change", d)
				}
				ch := d.Examples.Changed
				if len(ch) != 1 || ch[0].Key != "id=1" || len(ch[0].Changes) != 1 || ch[0].Changes[0] != (struct{ Field, Old, New string }{"x", "1.50", "1.5"}) {
					t.Errorf("changed examples %+v, want id=1 x 1.50 → 1.5", ch)
				}
				c, _ := compareJSON(t, ExitDifference, "--key", "id", a, b)
				if counts(c) != [4]uint64{0, 0, 1, 1} || len(c.Types) != 0 {
					t.Errorf("strict-v1 compare: counts %v types %+v, want 1 changed, 1 unchanged", counts(c), c.Types)
				}
			}
		})
	}
}

// jsonNumberLiteral returns a random literal of the JSON number grammar,
// -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?, with trailing zeros, zeros and exponents
// often.
func jsonNumberLiteral(rng *rand.Rand) string {
	var b strings.Builder
	if rng.IntN(3) == 0 {
		b.WriteByte('-')
	}
	if rng.IntN(4) == 0 {
		b.WriteByte('0')
	} else {
		b.WriteByte(byte('1' + rng.IntN(9)))
		for range rng.IntN(25) {
			b.WriteByte(byte('0' + rng.IntN(10)))
		}
	}
	if rng.IntN(3) > 0 {
		b.WriteByte('.')
		for range 1 + rng.IntN(12) {
			d := byte('0' + rng.IntN(10))
			if rng.IntN(3) == 0 {
				d = '0'
			}
			b.WriteByte(d)
		}
	}
	if rng.IntN(4) == 0 {
		b.WriteString([]string{"e", "E", "e+", "E-", "e-"}[rng.IntN(5)])
		b.WriteString(fmt.Sprint(rng.IntN(400)))
	}
	return b.String()
}

// A record's C2 words do not depend on the other rows of the file: the records of a file
// compare unchanged with the same records in a file that has random rows more (fractions
// with more digits, exponents, big integers, nulls), under both profiles.
func TestJSONNumbersIgnoreOtherRows(t *testing.T) {
	dir := t.TempDir()
	for it := range 8 {
		rng := rand.New(rand.NewPCG(15, uint64(it)))
		form := []string{"json", "jsonl"}[it%2]
		var base, more []string
		id := 0
		record := func() string {
			id++
			x := jsonNumberLiteral(rng)
			if rng.IntN(10) == 0 {
				x = "null"
			}
			return fmt.Sprintf(`{"id":%d,"x":%s,"y":%s}`, id, x, jsonNumberLiteral(rng))
		}
		// The base file has a fraction in each column, so both files infer number columns
		// (an all-integer column would be int64: another type, which diff reports).
		base = append(base, fmt.Sprintf(`{"id":%d,"x":0.5,"y":0.5}`, id))
		id++
		for range 1 + rng.IntN(20) {
			base = append(base, record())
		}
		more = append(more, base...)
		for range 1 + rng.IntN(20) {
			at := rng.IntN(len(more) + 1)
			more = append(more[:at], append([]string{record()}, more[at:]...)...)
		}
		a := writeJSONRecords(t, dir, fmt.Sprint("a", it), form, base)
		b := writeJSONRecords(t, dir, fmt.Sprint("b", it), form, more)
		for _, p := range []string{"strict-v1", "logical-v1"} {
			c, _ := compareJSON(t, ExitDifference, "--key", "id", "--profile", p, a, b)
			want := [4]uint64{uint64(len(more) - len(base)), 0, 0, uint64(len(base))}
			if counts(c) != want || len(c.Types) != 0 || len(c.SchemaChanges) != 0 {
				t.Errorf("iteration %d %s %s: counts %v (want %v) types %+v schema %+v\nA: %s\nB: %s",
					it, form, p, counts(c), want, c.Types, c.SchemaChanges, base, more)
			}
		}
	}
}

// scan prints a physical-only change of a column's type as a note, by the rule diff uses
// (source.TypeChange), never as "retyped"; a change of the values' family is retyped.
func TestScanSummaryPhysicalChanges(t *testing.T) {
	r := newRepo(t)
	scanOut := func(args ...string) string {
		code, out, e := runCLI(t, append([]string{"scan", "--repo", r}, args...)...)
		if code != ExitOK {
			t.Fatalf("scan %v: exit %d: %s", args, code, e)
		}
		return out
	}
	scanOut("--name", "flights", filepath.Join(vega, "flights-1k-arrowgo.parquet"))
	out := scanOut("--name", "flights", filepath.Join(vega, "flights-1k-duckdb.parquet"))
	for _, s := range []string{"  physical: origin: arrow large_utf8 → utf8\n", "  physical: destination: arrow large_utf8 → utf8\n"} {
		if !strings.Contains(out, s) {
			t.Errorf("scan summary lacks %q:\n%s", s, out)
		}
	}
	if strings.Contains(out, "retyped") || strings.Contains(out, "schema ") {
		t.Errorf("scan summary reports a schema change for the same data:\n%s", out)
	}
	code, js, e := runCLI(t, "scan", "--repo", r, "--json", "--name", "flights", filepath.Join(vega, "flights-1k-arrowgo.parquet"))
	if code != ExitOK || !strings.Contains(js, `"kind": "physical"`) || strings.Contains(js, `"retyped"`) {
		t.Errorf("scan --json: exit %d %s %s", code, js, e)
	}

	// The values' family changes: an integer column read as text is retyped.
	dir := t.TempDir()
	csv := filepath.Join(dir, "v.csv")
	os.WriteFile(csv, []byte("v\n1\n"), 0o644)
	scanOut("--name", "v", "--infer", csv)
	out = scanOut("--name", "v", csv)
	if !strings.Contains(out, "  schema retyped: v\n") || strings.Contains(out, "physical") {
		t.Errorf("int64 → text: %s", out)
	}
}
