package mysql

import (
	"context"
	"math"
	"math/big"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/decimal256"

	"github.com/pipewhy/pipewhy/source"
)

const typesDDL = `CREATE TABLE types (
  id INT NOT NULL PRIMARY KEY,
  i8 TINYINT, u8 TINYINT UNSIGNED, i16 SMALLINT, u16 SMALLINT UNSIGNED,
  i24 MEDIUMINT, u24 MEDIUMINT UNSIGNED, i32 INT, u32 INT UNSIGNED,
  i64 BIGINT, u64 BIGINT UNSIGNED, b BOOL, bits BIT(10),
  d DECIMAL(10,2), du DECIMAL(5,0) UNSIGNED, dbig DECIMAL(65,30),
  f FLOAT, g DOUBLE,
  c CHAR(5), vc VARCHAR(20), tx TEXT,
  bn BINARY(3), vb VARBINARY(10), bl BLOB,
  dt DATE, dtm DATETIME(6), ts TIMESTAMP(3) NULL DEFAULT NULL, tm TIME(6), tm0 TIME, y YEAR,
  js JSON, e ENUM('a','bé'), st SET('x','y')
) ENGINE=InnoDB`

var typesRows = []string{
	// minimums
	`INSERT INTO types VALUES (1, -128, 0, -32768, 0, -8388608, 0, -2147483648, 0,
	  -9223372036854775808, 0, 0, b'0',
	  -99999999.99, 0, -99999999999999999999999999999999999.999999999999999999999999999999,
	  -3.5, -0.25, '', '', '', x'', x'', x'',
	  '1000-01-01', '1000-01-01 00:00:00', '1970-01-01 00:00:01', '-838:59:59', '00:00:00', 1901,
	  '{}', 'a', '')`,
	// maximums, unicode, padding
	`INSERT INTO types VALUES (2, 127, 255, 32767, 65535, 8388607, 16777215, 2147483647, 4294967295,
	  9223372036854775807, 18446744073709551615, 1, b'1111111111',
	  99999999.99, 99999, 99999999999999999999999999999999999.999999999999999999999999999999,
	  1.5, 2.5, 'ab  ', 'zoë 🙂 ', 'line
break', x'0102', x'00ff', x'deadbeef',
	  '9999-12-31', '9999-12-31 23:59:59.999999', '2038-01-19 03:14:07.999', '838:59:59', '-00:00:01', 2155,
	  '{"k": [1, 2.50]}', 'bé', 'x,y')`,
	// nulls
	`INSERT INTO types (id) VALUES (3)`,
	// small magnitudes around zero
	`INSERT INTO types (id, d, dbig, dt, dtm, ts, tm, tm0) VALUES (4, -0.01, 0.000000000000000000000000000001,
	  '1970-01-01', '1969-12-31 23:59:59.999999', '2024-01-01 00:00:00.123', '-00:00:00.5', '24:00:00')`,
}

func dec128(v int64) decimal128.Num { return decimal128.FromI64(v) }

func dec256(s string) decimal256.Num {
	b, ok := new(big.Int).SetString(s, 10)
	if !ok {
		panic(s)
	}
	return decimal256.FromBigInt(b)
}

// TestTypes reads every mapped type at its boundaries, NULLs and unicode.
// Expected values are written from the MySQL/MariaDB documentation of each
// type's range and the literals above: dates as days since 1970-01-01
// (1000-01-01 = -354285, 9999-12-31 = 2932896), instants as microseconds.
func TestTypes(t *testing.T) {
	s := newServer(t)
	s.exec(t, typesDDL)
	s.exec(t, typesRows...)
	sc, cols, ev, pk := openRead(t, s.table("types"), source.Options{BatchSize: 3})

	wantTypes := map[string]string{
		"id": "int32", "i8": "int8", "u8": "uint8", "i16": "int16", "u16": "uint16", "i24": "int32", "u24": "uint32",
		"i32": "int32", "u32": "uint32", "i64": "int64", "u64": "uint64", "b": "int8", "bits": "uint16",
		"d": "decimal(10, 2)", "du": "decimal(5, 0)", "dbig": "decimal256(65, 30)", "f": "float32", "g": "float64",
		"c": "utf8", "vc": "utf8", "tx": "utf8", "bn": "binary", "vb": "binary", "bl": "binary",
		"dt": "date32", "dtm": "timestamp[us]", "ts": "timestamp[us, tz=UTC]", "tm": "duration[us]", "tm0": "duration[us]", "y": "uint16",
		"js": "utf8", "e": "utf8", "st": "utf8",
	}
	wantMeta := map[string][2]string{ // source type, width
		"id": {"mysql:int(11)", "32"}, "i24": {"mysql:mediumint(9)", "24"}, "u24": {"mysql:mediumint(8) unsigned", "24"},
		"u64": {"mysql:bigint(20) unsigned", "64"}, "b": {"mysql:tinyint(1)", "8"}, "bits": {"mysql:bit(10)", "10"},
		"d": {"mysql:decimal(10,2)", ""}, "du": {"mysql:decimal(5,0) unsigned", ""}, "c": {"mysql:char(5)", ""},
		"dtm": {"mysql:datetime(6)", ""}, "ts": {"mysql:timestamp(3)", ""}, "y": {"mysql:year(4)", "16"},
		"e": {"mysql:enum('a','bé')", ""}, "js": {"mysql:longtext", ""},
	}
	idx := map[string]int{}
	for i, f := range sc.Fields() {
		idx[f.Name] = i
		if got := f.Type.String(); got != wantTypes[f.Name] {
			t.Errorf("column %s: type %s, want %s", f.Name, got, wantTypes[f.Name])
		}
		if f.Nullable != (f.Name != "id") {
			t.Errorf("column %s: nullable %v", f.Name, f.Nullable)
		}
		if m, ok := wantMeta[f.Name]; ok {
			st, _ := f.Metadata.GetValue(source.MetaSourceType)
			w, _ := f.Metadata.GetValue(source.MetaSourceWidth)
			if st != m[0] || w != m[1] {
				t.Errorf("column %s: metadata type %q width %q, want %q %q", f.Name, st, w, m[0], m[1])
			}
		}
	}
	if len(idx) != len(wantTypes) {
		t.Fatalf("%d columns, want %d", len(idx), len(wantTypes))
	}
	if len(pk) != 1 || pk[0] != "id" {
		t.Errorf("primary key %v, want [id]", pk)
	}
	c := ev.Coverage
	if c.Status != source.StatusComplete || c.Expected != 4 || c.Returned != 4 {
		t.Fatalf("coverage %+v", c)
	}
	if ev.Adapter != Kind || ev.Consistency != ConsistencySnapshot || ev.Namespace != "mysql://"+s.addr.server()+"/"+s.db+"#types" ||
		!strings.HasPrefix(ev.Version, "server=") || !strings.Contains(ev.Version, "binlog") {
		t.Errorf("evidence %+v", ev)
	}
	wantChoices := []string{"schema=declared", "order=engine", "time_zone=+00:00", "char-padding=stripped", "bool=int8",
		"time=duration(us)", "enum-set=text", "json=text", "zero-date=fail-row", "sql_mode=", "engine=InnoDB"}
	if len(ev.Choices) != len(wantChoices) {
		t.Errorf("choices %q", ev.Choices)
	} else {
		for i, w := range wantChoices {
			if ev.Choices[i] != w && !(strings.HasSuffix(w, "=") && strings.HasPrefix(ev.Choices[i], w)) {
				t.Errorf("choice %d = %q, want %q", i, ev.Choices[i], w)
			}
		}
	}
	col := func(n string) arrow.Array { return cols[idx[n]] }
	// Row 3 (index 2) is NULL in every column but id.
	for n, i := range idx {
		if n != "id" && !cols[i].IsNull(2) {
			t.Errorf("column %s row 3: not null", n)
		}
	}
	ints := []struct {
		name     string
		min, max int64
	}{
		{"i8", math.MinInt8, math.MaxInt8}, {"i16", math.MinInt16, math.MaxInt16}, {"i24", -8388608, 8388607},
		{"i32", math.MinInt32, math.MaxInt32}, {"i64", math.MinInt64, math.MaxInt64}, {"b", 0, 1},
	}
	for _, w := range ints {
		a := col(w.name)
		var lo, hi int64
		switch v := a.(type) {
		case *array.Int8:
			lo, hi = int64(v.Value(0)), int64(v.Value(1))
		case *array.Int16:
			lo, hi = int64(v.Value(0)), int64(v.Value(1))
		case *array.Int32:
			lo, hi = int64(v.Value(0)), int64(v.Value(1))
		case *array.Int64:
			lo, hi = v.Value(0), v.Value(1)
		}
		if lo != w.min || hi != w.max {
			t.Errorf("%s: %d..%d, want %d..%d", w.name, lo, hi, w.min, w.max)
		}
	}
	uints := []struct {
		name string
		max  uint64
	}{{"u8", math.MaxUint8}, {"u16", math.MaxUint16}, {"u24", 16777215}, {"u32", math.MaxUint32}, {"u64", math.MaxUint64}, {"bits", 1023}}
	for _, w := range uints {
		a := col(w.name)
		var lo, hi uint64
		switch v := a.(type) {
		case *array.Uint8:
			lo, hi = uint64(v.Value(0)), uint64(v.Value(1))
		case *array.Uint16:
			lo, hi = uint64(v.Value(0)), uint64(v.Value(1))
		case *array.Uint32:
			lo, hi = uint64(v.Value(0)), uint64(v.Value(1))
		case *array.Uint64:
			lo, hi = v.Value(0), v.Value(1)
		}
		if lo != 0 || hi != w.max {
			t.Errorf("%s: %d..%d, want 0..%d", w.name, lo, hi, w.max)
		}
	}
	if y := col("y").(*array.Uint16); y.Value(0) != 1901 || y.Value(1) != 2155 {
		t.Errorf("year %v", y)
	}
	d := col("d").(*array.Decimal128)
	if d.Value(0) != dec128(-9999999999) || d.Value(1) != dec128(9999999999) || d.Value(3) != dec128(-1) {
		t.Errorf("decimal(10,2) %v", d)
	}
	if du := col("du").(*array.Decimal128); du.Value(0) != dec128(0) || du.Value(1) != dec128(99999) {
		t.Errorf("decimal(5,0) unsigned %v", du)
	}
	nines := strings.Repeat("9", 65)
	db := col("dbig").(*array.Decimal256)
	if db.Value(0) != dec256("-"+nines) || db.Value(1) != dec256(nines) || db.Value(3) != dec256("1") {
		t.Errorf("decimal(65,30) %v", db)
	}
	if f := col("f").(*array.Float32); f.Value(0) != -3.5 || f.Value(1) != 1.5 {
		t.Errorf("float %v", f)
	}
	if g := col("g").(*array.Float64); g.Value(0) != -0.25 || g.Value(1) != 2.5 {
		t.Errorf("double %v", g)
	}
	text := func(n string, want ...string) {
		a := col(n).(*array.String)
		for i, w := range want {
			if a.IsNull(i) || a.Value(i) != w {
				t.Errorf("%s row %d: %q (null %v), want %q", n, i+1, a.Value(i), a.IsNull(i), w)
			}
		}
	}
	// CHAR(5) 'ab  ' reads as "ab": MariaDB strips trailing spaces of CHAR.
	text("c", "", "ab")
	text("vc", "", "zoë 🙂 ")
	text("tx", "", "line\nbreak")
	text("js", "{}", `{"k": [1, 2.50]}`)
	text("e", "a", "bé")
	text("st", "", "x,y")
	bin := func(n string, want ...string) {
		a := col(n).(*array.Binary)
		for i, w := range want {
			if a.IsNull(i) || string(a.Value(i)) != w {
				t.Errorf("%s row %d: %x (null %v), want %x", n, i+1, a.Value(i), a.IsNull(i), w)
			}
		}
	}
	// BINARY(3) pads with zero bytes.
	bin("bn", "\x00\x00\x00", "\x01\x02\x00")
	bin("vb", "", "\x00\xff")
	bin("bl", "", "\xde\xad\xbe\xef")
	dt := col("dt").(*array.Date32)
	if dt.Value(0) != -354285 || dt.Value(1) != 2932896 || dt.Value(3) != 0 {
		t.Errorf("date %v", dt)
	}
	const day = 86400 * 1_000_000
	dtm := col("dtm").(*array.Timestamp)
	if dtm.Value(0) != -354285*day || dtm.Value(1) != 2932896*day+86399_999_999 || dtm.Value(3) != -1 {
		t.Errorf("datetime %v", dtm)
	}
	ts := col("ts").(*array.Timestamp)
	if ts.Value(0) != 1_000_000 || ts.Value(1) != 2147483647_999_000 || ts.Value(3) != 1704067200_123_000 {
		t.Errorf("timestamp %v", ts)
	}
	tm := col("tm").(*array.Duration)
	if tm.Value(0) != -(838*3600+59*60+59)*1_000_000 || tm.Value(1) != (838*3600+59*60+59)*1_000_000 || tm.Value(3) != -500_000 {
		t.Errorf("time(6) %v", tm)
	}
	if tm0 := col("tm0").(*array.Duration); tm0.Value(0) != 0 || tm0.Value(1) != -1_000_000 || tm0.Value(3) != 24*3600*1_000_000 {
		t.Errorf("time %v", tm0)
	}
}

// TestFloatBits stores doubles and floats through binary parameters and
// requires the exact bits back: the text protocol would print them lossily.
func TestFloatBits(t *testing.T) {
	s := newServer(t)
	s.exec(t, "CREATE TABLE fl (id INT PRIMARY KEY, f FLOAT, g DOUBLE)")
	doubles := []float64{
		math.SmallestNonzeroFloat64, -math.SmallestNonzeroFloat64, math.MaxFloat64, -math.MaxFloat64,
		0.1 + 0.2,               // 0.30000000000000004: needs 17 significant digits
		2.2250738585072014e-308, // smallest normal
		1.0000000000000002,      // 1 + ulp
		123456789.12345679,
		-1.5,
	}
	floats := []float32{
		math.SmallestNonzeroFloat32, math.MaxFloat32, -math.MaxFloat32, 0.1, 16777217, 1.1754944e-38,
		-2.5, 1, 3.4028233e38,
	}
	for i := range doubles {
		if _, err := s.admin.Exec("INSERT INTO fl VALUES (?, ?, ?)", i, floats[i], doubles[i]); err != nil {
			t.Fatal(err)
		}
	}
	_, cols, _, _ := openRead(t, s.table("fl"), source.Options{})
	f, g := cols[1].(*array.Float32), cols[2].(*array.Float64)
	for i := range doubles {
		if math.Float64bits(g.Value(i)) != math.Float64bits(doubles[i]) {
			t.Errorf("double %d: %v (%#x), want %v (%#x)", i, g.Value(i), math.Float64bits(g.Value(i)), doubles[i], math.Float64bits(doubles[i]))
		}
		if math.Float32bits(f.Value(i)) != math.Float32bits(floats[i]) {
			t.Errorf("float %d: %v (%#x), want %v (%#x)", i, f.Value(i), math.Float32bits(f.Value(i)), floats[i], math.Float32bits(floats[i]))
		}
	}
	// MariaDB normalizes -0.0 to +0.0, in columns and in results (binary
	// protocol included): the sign never reaches a client. ATAN2 proves
	// the server evaluated a negative zero; -pi arrives with exact bits.
	_, cols, _, _ = openRead(t, s.addr, source.Options{Query: "SELECT -0e0 AS z, ATAN2(-0e0, -1) AS p"})
	if z := cols[0].(*array.Float64).Value(0); math.Float64bits(z) != 0 {
		t.Errorf("-0e0 read as %#x: the server now sends negative zero; update doc.go", math.Float64bits(z))
	}
	if p := cols[1].(*array.Float64).Value(0); math.Float64bits(p) != math.Float64bits(-math.Pi) {
		t.Errorf("ATAN2(-0e0,-1) read as %#x, want -pi %#x", math.Float64bits(p), math.Float64bits(-math.Pi))
	}
}

// TestTimestampIsUTC writes a TIMESTAMP in a +05:00 session: the server
// stores UTC, and the adapter reads it in a +00:00 session.
func TestTimestampIsUTC(t *testing.T) {
	s := newServer(t)
	s.exec(t, "CREATE TABLE tz (ts TIMESTAMP NULL, dt DATETIME)")
	conn, err := s.admin.Conn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	for _, q := range []string{"SET time_zone = '+05:00'", "INSERT INTO tz VALUES ('2024-01-01 05:00:00', '2024-01-01 05:00:00')"} {
		if _, err := conn.ExecContext(context.Background(), q); err != nil {
			t.Fatal(err)
		}
	}
	_, cols, _, _ := openRead(t, s.table("tz"), source.Options{})
	// 2024-01-01T00:00:00Z = 1704067200 s; DATETIME keeps the wall clock.
	if v := cols[0].(*array.Timestamp).Value(0); v != 1704067200_000_000 {
		t.Errorf("timestamp %d, want 2024-01-01T00:00:00Z", v)
	}
	if v := cols[1].(*array.Timestamp).Value(0); v != 1704067200_000_000+5*3600_000_000 {
		t.Errorf("datetime %d, want 2024-01-01 05:00:00 naive", v)
	}
}

// TestZeroDatesFailVisibly: zero dates and impossible dates are counted
// failures of their rows, never NULL.
func TestZeroDatesFailVisibly(t *testing.T) {
	s := newServer(t)
	s.exec(t, "CREATE TABLE z (id INT PRIMARY KEY, d DATE NULL, dt DATETIME NULL)")
	conn, err := s.admin.Conn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	for _, q := range []string{
		"SET sql_mode = 'ALLOW_INVALID_DATES'",
		"INSERT INTO z VALUES (1, '2024-02-29', '2024-02-29 12:00:00')",
		"INSERT INTO z VALUES (2, '0000-00-00', NULL)",
		"INSERT INTO z VALUES (3, NULL, '0000-00-00 00:00:00')",
		"INSERT INTO z VALUES (4, '2023-02-30', NULL)",
		"INSERT INTO z VALUES (5, '2024-00-10', NULL)",
		"INSERT INTO z VALUES (6, NULL, NULL)",
	} {
		if _, err := conn.ExecContext(context.Background(), q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	src, err := OpenAddress(context.Background(), s.table("z"), source.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	cols, ev := readAll(t, src)
	ids := cols[0].(*array.Int32)
	if ids.Len() != 2 || ids.Value(0) != 1 || ids.Value(1) != 6 || cols[1].(*array.Date32).Value(0) != 19782 {
		t.Fatalf("rows %v %v", ids, cols[1])
	}
	c := ev.Coverage
	if c.Status != source.StatusPartial || c.Expected != 6 || c.Returned != 2 || c.FailedRecords != 4 {
		t.Fatalf("coverage %+v", c)
	}
	want := []string{
		`PW_SOURCE_TYPE line 2 column "d": zero date`,
		`PW_SOURCE_TYPE line 3 column "dt": zero date`,
		`PW_SOURCE_TYPE line 4 column "d": invalid calendar date`,
		`PW_SOURCE_TYPE line 5 column "d": zero date`,
	}
	r := c.Reasons()
	for i, w := range want {
		if i >= len(r) || !strings.HasPrefix(r[i], w) {
			t.Errorf("reason %d = %q, want prefix %q", i, r, w)
		}
	}
}
