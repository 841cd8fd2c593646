package source

import (
	"errors"
	"fmt"
	"io"
	"net/url"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// This file is the toolkit of the adapters that live in packages of their own
// (source/postgres, source/mysql, source/duckdb): what every adapter needs and must do
// the same way. The adapters of this package use it too.

// The adapters of this package and the optional interfaces each implements (Keyed: a
// table's primary key; FileProgress: bytes read of one file). An adapter in a package of
// its own asserts the same beside its type.
var (
	_ Source       = (*csvSource)(nil)
	_ FileProgress = (*csvSource)(nil)
	_ Source       = (*jsonlSource)(nil)
	_ FileProgress = (*jsonlSource)(nil)
	_ Source       = (*parquetGoSource)(nil)
	_ Source       = (*parquetSource)(nil)
	_ Source       = (*ipcSource)(nil)
	_ Source       = (*sqliteSource)(nil)
	_ Keyed        = (*sqliteSource)(nil)
)

// Exclude resolves Options.Exclude against a source's column names, in column order:
// keep[i] says whether column i is read, and excluded lists the dropped names in column
// order (Evidence.Excluded). A name that is no column fails with CodeNotFound (C2
// PW-03.10: no exclusion is implicit); op and src name the operation and the source as
// the adapter's other errors do (src never with a password: a redacted address).
func Exclude(op, src string, names, exclude []string) (keep []bool, excluded []string, err error) {
	keep = make([]bool, len(names))
	for i := range keep {
		keep[i] = true
	}
	for _, x := range exclude {
		found := false
		for i, n := range names {
			if n == x {
				keep[i], found = false, true
			}
		}
		if !found {
			return nil, nil, &Error{Code: CodeNotFound, Op: op, Source: src, Msg: fmt.Sprintf("excluded column %q does not exist", x)}
		}
	}
	for i, n := range names {
		if !keep[i] {
			excluded = append(excluded, n)
		}
	}
	return keep, excluded, nil
}

// Tracker accumulates the coverage evidence of one read by the rules of Coverage (C5
// PW-07.01). Every adapter, in this package or in a package of its own, derives its
// coverage through it, so a status means the same thing whatever the source. The zero
// value is ready to use once MaxDetails is set.
type Tracker struct {
	Returned      uint64 // records returned to the caller
	Expected      uint64 // the source's declared count, meaningful when ExpectedKnown
	ExpectedKnown bool
	MaxDetails    int  // failures kept in detail; every failure is counted
	Done          bool // reached the end of the source (or stopped on a fatal error)
	Fatal         bool // reading stopped on an error

	failedRecords uint64
	failureCount  uint64
	failures      []Failure
}

// Fail records a failure; record says whether it cost a record (a row not returned).
func (t *Tracker) Fail(f Failure, record bool) {
	t.failureCount++
	if record {
		t.failedRecords++
	}
	if len(t.failures) < t.MaxDetails {
		t.failures = append(t.failures, f)
	}
}

// Stop records err, the error that ends a read before its end, as a failure that costs
// no record ("reading stopped: " and the message of err's *Error) and marks the read done
// and fatal. The adapter returns err from this Next and the next ones.
func (t *Tracker) Stop(err error) {
	msg := "see error"
	if e, ok := errors.AsType[*Error](err); ok && e.Msg != "" {
		msg = e.Msg
	}
	t.Fail(Failure{Code: CodeOf(err), Detail: "reading stopped: " + msg}, false)
	t.Done, t.Fatal = true, true
}

// FailedRecords is the number of records that failed and were not returned.
func (t *Tracker) FailedRecords() uint64 { return t.failedRecords }

// Failures returns the failures kept in detail so far (at most MaxDetails), borrowed.
func (t *Tracker) Failures() []Failure { return t.failures }

// Coverage derives the coverage evidence: COMPLETE only with a known expected count that
// matches the records returned and no failure at all; UNAVAILABLE when a fatal error left
// nothing returned; PARTIAL otherwise, with the reasons (an unfinished read, a count that
// disagrees) added as failures.
func (t *Tracker) Coverage() Coverage {
	c := Coverage{
		Expected: t.Expected, ExpectedKnown: t.ExpectedKnown, Returned: t.Returned,
		FailedRecords: t.failedRecords, FailureCount: t.failureCount,
		Failures: append([]Failure(nil), t.failures...),
	}
	extra := func(f Failure) {
		c.FailureCount++
		if len(c.Failures) < t.MaxDetails {
			c.Failures = append(c.Failures, f)
		}
	}
	if !t.Done {
		extra(Failure{Code: CodeIncomplete, Detail: "the read stopped before the end of the source"})
	}
	if c.ExpectedKnown && c.Returned > c.Expected {
		extra(Failure{Code: CodeCount, Detail: "more rows read than the source declared"})
		c.ExpectedKnown, c.Expected = false, 0
	} else if c.ExpectedKnown && t.Done && !t.Fatal && c.Returned+c.FailedRecords != c.Expected {
		extra(Failure{Code: CodeCount, Detail: "rows read differ from the source's declared count"})
	}
	switch {
	case c.FailureCount == 0 && c.ExpectedKnown && c.Expected == c.Returned:
		c.Status = StatusComplete
	case c.FailureCount == 0:
		// Unreachable by construction; never claim completeness without proof.
		extra(Failure{Code: CodeCount, Detail: "expected count unknown"})
		c.Status = StatusPartial
	case t.Fatal && c.Returned == 0:
		c.Status = StatusUnavailable
	default:
		c.Status = StatusPartial
	}
	return c
}

// Evidence returns ev, an adapter's evidence fixed at open, with the coverage of the
// read so far; its slices are copies, which the caller may keep. It is an adapter's
// Evidence method:
//
//	func (s *mySource) Evidence() source.Evidence { return s.t.Evidence(s.ev) }
func (t *Tracker) Evidence(ev Evidence) Evidence {
	ev.Choices = append([]string(nil), ev.Choices...)
	ev.Excluded = append([]string(nil), ev.Excluded...)
	ev.Coverage = t.Coverage()
	return ev
}

// redacted replaces a password wherever RedactAddress finds one.
const redacted = "xxxxx"

// RedactAddress returns addr without its credentials, the form an address takes in a
// snapshot, a scan log, a report or an error: in a URL-shaped address (postgres://,
// mysql://, any scheme://) the password of the user info and the value of a password
// query parameter become "xxxxx"; a URL that does not parse keeps only its scheme and
// what follows the last '@' (never the user info). Other addresses (files, sqlite:,
// duckdb:) hold no credentials and are returned unchanged.
func RedactAddress(addr string) string {
	if !strings.Contains(addr, "://") {
		return addr
	}
	u, err := url.Parse(addr)
	if err != nil {
		scheme, rest, _ := strings.Cut(addr, "://")
		if at := strings.LastIndexByte(rest, '@'); at >= 0 {
			rest = rest[at+1:]
		}
		return scheme + "://" + rest
	}
	if u.User != nil {
		if _, has := u.User.Password(); has {
			u.User = url.UserPassword(u.User.Username(), redacted)
		}
	}
	if u.RawQuery != "" {
		// Parameter by parameter, so that the others keep their order and spelling.
		params := strings.Split(u.RawQuery, "&")
		for i, p := range params {
			k, _, _ := strings.Cut(p, "=")
			if name, err := url.QueryUnescape(k); err != nil || strings.EqualFold(name, "password") {
				params[i] = k + "=" + redacted
			}
		}
		u.RawQuery = strings.Join(params, "&")
	}
	return u.String()
}

// ScrubError returns err with every occurrence of secret in its text replaced by
// "xxxxx" (drivers quote connection strings in some errors); errors.As and errors.Is
// still reach err. A nil err or an empty secret returns err as it is.
func ScrubError(err error, secret string) error {
	if err == nil || secret == "" {
		return err
	}
	return &scrubbed{err: err, secret: secret}
}

type scrubbed struct {
	err    error
	secret string
}

func (e *scrubbed) Error() string { return strings.ReplaceAll(e.err.Error(), e.secret, redacted) }
func (e *scrubbed) Unwrap() error { return e.err }

// DropRows returns rec without the rows in drop (0-based indices), as a batch of schema:
// what an adapter returns of a batch some rows of which it counts as failures
// (Tracker.Fail, record=true). It takes ownership of rec. Its error is arrow-go's, for
// the adapter to wrap in an *Error of its own.
func DropRows(rec arrow.RecordBatch, schema *arrow.Schema, drop map[int]bool, mem memory.Allocator) (arrow.RecordBatch, error) {
	defer rec.Release()
	var parts []arrow.RecordBatch
	start, n := 0, int(rec.NumRows())
	for i := 0; i <= n; i++ {
		if i == n || drop[i] {
			if i > start {
				parts = append(parts, rec.NewSlice(int64(start), int64(i)))
			}
			start = i + 1
		}
	}
	defer func() {
		for _, p := range parts {
			p.Release()
		}
	}()
	rows := int64(0)
	for _, p := range parts {
		rows += p.NumRows()
	}
	cols := make([]arrow.Array, rec.NumCols())
	for ci := range cols {
		if len(parts) == 0 {
			cols[ci] = array.MakeArrayOfNull(mem, rec.Column(ci).DataType(), 0)
		} else {
			chunks := make([]arrow.Array, len(parts))
			for pi, p := range parts {
				chunks[pi] = p.Column(ci)
			}
			c, err := array.Concatenate(chunks, mem)
			if err != nil {
				return nil, err
			}
			cols[ci] = c
		}
		defer cols[ci].Release()
	}
	return array.NewRecordBatch(schema, cols, rows), nil
}

// An Option names a field of Options that an adapter may not take (Options.Refuse), as
// the error names it.
type Option string

// The options an adapter may refuse.
const (
	OptColumns       Option = "Columns"
	OptInferNull     Option = "Infer/Null" // Infer or Null: the CSV type inference
	OptMissingAsNull Option = "MissingAsNull"
	OptHashContent   Option = "HashContent"
	OptMaxLineBytes  Option = "MaxLineBytes"
	OptQuery         Option = "Query"
)

// Refuse returns the PW_SOURCE_OPTION error of the first of options, in the order given,
// that o sets: an option the adapter does not take ("Columns does not apply to the mysql
// adapter"), or nil. op and src are the error's Op and Source; adapter names the adapter.
func (o Options) Refuse(op, src, adapter string, options ...Option) error {
	for _, opt := range options {
		var set bool
		switch opt {
		case OptColumns:
			set = len(o.Columns) > 0
		case OptInferNull:
			set = o.Infer || o.Null != nil
		case OptMissingAsNull:
			set = o.MissingAsNull
		case OptHashContent:
			set = o.HashContent
		case OptMaxLineBytes:
			set = o.MaxLineBytes != 0
		case OptQuery:
			set = o.Query != ""
		}
		if set {
			return &Error{Code: CodeOption, Op: op, Source: src, Msg: string(opt) + " does not apply to the " + adapter + " adapter"}
		}
	}
	return nil
}

// WithMeta returns f with the adapter metadata added to its own, replacing a key it
// already has: MetaSourceType, the source's spelling of the type, and for a fixed-width
// number MetaSourceWidth, the bit width of f's Arrow type.
func WithMeta(f arrow.Field, sourceType string) arrow.Field {
	m := fieldMeta(sourceType, f.Type)
	keys := append([]string(nil), f.Metadata.Keys()...)
	vals := append([]string(nil), f.Metadata.Values()...)
	for i, k := range m.Keys() {
		if j := f.Metadata.FindKey(k); j >= 0 {
			vals[j] = m.Values()[i]
			continue
		}
		keys = append(keys, k)
		vals = append(vals, m.Values()[i])
	}
	f.Metadata = arrow.NewMetadata(keys, vals)
	return f
}

// CloseOnError closes c when *err is set, ignoring the error of Close: the open error is
// the one to report. An adapter's open defers it once it holds c, with err its named
// result:
//
//	defer source.CloseOnError(&err, s)
func CloseOnError(err *error, c io.Closer) {
	if *err != nil {
		_ = c.Close()
	}
}
