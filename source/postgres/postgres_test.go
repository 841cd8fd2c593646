package postgres

import (
	"context"
	"encoding/hex"
	"errors"
	"io"
	"math"
	"math/big"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/pipewhy/pipewhy/source"
	"github.com/pipewhy/pipewhy/source/sourcetest"
	"github.com/pipewhy/pipewhy/source/sourcetest/confdata"
)

// value extracts row i of a as a comparable Go value: nil for null, float
// bits for floats, the decimal coefficient as a decimal string.
func value(a arrow.Array, i int) any {
	if a.IsNull(i) {
		return nil
	}
	switch a := a.(type) {
	case *array.Boolean:
		return a.Value(i)
	case *array.Int16:
		return int64(a.Value(i))
	case *array.Int32:
		return int64(a.Value(i))
	case *array.Int64:
		return a.Value(i)
	case *array.Uint32:
		return uint64(a.Value(i))
	case *array.Float32:
		return math.Float32bits(a.Value(i))
	case *array.Float64:
		return math.Float64bits(a.Value(i))
	case *array.String:
		return a.Value(i)
	case *array.Binary:
		return string(a.Value(i)) // compared as bytes
	case *array.Decimal128:
		return a.Value(i).BigInt().String()
	case *array.Decimal256:
		return a.Value(i).BigInt().String()
	case *array.Date32:
		return int64(a.Value(i))
	case *array.Time64:
		return int64(a.Value(i))
	case *array.Timestamp:
		return int64(a.Value(i))
	case *array.MonthDayNanoInterval:
		return a.Value(i)
	}
	panic("unexpected array type " + a.DataType().String())
}

type typeCase struct {
	name, sqlType string
	arrow         string // TypeName-like spelling, checked against the field
	srcType       string
	width         string
	values        []string // SQL literals, one per row
	want          []any
}

// The expected values are derived by hand from the PostgreSQL documentation
// and well-known constants (Unix epoch day counts, IEEE 754 bit patterns),
// never read back from the adapter.
var typeCases = []typeCase{
	{"c_int2", "int2", "int16", "postgres:int2", "16", []string{"-32768", "32767", "0", "NULL"}, []any{int64(-32768), int64(32767), int64(0), nil}},
	{"c_int4", "int4", "int32", "postgres:int4", "32", []string{"-2147483648", "2147483647", "-1", "NULL"}, []any{int64(math.MinInt32), int64(math.MaxInt32), int64(-1), nil}},
	{"c_int8", "int8", "int64", "postgres:int8", "64", []string{"-9223372036854775808", "9223372036854775807", "1", "NULL"}, []any{int64(math.MinInt64), int64(math.MaxInt64), int64(1), nil}},
	{"c_oid", "oid", "uint32", "postgres:oid", "32", []string{"0", "4294967295", "1", "NULL"}, []any{uint64(0), uint64(math.MaxUint32), uint64(1), nil}},
	// float4: largest finite 0x7f7fffff, smallest subnormal 0x00000001,
	// negative zero 0x80000000, -Infinity 0xff800000.
	{"c_float4", "float4", "float32", "postgres:float4", "32", []string{"'3.4028235e38'", "'1.4e-45'", "'-0'", "'-Infinity'"}, []any{uint32(0x7f7fffff), uint32(0x00000001), uint32(0x80000000), uint32(0xff800000)}},
	// float8: largest finite, smallest subnormal, 0.1 (0x3fb999999999999a), +Infinity.
	{"c_float8", "float8", "float64", "postgres:float8", "64", []string{"'1.7976931348623157e308'", "'4.9e-324'", "'0.1'", "'Infinity'"}, []any{uint64(0x7fefffffffffffff), uint64(1), uint64(0x3fb999999999999a), uint64(0x7ff0000000000000)}},
	{"c_num", "numeric(38,10)", "decimal128(38,10)", "postgres:numeric(38,10)", "", []string{"-9999999999999999999999999999.9999999999", "0.0000000001", "12345.6789", "NULL"}, []any{"-" + strings.Repeat("9", 38), "1", "123456789000000", nil}},
	{"c_num5", "numeric(5,0)", "decimal128(5,0)", "postgres:numeric(5,0)", "", []string{"99999", "-99999", "0", "10000"}, []any{"99999", "-99999", "0", "10000"}},
	{"c_num256", "numeric(50,5)", "decimal256(50,5)", "postgres:numeric(50,5)", "", []string{"123456789012345678901234567890123456789012345.12345", "-0.00001", "100000000000000000000", "NULL"}, []any{"12345678901234567890123456789012345678901234512345", "-1", "10000000000000000000000000", nil}},
	{"c_text", "text", "utf8", "postgres:text", "", []string{"''", "'zoë 🙂'", "'a''b\"c'", "NULL"}, []any{"", "zoë 🙂", `a'b"c`, nil}},
	{"c_varchar", "varchar(5)", "utf8", "postgres:varchar(5)", "", []string{"'zoë🙂'", "''", "'ab  '", "NULL"}, []any{"zoë🙂", "", "ab  ", nil}},
	// char(n) values come back blank-padded to n characters, kept as returned.
	{"c_char", "char(4)", "utf8", "postgres:bpchar(4)", "", []string{"'a'", "''", "'ë'", "NULL"}, []any{"a   ", "    ", "ë   ", nil}},
	{"c_name", "name", "utf8", "postgres:name", "", []string{"'abc'", "''", "'Ω'", "NULL"}, []any{"abc", "", "Ω", nil}},
	{"c_bytea", "bytea", "binary", "postgres:bytea", "", []string{"'\\x00ff'", "''", "'\\x'", "NULL"}, []any{"\x00\xff", "", "", nil}},
	{"c_bool", "bool", "bool", "postgres:bool", "", []string{"true", "false", "NULL", "true"}, []any{true, false, nil, true}},
	// Unix-epoch microseconds: 0001-01-01 is -62135596800 s; 1969-12-31
	// 23:59:59.999999 is -1 µs; the Arrow maximum 294247-01-10 04:00:54.775807
	// is 2^63-1 µs.
	{"c_ts", "timestamp", "timestamp(us)", "postgres:timestamp", "", []string{"'0001-01-01 00:00:00'", "'1969-12-31 23:59:59.999999'", "'294247-01-10 04:00:54.775807'", "'2000-01-01 00:00:00.000001'"}, []any{int64(-62135596800000000), int64(-1), int64(math.MaxInt64), int64(946684800000001)}},
	// 2024-03-10 12:34:56.789012+05:30 is 07:04:56.789012 UTC: 19792 days
	// after 1970-01-01 (54 years with 13 leap days, then 31+29+9 days).
	{"c_tstz", "timestamptz", "timestamp(us,UTC)", "postgres:timestamptz", "", []string{"'2024-03-10 12:34:56.789012+05:30'", "'1970-01-01 00:00:00+00'", "NULL", "'1969-12-31 19:00:00-05'"}, []any{int64(19792*86400+7*3600+4*60+56)*1000000 + 789012, int64(0), nil, int64(0)}},
	{"c_tsp", "timestamp(0)", "timestamp(us)", "postgres:timestamp(0)", "", []string{"'1970-01-02 00:00:00'", "NULL", "'1970-01-01 00:00:01'", "'1970-01-01'"}, []any{int64(86400000000), nil, int64(1000000), int64(0)}},
	// Days since 1970-01-01: 0001-01-01 is -719162 (Python ordinal 1 vs
	// 719163), 9999-12-31 is 2932896 (ordinal 3652059).
	{"c_date", "date", "date32", "postgres:date", "", []string{"'0001-01-01'", "'9999-12-31'", "'1970-01-01'", "NULL"}, []any{int64(-719162), int64(2932896), int64(0), nil}},
	{"c_time", "time", "time64(us)", "postgres:time", "", []string{"'00:00:00'", "'23:59:59.999999'", "'12:00:00.5'", "NULL"}, []any{int64(0), int64(86399999999), int64(43200500000), nil}},
	{"c_interval", "interval", "month_day_nano_interval", "postgres:interval", "", []string{"'1 year 2 mons 3 days 04:05:06.000007'", "'-1 mons -2 days -00:00:00.000001'", "'0'", "NULL"},
		[]any{arrow.MonthDayNanoInterval{Months: 14, Days: 3, Nanoseconds: (4*3600+5*60+6)*1e9 + 7000}, arrow.MonthDayNanoInterval{Months: -1, Days: -2, Nanoseconds: -1000}, arrow.MonthDayNanoInterval{}, nil}},
	{"c_uuid", "uuid", "utf8", "postgres:uuid", "", []string{"'A0EEBC99-9C0B-4EF8-BB6D-6BB9BD380A11'", "'00000000-0000-0000-0000-000000000000'", "NULL", "'{ffffffff-ffff-ffff-ffff-ffffffffffff}'"}, []any{"a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11", "00000000-0000-0000-0000-000000000000", nil, "ffffffff-ffff-ffff-ffff-ffffffffffff"}},
	// json keeps the input text; jsonb is re-serialised by the server (keys
	// sorted by length then bytes, duplicates dropped, ", " and ": ").
	{"c_json", "json", "utf8", "postgres:json", "", []string{`'{"b": 1,  "a": [1,2]}'`, "'null'", "NULL", `'"ë"'`}, []any{`{"b": 1,  "a": [1,2]}`, "null", nil, `"ë"`}},
	{"c_jsonb", "jsonb", "utf8", "postgres:jsonb", "", []string{`'{"bb": 1,  "a": [1,2], "a": 3}'`, "'null'", "NULL", `'"ë"'`}, []any{`{"a": 3, "bb": 1}`, "null", nil, `"ë"`}},
}

func TestTypes(t *testing.T) {
	conn := server(t)
	sch := schema(t, conn)
	var defs []string
	for _, c := range typeCases {
		defs = append(defs, c.name+" "+c.sqlType)
	}
	exec(t, conn, "CREATE TABLE "+sch+".t (id int4 PRIMARY KEY, "+strings.Join(defs, ", ")+")")
	for r := 0; r < 4; r++ {
		var vals []string
		for _, c := range typeCases {
			vals = append(vals, c.values[r])
		}
		exec(t, conn, "INSERT INTO "+sch+".t VALUES ("+string(rune('1'+r))+", "+strings.Join(vals, ", ")+")")
	}
	// The session time zone of the DSN must not change any value: the
	// adapter sets UTC and reads binary.
	src := openT(t, dsnWith(map[string]string{"timezone": "Asia/Kathmandu"})+"#"+sch+".t", source.Options{BatchSize: 3})
	// Read in primary key order is not guaranteed: rows were inserted in id
	// order into a fresh table and are read by a sequential scan; the id
	// column tells the row anyway.
	arrs, ev := readAll(t, src)
	if ev.Coverage.Status != source.StatusComplete || ev.Coverage.Expected != 4 {
		t.Fatalf("coverage %+v", ev.Coverage)
	}
	ids := arrs[0].(*array.Int32)
	for ci, c := range typeCases {
		f := src.Schema().Field(ci + 1)
		if f.Name != c.name {
			t.Fatalf("field %d is %q, want %q", ci+1, f.Name, c.name)
		}
		if got := typeSpelling(f.Type); got != c.arrow {
			t.Errorf("%s: Arrow type %s, want %s", c.name, got, c.arrow)
		}
		if v, _ := f.Metadata.GetValue(source.MetaSourceType); v != c.srcType {
			t.Errorf("%s: source type %q, want %q", c.name, v, c.srcType)
		}
		if v, _ := f.Metadata.GetValue(source.MetaSourceWidth); v != c.width {
			t.Errorf("%s: source width %q, want %q", c.name, v, c.width)
		}
		if !f.Nullable {
			t.Errorf("%s: not nullable", c.name)
		}
		for i := 0; i < ids.Len(); i++ {
			r := int(ids.Value(i)) - 1
			got, want := value(arrs[ci+1], i), c.want[r]
			if got != want {
				t.Errorf("%s row %d: got %#v, want %#v", c.name, r+1, got, want)
			}
		}
	}
	if f := src.Schema().Field(0); f.Nullable {
		t.Error("primary key column id is nullable")
	}
	if pk := src.PrimaryKey(); len(pk) != 1 || pk[0] != "id" {
		t.Errorf("PrimaryKey %v", pk)
	}
	if ev.Adapter != Kind || ev.Consistency != Consistency {
		t.Errorf("evidence %+v", ev)
	}
	if !strings.HasPrefix(ev.Version, "server_version=") || !strings.Contains(ev.Version, ";wal_lsn=") || !strings.Contains(ev.Version, ";snapshot=") {
		t.Errorf("version %q", ev.Version)
	}
	if !strings.HasSuffix(ev.Namespace, "#"+sch+".t") || !strings.HasPrefix(ev.Namespace, "postgres://") {
		t.Errorf("namespace %q", ev.Namespace)
	}
}

// typeSpelling names the Arrow types this adapter produces.
func typeSpelling(dt arrow.DataType) string {
	switch dt.ID() {
	case arrow.DATE32:
		return "date32"
	case arrow.TIME64:
		return "time64(" + dt.(*arrow.Time64Type).Unit.String() + ")"
	case arrow.INTERVAL_MONTH_DAY_NANO:
		return "month_day_nano_interval"
	}
	n, ok := source.TypeName(dt)
	if !ok {
		return "?" + dt.String()
	}
	return n
}

// TestNullVersusEmpty: NULL and the empty string stay distinct in text and
// bytea.
func TestNullVersusEmpty(t *testing.T) {
	conn := server(t)
	sch := schema(t, conn)
	exec(t, conn, "CREATE TABLE "+sch+".t (s text, b bytea); INSERT INTO "+sch+".t VALUES ('', ''), (NULL, NULL)")
	arrs, _ := readAll(t, openT(t, addr(sch, "t"), source.Options{}))
	s, b := arrs[0].(*array.String), arrs[1].(*array.Binary)
	if s.Len() != 2 || s.IsNull(0) || s.Value(0) != "" || !s.IsNull(1) || b.IsNull(0) || len(b.Value(0)) != 0 || !b.IsNull(1) {
		t.Fatalf("got %v %v", s, b)
	}
}

// failCases: values with no exact Arrow form fail their row visibly.
func TestFailRow(t *testing.T) {
	conn := server(t)
	sch := schema(t, conn)
	cases := []struct{ sqlType, bad, good, detail string }{
		{"timestamp", "'infinity'", "'2000-01-01'", "infinity"},
		{"timestamp", "'-infinity'", "'2000-01-01'", "infinity"},
		{"timestamp", "'294247-01-10 04:00:54.775808'", "'2000-01-01'", "out of the Arrow timestamp(us) range"},
		{"timestamptz", "'infinity'", "'2000-01-01Z'", "infinity"},
		{"date", "'infinity'", "'2000-01-01'", "infinity"},
		{"date", "'-infinity'", "'2000-01-01'", "infinity"},
		{"time", "'24:00:00'", "'00:00:00'", "24:00:00"},
		{"numeric(10,2)", "'NaN'", "'1.5'", "NaN"},
		{"interval", "'2562048 hours'", "'2562047 hours'", "nanosecond range"}, // 2^63-1 ns is 2562047 h 47 min 16.854775807 s
		{"interval", "'-2562048 hours'", "'1 day'", "nanosecond range"},
	}
	for i, c := range cases {
		tab := "f" + string(rune('a'+i))
		exec(t, conn, "CREATE TABLE "+sch+"."+tab+" (v "+c.sqlType+"); INSERT INTO "+sch+"."+tab+" VALUES ("+c.good+"), ("+c.bad+"), ("+c.good+")")
		arrs, ev := readAll(t, openT(t, addr(sch, tab), source.Options{}))
		cv := ev.Coverage
		if arrs[0].Len() != 2 || cv.Status != source.StatusPartial || cv.Returned != 2 || cv.Expected != 3 || cv.FailedRecords != 1 {
			t.Errorf("%s %s: len %d coverage %+v", c.sqlType, c.bad, arrs[0].Len(), cv)
			continue
		}
		f := cv.Failures[0]
		if f.Code != source.CodeType || f.Line != 2 || f.Column != "v" || !strings.Contains(f.Detail, c.detail) {
			t.Errorf("%s %s: failure %+v", c.sqlType, c.bad, f)
		}
	}
}

func TestNumericOverride(t *testing.T) {
	conn := server(t)
	sch := schema(t, conn)
	exec(t, conn, "CREATE TABLE "+sch+".t (n numeric); INSERT INTO "+sch+".t VALUES ('1.5'), ('1.234'), ('NaN'), ('-12345678.90'), ('123456789'), (NULL), ('Infinity'), ('0.10000')")
	_, err := Open(context.Background(), addr(sch, "t"), source.Options{})
	if !errors.Is(err, source.ErrUnsupported) || !strings.Contains(err.Error(), `column "n"`) || !strings.Contains(err.Error(), "numeric") {
		t.Fatalf("unconstrained numeric: %v", err)
	}
	src := openT(t, addr(sch, "t"), source.Options{Columns: []source.Column{{Name: "n", Type: "decimal(10,2)"}}})
	arrs, ev := readAll(t, src)
	// 1.5 -> 150; 1.234 has 3 fraction digits; NaN; -12345678.90 -> -1234567890;
	// 123456789 needs 9 integer digits (> 8); NULL; Infinity; 0.10000 -> 10.
	want := []any{"150", "-1234567890", nil, "10"}
	if arrs[0].Len() != len(want) {
		t.Fatalf("rows %d, want %d; coverage %+v", arrs[0].Len(), len(want), ev.Coverage)
	}
	for i, w := range want {
		if g := value(arrs[0], i); g != w {
			t.Errorf("row %d: %v, want %v", i, g, w)
		}
	}
	lines := []uint64{2, 3, 5, 7}
	if ev.Coverage.FailedRecords != 4 || len(ev.Coverage.Failures) != 4 {
		t.Fatalf("coverage %+v", ev.Coverage)
	}
	for i, f := range ev.Coverage.Failures {
		if f.Line != lines[i] || f.Code != source.CodeType {
			t.Errorf("failure %d: %+v", i, f)
		}
	}
	if !hasString(ev.Choices, `column "n"=decimal(10,2)`) || !hasString(ev.Choices, "schema=catalog+explicit") {
		t.Errorf("choices %v", ev.Choices)
	}
	// text: the server's own text output.
	arrs, _ = readAll(t, openT(t, addr(sch, "t"), source.Options{Columns: []source.Column{{Name: "n", Type: "text"}}}))
	wantText := []any{"1.5", "1.234", "NaN", "-12345678.90", "123456789", nil, "Infinity", "0.10000"}
	for i, w := range wantText {
		if g := value(arrs[0], i); g != w {
			t.Errorf("text row %d: %v, want %v", i, g, w)
		}
	}
}

func TestUnsupported(t *testing.T) {
	conn := server(t)
	sch := schema(t, conn)
	exec(t, conn, "CREATE TYPE "+sch+".mood AS ENUM ('sad', 'ok'); CREATE TABLE "+sch+".t (id int8, a int4[], m "+sch+".mood, tz timetz, mo money); INSERT INTO "+sch+".t VALUES (1, '{1,2}', 'ok', '01:02:03+04', 1.5)")
	for _, col := range []struct{ name, typ string }{{"a", "integer[]"}, {"m", "mood"}, {"tz", "time with time zone"}, {"mo", "money"}} {
		var exclude []string
		for _, o := range []string{"a", "m", "tz", "mo"} {
			if o != col.name {
				exclude = append(exclude, o)
			}
		}
		_, err := Open(context.Background(), addr(sch, "t"), source.Options{Exclude: exclude})
		if !errors.Is(err, source.ErrUnsupported) || !strings.Contains(err.Error(), `column "`+col.name+`"`) || !strings.Contains(err.Error(), col.typ) {
			t.Errorf("%s: %v", col.name, err)
		}
	}
	src := openT(t, addr(sch, "t"), source.Options{Exclude: []string{"a", "m", "tz", "mo"}})
	arrs, ev := readAll(t, src)
	if len(arrs) != 1 || value(arrs[0], 0) != int64(1) || strings.Join(ev.Excluded, ",") != "a,m,tz,mo" {
		t.Fatalf("excluded read: %v %v", arrs, ev.Excluded)
	}
	// Explicit treatment: the server's text output, recorded.
	src = openT(t, addr(sch, "t"), source.Options{Columns: []source.Column{{Name: "a", Type: "text"}, {Name: "m", Type: "text"}, {Name: "tz", Type: "text"}, {Name: "mo", Type: "text"}}})
	arrs, ev = readAll(t, src)
	for i, w := range []string{"{1,2}", "ok", "01:02:03+04", "$1.50"} {
		if g := value(arrs[i+1], 0); g != w && !(i == 3 && g != nil) { // money text depends on lc_monetary
			t.Errorf("text column %d: %v, want %v", i+1, g, w)
		}
	}
	if v, _ := src.Schema().Field(1).Metadata.GetValue(source.MetaSourceType); v != "postgres:integer[]" {
		t.Errorf("source type %q", v)
	}
	if !hasString(ev.Choices, `column "a"=text`) {
		t.Errorf("choices %v", ev.Choices)
	}
	if _, err := Open(context.Background(), addr(sch, "t"), source.Options{Columns: []source.Column{{Name: "a", Type: "int64"}}}); !errors.Is(err, source.ErrSchema) {
		t.Errorf("int64 override: %v", err)
	}
	if _, err := Open(context.Background(), addr(sch, "t"), source.Options{Columns: []source.Column{{Name: "nope", Type: "text"}}}); !errors.Is(err, source.ErrSchema) {
		t.Errorf("unknown override: %v", err)
	}
}

func TestQuery(t *testing.T) {
	conn := server(t)
	sch := schema(t, conn)
	exec(t, conn, "CREATE TABLE "+sch+".t (a int4 NOT NULL, b text); INSERT INTO "+sch+".t SELECT g, 'v' || g FROM generate_series(1, 10) g")
	q := "SELECT a * 2 AS twice, b FROM " + sch + ".t WHERE a <= 5"
	src := openT(t, dsnWith(nil), source.Options{Query: q, BatchSize: 2})
	arrs, ev := readAll(t, src)
	if arrs[0].Len() != 5 || ev.Coverage.Status != source.StatusComplete || ev.Coverage.Expected != 5 {
		t.Fatalf("len %d coverage %+v", arrs[0].Len(), ev.Coverage)
	}
	var sum int64
	for i := 0; i < 5; i++ {
		sum += value(arrs[0], i).(int64)
	}
	if sum != 30 {
		t.Errorf("sum of twice = %d, want 30", sum)
	}
	if !strings.Contains(ev.Namespace, "?query-sha256=") || src.PrimaryKey() != nil || !hasString(ev.Choices, "schema=query") {
		t.Errorf("evidence %+v pk %v", ev, src.PrimaryKey())
	}
	if !src.Schema().Field(0).Nullable {
		t.Error("query columns must be nullable")
	}
	// Server text output is produced under the adapter's session settings
	// (TimeZone=UTC), whatever the DSN asks for.
	src = openT(t, dsnWith(map[string]string{"TimeZone": "America/New_York"}), source.Options{
		Query:   "SELECT '2024-03-10 12:34:56.789012+05:30'::timestamptz AS z, '1 day 02:00'::interval AS i",
		Columns: []source.Column{{Name: "z", Type: "text"}, {Name: "i", Type: "text"}},
	})
	arrs, _ = readAll(t, src)
	if g, g2 := value(arrs[0], 0), value(arrs[1], 0); g != "2024-03-10 07:04:56.789012+00" || g2 != "1 day 02:00:00" {
		t.Errorf("server text: %v, %v", g, g2)
	}
	if _, err := Open(context.Background(), dsnWith(nil), source.Options{Query: "SELECT 1 AS x, 2 AS x"}); source.CodeOf(err) != source.CodeDuplicate {
		t.Errorf("duplicate names: %v", err)
	}
	if _, err := Open(context.Background(), dsnWith(nil), source.Options{Query: "SELEC 1"}); !errors.Is(err, source.ErrSchema) {
		t.Errorf("bad query: %v", err)
	}
	if _, err := Open(context.Background(), dsnWith(nil), source.Options{Query: "SELECT 1 FROM no_such_table_pw"}); !errors.Is(err, source.ErrNotFound) {
		t.Errorf("unknown table in query: %v", err)
	}
	if _, err := Open(context.Background(), dsnWith(nil), source.Options{}); !errors.Is(err, source.ErrAddress) {
		t.Errorf("no table, no query: %v", err)
	}
	// A query failing during the read (division by zero on the last row) is
	// a fatal error, never a silent short read.
	src = openT(t, dsnWith(nil), source.Options{Query: "SELECT 10 / (10 - a) AS x FROM " + sch + ".t", BatchSize: 100})
	rec, err := src.Next(context.Background())
	if rec != nil {
		rec.Release()
	}
	if err == nil || err == io.EOF {
		_, err = src.Next(context.Background())
	}
	if err == nil || err == io.EOF || source.CodeOf(err) != source.CodeIO {
		t.Fatalf("division by zero: %v", err)
	}
	if cv := src.Evidence().Coverage; cv.Status == source.StatusComplete || cv.Check() != nil {
		t.Errorf("coverage %+v", cv)
	}
}

func TestPrimaryKeyOrder(t *testing.T) {
	conn := server(t)
	sch := schema(t, conn)
	exec(t, conn, "CREATE TABLE "+sch+`."Mixed Case" (a int4, "B" text, c int8, PRIMARY KEY ("B", a))`)
	src := openT(t, dsnWith(nil)+"#"+sch+`."Mixed Case"`, source.Options{})
	if pk := src.PrimaryKey(); strings.Join(pk, ",") != "B,a" {
		t.Errorf("PrimaryKey %v, want [B a]", pk)
	}
	if ev := src.Evidence(); !strings.HasSuffix(ev.Namespace, "#"+sch+`."Mixed Case"`) {
		t.Errorf("namespace %q", ev.Namespace)
	}
	if f := src.Schema().Field(1); f.Nullable {
		t.Error("primary key column B is nullable")
	}
	// Unqualified names resolve through the search_path.
	exec(t, conn, "CREATE TABLE "+sch+".unqualified (x int4)")
	src = openT(t, dsnWith(map[string]string{"search_path": sch})+"#Unqualified", source.Options{})
	if ev := src.Evidence(); !strings.HasSuffix(ev.Namespace, "#"+sch+".unqualified") {
		t.Errorf("namespace %q", ev.Namespace)
	}
}

// TestSchemaChange: a table altered between two reads has a different
// Arrow schema, and the registry reports the change.
func TestSchemaChange(t *testing.T) {
	conn := server(t)
	sch := schema(t, conn)
	exec(t, conn, "CREATE TABLE "+sch+".t (a int4, b text); INSERT INTO "+sch+".t VALUES (1, 'x')")
	reg, err := source.OpenRegistry(t.TempDir() + "/registry.json")
	if err != nil {
		t.Fatal(err)
	}
	src := openT(t, addr(sch, "t"), source.Options{})
	as1, err := reg.Assign(src.Evidence().Namespace, src.Schema())
	if err != nil {
		t.Fatal(err)
	}
	// The read transaction holds an ACCESS SHARE lock until Close.
	src.Close()
	exec(t, conn, "ALTER TABLE "+sch+".t ADD COLUMN c int8, ALTER COLUMN a TYPE int8")
	src2 := openT(t, addr(sch, "t"), source.Options{})
	if src2.Schema().Equal(src.Schema()) {
		t.Fatal("schema unchanged after ALTER TABLE")
	}
	as2, err := reg.Assign(src2.Evidence().Namespace, src2.Schema())
	if err != nil {
		t.Fatal(err)
	}
	if as1.SchemaID == as2.SchemaID {
		t.Error("schema identity unchanged")
	}
	var kinds []string
	for _, c := range as2.Changes {
		kinds = append(kinds, string(c.Kind)+":"+c.Name)
	}
	// a went from int4 to int8: integers still, a physical change.
	if len(as2.Changes) != 2 || as2.Changes[0].Kind != source.ChangePhysical || as2.Changes[0].Name != "a" || as2.Changes[1].Kind != source.ChangeAdded || as2.Changes[1].Name != "c" {
		t.Errorf("changes %v", kinds)
	} else if d := strings.Join(as2.Changes[0].Differences(), ", "); d != "arrow int32 → int64, width 32 → 64" {
		t.Errorf("a: %s", d)
	}
}

func TestErrors(t *testing.T) {
	conn := server(t)
	sch := schema(t, conn)
	exec(t, conn, "CREATE TABLE "+sch+".t (a int4)")
	const secret = "Sekr3t-Pa55"
	u := dsnWith(nil)
	withUser := func(user string) string {
		return strings.Replace(u, "postgres://", "postgres://"+user+":"+secret+"@", 1)
	}
	// Replace any user info of the test DSN.
	if i, j := strings.Index(u, "://"), strings.Index(u, "@"); j > i {
		u = u[:i+3] + u[j+1:]
	}
	cases := []struct {
		name, address string
		code          source.Code
	}{
		{"unknown table", addr(sch, "nope"), source.CodeNotFound},
		{"unknown schema", addr(sch+"_x", "t"), source.CodeNotFound},
		{"unknown role", withUser("pw_no_such_role") + "#" + sch + ".t", CodeAuth},
		{"unknown database", strings.Replace(withUser("postgres"), "/test?", "/pw_no_such_db?", 1) + "#t", source.CodeNotFound},
		{"refused", strings.Replace(withUser("postgres"), "127.0.0.1:5432", "127.0.0.1:1", 1) + "#t", source.CodeIO},
		{"bad url", "postgres://postgres:" + secret + "@[::1/test#t", source.CodeAddress},
	}
	for _, c := range cases {
		_, err := Open(context.Background(), c.address, source.Options{})
		if source.CodeOf(err) != c.code {
			t.Errorf("%s: %v, want %s", c.name, err, c.code)
			continue
		}
		if strings.Contains(err.Error(), secret) {
			t.Errorf("%s: password in message: %v", c.name, err)
		}
		if cov := source.UnavailableCoverage(err); cov.Check() != nil || cov.Failures[0].Code != c.code {
			t.Errorf("%s: unavailable coverage %+v", c.name, cov)
		}
	}
	// Trust authentication ignores the password: the read succeeds, and the
	// evidence holds no credentials.
	src := openT(t, withUser("postgres")+"#"+sch+".t", source.Options{})
	ev := src.Evidence()
	for _, s := range []string{ev.Namespace, ev.Version, strings.Join(ev.Choices, " ")} {
		if strings.Contains(s, secret) || strings.Contains(s, "postgres@") {
			t.Errorf("credentials in evidence: %q", s)
		}
	}
	if a, err := ParseAddress(withUser("postgres") + "#" + sch + ".t"); err != nil || strings.Contains(a.Redacted(), secret) {
		t.Errorf("Redacted: %q %v", a.Redacted(), err)
	}
	for _, o := range []source.Options{{Infer: true}, {HashContent: true}, {MissingAsNull: true}, {BatchSize: -1}} {
		if _, err := Open(context.Background(), addr(sch, "t"), o); !errors.Is(err, source.ErrOption) {
			t.Errorf("options %+v: %v", o, err)
		}
	}
	if _, err := Open(context.Background(), addr(sch, "t"), source.Options{Exclude: []string{"zz"}}); !errors.Is(err, source.ErrNotFound) {
		t.Errorf("unknown exclude: %v", err)
	}
	if _, err := Open(context.Background(), addr(sch, "t"), source.Options{Exclude: []string{"a"}}); !errors.Is(err, source.ErrSchema) {
		t.Errorf("nothing left: %v", err)
	}
}

// TestConnectionKilled: the backend is terminated from a second connection
// in the middle of the read. The read fails with a non-EOF error and the
// coverage is PARTIAL with the reason; nothing is silently short.
func TestConnectionKilled(t *testing.T) {
	conn := server(t)
	sch := schema(t, conn)
	exec(t, conn, "CREATE TABLE "+sch+".t AS SELECT g AS id, repeat('x', 200) AS pad FROM generate_series(1, 200000) g")
	src := openT(t, addr(sch, "t"), source.Options{BatchSize: 1000})
	ctx := context.Background()
	rec, err := src.Next(ctx)
	if err != nil {
		t.Fatal(err)
	}
	rec.Release()
	exec(t, conn, "SELECT pg_terminate_backend("+itoa(src.conn.PID())+")")
	var readErr error
	for {
		rec, err := src.Next(ctx)
		if err != nil {
			readErr = err
			break
		}
		rec.Release()
	}
	if readErr == io.EOF || source.CodeOf(readErr) != source.CodeIO {
		t.Fatalf("read after kill: %v, want a PW_SOURCE_IO error", readErr)
	}
	if _, err := src.Next(ctx); err != readErr {
		t.Errorf("Next after failure: %v, want the same error", err)
	}
	cv := src.Evidence().Coverage
	if cv.Status != source.StatusPartial || cv.Returned == 0 || cv.Returned >= 200000 || cv.Expected != 200000 || cv.Check() != nil {
		t.Fatalf("coverage %+v", cv)
	}
	if !hasString(cv.Reasons(), "PW_SOURCE_IO: reading stopped") {
		t.Errorf("reasons %v", cv.Reasons())
	}
}

func TestCancel(t *testing.T) {
	conn := server(t)
	sch := schema(t, conn)
	exec(t, conn, "CREATE TABLE "+sch+".t AS SELECT g AS id FROM generate_series(1, 10) g")
	src := openT(t, addr(sch, "t"), source.Options{BatchSize: 2})
	ctx, cancel := context.WithCancel(context.Background())
	rec, err := src.Next(ctx)
	if err != nil {
		t.Fatal(err)
	}
	rec.Release()
	cancel()
	if _, err := src.Next(ctx); source.CodeOf(err) != source.CodeIncomplete {
		t.Fatalf("after cancel: %v", err)
	}
	cv := src.Evidence().Coverage
	if cv.Status != source.StatusPartial || cv.Returned != 2 || !hasString(cv.Reasons(), "PW_SOURCE_INCOMPLETE") {
		t.Errorf("coverage %+v", cv)
	}
}

// TestEvidenceBeforeEOF: evidence taken mid-read says incomplete.
func TestEvidenceBeforeEOF(t *testing.T) {
	conn := server(t)
	sch := schema(t, conn)
	exec(t, conn, "CREATE TABLE "+sch+".t AS SELECT g AS id FROM generate_series(1, 10) g")
	src := openT(t, addr(sch, "t"), source.Options{BatchSize: 4})
	rec, err := src.Next(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	rec.Release()
	if cv := src.Evidence().Coverage; cv.Status != source.StatusPartial || cv.Returned != 4 {
		t.Errorf("coverage %+v", cv)
	}
	// Closing early drops the connection without draining the rows.
	if err := src.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := src.Next(context.Background()); err == nil || err == io.EOF {
		t.Errorf("Next after Close: %v", err)
	}
}

func itoa(v uint32) string { return big.NewInt(int64(v)).String() }

// TestViewDomainQueryExclude: views read like tables, a domain column
// arrives as its base type, and a query may end in ';' and be narrowed by
// Exclude.
func TestViewDomainQueryExclude(t *testing.T) {
	conn := server(t)
	sch := schema(t, conn)
	exec(t, conn, "CREATE DOMAIN "+sch+".pos AS int4 CHECK (VALUE > 0); CREATE TABLE "+sch+".t (a "+sch+".pos NOT NULL, b text); "+
		"INSERT INTO "+sch+".t VALUES (1, 'x'), (2, NULL); CREATE VIEW "+sch+".v AS SELECT a, b FROM "+sch+".t WHERE a > 1")
	src := openT(t, addr(sch, "v"), source.Options{})
	arrs, ev := readAll(t, src)
	if arrs[0].Len() != 1 || value(arrs[0], 0) != int64(2) || value(arrs[1], 0) != nil || ev.Coverage.Status != source.StatusComplete {
		t.Fatalf("view: %v %v %+v", arrs[0], arrs[1], ev.Coverage)
	}
	if f := src.Schema().Field(0); f.Type.ID() != arrow.INT32 {
		t.Errorf("domain over int4 read as %s", f.Type)
	}
	src = openT(t, dsnWith(nil), source.Options{Query: "SELECT a, b FROM " + sch + ".t ORDER BY a DESC; \n", Exclude: []string{"a"}})
	arrs, ev = readAll(t, src)
	if len(arrs) != 1 || arrs[0].Len() != 2 || value(arrs[0], 0) != nil || value(arrs[0], 1) != "x" || strings.Join(ev.Excluded, ",") != "a" {
		t.Fatalf("query: %v %v", arrs, ev.Excluded)
	}
}

// TestExcludedInColumnOrder: Evidence.Excluded lists the dropped columns in column order
// (doc.go), whatever the order of Options.Exclude, and each once.
func TestExcludedInColumnOrder(t *testing.T) {
	conn := server(t)
	sch := schema(t, conn)
	exec(t, conn, "CREATE TABLE "+sch+".t (id int8, a int4, b int4, c int4); INSERT INTO "+sch+".t VALUES (1, 2, 3, 4)")
	src := openT(t, addr(sch, "t"), source.Options{Exclude: []string{"c", "a", "c"}})
	arrs, ev := readAll(t, src)
	if len(arrs) != 2 || strings.Join(ev.Excluded, ",") != "a,c" {
		t.Fatalf("columns %d, excluded %q, want 2 and a,c", len(arrs), ev.Excluded)
	}
}

// TestConformance: the shared conformance dataset (confdata), written to a table, reads
// back as through every adapter (sourcetest.Conformance).
func TestConformance(t *testing.T) {
	conn := server(t)
	sch := schema(t, conn)
	exec(t, conn, "CREATE TABLE "+sch+".conf (id int8, name text, amount float8, payload bytea)")
	exec(t, conn, confdata.InsertSQL(sch+".conf", func(b []byte) string { return `'\x` + hex.EncodeToString(b) + `'::bytea` }))
	for _, bs := range []int{1, 2, 1000} {
		src := openT(t, addr(sch, "conf"), source.Options{BatchSize: bs})
		sourcetest.Conformance(t, src, Kind, Consistency)
	}
}
