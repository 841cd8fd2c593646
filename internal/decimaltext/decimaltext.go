// Package decimaltext defines the Arrow extension type "pipewhy.decimal_text": a column
// of decimal numbers, each held as the text it was written in (utf8 storage), so that
// every value keeps its own exponent. A decimal128(P,S) column gives every value the
// scale S, so a value's digits depend on the other values of its column; this type does
// not: "1.50" and "1.5" stay what they are, whichever rows share the column.
//
// Package source produces it for inferred JSON number columns (each value a JSON number
// literal, validated when read); package normalize/columnar encodes each value as the C2
// DECIMAL of its text, exactly as normalize.ParseDecimal reads it. The type is defined
// here, in a leaf package, because those two packages may not import each other. It is
// not registered with arrow-go: an IPC or Parquet file that names it is read as its plain
// utf8 storage, so no file can make a text column encode as decimals.
package decimaltext

import (
	"reflect"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
)

// ExtensionName is the type's Arrow extension name.
const ExtensionName = "pipewhy.decimal_text"

// Type is the extension type. Its storage is always utf8.
type Type struct {
	arrow.ExtensionBase
}

// New returns the type.
func New() *Type {
	return &Type{ExtensionBase: arrow.ExtensionBase{Storage: arrow.BinaryTypes.String}}
}

// Is reports whether dt is the type.
func Is(dt arrow.DataType) bool {
	t, ok := dt.(*Type)
	return ok && arrow.TypeEqual(t.Storage, arrow.BinaryTypes.String)
}

// ArrayType implements arrow.ExtensionType.
func (*Type) ArrayType() reflect.Type { return reflect.TypeOf(Array{}) }

// ExtensionName implements arrow.ExtensionType.
func (*Type) ExtensionName() string { return ExtensionName }

// ExtensionEquals implements arrow.ExtensionType.
func (t *Type) ExtensionEquals(o arrow.ExtensionType) bool {
	return o.ExtensionName() == ExtensionName && arrow.TypeEqual(t.Storage, o.StorageType())
}

// Serialize implements arrow.ExtensionType: the type has no parameters.
func (*Type) Serialize() string { return "" }

// Deserialize implements arrow.ExtensionType. It accepts only utf8 storage and no
// parameters.
func (*Type) Deserialize(storage arrow.DataType, data string) (arrow.ExtensionType, error) {
	if data != "" || !arrow.TypeEqual(storage, arrow.BinaryTypes.String) {
		return nil, arrow.ErrInvalid
	}
	return New(), nil
}

func (*Type) String() string { return "extension<" + ExtensionName + ">" }

// Array is an array of the type; Storage() is its *array.String.
type Array struct {
	array.ExtensionArrayBase
}
