package normalize_test

import (
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"testing"

	"github.com/pipewhy/pipewhy/normalize"
)

// parseExtValue reads the extension 1 typed inputs of normalization_ext1.json (date,
// time, duration, nested, and timestamps with a nonzero "nanosecond") and hands every other
// input to normalize.ParseValueJSON, whose v1 behaviour (an unknown "date" type is
// PW_NORM_UNSUPPORTED, a nonzero nanosecond PW_NORM_PRECISION) stays untouched.
func parseExtValue(t *testing.T, raw json.RawMessage) (normalize.Value, error) {
	t.Helper()
	var head struct {
		Type string `json:"type"`
	}
	if err := json.Unmarshal(raw, &head); err != nil {
		t.Fatal(err)
	}
	strict := func(v any) {
		d := json.NewDecoder(bytesReader(raw))
		d.DisallowUnknownFields()
		if err := d.Decode(v); err != nil {
			t.Fatalf("malformed %s input: %v", head.Type, err)
		}
	}
	switch head.Type {
	case "date":
		var v struct {
			Type             string
			Year, Month, Day int
		}
		strict(&v)
		return normalize.DateValue{Year: v.Year, Month: v.Month, Day: v.Day}, nil
	case "time":
		var v struct {
			Type                             string
			Hour, Minute, Second, Nanosecond int
		}
		strict(&v)
		return normalize.TimeValue{Hour: v.Hour, Minute: v.Minute, Second: v.Second, Nanosecond: v.Nanosecond}, nil
	case "nested":
		var v struct {
			Type      string
			SchemaHex string `json:"schema_hex"`
			ValueHex  string `json:"value_hex"`
		}
		d := json.NewDecoder(bytesReader(raw))
		d.DisallowUnknownFields()
		if err := d.Decode(&v); err != nil {
			t.Fatalf("malformed nested input: %v", err)
		}
		sb, err1 := hex.DecodeString(v.SchemaHex)
		vb, err2 := hex.DecodeString(v.ValueHex)
		if err1 != nil || err2 != nil {
			t.Fatalf("nested hex: %v %v", err1, err2)
		}
		return normalize.NestedValue{Type: sb, Value: vb}, nil
	case "timestamp":
		// ParseValueJSON keeps v1's rule (a nonzero "nanosecond" is PW_NORM_PRECISION),
		// so the member is read here and set on the parsed value.
		var m map[string]json.RawMessage
		if err := json.Unmarshal(raw, &m); err != nil {
			t.Fatal(err)
		}
		ns := 0
		if r, ok := m["nanosecond"]; ok {
			if err := json.Unmarshal(r, &ns); err != nil {
				t.Fatal(err)
			}
			delete(m, "nanosecond")
		}
		rest, err := json.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		v, err := normalize.ParseValueJSON(rest)
		if err != nil {
			return nil, err
		}
		ts := v.(normalize.TimestampValue)
		ts.Nanosecond = ns
		return ts, nil
	case "duration":
		var v struct {
			Type, Value, Unit string
		}
		strict(&v)
		n, err := strconv.ParseInt(v.Value, 10, 64)
		if err != nil {
			t.Fatalf("duration value %q: %v", v.Value, err)
		}
		unit := map[string]normalize.TimeUnit{"s": normalize.UnitSecond, "ms": normalize.UnitMillisecond, "us": normalize.UnitMicrosecond, "ns": normalize.UnitNanosecond}
		u, ok := unit[v.Unit]
		if !ok {
			u = 99 // the encoder must reject it
		}
		return normalize.DurationValue{Value: n, Unit: u}, nil
	}
	return normalize.ParseValueJSON(raw)
}

// TestFixtureExt1 runs tests/fixtures/normalization_ext1.json (hand-derived words).
func TestFixtureExt1(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "tests", "fixtures", "normalization_ext1.json"))
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Format    string          `json:"format"`
		Version   int             `json:"version"`
		Extension string          `json:"extension"`
		Vectors   []fixtureVector `json:"vectors"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	if doc.Format != "pipewhy.normalization.fixture" || doc.Version != 1 || doc.Extension != "pipewhy.c2-ext1" {
		t.Fatalf("fixture format %q version %d extension %q", doc.Format, doc.Version, doc.Extension)
	}
	seenTypes := map[normalize.TypeCode]bool{}
	for _, v := range doc.Vectors {
		t.Run(v.ID, func(t *testing.T) {
			p, err := normalize.ParseProfile(v.Profile)
			if err != nil {
				t.Fatal(err)
			}
			var tc normalize.TypeCode
			var got []uint64
			if v.Fields != nil {
				var raws []struct {
					FieldID string          `json:"field_id"`
					Value   json.RawMessage `json:"value"`
				}
				if err := json.Unmarshal(v.Fields, &raws); err != nil {
					t.Fatal(err)
				}
				var fields []normalize.Field
				for _, r := range raws {
					id, err := normalize.ParseFieldID(r.FieldID)
					if err != nil {
						t.Fatal(err)
					}
					val, err := parseExtValue(t, r.Value)
					if err != nil {
						t.Fatal(err)
					}
					fields = append(fields, normalize.Field{ID: id, Value: val})
				}
				got, err = normalize.EncodeRecord(fields, p)
			} else {
				var val normalize.Value
				val, err = parseExtValue(t, v.Input)
				if err == nil {
					tc, got, err = normalize.EncodeValue(val, p)
				}
			}
			if v.Error != "" {
				if c := normalize.CodeOf(err); string(c) != v.Error {
					t.Fatalf("want error %s, got %v (words %v)", v.Error, err, got)
				}
				return
			}
			if err != nil {
				t.Fatalf("unexpected error: %v", err)
			}
			if want := parseWords(t, v.ID, v.Words); !slices.Equal(got, want) {
				t.Fatalf("words\n got %v\nwant %v", got, want)
			}
			rec := got
			if v.Fields == nil {
				if v.TypeCode == nil || int(tc) != *v.TypeCode {
					t.Fatalf("type code %d, want %v", tc, v.TypeCode)
				}
				seenTypes[tc] = true
				rec = append([]uint64{1, 2, 1, 0, uint64(tc), uint64(len(got))}, got...)
			}
			if err := normalize.ValidateRecordWordsIn(rec, p); err != nil {
				t.Fatalf("does not validate under %s: %v", p, err)
			}
			if !p.Extended() {
				t.Fatalf("v1 profile vector without an error")
			}
		})
	}
	for c := normalize.Date; c <= normalize.Nested; c++ {
		if !seenTypes[c] {
			t.Errorf("fixture has no vector for type %s", c)
		}
	}
}
