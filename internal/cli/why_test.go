package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func writeText(t *testing.T, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

// pipeline makes a project in a temporary directory (the working directory for the
// test): pipewhy.yaml declares raw → copy → daily ← customers; both versions are scanned
// by name, the copy's second version corrupted in record 3.
func pipeline(t *testing.T) string {
	proj := t.TempDir()
	t.Chdir(proj)
	writeText(t, "models/daily.sql", "select day, sum(amount) from copy group by day\n")
	writeText(t, "pipewhy.yaml", `version: 1
defaults:
  resolution: value
sources:
  raw: {address: raw.csv, key: [id]}
  copy: {address: copy.csv, key: [id]}
  customers: {address: customers.csv, key: [cid]}
  daily: {address: daily.csv, key: [day]}
lineage:
  - {from: raw, to: copy, relation: copy}
  - from: [copy, customers]
    to: daily
    relation: transform
    transform: models/daily.sql
    columns: {revenue: [amount]}
policy:
  raw:
    max_row_count_change: 0
`)
	if code, _, e := runCLI(t, "init"); code != 0 {
		t.Fatalf("init: %s", e)
	}
	versions := [][4]string{
		{"id,status,amount\n1,paid,10\n2,paid,20\n3,shipped,30\n", "id,status,amount\n1,paid,10\n2,paid,20\n3,shipped,30\n", "cid,country\n1,FR\n", "day,revenue\nd1,60\n"},
		{"id,status,amount\n1,paid,10\n2,paid,25\n3,shipped,30\n4,paid,5\n", "id,status,amount\n1,paid,10\n2,paid,25\n3,lost,30\n4,paid,5\n", "cid,country\n1,FR\n", "day,revenue\nd1,70\n"},
	}
	for _, v := range versions {
		for i, name := range []string{"raw", "copy", "customers", "daily"} {
			writeText(t, name+".csv", v[i])
			if code, _, e := runCLI(t, "scan", name); code != 0 {
				t.Fatalf("scan %s: %s", name, e)
			}
		}
	}
	return proj
}

type whyDoc struct {
	Format   string `json:"format"`
	Version  int    `json:"version"`
	Artifact string `json:"artifact"`
	From, To string
	Changed  bool `json:"changed"`
	Edges    []struct {
		Source, Target, Relation, Verdict, Detail string
		Copy                                      *struct {
			Equal    bool `json:"equal"`
			Examples []struct {
				Key     string `json:"key"`
				Changes []struct{ Field, Source, Copy string }
			} `json:"examples"`
		} `json:"copy"`
	} `json:"edges"`
	RootCauses []struct{ Artifact, Verdict string } `json:"root_causes"`
	Fields     map[string]struct {
		Changed     *uint64  `json:"changed"`
		ExplainedBy []string `json:"explained_by"`
	} `json:"fields"`
}

// TestWhyCLI: why through cli.Main on real scans: the pipewhy.why/v1 JSON document,
// the text report, and the exit codes (1 changed, 0 unchanged, 2 error).
func TestWhyCLI(t *testing.T) {
	pipeline(t)
	code, out, e := runCLI(t, "why", "daily", "--json")
	if code != ExitDifference {
		t.Fatalf("why: exit %d: %s", code, e)
	}
	var d whyDoc
	if err := json.Unmarshal([]byte(out), &d); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if d.Format != "pipewhy.why" || d.Version != 1 || d.Artifact != "daily" || !d.Changed || len(d.From) != 32 || len(d.To) != 32 {
		t.Fatalf("document %+v", d)
	}
	verdicts := map[string]string{}
	for _, e := range d.Edges {
		verdicts[e.Source+">"+e.Target] = e.Verdict
	}
	if verdicts["raw>copy"] != "copy_mismatch" || verdicts["copy>daily"] != "source_changed" || verdicts["customers>daily"] != "source_unchanged" {
		t.Fatalf("verdicts %v", verdicts)
	}
	if len(d.RootCauses) != 2 || d.RootCauses[0].Artifact != "copy" || d.RootCauses[0].Verdict != "copy_mismatch" || d.RootCauses[1].Verdict != "source_changed" {
		t.Fatalf("root causes %+v", d.RootCauses)
	}
	if f := d.Fields["revenue"]; f.Changed == nil || *f.Changed != 1 || len(f.ExplainedBy) != 1 || f.ExplainedBy[0] != "copy.amount" {
		t.Fatalf("fields %+v", d.Fields)
	}
	code, out, _ = runCLI(t, "why", "daily")
	if code != ExitDifference || !strings.Contains(out, `id="3"  status "shipped" in raw, "lost" in copy`) || !strings.Contains(out, "[copy_mismatch]") {
		t.Fatalf("text (exit %d):\n%s", code, out)
	}
	// customers did not change: exit 0.
	if code, out, e := runCLI(t, "why", "customers"); code != ExitOK || !strings.Contains(out, "unchanged") {
		t.Fatalf("unchanged: exit %d %s %s", code, out, e)
	}
	// --from/--to by prefix; errors exit 2.
	if code, _, e := runCLI(t, "why", "daily", "--from", d.From[:8], "--to", d.To[:8]); code != ExitDifference {
		t.Fatalf("prefixes: %d %s", code, e)
	}
	for _, args := range [][]string{
		{"why", "nope"},
		{"why", "daily", "--to", d.From[:8], "--from", d.To[:8]},
		{"why", "daily", "--to", "zzzz"},
	} {
		if code, _, _ := runCLI(t, args...); code != ExitError {
			t.Fatalf("%v: exit %d, want 2", args, code)
		}
	}
	// The lineage as stored.
	code, out, _ = runCLI(t, "lineage", "daily")
	if code != 0 || !strings.Contains(out, "copy ─transform models/daily.sql─► daily   [pipewhy.yaml]") || !strings.Contains(out, "columns: revenue ← amount") || !strings.Contains(out, "raw ─copy─► copy") {
		t.Fatalf("lineage:\n%s", out)
	}
}

// TestCheckCLI: check records incidents and exits 1 while one is open; the same
// snapshots checked again record nothing new; resolving is recorded and lists apart.
func TestCheckCLI(t *testing.T) {
	pipeline(t)
	code, out, e := runCLI(t, "check", "--json")
	if code != ExitDifference {
		t.Fatalf("check: exit %d %s", code, e)
	}
	var doc struct {
		Policy   string `json:"policy"`
		Problems []struct {
			Incident uint64 `json:"incident"`
			State    string `json:"state"`
			Problem  struct{ Artifact, Reason string }
		} `json:"problems"`
		Open []struct {
			ID     uint64 `json:"id"`
			Count  int    `json:"count"`
			Status string `json:"status"`
		} `json:"open"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	got := map[string]string{}
	for _, p := range doc.Problems {
		got[p.Problem.Artifact+":"+p.Problem.Reason] = p.State
	}
	if doc.Policy != "pipewhy.policy/v1" || len(got) != 2 || got["copy:copy_mismatch"] != "new" || got["raw:row_count_change"] != "new" || len(doc.Open) != 2 {
		t.Fatalf("check %+v", doc)
	}
	code, out, _ = runCLI(t, "check")
	if code != ExitDifference || !strings.Contains(out, "already recorded") || !strings.Contains(out, "2 open incidents") {
		t.Fatalf("second check (exit %d):\n%s", code, out)
	}
	// Checking customers alone: no problem, no open incident for it.
	if code, out, _ := runCLI(t, "check", "customers"); code != ExitOK || !strings.Contains(out, "no open incident") {
		t.Fatalf("check customers: exit %d\n%s", code, out)
	}
	code, out, _ = runCLI(t, "incidents", "--json")
	var incs []struct {
		ID       uint64 `json:"id"`
		Artifact string `json:"artifact"`
		Status   string `json:"status"`
		Count    int    `json:"count"`
	}
	if err := json.Unmarshal([]byte(out), &incs); err != nil || code != 0 || len(incs) != 2 || incs[0].Count != 1 {
		t.Fatalf("incidents: %v %s", err, out)
	}
	for _, in := range incs {
		if code, _, e := runCLI(t, "incidents", "resolve", "#"+jsonNum(in.ID), "--note", "fixed upstream"); code != 0 {
			t.Fatalf("resolve: %s", e)
		}
	}
	if code, _, _ := runCLI(t, "incidents", "resolve", "1"); code != ExitError {
		t.Fatal("resolving twice succeeded")
	}
	if code, out, _ := runCLI(t, "incidents"); code != 0 || !strings.Contains(out, "no open incident") {
		t.Fatalf("open after resolving: %s", out)
	}
	if code, out, _ := runCLI(t, "incidents", "--all"); code != 0 || strings.Count(out, "resolved") < 2 || !strings.Contains(out, "fixed upstream") {
		t.Fatalf("--all: %s", out)
	}
	// Resolved and nothing new: check passes.
	if code, out, _ := runCLI(t, "check"); code != ExitOK {
		t.Fatalf("check after resolving: exit %d\n%s", code, out)
	}
}

func jsonNum(n uint64) string { b, _ := json.Marshal(n); return string(b) }

// TestLineageCLIBadInput: unknown artifacts, conflicting declarations, malformed and
// unmapped imports all exit 2 and record nothing.
func TestLineageCLIBadInput(t *testing.T) {
	pipeline(t)
	versions := func() int {
		code, out, e := runCLI(t, "lineage", "versions", "--json")
		if code != 0 {
			t.Fatalf("versions: %s", e)
		}
		var vs []any
		json.Unmarshal([]byte(out), &vs)
		return len(vs)
	}
	n := versions()
	for _, c := range []struct {
		args []string
		msg  string
	}{
		{[]string{"lineage", "add", "raw", "nowhere", "--relation", "derived"}, "PW_LINEAGE_UNKNOWN"},
		{[]string{"lineage", "add", "raw", "copy", "--relation", "derived"}, "PW_LINEAGE_CONFLICT"},
		{[]string{"lineage", "add", "raw", "daily", "--relation", "transform"}, "needs its transform"},
		{[]string{"lineage", "add", "raw", "daily", "--relation", "transform", "--transform", "models/none.sql"}, "PW_LINEAGE_TRANSFORM"},
		{[]string{"lineage", "add", "raw", "customers", "daily", "--relation", "copy"}, "exactly one source"},
		{[]string{"lineage", "add", "raw", "daily", "--relation", "derived", "--column", "revenue"}, "TARGET=SOURCE"},
		{[]string{"lineage", "remove", "raw", "copy"}, "declared in pipewhy.yaml"},
		{[]string{"lineage", "remove", "raw", "daily"}, "PW_LINEAGE_NOT_FOUND"},
		{[]string{"lineage", "nowhere"}, "not an artifact"},
	} {
		code, _, e := runCLI(t, c.args...)
		if code != ExitError || !strings.Contains(e, c.msg) {
			t.Errorf("%v: exit %d, stderr %q, want %q", c.args, code, e, c.msg)
		}
	}
	writeText(t, "bad.json", `{"eventType":"COMPLETE","eventTime":"yesterday","job":{"namespace":"n","name":"j"}}`)
	if code, _, e := runCLI(t, "lineage", "import", "openlineage", "bad.json"); code != ExitError || !strings.Contains(e, "PW_LINEAGE_IMPORT") {
		t.Fatalf("malformed: %d %s", code, e)
	}
	manifest, _ := filepath.Abs(filepath.Join(testdataDir(t), "dbt", "jaffle_shop_manifest.json"))
	if code, _, e := runCLI(t, "lineage", "import", "dbt", manifest); code != ExitError || !strings.Contains(e, "PW_LINEAGE_UNMAPPED") || !strings.Contains(e, "model.jaffle_shop.customers") {
		t.Fatalf("unmapped: %d %s", code, e)
	}
	if v := versions(); v != n {
		t.Fatalf("a failed command recorded a version: %d → %d", n, v)
	}
	// A conflict inside pipewhy.yaml stops every command that reads the lineage.
	b, _ := os.ReadFile("pipewhy.yaml")
	writeText(t, "pipewhy.yaml", strings.Replace(string(b), "lineage:\n", "lineage:\n  - {from: raw, to: copy, relation: derived}\n", 1))
	for _, args := range [][]string{{"scan", "raw"}, {"why", "daily"}, {"check"}, {"lineage"}} {
		if code, _, e := runCLI(t, args...); code != ExitError || !strings.Contains(e, "PW_LINEAGE_CONFLICT") {
			t.Errorf("%v with a conflicting pipewhy.yaml: exit %d %s", args, code, e)
		}
	}
}

// TestLineageCLIImports: the real dbt manifest and OpenLineage events through the CLI,
// names mapped in pipewhy.yaml and with --map; lineage add and remove.
func TestLineageCLIImports(t *testing.T) {
	proj := t.TempDir()
	t.Chdir(proj)
	nodes := []string{"model.jaffle_shop.customers", "model.jaffle_shop.orders", "model.jaffle_shop.stg_customers",
		"model.jaffle_shop.stg_orders", "model.jaffle_shop.stg_payments", "seed.jaffle_shop.raw_customers",
		"seed.jaffle_shop.raw_orders", "seed.jaffle_shop.raw_payments"}
	var cfg strings.Builder
	cfg.WriteString("version: 1\nsources:\n")
	for _, n := range nodes {
		a := n[strings.LastIndexByte(n, '.')+1:]
		cfg.WriteString("  " + a + ": {address: " + a + ".csv}\n")
	}
	for _, a := range []string{"upload", "upload_cp", "result"} {
		cfg.WriteString("  " + a + ": {address: " + a + ".csv}\n")
	}
	cfg.WriteString("lineage_names:\n")
	for _, n := range nodes {
		cfg.WriteString("  " + n + ": " + n[strings.LastIndexByte(n, '.')+1:] + "\n")
	}
	writeText(t, "pipewhy.yaml", cfg.String())
	runCLI(t, "init")
	td := testdataDir(t)
	code, out, e := runCLI(t, "lineage", "import", "dbt", filepath.Join(td, "dbt", "jaffle_shop_manifest.json"))
	if code != 0 || !strings.Contains(out, "8 edges imported from 28 nodes") {
		t.Fatalf("dbt: %d %s %s", code, out, e)
	}
	// The events name more datasets than are mapped: --skip-unmapped imports the rest.
	args := []string{"lineage", "import", "openlineage", filepath.Join(td, "openlineage", "airflow_bigquery.json"),
		"--map", "bigquery#mock-project.test.upload=upload", "--map", "bigquery#mock-project.test.upload_cp=upload_cp",
		"--map", "gs://mock-bucket#result.csv=result"}
	if code, _, e := runCLI(t, args...); code != ExitError || !strings.Contains(e, "gs://mock-bucket#copied.csv") {
		t.Fatalf("unmapped: %d %s", code, e)
	}
	code, out, e = runCLI(t, append(args, "--skip-unmapped")...)
	if code != 0 || !strings.Contains(out, "2 edges imported from 7 events") || !strings.Contains(out, "unmapped, left out: gs://mock-bucket#test.csv") {
		t.Fatalf("openlineage: %d %s %s", code, out, e)
	}
	code, out, _ = runCLI(t, "lineage", "upload_cp", "--json")
	var doc struct {
		Upstream []struct {
			Source, Relation string
			Origins          []struct{ Kind, Ref string }
		} `json:"upstream"`
		Downstream []struct{ Target string } `json:"downstream"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil || code != 0 || len(doc.Upstream) != 1 || doc.Upstream[0].Relation != "copy" ||
		doc.Upstream[0].Origins[0].Ref != "airflow/BQ.copy" || len(doc.Downstream) != 1 || doc.Downstream[0].Target != "result" {
		t.Fatalf("lineage upload_cp: %v %s", err, out)
	}
	// Re-importing the same manifest changes nothing.
	if code, out, _ := runCLI(t, "lineage", "import", "dbt", filepath.Join(td, "dbt", "jaffle_shop_manifest.json")); code != 0 || !strings.Contains(out, "unchanged") {
		t.Fatalf("re-import: %s", out)
	}
	if code, out, e := runCLI(t, "lineage", "add", "orders", "result", "--relation", "transform", "--transform", "v7", "--column", "a=orders.amount"); code != 0 || !strings.Contains(out, "1 edge declared") {
		t.Fatalf("add: %d %s %s", code, out, e)
	}
	if code, _, e := runCLI(t, "lineage", "remove", "orders", "result"); code != 0 {
		t.Fatalf("remove: %s", e)
	}
	code, out, _ = runCLI(t, "lineage", "versions")
	if code != 0 || strings.Count(out, "\n") != 4 {
		t.Fatalf("versions (dbt, openlineage, add, remove):\n%s", out)
	}
}

// lineageTestdata holds the importers' real fixtures (beside package lineage), as an
// absolute path taken before any test changes the working directory.
var lineageTestdata = func() string {
	abs, err := filepath.Abs(filepath.Join("..", "..", "lineage", "testdata"))
	if err != nil {
		panic(err)
	}
	return abs
}()

func testdataDir(*testing.T) string { return lineageTestdata }
