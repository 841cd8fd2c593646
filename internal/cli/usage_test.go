package cli

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/spf13/cobra"
)

var codeRe = regexp.MustCompile(`\[(PW_[A-Z_]+|[a-z_]+)\]`)

// errorCase is a command that fails with exit status 2 and the one line it prints.
type errorCase struct {
	name  string
	args  []string
	code  string // the one code
	has   string // words the line must hold
	path  string // a path the line holds exactly once
	usage string // the command whose help the line points to; "" for no usage error
}

// errorCases are the failures TestErrorsOneLine and TestJSONErrors run.
func errorCases(t *testing.T) []errorCase {
	r := newRepo(t)
	dir := t.TempDir()
	missing := filepath.Join(dir, "absent.csv")
	orders := filepath.Join(shop, "v1", "orders.csv")
	return []errorCase{
		{"missing file", []string{"scan", "--repo", r, missing}, "PW_SOURCE_NOT_FOUND", "no such file", missing, ""},
		{"missing schema", []string{"scan", "--repo", r, "--schema", filepath.Join(dir, "s.json"), orders}, "PW_SOURCE_IO", "--schema", filepath.Join(dir, "s.json"), ""},
		{"compare side B", []string{"compare", "--key", "order_id", orders, missing}, "PW_SOURCE_NOT_FOUND", "side B", missing, ""},
		{"unknown key", []string{"scan", "--repo", r, "--resolution", "record", "--key", "nope", orders}, "PW_SCAN_KEY",
			`key column "nope" is not a column of the source (its columns: order_id, customer_id, placed_at, status, amount)`, "", ""},
		{"unknown key (compare)", []string{"compare", "--key", "nope", orders, orders}, "PW_COMPARE_OPTIONS",
			`key column "nope" is not a column of both sides (columns of both: order_id, customer_id, placed_at, status, amount)`, "", ""},
		{"duplicate key", []string{"scan", "--repo", r, "--resolution", "record", "--key", "customer_id", orders}, "PW_SCAN_DUPLICATE_KEY",
			"a key must identify one record: name other or more key columns with --key", "", ""},
		{"duplicate key (compare)", []string{"compare", "--key", "customer_id", orders, orders}, "PW_SCAN_DUPLICATE_KEY",
			"a key must identify one record: name other or more key columns with --key", "", ""},
		{"not a repository", []string{"log", "--repo", dir}, "PW_REPO_NOT_REPO", "not a pipewhy repository", dir, ""},
		{"unknown id", []string{"show", "--repo", r, "abcd"}, "PW_REPO_UNKNOWN_ID", "no snapshot abcd", "", ""},
		{"no argument", []string{"scan", "--repo", r}, "PW_CLI_USAGE", "usage: pipewhy scan SOURCE", "", "pipewhy scan"},
		{"unknown flag", []string{"diff", "--colour"}, "PW_CLI_USAGE", "unknown flag: --colour", "", "pipewhy diff"},
		{"bad flag value", []string{"log", "-n", "x"}, "PW_CLI_USAGE", `invalid argument "x"`, "", "pipewhy log"},
		{"negative -n", []string{"log", "-n", "-1"}, "PW_CLI_USAGE", "-n -1", "", "pipewhy log"},
		{"unknown command", []string{"scna"}, "PW_CLI_USAGE", `unknown command "scna" for "pipewhy" (did you mean scan?)`, "", "pipewhy"},
		{"unknown subcommand", []string{"snapshot", "lst"}, "PW_CLI_USAGE", `unknown command "lst" for "pipewhy snapshot" (did you mean list?)`, "", "pipewhy snapshot"},
	}
}

// TestErrorsOneLine: every error is one line on stderr, with exactly one code and each
// path once; a missing file says "no such file"; usage errors end with a pointer to
// the command's help.
func TestErrorsOneLine(t *testing.T) {
	cases := errorCases(t)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			code, out, e := runCLI(t, c.args...)
			if code != ExitError || out != "" {
				t.Fatalf("exit %d, stdout %q, stderr %q", code, out, e)
			}
			if strings.Count(e, "\n") != 1 || !strings.HasPrefix(e, "pipewhy: ") {
				t.Errorf("not one line: %q", e)
			}
			if codes := codeRe.FindAllStringSubmatch(e, -1); len(codes) != 1 || codes[0][1] != c.code {
				t.Errorf("codes %v in %q, want only %s", codes, e, c.code)
			}
			if !strings.Contains(e, c.has) {
				t.Errorf("%q lacks %q", e, c.has)
			}
			if c.path != "" && strings.Count(e, c.path) != 1 {
				t.Errorf("%q names %s %d times, want once", e, c.path, strings.Count(e, c.path))
			}
			hint := "; see '" + c.usage + " --help'\n"
			if got := strings.HasSuffix(e, hint); got != (c.usage != "") {
				t.Errorf("%q: usage hint %v, want %v (%q)", e, got, c.usage != "", hint)
			}
		})
	}
}

func TestVersionFlag(t *testing.T) {
	for _, args := range [][]string{{"--version"}, {"version"}} {
		code, out, _ := runCLI(t, args...)
		if code != 0 || out != "pipewhy (devel)\n" {
			t.Errorf("%v: exit %d %q", args, code, out)
		}
	}
}

// TestLogMaxCount: -n N lists the newest N scans (of the artifact, when named).
func TestLogMaxCount(t *testing.T) {
	r := newRepo(t)
	a := scanShop(t, r, 1, "orders", "", "dataset")
	b := scanShop(t, r, 2, "orders", "", "dataset")
	c := scanShop(t, r, 1, "customers", "", "dataset")
	for _, tc := range []struct {
		args []string
		want []string
	}{
		{[]string{"-n", "2"}, []string{c, b}},
		{[]string{"-n", "1", "orders"}, []string{b}},
		{[]string{"--max-count", "5"}, []string{c, b, a}},
		{[]string{"-n", "0"}, nil},
		{nil, []string{c, b, a}},
	} {
		code, out, e := runCLI(t, append([]string{"log", "--repo", r}, tc.args...)...)
		var got []string
		for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
			if l != "" {
				got = append(got, strings.Fields(l)[0])
			}
		}
		if code != 0 || strings.Join(got, ",") != strings.Join(tc.want, ",") {
			t.Errorf("log %v: exit %d %v, want %v: %s", tc.args, code, got, tc.want, e)
		}
	}
	// diff by artifact: orders~1 and orders are the two scans of orders, a and b.
	codeIDs, byID, _ := runCLI(t, "diff", "--repo", r, a, b)
	codeNames, byName, e := runCLI(t, "diff", "--repo", r, "orders~1", "orders")
	if codeNames != codeIDs || byName != byID || byID == "" {
		t.Errorf("diff orders~1 orders: exit %d %q (%s), want exit %d %q", codeNames, byName, e, codeIDs, byID)
	}
}

// TestRepoDiscovery: --repo takes the repository or the project folder holding it, and
// the snapshot commands find the repository like the others do (here, from a
// subdirectory of the project, without --repo).
func TestRepoDiscovery(t *testing.T) {
	orders, err := filepath.Abs(filepath.Join(shop, "v1", "orders.csv"))
	if err != nil {
		t.Fatal(err)
	}
	project := t.TempDir()
	t.Chdir(project)
	if code, _, e := runCLI(t, "init"); code != 0 {
		t.Fatal(e)
	}
	id := snapRe.FindStringSubmatch(mustRun(t, "scan", orders))[1]
	sub := filepath.Join(project, "a", "b")
	os.MkdirAll(sub, 0o755)
	t.Chdir(sub)
	for _, args := range [][]string{
		{"log"}, {"log", "--repo", project}, {"log", "--repo", filepath.Join(project, ".pipewhy")},
		{"snapshot", "list"}, {"snapshot", "verify"}, {"snapshot", "list", "--repo", project},
		{"snapshot", "show", id[:6]}, {"show", id[:6], "--repo", project},
	} {
		code, out, e := runCLI(t, args...)
		if code != 0 || !strings.Contains(out, id) {
			t.Errorf("%v: exit %d, stdout %q, stderr %q", args, code, out, e)
		}
	}
}

// TestHelp: help speaks the user's words; contract terms are in docs/scan.md, which
// the help names; show and snapshot show say how they differ; scan and compare describe
// --key and --profile alike.
func TestHelp(t *testing.T) {
	help := func(args ...string) string {
		t.Helper()
		code, out, e := runCLI(t, append(args, "--help")...)
		if code != 0 {
			t.Fatalf("%v --help: exit %d %s", args, code, e)
		}
		return out
	}
	scanHelp := help("scan")
	long, _, _ := strings.Cut(scanHelp, "Usage:")
	for _, term := range []string{"C2", "C3", "C5", "PW-0", "normaliz", "fingerprint context", "canonical words"} {
		if strings.Contains(long, term) {
			t.Errorf("scan --help speaks of %q", term)
		}
	}
	if n := strings.Count(long, "\n"); n > 30 || !strings.Contains(long, "docs/scan.md") {
		t.Errorf("scan --help: %d lines before the flags, or no pointer to docs/scan.md:\n%s", n, long)
	}
	if b, err := os.ReadFile("../../docs/scan.md"); err != nil || !strings.Contains(string(b), "C2") || !strings.Contains(string(b), "## Memory") {
		t.Errorf("docs/scan.md does not hold the details: %v", err)
	}
	if !strings.Contains(help("show"), "'pipewhy snapshot show ID' shows instead how a snapshot is stored") ||
		!strings.Contains(help("snapshot"), "'pipewhy show ID' shows what a scan observed") {
		t.Error("show and snapshot show do not say how they differ")
	}
	compareHelp := help("compare")
	for _, flag := range []string{keyHelp, profileHelp} {
		if !strings.Contains(strings.Join(strings.Fields(scanHelp), " "), flag) || !strings.Contains(strings.Join(strings.Fields(compareHelp), " "), flag) {
			t.Errorf("scan and compare describe a flag differently: %q", flag)
		}
	}
}

// mustRun runs a command that must succeed and returns its stdout.
func mustRun(t *testing.T, args ...string) string {
	t.Helper()
	code, out, e := runCLI(t, args...)
	if code != 0 {
		t.Fatalf("%v: exit %d: %s", args, code, e)
	}
	return out
}

// TestJSONErrors: a command asked for --json that fails writes one JSON document on
// stdout, {"error": {"code", "message"}}, whose code is the one the line on stderr ends
// with and whose message is that line without it; the exit status is unchanged. A
// command without --json (the root) writes nothing on stdout.
func TestJSONErrors(t *testing.T) {
	for _, c := range errorCases(t) {
		t.Run(c.name, func(t *testing.T) {
			code, out, e := runCLI(t, append(c.args, "--json")...)
			if code != ExitError {
				t.Fatalf("exit %d, stdout %q, stderr %q", code, out, e)
			}
			if c.usage == "pipewhy" {
				if out != "" {
					t.Fatalf("the root has no --json, yet stdout is %q", out)
				}
				return
			}
			checkJSONError(t, out, e, c.code)
		})
	}
	// A code that the message of its error holds too is shown once, at the end.
	r := newRepo(t)
	code, out, e := runCLI(t, "lineage", "add", "a", "b", "--relation", "derived", "--repo", r, "--json")
	if code != ExitError || strings.Count(e, "PW_LINEAGE_UNKNOWN") != 1 {
		t.Fatalf("lineage: exit %d, stderr %q", code, e)
	}
	checkJSONError(t, out, e, "PW_LINEAGE_UNKNOWN")
}

// TestJSONErrorExitDifference: a failed check (exit status 1) with an error, a corrupt
// snapshot, is reported the same way, with the integrity code.
func TestJSONErrorExitDifference(t *testing.T) {
	root, a, _ := testStore(t)
	p := filepath.Join(root, "snapshots", a.String(), "array-ids.bin")
	data, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	data[0] ^= 1
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, e := run(t, "", "snapshot", "show", "--store", root, a.String(), "--json")
	if code != ExitDifference {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, out, e)
	}
	checkJSONError(t, out, e, "storage_integrity")
}

// checkJSONError checks that stdout is exactly the JSON error of the one line on stderr.
func checkJSONError(t *testing.T, stdout, stderr, wantCode string) {
	t.Helper()
	var doc struct {
		Error struct {
			Code    string `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}
	dec := json.NewDecoder(strings.NewReader(stdout))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&doc); err != nil || dec.More() {
		t.Fatalf("stdout is not one JSON error object (%v): %q", err, stdout)
	}
	if doc.Error.Code != wantCode {
		t.Errorf("code %q, want %q", doc.Error.Code, wantCode)
	}
	line := strings.TrimSuffix(strings.TrimPrefix(stderr, "pipewhy: "), "\n")
	if want := strings.Replace(line, " ["+wantCode+"]", "", 1); doc.Error.Message != want || want == line {
		t.Errorf("message %q, want the line without its code: %q", doc.Error.Message, line)
	}
}

// TestJSONErrorAfterOutput: a --json command that already wrote its document when it
// failed gets no second one (the line on stderr reports the failure); an error without a
// code of its own is reported with CodeError.
func TestJSONErrorAfterOutput(t *testing.T) {
	cmd := &cobra.Command{Use: "x"}
	cmd.Flags().Bool("json", false, "")
	if err := cmd.Flags().Set("json", "true"); err != nil {
		t.Fatal(err)
	}
	for _, wrote := range []bool{true, false} {
		var out, errb bytes.Buffer
		code := finish(streams{out: &out, err: &errb}, wrote, cmd, nil, errors.New("disk on fire"))
		if code != ExitError || errb.String() != "pipewhy: disk on fire [PW_CLI_ERROR]\n" {
			t.Errorf("wrote %v: exit %d, stderr %q", wrote, code, errb.String())
		}
		if wrote && out.Len() != 0 {
			t.Errorf("a second document after the command's own: %q", out.String())
		}
		if !wrote {
			checkJSONError(t, out.String(), errb.String(), CodeError)
		}
	}
}
