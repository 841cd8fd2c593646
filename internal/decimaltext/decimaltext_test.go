package decimaltext

import (
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/extensions"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

func TestType(t *testing.T) {
	if !Is(New()) || !arrow.TypeEqual(New(), New()) || New().ExtensionName() != "pipewhy.decimal_text" {
		t.Fatal("New is not the type")
	}
	large := &Type{ExtensionBase: arrow.ExtensionBase{Storage: arrow.BinaryTypes.LargeString}}
	for _, dt := range []arrow.DataType{arrow.BinaryTypes.String, large, extensions.NewUUIDType()} {
		if Is(dt) {
			t.Errorf("Is(%s)", dt)
		}
	}
	if New().ExtensionEquals(extensions.NewUUIDType()) || New().ExtensionEquals(large) {
		t.Error("equal to another type")
	}
	if got, err := New().Deserialize(arrow.BinaryTypes.String, ""); err != nil || !Is(got) {
		t.Errorf("Deserialize: %v %v", got, err)
	}
	for _, c := range []struct {
		storage arrow.DataType
		data    string
	}{{arrow.BinaryTypes.LargeString, ""}, {arrow.BinaryTypes.String, "{}"}} {
		if _, err := New().Deserialize(c.storage, c.data); err == nil {
			t.Errorf("Deserialize(%s, %q) accepted", c.storage, c.data)
		}
	}
	// Arrays build through the storage builder and hand the storage back.
	b := array.NewExtensionBuilder(memory.DefaultAllocator, New())
	b.StorageBuilder().(*array.StringBuilder).AppendValues([]string{"1.50", "2.5"}, []bool{true, false})
	a := b.NewArray()
	defer a.Release()
	if d, ok := a.(*Array); !ok || d.Storage().(*array.String).Value(0) != "1.50" || !d.IsNull(1) {
		t.Errorf("array %T %v", a, a)
	}
}
