package snapshot

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"testing"
)

// uint8Columns are the C1 schema 1.0 columns of type uint8 (PW-02.05..09); every other
// column and auxiliary array of the five tables is uint64.
var uint8Columns = map[string]bool{"kind_id": true, "type_id": true, "status_id": true, "relation_id": true, "reason_id": true}

// TestC1FiveTablesRoundTrip stores every column of the shared C1 five-table fixture as
// a named array and reads it back byte-identical to little-endian bytes built here
// independently of the Array constructors.
func TestC1FiveTablesRoundTrip(t *testing.T) {
	path := filepath.Join("..", "tests", "fixtures", "c1_five_tables.json")
	data, err := os.ReadFile(path)
	if err != nil { // the fixture is part of the repository: its absence is a failure
		t.Fatal(err)
	}
	var fx struct {
		SchemaVersion string                                `json:"schema_version"`
		Tables        map[string]map[string]json.RawMessage `json:"tables"`
	}
	if err := json.Unmarshal(data, &fx); err != nil {
		t.Fatal(err)
	}
	if fx.SchemaVersion != ArraySchemaVersion || len(fx.Tables) != 5 {
		t.Fatalf("fixture schema %q with %d tables", fx.SchemaVersion, len(fx.Tables))
	}
	arrays := map[string]Array{}
	want := map[string][]byte{}
	for table, cols := range fx.Tables {
		for col, raw := range cols {
			if col == "_comment" {
				continue
			}
			var vals []string
			if err := json.Unmarshal(raw, &vals); err != nil {
				t.Fatalf("%s.%s: %v", table, col, err)
			}
			key := table + "_" + col
			var b []byte
			if uint8Columns[col] {
				v := make([]uint8, len(vals))
				for i, s := range vals {
					n, err := strconv.ParseUint(s, 10, 8)
					if err != nil {
						t.Fatalf("%s[%d]: %v", key, i, err)
					}
					v[i] = uint8(n)
					b = append(b, uint8(n))
				}
				arrays[key] = FromUint8(v)
			} else {
				v := make([]uint64, len(vals))
				for i, s := range vals {
					n, err := strconv.ParseUint(s, 10, 64)
					if err != nil {
						t.Fatalf("%s[%d]: %v", key, i, err)
					}
					v[i] = n
					b = binary.LittleEndian.AppendUint64(b, n)
				}
				arrays[key] = FromUint64(v)
			}
			want[key] = b
		}
	}
	if len(arrays) < 30 {
		t.Fatalf("only %d columns read from the fixture", len(arrays))
	}
	s := newStore(t, Options{})
	md := fixtureMetadata(t)
	if err := s.Publish(context.Background(), md, arrays); err != nil {
		t.Fatal(err)
	}
	snap, err := s.Open(md.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(snap.Arrays) != len(want) {
		t.Fatalf("%d arrays back, want %d", len(snap.Arrays), len(want))
	}
	for key, b := range want {
		got := snap.Arrays[key]
		if string(got.Bytes()) != string(b) {
			t.Errorf("%s: bytes differ", key)
		}
		onDisk, err := os.ReadFile(filepath.Join(s.Path(md.ID), "array-"+key+".bin"))
		if err != nil || string(onDisk) != string(b) {
			t.Errorf("%s: stored file differs (%v)", key, err)
		}
	}
}
