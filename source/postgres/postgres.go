package postgres

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net"
	"strconv"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/pipewhy/pipewhy/source"
)

// Kind is the adapter name recorded in Evidence.Adapter.
const Kind source.Kind = "postgres"

// Consistency is recorded in the evidence: the row count and every row
// were read in one REPEATABLE READ, READ ONLY transaction, i.e. from one
// snapshot of the database.
const Consistency = "postgres-repeatable-read"

// CodeAuth: the server refused the credentials or the privilege to read
// (SQLSTATE class 28, or 42501); source.CodeAuth.
const CodeAuth = source.CodeAuth

func init() {
	open := func(ctx context.Context, address string, opts source.Options) (source.Source, error) {
		s, err := Open(ctx, address, opts)
		if err != nil {
			return nil, err // never a typed nil *Source inside the interface
		}
		return s, nil
	}
	source.Register("postgres://", open)
	source.Register("postgresql://", open)
}

// sessionParams fix every session setting that could shape a value: the
// binary format carries timestamps as UTC microseconds whatever TimeZone
// says, but server-text columns and the catalog text use these.
var sessionParams = map[string]string{
	"TimeZone":           "UTC",
	"DateStyle":          "ISO, MDY",
	"IntervalStyle":      "postgres",
	"extra_float_digits": "3",
	"bytea_output":       "hex",
	"client_encoding":    "UTF8",
}

// choices are recorded, in this order, in every evidence (see doc.go);
// column overrides follow.
var choices = []string{"format=binary", "timezone=UTC", "char=blank-padded", "jsonb=server-text", "uuid=text", "special-values=fail-row", "order=engine"}

// Source reads one PostgreSQL table, view or query. It implements
// source.Source.
type Source struct {
	a      Address
	opts   source.Options
	conn   *pgconn.PgConn
	rr     *pgconn.ResultReader
	cols   []column
	schema *arrow.Schema
	rb     *array.RecordBuilder
	cells  []cell
	pk     []string
	ev     source.Evidence
	t      source.Tracker
	stop   error
}

var (
	_ source.Source = (*Source)(nil)
	_ source.Keyed  = (*Source)(nil)
)

// Open parses address (see ParseAddress) and opens it with opts. Options
// that apply: BatchSize, Columns (see doc.go), Exclude, Query (for an
// address without #relation), MaxFailureDetails, Allocator. MaxLineBytes is
// ignored (package source sets it by default). Any other option is a
// PW_SOURCE_OPTION error. On error nothing is held and no password appears
// in the message.
func Open(ctx context.Context, address string, opts source.Options) (*Source, error) {
	a, err := ParseAddress(address)
	if err != nil {
		return nil, err
	}
	return OpenAddress(ctx, a, opts)
}

// OpenAddress opens a parsed address; see Open.
func OpenAddress(ctx context.Context, a Address, opts source.Options) (_ *Source, err error) {
	const op = "postgres open"
	where := a.Redacted()
	if err := opts.Validate(); err != nil {
		return nil, err
	}
	if err := opts.Refuse(op, where, "postgres", source.OptInferNull, source.OptMissingAsNull, source.OptHashContent); err != nil {
		return nil, err
	}
	if (a.Table == "") == (opts.Query == "") {
		return nil, &source.Error{Code: source.CodeAddress, Op: op, Source: where, Msg: "give exactly one of a #relation in the address or Options.Query"}
	}
	if opts.BatchSize == 0 {
		opts.BatchSize = 16384
	}
	if opts.MaxFailureDetails == 0 {
		opts.MaxFailureDetails = 100
	}
	if opts.Allocator == nil {
		opts.Allocator = memory.DefaultAllocator
	}
	secret := password(a.DSN)
	fail := func(code source.Code, detail string, cause error) error {
		return &source.Error{Code: code, Op: op, Source: where, Msg: detail, Err: source.ScrubError(cause, secret)}
	}
	cfg, err := pgconn.ParseConfig(a.DSN)
	if err != nil {
		return nil, fail(source.CodeAddress, "invalid connection settings", err)
	}
	// Parameter names are case-insensitive: drop the DSN's spellings first.
	for k := range cfg.RuntimeParams {
		for p := range sessionParams {
			if strings.EqualFold(k, p) {
				delete(cfg.RuntimeParams, k)
			}
		}
	}
	for k, v := range sessionParams {
		cfg.RuntimeParams[k] = v
	}
	if _, ok := cfg.RuntimeParams["application_name"]; !ok {
		cfg.RuntimeParams["application_name"] = "pipewhy"
	}
	conn, err := pgconn.ConnectConfig(ctx, cfg)
	if err != nil {
		return nil, fail(errCode(err, source.CodeIO), "cannot connect", err)
	}
	s := &Source{a: a, opts: opts, conn: conn}
	defer source.CloseOnError(&err, s)
	// One snapshot for the catalog, the count and the rows: REPEATABLE READ
	// takes it at the first statement after BEGIN.
	if _, err := conn.Exec(ctx, "BEGIN ISOLATION LEVEL REPEATABLE READ, READ ONLY").ReadAll(); err != nil {
		return nil, fail(errCode(err, source.CodeIO), "cannot begin a read-only transaction", err)
	}
	info, err := query(ctx, conn, "SELECT current_setting('server_version'), current_setting('server_version_num'), "+
		"COALESCE((CASE WHEN pg_is_in_recovery() THEN pg_last_wal_replay_lsn() ELSE pg_current_wal_lsn() END)::text, 'unknown'), "+
		"txid_current_snapshot()::text, current_database()")
	if err != nil || len(info) != 1 {
		return nil, fail(errCode(err, source.CodeIO), "cannot read the server version", err)
	}
	row := info[0]
	s.ev.Version = "server_version=" + row[0] + ";server_version_num=" + row[1] + ";wal_lsn=" + row[2] + ";snapshot=" + row[3]
	host := "[" + cfg.Host + "]"
	if strings.HasPrefix(cfg.Host, "/") || net.ParseIP(cfg.Host) == nil || !strings.Contains(cfg.Host, ":") {
		host = cfg.Host
	}
	nsBase := "postgres://" + host + ":" + strconv.Itoa(int(cfg.Port)) + "/" + row[4]

	// The columns: names (and NOT NULL) from the catalog for a relation, from
	// the statement description for a query.
	var names []string
	var notNull []bool
	var from string
	mode := "schema=catalog"
	if a.Table != "" {
		var rel [][]string
		if a.Schema != "" {
			rel, err = query(ctx, conn, "SELECT c.oid::text, n.nspname, c.relname, c.relkind::text FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = $1 AND c.relname = $2", a.Schema, a.Table)
		} else {
			rel, err = query(ctx, conn, "SELECT c.oid::text, n.nspname, c.relname, c.relkind::text FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace WHERE c.relname = $1 AND pg_catalog.pg_table_is_visible(c.oid)", a.Table)
		}
		if err != nil {
			return nil, fail(errCode(err, source.CodeIO), "cannot read the catalog", err)
		}
		if len(rel) == 0 || !strings.Contains("rpvmf", rel[0][3]) {
			return nil, fail(source.CodeNotFound, "no such table or view", nil)
		}
		oid := rel[0][0]
		s.a.Schema, s.a.Table = rel[0][1], rel[0][2]
		from = quoteIdent(s.a.Schema) + "." + quoteIdent(s.a.Table)
		s.ev.Namespace = nsBase + "#" + s.a.Relation()
		attrs, err := query(ctx, conn, "SELECT attname, attnotnull::text FROM pg_catalog.pg_attribute WHERE attrelid = $1::oid AND attnum > 0 AND NOT attisdropped ORDER BY attnum", oid)
		if err != nil {
			return nil, fail(errCode(err, source.CodeIO), "cannot read the columns", err)
		}
		for _, r := range attrs {
			names, notNull = append(names, r[0]), append(notNull, r[1] == "true")
		}
		pk, err := query(ctx, conn, "SELECT a.attname FROM pg_catalog.pg_index i CROSS JOIN LATERAL unnest(i.indkey) WITH ORDINALITY AS k(attnum, ord) JOIN pg_catalog.pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = k.attnum WHERE i.indrelid = $1::oid AND i.indisprimary ORDER BY k.ord", oid)
		if err != nil {
			return nil, fail(errCode(err, source.CodeIO), "cannot read the primary key", err)
		}
		for _, r := range pk {
			s.pk = append(s.pk, r[0])
		}
	} else {
		mode = "schema=query"
		sd, err := conn.Prepare(ctx, "", strings.TrimRight(opts.Query, "; \t\r\n"), nil)
		if err != nil {
			return nil, fail(errCode(err, source.CodeSchema), "the query does not prepare", err)
		}
		for _, f := range sd.Fields {
			names = append(names, f.Name)
		}
		// A trailing ';' would break the wrapping; the newline ends a
		// trailing -- comment.
		from = "(" + strings.TrimRight(opts.Query, "; \t\r\n") + "\n) AS pipewhy_query"
		sum := sha256.Sum256([]byte(opts.Query))
		s.ev.Namespace = nsBase + "?query-sha256=" + hex.EncodeToString(sum[:])
	}
	seen := map[string]bool{}
	for _, n := range names {
		if seen[n] {
			return nil, fail(source.CodeDuplicate, fmt.Sprintf("column %q appears twice", n), nil)
		}
		seen[n] = true
	}
	keep, excluded, err := source.Exclude(op, where, names, opts.Exclude)
	if err != nil {
		return nil, err
	}
	s.ev.Excluded = excluded
	override := map[string]string{}
	for _, c := range opts.Columns {
		if !seen[c.Name] {
			return nil, fail(source.CodeSchema, fmt.Sprintf("schema column %q is not a result column", c.Name), nil)
		}
		override[c.Name] = c.Type
	}
	if len(opts.Columns) > 0 {
		mode += "+explicit"
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
	selectSQL := "SELECT " + strings.Join(sel, ", ") + " FROM " + from
	// The statement description gives each column's type as the rows will
	// carry it (a domain arrives as its base type).
	sd, err := conn.Prepare(ctx, "", selectSQL, nil)
	if err != nil {
		return nil, fail(errCode(err, source.CodeSchema), "cannot describe the columns", err)
	}
	var fields []arrow.Field
	var overrideChoices []string
	j := 0
	for i, n := range names {
		if !keep[i] {
			continue
		}
		fd := sd.Fields[j]
		j++
		c := column{name: n, oid: fd.DataTypeOID, typmod: fd.TypeModifier}
		c.srcType = pgTypeName(c.oid, c.typmod, "")
		ok, why := mapType(&c)
		if t, has := override[n]; has {
			switch {
			case t == "text":
				c.kind, c.typ, c.format = dServerText, arrow.BinaryTypes.String, 0
			case strings.HasPrefix(t, "decimal(") && c.oid == oidNumeric:
				var p, sc int32
				if _, err := fmt.Sscanf(t, "decimal(%d,%d)", &p, &sc); err != nil {
					return nil, fail(source.CodeSchema, fmt.Sprintf("column %q: cannot read %s", n, t), nil)
				}
				setDecimal(&c, p, sc)
			default:
				return nil, fail(source.CodeSchema, fmt.Sprintf("column %q: type %s is not text, nor decimal(P,S) for a numeric column", n, t), nil)
			}
			c.override = t
			ok = true
			overrideChoices = append(overrideChoices, "column "+strconv.Quote(n)+"="+t)
		}
		if c.srcType == "postgres:" || !isBuiltinName(c.oid) {
			// Name unknown types by the catalog for the messages and metadata.
			if r, err := query(ctx, conn, "SELECT pg_catalog.format_type($1::oid, $2::int4)", strconv.FormatUint(uint64(c.oid), 10), strconv.Itoa(int(c.typmod))); err == nil && len(r) == 1 {
				c.srcType = "postgres:" + r[0][0]
			}
		}
		if !ok {
			return nil, fail(source.CodeUnsupported, fmt.Sprintf("column %q has type %s: %s", n, strings.TrimPrefix(c.srcType, "postgres:"), why), nil)
		}
		nullable := notNull == nil || !notNull[i]
		fields = append(fields, arrow.Field{Name: n, Type: c.typ, Nullable: nullable, Metadata: fieldMeta(&c)})
		s.cols = append(s.cols, c)
	}
	counted, err := query(ctx, conn, "SELECT count(*)::text FROM "+from)
	if err != nil || len(counted) != 1 {
		return nil, fail(errCode(err, source.CodeIO), "cannot count rows", err)
	}
	n, err := strconv.ParseUint(counted[0][0], 10, 64)
	if err != nil {
		return nil, fail(source.CodeIO, "cannot count rows", err)
	}
	s.t.Expected, s.t.ExpectedKnown = n, true
	formats := make([]int16, len(s.cols))
	for i := range s.cols {
		formats[i] = s.cols[i].format
	}
	// The result reader outlives Open: it must not be bound to Open's
	// context. Next watches its own context instead.
	s.rr = conn.ExecParams(context.WithoutCancel(ctx), selectSQL, nil, nil, nil, formats)
	s.schema = arrow.NewSchema(fields, nil)
	s.rb = array.NewRecordBuilder(opts.Allocator, s.schema)
	s.cells = make([]cell, len(s.cols))
	s.ev.Adapter = Kind
	s.ev.Consistency = Consistency
	s.ev.Choices = append(append([]string{mode}, choices...), overrideChoices...)
	s.t.MaxDetails = opts.MaxFailureDetails
	return s, nil
}

func isBuiltinName(oid uint32) bool {
	switch oid {
	case oidBool, oidBytea, oidName, oidInt2, oidInt4, oidInt8, oidText, oidOID, oidJSON, oidJSONB,
		oidFloat4, oidFloat8, oidUUID, oidDate, oidInterval, oidNumeric, oidVarchar, oidBPChar,
		oidTime, oidTimestamp, oidTimestampTZ:
		return true
	}
	return false
}

// query runs a catalog query with text parameters and text results.
func query(ctx context.Context, conn *pgconn.PgConn, sql string, params ...string) ([][]string, error) {
	vals := make([][]byte, len(params))
	for i, p := range params {
		vals[i] = []byte(p)
	}
	res := conn.ExecParams(ctx, sql, vals, nil, nil, nil).Read()
	if res.Err != nil {
		return nil, res.Err
	}
	out := make([][]string, len(res.Rows))
	for i, r := range res.Rows {
		out[i] = make([]string, len(r))
		for j, v := range r {
			out[i][j] = string(v)
		}
	}
	return out, nil
}

// errCode maps a server error to a stable code.
func errCode(err error, def source.Code) source.Code {
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		switch {
		case strings.HasPrefix(pe.Code, "28"), pe.Code == "42501":
			return CodeAuth
		case pe.Code == "3D000", pe.Code == "42P01", pe.Code == "3F000":
			return source.CodeNotFound
		case strings.HasPrefix(pe.Code, "42"):
			return source.CodeSchema
		}
	}
	return def
}

// password returns the DSN's password, to scrub it from third-party error
// texts.
func password(dsn string) string {
	cfg, err := pgconn.ParseConfig(dsn)
	if err != nil {
		return ""
	}
	return cfg.Password
}

// Schema returns the Arrow schema, fixed at Open.
func (s *Source) Schema() *arrow.Schema { return s.schema }

// PrimaryKey returns the relation's primary key columns in key order, or
// nil (no primary key, or a query). Scan uses it as the default key.
func (s *Source) PrimaryKey() []string { return append([]string(nil), s.pk...) }

// Next returns the next batch of at most BatchSize rows, or io.EOF.
func (s *Source) Next(ctx context.Context) (arrow.RecordBatch, error) {
	const op = "postgres next"
	if s.stop != nil {
		return nil, s.stop
	}
	if s.t.Done {
		return nil, io.EOF
	}
	if s.conn == nil {
		return nil, &source.Error{Code: source.CodeIO, Op: op, Source: s.a.Redacted(), Msg: "source is closed"}
	}
	if err := ctx.Err(); err != nil {
		s.stop = &source.Error{Code: source.CodeIncomplete, Op: op, Source: s.a.Redacted(), Msg: "cancelled", Err: err}
		return nil, s.stop
	}
	// Cancellation interrupts a blocked read through the socket deadline;
	// the connection is then unusable, which the read reports.
	stopWatch := context.AfterFunc(ctx, func() { _ = s.conn.Conn().SetDeadline(time.Unix(1, 0)) })
	defer stopWatch()
	rows := 0
	for rows < s.opts.BatchSize {
		if !s.rr.NextRow() {
			s.t.Done = true
			if _, err := s.rr.Close(); err != nil {
				code := source.CodeIO
				detail := "reading rows failed"
				if ctx.Err() != nil {
					code, detail = source.CodeIncomplete, "cancelled"
				}
				s.t.Fail(source.Failure{Code: code, Detail: "reading stopped: " + detail}, false)
				s.t.Fatal = true
				s.stop = &source.Error{Code: code, Op: op, Source: s.a.Redacted(), Msg: detail, Err: source.ScrubError(err, password(s.a.DSN))}
			}
			break
		}
		if s.stage(s.rr.Values()) {
			rows++
			s.t.Returned++
		}
	}
	if rows == 0 {
		if s.stop != nil {
			return nil, s.stop
		}
		return nil, io.EOF
	}
	return s.rb.NewRecordBatch(), nil
}

// stage decodes one row and appends it only when every value decodes.
// Row numbers in failures count rows in read order from 1.
func (s *Source) stage(vals [][]byte) bool {
	if len(vals) != len(s.cols) {
		s.t.Fail(source.Failure{Code: source.CodeCorrupt, Line: s.t.Returned + s.t.FailedRecords() + 1, Detail: "row has the wrong number of values"}, true)
		return false
	}
	for i, v := range vals {
		c := &s.cells[i]
		if v == nil {
			c.null = true
			continue
		}
		c.null = false
		if code, detail := s.cols[i].decode(v, c); code != "" {
			s.t.Fail(source.Failure{Code: code, Line: s.t.Returned + s.t.FailedRecords() + 1, Column: s.cols[i].name, Detail: detail}, true)
			return false
		}
	}
	for i := range s.cols {
		s.cols[i].appendCell(s.rb.Field(i), &s.cells[i])
	}
	return true
}

// Evidence reports the read so far; see doc.go.
func (s *Source) Evidence() source.Evidence { return s.t.Evidence(s.ev) }

// Close ends the transaction and the connection. Closing before the end of
// the rows drops the connection without reading the rest.
func (s *Source) Close() error {
	if s.conn != nil {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		_ = s.conn.Close(ctx) // read-only transaction: nothing to commit
		cancel()
		s.conn = nil
	}
	if s.rb != nil {
		s.rb.Release()
		s.rb = nil
	}
	return nil
}
