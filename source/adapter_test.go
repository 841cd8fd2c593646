package source

import (
	"errors"
	"io"
	"slices"
	"strings"
	"testing"
)

func TestExclude(t *testing.T) {
	names := []string{"id", "a", "b", "c"}
	keep, excluded, err := Exclude("op", "csv:/x.csv", names, []string{"c", "a", "c"})
	if err != nil || !slices.Equal(keep, []bool{true, false, true, false}) || !slices.Equal(excluded, []string{"a", "c"}) {
		t.Fatalf("keep %v excluded %q err %v: want column order, each once", keep, excluded, err)
	}
	if keep, excluded, err := Exclude("op", "src", names, nil); err != nil || !slices.Equal(keep, []bool{true, true, true, true}) || excluded != nil {
		t.Fatalf("nothing excluded: keep %v excluded %q err %v", keep, excluded, err)
	}
	_, _, err = Exclude("csv open", "csv:/x.csv", names, []string{"a", "nope"})
	e, ok := errors.AsType[*Error](err)
	if !ok || e.Code != CodeNotFound || e.Op != "csv open" || e.Source != "csv:/x.csv" || e.Msg != `excluded column "nope" does not exist` {
		t.Fatalf("unknown column: %#v", err)
	}
}

// TestTrackerEvidence: an adapter's Evidence carries the coverage so far, in slices the
// caller may change without changing the adapter's.
func TestTrackerEvidence(t *testing.T) {
	tr := Tracker{MaxDetails: 10, Expected: 2, ExpectedKnown: true}
	ev := Evidence{Adapter: KindCSV, Choices: []string{"null=none"}, Excluded: []string{"x"}}
	got := tr.Evidence(ev)
	if got.Coverage.Status != StatusPartial || got.Coverage.Failures[0].Code != CodeIncomplete {
		t.Errorf("before the end: %+v, want PARTIAL, incomplete", got.Coverage)
	}
	got.Choices[0], got.Excluded[0] = "changed", "changed"
	if ev.Choices[0] != "null=none" || ev.Excluded[0] != "x" {
		t.Error("Evidence shares its slices with the adapter's")
	}
	tr.Returned, tr.Done = 2, true
	if got := tr.Evidence(ev); got.Coverage.Status != StatusComplete || got.Adapter != KindCSV {
		t.Errorf("at the end: %+v", got)
	}
}

// TestRedactAddress: no credential of an address survives redaction; what is not a
// credential is kept as written.
func TestRedactAddress(t *testing.T) {
	for addr, want := range map[string]string{
		"/data/orders.csv":                      "/data/orders.csv",
		"sqlite:/data/shop.db#orders":           "sqlite:/data/shop.db#orders",
		"mysql://root@127.0.0.1:3306/test#t":    "mysql://root@127.0.0.1:3306/test#t",
		"mysql://u:s3cret@h:3306/db#t":          "mysql://u:xxxxx@h:3306/db#t",
		"postgres://u:s3cret@h:5432/db#s.t":     "postgres://u:xxxxx@h:5432/db#s.t",
		"postgres://u:s3cret@h/db?x=1#public.t": "postgres://u:xxxxx@h/db?x=1#public.t",
		// A URL that does not parse keeps only what follows the user info.
		"postgres://u:s3c%zz@h/db#t": "postgres://h/db#t",
		"mysql://u:s3c%zz@h/db":      "mysql://h/db",
		// A password given as a parameter; the other parameters keep their order.
		"postgres://u@h/db?password=s3cret&sslmode=disable#t": "postgres://u@h/db?password=xxxxx&sslmode=disable#t",
		"postgres://h/db?sslmode=disable&PASSWORD=s3cret":     "postgres://h/db?sslmode=disable&PASSWORD=xxxxx",
		"postgres://h/db?pass%77ord=s3cret":                   "postgres://h/db?pass%77ord=xxxxx",
		"postgres://h/db?%zz=s3cret&a=1":                      "postgres://h/db?%zz=xxxxx&a=1",
	} {
		got := RedactAddress(addr)
		if got != want {
			t.Errorf("RedactAddress(%q) = %q, want %q", addr, got, want)
		}
		if strings.Contains(got, "s3c") {
			t.Errorf("RedactAddress(%q) kept the password", addr)
		}
	}
}

func TestScrubError(t *testing.T) {
	cause := &Error{Code: CodeAuth, Msg: "password s3cret refused", Err: io.EOF}
	err := ScrubError(cause, "s3cret")
	if strings.Contains(err.Error(), "s3cret") || !strings.Contains(err.Error(), "password xxxxx refused") {
		t.Errorf("scrubbed text %q", err)
	}
	if !errors.Is(err, ErrAuth) || !errors.Is(err, io.EOF) || CodeOf(err) != CodeAuth {
		t.Errorf("the cause is out of reach: %v", err)
	}
	if ScrubError(nil, "s3cret") != nil || ScrubError(cause, "") != error(cause) {
		t.Error("a nil error or an empty secret is not returned as it is")
	}
}
