package arrays

import (
	"encoding/json"
	"errors"
	"os"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
)

const fixturePath = "../tests/fixtures/c1_five_tables.json"

type fixtureExpect struct {
	Code   Code   `json:"code"`
	Table  string `json:"table"`
	Column string `json:"column"`
	Row    int    `json:"row"`
}

type fixtureColumn struct {
	DType  string   `json:"dtype"`
	Values []string `json:"values"`
}

type fixture struct {
	SchemaVersion string                         `json:"schema_version"`
	Contexts      map[string][]string            `json:"contexts"`
	Tables        map[string]map[string]jsonRaws `json:"tables"`
	Invalid       []struct {
		Name         string              `json:"name"`
		Rule         string              `json:"rule"`
		Set          map[string][]string `json:"set"`
		DropContexts []string            `json:"drop_contexts"`
		Expect       fixtureExpect       `json:"expect"`
	} `json:"invalid"`
	Frames []struct {
		Name    string                   `json:"name"`
		Rule    string                   `json:"rule"`
		Table   string                   `json:"table"`
		Version string                   `json:"version"`
		Drop    []string                 `json:"drop"`
		Add     map[string]fixtureColumn `json:"add"`
		Expect  fixtureExpect            `json:"expect"`
	} `json:"frames"`
}

// jsonRaws holds a column's decimal strings; "_comment" entries are strings.
type jsonRaws []string

func (r *jsonRaws) UnmarshalJSON(b []byte) error {
	if len(b) > 0 && b[0] == '"' {
		*r = nil // a comment
		return nil
	}
	return json.Unmarshal(b, (*[]string)(r))
}

func loadFixture(t testing.TB) *fixture {
	t.Helper()
	b, err := os.ReadFile(fixturePath)
	if err != nil {
		t.Fatal(err)
	}
	var f fixture
	if err := json.Unmarshal(b, &f); err != nil {
		t.Fatal(err)
	}
	return &f
}

func parseU64s(t testing.TB, vals []string, bits int) []uint64 {
	t.Helper()
	out := make([]uint64, len(vals))
	for i, s := range vals {
		v, err := strconv.ParseUint(s, 10, bits)
		if err != nil {
			t.Fatalf("value %q: %v", s, err)
		}
		out[i] = v
	}
	return out
}

// fill sets a table column from decimal strings, by schema column name.
func fill(t testing.TB, tab Table, column string, vals []string) {
	t.Helper()
	for _, c := range tab.columns() {
		if c.name != column {
			continue
		}
		if c.u8 != nil {
			w := parseU64s(t, vals, 8)
			b := make([]uint8, len(w))
			for i, v := range w {
				b[i] = uint8(v)
			}
			*c.u8 = b
		} else {
			*c.u64 = parseU64s(t, vals, 64)
		}
		return
	}
	t.Fatalf("table %s has no column %q", tab.Kind(), column)
}

func (f *fixture) tables(t testing.TB) map[TableKind]Table {
	t.Helper()
	out := make(map[TableKind]Table)
	for _, kind := range TableKinds {
		cols, ok := f.Tables[string(kind)]
		if !ok {
			t.Fatalf("fixture lacks table %s", kind)
		}
		tab, _ := NewTable(kind)
		for name, vals := range cols {
			if name == "_comment" {
				continue
			}
			fill(t, tab, name, vals)
		}
		// Every schema column must be present in the fixture.
		for _, c := range tab.columns() {
			if _, ok := cols[c.name]; !ok {
				t.Fatalf("fixture table %s lacks column %s", kind, c.name)
			}
		}
		out[kind] = tab
	}
	return out
}

func (f *fixture) context(t testing.TB, drop []string) *Context {
	t.Helper()
	ctx := &Context{}
	fields := map[string]*IDSet{
		"names": &ctx.Names, "kinds": &ctx.Kinds, "fields": &ctx.Fields, "types": &ctx.Types,
		"snapshots": &ctx.Snapshots, "policies": &ctx.Policies, "algorithms": &ctx.Algorithms,
		"evidence": &ctx.Evidence, "transforms": &ctx.Transforms, "grouping_policies": &ctx.GroupingPolicies,
	}
	for name, p := range fields {
		vals, ok := f.Contexts[name]
		if !ok {
			t.Fatalf("fixture lacks context %s", name)
		}
		if slices.Contains(drop, name) {
			continue
		}
		set, err := NewIDSet(parseU64s(t, vals, 64)...)
		if err != nil {
			t.Fatal(err)
		}
		*p = set
	}
	for _, d := range drop {
		if _, ok := fields[d]; !ok {
			t.Fatalf("unknown context %q", d)
		}
	}
	return ctx
}

func asTables(m map[TableKind]Table) *Tables {
	return &Tables{
		Artifacts:    m[TableArtifact].(*ArtifactTable),
		Values:       m[TableValue].(*ValueTable),
		Observations: m[TableObservation].(*ObservationTable),
		Edges:        m[TableLineageEdge].(*EdgeTable),
		Incidents:    m[TableIncident].(*IncidentTable),
	}
}

func checkErr(t *testing.T, err error, want fixtureExpect, category error) {
	t.Helper()
	if err == nil {
		t.Fatalf("no error, want %+v", want)
	}
	var e *Error
	if !errors.As(err, &e) {
		t.Fatalf("error %v (%T) is not an *Error", err, err)
	}
	got := fixtureExpect{Code: e.Code, Table: e.Table, Column: e.Column, Row: e.Row}
	if got != want {
		t.Fatalf("got %+v (%v), want %+v", got, err, want)
	}
	if !errors.Is(err, category) {
		t.Fatalf("errors.Is(%v, %v) = false", err, category)
	}
}

func TestFixtureValid(t *testing.T) {
	f := loadFixture(t)
	if f.SchemaVersion != SchemaVersion {
		t.Fatalf("fixture schema %q, package %q", f.SchemaVersion, SchemaVersion)
	}
	m := f.tables(t)
	ctx := f.context(t, nil)
	if err := asTables(m).Validate(ctx); err != nil {
		t.Fatalf("Tables.Validate: %v", err)
	}
	ts := asTables(m)
	for name, err := range map[string]error{
		"artifact":     ts.Artifacts.Validate(ctx),
		"value":        ts.Values.Validate(ctx, ts.Artifacts),
		"observation":  ts.Observations.Validate(ctx, ts.Artifacts),
		"lineage_edge": ts.Edges.Validate(ctx, ts.Artifacts),
		"incident":     ts.Incidents.Validate(ctx, ts.Artifacts, ts.Observations),
	} {
		if err != nil {
			t.Errorf("%s.Validate: %v", name, err)
		}
	}
}

// TestFixturePayloads checks Payload against slices read off the fixture by
// hand (see its value-table comment).
func TestFixturePayloads(t *testing.T) {
	f := loadFixture(t)
	v := f.tables(t)[TableValue].(*ValueTable)
	const max = Absent
	want := []struct {
		words []uint64
		valid bool
	}{
		{[]uint64{7, max}, true},
		{[]uint64{max, 42}, true},
		{[]uint64{}, false},
		{[]uint64{}, true},
		{[]uint64{7, max, 42, 0, 5}, true},
		{[]uint64{}, false},
	}
	if v.Len() != len(want) {
		t.Fatalf("Len = %d", v.Len())
	}
	for i, w := range want {
		words, valid, err := v.Payload(i)
		if err != nil {
			t.Fatalf("Payload(%d): %v", i, err)
		}
		if !slices.Equal(words, w.words) || valid != w.valid {
			t.Errorf("Payload(%d) = %v, %v; want %v, %v", i, words, valid, w.words, w.valid)
		}
	}
	if _, _, err := v.Payload(6); CodeOf(err) != CodeIndex {
		t.Errorf("Payload(6) error %v, want %s", err, CodeIndex)
	}
	o := f.tables(t)[TableObservation].(*ObservationTable)
	for i, w := range [][]uint64{{11, 12}, {}, {}, {12, 13}} {
		got, err := o.Fingerprint(i)
		if err != nil || !slices.Equal(got, w) {
			t.Errorf("Fingerprint(%d) = %v, %v; want %v", i, got, err, w)
		}
	}
}

func TestFixtureInvalid(t *testing.T) {
	f := loadFixture(t)
	if len(f.Invalid) == 0 {
		t.Fatal("no negative cases")
	}
	for _, c := range f.Invalid {
		t.Run(c.Name, func(t *testing.T) {
			if !strings.HasPrefix(c.Rule, "PW-02.") {
				t.Fatalf("case names no rule: %q", c.Rule)
			}
			m := f.tables(t)
			for key, vals := range c.Set {
				table, column, ok := strings.Cut(key, ".")
				if !ok {
					t.Fatalf("bad set key %q", key)
				}
				fill(t, m[TableKind(table)], column, vals)
			}
			ctx := f.context(t, c.DropContexts)
			checkErr(t, asTables(m).Validate(ctx), c.Expect, ErrInvalid)

			// The table's own validator reports the same error.
			ts := asTables(m)
			var err error
			switch TableKind(c.Expect.Table) {
			case TableArtifact:
				err = ts.Artifacts.Validate(ctx)
			case TableValue:
				err = ts.Values.Validate(ctx, ts.Artifacts)
			case TableObservation:
				err = ts.Observations.Validate(ctx, ts.Artifacts)
			case TableLineageEdge:
				err = ts.Edges.Validate(ctx, ts.Artifacts)
			case TableIncident:
				err = ts.Incidents.Validate(ctx, ts.Artifacts, ts.Observations)
			}
			checkErr(t, err, c.Expect, ErrInvalid)
		})
	}
}

func TestFixtureFrames(t *testing.T) {
	f := loadFixture(t)
	base := f.tables(t)
	// Round trip: every table survives FrameOf then Decode unchanged.
	for kind, tab := range base {
		fr, err := FrameOf(tab)
		if err != nil {
			t.Fatal(err)
		}
		if err := CheckFrame(fr); err != nil {
			t.Fatalf("%s: CheckFrame: %v", kind, err)
		}
		got, err := Decode(fr)
		if err != nil {
			t.Fatalf("%s: Decode: %v", kind, err)
		}
		if !reflect.DeepEqual(normalize(got), normalize(tab)) {
			t.Errorf("%s: round trip changed the table:\n got %+v\nwant %+v", kind, got, tab)
		}
	}
	for _, c := range f.Frames {
		t.Run(c.Name, func(t *testing.T) {
			fr := Frame{Version: c.Version, Table: TableKind(c.Table), Columns: map[string]*View{}}
			if tab, ok := base[TableKind(c.Table)]; ok {
				full, err := FrameOf(tab)
				if err != nil {
					t.Fatal(err)
				}
				fr.Columns = full.Columns
			}
			for _, name := range c.Drop {
				if _, ok := fr.Columns[name]; !ok {
					t.Fatalf("drop of absent column %q", name)
				}
				delete(fr.Columns, name)
			}
			for name, col := range c.Add {
				dt, err := ParseDType(col.DType)
				if err != nil {
					t.Fatal(err)
				}
				fr.Columns[name] = mustView(t, dt, parseU64s(t, col.Values, 64))
			}
			checkErr(t, CheckFrame(fr), c.Expect, ErrSchema)
			_, err := Decode(fr)
			checkErr(t, err, c.Expect, ErrSchema)
		})
	}
}

// normalize maps nil column slices to empty ones for comparison.
func normalize(t Table) Table {
	for _, c := range t.columns() {
		if c.u8 != nil && *c.u8 == nil {
			*c.u8 = []uint8{}
		}
		if c.u64 != nil && *c.u64 == nil {
			*c.u64 = []uint64{}
		}
	}
	return t
}

// mustView encodes vals little-endian as dt and borrows the bytes.
func mustView(t testing.TB, dt DType, vals []uint64) *View {
	t.Helper()
	size := dt.Size()
	b := make([]byte, len(vals)*size)
	for i, v := range vals {
		for k := range size {
			b[i*size+k] = byte(v >> (8 * k))
		}
	}
	v, err := FromBytes(b, dt, Options{})
	if err != nil {
		t.Fatal(err)
	}
	return v
}
