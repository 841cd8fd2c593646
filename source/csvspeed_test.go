package source

import (
	"bytes"
	"context"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// The CSV converter writes int64, float64, timestamp and text columns straight
// into Arrow buffers reused from batch to batch, through fast paths for the
// common cell shapes (smallInt, fastFloat, fastTimestampDay with its date
// cache). The tests here hold it to a model built without any of that:
// encoding/csv splits the records and parseText, the general path (strconv,
// time.Parse), converts every cell.

// speedCols are the columns of the random files: every type the converter
// writes directly, and two that go through a builder.
var speedCols = []Column{
	{"i", "int64"}, {"f", "float64"}, {"us", "timestamp(us)"}, {"ns", "timestamp(ns,UTC)"},
	{"s", "timestamp(s)"}, {"t", "text"}, {"i8", "int8"}, {"b", "bool"},
}

// speedCell returns a random cell for a column of type typ: a typical valid
// value, or with probability junk an edge case (often invalid). prevDate is
// the date of the column's previous timestamp cell, which the next one
// repeats half of the time (the date cache's hit path).
func speedCell(r *rand.Rand, typ string, prevDate *string, junk float64) string {
	pick := func(s ...string) string { return s[r.Intn(len(s))] }
	digits := func(n int) string {
		b := make([]byte, n)
		for i := range b {
			b[i] = byte('0' + r.Intn(10))
		}
		return string(b)
	}
	sign := func() string { return pick("", "", "", "-", "+") }
	if r.Intn(30) == 0 {
		return pick("", "NULL") // null under one of the null options
	}
	edge := r.Float64() < junk
	if edge {
		switch r.Intn(6) {
		case 0:
			return pick("", " ", "NULL", "null", "\xff", "a\xc3", "\xed\xa0\x80", "é", "0\n1", "1,2", `"`, "\r")
		case 1:
			return digits(r.Intn(4)) + string(rune(r.Intn(0x250)))
		}
	}
	switch typ {
	case "int64", "int8":
		if !edge {
			return sign() + strings.Repeat("0", r.Intn(2)) + digits(1+r.Intn(2))
		}
		return pick(sign()+digits(1+r.Intn(20)), sign()+strings.Repeat("0", r.Intn(20))+digits(1+r.Intn(3)),
			"9223372036854775807", "-9223372036854775808", "9223372036854775808", "-9223372036854775809",
			"127", "-128", "128", "-129", "-0", "+0", "00", "1e3", "0x1f", " 1", "1 ", "1_0", "١")
	case "float64":
		if !edge {
			return sign() + digits(1+r.Intn(7)) + pick("", "."+digits(1+r.Intn(4)))
		}
		return pick(sign()+digits(r.Intn(12))+"."+digits(r.Intn(12)), sign()+digits(1+r.Intn(25)),
			sign()+strings.Repeat("0", r.Intn(5))+digits(1+r.Intn(8))+"."+digits(r.Intn(24)),
			"9007199254740993", "9007199254740992", "0.1", "-0", "-0.0", ".", "-.", "+.5", "5.", "1e10", "1E-400", "1e400",
			"NaN", "nan", "inf", "-Inf", "+Infinity", "0x1p-2", "1_000.5", "1.7976931348623157e308", "4.9e-324")
	case "bool":
		if !edge {
			return pick("true", "false")
		}
		return pick("true", "false", "TRUE", "1", "0", "t", "yes")
	case "text":
		if !edge {
			return digits(r.Intn(12))
		}
		return pick("plain", "with,comma", "with \"quotes\"", "two\nlines", "crlf\r\nin", "trail\r", "", "  ", digits(r.Intn(30)), "ü€𝄞")
	}
	if !edge {
		// A valid timestamp of the column's form, often on the previous cell's date.
		if *prevDate == "" || r.Intn(3) == 0 {
			*prevDate = fmt.Sprintf("%04d-%02d-%02d", 1700+r.Intn(500), 1+r.Intn(12), 1+r.Intn(28))
		}
		v := *prevDate + pick("T", " ") + fmt.Sprintf("%02d:%02d:%02d", r.Intn(24), r.Intn(60), r.Intn(60))
		switch {
		case strings.HasPrefix(typ, "timestamp(ns"), strings.HasPrefix(typ, "timestamp(us"):
			v += pick("", "."+digits(1+r.Intn(6)))
		case strings.HasPrefix(typ, "timestamp(ms"):
			v += pick("", "."+digits(1+r.Intn(3)))
		}
		if strings.Contains(typ, ",") {
			v += "Z"
		}
		return v
	}
	// A timestamp.
	date := *prevDate
	if date == "" || r.Intn(2) == 0 {
		date = pick(
			fmt.Sprintf("%04d-%02d-%02d", r.Intn(10000), 1+r.Intn(12), 1+r.Intn(28)),
			fmt.Sprintf("%04d-%02d-%02d", 1900+r.Intn(200), r.Intn(14), r.Intn(33)),
			"2024-02-29", "2023-02-29", "2100-02-29", "2000-02-29", "1970-01-01", "1969-12-31",
			"0000-01-01", "9999-12-31", "1677-09-21", "1677-09-20", "2262-04-11", "2262-04-12", "2026-9-01", "20x6-01-01",
			"2026/09/21", "2026-09/21", "2026-0a-21", "+026-09-21", "2026-09-2 ")
		*prevDate = date
	}
	clock := pick(fmt.Sprintf("%02d:%02d:%02d", r.Intn(24), r.Intn(60), r.Intn(60)),
		fmt.Sprintf("%02d:%02d:%02d", r.Intn(26), r.Intn(62), r.Intn(62)), "00:12:43", "23:47:16", "00:00:00", "23:59:59", "1:00:00")
	frac := pick("", "", "."+digits(1+r.Intn(9)), "."+digits(1+r.Intn(11)), ".", ",5", ".145224192", ".854775807", ".854775808", ".145224191")
	zone := pick("", "", "Z", "+01:00", "z")
	sep := pick("T", "T", " ", "t")
	return date + sep + clock + frac + zone
}

// speedFile returns a random CSV file of rows records over speedCols, some
// of them malformed, with its cells quoted at random (always when they need
// it), and line breaks LF or CRLF.
func speedFile(r *rand.Rand, rows int) []byte {
	var b bytes.Buffer
	nl := "\n"
	if r.Intn(3) == 0 {
		nl = "\r\n"
	}
	for i, c := range speedCols {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(c.Name)
	}
	b.WriteString(nl)
	prev := make([]string, len(speedCols))
	junk := []float64{0.002, 0.02, 0.1, 0.4}[r.Intn(4)]
	for range rows {
		switch r.Intn(60) {
		case 0:
			b.WriteString("1,2" + nl) // too few fields
			continue
		case 1:
			b.WriteString(`1,x"y,3` + nl) // a bare quote
			continue
		case 2:
			b.WriteString(nl) // an empty line
			continue
		}
		for i, c := range speedCols {
			if i > 0 {
				b.WriteByte(',')
			}
			v := speedCell(r, c.Type, &prev[i], junk)
			if strings.ContainsAny(v, ",\"\r\n") || (v != "" && r.Intn(8) == 0) {
				v = `"` + strings.ReplaceAll(v, `"`, `""`) + `"`
			}
			b.WriteString(v)
		}
		b.WriteString(nl)
	}
	return b.Bytes()
}

// speedModel reads data as the CSV reader must: encoding/csv's records (a
// record it rejects is PW_SOURCE_CSV_ROW at its first line), every cell
// checked for UTF-8 and null, then parsed by parseText; a record is a row
// only when every cell converts, else the failure of its first bad cell. The
// rows come as appendCanon spells them.
func speedModel(t *testing.T, data []byte, null *string) (cols [][]string, fails []Failure) {
	t.Helper()
	types := make([]colType, len(speedCols))
	for i, c := range speedCols {
		types[i], _ = parseType(c.Type)
	}
	cols = make([][]string, len(speedCols))
	r := csv.NewReader(bytes.NewReader(data))
	if _, err := r.Read(); err != nil {
		t.Fatal(err)
	}
	for {
		rec, err := r.Read()
		if err == io.EOF {
			return cols, fails
		}
		var pe *csv.ParseError
		if errors.As(err, &pe) {
			fails = append(fails, Failure{Code: CodeCSVRow, Line: uint64(pe.StartLine)})
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		line, _ := r.FieldPos(0)
		row := make([]string, len(rec))
		var fail *Failure
		for i, v := range rec {
			ct := &types[i]
			var c cell
			code := Code("")
			switch {
			case !utf8.ValidString(v):
				code = CodeUTF8
			case null != nil && v == *null:
				row[i] = "null"
				continue
			default:
				code, _ = ct.parseText(v, &c)
			}
			if code != "" {
				fail = &Failure{Code: code, Line: uint64(line), Column: speedCols[i].Name}
				break
			}
			switch ct.kind {
			case kInt, kTimestamp:
				row[i] = strconv.FormatInt(c.i, 10)
			case kFloat:
				row[i] = fmt.Sprintf("f64:%016x", math.Float64bits(c.f))
			case kBool:
				row[i] = strconv.FormatBool(c.b)
			case kText:
				row[i] = strconv.Quote(c.s)
			}
		}
		if fail != nil {
			fails = append(fails, *fail)
			continue
		}
		for i := range row {
			cols[i] = append(cols[i], row[i])
		}
	}
}

// speedRead reads p with the given workers (0: serial) and batch size; hold
// keeps every batch until the end instead of releasing it at once (a held
// batch's buffers are never reused). It checks the Arrow layout a builder
// would have given: a null slot of a fixed-width column holds zero, and the
// bits of a validity bitmap past the last row are clear.
func speedRead(t *testing.T, p string, opts Options, workers int, hold bool) ([][]string, []Failure) {
	t.Helper()
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	opts.Allocator = mem
	opts.MaxFailureDetails = 1 << 20
	src, err := Open(context.Background(), p, opts)
	if err != nil {
		t.Fatal(err)
	}
	src.(*csvSource).workers = workers
	cols := make([][]string, len(speedCols))
	var held []arrow.RecordBatch
	for {
		rec, err := src.Next(context.Background())
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if rec.NumRows() > int64(opts.BatchSize) || rec.NumRows() == 0 {
			t.Fatalf("a batch of %d rows (BatchSize %d)", rec.NumRows(), opts.BatchSize)
		}
		for c := range cols {
			a := rec.Column(c)
			cols[c] = appendCanon(t, cols[c], a)
			speedLayout(t, a)
		}
		if hold {
			held = append(held, rec)
		} else {
			rec.Release()
		}
	}
	if hold {
		// The held batches still read as they did: no later batch reused their memory.
		var again [][]string = make([][]string, len(speedCols))
		for _, rec := range held {
			for c := range again {
				again[c] = appendCanon(t, again[c], rec.Column(c))
			}
			rec.Release()
		}
		if fmt.Sprint(again) != fmt.Sprint(cols) {
			t.Fatal("a held batch changed while the read went on")
		}
	}
	ev := src.Evidence()
	if err := src.Close(); err != nil {
		t.Fatal(err)
	}
	mem.AssertSize(t, 0)
	var fails []Failure
	for _, f := range ev.Coverage.Failures {
		fails = append(fails, Failure{Code: f.Code, Line: f.Line, Column: f.Column})
	}
	if uint64(len(fails)) != ev.Coverage.FailedRecords || ev.Coverage.Status == StatusComplete && len(fails) > 0 {
		t.Fatalf("coverage %+v", ev.Coverage)
	}
	return cols, fails
}

// speedLayout checks a's null slots and bitmap padding (see speedRead).
func speedLayout(t *testing.T, a arrow.Array) {
	t.Helper()
	if a.NullN() == 0 {
		return
	}
	bits := a.NullBitmapBytes()
	if n := a.Len(); n%8 != 0 && bits[n/8]>>(n%8) != 0 {
		t.Fatalf("%s: validity bits set past row %d: %08b", a.DataType(), n, bits[n/8])
	}
	for i := 0; i < a.Len(); i++ {
		if !a.IsNull(i) {
			continue
		}
		switch a := a.(type) {
		case *array.Int64:
			if a.Value(i) != 0 {
				t.Fatalf("int64 null slot %d holds %d", i, a.Value(i))
			}
		case *array.Float64:
			if math.Float64bits(a.Value(i)) != 0 {
				t.Fatalf("float64 null slot %d holds %v", i, a.Value(i))
			}
		case *array.Timestamp:
			if a.Value(i) != 0 {
				t.Fatalf("timestamp null slot %d holds %d", i, a.Value(i))
			}
		case *array.String:
			if a.ValueLen(i) != 0 {
				t.Fatalf("text null slot %d holds %q", i, a.Value(i))
			}
		}
	}
}

// TestCSVSpeedModel: on random files of edge-case cells, the reader (serial
// and parallel, small batches that reuse released buffers or held ones that
// cannot, every null option) yields exactly the model's rows and failures.
func TestCSVSpeedModel(t *testing.T) {
	empty, word := "", "NULL"
	rounds := 40
	if testing.Short() {
		rounds = 8
	}
	rows, nulls, fails := 0, 0, 0 // what the model yielded, over every round
	for round := range rounds {
		r := rand.New(rand.NewSource(int64(round)))
		data := speedFile(r, 50+r.Intn(400))
		p := writeFile(t, t.TempDir(), "s.csv", data)
		for _, null := range []*string{nil, &empty, &word} {
			want, wantFails := speedModel(t, data, null)
			rows += len(want[0])
			nulls += strings.Count(strings.Join(want[0], " "), "null")
			fails += len(wantFails)
			for _, workers := range []int{0, 1, 3} {
				for _, hold := range []bool{false, true} {
					opts := Options{Columns: speedCols, Null: null, BatchSize: 1 + r.Intn(70)}
					got, fails := speedRead(t, p, opts, workers, hold)
					name := fmt.Sprintf("round %d null %v workers %d hold %v batch %d", round, null != nil, workers, hold, opts.BatchSize)
					if fmt.Sprint(fails) != fmt.Sprint(wantFails) {
						t.Fatalf("%s: failures\n%v\nwant\n%v", name, fails, wantFails)
					}
					for c := range want {
						if len(got[c]) != len(want[c]) {
							t.Fatalf("%s: column %s has %d rows, want %d", name, speedCols[c].Name, len(got[c]), len(want[c]))
						}
						for i := range want[c] {
							if got[c][i] != want[c][i] {
								t.Fatalf("%s: column %s row %d = %s, want %s", name, speedCols[c].Name, i, got[c][i], want[c][i])
							}
						}
					}
				}
			}
		}
	}
	// The files hold what the comparison is about: many rows, nulls and failures.
	if rows < 20*rounds || nulls < rounds || fails < 10*rounds {
		t.Fatalf("the random files yielded %d rows, %d int64 nulls, %d failures", rows, nulls, fails)
	}
}

// TestCSVSpeedTimestampDay: the date cache gives what the uncached parse
// gives on every cell of a column read in order, whether the cell repeats the
// previous date or not, and never keeps a date that failed its checks.
func TestCSVSpeedTimestampDay(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	for _, spell := range []string{"timestamp(s)", "timestamp(ms)", "timestamp(us)", "timestamp(ns)", "timestamp(us,UTC)", "timestamp(ns,+05:30)"} {
		ct, _ := parseType(spell)
		var day csvDay
		prev := ""
		for range 20000 {
			v := []byte(speedCell(r, spell, &prev, 0.5))
			got, gok := ct.fastTimestampDay(v, &day)
			want, wok := ct.fastTimestamp(v)
			if got != want || gok != wok {
				t.Fatalf("%s %q: cached %d %v, uncached %d %v", spell, v, got, gok, want, wok)
			}
			if !gok {
				continue
			}
			var c cell
			if code, _ := ct.parseTimestamp(string(v), &c); code != "" || c.i != got {
				t.Fatalf("%s %q: fast %d, parseTimestamp %d %s", spell, v, got, c.i, code)
			}
		}
	}
	// A date whose own checks fail is not cached, so that the same bytes fail again.
	ct, _ := parseType("timestamp(us)")
	var day csvDay
	for _, v := range []string{"2023-02-29T00:00:00", "2023-02-29T00:00:00", "2023-02-28T00:00:00", "2023-02-29T00:00:00"} {
		_, ok := ct.fastTimestampDay([]byte(v), &day)
		if ok != (v == "2023-02-28T00:00:00") {
			t.Fatalf("%q: ok %v", v, ok)
		}
	}
}
