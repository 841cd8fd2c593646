package source

import (
	"context"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/pipewhy/pipewhy/internal/decimaltext"
)

// TestJSONLInferPreference pins the integer preferences at the edges: int64 whenever every
// integer fits it (also when all are non-negative and would fit uint64 too), uint64 only
// when some integer exceeds int64 and none is negative, decimal text past both. A flipped
// preference changes the column type and with it the schema identity.
func TestJSONLInferPreference(t *testing.T) {
	const decimal = arrow.EXTENSION // decimal text
	cases := []struct {
		name  string
		cells []string
		want  arrow.Type
	}{
		{"small non-negative", []string{"0", "1"}, arrow.INT64},
		{"max int64", []string{"0", "9223372036854775807"}, arrow.INT64},
		{"min int64", []string{"-9223372036854775808"}, arrow.INT64},
		{"max int64 + 1", []string{"9223372036854775808"}, arrow.UINT64},
		{"max int64 + 1 with small", []string{"1", "9223372036854775808"}, arrow.UINT64},
		{"max uint64", []string{"18446744073709551615"}, arrow.UINT64},
		{"max uint64 + 1", []string{"18446744073709551616"}, decimal},
		{"min int64 - 1", []string{"-9223372036854775809"}, decimal},
		{"negative with beyond int64", []string{"-1", "9223372036854775808"}, decimal},
		{"integral fraction", []string{"1", "1.0"}, decimal},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var b strings.Builder
			for _, v := range c.cells {
				b.WriteString(`{"a":` + v + "}\n")
			}
			p := writeFile(t, t.TempDir(), "p.jsonl", []byte(b.String()))
			sc, _, _ := openRead(t, p, Options{})
			f := sc.Field(0)
			if f.Type.ID() != c.want || c.want == decimal && !decimaltext.Is(f.Type) {
				t.Fatalf("%v inferred %v, want %v", c.cells, f.Type, c.want)
			}
		})
	}
}

// TestCSVInferPreference: the CSV candidates are tried int64 first, then uint64; a
// non-negative column within int64 is int64, and past uint64 or mixing a negative with
// a value beyond int64 is text. Every cell is read back under the inferred type, so a
// column is complete.
func TestCSVInferPreference(t *testing.T) {
	cases := []struct {
		cells []string
		want  arrow.Type
	}{
		{[]string{"0", "9223372036854775807"}, arrow.INT64},
		{[]string{"9223372036854775808"}, arrow.UINT64},
		{[]string{"18446744073709551616"}, arrow.STRING},
		{[]string{"-9223372036854775809"}, arrow.STRING},
		// A candidate reached after a cell failed the earlier ones must hold the cells
		// already accepted: a negative int64 cell is no uint64, an integer no bool.
		{[]string{"-1", "9223372036854775808"}, arrow.STRING},
		{[]string{"9223372036854775808", "-1"}, arrow.STRING},
		{[]string{"1", "true"}, arrow.STRING},
		{[]string{"9223372036854775808", "true"}, arrow.STRING},
		{[]string{"true", "false"}, arrow.BOOL},
		{[]string{"5", "9223372036854775808"}, arrow.UINT64},
	}
	for _, c := range cases {
		p := writeFile(t, t.TempDir(), "p.csv", []byte("c\n"+strings.Join(c.cells, "\n")+"\n"))
		sc, _, ev := openRead(t, p, Options{Infer: true})
		if got := sc.Field(0).Type.ID(); got != c.want {
			t.Errorf("%q inferred %v, want %v", c.cells, got, c.want)
		}
		if ev.Coverage.Status != StatusComplete {
			t.Errorf("%q: coverage %+v", c.cells, ev.Coverage)
		}
	}
}

// TestJSONExponentLimit: an exponent of exactly ±maxJSONExponent is a number; one more is
// CodeType, at inference and under an explicit decimal schema alike.
func TestJSONExponentLimit(t *testing.T) {
	for _, c := range []struct {
		lit  string
		code Code
	}{
		{"1e1048576", ""},
		{"1e-1048576", ""},
		{"1E+1048576", ""},
		{"1e1048577", CodeType},
		{"1e-1048577", CodeType},
	} {
		e, _, ok := jsonExponent([]byte(c.lit))
		if ok != (c.code == "") {
			t.Errorf("jsonExponent(%s) = %d, %v", c.lit, e, ok)
		}
		p := writeFile(t, t.TempDir(), "x.jsonl", []byte(`{"a":`+c.lit+"}\n"))
		_, err := Open(context.Background(), p, Options{})
		if CodeOf(err) != c.code {
			t.Errorf("%s: error %v, want code %q", c.lit, err, c.code)
		}
	}
	if e, _, _ := jsonExponent([]byte("1e-1048576")); e != -maxJSONExponent {
		t.Errorf("exponent %d, want %d", e, -maxJSONExponent)
	}
}
