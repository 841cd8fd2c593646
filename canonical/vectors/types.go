package vectors

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"reflect"
	"strconv"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
)

// typeSpec is a parsed vocabulary type T with the Arrow type it builds.
type typeSpec struct {
	dt   arrow.DataType
	name string // vocabulary name: "int64", "list", "struct", "dictionary", ...

	item   *fieldSpec   // list, large_list, fixed_size_list
	size   int          // fixed_size_list
	fields []*fieldSpec // struct
	key    *typeSpec    // map
	value  *typeSpec    // map
	index  arrow.DataType
	dict   *typeSpec // dictionary value type
	store  *typeSpec // extension storage
	width  int       // fixed_size_binary
	scale  int32     // decimal
	prec   int32     // decimal
	bitLen int       // float width in bits
}

// fieldSpec is a parsed vocabulary field.
type fieldSpec struct {
	field arrow.Field
	typ   *typeSpec
}

type rawField struct {
	Name     *string         `json:"name"`
	NameHex  *string         `json:"name_hex"`
	Nullable *bool           `json:"nullable"`
	Type     json.RawMessage `json:"type"`
	Metadata json.RawMessage `json:"metadata"`
}

func parseField(raw json.RawMessage) (*fieldSpec, error) {
	var rf rawField
	if err := json.Unmarshal(raw, &rf); err != nil {
		return nil, fmt.Errorf("field: %w", err)
	}
	var name string
	switch {
	case rf.Name != nil && rf.NameHex == nil:
		name = *rf.Name
	case rf.NameHex != nil && rf.Name == nil:
		b, err := hex.DecodeString(*rf.NameHex)
		if err != nil {
			return nil, fmt.Errorf("field name_hex: %w", err)
		}
		name = string(b)
	default:
		return nil, fmt.Errorf("field needs exactly one of name and name_hex")
	}
	if rf.Nullable == nil {
		return nil, fmt.Errorf("field %q: nullable is required", name)
	}
	if len(rf.Type) == 0 {
		return nil, fmt.Errorf("field %q: type is required", name)
	}
	t, err := parseType(rf.Type)
	if err != nil {
		return nil, fmt.Errorf("field %q: %w", name, err)
	}
	md, err := parseMetadata(rf.Metadata)
	if err != nil {
		return nil, fmt.Errorf("field %q: %w", name, err)
	}
	return &fieldSpec{field: arrow.Field{Name: name, Type: t.dt, Nullable: *rf.Nullable, Metadata: md}, typ: t}, nil
}

// parseMetadata reads an object {key: value} in document order (duplicates kept) or a
// list of [key, value] pairs; keys and values are strings or {"utf8_hex": "..."}.
func parseMetadata(raw json.RawMessage) (arrow.Metadata, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return arrow.Metadata{}, nil
	}
	var keys, vals []string
	switch raw[0] {
	case '[':
		var pairs [][]json.RawMessage
		if err := json.Unmarshal(raw, &pairs); err != nil {
			return arrow.Metadata{}, fmt.Errorf("metadata: %w", err)
		}
		for _, p := range pairs {
			if len(p) != 2 {
				return arrow.Metadata{}, fmt.Errorf("metadata pair needs 2 items")
			}
			k, err := parseText(p[0])
			if err != nil {
				return arrow.Metadata{}, err
			}
			v, err := parseText(p[1])
			if err != nil {
				return arrow.Metadata{}, err
			}
			keys, vals = append(keys, k), append(vals, v)
		}
	case '{':
		dec := json.NewDecoder(bytes.NewReader(raw))
		if _, err := dec.Token(); err != nil {
			return arrow.Metadata{}, err
		}
		for dec.More() {
			tok, err := dec.Token()
			if err != nil {
				return arrow.Metadata{}, err
			}
			k, ok := tok.(string)
			if !ok {
				return arrow.Metadata{}, fmt.Errorf("metadata key is not a string")
			}
			var v json.RawMessage
			if err := dec.Decode(&v); err != nil {
				return arrow.Metadata{}, err
			}
			vs, err := parseText(v)
			if err != nil {
				return arrow.Metadata{}, err
			}
			keys, vals = append(keys, k), append(vals, vs)
		}
	default:
		return arrow.Metadata{}, fmt.Errorf("metadata must be an object or a list of pairs")
	}
	return arrow.NewMetadata(keys, vals), nil
}

// parseText reads a JSON string or {"utf8_hex": "<hex>"} (raw, possibly invalid, bytes).
func parseText(raw json.RawMessage) (string, error) {
	var s string
	if err := json.Unmarshal(raw, &s); err == nil {
		return s, nil
	}
	var h struct {
		UTF8Hex *string `json:"utf8_hex"`
	}
	if err := json.Unmarshal(raw, &h); err != nil || h.UTF8Hex == nil {
		return "", fmt.Errorf("text must be a string or {\"utf8_hex\": ...}")
	}
	b, err := hex.DecodeString(*h.UTF8Hex)
	if err != nil {
		return "", fmt.Errorf("utf8_hex: %w", err)
	}
	return string(b), nil
}

var simpleTypes = map[string]arrow.DataType{
	"null":         arrow.Null,
	"bool":         arrow.FixedWidthTypes.Boolean,
	"int8":         arrow.PrimitiveTypes.Int8,
	"int16":        arrow.PrimitiveTypes.Int16,
	"int32":        arrow.PrimitiveTypes.Int32,
	"int64":        arrow.PrimitiveTypes.Int64,
	"uint8":        arrow.PrimitiveTypes.Uint8,
	"uint16":       arrow.PrimitiveTypes.Uint16,
	"uint32":       arrow.PrimitiveTypes.Uint32,
	"uint64":       arrow.PrimitiveTypes.Uint64,
	"float16":      arrow.FixedWidthTypes.Float16,
	"float32":      arrow.PrimitiveTypes.Float32,
	"float64":      arrow.PrimitiveTypes.Float64,
	"utf8":         arrow.BinaryTypes.String,
	"large_utf8":   arrow.BinaryTypes.LargeString,
	"binary":       arrow.BinaryTypes.Binary,
	"large_binary": arrow.BinaryTypes.LargeBinary,
	"date32":       arrow.FixedWidthTypes.Date32,
	"date64":       arrow.FixedWidthTypes.Date64,
}

// rejectedTypes builds the Arrow types that v1 rejects, so that the canonical encoder,
// not the vector reader, is what rejects them.
var rejectedTypes = map[string]func() arrow.DataType{
	"dense_union": func() arrow.DataType {
		return arrow.DenseUnionOf([]arrow.Field{{Name: "a", Type: arrow.PrimitiveTypes.Int64, Nullable: true}}, []arrow.UnionTypeCode{0})
	},
	"sparse_union": func() arrow.DataType {
		return arrow.SparseUnionOf([]arrow.Field{{Name: "a", Type: arrow.PrimitiveTypes.Int64, Nullable: true}}, []arrow.UnionTypeCode{0})
	},
	"run_end_encoded": func() arrow.DataType {
		return arrow.RunEndEncodedOf(arrow.PrimitiveTypes.Int32, arrow.PrimitiveTypes.Int64)
	},
	"utf8_view":       func() arrow.DataType { return arrow.BinaryTypes.StringView },
	"binary_view":     func() arrow.DataType { return arrow.BinaryTypes.BinaryView },
	"list_view":       func() arrow.DataType { return arrow.ListViewOf(arrow.PrimitiveTypes.Int64) },
	"large_list_view": func() arrow.DataType { return arrow.LargeListViewOf(arrow.PrimitiveTypes.Int64) },
	// The Arrow canonical opaque extension: an implementation-specific type.
	"opaque": func() arrow.DataType {
		return NewExtensionType("arrow.opaque", `{"type_name":"x","vendor_name":"y"}`, true, arrow.Null)
	},
}

func parseType(raw json.RawMessage) (*typeSpec, error) {
	raw = bytes.TrimSpace(raw)
	var s string
	if err := json.Unmarshal(raw, &s); err == nil {
		if dt, ok := simpleTypes[s]; ok {
			t := &typeSpec{dt: dt, name: s}
			switch s {
			case "float16":
				t.bitLen = 16
			case "float32":
				t.bitLen = 32
			case "float64":
				t.bitLen = 64
			}
			return t, nil
		}
		if mk, ok := rejectedTypes[s]; ok {
			return &typeSpec{dt: mk(), name: s}, nil
		}
		return nil, fmt.Errorf("unknown type %q", s)
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(raw, &obj); err != nil || len(obj) != 1 {
		return nil, fmt.Errorf("type must be a string or an object with one member")
	}
	for k, v := range obj {
		return parseTypeObject(k, v)
	}
	panic("unreachable")
}

func parseUnit(raw json.RawMessage, allowed ...string) (arrow.TimeUnit, error) {
	var u struct {
		Unit string `json:"unit"`
	}
	if err := json.Unmarshal(raw, &u); err != nil {
		return 0, err
	}
	for _, a := range allowed {
		if u.Unit == a {
			return unitOf(a), nil
		}
	}
	return 0, fmt.Errorf("unit %q not allowed here", u.Unit)
}

func unitOf(s string) arrow.TimeUnit {
	switch s {
	case "s":
		return arrow.Second
	case "ms":
		return arrow.Millisecond
	case "us":
		return arrow.Microsecond
	}
	return arrow.Nanosecond
}

type rawList struct {
	Item         json.RawMessage `json:"item"`
	ItemNullable *bool           `json:"item_nullable"`
	ItemName     *string         `json:"item_name"`
	ItemMetadata json.RawMessage `json:"item_metadata"`
	Size         *int32          `json:"size"`
}

type rawMap struct {
	Key           json.RawMessage `json:"key"`
	Value         json.RawMessage `json:"value"`
	ValueNullable *bool           `json:"value_nullable"`
	KeyName       *string         `json:"key_name"`
	ValueName     *string         `json:"value_name"`
	KeyMetadata   json.RawMessage `json:"key_metadata"`
	ValueMetadata json.RawMessage `json:"value_metadata"`
	KeysSorted    bool            `json:"keys_sorted"`
}

func parseTypeObject(k string, v json.RawMessage) (*typeSpec, error) {
	t := &typeSpec{name: k}
	switch k {
	case "fixed_size_binary":
		var w int32
		if err := json.Unmarshal(v, &w); err != nil || w < 0 {
			return nil, fmt.Errorf("fixed_size_binary width")
		}
		t.width = int(w)
		t.dt = &arrow.FixedSizeBinaryType{ByteWidth: int(w)}
	case "decimal128", "decimal256":
		var d struct {
			Precision *int32 `json:"precision"`
			Scale     *int32 `json:"scale"`
		}
		if err := json.Unmarshal(v, &d); err != nil || d.Precision == nil || d.Scale == nil {
			return nil, fmt.Errorf("%s needs precision and scale", k)
		}
		t.prec, t.scale = *d.Precision, *d.Scale
		if k == "decimal128" {
			t.dt = &arrow.Decimal128Type{Precision: t.prec, Scale: t.scale}
		} else {
			t.dt = &arrow.Decimal256Type{Precision: t.prec, Scale: t.scale}
		}
	case "time32":
		u, err := parseUnit(v, "s", "ms")
		if err != nil {
			return nil, err
		}
		t.dt = &arrow.Time32Type{Unit: u}
	case "time64":
		u, err := parseUnit(v, "us", "ns")
		if err != nil {
			return nil, err
		}
		t.dt = &arrow.Time64Type{Unit: u}
	case "timestamp":
		u, err := parseUnit(v, "s", "ms", "us", "ns")
		if err != nil {
			return nil, err
		}
		var tz struct {
			TimeZone *string `json:"timezone"`
		}
		if err := json.Unmarshal(v, &tz); err != nil {
			return nil, err
		}
		ts := &arrow.TimestampType{Unit: u}
		if tz.TimeZone != nil {
			ts.TimeZone = *tz.TimeZone
		}
		t.dt = ts
	case "duration":
		u, err := parseUnit(v, "s", "ms", "us", "ns")
		if err != nil {
			return nil, err
		}
		t.dt = &arrow.DurationType{Unit: u}
	case "interval":
		var s string
		if err := json.Unmarshal(v, &s); err != nil {
			return nil, err
		}
		switch s {
		case "year_month":
			t.dt = arrow.FixedWidthTypes.MonthInterval
		case "day_time":
			t.dt = arrow.FixedWidthTypes.DayTimeInterval
		case "month_day_nano":
			t.dt = arrow.FixedWidthTypes.MonthDayNanoInterval
		default:
			return nil, fmt.Errorf("interval %q", s)
		}
		t.name = "interval_" + s
	case "list", "large_list", "fixed_size_list":
		var l rawList
		if err := json.Unmarshal(v, &l); err != nil {
			return nil, err
		}
		if l.ItemNullable == nil || len(l.Item) == 0 {
			return nil, fmt.Errorf("%s needs item and item_nullable", k)
		}
		it, err := parseType(l.Item)
		if err != nil {
			return nil, err
		}
		md, err := parseMetadata(l.ItemMetadata)
		if err != nil {
			return nil, err
		}
		f := arrow.Field{Name: "item", Type: it.dt, Nullable: *l.ItemNullable, Metadata: md}
		if l.ItemName != nil {
			f.Name = *l.ItemName
		}
		t.item = &fieldSpec{field: f, typ: it}
		switch k {
		case "list":
			t.dt = arrow.ListOfField(f)
		case "large_list":
			t.dt = arrow.LargeListOfField(f)
		default:
			if l.Size == nil || *l.Size < 0 {
				return nil, fmt.Errorf("fixed_size_list needs size")
			}
			t.size = int(*l.Size)
			t.dt = arrow.FixedSizeListOfField(*l.Size, f)
		}
	case "struct":
		var raws []json.RawMessage
		if err := json.Unmarshal(v, &raws); err != nil {
			return nil, err
		}
		fs := make([]arrow.Field, len(raws))
		for i, r := range raws {
			f, err := parseField(r)
			if err != nil {
				return nil, err
			}
			t.fields = append(t.fields, f)
			fs[i] = f.field
		}
		t.dt = arrow.StructOf(fs...)
	case "map":
		var m rawMap
		if err := json.Unmarshal(v, &m); err != nil {
			return nil, err
		}
		if len(m.Key) == 0 || len(m.Value) == 0 || m.ValueNullable == nil {
			return nil, fmt.Errorf("map needs key, value and value_nullable")
		}
		// arrow-go's MapType always names its fields "key" and "value"; other names
		// cannot be built as real Arrow data here.
		if (m.KeyName != nil && *m.KeyName != "key") || (m.ValueName != nil && *m.ValueName != "value") {
			return nil, fmt.Errorf("map key_name/value_name other than key/value cannot be built with arrow-go")
		}
		var err error
		if t.key, err = parseType(m.Key); err != nil {
			return nil, err
		}
		if t.value, err = parseType(m.Value); err != nil {
			return nil, err
		}
		kmd, err := parseMetadata(m.KeyMetadata)
		if err != nil {
			return nil, err
		}
		vmd, err := parseMetadata(m.ValueMetadata)
		if err != nil {
			return nil, err
		}
		mt := arrow.MapOfFields(arrow.Field{Name: "key", Type: t.key.dt, Metadata: kmd},
			arrow.Field{Name: "value", Type: t.value.dt, Nullable: *m.ValueNullable, Metadata: vmd})
		mt.KeysSorted = m.KeysSorted
		t.dt = mt
	case "dictionary":
		var d struct {
			Index string          `json:"index"`
			Value json.RawMessage `json:"value"`
		}
		if err := json.Unmarshal(v, &d); err != nil {
			return nil, err
		}
		idx, ok := simpleTypes[d.Index]
		if !ok || !arrow.IsInteger(idx.ID()) {
			return nil, fmt.Errorf("dictionary index %q", d.Index)
		}
		val, err := parseType(d.Value)
		if err != nil {
			return nil, err
		}
		t.index, t.dict = idx, val
		t.dt = &arrow.DictionaryType{IndexType: idx, ValueType: val.dt}
	case "extension":
		var e struct {
			Name    string          `json:"name"`
			Version *json.Number    `json:"version"`
			Storage json.RawMessage `json:"storage"`
		}
		if err := json.Unmarshal(v, &e); err != nil {
			return nil, err
		}
		st, err := parseType(e.Storage)
		if err != nil {
			return nil, err
		}
		t.store = st
		ver := ""
		if e.Version != nil {
			ver = e.Version.String()
		}
		t.dt = NewExtensionType(e.Name, ver, e.Version != nil, st.dt)
	default:
		return nil, fmt.Errorf("unknown type %q", k)
	}
	return t, nil
}

// ExtensionType is a generic Arrow extension type: a name, the serialized extension
// metadata (PipeWhy carries the registry version there as decimal digits) and a storage
// type. It lets vectors and tests build real extension arrays for any registry entry.
type ExtensionType struct {
	arrow.ExtensionBase
	name    string
	meta    string
	hasMeta bool
}

// NewExtensionType returns an extension type. hasMeta false models an extension that
// carries no version metadata at all.
func NewExtensionType(name, meta string, hasMeta bool, storage arrow.DataType) *ExtensionType {
	return &ExtensionType{ExtensionBase: arrow.ExtensionBase{Storage: storage}, name: name, meta: meta, hasMeta: hasMeta}
}

func (e *ExtensionType) ArrayType() reflect.Type { return reflect.TypeOf(ExtensionArray{}) }
func (e *ExtensionType) ExtensionName() string   { return e.name }
func (e *ExtensionType) Serialize() string       { return e.meta }
func (e *ExtensionType) String() string {
	return "extension<" + e.name + "@" + strconv.Quote(e.meta) + ">"
}

func (e *ExtensionType) Deserialize(storage arrow.DataType, data string) (arrow.ExtensionType, error) {
	return NewExtensionType(e.name, data, true, storage), nil
}

func (e *ExtensionType) ExtensionEquals(o arrow.ExtensionType) bool {
	x, ok := o.(*ExtensionType)
	return ok && x.name == e.name && x.meta == e.meta && x.hasMeta == e.hasMeta && arrow.TypeEqual(x.Storage, e.Storage)
}

// ExtensionArray is the array type of ExtensionType.
type ExtensionArray struct{ array.ExtensionArrayBase }

// specialTypeName maps the official file's spelled-out negative type names
// ("timestamp_nanosecond", "map<utf8,int64>") to vocabulary types.
func specialTypeName(s string, src map[string]json.RawMessage) (json.RawMessage, bool) {
	units := map[string]string{"second": "s", "millisecond": "ms", "microsecond": "us", "nanosecond": "ns"}
	for _, kind := range []string{"timestamp", "duration", "time32", "time64"} {
		if u, ok := strings.CutPrefix(s, kind+"_"); ok {
			if unit, ok := units[u]; ok {
				obj := map[string]any{"unit": unit}
				if kind == "timestamp" {
					var tz any
					if raw, ok := src["timezone"]; ok {
						_ = json.Unmarshal(raw, &tz)
					}
					obj["timezone"] = tz
				}
				b, _ := json.Marshal(map[string]any{kind: obj})
				return b, true
			}
		}
	}
	if inner, ok := strings.CutPrefix(s, "map<"); ok && strings.HasSuffix(inner, ">") {
		kv := strings.SplitN(strings.TrimSuffix(inner, ">"), ",", 2)
		if len(kv) == 2 {
			b, _ := json.Marshal(map[string]any{"map": map[string]any{
				"key": strings.TrimSpace(kv[0]), "value": strings.TrimSpace(kv[1]), "value_nullable": true}})
			return b, true
		}
	}
	return nil, false
}
