package internal_test

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
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
