package config

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

const sample = `version: 1
defaults:
  profile: logical-v1
  resolution: record
  exclude: [note]
sources:
  orders:
    address: shop.db#orders
    resolution: value
    key: [id]
  events:
    address: duckdb:data/wh.duckdb
    query: SELECT * FROM events
    name: all-events
    exclude: []
    infer: false
  remote:
    address: postgres://u@db.example/shop#public.orders
    csv_null: ""
`

func TestParseSample(t *testing.T) {
	f, err := Parse("/proj/pipewhy.yaml", []byte(sample))
	if err != nil {
		t.Fatal(err)
	}
	if got := f.Names(); !reflect.DeepEqual(got, []string{"events", "orders", "remote"}) {
		t.Fatalf("names %v", got)
	}
	orders, ok := f.Source("orders")
	if !ok {
		t.Fatal("orders missing")
	}
	// The entry's resolution wins over defaults; defaults fill profile and exclude; the
	// name defaults to the entry name; the path is relative to /proj.
	want := Scan{Address: "/proj/shop.db#orders", Name: "orders", Resolution: "value", Key: []string{"id"},
		Profile: "logical-v1", Exclude: []string{"note"}}
	if !reflect.DeepEqual(orders, want) {
		t.Fatalf("orders\n got %+v\nwant %+v", orders, want)
	}
	events, _ := f.Source("events")
	f0 := false
	want = Scan{Address: "duckdb:/proj/data/wh.duckdb", Query: "SELECT * FROM events", Name: "all-events",
		Resolution: "record", Profile: "logical-v1", Exclude: []string{}, Infer: &f0}
	if !reflect.DeepEqual(events, want) {
		t.Fatalf("events: an explicit empty list replaces the default\n got %+v\nwant %+v", events, want)
	}
	remote, _ := f.Source("remote")
	if remote.Address != "postgres://u@db.example/shop#public.orders" || remote.Null == nil || *remote.Null != "" {
		t.Fatalf("remote %+v: URLs stay as written, an empty null spelling is set", remote)
	}
	if _, ok := f.Source("nope"); ok {
		t.Fatal("unknown source found")
	}
}

func TestResolveAddress(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"a.csv", "/d/a.csv"},
		{"sub/a.parquet", "/d/sub/a.parquet"},
		{"../x/a.jsonl", "/x/a.jsonl"},
		{"/abs/a.csv", "/abs/a.csv"},
		{"csv:data.txt", "csv:/d/data.txt"},
		{"sqlite:shop.db#orders", "sqlite:/d/shop.db#orders"},
		{"shop.db#orders", "/d/shop.db#orders"},
		{"duckdb:w.duckdb#t", "duckdb:/d/w.duckdb#t"},
		{"duckdb::memory:", "duckdb::memory:"},
		{"sqlite:/abs/s.db", "sqlite:/abs/s.db"},
		{"postgres://h/db#t", "postgres://h/db#t"},
		{"mysql://u@h:3306/db#t", "mysql://u@h:3306/db#t"},
	} {
		if got := resolveAddress("/d", c.in); got != c.want {
			t.Errorf("resolveAddress(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestMerge(t *testing.T) {
	tr, fa := true, false
	base := Scan{Address: "b", Query: "q", Name: "n", Resolution: "record", Key: []string{"k"}, Profile: "logical-v1",
		Exclude: []string{"x"}, Schema: "s.json", Infer: &tr, Null: new(string), AllowPartial: &tr, MissingAsNull: &tr}
	if got := Merge(Scan{}, base); !reflect.DeepEqual(got, base) {
		t.Fatalf("an empty entry takes every base setting: %+v", got)
	}
	top := Scan{Address: "a", Query: "q2", Name: "m", Resolution: "value", Key: []string{"id"}, Profile: "strict-v1",
		Exclude: []string{}, Schema: "t.json", Infer: &fa, Null: &[]string{"NA"}[0], AllowPartial: &fa, MissingAsNull: &fa}
	if got := Merge(top, base); !reflect.DeepEqual(got, top) {
		t.Fatalf("every set field wins: %+v", got)
	}
}

// TestParseErrors: each malformed file fails with its code and, where the format has
// one, the line of the offending key.
func TestParseErrors(t *testing.T) {
	for _, c := range []struct {
		name, text string
		code       Code
		line       int
		msg        string
	}{
		{"empty", "", CodeInvalid, 0, "version: 1 is required"},
		{"no version", "sources: {}\n", CodeInvalid, 0, "version must be 1"},
		{"version 2", "version: 2\n", CodeInvalid, 1, "version must be 1"},
		{"version text", "version: one\n", CodeSyntax, 0, "not a pipewhy.yaml"},
		{"not yaml", "version: [1\n", CodeSyntax, 0, "not valid YAML"},
		{"two documents", "version: 1\n---\nversion: 1\n", CodeSyntax, 2, "more than one YAML document"},
		{"unknown top key", "version: 1\nsourcez: {}\n", CodeSyntax, 0, "field sourcez not found"},
		{"unknown source key", "version: 1\nsources:\n  a:\n    address: a.csv\n    keys: [id]\n", CodeSyntax, 0, "field keys not found"},
		{"duplicate source", "version: 1\nsources:\n  a:\n    address: a.csv\n  a:\n    address: b.csv\n", CodeSyntax, 0, "already defined"},
		{"list for string", "version: 1\nsources:\n  a:\n    address: [a.csv]\n", CodeSyntax, 0, "cannot unmarshal"},
		{"no address", "version: 1\nsources:\n  a:\n    key: [id]\n", CodeInvalid, 3, "address is required"},
		{"bad resolution", "version: 1\nsources:\n  a:\n    address: a.csv\n    resolution: rows\n", CodeInvalid, 3, `resolution "rows"`},
		{"bad profile", "version: 1\ndefaults:\n  profile: strict-v2\n", CodeInvalid, 2, `profile "strict-v2"`},
		{"address in defaults", "version: 1\ndefaults:\n  address: a.csv\n", CodeInvalid, 2, "defaults cannot set address"},
		{"bad name", "version: 1\nsources:\n  a/b:\n    address: a.csv\n", CodeInvalid, 3, "source name"},
		{"name with colon", "version: 1\nsources:\n  'sqlite:x':\n    address: a.csv\n", CodeInvalid, 3, "source name"},
		{"empty key list", "version: 1\nsources:\n  a:\n    address: a.csv\n    key: []\n", CodeInvalid, 3, "key is an empty list"},
		{"empty column", "version: 1\nsources:\n  a:\n    address: a.csv\n    exclude: ['']\n", CodeInvalid, 3, "empty column name"},
		{"two-line name", "version: 1\nsources:\n  a:\n    address: a.csv\n    name: \"x\\ny\"\n", CodeInvalid, 3, "one line"},
		{"null key", "version: 1\nsources:\n  a:\n    address: a.csv\n    null: NA\n", CodeSyntax, 5, "not a string"},
		{"integer key", "version: 1\nsources:\n  1:\n    address: a.csv\n", CodeSyntax, 3, "not a string"},
		{"not utf-8", "version: 1\n# \xff\n", CodeSyntax, 0, "not UTF-8"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := Parse("/p/pipewhy.yaml", []byte(c.text))
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("err = %v, want *Error", err)
			}
			if e.Code != c.code || e.Line != c.line || !strings.Contains(err.Error(), c.msg) {
				t.Fatalf("got %v (code %s line %d), want code %s line %d containing %q", err, e.Code, e.Line, c.code, c.line, c.msg)
			}
			if !strings.HasPrefix(err.Error(), "/p/pipewhy.yaml") {
				t.Fatalf("error does not name the file: %v", err)
			}
		})
	}
}

func TestFindAndLoad(t *testing.T) {
	root := t.TempDir()
	sub := filepath.Join(root, "a", "b")
	if err := os.MkdirAll(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	if p, err := Find(sub); err != nil || p != "" {
		t.Fatalf("Find without a file = %q, %v", p, err)
	}
	path := filepath.Join(root, FileName)
	if err := os.WriteFile(path, []byte("version: 1\nsources:\n  t:\n    address: data/t.csv\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	p, err := Find(sub)
	if err != nil || p != path {
		t.Fatalf("Find = %q, %v; want %q", p, err, path)
	}
	f, err := Load(p)
	if err != nil {
		t.Fatal(err)
	}
	if s, _ := f.Source("t"); s.Address != filepath.Join(root, "data", "t.csv") {
		t.Fatalf("address %q is not relative to the file's directory", s.Address)
	}
	if _, err := Load(filepath.Join(root, "missing.yaml")); !isCode(err, CodeRead) {
		t.Fatalf("missing file: %v", err)
	}
	big := filepath.Join(root, "big.yaml")
	if err := os.WriteFile(big, []byte("version: 1\n#"+strings.Repeat("x", maxFileSize)), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Load(big); !isCode(err, CodeRead) {
		t.Fatalf("oversized file: %v", err)
	}
	// A directory called pipewhy.yaml is an error, not a silent skip.
	if err := os.Mkdir(filepath.Join(sub, FileName), 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := Find(sub); !isCode(err, CodeRead) {
		t.Fatalf("directory named %s: %v", FileName, err)
	}
}

func isCode(err error, c Code) bool {
	var e *Error
	return errors.As(err, &e) && e.Code == c
}

func FuzzParse(f *testing.F) {
	f.Add([]byte(sample))
	f.Add([]byte("version: 1\n"))
	f.Add([]byte("version: 1\nsources:\n  a: {address: a.csv, key: [id, x]}\n"))
	f.Add([]byte("&a [*a]"))
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > 1<<16 { // bounds each run, and so each minimization
			t.Skip("input over 64 KiB")
		}
		file, err := Parse("/p/pipewhy.yaml", data)
		if err != nil {
			var e *Error
			if !errors.As(err, &e) || e.Code == "" {
				t.Fatalf("untyped error %v", err)
			}
			return
		}
		for _, n := range file.Names() {
			s, ok := file.Source(n)
			if !ok || s.Address == "" || s.Name == "" {
				t.Fatalf("source %q incomplete: %+v", n, s)
			}
		}
	})
}
