package cli

import (
	"encoding/json"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"
)

func TestLogAndShow(t *testing.T) {
	r := newRepo(t)
	if code, out, _ := runCLI(t, "log", "--repo", r); code != 0 || out != "" {
		t.Fatalf("empty log: exit %d %q", code, out)
	}
	a := scanShop(t, r, 1, "orders", "order_id", "record")
	b := scanShop(t, r, 1, "customers", "", "dataset")
	code, out, _ := runCLI(t, "log", "--repo", r)
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if code != 0 || len(lines) != 2 || !strings.HasPrefix(lines[0], b) || !strings.HasPrefix(lines[1], a) {
		t.Fatalf("log (newest first): exit %d\n%s", code, out)
	}
	code, out, _ = runCLI(t, "log", "--repo", r, "--json", "orders")
	var entries []map[string]any
	if code != 0 || json.Unmarshal([]byte(out), &entries) != nil || len(entries) != 1 || entries[0]["snapshot"] != a ||
		entries[0]["artifact"] != "orders" || entries[0]["rows"] != float64(200) {
		t.Fatalf("log --json orders: %s", out)
	}
	code, out, _ = runCLI(t, "show", "--repo", r, a[:6])
	for _, s := range []string{a, "orders", "COMPLETE", "200 of 200 records", "key order_id", "amount", "decimal"} {
		if code != 0 || !strings.Contains(out, s) {
			t.Errorf("show lacks %q (exit %d):\n%s", s, code, out)
		}
	}
	// By artifact: orders is its newest scan; the scan before it does not exist.
	if code, out, _ := runCLI(t, "show", "--repo", r, "orders"); code != 0 || !strings.HasPrefix(out, "snapshot    "+a) {
		t.Errorf("show orders: exit %d\n%s", code, out)
	}
	if code, _, e := runCLI(t, "show", "--repo", r, "orders~1"); code != ExitError || !strings.Contains(e, `artifact "orders" has 1 scan (orders~0)`) {
		t.Errorf("show orders~1: exit %d %q", code, e)
	}
	code, out, _ = runCLI(t, "show", "--repo", r, "--json", a)
	var doc struct {
		Snapshot string
		Rows     uint64
		Key      []string
		Coverage struct{ Status string }
		Fields   []struct{ Name, Type string }
	}
	if code != 0 || json.Unmarshal([]byte(out), &doc) != nil || doc.Snapshot != a || doc.Rows != 200 ||
		doc.Coverage.Status != "COMPLETE" || len(doc.Fields) != 5 || doc.Fields[4].Name != "amount" || doc.Fields[4].Type != "decimal" {
		t.Errorf("show --json: %s", out)
	}
}

// TestDemo: the demo shows the expected differences and prints every command it ran
// completely: run again as printed (real paths, every flag), each works, and the
// diffs print what the demo printed.
func TestDemo(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp) // the demo's directory, which it keeps
	code, out, e := runCLI(t, "demo")
	if code != 0 {
		t.Fatalf("demo: exit %d: %s", code, e)
	}
	for _, s := range []string{"+15 added", "−5 removed", "~14 changed", "customer_id=7  email", "day=\"2026-11-21\"",
		// why daily_revenue finds the corrupted copied row (examples/shop/README.md).
		"why daily_revenue --repo", "orders_copy's COPY of orders does not match: 1 record differs (1 changed)  [copy_mismatch]",
		`order_id=123  status "paid" in orders, "shipped" in orders_copy`,
		"orders ─copy─► orders_copy", "models/daily_revenue.sql─► daily_revenue"} {
		if !strings.Contains(out, s) {
			t.Errorf("demo output lacks %q", s)
		}
	}
	self := invocation(os.Args[0]) + " "
	blocks := strings.Split(out, "$ ")[1:]
	if len(blocks) != 17 { // init, lineage, two scans of each of the four tables, a diff of each, why, check, report
		t.Fatalf("%d commands, want 17:\n%s", len(blocks), out)
	}
	if last := blocks[len(blocks)-1]; !strings.Contains(last, " report --repo ") || !strings.Contains(last, "--out "+tmp) {
		t.Errorf("the last command is not the report:\n%s", last)
	}
	scans := 0
	for _, b := range blocks {
		line, printed, _ := strings.Cut(b, "\n")
		if !strings.HasPrefix(line, self) {
			t.Fatalf("command %q does not start with %q", line, self)
		}
		args := shellSplit(t, strings.TrimPrefix(line, self))
		for _, a := range args {
			if strings.HasPrefix(a, tmp) {
				if _, err := os.Stat(a); err != nil && args[0] != "init" {
					t.Errorf("%s: %v", line, err)
				}
			}
		}
		switch args[0] {
		case "init":
			continue // the repository exists now
		case "scan":
			scans++
			if !slices.Contains(args, "--schema") || !slices.Contains(args, "--repo") || !slices.Contains(args, "--key") {
				t.Errorf("scan command without --schema, --repo or --key: %s", line)
			}
		}
		code, again, e := runCLI(t, args...)
		if code != ExitOK && !((args[0] == "diff" || args[0] == "why" || args[0] == "check") && code == ExitDifference) {
			t.Errorf("%s: exit %d: %s", line, code, e)
		}
		// What the demo printed after the diff command starts with the diff's output.
		if args[0] == "diff" && (again == "" || !strings.HasPrefix(printed, again)) {
			t.Errorf("%s prints, run again:\n%s\nwhere the demo printed:\n%s", line, again, printed)
		}
	}
	if scans != 8 {
		t.Errorf("%d scans, want 8", scans)
	}
	if !strings.Contains(out, "Remove them with: rm -rf "+tmp) {
		t.Errorf("the demo does not say where it left its files:\n%s", out)
	}
	m := regexp.MustCompile(`The report is (\S+): open it in a browser`).FindStringSubmatch(out)
	if m == nil || !strings.HasPrefix(m[1], tmp) {
		t.Fatalf("the demo does not say where its report is:\n%s", out)
	}
	if st, err := os.Stat(m[1]); err != nil || st.Size() == 0 {
		t.Errorf("the report %s: %v", m[1], err)
	}
}

// shellSplit splits a command line as a POSIX shell does for the quoting shellQuote
// produces (words separated by spaces, single-quoted parts, '\” for a quote).
func shellSplit(t *testing.T, line string) []string {
	t.Helper()
	var out []string
	var cur strings.Builder
	in, word := false, false
	for i := 0; i < len(line); i++ {
		c := line[i]
		switch {
		case c == '\'' && !in:
			in, word = true, true
		case c == '\'' && in:
			in = false
		case c == '\\' && !in && i+1 < len(line):
			i++
			cur.WriteByte(line[i])
		case c == ' ' && !in:
			if word {
				out = append(out, cur.String())
				cur.Reset()
				word = false
			}
		default:
			cur.WriteByte(c)
			word = true
		}
	}
	if in {
		t.Fatalf("unterminated quote in %q", line)
	}
	if word {
		out = append(out, cur.String())
	}
	return out
}

func TestShellQuote(t *testing.T) {
	for _, s := range []string{"plain/path.csv", "with space", "it's", "", "--key", "a'b'c", "$HOME", "x;y"} {
		if got := shellSplit(t, "cmd "+shellQuote(s)); len(got) != 2 || got[1] != s {
			t.Errorf("shellQuote(%q) = %s splits to %q", s, shellQuote(s), got)
		}
	}
	for argv0, want := range map[string]string{
		"./pipewhy":                          "./pipewhy",
		"pipewhy":                            "pipewhy",
		"/tmp/go-build123/b001/exe/pipewhy":  "go run ./cmd/pipewhy",
		"/opt/pipe why/pipewhy":              "'/opt/pipe why/pipewhy'",
		"/home/u/go-build-tools/bin/pipewhy": "/home/u/go-build-tools/bin/pipewhy",
	} {
		if got := invocation(argv0); got != want {
			t.Errorf("invocation(%q) = %q, want %q", argv0, got, want)
		}
	}
}
