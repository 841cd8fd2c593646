package lineage

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
)

func readTestdata(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func edgeList(ds []Declaration) []string {
	var out []string
	for _, d := range ds {
		s := d.Source + " -" + d.Relation.String() + "-> " + d.Target
		out = append(out, s)
	}
	slices.Sort(out)
	return out
}

// TestImportAirflowBigQuery: the Airflow provider's events of a BigQuery DAG. The copy
// job's column lineage is IDENTITY from its one input for every column: a COPY; so is
// the export; the load of two files is a TRANSFORM with column lineage.
func TestImportAirflowBigQuery(t *testing.T) {
	ev, err := ParseOpenLineage(readTestdata(t, "openlineage/airflow_bigquery.json"))
	if err != nil {
		t.Fatal(err)
	}
	if ev.Len() != 7 {
		t.Fatalf("%d events", ev.Len())
	}
	names := map[string]string{
		"gs://mock-bucket#copied.csv":          "copied",
		"gs://mock-bucket#test.csv":            "test",
		"bigquery#mock-project.test.upload":    "upload",
		"bigquery#mock-project.test.upload_cp": "upload_cp",
		"gs://mock-bucket#result.csv":          "result",
	}
	imp := ImportOpenLineage(ev, names)
	if len(imp.Unmapped) != 0 || len(imp.Skipped) != 0 {
		t.Fatalf("unmapped %v skipped %v", imp.Unmapped, imp.Skipped)
	}
	want := []string{"copied -transform-> upload", "test -transform-> upload", "upload -copy-> upload_cp", "upload_cp -copy-> result"}
	if got := edgeList(imp.Declarations); !reflect.DeepEqual(got, want) {
		t.Fatalf("edges %v", got)
	}
	g, err := NewGraph(imp.Declarations)
	if err != nil {
		t.Fatal(err)
	}
	up := g.Into("upload")
	if up[0].Origins[0] != (Origin{OriginOpenLineage, "airflow/BQ.upload"}) || up[0].Transform.Ref != "openlineage:job:airflow/BQ.upload" {
		t.Fatalf("upload edge %+v (no sql or source facet: the job names the transform)", up[0])
	}
	// Column lineage a..d ← a..d of each file.
	if !reflect.DeepEqual(up[0].Columns, []ColumnEdge{{"a", "a"}, {"b", "b"}, {"c", "c"}, {"d", "d"}}) {
		t.Fatalf("columns %v", up[0].Columns)
	}
	// Unmapped names are listed and their edges left out.
	delete(names, "gs://mock-bucket#test.csv")
	imp = ImportOpenLineage(ev, names)
	if !reflect.DeepEqual(imp.Unmapped, []string{"gs://mock-bucket#test.csv"}) || len(imp.Declarations) != 3 {
		t.Fatalf("unmapped %v, %d declarations", imp.Unmapped, len(imp.Declarations))
	}
	if err := CheckMapped(imp, false); CodeOf(err) != CodeUnmapped || !strings.Contains(err.Error(), "gs://mock-bucket#test.csv") {
		t.Fatalf("CheckMapped: %v", err)
	}
	if err := CheckMapped(imp, true); err != nil {
		t.Fatal(err)
	}
}

// TestImportAirflowGCS: NDJSON; copies without column lineage are TRANSFORMs whose
// transform is the SHA-256 of the task's source code.
func TestImportAirflowGCS(t *testing.T) {
	ev, err := ParseOpenLineage(readTestdata(t, "openlineage/airflow_gcs.ndjson"))
	if err != nil {
		t.Fatal(err)
	}
	names := map[string]string{
		"gs://mock-bucket#uploaded_file.txt": "f", "gs://mock-bucket#copy_of_uploaded_file.txt": "f2",
		"gs://mock-bucket#uploaded_data.txt": "d", "gs://mock-bucket#copy_of_uploaded_data.txt": "d2",
	}
	imp := ImportOpenLineage(ev, names)
	if got := edgeList(imp.Declarations); !reflect.DeepEqual(got, []string{"d -transform-> d2", "f -transform-> f2"}) {
		t.Fatalf("edges %v", got)
	}
	for _, d := range imp.Declarations {
		if !strings.HasPrefix(d.Transform.Ref, "openlineage:source:sha256:") || len(d.Transform.Ref) != len("openlineage:source:sha256:")+64 {
			t.Fatalf("transform %q", d.Transform.Ref)
		}
	}
	if imp.Declarations[0].Transform == imp.Declarations[1].Transform {
		t.Fatal("two tasks with different source code share a transform identity")
	}
}

// TestImportSparkColumnLineage: Spark's events: the START and COMPLETE events of one run
// merge; the join of two tables is a TRANSFORM per input with the column lineage the
// integration computed (direct and indirect inputs).
func TestImportSparkColumnLineage(t *testing.T) {
	ev, err := ParseOpenLineage(readTestdata(t, "openlineage/spark_cll.ndjson"))
	if err != nil {
		t.Fatal(err)
	}
	names := map[string]string{"file#/tmp/cll_test/cll_source1": "s1", "file#/tmp/cll_test/cll_source2": "s2", "file#/tmp/cll_test/tbl1": "tbl1"}
	imp := ImportOpenLineage(ev, names)
	if got := edgeList(imp.Declarations); !reflect.DeepEqual(got, []string{"s1 -transform-> tbl1", "s2 -transform-> tbl1"}) {
		t.Fatalf("edges %v", got)
	}
	g, err := NewGraph(imp.Declarations)
	if err != nil {
		t.Fatal(err)
	}
	into := g.Into("tbl1")
	// From the facet (README): ident ← s1.a (+ indirect s1.b, s2.a); trans ← s1.b, s1.a
	// (indirect), s2.a (indirect); agg ← s2.c, s1.a, s1.b, s2.a.
	wantS1 := []ColumnEdge{{"agg", "a"}, {"agg", "b"}, {"ident", "a"}, {"ident", "b"}, {"trans", "a"}, {"trans", "b"}}
	wantS2 := []ColumnEdge{{"agg", "a"}, {"agg", "c"}, {"ident", "a"}, {"trans", "a"}}
	if !reflect.DeepEqual(into[0].Columns, wantS1) || !reflect.DeepEqual(into[1].Columns, wantS2) {
		t.Fatalf("columns\n s1 %v\n s2 %v", into[0].Columns, into[1].Columns)
	}
	if into[0].Transform.Ref != "openlineage:job:testColumnLevelLineage/open_lineage_integration_create_table.execute_create_hive_table_as_select_command.default_tbl1" {
		t.Fatalf("transform %q", into[0].Transform.Ref)
	}
}

func TestImportOpenLineageRuns(t *testing.T) {
	ev := func(typ, run, tm, sql, in, out string) string {
		return `{"eventType":"` + typ + `","eventTime":"` + tm + `","run":{"runId":"` + run + `"},"job":{"namespace":"n","name":"j","facets":{"sql":{"query":"` + sql + `"}}},"inputs":[{"namespace":"db","name":"` + in + `"}],"outputs":[{"namespace":"db","name":"` + out + `"}]}`
	}
	names := map[string]string{"db#a": "a", "db#b": "b"}
	// Two runs of the job: the later one's query is the transform.
	data := ev("COMPLETE", "r2", "2026-01-02T00:00:00Z", "select 2", "a", "b") + "\n" + ev("COMPLETE", "r1", "2026-01-01T00:00:00Z", "select 1", "a", "b") + "\n"
	parsed, err := ParseOpenLineage([]byte(data))
	if err != nil {
		t.Fatal(err)
	}
	imp := ImportOpenLineage(parsed, names)
	// sha256("select 2") from sha256sum.
	if len(imp.Declarations) != 1 || imp.Declarations[0].Transform.Ref != "openlineage:sql:sha256:3cf988cc782b44bc24ceb17e445d9c3cfd06b6c848ecfff949e1bfdb9f705a61" {
		t.Fatalf("declarations %+v", imp.Declarations)
	}
	// A failed run declares nothing and is listed.
	data = ev("START", "r3", "2026-01-03T00:00:00Z", "x", "a", "b") + ev("FAIL", "r3", "2026-01-03T00:01:00Z", "x", "a", "b")
	parsed, err = ParseOpenLineage([]byte(data))
	if err != nil {
		t.Fatal(err)
	}
	imp = ImportOpenLineage(parsed, names)
	if len(imp.Declarations) != 0 || len(imp.Skipped) != 1 || !strings.Contains(imp.Skipped[0], "r3 of job n/j: FAIL") {
		t.Fatalf("failed run: %+v", imp)
	}
	// A JobEvent (no run) declares its job's lineage; a DatasetEvent nothing.
	data = `[{"eventTime":"2026-01-01T00:00:00Z","job":{"namespace":"n","name":"static"},"inputs":[{"namespace":"db","name":"a"}],"outputs":[{"namespace":"db","name":"b"}]},
	{"eventTime":"2026-01-01T00:00:00Z","dataset":{"namespace":"db","name":"a"}}]`
	parsed, err = ParseOpenLineage([]byte(data))
	if err != nil {
		t.Fatal(err)
	}
	if imp = ImportOpenLineage(parsed, names); len(imp.Declarations) != 1 || imp.Declarations[0].Origin.Ref != "n/static" {
		t.Fatalf("job event: %+v", imp)
	}
}

// TestParseOpenLineageMalformed: each malformed file is CodeImport, naming the event.
func TestParseOpenLineageMalformed(t *testing.T) {
	ok := `{"eventTime":"2026-01-01T00:00:00Z","run":{"runId":"r"},"job":{"namespace":"n","name":"j"}}`
	for _, c := range []struct{ name, data, msg string }{
		{"empty", "  \n", "empty"},
		{"not json", "eventType: START", "not JSON"},
		{"bad array", "[" + ok, "not a JSON array"},
		{"array of numbers", "[1]", "event 1: not a JSON object"},
		{"second line broken", ok + "\n{\"eventTime\":", "event 2: not JSON"},
		{"no job or dataset", `{"eventTime":"2026-01-01T00:00:00Z"}`, "neither a job nor a dataset"},
		{"no time", `{"run":{"runId":"r"},"job":{"namespace":"n","name":"j"}}`, "eventTime"},
		{"bad time", `{"eventTime":"yesterday","job":{"namespace":"n","name":"j"}}`, "eventTime"},
		{"empty run id", `{"eventTime":"2026-01-01T00:00:00Z","run":{"runId":""},"job":{"namespace":"n","name":"j"}}`, "runId"},
		{"no job name", `{"eventTime":"2026-01-01T00:00:00Z","job":{"namespace":"n"}}`, "job namespace and name"},
		{"bad type", `{"eventType":"DONE","eventTime":"2026-01-01T00:00:00Z","job":{"namespace":"n","name":"j"}}`, "unknown eventType"},
		{"wrong kind", `{"eventTime":"2026-01-01T00:00:00Z","job":{"namespace":"n","name":"j"},"inputs":{}}`, "not an OpenLineage event"},
		{"dataset without name", `{"eventTime":"2026-01-01T00:00:00Z","job":{"namespace":"n","name":"j"},"inputs":[{"namespace":"x"}]}`, "without namespace or name"},
		{"bad sql facet", `{"eventTime":"2026-01-01T00:00:00Z","job":{"namespace":"n","name":"j","facets":{"sql":{"query":1}}}}`, "sql job facet"},
		{"bad column lineage", `{"eventTime":"2026-01-01T00:00:00Z","job":{"namespace":"n","name":"j"},"outputs":[{"namespace":"d","name":"o","facets":{"columnLineage":{"fields":[]}}}]}`, "columnLineage"},
		{"column lineage input without field", `{"eventTime":"2026-01-01T00:00:00Z","job":{"namespace":"n","name":"j"},"outputs":[{"namespace":"d","name":"o","facets":{"columnLineage":{"fields":{"x":{"inputFields":[{"namespace":"d","name":"i"}]}}}}}]}`, "input field"},
	} {
		_, err := ParseOpenLineage([]byte(c.data))
		if CodeOf(err) != CodeImport || !strings.Contains(err.Error(), c.msg) {
			t.Errorf("%s: %v, want %q", c.name, err, c.msg)
		}
	}
}

// TestImportDBTJaffleShop: dbt's own manifest of the jaffle shop: every model depends on
// what its depends_on.nodes lists (tests are not datasets), with the model's checksum
// as its transform.
func TestImportDBTJaffleShop(t *testing.T) {
	m, err := ParseDBT(readTestdata(t, "dbt/jaffle_shop_manifest.json"))
	if err != nil {
		t.Fatal(err)
	}
	names := map[string]string{}
	for _, n := range []string{"model.jaffle_shop.customers", "model.jaffle_shop.orders", "model.jaffle_shop.stg_customers",
		"model.jaffle_shop.stg_orders", "model.jaffle_shop.stg_payments", "seed.jaffle_shop.raw_customers",
		"seed.jaffle_shop.raw_orders", "seed.jaffle_shop.raw_payments"} {
		names[n] = n[strings.LastIndexByte(n, '.')+1:]
	}
	imp := ImportDBT(m, names)
	if len(imp.Unmapped) != 0 {
		t.Fatalf("unmapped %v", imp.Unmapped)
	}
	want := []string{
		"raw_customers -transform-> stg_customers", "raw_orders -transform-> stg_orders", "raw_payments -transform-> stg_payments",
		"stg_customers -transform-> customers", "stg_orders -transform-> customers", "stg_orders -transform-> orders",
		"stg_payments -transform-> customers", "stg_payments -transform-> orders",
	}
	if got := edgeList(imp.Declarations); !reflect.DeepEqual(got, want) {
		t.Fatalf("edges\n%v", strings.Join(got, "\n"))
	}
	g, err := NewGraph(imp.Declarations)
	if err != nil {
		t.Fatal(err)
	}
	// The checksum in the manifest (model.jaffle_shop.customers).
	e := g.Into("customers")[0]
	if e.Transform.Ref != "dbt:sha256:a15a5915099795b5c623408fd4ce26e227d63a08c804776012cfea63e3f064e7" || e.Origins[0] != (Origin{OriginDBT, "model.jaffle_shop.customers"}) {
		t.Fatalf("customers edge %+v", e)
	}
	// Unmapped nodes are listed (tests never are).
	delete(names, "seed.jaffle_shop.raw_orders")
	imp = ImportDBT(m, names)
	if !reflect.DeepEqual(imp.Unmapped, []string{"seed.jaffle_shop.raw_orders"}) || len(imp.Declarations) != 7 {
		t.Fatalf("unmapped %v, %d", imp.Unmapped, len(imp.Declarations))
	}
}

func TestImportDBTEphemeralAndDisabled(t *testing.T) {
	data := `{"metadata":{"dbt_schema_version":"https://schemas.getdbt.com/dbt/manifest/v12.json"},
"nodes":{
 "model.p.final":{"unique_id":"model.p.final","resource_type":"model","depends_on":{"nodes":["model.p.eph"]},"checksum":{"name":"sha256","checksum":"f1"},"config":{"materialized":"table"}},
 "model.p.eph":{"unique_id":"model.p.eph","resource_type":"model","depends_on":{"nodes":["source.p.raw.t","model.p.off"]},"checksum":{"name":"sha256","checksum":"e1"},"config":{"materialized":"ephemeral"}},
 "model.p.off":{"unique_id":"model.p.off","resource_type":"model","depends_on":{"nodes":[]},"checksum":{"name":"sha256","checksum":"o1"},"config":{"materialized":"table","enabled":false}}},
"sources":{"source.p.raw.t":{"unique_id":"source.p.raw.t","resource_type":"source","depends_on":{"nodes":[]}}}}`
	m, err := ParseDBT([]byte(data))
	if err != nil {
		t.Fatal(err)
	}
	imp := ImportDBT(m, map[string]string{"model.p.final": "final", "source.p.raw.t": "t"})
	if len(imp.Declarations) != 1 || imp.Declarations[0].Source != "t" || imp.Declarations[0].Transform.Ref != "dbt:sha256:f1;model.p.eph=sha256:e1" {
		t.Fatalf("ephemeral: %+v (unmapped %v)", imp.Declarations, imp.Unmapped)
	}
	if len(imp.Skipped) != 1 || imp.Skipped[0] != "model.p.off: disabled" {
		t.Fatalf("skipped %v", imp.Skipped)
	}
}

func TestParseDBTMalformed(t *testing.T) {
	head := `{"metadata":{"dbt_schema_version":"https://schemas.getdbt.com/dbt/manifest/v9.json"},`
	for _, c := range []struct{ name, data, msg string }{
		{"not json", "nope", "not a dbt manifest"},
		{"no schema", `{"metadata":{},"nodes":{}}`, "dbt_schema_version"},
		{"catalog schema", `{"metadata":{"dbt_schema_version":"https://schemas.getdbt.com/dbt/catalog/v1.json"},"nodes":{}}`, "dbt_schema_version"},
		{"no nodes", head + `"sources":{}}`, "no nodes"},
		{"id mismatch", head + `"nodes":{"model.p.a":{"unique_id":"model.p.b","resource_type":"model","checksum":{"name":"sha256","checksum":"x"}}}}`, "has unique_id"},
		{"no type", head + `"nodes":{"model.p.a":{"unique_id":"model.p.a"}}}`, "resource_type"},
		{"dangling dependency", head + `"nodes":{"model.p.a":{"unique_id":"model.p.a","resource_type":"model","depends_on":{"nodes":["model.p.z"]},"checksum":{"name":"sha256","checksum":"x"}}}}`, "does not define"},
		{"model without checksum", head + `"nodes":{"model.p.a":{"unique_id":"model.p.a","resource_type":"model"}}}`, "no checksum"},
		{"source of another type", head + `"nodes":{},"sources":{"source.p.s":{"unique_id":"source.p.s","resource_type":"model"}}}`, "resource_type"},
		{"wrong field type", head + `"nodes":{"model.p.a":{"unique_id":"model.p.a","resource_type":"model","depends_on":{"nodes":"model.p.b"}}}}`, "not a dbt manifest"},
	} {
		_, err := ParseDBT([]byte(c.data))
		if CodeOf(err) != CodeImport || !strings.Contains(err.Error(), c.msg) {
			t.Errorf("%s: %v, want %q", c.name, err, c.msg)
		}
	}
}

// FuzzParseOpenLineage: any input parses to events or fails with CodeImport, never
// panics; whatever parses imports without panicking, into declarations NewGraph accepts
// or rejects with a coded error.
func FuzzParseOpenLineage(f *testing.F) {
	// Run with -fuzzminimizetime 5s: minimizing an interesting input of these sizes for
	// the default 60 s leaves little time for fuzzing.
	for _, n := range []string{"openlineage/airflow_bigquery.json", "openlineage/airflow_gcs.ndjson", "openlineage/spark_cll.ndjson"} {
		f.Add(readTestdata(f, n))
		line, _, _ := bytes.Cut(readTestdata(f, n), []byte("\n"))
		f.Add(line)
	}
	f.Add([]byte(`{"eventTime":"2026-01-01T00:00:00Z","job":{"namespace":"n","name":"j"},"inputs":[{"namespace":"d","name":"a"}],"outputs":[{"namespace":"d","name":"a"}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > 1<<16 { // bounds each run, and so each minimization
			t.Skip("input over 64 KiB")
		}
		ev, err := ParseOpenLineage(data)
		if err != nil {
			if CodeOf(err) != CodeImport {
				t.Fatalf("uncoded error %v", err)
			}
			return
		}
		names := map[string]string{}
		for _, e := range ev.events {
			for _, d := range append(e.Inputs, e.Outputs...) {
				names[ExternalName(d.Namespace, d.Name)] = "a" + string(rune('0'+len(names)%10))
			}
		}
		imp := ImportOpenLineage(ev, names)
		if _, err := NewGraph(imp.Declarations); err != nil && CodeOf(err) == "" {
			t.Fatalf("uncoded graph error %v", err)
		}
	})
}

// FuzzParseDBT: the same for dbt manifests.
func FuzzParseDBT(f *testing.F) {
	f.Add(readTestdata(f, "dbt/jaffle_shop_manifest.json"))
	f.Add([]byte(`{"metadata":{"dbt_schema_version":"https://schemas.getdbt.com/dbt/manifest/v12.json"},"nodes":{"model.p.a":{"unique_id":"model.p.a","resource_type":"model","depends_on":{"nodes":["model.p.a"]},"checksum":{"name":"sha256","checksum":"x"},"config":{"materialized":"ephemeral"}}}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > 1<<18 { // bounds each run, and so each minimization; the seed manifest is 77 KiB
			t.Skip("input over 256 KiB")
		}
		m, err := ParseDBT(data)
		if err != nil {
			if CodeOf(err) != CodeImport {
				t.Fatalf("uncoded error %v", err)
			}
			return
		}
		names := map[string]string{}
		for id := range m.Nodes {
			names[id] = "n" + string(rune('0'+len(names)%10))
		}
		for id := range m.Sources {
			names[id] = "s"
		}
		imp := ImportDBT(m, names)
		if _, err := NewGraph(imp.Declarations); err != nil && CodeOf(err) == "" {
			t.Fatalf("uncoded graph error %v", err)
		}
	})
}
