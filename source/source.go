package source

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// Source is an open dataset read as a stream of Arrow record batches.
//
// Next returns the next batch, or (nil, io.EOF) after the last one. The
// caller owns each returned batch and must Release it, and must not use its
// memory after that (a Source may reuse it for later batches); a Source keeps at
// most a few batches of its own in memory (one, except the CSV reader's
// batches in flight between its goroutines). A record that cannot be read is not
// returned: it is counted in Evidence().Coverage with a stable code. Next
// returns a non-EOF error only when reading cannot continue at all (a
// damaged file, an I/O error, cancellation); the failure is recorded in the
// evidence too, and later calls return the same error.
//
// Evidence may be called at any time; before io.EOF it reports the read as
// incomplete. Close releases the underlying file or database handle.
type Source interface {
	Schema() *arrow.Schema
	Next(ctx context.Context) (arrow.RecordBatch, error)
	Evidence() Evidence
	Close() error
}

// Keyed is implemented by the sources of database tables, which know their
// primary key: the SQLite, DuckDB, PostgreSQL and MySQL adapters. PrimaryKey
// returns the table's PRIMARY KEY columns in key order, nil for a view, a
// query or a table without one.
type Keyed interface {
	PrimaryKey() []string
}

// PrimaryKey returns src's primary key columns when src is Keyed, else nil.
// It is the default key of every scan and comparison (package scan, package
// compare), so both pick the same key for the same source.
func PrimaryKey(src Source) []string {
	if k, ok := src.(Keyed); ok {
		return k.PrimaryKey()
	}
	return nil
}

// Kind names an adapter.
type Kind string

// Adapters.
const (
	KindCSV         Kind = "csv"
	KindJSONL       Kind = "jsonl"
	KindJSON        Kind = "json" // a JSON document whose top-level value is an array of objects
	KindParquet     Kind = "parquet"
	KindArrowFile   Kind = "arrow-file"
	KindArrowStream Kind = "arrow-stream"
	KindSQLite      Kind = "sqlite"
	// KindArrowAuto is the kind of a .ipc path before Open reads its magic
	// bytes; the evidence reports KindArrowFile or KindArrowStream.
	KindArrowAuto Kind = "ipc"
)

// Consistency levels recorded in the evidence.
const (
	// ConsistencyFileRead: one sequential pass over a local file whose size
	// and modification time were equal before and after the read.
	ConsistencyFileRead = "file-read"
	// ConsistencySQLiteTransaction: one read transaction in which the row
	// count and all rows were read.
	ConsistencySQLiteTransaction = "sqlite-transaction"
)

// Address is a parsed source address.
type Address struct {
	Kind  Kind
	Path  string // absolute, cleaned
	Table string // SQLite table; empty for files and queries
}

// ParseAddress parses a source address:
//
//	PATH.csv | PATH.jsonl | PATH.ndjson | PATH.json | PATH.parquet
//	PATH.arrow | PATH.feather   (Arrow IPC file format)
//	PATH.arrows                 (Arrow IPC stream format)
//	PATH.ipc                    (IPC file or stream, chosen by the file's magic bytes at open)
//	KIND:PATH                   (KIND one of csv, jsonl, json, parquet, arrow-file, arrow-stream)
//	sqlite:PATH#TABLE | sqlite:PATH (with Options.Query)
//	PATH.db#TABLE | PATH.sqlite#TABLE | PATH.sqlite3#TABLE
//
// Relative paths are made absolute against the working directory.
func ParseAddress(s string) (Address, error) {
	bad := func(detail string) (Address, error) {
		return Address{}, &Error{Code: CodeAddress, Op: "parse address", Msg: detail}
	}
	if s == "" {
		return bad("empty address")
	}
	if strings.ContainsRune(s, 0) {
		return bad("address contains a NUL byte")
	}
	var a Address
	rest := s
	if k, p, ok := strings.Cut(s, ":"); ok && len(k) > 1 {
		switch Kind(k) {
		case KindCSV, KindJSONL, KindJSON, KindParquet, KindArrowFile, KindArrowStream, KindSQLite:
			a.Kind, rest = Kind(k), p
		}
	}
	if a.Kind == "" || a.Kind == KindSQLite {
		if p, t, ok := strings.Cut(rest, "#"); ok {
			if a.Kind == "" {
				switch strings.ToLower(filepath.Ext(p)) {
				case ".db", ".sqlite", ".sqlite3":
				default:
					return bad("a #TABLE suffix needs a sqlite: address or a .db/.sqlite/.sqlite3 path")
				}
			}
			if t == "" {
				return bad("empty table name after #")
			}
			a.Kind, rest, a.Table = KindSQLite, p, t
		}
	}
	if a.Kind == "" {
		switch strings.ToLower(filepath.Ext(rest)) {
		case ".csv":
			a.Kind = KindCSV
		case ".jsonl", ".ndjson":
			a.Kind = KindJSONL
		case ".json":
			a.Kind = KindJSON
		case ".parquet":
			a.Kind = KindParquet
		case ".arrow", ".feather":
			a.Kind = KindArrowFile
		case ".arrows":
			a.Kind = KindArrowStream
		case ".ipc":
			a.Kind = KindArrowAuto
		default:
			return bad("unknown file extension; use a KIND: prefix")
		}
	}
	if rest == "" {
		return bad("empty path")
	}
	abs, err := filepath.Abs(rest)
	if err != nil {
		return Address{}, &Error{Code: CodeAddress, Op: "parse address", Msg: "cannot make the path absolute", Err: err}
	}
	a.Path = abs
	return a, nil
}

// String returns the canonical form of the address.
func (a Address) String() string {
	if a.Kind == KindSQLite && a.Table != "" {
		return "sqlite:" + a.Path + "#" + a.Table
	}
	return string(a.Kind) + ":" + a.Path
}

// Options configure every adapter; fields that do not apply to an adapter
// must be left zero (Open rejects them otherwise, so that no option is
// silently ignored).
type Options struct {
	// BatchSize is the maximum number of rows per batch (default 16384). IPC
	// files keep the batch boundaries written in the file.
	BatchSize int
	// Columns is an explicit schema (CSV, JSON lines, JSON arrays; SQLite
	// queries for result columns without a declared type). For CSV and JSON it
	// must list every column of the source, in the header's order for CSV.
	Columns []Column
	// Infer asks the CSV adapter to infer column types in a first full pass
	// (int64, uint64, bool where every cell renders back to exactly its text,
	// else text; see doc.go). JSON lines and JSON arrays always infer when
	// Columns is empty.
	Infer bool
	// InferProgress, when set, is called during that first pass (every 4096
	// records, on the goroutine that calls Open) with the bytes of the file
	// read so far and its size.
	InferProgress func(read, size uint64)
	// Null is the CSV spelling of a null cell. Nil means CSV has no nulls:
	// every cell, including the empty one, is a value.
	Null *string
	// MissingAsNull makes a key absent from a JSON line or JSON array
	// element read as null instead of a counted failure.
	MissingAsNull bool
	// Exclude lists columns to drop. Each must exist; exclusions are recorded
	// in the evidence.
	Exclude []string
	// Query is a SQL SELECT for sqlite:PATH addresses without a table.
	Query string
	// HashContent adds the SHA-256 of the file's bytes to the source version
	// (one extra sequential read at open). Files only.
	HashContent bool
	// MaxFailureDetails bounds how many failures are kept with detail
	// (default 100); all failures are counted regardless. Negative keeps none.
	MaxFailureDetails int
	// MaxLineBytes bounds one CSV record, JSON line or JSON array element
	// (default 64 MiB).
	MaxLineBytes int
	// Allocator for Arrow memory (default memory.DefaultAllocator). It must be
	// safe for concurrent use: the CSV reader allocates on several goroutines.
	Allocator memory.Allocator
	// ReleasedPromptly promises that the caller releases every batch without
	// waiting for a later one (its goroutines release each batch when they are
	// done with it, whatever Next does meanwhile). A reader may then wait in
	// Next for earlier batches' memory instead of allocating more: the parquet-go
	// reader decodes a row group into the memory of the previous one, one row
	// group in memory instead of two. A caller that holds a batch while it waits
	// for the next one must leave it false: Next would wait until ctx ends.
	ReleasedPromptly bool
}

const (
	defaultBatchSize  = 16384
	maxBatchSize      = 1 << 24
	defaultMaxDetails = 100
	defaultMaxLine    = 64 << 20
)

func (o Options) withDefaults() Options {
	if o.BatchSize == 0 {
		o.BatchSize = defaultBatchSize
	}
	if o.MaxFailureDetails == 0 {
		o.MaxFailureDetails = defaultMaxDetails
	}
	if o.MaxLineBytes == 0 {
		o.MaxLineBytes = defaultMaxLine
	}
	if o.Allocator == nil {
		o.Allocator = memory.DefaultAllocator
	}
	return o
}

// Validate checks the options independently of an adapter.
func (o Options) Validate() error {
	bad := func(d string) error { return &Error{Code: CodeOption, Op: "options", Msg: d} }
	if o.BatchSize < 0 || o.BatchSize > maxBatchSize {
		return bad("BatchSize must be between 1 and 16777216")
	}
	if o.MaxLineBytes < 0 {
		return bad("MaxLineBytes must not be negative")
	}
	seen := map[string]bool{}
	for _, c := range o.Columns {
		if !validName(c.Name) {
			return bad("a column name is empty or not UTF-8")
		}
		if seen[c.Name] {
			return &Error{Code: CodeDuplicate, Op: "options", Msg: fmt.Sprintf("column %q declared twice", c.Name)}
		}
		seen[c.Name] = true
		if _, ok := parseType(c.Type); !ok {
			return &Error{Code: CodeSchema, Op: "options", Msg: fmt.Sprintf("column %q: unknown type %q", c.Name, c.Type)}
		}
	}
	if o.Infer && len(o.Columns) > 0 {
		return bad("Infer and Columns are exclusive")
	}
	if o.Null != nil && !validName(*o.Null) && *o.Null != "" {
		return bad("Null spelling is not UTF-8")
	}
	return nil
}

// Open parses address, validates opts and opens the source. Addresses whose prefix an
// adapter package registered (see Register: duckdb:, postgres://, mysql://) go to that
// adapter. On error no resources are held; the caller records UnavailableCoverage(err).
func Open(ctx context.Context, address string, opts Options) (Source, error) {
	if open := registered(address); open != nil {
		return open(ctx, address, opts)
	}
	a, err := ParseAddress(address)
	if err != nil {
		return nil, err
	}
	return OpenAddress(ctx, a, opts)
}

// OpenAddress opens a parsed address.
func OpenAddress(ctx context.Context, a Address, opts Options) (src Source, err error) {
	if err := opts.Validate(); err != nil {
		return nil, err
	}
	opts = opts.withDefaults()
	var refused []Option
	if a.Kind != KindCSV {
		refused = append(refused, OptInferNull)
	}
	if a.Kind != KindJSONL && a.Kind != KindJSON {
		refused = append(refused, OptMissingAsNull)
	}
	if a.Kind != KindSQLite {
		refused = append(refused, OptQuery)
	} else {
		refused = append(refused, OptHashContent)
	}
	if a.Kind != KindCSV && a.Kind != KindJSONL && a.Kind != KindJSON && a.Kind != KindSQLite {
		refused = append(refused, OptColumns)
	}
	if err := opts.Refuse("open", a.String(), string(a.Kind), refused...); err != nil {
		return nil, err
	}
	switch a.Kind {
	case KindCSV:
		return openCSV(ctx, a, opts)
	case KindJSONL, KindJSON:
		return openJSONL(ctx, a, opts)
	case KindParquet:
		return openParquet(ctx, a, opts)
	case KindArrowFile, KindArrowStream, KindArrowAuto:
		return openIPC(ctx, a, opts)
	case KindSQLite:
		return openSQLite(ctx, a, opts)
	}
	return nil, &Error{Code: CodeAddress, Op: "open", Source: a.String(), Msg: "unknown adapter"}
}

// Status is a coverage status (C5 PW-07.01).
type Status string

// Coverage statuses.
const (
	StatusComplete    Status = "COMPLETE"
	StatusPartial     Status = "PARTIAL"
	StatusUnavailable Status = "UNAVAILABLE"
)

// Failure is one counted read failure. It names where, never what: no cell
// value appears in it.
type Failure struct {
	Code   Code
	Line   uint64 // 1-based line (CSV, JSON lines; the line a JSON array element starts on) or row number (other adapters); 0 when not tied to a record
	Column string // column name; empty when not tied to a column
	Detail string
}

// String is the failure-reason string recorded in snapshots, e.g.
// `PW_SOURCE_TYPE line 12 column "amount": not a base-10 int64`.
func (f Failure) String() string {
	var b strings.Builder
	b.WriteString(string(f.Code))
	if f.Line != 0 {
		b.WriteString(" line ")
		b.WriteString(strconv.FormatUint(f.Line, 10))
	}
	if f.Column != "" {
		b.WriteString(" column ")
		b.WriteString(strconv.Quote(f.Column))
	}
	if f.Detail != "" {
		b.WriteString(": ")
		b.WriteString(f.Detail)
	}
	return b.String()
}

// Coverage is the read evidence of one source scan, in the terms of C5
// PW-07.01.
//
//   - COMPLETE: ExpectedKnown, Expected == Returned, FailureCount == 0.
//   - PARTIAL: FailureCount > 0 and, when ExpectedKnown, Returned <= Expected.
//   - UNAVAILABLE: FailureCount > 0 and Returned == 0; the source could not
//     be read at all.
type Coverage struct {
	Status        Status
	Expected      uint64 // meaningful only when ExpectedKnown
	ExpectedKnown bool
	Returned      uint64
	// FailedRecords counts source records that were not returned.
	FailedRecords uint64
	// FailureCount counts all failures; Failures keeps the first
	// Options.MaxFailureDetails of them in read order.
	FailureCount uint64
	Failures     []Failure
}

// Reasons returns the failure-reason strings: one per kept failure, plus a
// final "PW_SOURCE_… N more failures not kept" line when details were
// dropped. It is non-empty exactly when FailureCount > 0.
func (c Coverage) Reasons() []string {
	r := make([]string, 0, len(c.Failures)+1)
	for _, f := range c.Failures {
		r = append(r, f.String())
	}
	if extra := c.FailureCount - uint64(len(c.Failures)); extra > 0 {
		r = append(r, fmt.Sprintf("%s: %d more failures not kept", CodeLimit, extra))
	}
	return r
}

// Check verifies the C5 consistency rules listed on Coverage.
func (c Coverage) Check() error {
	bad := func(d string) error { return &Error{Code: CodeCount, Op: "coverage", Msg: d} }
	if uint64(len(c.Failures)) > c.FailureCount {
		return bad("more failure details than failures")
	}
	switch c.Status {
	case StatusComplete:
		if !c.ExpectedKnown || c.Expected != c.Returned || c.FailureCount != 0 {
			return bad("COMPLETE needs a known expected count equal to returned and no failures")
		}
	case StatusPartial:
		if c.FailureCount == 0 {
			return bad("PARTIAL needs failures")
		}
		if c.ExpectedKnown && c.Returned > c.Expected {
			return bad("PARTIAL returned more than expected")
		}
	case StatusUnavailable:
		if c.FailureCount == 0 || c.Returned != 0 {
			return bad("UNAVAILABLE needs failures and zero returned")
		}
	default:
		return bad("unknown status")
	}
	return nil
}

// UnavailableCoverage is the coverage of a source that could not be opened.
func UnavailableCoverage(err error) Coverage {
	f := Failure{Code: CodeOf(err), Detail: "source could not be opened"}
	if f.Code == "" {
		f.Code = CodeIO
	}
	return Coverage{Status: StatusUnavailable, FailureCount: 1, Failures: []Failure{f}}
}

// Evidence describes what was read and how: the identity of the source
// scope and the coverage of the read.
type Evidence struct {
	Adapter Kind
	// Namespace identifies the dataset across scans: "file:/abs/path" for
	// files, "sqlite:/abs/path#table" for SQLite tables and
	// "sqlite:/abs/path?query-sha256=HEX" for SQLite queries.
	Namespace string
	// Version identifies the state of the source that was read; see doc.go.
	Version string
	// Consistency is ConsistencyFileRead or ConsistencySQLiteTransaction.
	Consistency string
	// Choices records every decision that shapes the values, as "key=value"
	// strings in a fixed order (schema mode, null spelling, ...).
	Choices []string
	// Excluded lists the columns dropped by Options.Exclude, in source order.
	Excluded []string
	Coverage Coverage
}

// fileState is the cheap identity of a file: size and modification time.
type fileState struct {
	size    int64
	mtimeNs int64
}

func statFile(op string, a Address, f *os.File) (fileState, error) {
	fi, err := f.Stat()
	if err != nil {
		return fileState{}, &Error{Code: CodeIO, Op: op, Source: a.String(), Msg: "stat failed", Err: err}
	}
	if !fi.Mode().IsRegular() {
		return fileState{}, &Error{Code: CodeIO, Op: op, Source: a.String(), Msg: "not a regular file"}
	}
	return fileState{size: fi.Size(), mtimeNs: fi.ModTime().UnixNano()}, nil
}

// openFile opens a's path and computes the source version.
func openFile(op string, a Address, opts Options) (*os.File, fileState, string, error) {
	f, err := os.Open(a.Path)
	if err != nil {
		code := CodeIO
		if os.IsNotExist(err) {
			code = CodeNotFound
		}
		return nil, fileState{}, "", &Error{Code: code, Op: op, Source: a.String(), Msg: "cannot open file", Err: err}
	}
	st, err := statFile(op, a, f)
	if err != nil {
		f.Close()
		return nil, fileState{}, "", err
	}
	version := fmt.Sprintf("size=%d;mtime_ns=%d", st.size, st.mtimeNs)
	if opts.HashContent {
		h := sha256.New()
		if _, err := io.Copy(h, f); err != nil {
			f.Close()
			return nil, fileState{}, "", &Error{Code: CodeIO, Op: op, Source: a.String(), Msg: "hashing failed", Err: err}
		}
		if _, err := f.Seek(0, io.SeekStart); err != nil {
			f.Close()
			return nil, fileState{}, "", &Error{Code: CodeIO, Op: op, Source: a.String(), Msg: "seek failed", Err: err}
		}
		version += ";sha256=" + hex.EncodeToString(h.Sum(nil))
	}
	return f, st, version, nil
}

// checkUnchanged records a CodeChanged failure when f's size or mtime moved.
func checkUnchanged(t *Tracker, f *os.File, before fileState) {
	fi, err := f.Stat()
	if err != nil || fi.Size() != before.size || fi.ModTime().UnixNano() != before.mtimeNs {
		t.Fail(Failure{Code: CodeChanged, Detail: "file size or modification time changed during the read"}, false)
	}
}

// checkSupported fails visibly on a field of a type outside the supported set.
func checkSupported(op string, a Address, f arrow.Field) error {
	if _, ok := TypeName(f.Type); !ok {
		return &Error{Code: CodeUnsupported, Op: op, Source: a.String(), Msg: fmt.Sprintf("column %q has unsupported type %s; exclude it explicitly", f.Name, f.Type)}
	}
	return nil
}

// recoverPanic turns a panic of a third-party reader on malformed input into
// a CodeCorrupt error.
func recoverPanic(op string, a Address, err *error) {
	if r := recover(); r != nil {
		*err = &Error{Code: CodeCorrupt, Op: op, Source: a.String(), Msg: "the reader failed on malformed input (recovered panic)"}
	}
}

func nullChoice(n *string) string {
	if n == nil {
		return "null=none"
	}
	return "null=" + strconv.Quote(*n)
}

// schemaFile is the JSON form of an explicit schema:
// {"columns":[{"name":"id","type":"int64"},…]}.
type schemaFile struct {
	Columns []Column `json:"columns"`
}

// LoadColumns reads an explicit schema file ({"columns":[{"name":…,
// "type":…},…]}, unknown fields rejected) and validates every type.
func LoadColumns(path string) ([]Column, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, &Error{Code: CodeIO, Op: "load schema", Source: path, Err: err}
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	var f schemaFile
	if err := dec.Decode(&f); err != nil || dec.More() {
		return nil, &Error{Code: CodeSchema, Op: "load schema", Source: path, Msg: "malformed schema file", Err: err}
	}
	if len(f.Columns) == 0 {
		return nil, &Error{Code: CodeSchema, Op: "load schema", Source: path, Msg: "no columns"}
	}
	if err := (Options{Columns: f.Columns}).Validate(); err != nil {
		return nil, err
	}
	return f.Columns, nil
}

// newBatch finishes a batch of rows rows. A schema without columns (every
// column excluded, or JSON lines of empty objects) still carries its row
// count, which arrow's RecordBuilder would lose.
func newBatch(rb *array.RecordBuilder, rows int) arrow.RecordBatch {
	if rb.Schema().NumFields() == 0 {
		return array.NewRecordBatch(rb.Schema(), nil, int64(rows))
	}
	return rb.NewRecordBatch()
}

// allValidUTF8 reports whether every value of a string column is valid UTF-8, given the
// column's value bytes (data[0] is the first value's first byte) and its offsets
// (len(offsets) = values+1, offsets[i]-offsets[0] the start of value i in data), in one
// bulk pass: utf8.Valid over data, and for every value boundary inside data a check that
// it falls on a rune start. A valid UTF-8 buffer splits uniquely into runes and a
// non-continuation byte always begins one, so every value is then a whole number of
// runes, valid on its own; a value that is invalid on its own makes one of the two
// checks fail. False is conservative: it may also come from bytes under null slots, or
// from offsets that are not those of data (callers then check value by value, as
// without it).
func allValidUTF8[O int32 | int64](data []byte, offsets []O) bool {
	if len(offsets) == 0 {
		return true
	}
	base := int64(offsets[0])
	if int64(offsets[len(offsets)-1])-base != int64(len(data)) || !utf8.Valid(data) {
		return false
	}
	for i := 1; i < len(offsets)-1; i++ {
		at := int64(offsets[i]) - base
		if at < 0 || at > int64(len(data)) {
			return false
		}
		if at < int64(len(data)) && !utf8.RuneStart(data[at]) {
			return false
		}
	}
	return true
}
