package arrays

import (
	"errors"
	"slices"
	"testing"
)

// TestVersionCheckPrecedesBufferInspection: a frame with a wrong version and
// released (unreadable) views of the wrong dtypes reports the version.
func TestVersionCheckPrecedesBufferInspection(t *testing.T) {
	garbage, _ := FromSlice([]int8{1, 2, 3}, Options{})
	garbage.Release()
	f := Frame{Version: "0.9", Table: TableArtifact, Columns: map[string]*View{"artifact_id": garbage, "zzz": garbage}}
	for _, err := range []error{CheckFrame(f), decodeErr(f)} {
		wantCode(t, err, CodeSchemaVersion)
		if !errors.Is(err, ErrSchema) {
			t.Errorf("errors.Is(ErrSchema) = false: %v", err)
		}
	}
	// With the right version, the schema checks still precede buffer reads.
	f.Version = SchemaVersion
	wantCode(t, decodeErr(f), CodeUnknownColumn)
}

func decodeErr(f Frame) error {
	_, err := Decode(f)
	return err
}

func TestDecodeReleasedColumn(t *testing.T) {
	a := chain(3)
	f, err := FrameOf(a)
	if err != nil {
		t.Fatal(err)
	}
	for name, v := range f.Columns {
		if !v.ReadOnly() {
			t.Errorf("FrameOf column %s is writable", name)
		}
	}
	f.Columns["name_id"].Release()
	if err := CheckFrame(f); err != nil {
		t.Errorf("CheckFrame reads no buffer, got %v", err)
	}
	_, err = Decode(f)
	var e *Error
	if !errors.As(err, &e) || e.Code != CodeReleased || e.Column != "name_id" || e.Table != "artifact" {
		t.Fatalf("got %v", err)
	}
}

func TestDecodeCopies(t *testing.T) {
	a := chain(4)
	f, _ := FrameOf(a)
	got, err := Decode(f)
	if err != nil {
		t.Fatal(err)
	}
	a.ArtifactID[0] = 99
	if got.(*ArtifactTable).ArtifactID[0] != 0 {
		t.Error("Decode aliased the frame's memory")
	}
}

// TestDecodeFromStoredBytes: a frame read back from storage (little-endian
// bytes at odd offsets) decodes to the same table.
func TestDecodeFromStoredBytes(t *testing.T) {
	e := &EdgeTable{EdgeID: []uint64{1, Absent - 1}, SourceID: []uint64{2, 3}, TargetID: []uint64{3, 2},
		RelationID: []uint8{0, 2}, EvidenceID: []uint64{7, 8}, TransformID: []uint64{Absent, 5}}
	f, _ := FrameOf(e)
	stored := Frame{Version: f.Version, Table: f.Table, Columns: map[string]*View{}}
	for name, v := range f.Columns {
		b, err := v.AppendBytes([]byte{0xAA}) // shift by one byte: unaligned
		if err != nil {
			t.Fatal(err)
		}
		stored.Columns[name], err = FromBytes(b[1:], v.DType(), Options{ReadOnly: true})
		if err != nil {
			t.Fatal(err)
		}
	}
	got, err := Decode(stored)
	if err != nil {
		t.Fatal(err)
	}
	g := got.(*EdgeTable)
	if g.EdgeID[1] != Absent-1 || g.TransformID[0] != Absent || g.RelationID[1] != 2 || g.TargetID[0] != 3 {
		t.Errorf("decoded %+v", g)
	}
}

func TestSchema(t *testing.T) {
	want := map[TableKind]int{TableArtifact: 4, TableValue: 8, TableObservation: 10, TableLineageEdge: 6, TableIncident: 6}
	for kind, n := range want {
		s, err := Schema(kind)
		if err != nil || len(s) != n {
			t.Errorf("Schema(%s) = %d columns, %v", kind, len(s), err)
		}
	}
	s, _ := Schema(TableValue)
	if s[3] != (ColumnSpec{Name: "type_id", DType: Uint8}) || s[7] != (ColumnSpec{Name: "validity_bitmap", DType: Uint64, Auxiliary: true}) {
		t.Errorf("value schema %+v", s)
	}
	_, err := Schema("bogus")
	wantCode(t, err, CodeTableKind)
}

// TestColumnsShareTheTable: Columns lists the schema's columns (the names and dtypes of
// FrameOf's, in the schema's order) with the table's own buffers.
func TestColumnsShareTheTable(t *testing.T) {
	v := &ValueTable{
		ValueID: []uint64{1, 2}, ArtifactID: []uint64{0, 0}, FieldID: []uint64{3, 4},
		TypeID: []uint8{5, 6}, PayloadOffset: []uint64{0, 1}, PayloadLength: []uint64{1, 1},
		PayloadWords: []uint64{7, 8}, ValidityBitmap: Bitmap{3},
	}
	f, err := FrameOf(v)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, c := range Columns(v) {
		names = append(names, c.Name)
		fv, ok := f.Columns[c.Name]
		if !ok || (c.U8 != nil) == (c.U64 != nil) {
			t.Fatalf("column %s: in the frame %v, u8 %v u64 %v", c.Name, ok, c.U8, c.U64)
		}
		if want := map[bool]DType{true: Uint8, false: Uint64}[c.U8 != nil]; fv.DType() != want {
			t.Errorf("column %s: frame dtype %v, Columns gives %v", c.Name, fv.DType(), want)
		}
	}
	want := []string{"value_id", "artifact_id", "field_id", "type_id", "payload_offset", "payload_length", "payload_words", "validity_bitmap"}
	if !slices.Equal(names, want) || len(f.Columns) != len(want) {
		t.Fatalf("columns %v, want %v (frame has %d)", names, want, len(f.Columns))
	}
	cols := Columns(v)
	cols[0].U64[1], cols[3].U8[0] = 42, 43
	if v.ValueID[1] != 42 || v.TypeID[0] != 43 {
		t.Fatal("Columns copied the table's buffers")
	}
}
