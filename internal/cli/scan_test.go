package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
)

// shop is the sample data directory (examples/shop), from this package's directory.
const shop = "../../examples/shop"

func runCLI(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := Main(args, strings.NewReader(""), &out, &errb)
	return code, out.String(), errb.String()
}

func newRepo(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "repo")
	if code, _, e := runCLI(t, "init", "--repo", dir); code != 0 {
		t.Fatalf("init: exit %d: %s", code, e)
	}
	return dir
}

var snapRe = regexp.MustCompile(`snapshot ([0-9a-f]{32})`)

// scanShop scans examples/shop/vV/TABLE.csv with its schema and key; it returns the id.
func scanShop(t *testing.T, repoDir string, v int, table, key, resolution string, extra ...string) string {
	t.Helper()
	args := []string{"scan", "--repo", repoDir, "--schema", filepath.Join(shop, "schema", table+".json"),
		"--resolution", resolution, filepath.Join(shop, "v"+string(rune('0'+v)), table+".csv")}
	if key != "" {
		args = append(args, "--key", key)
	}
	args = append(args, extra...)
	code, out, e := runCLI(t, args...)
	if code != 0 {
		t.Fatalf("scan %s v%d: exit %d: %s", table, v, code, e)
	}
	m := snapRe.FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("scan printed no snapshot id: %q", out)
	}
	return m[1]
}

// treeOf lists every file under dir with its size, for "nothing was written" checks.
func treeOf(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		info, _ := d.Info()
		rel, _ := filepath.Rel(dir, p)
		out = append(out, fmt.Sprintf("%s %s %d", rel, info.Mode(), info.Size()))
		return nil
	})
	sort.Strings(out)
	return out
}

func sameTree(t *testing.T, before, after []string) {
	t.Helper()
	if strings.Join(before, "\n") != strings.Join(after, "\n") {
		t.Fatalf("repository changed on failure:\nbefore %v\nafter  %v", before, after)
	}
}

func TestScanPrintsSnapshotAndJSON(t *testing.T) {
	r := newRepo(t)
	id := scanShop(t, r, 1, "orders", "order_id", "record")
	code, out, e := runCLI(t, "scan", "--repo", r, "--json", "--schema", filepath.Join(shop, "schema", "orders.json"),
		filepath.Join(shop, "v2", "orders.csv"), "--key", "order_id", "--resolution", "value")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, e)
	}
	var sum struct {
		Snapshot   string  `json:"snapshot"`
		Parent     *string `json:"parent"`
		Artifact   string  `json:"artifact"`
		Rows       uint64  `json:"rows"`
		Resolution string  `json:"resolution"`
		Key        []string
		Coverage   struct {
			Status   string  `json:"status"`
			Expected *uint64 `json:"expected_records"`
			Returned uint64  `json:"returned_records"`
		} `json:"coverage"`
	}
	if err := json.Unmarshal([]byte(out), &sum); err != nil {
		t.Fatalf("scan --json: %v\n%s", err, out)
	}
	// examples/shop/README.md: orders has 210 rows in v2.
	if sum.Artifact != "orders" || sum.Rows != 210 || sum.Resolution != "value" || sum.Coverage.Status != "COMPLETE" ||
		sum.Coverage.Expected == nil || *sum.Coverage.Expected != 210 || sum.Coverage.Returned != 210 ||
		len(sum.Key) != 1 || sum.Key[0] != "order_id" {
		t.Errorf("summary = %+v", sum)
	}
	if sum.Parent == nil || *sum.Parent != id {
		t.Errorf("parent = %v, want the previous orders scan %s", sum.Parent, id)
	}
}

func TestScanBadInputPublishesNothing(t *testing.T) {
	r := newRepo(t)
	scanShop(t, r, 1, "customers", "customer_id", "record") // a non-empty store and log
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	dup := write("dup.csv", "id,v\n1,a\n2,b\n1,c\n")
	trunc := write("trunc.csv", "id,v\n1,a\n2,b\n3")
	good := write("good.csv", "id,v\n1,a\n2,b\n")
	cases := []struct {
		name string
		args []string
		want string // in stderr
	}{
		{"duplicate keys", []string{"scan", dup, "--key", "id", "--resolution", "record"}, "occur more than once"},
		{"unknown key column", []string{"scan", good, "--key", "nope", "--resolution", "record"}, `"nope"`},
		{"key at dataset resolution", []string{"scan", good, "--key", "id", "--resolution", "dataset"}, "record or value"},
		{"truncated file", []string{"scan", trunc}, "PW_SCAN_COVERAGE"},
		{"missing file", []string{"scan", filepath.Join(dir, "absent.csv")}, "PW_SOURCE_NOT_FOUND"},
		{"unknown resolution", []string{"scan", good, "--resolution", "cell"}, "resolution"},
		{"unknown profile", []string{"scan", good, "--profile", "loose"}, "profile"},
		{"bad address", []string{"scan", filepath.Join(dir, "x.unknown")}, "PW_SOURCE_ADDRESS"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			before := treeOf(t, r)
			code, _, e := runCLI(t, append(c.args, "--repo", r)...)
			if code != ExitError {
				t.Fatalf("exit %d, want 2; stderr %s", code, e)
			}
			if !strings.Contains(e, c.want) {
				t.Errorf("stderr %q does not mention %q", e, c.want)
			}
			sameTree(t, before, treeOf(t, r))
		})
	}
	// The duplicate key is named on stderr.
	_, _, e := runCLI(t, "scan", dup, "--key", "id", "--resolution", "record", "--repo", r)
	if !strings.Contains(e, `id="1"`) {
		t.Errorf("duplicate key not shown: %q", e)
	}
	// --allow-partial publishes the truncated file with PARTIAL coverage.
	code, out, e := runCLI(t, "scan", trunc, "--allow-partial", "--repo", r)
	if code != 0 || !strings.Contains(out, "PARTIAL") || !strings.Contains(out, "2 rows") {
		t.Errorf("allow-partial: exit %d out %q err %q", code, out, e)
	}
}

func TestNotARepository(t *testing.T) {
	empty := t.TempDir()
	for _, args := range [][]string{
		{"log", "--repo", empty},
		{"show", "--repo", empty, "abcd"},
		{"diff", "--repo", empty, "abcd", "abce"},
		{"scan", "--repo", empty, filepath.Join(shop, "v1", "orders.csv")},
	} {
		code, _, e := runCLI(t, args...)
		if code != ExitError || !strings.Contains(e, "not a pipewhy repository") {
			t.Errorf("%v: exit %d stderr %q", args, code, e)
		}
	}
	// Discovery from the working directory: none above a fresh temp dir.
	t.Chdir(empty)
	code, _, e := runCLI(t, "log")
	if code != ExitError || !strings.Contains(e, "not a pipewhy repository") {
		t.Errorf("log in a non-repo: exit %d stderr %q", code, e)
	}
}

func TestRepoDiscoveryFromSubdirectory(t *testing.T) {
	root := t.TempDir()
	t.Chdir(root)
	if code, _, e := runCLI(t, "init"); code != 0 {
		t.Fatalf("init: %s", e)
	}
	if code, _, _ := runCLI(t, "init"); code != ExitError {
		t.Errorf("second init: exit %d, want 2", code)
	}
	sub := filepath.Join(root, "a", "b")
	os.MkdirAll(sub, 0o755)
	t.Chdir(sub)
	if code, _, e := runCLI(t, "log"); code != 0 {
		t.Errorf("log from a subdirectory: exit %d: %s", code, e)
	}
}

// TestScanTruncatedParquet: a Parquet file cut short is refused (exit 2) and nothing
// is written to the repository.
func TestScanTruncatedParquet(t *testing.T) {
	r := newRepo(t)
	dir := t.TempDir()
	schema := arrow.NewSchema([]arrow.Field{{Name: "id", Type: arrow.PrimitiveTypes.Int64}}, nil)
	var buf bytes.Buffer
	w, err := pqarrow.NewFileWriter(schema, &buf, parquet.NewWriterProperties(), pqarrow.DefaultWriterProps())
	if err != nil {
		t.Fatal(err)
	}
	bld := array.NewRecordBuilder(memory.NewGoAllocator(), schema)
	for i := 0; i < 1000; i++ {
		bld.Field(0).(*array.Int64Builder).Append(int64(i))
	}
	rec := bld.NewRecordBatch()
	if err := w.Write(rec); err != nil {
		t.Fatal(err)
	}
	w.Close()
	full := filepath.Join(dir, "full.parquet")
	os.WriteFile(full, buf.Bytes(), 0o644)
	if code, _, e := runCLI(t, "scan", "--repo", r, full); code != 0 {
		t.Fatalf("intact file: %s", e)
	}
	for _, cut := range []int{buf.Len() / 2, buf.Len() - 3, 10} {
		p := filepath.Join(dir, "cut.parquet")
		os.WriteFile(p, buf.Bytes()[:cut], 0o644)
		before := treeOf(t, r)
		code, _, e := runCLI(t, "scan", "--repo", r, p)
		if code != ExitError || !strings.Contains(e, "PW_SOURCE_CORRUPT") {
			t.Errorf("cut at %d: exit %d stderr %q", cut, code, e)
		}
		sameTree(t, before, treeOf(t, r))
	}
}

// TestScanKeyImpliesRecord: --key without --resolution scans at record resolution;
// without --key the default stays dataset; an explicit --resolution dataset with --key
// is still refused, and a key configured in pipewhy.yaml does not change the default.
func TestScanKeyImpliesRecord(t *testing.T) {
	r := newRepo(t)
	orders := filepath.Join(shop, "v1", "orders.csv")
	res := func(args ...string) (int, string) {
		t.Helper()
		code, out, e := runCLI(t, append([]string{"scan", "--repo", r, "--json", orders}, args...)...)
		var got struct {
			Resolution string `json:"resolution"`
		}
		if code == 0 {
			if err := json.Unmarshal([]byte(out), &got); err != nil {
				t.Fatalf("scan --json: %v: %s", err, out)
			}
		}
		return code, got.Resolution + e
	}
	if code, got := res("--key", "order_id"); code != 0 || got != "record" {
		t.Errorf("--key alone: exit %d, resolution %q, want record", code, got)
	}
	if code, got := res(); code != 0 || got != "dataset" {
		t.Errorf("no --key: exit %d, resolution %q, want dataset", code, got)
	}
	if code, got := res("--key", "order_id", "--resolution", "value"); code != 0 || got != "value" {
		t.Errorf("--key with --resolution value: exit %d, resolution %q", code, got)
	}
	if code, got := res("--key", "order_id", "--resolution", "dataset"); code != ExitError || !strings.Contains(got, "PW_SCAN_OPTIONS") {
		t.Errorf("--key with --resolution dataset: exit %d, %q, want exit 2 PW_SCAN_OPTIONS", code, got)
	}
	proj := t.TempDir()
	cfg := "version: 1\nsources:\n  orders:\n    address: " + filepath.Join(mustAbs(t, shop), "v1", "orders.csv") + "\n    key: [order_id]\n"
	if err := os.WriteFile(filepath.Join(proj, "pipewhy.yaml"), []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, e := runCLI(t, "scan", "--repo", r, "--json", "--config", filepath.Join(proj, "pipewhy.yaml"), "orders")
	if code != 0 || !strings.Contains(out, `"resolution": "dataset"`) {
		t.Errorf("configured key, no resolution: exit %d, %s %s; want a dataset scan", code, out, e)
	}
}

func mustAbs(t *testing.T, p string) string {
	t.Helper()
	a, err := filepath.Abs(p)
	if err != nil {
		t.Fatal(err)
	}
	return a
}
