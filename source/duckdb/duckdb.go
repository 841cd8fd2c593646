//go:build cgo

package duckdb

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	bindings "github.com/duckdb/duckdb-go-bindings"

	"github.com/pipewhy/pipewhy/source"
)

// Available reports whether the adapter was compiled in (every cgo build).
const Available = true

// settings are fixed for every database this package opens, so that the
// Arrow types and the row order do not depend on the environment or on
// DuckDB's defaults.
var settings = [][2]string{
	{"autoinstall_known_extensions", "false"}, // never download anything
	{"autoload_known_extensions", "false"},
	{"preserve_insertion_order", "true"}, // table scans in insertion order
	// The adapter decodes the engine's vectors itself (vectors.go); these
	// pin DuckDB's own Arrow export to the same types, so that the export
	// (used by the duckdb_arrow cross-check tests) and any Arrow output of
	// the engine agree with the adapter: VARCHAR -> utf8 and BLOB -> binary
	// with int32 offsets, BOOLEAN -> bool (lossless mode would export an
	// int8 with an arrow.bool8 extension).
	{"arrow_large_buffer_size", "false"},
	{"produce_arrow_string_view", "false"},
	{"arrow_output_list_view", "false"},
	{"arrow_lossless_conversion", "false"},
}

// choices are recorded in every evidence (see doc.go).
var choices = []string{"schema=engine", "timezone=UTC"}

// duckTypes are the supported DuckDB types and the exact Arrow type each is
// read as (DECIMAL: decimal128 of the same precision and scale), which is
// also the type DuckDB's Arrow export gives it under settings. Every other
// DuckDB type fails Open with CodeUnsupported, also when DuckDB could
// export it as a supported Arrow type: HUGEINT and UHUGEINT would become
// decimal128(38,0) and UUID utf8, conversions the user must ask for with a
// CAST.
var duckTypes = map[bindings.Type]arrow.DataType{
	bindings.TypeBoolean:     arrow.FixedWidthTypes.Boolean,
	bindings.TypeTinyInt:     arrow.PrimitiveTypes.Int8,
	bindings.TypeSmallInt:    arrow.PrimitiveTypes.Int16,
	bindings.TypeInteger:     arrow.PrimitiveTypes.Int32,
	bindings.TypeBigInt:      arrow.PrimitiveTypes.Int64,
	bindings.TypeUTinyInt:    arrow.PrimitiveTypes.Uint8,
	bindings.TypeUSmallInt:   arrow.PrimitiveTypes.Uint16,
	bindings.TypeUInteger:    arrow.PrimitiveTypes.Uint32,
	bindings.TypeUBigInt:     arrow.PrimitiveTypes.Uint64,
	bindings.TypeFloat:       arrow.PrimitiveTypes.Float32,
	bindings.TypeDouble:      arrow.PrimitiveTypes.Float64,
	bindings.TypeDecimal:     nil, // decimal128(P,S), checked by exportType
	bindings.TypeVarchar:     arrow.BinaryTypes.String,
	bindings.TypeBlob:        arrow.BinaryTypes.Binary,
	bindings.TypeTimestampS:  &arrow.TimestampType{Unit: arrow.Second},
	bindings.TypeTimestampMS: &arrow.TimestampType{Unit: arrow.Millisecond},
	bindings.TypeTimestamp:   &arrow.TimestampType{Unit: arrow.Microsecond},
	bindings.TypeTimestampNS: &arrow.TimestampType{Unit: arrow.Nanosecond},
	bindings.TypeTimestampTZ: &arrow.TimestampType{Unit: arrow.Microsecond, TimeZone: "UTC"},
}

// exportType is the Arrow type a supported DuckDB type is read as.
func exportType(t typeInfo) (arrow.DataType, bool) {
	dt, ok := duckTypes[t.id]
	if t.id == bindings.TypeDecimal {
		dt = &arrow.Decimal128Type{Precision: int32(t.width), Scale: int32(t.scale)}
	}
	return dt, ok
}

type duckSource struct {
	o        Options
	db       bindings.Database
	conn     bindings.Connection
	res      *bindings.Result // the streaming result of the read
	plan     []vecCol         // per column: how decodeChunk reads its vector
	schema   *arrow.Schema    // the Arrow types plus adapter metadata
	check    []colCheck       // per column: what screen verifies
	dbState  string           // version at open (file databases)
	ev       source.Evidence
	t        source.Tracker
	stop     error
	pk       []string          // a table's PRIMARY KEY columns, in key order
	rest     arrow.RecordBatch // rows of the last chunk not yet returned
	restFrom int64
	fetched  uint64 // rows the engine produced, returned or failed
}

var (
	_ source.Source = (*duckSource)(nil)
	_ source.Keyed  = (*duckSource)(nil)
)

// Open opens a DuckDB table or query as a source.Source. On error no
// resources are held; the caller records source.UnavailableCoverage(err).
func Open(ctx context.Context, opts Options) (_ source.Source, err error) {
	const op = "duckdb open"
	if err := opts.validate(); err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, &source.Error{Code: source.CodeIncomplete, Op: op, Source: opts.where(), Msg: "cancelled", Err: err}
	}
	o := opts.withDefaults()
	where := o.where()
	fail := func(code source.Code, detail string, cause error) error {
		return &source.Error{Code: code, Op: op, Source: where, Msg: detail, Err: cause}
	}
	s := &duckSource{o: o}
	s.t.MaxDetails = o.MaxFailureDetails
	defer source.CloseOnError(&err, s)

	path := ""
	if !o.inMemory() {
		fi, err := os.Stat(o.Path)
		if err != nil {
			code := source.CodeIO
			if os.IsNotExist(err) {
				code = source.CodeNotFound
			}
			return nil, fail(code, "cannot stat database file", err)
		}
		if !fi.Mode().IsRegular() {
			return nil, fail(source.CodeIO, "not a regular file", nil)
		}
		path = o.Path
		s.dbState = fileVersion(o.Path)
	}
	var cfg bindings.Config
	if bindings.CreateConfig(&cfg) == bindings.StateError {
		return nil, fail(source.CodeIO, "cannot create an engine configuration", nil)
	}
	defer bindings.DestroyConfig(&cfg)
	set := settings
	if path != "" {
		set = append([][2]string{{"access_mode", "READ_ONLY"}}, set...)
	}
	for _, kv := range set {
		if bindings.SetConfig(cfg, kv[0], kv[1]) == bindings.StateError {
			return nil, fail(source.CodeIO, "the engine rejected setting "+kv[0], nil)
		}
	}
	var msg string
	if bindings.OpenExt(path, &s.db, cfg, &msg) == bindings.StateError {
		s.db = bindings.Database{} // nothing to close
		code := source.CodeCorrupt
		detail := "not a readable DuckDB database"
		if strings.Contains(msg, "Could not set lock") {
			code, detail = source.CodeIO, "the database is locked by another process"
		}
		return nil, fail(code, detail, errors.New(msg))
	}
	if bindings.Connect(s.db, &s.conn) == bindings.StateError {
		return nil, fail(source.CodeIO, "cannot connect to the database", nil)
	}
	// SET TimeZone needs the ICU extension, linked into the engine.
	for _, q := range []string{"SET TimeZone = 'UTC'", "BEGIN TRANSACTION"} {
		if err := s.exec(q); err != nil {
			return nil, fail(source.CodeIO, "cannot prepare the session", err)
		}
	}

	// The columns as the engine declares them.
	query := o.Query
	if o.Table != "" {
		n, err := s.scalar("SELECT count(*) FROM duckdb_tables() WHERE database_name = current_database() AND schema_name = current_schema() AND table_name = " + quoteLiteral(o.Table) +
			" UNION ALL SELECT count(*) FROM duckdb_views() WHERE database_name = current_database() AND schema_name = current_schema() AND view_name = " + quoteLiteral(o.Table))
		if err != nil {
			return nil, fail(source.CodeIO, "cannot read the catalog", err)
		}
		if n == 0 {
			return nil, fail(source.CodeNotFound, "no such table or view", nil)
		}
		query = "SELECT * FROM " + quoteIdent(o.Table)
	} else {
		query = trimQuery(query)
	}
	names, types, err := s.describe(query)
	if err != nil {
		return nil, err
	}
	seen := map[string]bool{}
	for i, n := range names {
		if !utf8.ValidString(n) || n == "" {
			return nil, fail(source.CodeSchema, fmt.Sprintf("column %d has an empty or non-UTF-8 name", i+1), nil)
		}
		if seen[n] {
			return nil, fail(source.CodeDuplicate, fmt.Sprintf("column %q appears twice", n), nil)
		}
		seen[n] = true
	}
	if o.Table != "" {
		if s.pk, err = s.primaryKey(o.Table, names); err != nil {
			return nil, fail(source.CodeIO, "cannot read the primary key", err)
		}
	}
	keep, excluded, err := source.Exclude(op, where, names, o.Exclude)
	if err != nil {
		return nil, err
	}
	var sel []string
	for i, n := range names {
		if keep[i] {
			sel = append(sel, quoteIdent(n))
		}
	}
	if len(sel) == 0 {
		return nil, fail(source.CodeSchema, "no columns left to read", nil)
	}
	read, from := query, "("+query+"\n)" // the newline ends a trailing -- comment
	if o.Table != "" {
		from = quoteIdent(o.Table)
	}
	if len(excluded) > 0 {
		read = "SELECT " + strings.Join(sel, ", ") + " FROM " + from
	}
	var count int64
	err = s.interruptible(ctx, func() (err error) {
		count, err = s.scalar("SELECT count(*) FROM " + from)
		return err
	})
	if err != nil {
		return nil, s.classify(ctx, op, err, source.CodeIO, true, "cannot count rows")
	}
	s.t.Expected, s.t.ExpectedKnown = uint64(count), count >= 0

	if err := s.interruptible(ctx, func() error { return s.execStreaming(read) }); err != nil {
		return nil, s.classify(ctx, op, err, source.CodeIO, true, "the query does not run")
	}
	// The executed result must have the columns the prepared query
	// declared, in order, with the same types.
	cc := int(bindings.ColumnCount(s.res))
	if cc != len(sel) {
		return nil, fail(source.CodeIO, "the engine returned other columns than it declared", nil)
	}
	fields := make([]arrow.Field, 0, cc)
	s.plan = make([]vecCol, 0, cc)
	s.check = make([]colCheck, cc)
	j := 0
	for i, n := range names {
		if !keep[i] {
			continue
		}
		lt := bindings.ColumnLogicalType(s.res, bindings.IdxT(j))
		rt := describeType(lt)
		bindings.DestroyLogicalType(&lt)
		// The alias (JSON) may differ after a projection; it does not
		// change the storage the plan decodes.
		rt.alias = types[i].alias
		if bindings.ColumnName(s.res, bindings.IdxT(j)) != n || rt != types[i] {
			return nil, fail(source.CodeIO, "the engine returned other columns than it declared", nil)
		}
		spell := typeSpelling(types[i])
		dt, ok := exportType(types[i])
		var p vecCol
		if ok {
			p, ok = planColumn(types[i], dt)
		}
		if !ok {
			return nil, fail(source.CodeUnsupported, fmt.Sprintf("column %q has DuckDB type %s, which is not supported; exclude it or CAST it in a query", n, spell), nil)
		}
		switch dt.ID() {
		case arrow.STRING:
			s.check[j] = checkUTF8
		case arrow.TIMESTAMP:
			s.check[j] = checkInfinity
		}
		s.plan = append(s.plan, p)
		fields = append(fields, source.WithMeta(arrow.Field{Name: n, Type: dt, Nullable: true}, spell))
		j++
	}
	s.schema = arrow.NewSchema(fields, nil)

	sum := sha256.Sum256([]byte(o.Query))
	qhash := hex.EncodeToString(sum[:])
	s.ev.Adapter = Kind
	s.ev.Excluded = excluded
	s.ev.Choices = append([]string(nil), choices...)
	if o.Table != "" {
		s.ev.Namespace = where
		s.ev.Choices = append(s.ev.Choices, "order=insertion")
	} else {
		s.ev.Namespace = where + "?query-sha256=" + qhash
		s.ev.Choices = append(s.ev.Choices, "order=query")
	}
	if o.inMemory() {
		s.ev.Version = "query-sha256=" + qhash
		s.ev.Consistency = ConsistencyQuery
	} else {
		s.ev.Version = s.dbState
		s.ev.Consistency = ConsistencyTransaction
	}
	return s, nil
}

func (s *duckSource) Schema() *arrow.Schema { return s.schema }

func (s *duckSource) Next(ctx context.Context) (arrow.RecordBatch, error) {
	const op = "duckdb next"
	if s.stop != nil {
		return nil, s.stop
	}
	if s.t.Done && s.rest == nil {
		return nil, io.EOF
	}
	if err := ctx.Err(); err != nil {
		s.stop = &source.Error{Code: source.CodeIncomplete, Op: op, Source: s.o.where(), Msg: "cancelled", Err: err}
		return nil, s.stop
	}
	if s.rest != nil {
		return s.take(), nil
	}
	if s.res == nil {
		return nil, &source.Error{Code: source.CodeIO, Op: op, Source: s.o.where(), Msg: "the source is closed"}
	}
	for {
		var chunk bindings.DataChunk
		_ = s.interruptible(ctx, func() error { // FetchChunk reports errors through the result, below
			chunk = bindings.FetchChunk(*s.res)
			return nil
		})
		if chunk.Ptr == nil {
			msg := bindings.ResultError(s.res)
			if msg == "" {
				s.t.Done = true
				if !s.o.inMemory() && fileVersion(s.o.Path) != s.dbState {
					s.t.Fail(source.Failure{Code: source.CodeChanged, Detail: "database file size or modification time changed during the read"}, false)
				}
				return nil, io.EOF
			}
			if ctx.Err() != nil {
				s.stop = &source.Error{Code: source.CodeIncomplete, Op: op, Source: s.o.where(), Msg: "cancelled", Err: ctx.Err()}
				s.t.Fail(source.Failure{Code: source.CodeIncomplete, Detail: "reading stopped: cancelled"}, false)
				s.t.Done, s.t.Fatal = true, true
				return nil, s.stop
			}
			return nil, s.fatal(&source.Error{Code: messageCode(msg, source.CodeIO), Op: op, Source: s.o.where(), Msg: "the engine failed while reading rows", Err: (&EngineError{Msg: msg}).withheld()})
		}
		n := bindings.DataChunkGetSize(chunk)
		if n == 0 {
			bindings.DestroyDataChunk(&chunk)
			continue
		}
		rec, err := decodeChunk(s.o.Allocator, s.schema, s.plan, chunk)
		bindings.DestroyDataChunk(&chunk)
		if err != nil {
			return nil, s.fatal(&source.Error{Code: source.CodeIO, Op: op, Source: s.o.where(), Msg: "cannot convert a chunk to Arrow", Err: err})
		}
		out, err := s.screen(rec)
		if err != nil {
			return nil, s.fatal(err)
		}
		s.fetched += uint64(n)
		if out.NumRows() == 0 {
			out.Release()
			continue
		}
		s.rest, s.restFrom = out, 0
		return s.take(), nil
	}
}

// take returns the next at most BatchSize rows of s.rest and counts them
// as returned.
func (s *duckSource) take() arrow.RecordBatch {
	n := s.rest.NumRows()
	if s.restFrom == 0 && n <= int64(s.o.BatchSize) {
		r := s.rest
		s.rest = nil
		s.t.Returned += uint64(n)
		return r
	}
	end := min(s.restFrom+int64(s.o.BatchSize), n)
	r := s.rest.NewSlice(s.restFrom, end)
	s.t.Returned += uint64(end - s.restFrom)
	s.restFrom = end
	if end == n {
		s.rest.Release()
		s.rest = nil
	}
	return r
}

// colCheck names what screen verifies in a column.
type colCheck uint8

const (
	_ colCheck = iota // 0, the zero value: nothing to check
	// checkUTF8: Arrow utf8 requires valid UTF-8. DuckDB validates text on
	// ingestion; this guards the contract, not the common path.
	checkUTF8
	// checkInfinity: DuckDB exports the timestamps infinity and -infinity as
	// the int64 values MaxInt64 and -MaxInt64, which Arrow reads as dates
	// in the year 294247 (or earlier for coarser units). No valid DuckDB
	// timestamp has these values; a row holding one is a failure.
	checkInfinity
)

// screen counts and drops rows that fail a column check, in read order,
// with 1-based row numbers. It takes ownership of rec; take counts the rows
// it keeps as returned.
func (s *duckSource) screen(rec arrow.RecordBatch) (arrow.RecordBatch, error) {
	first := s.fetched
	var bad map[int]bool
	flag := func(ci, i int, code source.Code, detail string) {
		if bad == nil {
			bad = map[int]bool{}
		}
		if !bad[i] {
			bad[i] = true
			s.t.Fail(source.Failure{Code: code, Line: first + uint64(i) + 1, Column: s.schema.Field(ci).Name, Detail: detail}, true)
		}
	}
	for ci, check := range s.check {
		switch check {
		case checkUTF8:
			c := rec.Column(ci).(*array.String)
			for i := 0; i < c.Len(); i++ {
				if c.IsValid(i) && !utf8.ValidString(c.Value(i)) {
					flag(ci, i, source.CodeUTF8, "text is not valid UTF-8")
				}
			}
		case checkInfinity:
			c := rec.Column(ci).(*array.Timestamp)
			for i, v := range c.TimestampValues() {
				if (v == math.MaxInt64 || v == -math.MaxInt64) && c.IsValid(i) {
					flag(ci, i, source.CodeType, "timestamp is infinity or -infinity, which an Arrow timestamp cannot hold")
				}
			}
		}
	}
	if bad == nil {
		return rec, nil
	}
	out, err := source.DropRows(rec, s.schema, bad, s.o.Allocator)
	if err != nil {
		return nil, &source.Error{Code: source.CodeIO, Op: "duckdb next", Source: s.o.where(), Msg: "cannot drop invalid rows", Err: err}
	}
	return out, nil
}

// fatal records a failure that stops the read and returns it.
func (s *duckSource) fatal(err error) error {
	s.t.Stop(err)
	s.stop = err
	return err
}

func (s *duckSource) Evidence() source.Evidence { return s.t.Evidence(s.ev) }

// Close releases the result, the connection and the database. It is
// idempotent.
func (s *duckSource) Close() error {
	if s.rest != nil {
		s.rest.Release()
		s.rest = nil
	}
	if s.res != nil {
		bindings.DestroyResult(s.res)
		s.res = nil
	}
	bindings.Disconnect(&s.conn) // ends the read transaction
	bindings.Close(&s.db)
	return nil
}

// exec runs a statement and discards its result.
func (s *duckSource) exec(q string) error {
	var res bindings.Result
	defer bindings.DestroyResult(&res)
	if bindings.Query(s.conn, q, &res) == bindings.StateError {
		return engineError(bindings.ResultError(&res), bindings.ResultErrorType(&res))
	}
	return nil
}

// primaryKey returns the PRIMARY KEY columns of table (of the default schema) in
// key order, nil for a view or a table without one. The catalog spells them;
// each is looked up among names, the table's columns, by list_position.
func (s *duckSource) primaryKey(table string, names []string) ([]string, error) {
	lits := make([]string, len(names))
	for i, n := range names {
		lits[i] = quoteLiteral(n)
	}
	q := "SELECT CAST(coalesce(list_position([" + strings.Join(lits, ", ") + "]::VARCHAR[], n), 0) AS BIGINT) FROM (" +
		"SELECT unnest(constraint_column_names) AS n, generate_subscripts(constraint_column_names, 1) AS k FROM duckdb_constraints() " +
		"WHERE database_name = current_database() AND schema_name = current_schema() AND table_name = " + quoteLiteral(table) +
		" AND constraint_type = 'PRIMARY KEY') ORDER BY k"
	var res bindings.Result
	defer bindings.DestroyResult(&res)
	if bindings.Query(s.conn, q, &res) == bindings.StateError {
		return nil, engineError(bindings.ResultError(&res), bindings.ResultErrorType(&res))
	}
	pos, err := readBigInts(res)
	if err != nil {
		return nil, err
	}
	var pk []string
	for _, p := range pos {
		if p < 1 || p > int64(len(names)) {
			return nil, errors.New("a primary key column is not a column of the table")
		}
		pk = append(pk, names[p-1])
	}
	return pk, nil
}

// PrimaryKey returns the table's PRIMARY KEY columns in key order: nil for
// a view, a query, or a table without one. scan and compare use it as the
// default key (source.PrimaryKey).
func (s *duckSource) PrimaryKey() []string { return append([]string(nil), s.pk...) }

// scalar runs a query and returns the sum of the BIGINT values of its first
// column.
func (s *duckSource) scalar(q string) (int64, error) {
	var res bindings.Result
	defer bindings.DestroyResult(&res)
	if bindings.Query(s.conn, q, &res) == bindings.StateError {
		return 0, engineError(bindings.ResultError(&res), bindings.ResultErrorType(&res))
	}
	sum, err := readCount(res)
	if err != nil {
		return 0, err
	}
	if msg := bindings.ResultError(&res); msg != "" {
		return 0, engineError(msg, bindings.ResultErrorType(&res))
	}
	return sum, nil
}

// describe prepares q (which must be one SELECT) and returns its result
// columns. The caller destroys nothing: types are spelled, not kept.
func (s *duckSource) describe(q string) ([]string, []typeInfo, error) {
	const op = "duckdb open"
	var st bindings.PreparedStatement
	defer bindings.DestroyPrepare(&st)
	if bindings.Prepare(s.conn, q, &st) == bindings.StateError {
		return nil, nil, s.classify(context.Background(), op, engineError(bindings.PrepareError(st), bindings.ErrorTypeInvalid), source.CodeSchema, false, "the query does not prepare")
	}
	if bindings.PreparedStatementType(st) != bindings.StatementTypeSelect {
		return nil, nil, &source.Error{Code: source.CodeSchema, Op: op, Source: s.o.where(), Msg: "the query is not a SELECT"}
	}
	if bindings.NParams(st) != 0 {
		return nil, nil, &source.Error{Code: source.CodeSchema, Op: op, Source: s.o.where(), Msg: "the query has parameters"}
	}
	n := int(bindings.PreparedStatementColumnCount(st))
	names := make([]string, n)
	types := make([]typeInfo, n)
	for i := range n {
		names[i] = bindings.PreparedStatementColumnName(st, bindings.IdxT(i))
		lt := bindings.PreparedStatementColumnLogicalType(st, bindings.IdxT(i))
		types[i] = describeType(lt)
		bindings.DestroyLogicalType(&lt)
	}
	return names, types, nil
}

// execStreaming runs q as a streaming query: the engine produces chunks as
// they are fetched instead of materializing the whole result.
func (s *duckSource) execStreaming(q string) error {
	var st bindings.PreparedStatement
	defer bindings.DestroyPrepare(&st)
	if bindings.Prepare(s.conn, q, &st) == bindings.StateError {
		return engineError(bindings.PrepareError(st), bindings.ErrorTypeInvalid)
	}
	var pending bindings.PendingResult
	defer bindings.DestroyPending(&pending)
	if bindings.PendingPreparedStreaming(st, &pending) == bindings.StateError {
		return engineError(bindings.PendingError(pending), bindings.ErrorTypeInvalid)
	}
	res := new(bindings.Result)
	if bindings.ExecutePending(pending, res) == bindings.StateError {
		err := engineError(bindings.ResultError(res), bindings.ResultErrorType(res))
		bindings.DestroyResult(res)
		return err
	}
	s.res = res
	return nil
}

// EngineError is an error reported by DuckDB, wrapped in a *source.Error.
// Its message is DuckDB's and may quote values of the data; Failure details
// never include it.
type EngineError struct {
	Type int    // DuckDB's duckdb_error_type, 0 when unknown
	Msg  string // DuckDB's message
}

func (e *EngineError) Error() string { return e.Msg }

// withheld returns e with the message cut to DuckDB's error category (the
// text before the first ':', e.g. "Conversion Error").
func (e *EngineError) withheld() *EngineError {
	cat, _, _ := strings.Cut(e.Msg, ":")
	if len(cat) > 40 || strings.ContainsAny(cat, "'\"\n") {
		cat = "engine error"
	}
	return &EngineError{Type: e.Type, Msg: cat + " (message withheld: it may quote data values)"}
}

func engineError(msg string, t bindings.ErrorType) error {
	if msg == "" {
		msg = "unknown engine error"
	}
	return &EngineError{Type: int(t), Msg: msg}
}

// messageCode classifies an engine message. DuckDB's C API gives error
// types only for some calls, so the category prefix and a few stable
// phrases of the message decide; code is the fallback.
func messageCode(m string, code source.Code) source.Code {
	switch {
	case strings.Contains(m, "Corrupt"), strings.Contains(m, "checksum"):
		return source.CodeCorrupt
	case strings.HasPrefix(m, "Catalog Error"), strings.Contains(m, "No files found"), strings.Contains(m, "does not exist"):
		return source.CodeNotFound
	case strings.HasPrefix(m, "IO Error"):
		return source.CodeIO
	case strings.HasPrefix(m, "Invalid Input Error") && strings.Contains(m, "arquet"):
		return source.CodeCorrupt
	}
	return code
}

// interruptible runs f, interrupting the engine if ctx ends meanwhile.
func (s *duckSource) interruptible(ctx context.Context, f func() error) error {
	stop := context.AfterFunc(ctx, func() { bindings.Interrupt(s.conn) })
	defer stop()
	return f()
}

// classify maps an engine error at open to a source code: a cancelled
// context is CodeIncomplete, unknown tables or files CodeNotFound, damaged
// files CodeCorrupt, anything else code.
//
// Errors of a running query (running) keep only DuckDB's error category:
// their messages may quote data values. Errors of preparing a query are
// about the query text and keep the whole message.
func (s *duckSource) classify(ctx context.Context, op string, err error, code source.Code, running bool, detail string) error {
	if ctx.Err() != nil {
		return &source.Error{Code: source.CodeIncomplete, Op: op, Source: s.o.where(), Msg: "cancelled", Err: errors.Join(ctx.Err(), err)}
	}
	var e *EngineError
	if errors.As(err, &e) {
		m := e.Msg
		code = messageCode(m, code)
		if running {
			err = e.withheld()
		}
	}
	return &source.Error{Code: code, Op: op, Source: s.o.where(), Msg: detail, Err: err}
}

// typeInfo is what the adapter keeps of a DuckDB logical type.
type typeInfo struct {
	id           bindings.Type
	alias        string
	width, scale uint8
}

func describeType(lt bindings.LogicalType) typeInfo {
	t := typeInfo{id: bindings.GetTypeId(lt), alias: bindings.LogicalTypeGetAlias(lt)}
	if t.id == bindings.TypeDecimal {
		t.width, t.scale = bindings.DecimalWidth(lt), bindings.DecimalScale(lt)
	}
	return t
}

// typeNames spells DuckDB's type ids as DuckDB's SQL does.
var typeNames = map[bindings.Type]string{
	bindings.TypeBoolean: "BOOLEAN", bindings.TypeTinyInt: "TINYINT", bindings.TypeSmallInt: "SMALLINT",
	bindings.TypeInteger: "INTEGER", bindings.TypeBigInt: "BIGINT", bindings.TypeHugeInt: "HUGEINT",
	bindings.TypeUTinyInt: "UTINYINT", bindings.TypeUSmallInt: "USMALLINT", bindings.TypeUInteger: "UINTEGER",
	bindings.TypeUBigInt: "UBIGINT", bindings.TypeUHugeInt: "UHUGEINT", bindings.TypeFloat: "FLOAT",
	bindings.TypeDouble: "DOUBLE", bindings.TypeVarchar: "VARCHAR", bindings.TypeBlob: "BLOB",
	bindings.TypeDate: "DATE", bindings.TypeTime: "TIME", bindings.TypeTimeNS: "TIME_NS",
	bindings.TypeTimeTZ: "TIME WITH TIME ZONE", bindings.TypeInterval: "INTERVAL",
	bindings.TypeTimestamp: "TIMESTAMP", bindings.TypeTimestampS: "TIMESTAMP_S", bindings.TypeTimestampMS: "TIMESTAMP_MS",
	bindings.TypeTimestampNS: "TIMESTAMP_NS", bindings.TypeTimestampTZ: "TIMESTAMP WITH TIME ZONE",
	bindings.TypeUUID: "UUID", bindings.TypeEnum: "ENUM", bindings.TypeList: "LIST", bindings.TypeStruct: "STRUCT",
	bindings.TypeMap: "MAP", bindings.TypeArray: "ARRAY", bindings.TypeUnion: "UNION", bindings.TypeBit: "BIT",
	bindings.TypeBigNum: "BIGNUM", bindings.TypeSQLNull: "NULL", bindings.TypeGeometry: "GEOMETRY",
	bindings.TypeVariant: "VARIANT",
}

// typeSpelling is the MetaSourceType value: DuckDB's name of the type, with
// precision and scale for DECIMAL and the alias (e.g. JSON) when one is set.
func typeSpelling(t typeInfo) string {
	if t.alias != "" {
		return t.alias
	}
	if t.id == bindings.TypeDecimal {
		return "DECIMAL(" + strconv.Itoa(int(t.width)) + "," + strconv.Itoa(int(t.scale)) + ")"
	}
	if n, ok := typeNames[t.id]; ok {
		return n
	}
	return "type#" + strconv.Itoa(int(t.id))
}

// fileVersion is the cheap change indicator of a database file and its
// write-ahead log (PATH.wal): sizes and modification times.
func fileVersion(path string) string {
	var b strings.Builder
	for i, p := range []struct{ name, path string }{{"db", path}, {"wal", path + ".wal"}} {
		if i > 0 {
			b.WriteByte(';')
		}
		if fi, err := os.Stat(p.path); err == nil {
			fmt.Fprintf(&b, "%s_size=%d;%s_mtime_ns=%d", p.name, fi.Size(), p.name, fi.ModTime().UnixNano())
		} else {
			b.WriteString(p.name + "=absent")
		}
	}
	return b.String()
}

func quoteIdent(s string) string   { return `"` + strings.ReplaceAll(s, `"`, `""`) + `"` }
func quoteLiteral(s string) string { return `'` + strings.ReplaceAll(s, `'`, `''`) + `'` }

// trimQuery removes trailing white space and semicolons, so that the query
// can be wrapped as a subquery.
func trimQuery(q string) string {
	return strings.TrimRight(q, " \t\r\n;")
}
