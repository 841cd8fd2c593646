package config

import (
	"errors"
	"reflect"
	"strings"
	"testing"
)

const lineageSample = `version: 1
sources:
  orders_raw: {address: raw.csv}
  copy: {address: copy.csv, name: orders_copy}
lineage:
  - from: orders_raw
    to: orders_copy
    relation: copy
  - from: [orders_copy, customers]
    to: daily_revenue
    relation: transform
    transform: models/daily_revenue.sql
    columns: {revenue: [amount, orders_copy.status]}
  - from: daily_revenue
    to: report
    relation: derived
lineage_names:
  "postgres://db:5432#shop.public.orders": orders_raw
  model.shop.daily_revenue: daily_revenue
policy:
  daily_revenue:
    max_row_count_change: "2.5%"
    max_field_changes: {revenue: 0, orders: "10%"}
    ignore: [schema_change]
  orders_copy:
    max_row_count_change: 500
`

func TestParseLineage(t *testing.T) {
	f, err := Parse("/proj/pipewhy.yaml", []byte(lineageSample))
	if err != nil {
		t.Fatal(err)
	}
	want := []LineageEdge{
		{From: []string{"orders_raw"}, To: "orders_copy", Relation: "copy", Line: 6},
		{From: []string{"orders_copy", "customers"}, To: "daily_revenue", Relation: "transform",
			Transform: "models/daily_revenue.sql", Columns: map[string][]string{"revenue": {"amount", "orders_copy.status"}}, Line: 9},
		{From: []string{"daily_revenue"}, To: "report", Relation: "derived", Line: 14},
	}
	if got := f.Lineage(); !reflect.DeepEqual(got, want) {
		t.Fatalf("lineage\n got %+v\nwant %+v", got, want)
	}
	names := f.LineageNames()
	if names["postgres://db:5432#shop.public.orders"] != "orders_raw" || names["model.shop.daily_revenue"] != "daily_revenue" || len(names) != 2 {
		t.Fatalf("lineage_names %v", names)
	}
	p, ok := f.Policy("daily_revenue")
	if !ok || p.MaxRowCountChange == nil || *p.MaxRowCountChange != (Threshold{Value: 2.5, Percent: true}) {
		t.Fatalf("policy %+v", p)
	}
	if p.MaxFieldChanges["revenue"] != (Threshold{Value: 0}) || p.MaxFieldChanges["orders"] != (Threshold{Value: 10, Percent: true}) {
		t.Fatalf("field thresholds %+v", p.MaxFieldChanges)
	}
	if !reflect.DeepEqual(p.Ignore, []string{"schema_change"}) {
		t.Fatalf("ignore %v", p.Ignore)
	}
	if q, _ := f.Policy("orders_copy"); q.MaxRowCountChange == nil || q.MaxRowCountChange.String() != "500" {
		t.Fatalf("count threshold %+v", q)
	}
	if _, ok := f.Policy("nope"); ok {
		t.Fatal("policy of an artifact the file does not name")
	}
	if got := f.Artifacts(); !reflect.DeepEqual(got, []string{"orders_copy", "orders_raw"}) {
		t.Fatalf("artifacts %v (an entry's name: wins over its key)", got)
	}
	if got := f.PolicyArtifacts(); !reflect.DeepEqual(got, []string{"daily_revenue", "orders_copy"}) {
		t.Fatalf("policy artifacts %v", got)
	}
	if f.Dir() != "/proj" {
		t.Fatalf("dir %q", f.Dir())
	}
}

// TestParseLineageErrors: every malformed lineage, lineage_names or policy entry is
// refused when the file is read, with the line of the entry.
func TestParseLineageErrors(t *testing.T) {
	head := "version: 1\n"
	for _, c := range []struct {
		name, text string
		code       Code
		line       int
		msg        string
	}{
		{"no from", "lineage:\n  - to: b\n    relation: derived\n", CodeInvalid, 3, "from is required"},
		{"no to", "lineage:\n  - from: a\n    relation: derived\n", CodeInvalid, 3, "to is required"},
		{"no relation", "lineage:\n  - from: a\n    to: b\n", CodeInvalid, 3, "relation is required"},
		{"bad relation", "lineage:\n  - {from: a, to: b, relation: view}\n", CodeInvalid, 3, `relation "view"`},
		{"copy two sources", "lineage:\n  - {from: [a, c], to: b, relation: copy}\n", CodeInvalid, 3, "exactly one source"},
		{"copy with transform", "lineage:\n  - {from: a, to: b, relation: copy, transform: x.sql}\n", CodeInvalid, 3, "no transform"},
		{"copy with columns", "lineage:\n  - {from: a, to: b, relation: copy, columns: {x: [y]}}\n", CodeInvalid, 3, "no column lineage"},
		{"transform without id", "lineage:\n  - {from: a, to: b, relation: transform}\n", CodeInvalid, 3, "needs transform"},
		{"empty from list", "lineage:\n  - {from: [], to: b, relation: derived}\n", CodeInvalid, 3, "empty list"},
		{"from twice", "lineage:\n  - {from: [a, a], to: b, relation: derived}\n", CodeInvalid, 3, "twice"},
		{"from mapping", "lineage:\n  - {from: {a: 1}, to: b, relation: derived}\n", CodeInvalid, 3, "artifact name or a list"},
		{"nested from", "lineage:\n  - {from: [[a]], to: b, relation: derived}\n", CodeInvalid, 3, "lists artifact names"},
		{"spaces in name", "lineage:\n  - {from: ' a', to: b, relation: derived}\n", CodeInvalid, 3, "surrounding spaces"},
		{"empty column list", "lineage:\n  - {from: a, to: b, relation: derived, columns: {x: []}}\n", CodeInvalid, 3, "no source columns"},
		{"empty source column", "lineage:\n  - {from: a, to: b, relation: derived, columns: {x: ['']}}\n", CodeInvalid, 3, "empty source column"},
		{"unknown lineage key", "lineage:\n  - {from: a, to: b, relation: derived, via: x}\n", CodeSyntax, 0, "field via not found"},
		{"lineage not a list", "lineage: {from: a}\n", CodeSyntax, 0, "cannot unmarshal"},
		{"empty external name", "lineage_names:\n  ' ': a\n", CodeInvalid, 3, "external name is empty"},
		{"empty artifact in names", "lineage_names:\n  x: ''\n", CodeInvalid, 3, "artifact name is empty"},
		{"bad percent", "policy:\n  a: {max_row_count_change: 'ten%'}\n", CodeSyntax, 0, "not a percentage"},
		{"negative count", "policy:\n  a: {max_row_count_change: -1}\n", CodeSyntax, 0, "nonnegative integer"},
		{"float count", "policy:\n  a: {max_row_count_change: 1.5}\n", CodeSyntax, 0, "a count (500)"},
		{"percent without sign", "policy:\n  a: {max_row_count_change: '5'}\n", CodeSyntax, 0, "not a percentage"},
		{"unknown policy key", "policy:\n  a: {max_rows: 5}\n", CodeSyntax, 0, "field max_rows not found"},
		{"empty field name", "policy:\n  a: {max_field_changes: {'': 1}}\n", CodeInvalid, 3, "empty column name"},
		{"empty ignore", "policy:\n  a: {ignore: ['']}\n", CodeInvalid, 3, "empty reason"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := Parse("/p/pipewhy.yaml", []byte(head+c.text))
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("err = %v, want *Error", err)
			}
			if e.Code != c.code || e.Line != c.line || !strings.Contains(err.Error(), c.msg) {
				t.Fatalf("got %v (code %s line %d), want code %s line %d containing %q", err, e.Code, e.Line, c.code, c.line, c.msg)
			}
		})
	}
}
