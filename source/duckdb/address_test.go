package duckdb

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pipewhy/pipewhy/source"
)

func TestParseAddress(t *testing.T) {
	abs, _ := filepath.Abs("rel/x.duckdb")
	cases := []struct {
		in   string
		want Options
		ok   bool
	}{
		{"duckdb:/data/x.duckdb#orders", Options{Path: "/data/x.duckdb", Table: "orders"}, true},
		{"duckdb:/data/x.duckdb", Options{Path: "/data/x.duckdb"}, true},
		{"duckdb:rel/x.duckdb#t#u", Options{Path: abs, Table: "t#u"}, true},
		{"duckdb::memory:", Options{Path: Memory}, true},
		{"duckdb:/a/../b.db#t", Options{Path: "/b.db", Table: "t"}, true},
		{"duckdb::memory:#t", Options{}, false},
		{"duckdb:", Options{}, false},
		{"duckdb:#t", Options{}, false},
		{"duckdb:/x.db#", Options{}, false},
		{"sqlite:/x.db#t", Options{}, false},
		{"/x.duckdb", Options{}, false},
		{"duckdb:/x\x00.db", Options{}, false},
	}
	for _, c := range cases {
		got, err := ParseAddress(c.in)
		if (err == nil) != c.ok {
			t.Errorf("%q: err %v", c.in, err)
			continue
		}
		if !c.ok {
			if source.CodeOf(err) != source.CodeAddress {
				t.Errorf("%q: code %s", c.in, source.CodeOf(err))
			}
			continue
		}
		if got.Path != c.want.Path || got.Table != c.want.Table {
			t.Errorf("%q: %+v, want %+v", c.in, got, c.want)
		}
	}
}

func FuzzParseAddress(f *testing.F) {
	for _, s := range []string{"duckdb:/x.duckdb#t", "duckdb::memory:", "duckdb:", "duckdb:#", "duckdb:a#b#c", "duckdb:\x00", "x"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if len(s) > 1<<16 { // bounds each run, and so each minimization
			t.Skip("input over 64 KiB")
		}
		o, err := ParseAddress(s)
		if err != nil {
			if source.CodeOf(err) != source.CodeAddress {
				t.Fatalf("%q: error without address code: %v", s, err)
			}
			return
		}
		if !strings.HasPrefix(s, "duckdb:") || o.Path == "" || (o.Path != Memory && !filepath.IsAbs(o.Path)) || strings.ContainsRune(o.Table, 0) {
			t.Fatalf("%q parsed to %+v", s, o)
		}
		if o.Table != "" && !strings.HasSuffix(s, "#"+o.Table) {
			t.Fatalf("%q: table %q", s, o.Table)
		}
	})
}

// Options of package source that do not apply to DuckDB are errors, never
// ignored; a wrong kind is an address error.
func TestOpenAddressRejects(t *testing.T) {
	a := source.Address{Kind: Kind, Path: "/nonexistent.duckdb", Table: "t"}
	null := "NULL"
	for name, o := range map[string]source.Options{
		"Columns":       {Columns: []source.Column{{Name: "a", Type: "int64"}}},
		"Infer":         {Infer: true},
		"Null":          {Null: &null},
		"MissingAsNull": {MissingAsNull: true},
		"HashContent":   {HashContent: true},
	} {
		if _, err := OpenAddress(context.Background(), a, o); source.CodeOf(err) != source.CodeOption {
			t.Errorf("%s: %v, want %s", name, err, source.CodeOption)
		}
	}
	if _, err := OpenAddress(context.Background(), source.Address{Kind: source.KindSQLite, Path: "/x.db", Table: "t"}, source.Options{}); source.CodeOf(err) != source.CodeAddress {
		t.Errorf("wrong kind: %v", err)
	}
	// Applicable options reach Open: a missing file is reported as such
	// (or, without the build tag, the adapter is unsupported).
	_, err := OpenAddress(context.Background(), a, source.Options{BatchSize: 10, Exclude: []string{"x"}})
	want := source.CodeNotFound
	if !Available {
		want = source.CodeUnsupported
	}
	if source.CodeOf(err) != want {
		t.Errorf("applicable options: %v, want %s", err, want)
	}
}
