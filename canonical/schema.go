package canonical

import (
	"bytes"
	"encoding/binary"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/apache/arrow-go/v18/arrow"
)

// Options carries what the owning schema registry declares. The zero Options declares
// nothing: no result-contract metadata key participates (so one that is present is
// rejected), every other graphforge.* key outside graphforge.contract.* is rejected, and
// no extension type is registered (so every extension is rejected). DefaultOptions gives
// a domain's default owning registry.
type Options struct {
	// Metadata classifies graphforge.* metadata keys as the owning registry does.
	Metadata MetadataRegistry
	// Extensions are the entries of the closed GraphForge extension registry. The
	// contract publishes no entry, so PipeWhy registers none by default.
	Extensions []Extension
}

// Extension is one entry of the closed GraphForge extension registry.
type Extension struct {
	Name    string
	Version uint32
	Storage arrow.DataType // the registered canonical storage type
}

// ResultContractKeys are the existing result-contract metadata keys that participate when
// the owning schema registry declares them (MetadataRegistry.Semantic), as the contract
// lists them.
var ResultContractKeys = []string{
	"graphforge.algorithm",
	"graphforge.algorithm_version",
	"graphforge.algorithm_schema_version",
	"graphforge.verb",
	"graphforge.search_schema_version",
	"graphforge.dimensions",
	"graphforge.seed",
}

// VolatileKeys are the graphforge.* metadata keys the contract classifies volatile: they
// are always excluded.
var VolatileKeys = []string{
	"graphforge.query_id",
	"graphforge.ontology_mode",
	"graphforge.ontology_version",
}

const (
	contractPrefix   = "graphforge.contract."
	graphforgePrefix = "graphforge."
	extNameKey       = "ARROW:extension:name"
	extMetadataKey   = "ARROW:extension:metadata"
)

// Validate checks the metadata registry (MetadataRegistry.Validate) and that every
// extension is itself canonicalisable.
func (o *Options) Validate() error {
	if err := o.Metadata.Validate(); err != nil {
		return err
	}
	for i, x := range o.Extensions {
		if x.Storage == nil || x.Name == "" {
			return &Error{Code: CodeEncoding, Op: "options extension", Path: "extension[" + strconv.Itoa(i) + "]"}
		}
		c := compiler{opts: &Options{}}
		if _, err := c.appendType(nil, x.Storage, 0, "extension["+strconv.Itoa(i)+"]"); err != nil {
			return err
		}
	}
	return nil
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// compiler turns Arrow schemas and types into canonical schema bytes.
type compiler struct {
	opts *Options
}

// AppendSchema appends the canonical schema bytes (GFS1) of s to dst.
func AppendSchema(dst []byte, s *arrow.Schema, opts *Options) ([]byte, error) {
	if opts == nil {
		opts = &Options{}
	}
	if err := opts.Validate(); err != nil {
		return dst, err
	}
	c := compiler{opts: opts}
	return c.appendSchema(dst, s)
}

// SchemaBytes returns the canonical schema bytes (GFS1) of s.
func SchemaBytes(s *arrow.Schema, opts *Options) ([]byte, error) {
	return AppendSchema(nil, s, opts)
}

func (c *compiler) appendSchema(dst []byte, s *arrow.Schema) ([]byte, error) {
	fields := s.Fields()
	if len(fields) > MaxFields {
		return dst, limitErr("schema", uint64(len(fields)), MaxFields)
	}
	dst = append(dst, "GFS1"...)
	dst = binary.BigEndian.AppendUint32(dst, uint32(len(fields)))
	var err error
	for i, f := range fields {
		if dst, err = c.appendField(dst, f, 0, "field["+strconv.Itoa(i)+"]", false); err != nil {
			return dst, err
		}
	}
	md := s.Metadata()
	return c.appendMetadata(dst, &md, "schema")
}

// appendField appends name, nullable, data type and filtered metadata. forceNonNull writes
// the field non-nullable (the map key field).
func (c *compiler) appendField(dst []byte, f arrow.Field, depth int, path string, forceNonNull bool) ([]byte, error) {
	var err error
	if dst, err = appendText(dst, f.Name, path+" name"); err != nil {
		return dst, err
	}
	nullable := f.Nullable && !forceNonNull
	if nullable {
		dst = append(dst, 1)
	} else {
		dst = append(dst, 0)
	}
	md := f.Metadata
	_, typed := f.Type.(arrow.ExtensionType) // a typed extension consumes its own keys
	if ext, ok := extensionFromMetadata(&md); ok && !typed {
		// An extension the Arrow reader did not know: its name and metadata stayed in the
		// field metadata, the storage type is the field type.
		if dst, err = c.appendExtension(dst, ext.name, ext.meta, ext.hasMeta, f.Type, depth, path); err != nil {
			return dst, err
		}
	} else if dst, err = c.appendType(dst, f.Type, depth, path); err != nil {
		return dst, err
	}
	return c.appendMetadata(dst, &md, path)
}

type rawExt struct {
	name, meta string
	hasMeta    bool
}

func extensionFromMetadata(md *arrow.Metadata) (rawExt, bool) {
	i := md.FindKey(extNameKey)
	if i < 0 {
		return rawExt{}, false
	}
	x := rawExt{name: md.Values()[i]}
	if j := md.FindKey(extMetadataKey); j >= 0 {
		x.meta, x.hasMeta = md.Values()[j], true
	}
	return x, true
}

func appendText(dst []byte, s, path string) ([]byte, error) {
	if len(s) > MaxTextBytes {
		return dst, limitErr(path, uint64(len(s)), MaxTextBytes)
	}
	if !utf8.ValidString(s) {
		return dst, errAt(CodeUTF8, path)
	}
	dst = binary.BigEndian.AppendUint64(dst, uint64(len(s)))
	return append(dst, s...), nil
}

// appendMetadata appends the participating entries of md sorted by raw key bytes.
func (c *compiler) appendMetadata(dst []byte, md *arrow.Metadata, path string) ([]byte, error) {
	keys, vals := md.Keys(), md.Values()
	if len(keys) > MaxMetadataEntries {
		return dst, limitErr(path+" metadata", uint64(len(keys)), MaxMetadataEntries)
	}
	if len(keys) != len(vals) {
		return dst, errAt(CodeEncoding, path+" metadata")
	}
	var keep []int
	seen := make(map[string]struct{}, len(keys))
	for i, k := range keys {
		mpath := path + " metadata[" + strconv.Itoa(i) + "]"
		if _, dup := seen[k]; dup {
			return dst, errAt(CodeEncoding, mpath+" duplicate key")
		}
		seen[k] = struct{}{}
		if len(k) > MaxTextBytes || len(vals[i]) > MaxTextBytes {
			return dst, limitErr(mpath, uint64(max(len(k), len(vals[i]))), MaxTextBytes)
		}
		if !utf8.ValidString(k) || !utf8.ValidString(vals[i]) {
			return dst, errAt(CodeUTF8, mpath)
		}
		switch {
		case strings.HasPrefix(k, contractPrefix), contains(c.opts.Metadata.Semantic, k):
			keep = append(keep, i)
		case contains(VolatileKeys, k), contains(c.opts.Metadata.Volatile, k):
			// excluded: volatile
		case contains(ResultContractKeys, k):
			// The key is one of the contract's fixed list, so naming it reveals nothing
			// of the data and tells the user which declaration is missing.
			return dst, errAt(CodeEncoding, mpath+" undeclared result-contract key "+k)
		case strings.HasPrefix(k, graphforgePrefix):
			return dst, errAt(CodeEncoding, mpath+" unknown graphforge key")
		default:
			// excluded: non-GraphForge metadata, including the Arrow extension keys,
			// which the extension rule consumes.
		}
	}
	sort.Slice(keep, func(a, b int) bool { return keys[keep[a]] < keys[keep[b]] })
	dst = binary.BigEndian.AppendUint32(dst, uint32(len(keep)))
	for _, i := range keep {
		dst = binary.BigEndian.AppendUint64(dst, uint64(len(keys[i])))
		dst = append(dst, keys[i]...)
		dst = binary.BigEndian.AppendUint64(dst, uint64(len(vals[i])))
		dst = append(dst, vals[i]...)
	}
	return dst, nil
}

// appendType appends the data-type tag and its parameters. depth is the number of
// containers around the type.
func (c *compiler) appendType(dst []byte, dt arrow.DataType, depth int, path string) ([]byte, error) {
	if dt == nil {
		return dst, errAt(CodeArrowType, path)
	}
	var err error
	switch t := dt.(type) {
	case *arrow.NullType:
		return append(dst, 0x01), nil
	case *arrow.BooleanType:
		return append(dst, 0x02), nil
	case *arrow.Int8Type:
		return append(dst, 0x10), nil
	case *arrow.Int16Type:
		return append(dst, 0x11), nil
	case *arrow.Int32Type:
		return append(dst, 0x12), nil
	case *arrow.Int64Type:
		return append(dst, 0x13), nil
	case *arrow.Uint8Type:
		return append(dst, 0x14), nil
	case *arrow.Uint16Type:
		return append(dst, 0x15), nil
	case *arrow.Uint32Type:
		return append(dst, 0x16), nil
	case *arrow.Uint64Type:
		return append(dst, 0x17), nil
	case *arrow.Float16Type:
		return append(dst, 0x20), nil
	case *arrow.Float32Type:
		return append(dst, 0x21), nil
	case *arrow.Float64Type:
		return append(dst, 0x22), nil
	case *arrow.StringType, *arrow.LargeStringType:
		return append(dst, 0x30), nil
	case *arrow.BinaryType, *arrow.LargeBinaryType:
		return append(dst, 0x31), nil
	case *arrow.FixedSizeBinaryType:
		if t.ByteWidth < 0 {
			return dst, errAt(CodeArrowType, path)
		}
		if t.ByteWidth > MaxBinaryBytes {
			return dst, limitErr(path, uint64(t.ByteWidth), MaxBinaryBytes)
		}
		dst = append(dst, 0x32)
		return binary.BigEndian.AppendUint32(dst, uint32(t.ByteWidth)), nil
	case *arrow.Decimal128Type:
		return appendDecimalType(dst, 0x40, t.Precision, t.Scale, 38, path)
	case *arrow.Decimal256Type:
		return appendDecimalType(dst, 0x41, t.Precision, t.Scale, 76, path)
	case *arrow.Date32Type, *arrow.Date64Type:
		return append(dst, 0x50), nil
	case *arrow.Time32Type:
		if t.Unit != arrow.Second && t.Unit != arrow.Millisecond {
			return dst, errAt(CodeArrowType, path)
		}
		return append(dst, 0x51), nil
	case *arrow.Time64Type:
		if t.Unit != arrow.Microsecond && t.Unit != arrow.Nanosecond {
			return dst, errAt(CodeArrowType, path)
		}
		return append(dst, 0x51), nil
	case *arrow.TimestampType:
		if _, ok := unitFactor(t.Unit); !ok {
			return dst, errAt(CodeArrowType, path)
		}
		kind, ok := timezoneKind(t.TimeZone)
		if !ok {
			return dst, errAt(CodeTemporal, path+" timezone")
		}
		return append(dst, 0x52, kind), nil
	case *arrow.DurationType:
		if _, ok := unitFactor(t.Unit); !ok {
			return dst, errAt(CodeArrowType, path)
		}
		return append(dst, 0x53), nil
	case *arrow.MonthIntervalType:
		return append(dst, 0x54), nil
	case *arrow.DayTimeIntervalType:
		return append(dst, 0x55), nil
	case *arrow.MonthDayNanoIntervalType:
		return append(dst, 0x56), nil
	case *arrow.ListType:
		if depth+1 > MaxDepth {
			return dst, limitErr(path, uint64(depth+1), MaxDepth)
		}
		dst = append(dst, 0x60)
		return c.appendField(dst, t.ElemField(), depth+1, path+".item", false)
	case *arrow.LargeListType:
		if depth+1 > MaxDepth {
			return dst, limitErr(path, uint64(depth+1), MaxDepth)
		}
		dst = append(dst, 0x60)
		return c.appendField(dst, t.ElemField(), depth+1, path+".item", false)
	case *arrow.FixedSizeListType:
		if depth+1 > MaxDepth {
			return dst, limitErr(path, uint64(depth+1), MaxDepth)
		}
		if t.Len() < 0 {
			return dst, errAt(CodeArrowType, path)
		}
		if t.Len() > MaxElements {
			return dst, limitErr(path, uint64(t.Len()), MaxElements)
		}
		dst = append(dst, 0x61)
		dst = binary.BigEndian.AppendUint32(dst, uint32(t.Len()))
		return c.appendField(dst, t.ElemField(), depth+1, path+".item", false)
	case *arrow.StructType:
		if depth+1 > MaxDepth {
			return dst, limitErr(path, uint64(depth+1), MaxDepth)
		}
		fs := t.Fields()
		if len(fs) > MaxFields {
			return dst, limitErr(path, uint64(len(fs)), MaxFields)
		}
		dst = append(dst, 0x62)
		dst = binary.BigEndian.AppendUint32(dst, uint32(len(fs)))
		for i, f := range fs {
			if dst, err = c.appendField(dst, f, depth+1, path+".child["+strconv.Itoa(i)+"]", false); err != nil {
				return dst, err
			}
		}
		return dst, nil
	case *arrow.MapType:
		if depth+1 > MaxDepth {
			return dst, limitErr(path, uint64(depth+1), MaxDepth)
		}
		dst = append(dst, 0x63)
		if dst, err = c.appendField(dst, t.KeyField(), depth+1, path+".key", true); err != nil {
			return dst, err
		}
		return c.appendField(dst, t.ItemField(), depth+1, path+".value", false)
	case *arrow.DictionaryType:
		if !arrow.IsInteger(t.IndexType.ID()) {
			return dst, errAt(CodeArrowType, path+" dictionary index")
		}
		if _, isDict := t.ValueType.(*arrow.DictionaryType); isDict {
			return dst, errAt(CodeArrowType, path+" nested dictionary")
		}
		return c.appendType(dst, t.ValueType, depth, path)
	case arrow.ExtensionType:
		return c.appendExtension(dst, t.ExtensionName(), t.Serialize(), true, t.StorageType(), depth, path)
	default:
		// Union, run-end encoded, view types, decimal32/64 and anything else not in the
		// v1 tag table.
		return dst, errAt(CodeArrowType, path)
	}
}

func appendDecimalType(dst []byte, tag byte, precision, scale, maxPrecision int32, path string) ([]byte, error) {
	if precision < 1 || precision > maxPrecision || scale < -128 || scale > 127 {
		return dst, errAt(CodeArrowType, path)
	}
	return append(dst, tag, byte(precision), byte(int8(scale))), nil
}

// appendExtension applies the closed-registry rule: the name and version must be
// registered and the storage type's canonical bytes must equal the registered ones.
func (c *compiler) appendExtension(dst []byte, name, meta string, hasMeta bool, storage arrow.DataType, depth int, path string) ([]byte, error) {
	if !hasMeta {
		return dst, errAt(CodeArrowType, path+" extension without version")
	}
	version, ok := parseExtensionVersion(meta)
	if !ok {
		return dst, errAt(CodeArrowType, path+" extension without version")
	}
	var reg *Extension
	for i := range c.opts.Extensions {
		if c.opts.Extensions[i].Name == name && c.opts.Extensions[i].Version == version {
			reg = &c.opts.Extensions[i]
			break
		}
	}
	if reg == nil {
		return dst, errAt(CodeArrowType, path+" unregistered extension")
	}
	got, err := c.appendType(nil, storage, depth, path+".storage")
	if err != nil {
		return dst, err
	}
	want, err := c.appendType(nil, reg.Storage, depth, path+".storage")
	if err != nil {
		return dst, err
	}
	if !bytes.Equal(got, want) {
		return dst, errAt(CodeArrowType, path+" extension storage mismatch")
	}
	dst = append(dst, 0x70)
	if dst, err = appendText(dst, name, path+" extension name"); err != nil {
		return dst, err
	}
	dst = binary.BigEndian.AppendUint32(dst, version)
	return append(dst, got...), nil
}

// parseExtensionVersion reads the extension version that PipeWhy carries in the Arrow
// extension metadata (ARROW:extension:metadata): the decimal digits of a u32, no sign,
// no leading zero, no space.
func parseExtensionVersion(s string) (uint32, bool) {
	if s == "" || len(s) > 10 || (len(s) > 1 && s[0] == '0') {
		return 0, false
	}
	v, err := strconv.ParseUint(s, 10, 32)
	if err != nil {
		return 0, false
	}
	return uint32(v), true
}

// timezoneKind maps an Arrow timestamp timezone to the tag parameter: 00 absent, 01 UTC.
func timezoneKind(tz string) (byte, bool) {
	switch tz {
	case "":
		return 0, true
	case "UTC", "Etc/UTC", "Z", "+00:00":
		return 1, true
	}
	return 0, false
}

// unitFactor returns how many of unit make a microsecond (negative: divide) or
// microseconds per unit.
func unitFactor(u arrow.TimeUnit) (int64, bool) {
	switch u {
	case arrow.Second:
		return 1_000_000, true
	case arrow.Millisecond:
		return 1_000, true
	case arrow.Microsecond:
		return 1, true
	case arrow.Nanosecond:
		return -1_000, true
	}
	return 0, false
}
