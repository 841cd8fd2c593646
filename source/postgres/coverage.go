package postgres

import "github.com/pipewhy/pipewhy/source"

// tracker accumulates coverage by the rules of source.Coverage (C5
// PW-07.01), exactly as the adapters of package source do.
type tracker struct {
	returned      uint64
	expected      uint64
	known         bool
	failedRecords uint64
	failureCount  uint64
	failures      []source.Failure
	maxDetails    int
	done          bool // reached the end of the result (or a fatal error)
	fatal         bool // reading stopped on an error
}

func (t *tracker) fail(f source.Failure, record bool) {
	t.failureCount++
	if record {
		t.failedRecords++
	}
	if len(t.failures) < t.maxDetails {
		t.failures = append(t.failures, f)
	}
}

func (t *tracker) coverage() source.Coverage {
	c := source.Coverage{
		Expected: t.expected, ExpectedKnown: t.known, Returned: t.returned,
		FailedRecords: t.failedRecords, FailureCount: t.failureCount,
		Failures: append([]source.Failure(nil), t.failures...),
	}
	extra := func(f source.Failure) {
		c.FailureCount++
		if len(c.Failures) < t.maxDetails {
			c.Failures = append(c.Failures, f)
		}
	}
	if !t.done {
		extra(source.Failure{Code: source.CodeIncomplete, Detail: "the read stopped before the end of the source"})
	}
	if c.ExpectedKnown && c.Returned > c.Expected {
		extra(source.Failure{Code: source.CodeCount, Detail: "more rows read than the server counted"})
		c.ExpectedKnown, c.Expected = false, 0
	} else if c.ExpectedKnown && t.done && !t.fatal && c.Returned+c.FailedRecords != c.Expected {
		extra(source.Failure{Code: source.CodeCount, Detail: "rows read differ from the server's count"})
	}
	switch {
	case c.FailureCount == 0 && c.ExpectedKnown && c.Expected == c.Returned:
		c.Status = source.StatusComplete
	case c.FailureCount == 0:
		// Unreachable by construction; never claim completeness without proof.
		extra(source.Failure{Code: source.CodeCount, Detail: "expected count unknown"})
		c.Status = source.StatusPartial
	case t.fatal && c.Returned == 0:
		c.Status = source.StatusUnavailable
	default:
		c.Status = source.StatusPartial
	}
	return c
}
