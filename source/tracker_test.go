package source

import (
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// TestTrackerStatus checks the C5 coverage rules every adapter shares: COMPLETE needs a
// known matching count and no failure; UNAVAILABLE needs failures and nothing returned;
// PARTIAL everything else.
func TestTrackerStatus(t *testing.T) {
	rowFail := Failure{Code: CodeType, Line: 3}
	for _, tc := range []struct {
		name       string
		tr         Tracker
		fails      []Failure
		status     Status
		failures   uint64
		wantCodes  []Code
		expKnown   bool
		returned   uint64
		failedRecs uint64
	}{
		{name: "complete", tr: Tracker{Returned: 5, Expected: 5, ExpectedKnown: true, Done: true, MaxDetails: 4},
			status: StatusComplete, expKnown: true, returned: 5},
		{name: "complete empty", tr: Tracker{Expected: 0, ExpectedKnown: true, Done: true, MaxDetails: 4},
			status: StatusComplete, expKnown: true},
		{name: "failed row", tr: Tracker{Returned: 4, Expected: 5, ExpectedKnown: true, Done: true, MaxDetails: 4},
			fails: []Failure{rowFail}, status: StatusPartial, failures: 1, wantCodes: []Code{CodeType},
			expKnown: true, returned: 4, failedRecs: 1},
		{name: "not finished", tr: Tracker{Returned: 2, Expected: 5, ExpectedKnown: true, MaxDetails: 4},
			status: StatusPartial, failures: 1, wantCodes: []Code{CodeIncomplete}, expKnown: true, returned: 2},
		{name: "count differs", tr: Tracker{Returned: 4, Expected: 5, ExpectedKnown: true, Done: true, MaxDetails: 4},
			status: StatusPartial, failures: 1, wantCodes: []Code{CodeCount}, expKnown: true, returned: 4},
		{name: "more than declared", tr: Tracker{Returned: 6, Expected: 5, ExpectedKnown: true, Done: true, MaxDetails: 4},
			status: StatusPartial, failures: 1, wantCodes: []Code{CodeCount}, returned: 6},
		{name: "unknown count", tr: Tracker{Returned: 6, Done: true, MaxDetails: 4},
			status: StatusPartial, failures: 1, wantCodes: []Code{CodeCount}, returned: 6},
		{name: "fatal before any row", tr: Tracker{Expected: 5, ExpectedKnown: true, Done: true, Fatal: true, MaxDetails: 4},
			fails: []Failure{{Code: CodeIO}}, status: StatusUnavailable, failures: 1, wantCodes: []Code{CodeIO}, expKnown: true},
		{name: "fatal after rows", tr: Tracker{Returned: 2, Expected: 5, ExpectedKnown: true, Done: true, Fatal: true, MaxDetails: 4},
			fails: []Failure{{Code: CodeIO}}, status: StatusPartial, failures: 1, wantCodes: []Code{CodeIO}, expKnown: true, returned: 2},
		{name: "details capped, all counted", tr: Tracker{Returned: 0, Expected: 3, ExpectedKnown: true, Done: true, MaxDetails: 1},
			fails: []Failure{rowFail, rowFail, rowFail}, status: StatusPartial, failures: 3, wantCodes: []Code{CodeType},
			expKnown: true, failedRecs: 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tr := tc.tr
			for _, f := range tc.fails {
				tr.Fail(f, f.Code == CodeType)
			}
			c := tr.Coverage()
			if c.Status != tc.status || c.FailureCount != tc.failures || c.ExpectedKnown != tc.expKnown ||
				c.Returned != tc.returned || c.FailedRecords != tc.failedRecs {
				t.Fatalf("coverage %+v", c)
			}
			if len(c.Failures) != len(tc.wantCodes) {
				t.Fatalf("failures %+v, want codes %v", c.Failures, tc.wantCodes)
			}
			for i, code := range tc.wantCodes {
				if c.Failures[i].Code != code {
					t.Fatalf("failure %d is %s, want %s", i, c.Failures[i].Code, code)
				}
			}
			if err := c.Check(); err != nil {
				t.Fatalf("coverage breaks the C5 rules: %v", err)
			}
		})
	}
}

// TestAppendIntWidths: every width receives the value, and a builder of another type
// is a programming error, not a silent conversion.
func TestAppendIntWidths(t *testing.T) {
	mem := memory.NewGoAllocator()
	for _, dt := range []arrow.DataType{arrow.PrimitiveTypes.Int8, arrow.PrimitiveTypes.Int16, arrow.PrimitiveTypes.Int32, arrow.PrimitiveTypes.Int64} {
		b := array.NewBuilder(mem, dt)
		AppendInt(b, -7)
		a := b.NewArray()
		if got := a.ValueStr(0); got != "-7" {
			t.Errorf("%s: %s", dt, got)
		}
		a.Release()
		b.Release()
	}
	for _, dt := range []arrow.DataType{arrow.PrimitiveTypes.Uint8, arrow.PrimitiveTypes.Uint16, arrow.PrimitiveTypes.Uint32, arrow.PrimitiveTypes.Uint64} {
		b := array.NewBuilder(mem, dt)
		AppendUint(b, 200)
		a := b.NewArray()
		if got := a.ValueStr(0); got != "200" {
			t.Errorf("%s: %s", dt, got)
		}
		a.Release()
		b.Release()
	}
	defer func() {
		if recover() == nil {
			t.Fatal("AppendInt on a float builder did not panic")
		}
	}()
	AppendInt(array.NewBuilder(mem, arrow.PrimitiveTypes.Float64), 1)
}
