package normalize_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"testing"

	"github.com/pipewhy/pipewhy/normalize"
)

// FixtureVector is one vector of tests/fixtures/normalization_v1.json. Input and Fields
// stay raw so the typed-JSON parser sees exactly the bytes of the file.
type fixtureVector struct {
	ID       string          `json:"id"`
	Profile  string          `json:"profile"`
	Input    json.RawMessage `json:"input"`
	Fields   json.RawMessage `json:"fields"`
	TypeCode *int            `json:"type_code"`
	Words    []string        `json:"words"`
	Error    string          `json:"error"`
}

func loadFixture(t testing.TB) []fixtureVector {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "tests", "fixtures", "normalization_v1.json"))
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Format  string          `json:"format"`
		Version int             `json:"version"`
		Vectors []fixtureVector `json:"vectors"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	if doc.Format != "pipewhy.normalization.fixture" || doc.Version != 1 {
		t.Fatalf("fixture format %q version %d", doc.Format, doc.Version)
	}
	return doc.Vectors
}

func parseWords(t testing.TB, id string, ss []string) []uint64 {
	t.Helper()
	w := make([]uint64, len(ss))
	for i, s := range ss {
		v, err := strconv.ParseUint(s, 10, 64)
		if err != nil {
			t.Fatalf("%s: word %d %q: %v", id, i, s, err)
		}
		w[i] = v
	}
	return w
}

// TestFixture runs every vector through the typed-JSON parser and the encoders, and
// checks that the fixture covers every type code, every error code and both profiles.
func TestFixture(t *testing.T) {
	vectors := loadFixture(t)
	if len(vectors) < 80 {
		t.Fatalf("only %d vectors", len(vectors))
	}
	seenCodes := map[string]bool{}
	seenTypes := map[normalize.TypeCode]bool{}
	seenProfiles := map[string]bool{}
	for _, v := range vectors {
		t.Run(v.ID, func(t *testing.T) {
			p, err := normalize.ParseProfile(v.Profile)
			if err != nil {
				t.Fatal(err)
			}
			seenProfiles[v.Profile] = true
			var tc normalize.TypeCode
			var got []uint64
			isRecord := v.Fields != nil
			if isRecord {
				var fields []normalize.Field
				fields, err = normalize.ParseFieldsJSON(v.Fields)
				if err == nil {
					got, err = normalize.EncodeRecord(fields, p)
				}
			} else {
				var val normalize.Value
				val, err = normalize.ParseValueJSON(v.Input)
				if err == nil {
					tc, got, err = normalize.EncodeValue(val, p)
				}
			}
			if v.Error != "" {
				seenCodes[v.Error] = true
				if err == nil {
					t.Fatalf("want error %s, got words %v", v.Error, got)
				}
				if c := normalize.CodeOf(err); string(c) != v.Error {
					t.Fatalf("want error %s, got %s (%v)", v.Error, c, err)
				}
				return
			}
			if err != nil {
				t.Fatalf("unexpected error: %v", err)
			}
			want := parseWords(t, v.ID, v.Words)
			if !slices.Equal(got, want) {
				t.Fatalf("words\n got %v\nwant %v", got, want)
			}
			if isRecord {
				if err := normalize.ValidateRecordWords(got); err != nil {
					t.Fatalf("encoded record does not validate: %v", err)
				}
				for i := 3; i < len(got); {
					seenTypes[normalize.TypeCode(got[i+1])] = true
					i += 3 + int(got[i+2])
				}
				return
			}
			if v.TypeCode == nil || int(tc) != *v.TypeCode {
				t.Fatalf("type code %d, want %v", tc, v.TypeCode)
			}
			seenTypes[tc] = true
			// Wrapped as a one-field record, the same payload must frame and validate.
			rec := append([]uint64{1, 2, 1, 0, uint64(tc), uint64(len(got))}, got...)
			if err := normalize.ValidateRecordWords(rec); err != nil {
				t.Fatalf("payload does not frame: %v", err)
			}
		})
	}
	for _, c := range []normalize.Code{normalize.CodeIntRange, normalize.CodeUTF8, normalize.CodeDecimal,
		normalize.CodeTimezone, normalize.CodeOverflow, normalize.CodePrecision, normalize.CodeUnsupported,
		normalize.CodeFieldID, normalize.CodeInput} {
		if !seenCodes[string(c)] {
			t.Errorf("fixture has no vector for %s", c)
		}
	}
	for c := normalize.Missing; c <= normalize.Timestamp; c++ {
		if !seenTypes[c] {
			t.Errorf("fixture has no vector for type %s", c)
		}
	}
	if !seenProfiles["strict-v1"] || !seenProfiles["logical-v1"] {
		t.Errorf("fixture lacks a profile: %v", seenProfiles)
	}
}
