package source

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/pipewhy/pipewhy/internal/decimaltext"
	"github.com/pipewhy/pipewhy/normalize"
)

var knownCodes = map[Code]bool{
	CodeAddress: true, CodeIO: true, CodeCSVRow: true, CodeType: true, CodeUTF8: true, CodeUnsupported: true,
	CodeSchema: true, CodeJSONLine: true, CodeMissing: true, CodeExtra: true, CodeDuplicate: true, CodeLimit: true,
	CodeCorrupt: true, CodeNotFound: true, CodeChanged: true, CodeIncomplete: true, CodeCount: true,
	CodeRegistry: true, CodeOption: true,
}

// maxFuzzInput bounds the bytes of a fuzz input in this package: larger inputs are
// skipped (skipLarge), so that no run, and no minimization of a new input (its
// byte-range pass takes about n²/2 runs for n bytes), takes time without bound. The
// seeds are smaller (FuzzParquetGo keeps files of at most 64 KiB).
const maxFuzzInput = 64 << 10

// skipLarge skips an input whose byte arguments total n > maxFuzzInput bytes.
func skipLarge(t *testing.T, n int) {
	t.Helper()
	if n > maxFuzzInput {
		t.Skipf("input of %d bytes, over the %d-byte bound of this package's fuzz targets", n, maxFuzzInput)
	}
}

// fuzzRead opens data as name with opts and checks the Source contract:
// no panic, every error and failure carries a known code, coverage is
// consistent, and every returned text value is valid UTF-8.
func fuzzRead(t *testing.T, name string, data []byte, opts Options) {
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	opts.MaxLineBytes = 1 << 12
	opts.BatchSize = 3
	src, err := Open(context.Background(), p, opts)
	if err != nil {
		if !knownCodes[CodeOf(err)] {
			t.Fatalf("open error without a known code: %v", err)
		}
		return
	}
	defer src.Close()
	var rows uint64
	fatal := false
	for {
		rec, err := src.Next(context.Background())
		if err == io.EOF {
			break
		}
		if err != nil {
			if !knownCodes[CodeOf(err)] {
				t.Fatalf("Next error without a known code: %v", err)
			}
			fatal = true
			break
		}
		rows += uint64(rec.NumRows())
		for _, c := range rec.Columns() {
			if s, ok := c.(*array.String); ok {
				for i := 0; i < s.Len(); i++ {
					if !utf8.ValidString(s.Value(i)) {
						t.Fatalf("invalid UTF-8 returned")
					}
				}
			}
			// A JSON number column holds decimals that C2 encodes under every profile.
			if d, ok := c.(*decimaltext.Array); ok {
				s := d.Storage().(*array.String)
				for i := 0; i < s.Len(); i++ {
					if s.IsNull(i) {
						continue
					}
					v, err := normalize.ParseDecimal(s.Value(i))
					if err != nil {
						t.Fatalf("number %q: %v", s.Value(i), err)
					}
					for _, p := range []normalize.Profile{normalize.StrictV1, normalize.LogicalV1} {
						if _, err := normalize.AppendDecimal(nil, &v, p); err != nil {
							t.Fatalf("number %q under %s: %v", s.Value(i), p.Name(), err)
						}
					}
				}
			}
		}
		rec.Release()
	}
	cov := src.Evidence().Coverage
	if err := cov.Check(); err != nil {
		t.Fatalf("coverage %+v: %v", cov, err)
	}
	if cov.Returned != rows {
		t.Fatalf("coverage returned %d, batches %d", cov.Returned, rows)
	}
	for _, f := range cov.Failures {
		if !knownCodes[f.Code] {
			t.Fatalf("failure with unknown code %+v", f)
		}
	}
	if !fatal && cov.FailureCount == cov.FailedRecords && (!cov.ExpectedKnown || cov.Expected != cov.Returned+cov.FailedRecords) {
		t.Fatalf("expected %d/%v != returned %d + failed %d", cov.Expected, cov.ExpectedKnown, cov.Returned, cov.FailedRecords)
	}
}

func FuzzCSV(f *testing.F) {
	for _, s := range []string{
		"a,b\n1,x\n", confCSV, "a\n\"x\ny\"\n", "a,b\n1\n", "a\n\"unterminated\n", "a\nx\"y\n", "\xef\xbb\xbfa\n1\n",
		"a,b\r\n1,2\r\n", "a\n\xff\n", "a,a\n", "", "a\n" + "9223372036854775808\n", "a,b\n-0,true\n",
	} {
		f.Add([]byte(s), uint8(0))
		f.Add([]byte(s), uint8(1))
		f.Add([]byte(s), uint8(2))
	}
	null := "NULL"
	f.Fuzz(func(t *testing.T, data []byte, mode uint8) {
		skipLarge(t, len(data))
		var opts Options
		switch mode % 3 {
		case 1:
			opts.Infer = true
			opts.Null = &null
		case 2:
			// Typed: the first two header columns, when present, are typed
			// by the schema; CSVs with another header fail at open.
			opts.Columns = []Column{{"a", "int64"}, {"b", "bool"}}
		}
		fuzzRead(t, "f.csv", data, opts)
	})
}

// FuzzCSVInferRoundTrip: every value read under Infer renders back to exactly the
// cell's text as read without Infer (same null spelling): inference never changes a
// value's spelling, and the two reads agree on which records fail.
func FuzzCSVInferRoundTrip(f *testing.F) {
	for _, s := range []string{"a,b\n00501,1\n501,2\n", "a\n+7\n", "a\n-0\n", "a,b\n1,true\n2,True\n", "a\n18446744073709551615\n",
		"a\n1e3\n", "a\n 7\n", "a,b\nNULL,1\n-5,NULL\n", "a\n-9223372036854775808\n"} {
		f.Add([]byte(s))
	}
	null := "NULL"
	f.Fuzz(func(t *testing.T, data []byte) {
		skipLarge(t, len(data))
		dir := t.TempDir()
		p := filepath.Join(dir, "f.csv")
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		read := func(infer bool) ([]arrow.Array, Evidence, bool) {
			opts := Options{Infer: infer, Null: &null}
			// Bad input that fails Open or stops the read (readAll would fail the test
			// on it) leaves nothing to compare; FuzzCSV covers those paths.
			src, err := Open(context.Background(), p, opts)
			if err != nil {
				return nil, Evidence{}, false
			}
			for err == nil {
				_, err = src.Next(context.Background())
			}
			src.Close()
			if err != io.EOF {
				return nil, Evidence{}, false
			}
			src, err = Open(context.Background(), p, opts)
			if err != nil {
				t.Fatalf("second open: %v", err)
			}
			defer src.Close()
			cols, ev := readAll(t, src)
			return cols, ev, true
		}
		typed, evT, okT := read(true)
		text, evX, okX := read(false)
		if !okT || !okX {
			return
		}
		if evT.Coverage.Returned != evX.Coverage.Returned || evT.Coverage.FailedRecords != evX.Coverage.FailedRecords {
			t.Fatalf("infer read %d (failed %d), text read %d (failed %d)", evT.Coverage.Returned, evT.Coverage.FailedRecords, evX.Coverage.Returned, evX.Coverage.FailedRecords)
		}
		for c := range typed {
			want := text[c].(*array.String)
			for i := 0; i < want.Len(); i++ {
				if typed[c].IsNull(i) != want.IsNull(i) {
					t.Fatalf("column %d row %d: null %v under Infer, %v as text", c, i, typed[c].IsNull(i), want.IsNull(i))
				}
				if want.IsNull(i) {
					continue
				}
				var got string
				switch a := typed[c].(type) {
				case *array.Int64:
					got = strconv.FormatInt(a.Value(i), 10)
				case *array.Uint64:
					got = strconv.FormatUint(a.Value(i), 10)
				case *array.Boolean:
					got = strconv.FormatBool(a.Value(i))
				case *array.String:
					got = a.Value(i)
				default:
					t.Fatalf("column %d inferred as %T", c, a)
				}
				if got != want.Value(i) {
					t.Fatalf("column %d row %d: %q under Infer, %q as text", c, i, got, want.Value(i))
				}
			}
		}
	})
}

func FuzzJSONL(f *testing.F) {
	for _, s := range []string{
		confJSONL, `{"a":1}`, "{\"a\":1}\n{\"a\":\"x\"}\n", `{"a":"\ud800"}`, `{"a":{"b":[1,{"c":"]"}]}}`, "{\"a\":1,\"a\":2}\n",
		"\n\n", "{\"a\":1e999}\n", "{\"a\":-}\n", "{\"a\":\"\xff\"}", `{"a":18446744073709551616}`, "{}\n{}\n", `{"a":1.5}` + "\n" + `{"a":2}`,
	} {
		f.Add([]byte(s), false)
		f.Add([]byte(s), true)
	}
	f.Fuzz(func(t *testing.T, data []byte, typed bool) {
		skipLarge(t, len(data))
		var opts Options
		if typed {
			opts.Columns = []Column{{"a", "int64"}, {"id", "int64"}, {"name", "text"}, {"amount", "float64"}, {"payload", "bytes(hex)"}}
			opts.MissingAsNull = true
		}
		fuzzRead(t, "f.jsonl", data, opts)
	})
}

// FuzzParseObject checks the flat JSON parser never panics and never
// yields invalid UTF-8 from valid UTF-8 input.
func FuzzParseObject(f *testing.F) {
	f.Add([]byte(`{"a":"\u00e9\ud83d\ude00","b":[1,"]"],"c":-0.5e+3}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		skipLarge(t, len(b))
		valid := utf8.Valid(b)
		parseObject(b, func(k []byte, v *jval) *jsonError {
			if valid && (!utf8.Valid(k) || v.kind == jString && !utf8.Valid(v.raw)) {
				t.Fatalf("invalid UTF-8 from valid input")
			}
			return nil
		})
	})
}

// fuzzSeedFiles returns the conformance data as Parquet, IPC file and IPC
// stream bytes.
func fuzzSeedFiles(f *testing.F) (pq, af, as []byte) {
	dir := f.TempDir()
	rec := confRecord(nil)
	defer rec.Release()
	writeParquet(f, filepath.Join(dir, "s.parquet"), rec, 2)
	writeIPC(f, filepath.Join(dir, "s.arrow"), rec, false, 2)
	writeIPC(f, filepath.Join(dir, "s.arrows"), rec, true, 2)
	read := func(n string) []byte {
		b, err := os.ReadFile(filepath.Join(dir, n))
		if err != nil {
			f.Fatal(err)
		}
		return b
	}
	return read("s.parquet"), read("s.arrow"), read("s.arrows")
}

// FuzzArrowFiles feeds damaged Parquet and IPC bytes to the adapters: they
// must fail with a code (panics of the readers are recovered), never crash.
func FuzzArrowFiles(f *testing.F) {
	pq, af, as := fuzzSeedFiles(f)
	f.Add(pq, uint8(0))
	f.Add(af, uint8(1))
	f.Add(as, uint8(2))
	// Nested and extension-type columns (validateArray walks their children).
	dir := f.TempDir()
	rec := extRecord(nil, arrow.NewSchema(extFieldsOf(arrow.PrimitiveTypes.Int64), nil))
	writeParquet(f, filepath.Join(dir, "e.parquet"), rec, 1)
	writeIPC(f, filepath.Join(dir, "e.arrow"), rec, false, 1)
	writeIPC(f, filepath.Join(dir, "e.arrows"), rec, true, 1)
	rec.Release()
	for i, n := range []string{"e.parquet", "e.arrow", "e.arrows"} {
		b, err := os.ReadFile(filepath.Join(dir, n))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b, uint8(i))
	}
	// Parquet inputs of a kilobyte take about a millisecond a run: bound minimization
	// as FuzzParquetGo does.
	boundMinimization(f, "1000x")
	f.Fuzz(func(t *testing.T, data []byte, kind uint8) {
		skipLarge(t, len(data))
		name := []string{"f.parquet", "f.arrow", "f.arrows"}[kind%3]
		fuzzRead(t, name, data, Options{})
	})
}

func FuzzJSONArray(f *testing.F) {
	for _, s := range []string{
		"[" + strings.ReplaceAll(strings.TrimSpace(confJSONL), "\n", ",\n") + "]", `[{"a":1}]`, "[\n{\"a\":1},\n{\"a\":\"x\"}\n]",
		`[{"a":"\ud800"}]`, `[{"a":{"b":[1,{"c":"]"}]}}]`, `[{"a":1,"a":2}]`, "[]", "", "{}", `[{"a":1},]`, `[,]`, `[1,"x",[2],{"a":3}]`,
		`[{"a":1e999}]`, "[{\"a\":\"\xff\"}]", `[{"a":1.5},{"a":2},{"a":"t"}]`, `[{"a":"]}"}`, "[{\"a\":1}] x", `[{"a":1}}`,
	} {
		f.Add([]byte(s), false)
		f.Add([]byte(s), true)
	}
	f.Fuzz(func(t *testing.T, data []byte, typed bool) {
		skipLarge(t, len(data))
		var opts Options
		if typed {
			opts.Columns = []Column{{"a", "int64"}, {"id", "int64"}, {"name", "text"}, {"amount", "decimal(10,2)"}, {"payload", "bytes(hex)"}}
			opts.MissingAsNull = true
		}
		fuzzRead(t, "f.json", data, opts)
	})
}

// FuzzArrayScanner compares the array scanner with encoding/json: for every document
// encoding/json accepts as a top-level array, the scanner returns exactly the bytes of its
// elements (json.RawMessage keeps them verbatim) and no error. For any input it must not
// panic and must end.
func FuzzArrayScanner(f *testing.F) {
	for _, s := range []string{`[]`, ` [ {"a":1} , "x" , [1,[2]] , -1.5e3 , true , null ] `, `[{"a":"]\"}"}]`,
		"[\n{\"a\":\n1}\n]", `[1 2]`, `[{}}`, `[`, `{"a":1}`, `["\\"]`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		skipLarge(t, len(data))
		a := newArrayScanner(bytes.NewReader(data), 1<<20)
		var got [][]byte
		var err error
		for i := 0; ; i++ {
			if i > len(data)+1 {
				t.Fatalf("more elements than bytes")
			}
			rec, tooLong, ok, e := a.next()
			if e != nil {
				err = e
				break
			}
			if !ok {
				break
			}
			if tooLong {
				t.Fatalf("element beyond 1 MiB in a %d-byte input", len(data))
			}
			got = append(got, bytes.Clone(rec))
		}
		var want []json.RawMessage
		if !json.Valid(data) || json.Unmarshal(data, &want) != nil || bytes.TrimSpace(data)[0] != '[' {
			return
		}
		if err != nil {
			t.Fatalf("valid array %q: %v", data, err)
		}
		if len(got) != len(want) {
			t.Fatalf("%q: %d elements, encoding/json %d", data, len(got), len(want))
		}
		for i := range want {
			if !bytes.Equal(got[i], want[i]) {
				t.Fatalf("%q: element %d is %q, encoding/json %q", data, i, got[i], want[i])
			}
		}
	})
}
