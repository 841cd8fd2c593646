package source

import (
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
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

func TestDropRows(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	schema := arrow.NewSchema([]arrow.Field{{Name: "n", Type: arrow.PrimitiveTypes.Int64}, {Name: "s", Type: arrow.BinaryTypes.String}}, nil)
	batch := func() arrow.RecordBatch {
		b := array.NewRecordBuilder(mem, schema)
		defer b.Release()
		b.Field(0).(*array.Int64Builder).AppendValues([]int64{0, 1, 2, 3, 4}, nil)
		b.Field(1).(*array.StringBuilder).AppendValues([]string{"a", "b", "c", "d", "e"}, nil)
		return b.NewRecordBatch()
	}
	for _, c := range []struct {
		drop map[int]bool
		n    []int64
		s    []string
	}{
		{map[int]bool{1: true, 3: true}, []int64{0, 2, 4}, []string{"a", "c", "e"}},
		{map[int]bool{0: true, 4: true}, []int64{1, 2, 3}, []string{"b", "c", "d"}},
		{map[int]bool{0: true, 1: true, 2: true, 3: true, 4: true}, []int64{}, []string{}},
	} {
		out, err := DropRows(batch(), schema, c.drop, mem)
		if err != nil {
			t.Fatal(err)
		}
		n := out.Column(0).(*array.Int64).Int64Values()
		var s []string
		for i := 0; i < int(out.NumRows()); i++ {
			s = append(s, out.Column(1).(*array.String).Value(i))
		}
		if !slices.Equal(n, c.n) || !slices.Equal(s, c.s) && len(c.s)+len(s) > 0 || out.NumRows() != int64(len(c.n)) {
			t.Errorf("drop %v: rows %v %q, want %v %q", c.drop, n, s, c.n, c.s)
		}
		out.Release()
	}
}

func TestRefuse(t *testing.T) {
	o := Options{Columns: []Column{{Name: "a", Type: "text"}}, HashContent: true, Null: new(string)}
	err := o.Refuse("x open", "x:/f", "x", OptMissingAsNull, OptHashContent, OptColumns, OptInferNull)
	var e *Error
	if !errors.As(err, &e) || e.Code != CodeOption || e.Op != "x open" || e.Source != "x:/f" || e.Msg != "HashContent does not apply to the x adapter" {
		t.Fatalf("Refuse = %#v, want the first option set, in the order given: HashContent", err)
	}
	if err := o.Refuse("x open", "x:/f", "x", OptMissingAsNull, OptQuery, OptMaxLineBytes); err != nil {
		t.Fatalf("Refuse of options not set = %v, want nil", err)
	}
	if err := (Options{Null: new(string)}).Refuse("op", "src", "y", OptInferNull); err == nil || !strings.Contains(err.Error(), "Infer/Null does not apply to the y adapter") {
		t.Fatalf("Null set: %v, want Infer/Null refused", err)
	}
}

func TestTrackerStop(t *testing.T) {
	for _, c := range []struct {
		err    error
		code   Code
		detail string
	}{
		{&Error{Code: CodeCorrupt, Op: "x next", Msg: "cannot decode"}, CodeCorrupt, "reading stopped: cannot decode"},
		{fmt.Errorf("wrapped: %w", &Error{Code: CodeIO, Msg: "read failed"}), CodeIO, "reading stopped: read failed"},
		{&Error{Code: CodeIO}, CodeIO, "reading stopped: see error"},
		{errors.New("plain"), "", "reading stopped: see error"},
	} {
		tr := Tracker{MaxDetails: 10}
		tr.Stop(c.err)
		f := tr.Failures()
		if !tr.Done || !tr.Fatal || tr.FailedRecords() != 0 || len(f) != 1 || f[0].Code != c.code || f[0].Detail != c.detail {
			t.Errorf("Stop(%v): done %v fatal %v failed records %d failures %+v; want done, fatal, no record, one failure %s %q",
				c.err, tr.Done, tr.Fatal, tr.FailedRecords(), f, c.code, c.detail)
		}
	}
}

func TestWithMeta(t *testing.T) {
	f := arrow.Field{Name: "x", Type: arrow.PrimitiveTypes.Int32, Metadata: arrow.NewMetadata([]string{"a", MetaSourceType}, []string{"1", "old"})}
	got := WithMeta(f, "INTEGER").Metadata
	if !slices.Equal(got.Keys(), []string{"a", MetaSourceType, MetaSourceWidth}) || !slices.Equal(got.Values(), []string{"1", "INTEGER", "32"}) {
		t.Errorf("int32: %v, want its own key kept, the type replaced and the width 32 added", got)
	}
	got = WithMeta(arrow.Field{Name: "s", Type: arrow.BinaryTypes.String}, "TEXT").Metadata
	if !slices.Equal(got.Keys(), []string{MetaSourceType}) || !slices.Equal(got.Values(), []string{"TEXT"}) {
		t.Errorf("text: %v, want the type only: no width for a type without one", got)
	}
	if f.Metadata.Values()[1] != "old" {
		t.Error("WithMeta changed the metadata of the field it was given")
	}
}
