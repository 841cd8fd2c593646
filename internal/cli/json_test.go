package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// vegaJSON holds slices of real JSON files (source/testdata/vega/README.md).
const vegaJSON = "../../source/testdata/vega"

type showFields struct {
	Adapter  string `json:"adapter"`
	Rows     uint64 `json:"rows"`
	Coverage struct {
		Status string `json:"status"`
	} `json:"coverage"`
	Fields []struct {
		Name   string `json:"name"`
		Type   string `json:"type"`
		Arrow  string `json:"arrow"`
		Source string `json:"source"`
	} `json:"fields"`
	Choices  []string `json:"choices"`
	Excluded []string `json:"excluded"`
}

var scanIDRe = regexp.MustCompile(`"snapshot": "([0-9a-f]{32})"`)

// scanShow scans path at value resolution into repo r and returns 'show --json' of it.
func scanShow(t *testing.T, r, path string, extra ...string) showFields {
	t.Helper()
	code, out, e := runCLI(t, append([]string{"scan", "--repo", r, "--json", "--resolution", "value", path}, extra...)...)
	if code != 0 {
		t.Fatalf("scan %s: exit %d: %s", path, code, e)
	}
	m := scanIDRe.FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("no snapshot id in %s", out)
	}
	code, out, e = runCLI(t, "show", "--repo", r, "--json", m[1])
	if code != 0 {
		t.Fatalf("show: exit %d: %s", code, e)
	}
	var s showFields
	if err := json.Unmarshal([]byte(out), &s); err != nil {
		t.Fatal(err)
	}
	return s
}

// Real JSON arrays scan COMPLETE through the command, typed exactly: a column of integers
// and fractions is a number column (each value a decimal as written), a title column
// holding numbers beside strings is text. The expected types follow from the files' values
// by the rules of source/doc.go.
func TestScanRealJSONFiles(t *testing.T) {
	r := newRepo(t)
	cases := []struct {
		file  string
		rows  uint64
		types map[string]string
		extra []string
	}{
		{"movies-slice.json", 17, map[string]string{"Title": "text", "IMDB Rating": "number", "US Gross": "int64",
			"US DVD Sales": "int64", "Running Time min": "int64", "MPAA Rating": "text"}, nil},
		{"cars-slice.json", 18, map[string]string{"Miles_per_Gallon": "number", "Displacement": "number",
			"Acceleration": "number", "Horsepower": "int64", "Year": "text"}, nil},
		{"flights-2k-slice.json", 40, map[string]string{"date": "text", "delay": "int64", "distance": "int64"}, nil},
		{"penguins-slice.json", 12, map[string]string{"Beak Length (mm)": "number", "Beak Depth (mm)": "number",
			"Body Mass (g)": "int64", "Sex": "text"}, nil},
		{"wheat.json", 52, map[string]string{"year": "text", "wheat": "number", "wages": "number"}, []string{"--missing-as-null"}},
		{"weekly-weather.json", 10, map[string]string{"day": "text", "id": "int64"}, []string{"--exclude", "record,normal,actual,forecast"}},
	}
	for _, c := range cases {
		t.Run(c.file, func(t *testing.T) {
			s := scanShow(t, r, filepath.Join(vegaJSON, c.file), c.extra...)
			if s.Adapter != "json" || s.Rows != c.rows || s.Coverage.Status != "COMPLETE" {
				t.Fatalf("adapter %s rows %d coverage %s, want json, %d, COMPLETE", s.Adapter, s.Rows, s.Coverage.Status, c.rows)
			}
			got := map[string]string{}
			for _, f := range s.Fields {
				got[f.Name] = f.Source
				if f.Source == "number" && (f.Type != "decimal" || f.Arrow != "decimal_text") {
					t.Errorf("number column %q: type %s arrow %s, want decimal decimal_text", f.Name, f.Type, f.Arrow)
				}
			}
			for name, want := range c.types {
				if got[name] != want {
					t.Errorf("column %q: %q, want %q", name, got[name], want)
				}
			}
		})
	}
	s := scanShow(t, r, filepath.Join(vegaJSON, "movies-slice.json"))
	if !strings.Contains(strings.Join(s.Choices, " "), `mixed-as-text="Title"`) {
		t.Errorf("choices %q do not record the Title column's numbers read as text", s.Choices)
	}
}

// What fails says how to go on, and suggests --allow-partial only where it would publish
// most of the source.
func TestScanJSONFailureHints(t *testing.T) {
	r := newRepo(t)
	// Members absent from two of 52 records: the scan fails, naming the flag that reads
	// them as null; --allow-partial would keep 50 records, so it is suggested too.
	code, _, e := runCLI(t, "scan", "--repo", r, filepath.Join(vegaJSON, "wheat.json"))
	if code != ExitError || !strings.Contains(e, "PW_SOURCE_MISSING") || !strings.Contains(e, "--missing-as-null") || !strings.Contains(e, "--allow-partial") {
		t.Errorf("wheat: exit %d %q", code, e)
	}
	// A nested column fails inference, naming it; --exclude leaves it out before
	// inference (TestScanRealJSONFiles).
	code, _, e = runCLI(t, "scan", "--repo", r, filepath.Join(vegaJSON, "weekly-weather.json"))
	if code != ExitError || !strings.Contains(e, `column "record": nested objects or arrays`) || !strings.Contains(e, "exclude it") {
		t.Errorf("weekly-weather: exit %d %q", code, e)
	}
	// A JSON array read as JSON lines: every line but the last element's fails, so a
	// partial scan would hold 1 record of 19. The error must not suggest publishing it.
	code, _, e = runCLI(t, "scan", "--repo", r, "jsonl:"+filepath.Join(vegaJSON, "movies-slice.json"))
	if code != ExitError || strings.Contains(e, "--allow-partial") || !strings.Contains(e, "1 of 19 records read") {
		t.Errorf("JSON array as JSON lines: exit %d %q", code, e)
	}
	if code, out, e := runCLI(t, "scan", "--repo", r, "--allow-partial", "--json", "jsonl:"+filepath.Join(vegaJSON, "movies-slice.json")); code != 0 || !strings.Contains(out, `"rows": 1,`) {
		t.Errorf("the partial scan the hint withholds is the 1-row snapshot: exit %d %s %s", code, out, e)
	}
}

// A JSON array compares with the same records as JSON lines: --missing-as-null and
// --schema reach both JSON sides.
func TestCompareJSONArrayWithJSONLines(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(vegaJSON, "wheat.json"))
	if err != nil {
		t.Fatal(err)
	}
	var elems []json.RawMessage
	if err := json.Unmarshal(data, &elems); err != nil {
		t.Fatal(err)
	}
	var lines []string
	for _, e := range elems {
		lines = append(lines, string(e))
	}
	dir := t.TempDir()
	jl := filepath.Join(dir, "wheat.jsonl")
	if err := os.WriteFile(jl, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	arr := filepath.Join(vegaJSON, "wheat.json")
	d, _ := compareJSON(t, ExitOK, "--key", "year", "--missing-as-null", arr, jl)
	if !d.Equal || counts(d) != [4]uint64{0, 0, 0, 52} {
		t.Errorf("equal %v counts %v, want 52 unchanged records", d.Equal, counts(d))
	}
	if code, _, e := runCLI(t, "compare", "--key", "year", arr, jl); code != ExitError || !strings.Contains(e, "PW_SOURCE_MISSING") {
		t.Errorf("without --missing-as-null: exit %d %q", code, e)
	}
	// An explicit schema types the JSON array side too: wheat as decimal(5,2) on both.
	schema := filepath.Join(dir, "schema.json")
	os.WriteFile(schema, []byte(`{"columns":[{"name":"year","type":"text"},{"name":"wheat","type":"decimal(5,2)"},{"name":"wages","type":"decimal(5,2)"}]}`), 0o644)
	d, _ = compareJSON(t, ExitOK, "--key", "year", "--missing-as-null", "--schema", schema, arr, jl)
	if !d.Equal || len(d.Types) != 0 {
		t.Errorf("with --schema: equal %v types %+v", d.Equal, d.Types)
	}
}
