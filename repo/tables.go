package repo

import (
	"github.com/pipewhy/pipewhy/arrays"
	"github.com/pipewhy/pipewhy/snapshot"
)

// DecodeTable reads the C1 table of kind that snap stores under "<kind>_<column>" keys,
// with C1's frame checks (version, names, dtypes, lengths); the caller runs the table's
// validator with its contexts. A missing or malformed column is CodeFormat.
func DecodeTable(snap *snapshot.Snapshot, kind arrays.TableKind) (arrays.Table, error) {
	return decodeTable(snap, kind)
}

// TableArrays adds the columns of each table to out under "<kind>_<column>" keys, the
// form DecodeTable reads. The arrays share memory with the tables' columns.
func TableArrays(out map[string]snapshot.Array, tables ...arrays.Table) error {
	for _, t := range tables {
		for _, c := range arrays.Columns(t) {
			a := snapshot.WrapUint64(c.U64)
			if c.U8 != nil {
				var err error
				if a, err = snapshot.WrapBytes(snapshot.Uint8, c.U8); err != nil {
					return &Error{Code: CodeFormat, Op: "encode", Msg: "C1 column " + c.Name, Err: err}
				}
			}
			out[string(t.Kind())+"_"+c.Name] = a
		}
	}
	return nil
}

// IDRange returns the id set {0, 1, ..., n-1}: the contexts of the dense local ids that
// PipeWhy's own tables use (names, evidence, transforms, ...).
func IDRange(n int) arrays.IDSet {
	ids := make([]uint64, n)
	for i := range ids {
		ids[i] = uint64(i)
	}
	return mustSet(ids...)
}
