package normalize

import (
	"encoding/binary"
	"encoding/json"
	"math"
	"math/big"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// knownCode reports whether c is one of this package's published codes.
func knownCode(c Code) bool {
	switch c {
	case CodeIntRange, CodeUTF8, CodeDecimal, CodeTimezone, CodeOverflow, CodePrecision,
		CodeUnsupported, CodeFieldID, CodeInput, CodeBatchShape, CodeBatchBounds,
		CodeBatchHeader, CodeBatchFieldID, CodeBatchTag, CodeBatchFrame, CodeBatchPayload, CodeBatchProfile:
		return true
	}
	return false
}

// fixtureSeeds returns the raw inputs and fields of the C2 fixture.
func fixtureSeeds(f *testing.F) (inputs, fields [][]byte) {
	data, err := os.ReadFile(filepath.Join("..", "tests", "fixtures", "normalization_v1.json"))
	if err != nil {
		f.Fatal(err)
	}
	var doc struct {
		Vectors []struct {
			Input  json.RawMessage `json:"input"`
			Fields json.RawMessage `json:"fields"`
		} `json:"vectors"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		f.Fatal(err)
	}
	for _, v := range doc.Vectors {
		if v.Input != nil {
			inputs = append(inputs, v.Input)
		}
		if v.Fields != nil {
			fields = append(fields, v.Fields)
		}
	}
	return inputs, fields
}

// checkEncoded asserts an encoding either failed with a published code or framed validly.
func checkEncoded(t *testing.T, tc TypeCode, words []uint64, err error) {
	t.Helper()
	if err != nil {
		if !knownCode(CodeOf(err)) {
			t.Fatalf("error without a published code: %v", err)
		}
		return
	}
	rec := append([]uint64{1, 2, 1, 0, uint64(tc), uint64(len(words))}, words...)
	if verr := ValidateRecordWords(rec); verr != nil {
		t.Fatalf("encoded %s payload does not frame: %v", tc, verr)
	}
}

func FuzzParseValueJSON(f *testing.F) {
	inputs, _ := fixtureSeeds(f)
	for _, in := range inputs {
		f.Add(in)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > 1<<16 { // bounds each run, and so each minimization
			t.Skip("input over 64 KiB")
		}
		v, err := ParseValueJSON(data)
		if err != nil {
			if !knownCode(CodeOf(err)) {
				t.Fatalf("error without a published code: %v", err)
			}
			return
		}
		for _, p := range []Profile{StrictV1, LogicalV1} {
			tc, w, err := EncodeValue(v, p)
			checkEncoded(t, tc, w, err)
		}
	})
}

func FuzzParseFieldsJSON(f *testing.F) {
	_, fields := fixtureSeeds(f)
	for _, in := range fields {
		f.Add(in)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > 1<<16 { // bounds each run, and so each minimization
			t.Skip("input over 64 KiB")
		}
		fs, err := ParseFieldsJSON(data)
		if err != nil {
			if !knownCode(CodeOf(err)) {
				t.Fatalf("error without a published code: %v", err)
			}
			return
		}
		for _, p := range []Profile{StrictV1, LogicalV1} {
			w, err := EncodeRecord(fs, p)
			if err != nil {
				if !knownCode(CodeOf(err)) {
					t.Fatalf("error without a published code: %v", err)
				}
				continue
			}
			if verr := ValidateRecordWords(w); verr != nil {
				t.Fatalf("encoded record does not validate: %v", verr)
			}
		}
	})
}

func FuzzParseDecimal(f *testing.F) {
	for _, s := range []string{"0", "-0E+3", "-1.2300E+5", "NaN007", "sNaN", "-Infinity", ".5", "5.",
		"1E+18446744073709551615", "1E+18446744073709551616", "10E-18446744073709551616", "1_0", "١"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if len(s) > 1<<16 { // bounds each run, and so each minimization
			t.Skip("input over 64 KiB")
		}
		d, err := ParseDecimal(s)
		if err != nil {
			if CodeOf(err) != CodeDecimal {
				t.Fatalf("%q: %v", s, err)
			}
			return
		}
		if d.Form == DecimalFinite {
			// Exponents of at most 18 digits are computed in an int64, longer ones with
			// math/big: 19 more leading zeros in the exponent take the math/big path and
			// must give the same value.
			long := s + "e0000000000000000000" // exponent 0, written with 19 digits
			if i := strings.LastIndexAny(s, "eE"); i >= 0 {
				j := i + 1
				if s[j] == '+' || s[j] == '-' {
					j++
				}
				long = s[:j] + "0000000000000000000" + s[j:]
			}
			dl, err := ParseDecimal(long)
			if err != nil {
				t.Fatalf("%q: %v", long, err)
			}
			if (dl.ExponentBig == nil) != (d.ExponentBig == nil) || (d.ExponentBig != nil && d.ExponentBig.Cmp(dl.ExponentBig) != 0) {
				t.Fatalf("%q and %q: exponents %v and %v", s, long, d.ExponentBig, dl.ExponentBig)
			}
			d.ExponentBig, dl.ExponentBig = nil, nil
			if d != dl {
				t.Fatalf("%q: %+v, %q: %+v", s, d, long, dl)
			}
		}
		for _, p := range []Profile{StrictV1, LogicalV1} {
			tc, w, err := EncodeValue(d, p)
			checkEncoded(t, tc, w, err)
			if err != nil {
				if CodeOf(err) != CodeDecimal {
					t.Fatalf("%q: %v", s, err)
				}
				continue
			}
			// The coefficient words must be the digits read independently with math/big.
			if p == StrictV1 && w[1] == uint64(DecimalFinite) {
				want, _ := new(big.Int).SetString(strings.TrimLeft(d.Digits, "0")+"0", 10)
				want.Div(want, big.NewInt(10))
				got := new(big.Int)
				for i := len(w) - 1; i >= 6; i-- {
					got.Lsh(got, 64).Or(got, new(big.Int).SetUint64(w[i]))
				}
				if got.Cmp(want) != 0 {
					t.Fatalf("%q: coefficient %v, want %v", s, got, want)
				}
			}
		}
	})
}

// fuzzWords maps bytes to words biased toward the values record frames use: a byte b
// below 0xF0 is the word b; 0xF0..0xFF introduce large words.
func fuzzWords(data []byte) []uint64 {
	var w []uint64
	for len(data) > 0 {
		b := data[0]
		data = data[1:]
		switch {
		case b < 0xF0:
			w = append(w, uint64(b))
		case b == 0xFF:
			w = append(w, math.MaxUint64)
		case len(data) >= 8:
			w = append(w, binary.LittleEndian.Uint64(data))
			data = data[8:]
		default:
			w = append(w, uint64(b)<<56)
		}
	}
	return w
}

func FuzzValidateRecordWords(f *testing.F) {
	f.Add([]byte{1, 2, 0})
	f.Add([]byte{1, 2, 2, 1, 4, 1, 42, 3, 6, 2, 1, 97})
	f.Add([]byte{1, 2, 1, 0, 8, 7, 0, 0, 0, 0, 1, 1, 0})
	f.Add([]byte{1, 2, 1, 0, 9, 12, 1, 1, 1, 0, 0, 0, 0, 0, 1, 0, 3, 9})
	f.Add([]byte{1, 2, 0xFF, 0, 6, 0xFF})
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > 1<<16 { // bounds each run, and so each minimization
			t.Skip("input over 64 KiB")
		}
		w := fuzzWords(data)
		err := ValidateRecordWords(w)
		if err == nil {
			return
		}
		var e *Error
		if !asError(err, &e) || !knownCode(e.Code) || e.Word < 0 || e.Word >= max(len(w), 1) {
			t.Fatalf("%v: bad error %v", w, err)
		}
	})
}

func FuzzBatchValidate(f *testing.F) {
	f.Add([]byte{2, 1, 0, 3, 0, 1, 2, 0, 7})
	f.Add([]byte{0})
	f.Add([]byte{3, 1, 3, 1, 2, 0, 0, 3, 0, 3, 0xFF, 0})
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > 1<<16 { // bounds each run, and so each minimization
			t.Skip("input over 64 KiB")
		}
		if len(data) == 0 {
			return
		}
		// First byte: record count n; then n offsets and n lengths; the rest is the pool.
		n := int(data[0] % 8)
		w := fuzzWords(data[1:])
		b := &RecordBatch{}
		for i := 0; i < n && len(w) >= 2; i++ {
			b.Offsets = append(b.Offsets, w[0])
			b.Lengths = append(b.Lengths, w[1])
			w = w[2:]
		}
		b.Words = w
		if len(data)%5 == 0 && len(b.Lengths) > 0 {
			b.Lengths = b.Lengths[1:] // exercise the count check
		}
		err := b.Validate()
		if err != nil {
			var e *Error
			if !asError(err, &e) || !knownCode(e.Code) {
				t.Fatalf("bad error %v", err)
			}
			return
		}
		for i := 0; i < b.Len(); i++ {
			if verr := ValidateRecordWords(b.Record(i)); verr != nil {
				t.Fatalf("record %d passed the batch but not alone: %v", i, verr)
			}
		}
	})
}

func asError(err error, target **Error) bool {
	e, ok := err.(*Error)
	if ok {
		*target = e
	}
	return ok
}
