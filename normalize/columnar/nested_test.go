package columnar_test

import (
	"encoding/hex"
	"slices"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/pipewhy/pipewhy/normalize"
	"github.com/pipewhy/pipewhy/normalize/columnar"
)

// unhex decodes hex written with spaces and '|' separators for readability.
func unhex(t *testing.T, s string) string {
	t.Helper()
	b, err := hex.DecodeString(strings.NewReplacer(" ", "", "|", "", "\n", "", "\t", "").Replace(s))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestNestedHandWords: NESTED words for values whose graphforge-canonical/1 bytes are
// derived by hand from the seed's grammar (schema: "GFS1", u32 field count, field =
// text name, u8 nullable, data type, metadata; values: presence byte, big-endian).
func TestNestedHandWords(t *testing.T) {
	// list<item: int64> [1, null]
	lb := array.NewListBuilder(mem, arrow.PrimitiveTypes.Int64)
	lb.Append(true)
	lb.ValueBuilder().(*array.Int64Builder).Append(1)
	lb.ValueBuilder().AppendNull()
	listSchema := unhex(t, `47465331 | 00000001 | 0000000000000000 01 |
		60 0000000000000004 6974656d 01 13 00000000 | 00000000 | 00000000`)
	listValue := unhex(t, `01 | 0000000000000002 | 01 0000000000000001 | 00`)

	// struct<a: int32, b: utf8> {a: -2, b: "hi"}
	sb := array.NewStructBuilder(mem, arrow.StructOf(
		arrow.Field{Name: "a", Type: arrow.PrimitiveTypes.Int32, Nullable: true},
		arrow.Field{Name: "b", Type: arrow.BinaryTypes.String, Nullable: true}))
	sb.Append(true)
	sb.FieldBuilder(0).(*array.Int32Builder).Append(-2)
	sb.FieldBuilder(1).(*array.StringBuilder).Append("hi")
	structSchema := unhex(t, `47465331 | 00000001 | 0000000000000000 01 |
		62 00000002 | 0000000000000001 61 01 12 00000000 | 0000000000000001 62 01 30 00000000 |
		00000000 | 00000000`)
	structValue := unhex(t, `01 | 01 fffffffe | 01 0000000000000002 6869`)

	// map<utf8, int64> {"b": 2, "a": 1}: entries sorted by the complete key bytes; the
	// key field is written non-nullable, the entries struct is not encoded.
	mb := array.NewMapBuilder(mem, arrow.BinaryTypes.String, arrow.PrimitiveTypes.Int64, false)
	mb.Append(true)
	mb.KeyBuilder().(*array.StringBuilder).Append("b")
	mb.ItemBuilder().(*array.Int64Builder).Append(2)
	mb.KeyBuilder().(*array.StringBuilder).Append("a")
	mb.ItemBuilder().(*array.Int64Builder).Append(1)
	mapSchema := unhex(t, `47465331 | 00000001 | 0000000000000000 01 |
		63 | 0000000000000003 6b6579 00 30 00000000 | 0000000000000005 76616c7565 01 13 00000000 |
		00000000 | 00000000`)
	mapValue := unhex(t, `01 | 0000000000000002 |
		01 0000000000000001 61 | 01 0000000000000001 |
		01 0000000000000001 62 | 01 0000000000000002`)

	cases := []struct {
		name          string
		arr           arrow.Array
		schema, value string
	}{
		{"list", lb.NewArray(), listSchema, listValue},
		{"struct", sb.NewArray(), structSchema, structValue},
		{"map", mb.NewArray(), mapSchema, mapValue},
	}
	for _, c := range cases {
		for _, p := range []normalize.Profile{normalize.StrictV1Ext1, normalize.LogicalV1Ext1} {
			tc, w := encodeOne(t, c.arr, p)
			want := slices.Concat(packStr(c.schema), packStr(c.value))
			if tc != normalize.Nested || !slices.Equal(w, want) {
				t.Errorf("%s %s: %v %v\nwant %v", c.name, p, tc, w, want)
			}
			// The scalar encoder gives the same words for the same bytes.
			stc, sw, err := normalize.EncodeValue(normalize.NestedValue{Type: []byte(c.schema), Value: []byte(c.value)}, p)
			if err != nil || stc != normalize.Nested || !slices.Equal(sw, want) {
				t.Errorf("%s %s scalar: %v %v %v", c.name, p, stc, sw, err)
			}
		}
	}
}

// TestNestedErrors: a value that graphforge-canonical/1 rejects (a map with two equal
// keys) fails with PW_NORM_INPUT at its row, naming canonical's code, not the value.
func TestNestedErrors(t *testing.T) {
	mb := array.NewMapBuilder(mem, arrow.BinaryTypes.String, arrow.PrimitiveTypes.Int64, false)
	mb.Append(true)
	mb.KeyBuilder().(*array.StringBuilder).Append("k")
	mb.ItemBuilder().(*array.Int64Builder).Append(1)
	mb.Append(true)
	mb.KeyBuilder().(*array.StringBuilder).Append("secret")
	mb.ItemBuilder().(*array.Int64Builder).Append(1)
	mb.KeyBuilder().(*array.StringBuilder).Append("secret")
	mb.ItemBuilder().(*array.Int64Builder).Append(2)
	arr := mb.NewArray()
	schema := arrow.NewSchema([]arrow.Field{field("m", arr.DataType())}, nil)
	enc, err := columnar.NewEncoder(schema, []columnar.Column{{Name: "m", Field: 1}}, normalize.StrictV1Ext1)
	if err != nil {
		t.Fatal(err)
	}
	var dst normalize.RecordBatch
	err = enc.Append(&dst, array.NewRecordBatch(schema, []arrow.Array{arr}, 2))
	var ce *columnar.Error
	if !asError(err, &ce) || ce.Err.Code != normalize.CodeInput || ce.Row != 1 || !strings.Contains(err.Error(), "GF_CANONICAL_MAP_KEY") {
		t.Fatalf("%v", err)
	}
	if strings.Contains(err.Error(), "secret") || dst.Len() != 0 {
		t.Fatalf("value in the error, or batch changed: %v", err)
	}
}
