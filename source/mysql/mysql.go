package mysql

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	driver "github.com/go-sql-driver/mysql"

	"github.com/pipewhy/pipewhy/source"
)

// Consistency levels recorded in Evidence.Consistency.
const (
	// ConsistencySnapshot: the row count and all rows were read on one
	// connection inside START TRANSACTION WITH CONSISTENT SNAPSHOT, READ
	// ONLY at REPEATABLE READ. The snapshot covers transactional (InnoDB)
	// tables; for a query the adapter cannot check which engines it reads.
	ConsistencySnapshot = "mysql-consistent-snapshot"
	// ConsistencyNonTransactional: the same transaction, but the table's
	// engine (MyISAM, Aria, MEMORY, ...) ignores snapshots: a concurrent
	// write between the count and the rows shows as a PW_SOURCE_COUNT
	// failure, and one during the read may go unnoticed.
	ConsistencyNonTransactional = "mysql-non-transactional"
)

// CodeAuth marks a connection or statement refused by the server's access
// control (errors 1044, 1045, 1142, 1143, 1227, 1698); source.CodeAuth.
const CodeAuth = source.CodeAuth

// ErrAuth matches any CodeAuth error with errors.Is.
var ErrAuth = source.ErrAuth

// netWriteTimeout is the session's net_write_timeout in seconds: the time
// the server waits for the reader between network writes. Consumers may
// pause between batches (hashing, writing snapshots) for longer than the
// server default of 60 s.
const netWriteTimeout = 3600

// Source reads one MySQL or MariaDB table or query as Arrow record batches.
// It implements source.Source.
type Source struct {
	a          Address
	opts       source.Options
	db         *sql.DB
	conn       *sql.Conn
	stmt       *sql.Stmt
	rows       *sql.Rows
	cancelRows context.CancelFunc
	cols       []column
	schema     *arrow.Schema
	rb         *array.RecordBuilder
	slots      []slot
	ptrs       []any
	cells      []cell
	pk         []string
	ev         source.Evidence
	t          source.Tracker
	stop       error
}

var (
	_ source.Source = (*Source)(nil)
	_ source.Keyed  = (*Source)(nil)
)

// Open parses address and opens the source; see OpenAddress.
func Open(ctx context.Context, address string, opts source.Options) (*Source, error) {
	a, err := ParseAddress(address)
	if err != nil {
		return nil, err
	}
	return OpenAddress(ctx, a, opts)
}

// OpenSource is Open with the source.Source result type, for routing
// "mysql://" addresses next to source.Open (a nil interface on error,
// never a typed nil).
func OpenSource(ctx context.Context, address string, opts source.Options) (source.Source, error) {
	s, err := Open(ctx, address, opts)
	if err != nil {
		return nil, err
	}
	return s, nil
}

func checkOptions(a Address, opts source.Options) error {
	if err := opts.Validate(); err != nil {
		return err
	}
	if err := opts.Refuse("mysql open", a.String(), "mysql", source.OptColumns, source.OptInferNull,
		source.OptMissingAsNull, source.OptHashContent, source.OptMaxLineBytes); err != nil {
		return err
	}
	if (a.Table == "") == (opts.Query == "") {
		return &source.Error{Code: source.CodeAddress, Op: "mysql open", Source: a.String(), Msg: "give exactly one of a #TABLE in the address or Options.Query"}
	}
	return nil
}

// OpenAddress connects, starts a consistent-snapshot read-only transaction
// on one connection, fixes the schema, counts the rows and starts streaming
// them with a server-side prepared statement (binary protocol). On error no
// resources are held; errors are *source.Error whose messages never contain
// the password.
func OpenAddress(ctx context.Context, a Address, opts source.Options) (_ *Source, err error) {
	const op = "mysql open"
	if err := checkOptions(a, opts); err != nil {
		return nil, err
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
	fail := func(code source.Code, detail string, cause error) error {
		return &source.Error{Code: classify(code, cause), Op: op, Source: a.String(), Msg: detail, Err: source.ScrubError(cause, a.Password)}
	}
	connector, err := driver.NewConnector(a.Config())
	if err != nil {
		return nil, fail(source.CodeAddress, "invalid connection settings", err)
	}
	s := &Source{a: a, opts: opts, db: sql.OpenDB(connector)}
	s.db.SetMaxOpenConns(1)
	defer source.CloseOnError(&err, s)
	// The connection, transaction and cursor outlive Open: they must not
	// end with Open's context. Next checks its own context.
	long := context.WithoutCancel(ctx)
	if s.conn, err = s.db.Conn(ctx); err != nil {
		return nil, fail(source.CodeIO, "cannot connect", err)
	}
	for _, q := range []string{
		"SET SESSION time_zone = '+00:00'",
		"SET SESSION net_write_timeout = " + strconv.Itoa(netWriteTimeout),
		"SET SESSION TRANSACTION ISOLATION LEVEL REPEATABLE READ",
		"START TRANSACTION WITH CONSISTENT SNAPSHOT, READ ONLY",
	} {
		if _, err := s.conn.ExecContext(ctx, q); err != nil {
			return nil, fail(source.CodeIO, "cannot prepare the session", err)
		}
	}
	var version, sqlMode string
	var logBin int64
	if err := s.conn.QueryRowContext(ctx, "SELECT @@version, @@sql_mode, @@log_bin").Scan(&version, &sqlMode, &logBin); err != nil {
		return nil, fail(source.CodeIO, "cannot read server variables", err)
	}
	s.ev.Version = "server=" + version + ";" + s.binlogPosition(ctx, logBin)

	var from, probe string
	var meta map[string]tableColumn
	var names []string
	consistency, mode, engine := ConsistencySnapshot, "schema=declared", ""
	if a.Table != "" {
		from = quoteIdent(a.TableSchema) + "." + quoteIdent(a.Table)
		var eng, created sql.NullString
		err := s.conn.QueryRowContext(ctx, "SELECT ENGINE, CREATE_TIME FROM information_schema.TABLES WHERE TABLE_SCHEMA = ? AND TABLE_NAME = ?", a.TableSchema, a.Table).Scan(&eng, &created)
		if errors.Is(err, sql.ErrNoRows) {
			return nil, fail(source.CodeNotFound, "no such table or view", nil)
		}
		if err != nil {
			return nil, fail(source.CodeIO, "cannot read the table catalog", err)
		}
		engine = "view"
		if eng.Valid {
			engine = eng.String
			if !strings.EqualFold(eng.String, "InnoDB") {
				consistency = ConsistencyNonTransactional
			}
		}
		if created.Valid {
			s.ev.Version += ";table_created=" + created.String
		}
		if meta, names, err = s.tableColumns(ctx); err != nil {
			return nil, fail(source.CodeIO, "cannot read the table's columns", err)
		}
		if s.pk, err = s.primaryKey(ctx); err != nil {
			return nil, fail(source.CodeIO, "cannot read the primary key", err)
		}
		// Name every column: SELECT * would leave out INVISIBLE columns,
		// and nothing is excluded implicitly.
		quoted := make([]string, len(names))
		for i, n := range names {
			quoted[i] = quoteIdent(n)
		}
		if len(names) == 0 {
			return nil, fail(source.CodeNotFound, "the table has no columns visible to this user", nil)
		}
		probe = "SELECT " + strings.Join(quoted, ", ") + " FROM " + from + " LIMIT 0"
		s.ev.Namespace = "mysql://" + a.server() + "/" + a.TableSchema + "#" + a.Table
	} else {
		mode = "schema=query-declared"
		from = "(" + opts.Query + ") AS pw_query"
		probe = "SELECT * FROM " + from + " LIMIT 0"
		sum := sha256.Sum256([]byte(opts.Query))
		s.ev.Namespace = "mysql://" + a.server() + "/" + a.Database + "?query-sha256=" + hex.EncodeToString(sum[:])
	}
	probed, err := s.describe(ctx, probe)
	if err != nil {
		code := source.CodeIO
		if a.Table == "" {
			code = source.CodeSchema
		}
		return nil, fail(code, "cannot describe the result columns", err)
	}
	if a.Table != "" && len(probed) != len(names) {
		return nil, fail(source.CodeChanged, "the table's columns changed while opening", nil)
	}
	var all []string
	seen := map[string]bool{}
	for i, p := range probed {
		if a.Table != "" && p.Name() != names[i] {
			return nil, fail(source.CodeChanged, "the table's columns changed while opening", nil)
		}
		if seen[p.Name()] {
			return nil, fail(source.CodeDuplicate, fmt.Sprintf("column %q appears twice", p.Name()), nil)
		}
		seen[p.Name()] = true
		all = append(all, p.Name())
	}
	keep, excluded, err := source.Exclude(op, a.String(), all, opts.Exclude)
	if err != nil {
		return nil, err
	}
	var sel []string
	var kept []*sql.ColumnType
	for i, p := range probed {
		if keep[i] {
			kept = append(kept, p)
			sel = append(sel, quoteIdent(p.Name()))
		}
	}
	// A table's probe has the types of the read: fail fast, before the
	// count. A query's types come from the read itself (a derived table
	// may type an expression differently, e.g. a bare NULL).
	if a.Table != "" {
		if err := s.compileAll(kept, meta); err != nil {
			return nil, fail(source.CodeUnsupported, err.Error(), nil)
		}
	}
	if len(sel) == 0 {
		return nil, fail(source.CodeSchema, "no columns left to read", nil)
	}
	var count int64
	if err := s.conn.QueryRowContext(ctx, "SELECT COUNT(*) FROM "+from).Scan(&count); err != nil {
		return nil, fail(source.CodeIO, "cannot count rows", err)
	}
	s.t.Expected, s.t.ExpectedKnown = uint64(count), count >= 0
	read := "SELECT " + strings.Join(sel, ", ") + " FROM " + from
	if a.Table == "" && len(excluded) == 0 {
		// The query itself, so that its ORDER BY holds: a derived table
		// may drop it.
		read = opts.Query
	}
	// A prepared statement makes the server send rows in the binary
	// protocol: exact float bits, integers as integers.
	if s.stmt, err = s.conn.PrepareContext(ctx, read); err != nil {
		return nil, fail(source.CodeIO, "cannot prepare the read", err)
	}
	rowsCtx, cancel := context.WithCancel(long)
	s.cancelRows = cancel
	if s.rows, err = s.stmt.QueryContext(rowsCtx); err != nil {
		return nil, fail(source.CodeIO, "cannot read rows", err)
	}
	cts, err := s.rows.ColumnTypes()
	if err != nil {
		return nil, fail(source.CodeIO, "cannot read result columns", err)
	}
	if len(cts) != len(kept) {
		return nil, fail(source.CodeChanged, "the result columns changed while opening", nil)
	}
	for i, ct := range cts {
		if ct.Name() != kept[i].Name() || (a.Table != "" && ct.DatabaseTypeName() != s.cols[i].wire) {
			return nil, fail(source.CodeChanged, fmt.Sprintf("column %q changed while opening", kept[i].Name()), nil)
		}
	}
	if a.Table == "" {
		if err := s.compileAll(cts, nil); err != nil {
			return nil, fail(source.CodeUnsupported, err.Error(), nil)
		}
	}
	fields := make([]arrow.Field, len(s.cols))
	for i := range s.cols {
		fields[i] = s.cols[i].field()
	}
	s.schema = arrow.NewSchema(fields, nil)
	s.rb = array.NewRecordBuilder(opts.Allocator, s.schema)
	s.slots = make([]slot, len(s.cols))
	s.ptrs = make([]any, len(s.cols))
	for i := range s.slots {
		s.ptrs[i] = &s.slots[i]
	}
	s.cells = make([]cell, len(s.cols))
	padding := "char-padding=stripped"
	if strings.Contains(sqlMode, "PAD_CHAR_TO_FULL_LENGTH") {
		padding = "char-padding=full"
	}
	s.ev.Adapter = Kind
	s.ev.Consistency = consistency
	s.ev.Choices = []string{mode, "order=engine", "time_zone=+00:00", padding,
		"bool=int8", "time=duration(us)", "enum-set=text", "json=text", "zero-date=fail-row",
		"sql_mode=" + sqlMode}
	if engine != "" {
		s.ev.Choices = append(s.ev.Choices, "engine="+engine)
	}
	s.ev.Excluded = excluded
	s.t.MaxDetails = opts.MaxFailureDetails
	return s, nil
}

// binlogPosition reports the binary log position of the snapshot when the
// server can say it exactly (MariaDB's binlog_snapshot_file/position status
// variables, set by START TRANSACTION WITH CONSISTENT SNAPSHOT), else why
// not.
func (s *Source) binlogPosition(ctx context.Context, logBin int64) string {
	if logBin == 0 {
		return "binlog=off"
	}
	rows, err := s.conn.QueryContext(ctx, "SHOW SESSION STATUS LIKE 'binlog_snapshot_%'")
	if err != nil {
		return "binlog=unavailable"
	}
	defer rows.Close()
	var file, pos string
	for rows.Next() {
		var k, v string
		if rows.Scan(&k, &v) != nil {
			return "binlog=unavailable"
		}
		switch strings.ToLower(k) {
		case "binlog_snapshot_file":
			file = v
		case "binlog_snapshot_position":
			pos = v
		}
	}
	if rows.Err() != nil || file == "" || pos == "" {
		return "binlog=unavailable"
	}
	return "binlog_snapshot=" + file + ":" + pos
}

// tableColumn is the catalog's view of one table column.
type tableColumn struct {
	columnType string // COLUMN_TYPE, e.g. "decimal(10,2) unsigned"
	dataType   string
	prec       sql.NullInt64
	scale      sql.NullInt64
	nullable   bool
}

func (s *Source) tableColumns(ctx context.Context) (map[string]tableColumn, []string, error) {
	rows, err := s.conn.QueryContext(ctx, "SELECT COLUMN_NAME, COLUMN_TYPE, DATA_TYPE, NUMERIC_PRECISION, NUMERIC_SCALE, IS_NULLABLE FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = ? AND TABLE_NAME = ? ORDER BY ORDINAL_POSITION", s.a.TableSchema, s.a.Table)
	if err != nil {
		return nil, nil, err
	}
	defer rows.Close()
	m := map[string]tableColumn{}
	var names []string
	for rows.Next() {
		var n, nullable string
		var c tableColumn
		if err := rows.Scan(&n, &c.columnType, &c.dataType, &c.prec, &c.scale, &nullable); err != nil {
			return nil, nil, err
		}
		c.nullable = nullable == "YES"
		m[n] = c
		names = append(names, n)
	}
	return m, names, rows.Err()
}

func (s *Source) primaryKey(ctx context.Context) ([]string, error) {
	rows, err := s.conn.QueryContext(ctx, "SELECT COLUMN_NAME FROM information_schema.KEY_COLUMN_USAGE WHERE TABLE_SCHEMA = ? AND TABLE_NAME = ? AND CONSTRAINT_NAME = 'PRIMARY' ORDER BY ORDINAL_POSITION", s.a.TableSchema, s.a.Table)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var pk []string
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			return nil, err
		}
		pk = append(pk, n)
	}
	return pk, rows.Err()
}

// describe returns the result columns of a LIMIT 0 probe.
func (s *Source) describe(ctx context.Context, probe string) ([]*sql.ColumnType, error) {
	rows, err := s.conn.QueryContext(ctx, probe)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	cts, err := rows.ColumnTypes()
	if err != nil {
		return nil, err
	}
	for rows.Next() {
	}
	return cts, rows.Err()
}

func (s *Source) compileAll(cts []*sql.ColumnType, meta map[string]tableColumn) error {
	s.cols = s.cols[:0]
	for _, ct := range cts {
		c, err := compile(ct, meta)
		if err != nil {
			return err
		}
		s.cols = append(s.cols, c)
	}
	return nil
}

// compile maps a result column, refined by the table catalog when the
// source is a table.
func compile(ct *sql.ColumnType, meta map[string]tableColumn) (column, error) {
	wire := ct.DatabaseTypeName()
	prec, scale, _ := ct.DecimalSize()
	nullable, _ := ct.Nullable()
	srcType := strings.ToLower(wire)
	bitWidth := 64
	tc, isTable := meta[ct.Name()]
	if isTable {
		srcType = tc.columnType
		nullable = tc.nullable
		if wire == "DECIMAL" && tc.prec.Valid && tc.scale.Valid {
			prec, scale = tc.prec.Int64, tc.scale.Int64
		}
		if wire == "BIT" && tc.prec.Valid {
			bitWidth = int(tc.prec.Int64)
		}
	} else {
		switch wire {
		case "DECIMAL":
			srcType += fmt.Sprintf("(%d,%d)", prec, scale)
		case "DATETIME", "TIMESTAMP", "TIME":
			if scale > 0 && scale <= 6 {
				srcType += fmt.Sprintf("(%d)", scale)
			}
		}
	}
	c, ok := mapWire(ct.Name(), wire, prec, scale, bitWidth)
	if !ok {
		spell := wire
		if isTable {
			spell = tc.columnType
		}
		if spell == "" {
			spell = "(unknown)"
		}
		return c, fmt.Errorf("column %q has unsupported type %s; exclude it or CAST it in a query", ct.Name(), spell)
	}
	if isTable && (c.kind == kText || c.kind == kBinary) {
		// The catalog decides text or bytes: the driver judges by a
		// one-byte collation id, which larger collation ids overflow.
		switch strings.ToLower(tc.dataType) {
		case "char", "varchar", "tinytext", "text", "mediumtext", "longtext", "json", "enum", "set":
			c.kind = kText
		case "binary", "varbinary", "tinyblob", "blob", "mediumblob", "longblob":
			c.kind = kBinary
		}
	}
	c.srcType = "mysql:" + srcType
	c.nullable = nullable
	return c, nil
}

func quoteIdent(s string) string { return "`" + strings.ReplaceAll(s, "`", "``") + "`" }

// classify refines code by the server's error number.
func classify(code source.Code, err error) source.Code {
	var me *driver.MySQLError
	if !errors.As(err, &me) {
		return code
	}
	switch me.Number {
	case 1044, 1045, 1142, 1143, 1227, 1698:
		return CodeAuth
	case 1049, 1146:
		return source.CodeNotFound
	}
	return code
}

// Schema is the Arrow schema fixed at Open.
func (s *Source) Schema() *arrow.Schema { return s.schema }

// PrimaryKey returns the table's primary key columns in key order, nil for
// a table without one and for queries. Excluded key columns are still
// listed: the key describes the table.
func (s *Source) PrimaryKey() []string { return append([]string(nil), s.pk...) }

// Next returns the next batch of at most Options.BatchSize rows.
func (s *Source) Next(ctx context.Context) (arrow.RecordBatch, error) {
	const op = "mysql next"
	if s.stop != nil {
		return nil, s.stop
	}
	if s.t.Done {
		return nil, io.EOF
	}
	if err := ctx.Err(); err != nil {
		s.stop = &source.Error{Code: source.CodeIncomplete, Op: op, Source: s.a.String(), Msg: "cancelled", Err: err}
		return nil, s.stop
	}
	rows, iter := 0, 0
	var fatal error
	// A round in which every row failed returns nothing: read on until a
	// row, the end, or a fatal error.
	for rows == 0 && !s.t.Done {
		for rows < s.opts.BatchSize {
			if iter++; iter&1023 == 0 && ctx.Err() != nil {
				if rows == 0 {
					s.stop = &source.Error{Code: source.CodeIncomplete, Op: op, Source: s.a.String(), Msg: "cancelled", Err: ctx.Err()}
					return nil, s.stop
				}
				break // reported by the next call
			}
			if !s.rows.Next() {
				if err := s.rows.Err(); err != nil {
					fatal = &source.Error{Code: classify(source.CodeIO, err), Op: op, Source: s.a.String(), Msg: "reading rows failed", Err: source.ScrubError(err, s.a.Password)}
					s.t.Fail(source.Failure{Code: source.CodeIO, Detail: "reading stopped: reading rows failed (connection lost or statement aborted)"}, false)
					s.t.Fatal = true
				}
				s.t.Done = true
				s.stop = fatal
				break
			}
			if err := s.rows.Scan(s.ptrs...); err != nil {
				fatal = &source.Error{Code: source.CodeIO, Op: op, Source: s.a.String(), Msg: "scanning a row failed", Err: source.ScrubError(err, s.a.Password)}
				s.t.Fail(source.Failure{Code: source.CodeIO, Detail: "reading stopped: scanning a row failed"}, false)
				s.t.Done, s.t.Fatal, s.stop = true, true, fatal
				break
			}
			if s.stage() {
				rows++
				s.t.Returned++
			}
		}
		if rows > 0 {
			break
		}
	}
	if rows == 0 {
		if fatal != nil {
			return nil, fatal
		}
		return nil, io.EOF
	}
	return s.rb.NewRecordBatch(), nil
}

// stage parses every value of the current row and appends the row only
// when all parse. Row numbers count rows in read order from 1.
func (s *Source) stage() bool {
	rowNo := s.t.Returned + s.t.FailedRecords() + 1
	for i := range s.cols {
		if d := s.cols[i].parse(s.slots[i].v, &s.cells[i]); d != "" {
			s.t.Fail(source.Failure{Code: source.CodeType, Line: rowNo, Column: s.cols[i].name, Detail: d}, true)
			return false
		}
	}
	for i := range s.cols {
		s.cols[i].appendCell(s.rb.Field(i), &s.cells[i])
	}
	return true
}

// Evidence reports the read so far; before io.EOF the coverage says the
// read is incomplete.
func (s *Source) Evidence() source.Evidence { return s.t.Evidence(s.ev) }

// Close ends the read. A read stopped early is aborted by closing the
// connection, not by draining the remaining rows.
func (s *Source) Close() error {
	var first error
	if s.rows != nil {
		if !s.t.Done && s.cancelRows != nil {
			s.cancelRows() // the driver closes the connection
		}
		if err := s.rows.Close(); err != nil && s.t.Done && first == nil {
			first = err
		}
		s.rows = nil
	}
	if s.cancelRows != nil {
		s.cancelRows()
	}
	// A read-only transaction: the statement, the rollback and the connection have nothing
	// to lose when they fail (a broken connection fails here harmlessly); the database
	// handle's error is reported.
	if s.stmt != nil {
		_ = s.stmt.Close()
		s.stmt = nil
	}
	if s.conn != nil {
		_, _ = s.conn.ExecContext(context.Background(), "ROLLBACK")
		_ = s.conn.Close()
		s.conn = nil
	}
	if s.db != nil {
		if err := s.db.Close(); err != nil && first == nil {
			first = err
		}
		s.db = nil
	}
	if s.rb != nil {
		s.rb.Release()
		s.rb = nil
	}
	if first != nil {
		return &source.Error{Code: source.CodeIO, Op: "mysql close", Source: s.a.String(), Err: source.ScrubError(first, s.a.Password)}
	}
	return nil
}

func init() { source.Register("mysql://", OpenSource) }
