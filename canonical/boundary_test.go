package canonical_test

import (
	"errors"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/pipewhy/pipewhy/canonical"
)

// TestFixedSizeBuffersAtTheBound: a fixed-size binary column needs rows*width data bytes
// and a fixed-size list rows*n child elements; exactly that many is accepted, one fewer
// is CodeEncoding (malformed input, before any value is read).
func TestFixedSizeBuffersAtTheBound(t *testing.T) {
	const rows = 2
	fsb := func(dataLen int) arrow.Array {
		typ := &arrow.FixedSizeBinaryType{ByteWidth: 4}
		data := memory.NewBufferBytes(make([]byte, dataLen))
		return array.MakeFromData(array.NewData(typ, rows, []*memory.Buffer{nil, data}, nil, 0, 0))
	}
	fsl := func(childLen int) arrow.Array {
		typ := arrow.FixedSizeListOf(3, arrow.PrimitiveTypes.Int8)
		child := array.NewData(arrow.PrimitiveTypes.Int8, childLen, []*memory.Buffer{nil, memory.NewBufferBytes(make([]byte, childLen))}, nil, 0, 0)
		return array.MakeFromData(array.NewData(typ, rows, []*memory.Buffer{nil}, []arrow.ArrayData{child}, 0, 0))
	}
	for _, c := range []struct {
		name string
		arr  arrow.Array
		code canonical.Code
	}{
		{"fixed-size binary, 8 bytes for 2x4", fsb(8), ""},
		{"fixed-size binary, 7 bytes for 2x4", fsb(7), canonical.CodeEncoding},
		{"fixed-size list, 6 children for 2x3", fsl(6), ""},
		{"fixed-size list, 5 children for 2x3", fsl(5), canonical.CodeEncoding},
	} {
		schema, rec := oneColumn("x", c.arr, false)
		err := sizeErr(schema, rec)
		var ce *canonical.Error
		switch {
		case c.code == "" && err != nil:
			t.Errorf("%s: %v", c.name, err)
		case c.code != "" && (!errors.As(err, &ce) || ce.Code != c.code):
			t.Errorf("%s: %v, want %s", c.name, err, c.code)
		}
	}
}
