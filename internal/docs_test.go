package internal_test

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/pipewhy/pipewhy/internal/testenv"
)

var update = flag.Bool("update", false, "rewrite docs/sources.md from the adapters' package documentation")

const sourcesDocHeader = `# Source type mappings

How each database adapter maps its engine's column types to Arrow, and so to C2 words.
The authoritative text is each adapter's package documentation (` + "`source/<adapter>/doc.go`" + `);
this page copies its "Type mapping" section verbatim, and ` + "`internal/docs_test.go`" + ` fails when
the two drift apart (regenerate with ` + "`go test ./internal -run TestSourceTypeDocs -update`" + `).
File adapters (CSV, JSON lines, JSON arrays, Parquet, Arrow IPC, SQLite) are described in
` + "`source/doc.go`" + `, whose JSON type inference is copied below too. Arrow types then map to C2 as ` + "`normalize/columnar/doc.go`" + ` and
` + "`docs/contracts/C2-extensions.md`" + ` say; which representations compare equal across engines
under strict-v1 and logical-v1 is in ` + "`docs/compare.md`" + `.
`

// typeMapping returns the "# Type mapping" section of a package doc comment as text.
func typeMapping(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	on := false
	for _, l := range strings.Split(string(data), "\n") {
		if l == "// # Type mapping" {
			on = true
			continue
		}
		if !on {
			continue
		}
		if strings.HasPrefix(l, "// # ") || strings.HasPrefix(l, "package ") {
			break
		}
		l = strings.TrimPrefix(l, "//")
		l = strings.TrimPrefix(strings.TrimPrefix(l, " "), "\t")
		out = append(out, l)
	}
	if !on {
		t.Fatalf("%s has no '# Type mapping' section", path)
	}
	return strings.Trim(strings.Join(out, "\n"), "\n")
}

// TestSourceTypeDocs keeps docs/sources.md equal to the adapters' own type tables.
func TestSourceTypeDocs(t *testing.T) {
	var b strings.Builder
	b.WriteString(sourcesDocHeader)
	for _, s := range []struct{ title, path string }{
		{"PostgreSQL", "source/postgres/doc.go"},
		{"MariaDB / MySQL", "source/mysql/doc.go"},
		{"DuckDB", "source/duckdb/doc.go"},
		{"JSON lines and JSON arrays", "source/doc.go"},
	} {
		b.WriteString("\n## " + s.title + " (`" + s.path + "`)\n\n```text\n")
		b.WriteString(typeMapping(t, filepath.Join("..", s.path)))
		b.WriteString("\n```\n")
	}
	want := b.String()
	path := filepath.Join("..", "docs", "sources.md")
	if *update {
		if err := os.WriteFile(path, []byte(want), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != want {
		t.Fatal("docs/sources.md differs from the adapters' type mapping sections; regenerate with -update and review")
	}
}

var (
	ruleID    = regexp.MustCompile(`PW-(\d\d)\.(\d\d)`)
	ruleGroup = regexp.MustCompile(`PW-(\d\d)(?:[^.\d]|\.(?:[^\d]|$)|$)`)
	// A range in a heading: "PW-02.01–PW-02.04" or "PW-03.11–.22".
	ruleRange = regexp.MustCompile(`PW-(\d\d)\.(\d\d)\s*[–-]\s*(?:PW-\d\d)?\.(\d\d)`)
)

// contractRules returns the rule ids the headings of docs/contracts define ("PW-02.05"),
// ranges in a heading expanded, and the groups they belong to ("PW-02"), with the page of
// each.
func contractRules(t *testing.T) map[string]string {
	t.Helper()
	pages, err := filepath.Glob(filepath.Join("..", "docs", "contracts", "*.md"))
	if err != nil || len(pages) == 0 {
		t.Fatalf("no contract pages: %v", err)
	}
	defined := map[string]string{}
	for _, p := range pages {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range strings.Split(string(data), "\n") {
			if !strings.HasPrefix(l, "#") && !strings.HasPrefix(l, `<a id="pw-`) {
				continue
			}
			l = strings.ToUpper(l) // anchors are lowercase
			for _, m := range ruleRange.FindAllStringSubmatch(l, -1) {
				lo, _ := strconv.Atoi(m[2])
				hi, _ := strconv.Atoi(m[3])
				for i := lo; i <= hi; i++ {
					defined[fmt.Sprintf("PW-%s.%02d", m[1], i)] = p
				}
			}
			for _, m := range ruleID.FindAllStringSubmatch(l, -1) {
				defined[m[0]] = p
				defined["PW-"+m[1]] = p
			}
			for _, m := range ruleGroup.FindAllStringSubmatch(l, -1) {
				defined["PW-"+m[1]] = p
			}
		}
	}
	return defined
}

// TestRuleIDsResolve: every rule id that Go code, scripts or Markdown in the repository
// cite ("PW-07.04", or a group such as "PW-10") is a heading or anchor of a page in
// docs/contracts, so that no reference depends on documents outside the repository.
func TestRuleIDsResolve(t *testing.T) {
	defined := contractRules(t)
	for _, want := range []string{"PW-02.01", "PW-02.04", "PW-02.13", "PW-03.10", "PW-03.23", "PW-07.18", "PW-09.13", "PW-10"} {
		if defined[want] == "" { // the parsing itself: a range, a plain id, a group
			t.Errorf("docs/contracts does not define %s", want)
		}
	}
	cited := 0
	err := filepath.WalkDir("..", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if path != ".." && strings.HasPrefix(d.Name(), ".") {
				return filepath.SkipDir
			}
			return nil
		}
		switch filepath.Ext(path) {
		case ".go", ".md", ".py", ".sh":
		default:
			return nil
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for n, l := range strings.Split(string(data), "\n") {
			ids := ruleID.FindAllString(l, -1)
			for _, m := range ruleGroup.FindAllStringSubmatch(l, -1) {
				ids = append(ids, "PW-"+m[1])
			}
			for _, id := range ids {
				cited++
				if defined[id] == "" {
					t.Errorf("%s:%d cites %s, which no heading of docs/contracts defines", path, n+1, id)
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if cited < 100 {
		t.Fatalf("only %d rule citations found: the walk missed the repository", cited)
	}
}

// TestContractCopies: the contracts docs/contracts copies from ../shared/contracts are
// byte-identical to them.
func TestContractCopies(t *testing.T) {
	for _, name := range []string{"typed-values-json.md", "graphforge-vectors-json.md"} {
		want, err := os.ReadFile(filepath.Join("..", "..", "shared", "contracts", name))
		if errors.Is(err, fs.ErrNotExist) {
			testenv.Missing(t, testenv.Shared, "../shared/contracts/%s is not beside this checkout", name)
		}
		if err != nil {
			t.Fatal(err)
		}
		got, err := os.ReadFile(filepath.Join("..", "docs", "contracts", name))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("docs/contracts/%s differs from ../shared/contracts/%s", name, name)
		}
	}
}
