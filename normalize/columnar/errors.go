package columnar

import (
	"strconv"

	"github.com/pipewhy/pipewhy/normalize"
)

// CodeColumns is the code of a column list that does not match the schema: an unknown
// or twice-mentioned column, a schema column left unmentioned (exclusions must be
// explicit), a duplicate or reserved field id, or a record whose schema differs from
// the encoder's. PipeWhy's own; appended to the normalize codes.
const CodeColumns normalize.Code = "PW_COL_COLUMNS"

// Error is the error of every function of this package. Err is always a
// *normalize.Error carrying the stable code, so normalize.CodeOf(err) and errors.As
// work on it. Column, Name and Type identify the Arrow column (schema metadata); Row is
// the row within the record passed to Append (-1 when not applicable). Messages never
// contain data values.
type Error struct {
	Column int    // Arrow column index; -1 when not applicable
	Name   string // Arrow field name
	Type   string // Arrow type, as arrow.DataType.String() renders it
	Row    int    // row within the record batch; -1 when not applicable
	Err    *normalize.Error
}

func (e *Error) Error() string {
	s := "columnar:"
	if e.Column >= 0 {
		s += " column " + strconv.Itoa(e.Column) + " " + strconv.Quote(e.Name)
		if e.Type != "" {
			s += " (" + e.Type + ")"
		}
	}
	if e.Row >= 0 {
		s += " row " + strconv.Itoa(e.Row)
	}
	return s + ": " + e.Err.Error()
}

func (e *Error) Unwrap() error { return e.Err }

// ErrorCode returns the stable code, that of Err, as a string (internal/errcode); this
// type has no Code field of its own: Err.Code is the typed one.
func (e *Error) ErrorCode() string { return string(e.Err.Code) }

func newError(op string, code normalize.Code, msg string) *normalize.Error {
	return &normalize.Error{Code: code, Op: op, Record: -1, Word: -1, Msg: msg}
}

func (p *plan) err(row int, code normalize.Code, msg string) *Error {
	e := newError("encode", code, msg)
	e.Record = row
	return &Error{Column: p.index, Name: p.name, Type: p.typ.String(), Row: row, Err: e}
}
