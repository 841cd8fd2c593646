package snapshot

import (
	"strings"
	"testing"
)

// FuzzDecodeManifest: the decoder never panics, and whatever it accepts is canonical
// (re-encodes to the same bytes) and holds valid metadata and entries.
func FuzzDecodeManifest(f *testing.F) {
	f.Add([]byte(fixtureManifest))
	f.Add([]byte(strings.Replace(fixtureManifest, `"parent_id":null`, `"parent_id":"ffffffffffffffffffffffffffffffff"`, 1)))
	f.Add([]byte(strings.Replace(fixtureManifest, `"version":1}`, `"version":1.0}`, 1)))
	f.Add([]byte(strings.Replace(fixtureManifest, `"format":`, `"format":"x","format":`, 1)))
	f.Add([]byte(`{"arrays":{},"array_schema_version":"1.0"}`))
	f.Add([]byte(`[[[[[[[[[[[[]]]]]]]]]]]]`))
	f.Add([]byte("\"\\ud800\""))
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > 1<<16 { // bounds each run, and so each minimization
			t.Skip("input over 64 KiB")
		}
		m, err := decodeManifest(data)
		if err != nil {
			if m != nil {
				t.Fatal("manifest returned with an error")
			}
			return
		}
		if string(m.encode()) != string(data) {
			t.Fatal("accepted a non-canonical manifest")
		}
		if err := m.Meta.Validate(); err != nil {
			t.Fatalf("accepted invalid metadata: %v", err)
		}
		for k, e := range m.Entries {
			if !ValidKey(k) || e.File != arrayFile(k) || e.Count*uint64(e.DType.Width()) != e.ByteLength {
				t.Fatalf("accepted a bad entry %q %+v", k, e)
			}
		}
	})
}

func FuzzDecodeIntent(f *testing.F) {
	f.Add(encodeIntent(NewID()))
	f.Add([]byte(`{"format":"pipewhy.snapshot.intent","snapshot_id":"x","version":1}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > 1<<16 { // bounds each run, and so each minimization
			t.Skip("input over 64 KiB")
		}
		id, err := decodeIntent(data)
		if err == nil && string(encodeIntent(id)) != string(data) {
			t.Fatal("accepted a non-canonical intent")
		}
	})
}

func FuzzParseID(f *testing.F) {
	f.Add(fixtureID)
	f.Add("0123456789ABCDEF0123456789abcdef")
	f.Fuzz(func(t *testing.T, s string) {
		if len(s) > 1<<16 { // bounds each run, and so each minimization
			t.Skip("input over 64 KiB")
		}
		id, err := ParseID(s)
		if err == nil && id.String() != s {
			t.Fatalf("ParseID(%q) round trips to %q", s, id)
		}
	})
}
