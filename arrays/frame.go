package arrays

import "sort"

// Frame is the named-column storage form of one table: the schema version, the
// table name and one integer view per column, keyed by the exact schema
// column name ("artifact_id", "kind_id", "payload_words", …). The snapshot
// store persists frames as named integer arrays.
type Frame struct {
	Version string
	Table   TableKind
	Columns map[string]*View
}

// FrameOf returns t's frame at SchemaVersion: zero-copy read-only views over
// t's slices. The views alias t; t must not change while they are in use.
func FrameOf(t Table) (Frame, error) {
	cols := t.columns()
	f := Frame{Version: SchemaVersion, Table: t.Kind(), Columns: make(map[string]*View, len(cols))}
	for _, c := range cols {
		var v *View
		var err error
		if c.u8 != nil {
			v, err = FromSlice(*c.u8, Options{ReadOnly: true})
		} else {
			v, err = FromSlice(*c.u64, Options{ReadOnly: true})
		}
		if err != nil {
			return Frame{}, err
		}
		f.Columns[c.name] = v
	}
	return f, nil
}

// Column is one column of a table as the table holds it: its schema 1.0 name and its
// buffer, U8 for a uint8 column, U64 otherwise (the other is nil).
type Column struct {
	Name string
	U64  []uint64
	U8   []uint8
}

// Columns returns the columns of t in schema order with t's own buffers, not copies
// (FrameOf's views over the same memory are read-only; these are for a writer that
// persists a table of hundreds of megabytes without copying it first). Changing them
// changes t.
func Columns(t Table) []Column {
	cols := t.columns()
	out := make([]Column, len(cols))
	for i, c := range cols {
		out[i].Name = c.name
		if c.u8 != nil {
			out[i].U8 = *c.u8
		} else {
			out[i].U64 = *c.u64
		}
	}
	return out
}

// CheckFrame checks f against schema 1.0 without touching any buffer, in this
// order: exact version (CodeSchemaVersion), table name (CodeTableKind), unknown
// columns (CodeUnknownColumn, lowest name first), missing or nil columns
// (CodeMissingColumn, schema order), dtypes (CodeColumnDType, schema order).
func CheckFrame(f Frame) error {
	_, err := checkFrame(f)
	return err
}

func checkFrame(f Frame) (Table, error) {
	const op = "schema"
	if f.Version != SchemaVersion {
		return nil, &Error{Code: CodeSchemaVersion, Op: op, Table: string(f.Table), Row: -1}
	}
	t, err := NewTable(f.Table)
	if err != nil {
		return nil, err
	}
	cols := t.columns()
	known := make(map[string]bool, len(cols))
	for _, c := range cols {
		known[c.name] = true
	}
	var unknown []string
	for name := range f.Columns {
		if !known[name] {
			unknown = append(unknown, name)
		}
	}
	if len(unknown) > 0 {
		sort.Strings(unknown)
		return nil, &Error{Code: CodeUnknownColumn, Op: op, Table: string(f.Table), Column: unknown[0], Row: -1}
	}
	for _, c := range cols {
		if f.Columns[c.name] == nil {
			return nil, &Error{Code: CodeMissingColumn, Op: op, Table: string(f.Table), Column: c.name, Row: -1}
		}
	}
	for _, c := range cols {
		if f.Columns[c.name].DType() != c.dtype() {
			return nil, &Error{Code: CodeColumnDType, Op: op, Table: string(f.Table), Column: c.name, Row: -1}
		}
	}
	return t, nil
}

// Decode checks f as CheckFrame does and only then reads its buffers, copying
// every column into a new table it owns. A released view fails with
// CodeReleased. Decode does not apply table rules: call Validate.
func Decode(f Frame) (Table, error) {
	t, err := checkFrame(f)
	if err != nil {
		return nil, err
	}
	for _, c := range t.columns() {
		v := f.Columns[c.name]
		if c.u8 != nil {
			b, err := v.AppendBytes(make([]byte, 0, v.Len()))
			if err != nil {
				return nil, columnErr(err, "decode", f.Table, c.name)
			}
			*c.u8 = b
		} else {
			w, err := v.AppendUint64s(make([]uint64, 0, v.Len()))
			if err != nil {
				return nil, columnErr(err, "decode", f.Table, c.name)
			}
			*c.u64 = w
		}
	}
	return t, nil
}

func columnErr(err error, op string, table TableKind, column string) error {
	if e, ok := err.(*Error); ok {
		e.Op, e.Table, e.Column = op, string(table), column
		return e
	}
	return err
}
