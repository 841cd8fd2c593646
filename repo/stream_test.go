package repo_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/pipewhy/pipewhy/arrays"
	"github.com/pipewhy/pipewhy/fingerprint"
	"github.com/pipewhy/pipewhy/repo"
	"github.com/pipewhy/pipewhy/scan"
	"github.com/pipewhy/pipewhy/snapshot"
)

// streamed publishes snap in a new store and reads it back through Entries (keys and
// values), returning copies of the entries read and the error that ended the stream.
func streamed(t *testing.T, snap *snapshot.Snapshot) ([]repo.Entry, error) {
	t.Helper()
	st, err := snapshot.Open(t.TempDir(), snapshot.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := st.Publish(context.Background(), snap.Metadata, snap.Arrays); err != nil {
		t.Fatal(err)
	}
	r := repo.OnStore(st, repo.DefaultAlgorithm)
	sc, err := r.LoadParts(snap.Metadata.ID, 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	er, err := r.Entries(sc, repo.PartKeys|repo.PartValues, nil)
	if err != nil {
		return nil, err
	}
	defer er.Close()
	var out []repo.Entry
	for {
		e, ok, err := er.Next()
		if err != nil || !ok {
			return out, err
		}
		var c repo.Entry
		c.CopyFrom(e)
		out = append(out, c)
	}
}

// TestEntriesAgreeWithDecode: the entry stream of a scan gives, entry by entry, what
// Decode gives for the whole arrays (records, key records, value entries with their
// types and payloads), and it rejects with CodeFormat each corruption Decode rejects,
// and the count mismatches it checks before the first entry.
func TestEntriesAgreeWithDecode(t *testing.T) {
	snap := scanCSV(t, "k,v,w\n1,a,x\n2,,y\n3,c,zz\n4,d,\n")
	s, err := repo.Decode(snap)
	if err != nil {
		t.Fatal(err)
	}
	got, err := streamed(t, snap)
	if err != nil {
		t.Fatalf("good snapshot: %v", err)
	}
	n := len(s.Records) / fingerprint.RecordStride
	if len(got) != n || n != 4 {
		t.Fatalf("%d entries streamed, %d records decoded, want 4", len(got), n)
	}
	for i, e := range got {
		if !slices.Equal(e.Record[:], s.Records[i*fingerprint.RecordStride:(i+1)*fingerprint.RecordStride]) {
			t.Errorf("entry %d: record %x, want %x", i, e.Record, s.Records[i*4:i*4+4])
		}
		if !slices.Equal(e.Key, s.KeyWords[s.KeyOffsets[i]:s.KeyOffsets[i+1]]) {
			t.Errorf("entry %d: key %x", i, e.Key)
		}
		lo, hi := s.ValueOffsets[i], s.ValueOffsets[i+1]
		if !slices.Equal(e.Values, s.Values[3*lo:3*hi]) || len(e.Types) != int(hi-lo) || len(e.Payloads) != int(hi-lo) {
			t.Fatalf("entry %d: values %x, want %x", i, e.Values, s.Values[3*lo:3*hi])
		}
		for j := range hi - lo {
			row := int(lo + j)
			words, _, err := s.ValueTable.Payload(row)
			if err != nil {
				t.Fatal(err)
			}
			if e.Types[j] != s.ValueTable.TypeID[row] || !slices.Equal(e.Payloads[j], words) {
				t.Errorf("entry %d value %d: type %d payload %x, want %d %x", i, j, e.Types[j], e.Payloads[j], s.ValueTable.TypeID[row], words)
			}
		}
	}

	recs := u64s(t, snap, repo.KeyRecords)
	ko := u64s(t, snap, repo.KeyKeyOffsets)
	vo := u64s(t, snap, repo.KeyValueOffsets)
	vals := u64s(t, snap, repo.KeyValues)
	col := func(name string) string { return string(arrays.TableValue) + "_" + name }
	fields := u64s(t, snap, col("field_id"))
	offs := u64s(t, snap, col("payload_offset"))
	lens := u64s(t, snap, col("payload_length"))
	set := func(a []uint64, i int, v uint64) []uint64 { a = slices.Clone(a); a[i] = v; return a }
	last := len(recs) / 4
	cases := []struct {
		name, key string
		words     []uint64
		decodeOK  bool   // a layout Decode accepts (payload slices may be anywhere) but a stream cannot follow
		msg       string // the stream's rule that breaks, when it is met reading the entries
	}{
		{"records 2 and 3 swapped", repo.KeyRecords, slices.Concat(recs[:8], recs[12:16], recs[8:12]), false, "records are not sorted"},
		{"records 0 and 1 swapped", repo.KeyRecords, slices.Concat(recs[4:8], recs[:4], recs[8:]), false, "records are not sorted"},
		{"a record too few", repo.KeyRecords, recs[:len(recs)-4], false, ""},
		{"a key offset too few", repo.KeyKeyOffsets, ko[:len(ko)-1], false, ""},
		{"a key offset too many", repo.KeyKeyOffsets, append(slices.Clone(ko), ko[len(ko)-1]), false, ""},
		{"first key offset not 0", repo.KeyKeyOffsets, set(ko, 0, 1), false, ""},
		{"key offsets decreasing", repo.KeyKeyOffsets, set(ko, 2, ko[1]-1), false, "key offsets do not tile the key words"},
		{"key offset past the key words", repo.KeyKeyOffsets, set(ko, last, ko[last]+1), false, "key offsets do not tile the key words"},
		{"key words one short", repo.KeyKeyWords, u64s(t, snap, repo.KeyKeyWords)[:ko[last]-1], false, ""},
		{"key words one long", repo.KeyKeyWords, append(u64s(t, snap, repo.KeyKeyWords), 0), false, "an array is longer than its records"},
		{"a value offset too few", repo.KeyValueOffsets, vo[:len(vo)-1], false, ""},
		{"first value offset not 0", repo.KeyValueOffsets, set(vo, 0, 1), false, ""},
		{"value offsets decreasing", repo.KeyValueOffsets, set(vo, 2, vo[1]-1), false, "value offsets do not tile the values"},
		{"value offset past the values", repo.KeyValueOffsets, set(vo, last, vo[last]+1), false, "value offsets do not tile the values"},
		{"a value entry too few", repo.KeyValues, vals[:len(vals)-3], false, ""},
		{"repeated field in record 1", repo.KeyValues, set(vals, int(vo[1]+1)*3, vals[vo[1]*3]), false, "value fields not ascending"},
		{"repeated field in record 0", repo.KeyValues, set(vals, 3, vals[0]), false, "value fields not ascending"},
		{"third field of record 1 repeats its second", repo.KeyValues, set(vals, int(vo[1]+2)*3, vals[(vo[1]+1)*3]), false, "value fields not ascending"},
		{"last payload one word long", col("payload_length"), set(lens, len(lens)-1, lens[len(lens)-1]+1), false, "value payloads are not laid out in entry order (load the snapshot whole)"},
		{"value table field differs", col("field_id"), set(fields, 1, fields[1]+100), false, "value table row does not match its value digest entry"},
		{"payload out of entry order", col("payload_offset"), set(offs, 1, offs[1]+1), true, "value payloads are not laid out in entry order (load the snapshot whole)"},
	}
	for _, c := range cases {
		bad := withArray(snap, c.key, c.words)
		if _, err := repo.Decode(bad); (repo.CodeOf(err) == repo.CodeFormat) == c.decodeOK {
			t.Errorf("%s: Decode gives %v", c.name, err)
			continue
		}
		_, err := streamed(t, bad)
		var e *repo.Error
		if repo.CodeOf(err) != repo.CodeFormat || !errors.As(err, &e) {
			t.Errorf("%s: the entry stream ends with %v, want %s", c.name, err, repo.CodeFormat)
		} else if c.msg != "" && !strings.HasPrefix(e.Msg, c.msg+" (entry stream of ") {
			t.Errorf("%s: the entry stream ends with %q, want the rule %q", c.name, e.Msg, c.msg)
		}
	}
}

// TestEntriesEdgeShapes: shapes a scan writes that the stream must follow: a keyless
// scan of a table with duplicate rows (equal neighbouring records, in order: sorted
// means non-decreasing) and a table of its key column alone.
func TestEntriesEdgeShapes(t *testing.T) {
	for _, c := range []struct {
		name, csv string
		key       []string
		values    int // value entries a record
	}{
		{"keyless duplicates", "a,b\n1,x\n1,x\n2,y\n1,x\n", nil, 2},
		{"key only", "k\n1\n2\n3\n", []string{"k"}, 1},
	} {
		r, err := repo.Init(t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(t.TempDir(), "t.csv")
		if err := os.WriteFile(p, []byte(c.csv), 0o644); err != nil {
			t.Fatal(err)
		}
		res, err := scan.Run(context.Background(), r, scan.Options{Address: p, Resolution: snapshot.ResolutionValue, Key: c.key})
		if err != nil {
			t.Fatal(err)
		}
		snap, err := r.Store().Open(res.ID)
		if err != nil {
			t.Fatal(err)
		}
		s, err := repo.Decode(snap)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		got, err := streamed(t, snap)
		rows := strings.Count(c.csv, "\n") - 1
		if err != nil || len(got) != rows {
			t.Fatalf("%s: %d entries, %v; want %d", c.name, len(got), err, rows)
		}
		for i, e := range got {
			if len(e.Values) != 3*c.values || !slices.Equal(e.Key, s.KeyWords[s.KeyOffsets[i]:s.KeyOffsets[i+1]]) {
				t.Errorf("%s: entry %d: %d value words, key %x", c.name, i, len(e.Values), e.Key)
			}
		}
	}
}
