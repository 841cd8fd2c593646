package cli

import (
	"bytes"
	"encoding/json"
	"flag"
	"image/png"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/pipewhy/pipewhy/internal/browsertest"
)

var screenshot = flag.Bool("screenshot", false, "rewrite docs/report-demo.png from the demo's report (TestDemoReportInBrowser)")

// report writes the page of a repository with one artifact scanned twice.
func TestReport(t *testing.T) {
	dir := t.TempDir()
	r := newRepo(t)
	for _, rows := range []string{"id,v\n1,a\n2,b\n", "id,v\n1,a\n2,c\n3,d\n"} {
		p := filepath.Join(dir, "t.csv")
		if err := os.WriteFile(p, []byte(rows), 0o644); err != nil {
			t.Fatal(err)
		}
		mustRun(t, "scan", p, "--repo", r, "--name", "items", "--key", "id", "--resolution", "value")
	}
	out := filepath.Join(dir, "r.html")
	text := mustRun(t, "report", "--repo", r, "--out", out)
	abs, _ := filepath.Abs(out)
	if !regexp.MustCompile(`^report  ` + regexp.QuoteMeta(abs) + `  1 artifacts \(1 changed, 0 with open incidents\), 0 edges, [0-9,]+ bytes\n$`).MatchString(text) {
		t.Errorf("report printed %q", text)
	}
	page, err := os.ReadFile(out)
	if err != nil || !bytes.HasPrefix(page, []byte("<!DOCTYPE html>")) || !bytes.Contains(page, []byte(`data-artifact="items" data-status="changed"`)) {
		t.Fatalf("the page: %v\n%.300s", err, page)
	}
	// No temporary file is left beside it.
	if ents, _ := os.ReadDir(dir); len(ents) != 2 {
		t.Errorf("%d files in the output directory, want t.csv and r.html", len(ents))
	}
	var doc struct {
		Out       string         `json:"out"`
		Bytes     int64          `json:"bytes"`
		Artifacts int            `json:"artifacts"`
		Counts    map[string]int `json:"counts"`
	}
	js := mustRun(t, "report", "--repo", r, "--out", out, "--json")
	if err := json.Unmarshal([]byte(js), &doc); err != nil {
		t.Fatalf("%v: %s", err, js)
	}
	if doc.Out != abs || doc.Bytes != int64(len(page)) || doc.Artifacts != 1 || doc.Counts["changed"] != 1 || doc.Counts["incident"] != 0 {
		t.Errorf("--json: %+v (page %d bytes)", doc, len(page))
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"report", "nope", "--repo", r, "--out", out}, "[PW_REPORT_UNKNOWN]"},
		{[]string{"report", "--repo", r, "--out", out, "--history", "0"}, "[PW_CLI_USAGE]"},
		{[]string{"report", "--repo", r, "--out", out, "--limit", "-1"}, "[PW_CLI_USAGE]"},
		{[]string{"report", "--repo", r, "--out", filepath.Join(dir, "missing", "r.html")}, "[PW_REPORT_WRITE]"},
	} {
		code, _, e := runCLI(t, c.args...)
		if code != ExitError || !strings.Contains(e, c.want) || strings.Count(e, "\n") != 1 {
			t.Errorf("%v: exit %d, %q (want %q on one line)", c.args[1:], code, e, c.want)
		}
	}
}

// The demo's report in a real browser: the pipeline's four tables and three edges, the
// copy's mismatch and its incident, the counts, no script error. With -screenshot the
// test rewrites docs/report-demo.png (the README shows it); without, it checks that the
// file is a PNG.
func TestDemoReportInBrowser(t *testing.T) {
	b := browsertest.Find(t)
	if !*screenshot {
		t.Setenv("TMPDIR", t.TempDir())
	} // else the screenshot shows the demo's directory in the system's temporary directory
	code, out, e := runCLI(t, "demo")
	if code != 0 {
		t.Fatalf("demo: exit %d: %s", code, e)
	}
	m := regexp.MustCompile(`The report is (\S+): open it`).FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("the demo names no report:\n%s", out)
	}
	t.Cleanup(func() { os.RemoveAll(filepath.Dir(m[1])) })
	doc := b.DOM(browsertest.URL(t, m[1], ""), 1280, 900)
	root := browsertest.Root(t, doc)
	if v, _ := browsertest.Attr(root, "data-errors"); v != "" {
		t.Errorf("script errors: %s", v)
	}
	if v, _ := browsertest.Attr(root, "data-ready"); v != "1" {
		t.Error("the page's script did not run")
	}
	var nodes, edges []string
	for _, n := range browsertest.Elements(doc, "g", "class~=node") {
		a, _ := browsertest.Attr(n, "data-artifact")
		s, _ := browsertest.Attr(n, "data-status")
		nodes = append(nodes, a+":"+s)
	}
	for _, n := range browsertest.Elements(doc, "g", "class~=edge") {
		s, _ := browsertest.Attr(n, "data-source")
		d, _ := browsertest.Attr(n, "data-target")
		v, _ := browsertest.Attr(n, "data-verdict")
		edges = append(edges, s+">"+d+":"+v)
	}
	// examples/shop/README.md: every table changed in version 2; the copy's corrupted row
	// is a copy_mismatch, which check recorded as an incident.
	if got, want := strings.Join(nodes, " "), "customers:changed daily_revenue:changed orders:changed orders_copy:incident"; got != want {
		t.Errorf("nodes %s, want %s", got, want)
	}
	if got, want := strings.Join(edges, " "), "customers>daily_revenue:source_changed orders>orders_copy:copy_mismatch orders_copy>daily_revenue:source_changed"; got != want {
		t.Errorf("edges %s, want %s", got, want)
	}
	counts := map[string]string{}
	for _, c := range browsertest.Elements(doc, "b", "data-count") {
		v, _ := browsertest.Attr(c, "data-count")
		counts[v] = browsertest.Text(c)
	}
	if counts["incident"] != "1" || counts["changed"] != "3" || counts["unchanged"] != "0" {
		t.Errorf("counts %v", counts)
	}
	text := browsertest.Text(doc)
	for _, want := range []string{`order_id=123  status "paid" in orders, "shipped" in orders_copy`, "+15", "−5", "~14"} {
		if !strings.Contains(text, want) {
			t.Errorf("the page does not show %q", want)
		}
	}
	shot := filepath.Join("..", "..", "docs", "report-demo.png")
	if *screenshot {
		b.Screenshot(browsertest.URL(t, m[1], ""), shot, 1100, 1250)
	}
	f, err := os.Open(shot)
	if err != nil {
		t.Fatalf("%v (regenerate with go test ./internal/cli -run TestDemoReportInBrowser -screenshot)", err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil || img.Bounds().Dx() < 800 {
		t.Errorf("%s is not a screenshot of the report: %v", shot, err)
	}
}
