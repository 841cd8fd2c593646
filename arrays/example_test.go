package arrays_test

import (
	"errors"
	"fmt"

	"github.com/pipewhy/pipewhy/arrays"
)

func Example() {
	names, _ := arrays.NewIDSet(100, 101)
	kinds, _ := arrays.NewIDSet(1, 2)
	fields, _ := arrays.NewIDSet(10)
	types, _ := arrays.NewIDSet(1)
	ctx := &arrays.Context{Names: names, Kinds: kinds, Fields: fields, Types: types}

	arts := &arrays.ArtifactTable{
		ArtifactID: []uint64{1, 2},
		ParentID:   []uint64{arrays.Absent, 1}, // 1 is a root, 2 lives in 1
		KindID:     []uint8{1, 2},
		NameID:     []uint64{100, 101},
	}
	vals := &arrays.ValueTable{
		ValueID:        []uint64{7, 8},
		ArtifactID:     []uint64{2, 2},
		FieldID:        []uint64{10, 10},
		TypeID:         []uint8{1, 1},
		PayloadOffset:  []uint64{0, 2}, // row 1: null, empty slice at the end
		PayloadLength:  []uint64{2, 0},
		PayloadWords:   []uint64{40, 41},
		ValidityBitmap: arrays.NewBitmap([]bool{true, false}),
	}
	fmt.Println((&arrays.Tables{Artifacts: arts, Values: vals}).Validate(ctx))
	words, valid, _ := vals.Payload(0)
	fmt.Println(words, valid)

	arts.ParentID[0] = 2 // 1 in 2 in 1
	err := arts.Validate(ctx)
	var e *arrays.Error
	if errors.As(err, &e) {
		fmt.Println(e.Code, e.Table, e.Column, e.Row)
	}
	// Output:
	// <nil>
	// [40 41] true
	// containment_cycle artifact parent_id 0
}

func ExampleDecode() {
	f, _ := arrays.FrameOf(&arrays.EdgeTable{})
	f.Version = "2.0"
	_, err := arrays.Decode(f)
	fmt.Println(arrays.CodeOf(err), errors.Is(err, arrays.ErrSchema))
	// Output: schema_version true
}
