package source

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"fmt"
	"io"
	"net/url"
	"os"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	_ "modernc.org/sqlite" // registers the "sqlite" database/sql driver
)

// sqliteAffinity applies SQLite's column affinity rules (section 3.1 of
// https://www.sqlite.org/datatype3.html) to a declared type.
func sqliteAffinity(decl string) string {
	d := strings.ToUpper(decl)
	switch {
	case strings.Contains(d, "INT"):
		return "INTEGER"
	case strings.Contains(d, "CHAR"), strings.Contains(d, "CLOB"), strings.Contains(d, "TEXT"):
		return "TEXT"
	case strings.Contains(d, "BLOB"), d == "":
		return "BLOB"
	case strings.Contains(d, "REAL"), strings.Contains(d, "FLOA"), strings.Contains(d, "DOUB"):
		return "REAL"
	}
	return "NUMERIC"
}

// storage classes as the column type expects them
var affinityType = map[string]string{"INTEGER": "int64", "REAL": "float64", "TEXT": "text", "BLOB": "bytes"}

// sqliteTypes are the vocabulary types a SQLite column may be declared as
// through Options.Columns: each accepts exactly one storage class.
var sqliteTypes = map[string]string{"int64": "INTEGER", "float64": "REAL", "text": "TEXT", "bytes(hex)": "BLOB"}

func quoteIdent(s string) string { return `"` + strings.ReplaceAll(s, `"`, `""`) + `"` }

type sqliteSource struct {
	a      Address
	opts   Options
	db     *sql.DB
	tx     *sql.Tx
	rows   *sql.Rows
	names  []string
	pk     []string // a table's PRIMARY KEY columns, in key order
	cols   []csvCol
	class  []string // expected storage class per result column
	schema *arrow.Schema
	rb     *array.RecordBuilder
	dest   []any
	ptrs   []any
	cells  []cell
	ev     Evidence
	t      Tracker
	stop   error
}

func openSQLite(ctx context.Context, a Address, opts Options) (_ Source, err error) {
	const op = "sqlite open"
	if (a.Table == "") == (opts.Query == "") {
		return nil, &Error{Code: CodeAddress, Op: op, Source: a.String(), Msg: "give exactly one of a #TABLE in the address or Options.Query"}
	}
	fi, err := os.Stat(a.Path)
	if err != nil {
		code := CodeIO
		if os.IsNotExist(err) {
			code = CodeNotFound
		}
		return nil, &Error{Code: code, Op: op, Source: a.String(), Msg: "cannot stat database file", Err: err}
	}
	if !fi.Mode().IsRegular() {
		return nil, &Error{Code: CodeIO, Op: op, Source: a.String(), Msg: "not a regular file"}
	}
	u := url.URL{Scheme: "file", Path: a.Path, RawQuery: "mode=ro"}
	db, err := sql.Open("sqlite", u.String())
	if err != nil {
		return nil, &Error{Code: CodeIO, Op: op, Source: a.String(), Msg: "cannot open database", Err: err}
	}
	db.SetMaxOpenConns(1)
	s := &sqliteSource{a: a, opts: opts, db: db}
	defer CloseOnError(&err, s)
	// The transaction and the row cursor outlive Open, so they must not be
	// bound to Open's context; Next checks its own context instead.
	longCtx := context.WithoutCancel(ctx)
	s.tx, err = db.BeginTx(longCtx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return nil, &Error{Code: CodeIO, Op: op, Source: a.String(), Msg: "cannot begin a read transaction", Err: err}
	}
	// The first statement of the transaction takes the read snapshot.
	var schemaVersion int64
	if err := s.tx.QueryRowContext(ctx, "PRAGMA schema_version").Scan(&schemaVersion); err != nil {
		return nil, &Error{Code: CodeCorrupt, Op: op, Source: a.String(), Msg: "not a readable SQLite database", Err: err}
	}
	override := map[string]colType{}
	for _, c := range opts.Columns {
		t, _ := parseType(c.Type)
		if _, ok := sqliteTypes[t.spell]; !ok {
			return nil, &Error{Code: CodeSchema, Op: op, Source: a.String(), Msg: fmt.Sprintf("column %q: type %s is not one of int64, float64, text, bytes for SQLite", c.Name, c.Type)}
		}
		override[c.Name] = t
	}
	var from string
	var decls []string
	var notNull []bool // table columns only: declared NOT NULL
	mode := "schema=declared"
	if a.Table != "" {
		var exists int
		if err := s.tx.QueryRowContext(ctx, "SELECT count(*) FROM sqlite_schema WHERE name = ? AND type IN ('table','view')", a.Table).Scan(&exists); err != nil {
			return nil, &Error{Code: CodeIO, Op: op, Source: a.String(), Msg: "cannot read the schema", Err: err}
		}
		if exists == 0 {
			return nil, &Error{Code: CodeNotFound, Op: op, Source: a.String(), Msg: "no such table or view"}
		}
		from = quoteIdent(a.Table)
		rows, err := s.tx.QueryContext(ctx, "SELECT name, type, \"notnull\", pk FROM pragma_table_info(?)", a.Table)
		if err != nil {
			return nil, &Error{Code: CodeIO, Op: op, Source: a.String(), Msg: "cannot read the table's columns", Err: err}
		}
		var pkPos []int64 // per column: its 1-based position in the primary key, else 0
		for rows.Next() {
			var n, t string
			var nn, pk int64
			if err := rows.Scan(&n, &t, &nn, &pk); err != nil {
				rows.Close()
				return nil, &Error{Code: CodeIO, Op: op, Source: a.String(), Msg: "cannot read the table's columns", Err: err}
			}
			s.names, decls = append(s.names, n), append(decls, t)
			notNull = append(notNull, nn != 0)
			pkPos = append(pkPos, pk)
		}
		for k := int64(1); ; k++ {
			i := slices.Index(pkPos, k)
			if i < 0 {
				break
			}
			s.pk = append(s.pk, s.names[i])
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return nil, &Error{Code: CodeIO, Op: op, Source: a.String(), Msg: "cannot read the table's columns", Err: err}
		}
		s.ev.Namespace = "sqlite:" + a.Path + "#" + a.Table
	} else {
		mode = "schema=query-declared"
		from = "(" + opts.Query + ")"
		// Prepare the query itself: wrapping it would rename duplicate
		// result columns and hide them.
		rows, err := s.tx.QueryContext(ctx, opts.Query)
		if err != nil {
			return nil, &Error{Code: CodeSchema, Op: op, Source: a.String(), Msg: "the query does not prepare", Err: err}
		}
		cts, err := rows.ColumnTypes()
		rows.Close()
		if err != nil {
			return nil, &Error{Code: CodeIO, Op: op, Source: a.String(), Msg: "cannot read result columns", Err: err}
		}
		for _, ct := range cts {
			s.names, decls = append(s.names, ct.Name()), append(decls, ct.DatabaseTypeName())
		}
		sum := sha256.Sum256([]byte(opts.Query))
		s.ev.Namespace = "sqlite:" + a.Path + "?query-sha256=" + hex.EncodeToString(sum[:])
	}
	if len(opts.Columns) > 0 {
		mode += "+explicit"
	}
	seen := map[string]bool{}
	for _, n := range s.names {
		if seen[n] {
			return nil, &Error{Code: CodeDuplicate, Op: op, Source: a.String(), Msg: fmt.Sprintf("column %q appears twice", n)}
		}
		seen[n] = true
	}
	for n := range override {
		if !seen[n] {
			return nil, &Error{Code: CodeSchema, Op: op, Source: a.String(), Msg: fmt.Sprintf("schema column %q is not a result column", n)}
		}
	}
	keep, excluded, err := Exclude(op, a.String(), s.names, opts.Exclude)
	if err != nil {
		return nil, err
	}
	var fields []arrow.Field
	var sel []string
	for i, n := range s.names {
		if !keep[i] {
			continue
		}
		t, ok := override[n]
		if !ok {
			if a.Table == "" && decls[i] == "" {
				return nil, &Error{Code: CodeType, Op: op, Source: a.String(), Msg: fmt.Sprintf("result column %q has no declared type; declare it in Columns", n)}
			}
			aff := sqliteAffinity(decls[i])
			spell, ok := affinityType[aff]
			if !ok {
				return nil, &Error{Code: CodeUnsupported, Op: op, Source: a.String(), Msg: fmt.Sprintf("column %q has NUMERIC affinity (declared %q); declare its type in Columns, exclude it, or CAST it in a query", n, decls[i])}
			}
			t, _ = parseType(spell)
		}
		s.cols = append(s.cols, csvCol{keep: true, typ: t, out: len(fields)})
		s.class = append(s.class, sqliteTypes[t.spell])
		dt := t.arrowType()
		srcType := decls[i]
		if srcType == "" {
			srcType = "(none)"
		}
		nullable := notNull == nil || !notNull[i]
		fields = append(fields, arrow.Field{Name: n, Type: dt, Nullable: nullable, Metadata: fieldMeta(srcType, dt)})
		sel = append(sel, quoteIdent(n))
	}
	if len(sel) == 0 {
		return nil, &Error{Code: CodeSchema, Op: op, Source: a.String(), Msg: "no columns left to read"}
	}
	var count int64
	if err := s.tx.QueryRowContext(ctx, "SELECT count(*) FROM "+from).Scan(&count); err != nil {
		return nil, &Error{Code: CodeIO, Op: op, Source: a.String(), Msg: "cannot count rows", Err: err}
	}
	s.t.Expected, s.t.ExpectedKnown = uint64(count), count >= 0
	// Result column names are unique (checked above), so selecting them by
	// name from the table or the wrapped query is exact.
	s.rows, err = s.tx.QueryContext(longCtx, "SELECT "+strings.Join(sel, ", ")+" FROM "+from)
	if err != nil {
		return nil, &Error{Code: CodeIO, Op: op, Source: a.String(), Msg: "cannot read rows", Err: err}
	}
	s.schema = arrow.NewSchema(fields, nil)
	s.rb = array.NewRecordBuilder(opts.Allocator, s.schema)
	s.dest = make([]any, len(sel))
	s.ptrs = make([]any, len(sel))
	for i := range s.dest {
		s.ptrs[i] = &s.dest[i]
	}
	s.cells = make([]cell, len(sel))
	s.ev.Adapter = KindSQLite
	s.ev.Version = sqliteVersion(a.Path, schemaVersion)
	s.ev.Consistency = ConsistencySQLiteTransaction
	s.ev.Choices = []string{mode, "mixed-storage=fail-row", "order=engine"}
	s.ev.Excluded = excluded
	s.t.MaxDetails = opts.MaxFailureDetails
	return s, nil
}

// sqliteVersion is a cheap change indicator: sizes and modification times
// of the database and its WAL, and the schema cookie read inside the
// transaction. It is not a content hash.
func sqliteVersion(path string, schemaVersion int64) string {
	v := "schema_version=" + fmt.Sprint(schemaVersion)
	for _, p := range []struct{ name, path string }{{"db", path}, {"wal", path + "-wal"}} {
		if fi, err := os.Stat(p.path); err == nil {
			v += fmt.Sprintf(";%s_size=%d;%s_mtime_ns=%d", p.name, fi.Size(), p.name, fi.ModTime().UnixNano())
		} else {
			v += ";" + p.name + "=absent"
		}
	}
	return v
}

func (s *sqliteSource) Schema() *arrow.Schema { return s.schema }

// PrimaryKey returns the table's PRIMARY KEY columns in key order: nil for a
// view, a query, or a table without one (a rowid table's implicit rowid is not
// a column). scan and compare use it as the default key (PrimaryKey).
func (s *sqliteSource) PrimaryKey() []string { return append([]string(nil), s.pk...) }

func (s *sqliteSource) Next(ctx context.Context) (arrow.RecordBatch, error) {
	if s.stop != nil {
		return nil, s.stop
	}
	if s.t.Done {
		return nil, io.EOF
	}
	if err := ctx.Err(); err != nil {
		s.stop = &Error{Code: CodeIncomplete, Op: "sqlite next", Source: s.a.String(), Msg: "cancelled", Err: err}
		return nil, s.stop
	}
	rows := 0
	var fatal error
	for rows < s.opts.BatchSize {
		if rows&1023 == 1023 && ctx.Err() != nil {
			break // reported by the next call
		}
		if !s.rows.Next() {
			if err := s.rows.Err(); err != nil {
				fatal = &Error{Code: CodeIO, Op: "sqlite next", Source: s.a.String(), Msg: "reading rows failed", Err: err}
				s.t.Fail(Failure{Code: CodeIO, Detail: "reading stopped: reading rows failed"}, false)
				s.t.Fatal = true
			}
			s.t.Done = true
			s.stop = fatal
			break
		}
		if err := s.rows.Scan(s.ptrs...); err != nil {
			fatal = &Error{Code: CodeIO, Op: "sqlite next", Source: s.a.String(), Msg: "scanning a row failed", Err: err}
			s.t.Fail(Failure{Code: CodeIO, Detail: "reading stopped: scanning a row failed"}, false)
			s.t.Done, s.t.Fatal, s.stop = true, true, fatal
			break
		}
		if s.stage() {
			rows++
			s.t.Returned++
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

func storageClass(v any) string {
	switch v.(type) {
	case nil:
		return "NULL"
	case int64:
		return "INTEGER"
	case float64:
		return "REAL"
	case string:
		return "TEXT"
	case []byte:
		return "BLOB"
	}
	return "OTHER"
}

// stage checks every value's storage class against its column and appends
// the row only when all match. Row numbers in failures count rows in read
// order from 1.
func (s *sqliteSource) stage() bool {
	rowNo := s.t.Returned + s.t.FailedRecords() + 1
	for i, v := range s.dest {
		c := &s.cells[i]
		*c = cell{}
		sc := storageClass(v)
		if sc == "NULL" {
			c.null = true
			continue
		}
		if sc != s.class[i] {
			s.t.Fail(Failure{Code: CodeType, Line: rowNo, Column: s.schema.Field(i).Name, Detail: "value stored as " + sc + " in a " + s.class[i] + " column"}, true)
			return false
		}
		switch x := v.(type) {
		case int64:
			c.i = x
		case float64:
			c.f = x
		case string:
			if !utf8.ValidString(x) {
				s.t.Fail(Failure{Code: CodeUTF8, Line: rowNo, Column: s.schema.Field(i).Name, Detail: "text is not valid UTF-8"}, true)
				return false
			}
			c.s = x
		case []byte:
			c.bs = x
		}
	}
	for i := range s.cols {
		s.cols[i].typ.appendCell(s.rb.Field(i), &s.cells[i])
	}
	return true
}

func (s *sqliteSource) Evidence() Evidence { return s.t.Evidence(s.ev) }

func (s *sqliteSource) Close() error {
	var first error
	if s.rows != nil {
		if err := s.rows.Close(); err != nil && first == nil {
			first = err
		}
		s.rows = nil
	}
	if s.tx != nil {
		_ = s.tx.Rollback() // read-only: nothing to undo
		s.tx = nil
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
		return &Error{Code: CodeIO, Op: "sqlite close", Source: s.a.String(), Err: first}
	}
	return nil
}
