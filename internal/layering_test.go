// Package internal_test enforces the layering of docs/ARCHITECTURE.md: a lower layer never
// imports a higher one. It reads import declarations of non-test files only.
package internal_test

import (
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

const module = "github.com/pipewhy/pipewhy/"

// allowed lists, for each package (a top-level directory, or a subdirectory with rules of
// its own), the other top-level PipeWhy packages its non-test code may import, or a single
// package by its path (a leaf such as "internal/hugemem"). The rule of the longest matching
// directory applies; a top-level package's own subpackages are always allowed.
var allowed = map[string][]string{
	// The HTML report, over the analyses it shows; a headless browser for tests only.
	"report":               {"snapshot", "repo", "compare", "lineage", "why", "incident"},
	"internal/browsertest": {"internal/testenv"}, // imported by tests only (testOnly)

	"normalize":          {"internal/civil"},
	"normalize/columnar": {"canonical", "internal/civil"}, // NESTED values are graphforge-canonical/1 bytes
	"source/duckdb":      {},
	"source/postgres":    {},
	"source/mysql":       {"internal/civil"},
	"arrays":             {},
	"snapshot":           {"internal/hugemem"},
	"canonical":          {},
	"canonical/arrowio":  {"internal/arrowfb"},
	"source":             {"internal/civil", "internal/hugemem", "internal/arrowfb"},
	"fingerprint":        {"normalize", "arrays", "internal/hugemem"},
	"repo":               {"snapshot", "source", "fingerprint", "normalize", "arrays"},
	"scan":               {"snapshot", "source", "fingerprint", "normalize", "arrays", "repo", "lineage"},
	"incident":           {"snapshot", "fingerprint", "normalize", "arrays", "repo", "config", "lineage", "why", "internal/tablefp", "internal/chain"},
	"why":                {"snapshot", "fingerprint", "normalize", "arrays", "repo", "scan", "source", "compare", "lineage"},
	"lineage":            {"snapshot", "source", "fingerprint", "normalize", "arrays", "repo", "config", "internal/tablefp", "internal/chain"},
	"compare":            {"snapshot", "fingerprint", "normalize", "arrays", "repo", "scan", "source"},
	"examples":           {},
	"config":             {"normalize"},
	"internal":           {"*"},
	"internal/hugemem":   {}, // a leaf: the standard library only
	"internal/civil":     {}, // a leaf: the standard library only
	"internal/arrowfb":   {}, // a leaf: the standard library only
	"internal/testenv":   {}, // a leaf, and imported by tests only (testOnly)
	"cmd":                {"internal"},
	"bench":              {"*"}, // benchmark programs may measure anything
}

// testOnly lists the packages that only tests may import.
var testOnly = map[string]bool{"internal/testenv": true, "source/sourcetest": true, "internal/browsertest": true}

func TestLayering(t *testing.T) {
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	checked := 0
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if name := d.Name(); path != root && (strings.HasPrefix(name, ".") || name == "testdata") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		rel, _ := filepath.Rel(root, path)
		top := strings.Split(filepath.ToSlash(rel), "/")[0]
		if !strings.Contains(filepath.ToSlash(rel), "/") {
			return nil // files at the root, if any
		}
		f, err := parser.ParseFile(fset, path, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		for _, imp := range f.Imports {
			p, _ := strconv.Unquote(imp.Path.Value)
			if !strings.HasPrefix(p, module) {
				continue
			}
			checked++
			depPath := strings.TrimPrefix(p, module)
			if testOnly[depPath] && !testOnly[filepath.ToSlash(filepath.Dir(rel))] { // a test-only package may use another
				t.Errorf("%s imports %s, which only tests may import", rel, p)
			}
			dep := strings.Split(depPath, "/")[0]
			if dep == top {
				continue
			}
			pkg := filepath.ToSlash(filepath.Dir(rel))
			rule, rules, known := ruleFor(pkg)
			if !known {
				t.Errorf("%s: package %q has no layering rule; add one to allowed", rel, top)
				continue
			}
			ok := false
			for _, r := range rules {
				if r == "*" || r == dep || r == depPath {
					ok = true
				}
			}
			if !ok {
				t.Errorf("%s imports %s: %q may not depend on %q (docs/ARCHITECTURE.md)", rel, p, rule, dep)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if checked == 0 {
		t.Fatal("no PipeWhy imports found: the walk did not see the module")
	}
}

// ruleFor returns the rule of the longest directory in allowed that contains pkg.
func ruleFor(pkg string) (string, []string, bool) {
	for dir := pkg; dir != "." && dir != ""; dir = filepath.ToSlash(filepath.Dir(dir)) {
		if rules, ok := allowed[dir]; ok {
			return dir, rules, true
		}
	}
	return "", nil, false
}

func TestRuleForLongestMatch(t *testing.T) {
	for pkg, want := range map[string]string{
		"normalize":                 "normalize",
		"normalize/columnar":        "normalize/columnar",
		"normalize/columnar/deeper": "normalize/columnar",
		"snapshot/vfs":              "snapshot",
		"internal/cli":              "internal",
		"internal/hugemem":          "internal/hugemem",
	} {
		if got, _, ok := ruleFor(pkg); !ok || got != want {
			t.Errorf("ruleFor(%q) = %q, %v; want %q", pkg, got, ok, want)
		}
	}
	if _, _, ok := ruleFor("nosuchpkg"); ok {
		t.Error("ruleFor found a rule for an unknown package")
	}
}
