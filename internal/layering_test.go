// Package internal_test enforces the layering of docs/ARCHITECTURE.md: a lower layer never
// imports a higher one. It reads import declarations of non-test files only.
package internal_test

import (
	"go/ast"
	"go/parser"
	"path"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

const module = "github.com/pipewhy/pipewhy/"

// allowed lists, for each package (a top-level directory, or a subdirectory with rules of
// its own), the other top-level PipeWhy packages its non-test code may import, or a single
// package by its path (a leaf such as "internal/hugemem"). The rule of the longest matching
// directory applies; a top-level package's own subpackages are always allowed. Under
// internal/ every package is a unit of its own: it needs a rule, and may import another
// internal package only when its rule names it (default deny).
var allowed = map[string][]string{
	// The HTML report, over the analyses it shows; a headless browser for tests only.
	"report":               {"snapshot", "repo", "compare", "lineage", "why", "incident", "internal/human", "internal/errcode"},
	"internal/browsertest": {"internal/testenv"}, // imported by tests only (testOnly)

	"normalize":          {"internal/civil", "internal/errcode"},
	"normalize/columnar": {"canonical", "internal/civil", "internal/decimaltext"}, // NESTED values are graphforge-canonical/1 bytes
	"normalize/c2text":   {},                                                      // C2 values as text for people: normalize only
	"source/duckdb":      {},
	"source/postgres":    {},
	"source/mysql":       {"internal/civil"},
	"arrays":             {"internal/errcode"},
	"snapshot":           {"internal/hugemem"},
	"canonical":          {"internal/errcode"},
	"canonical/arrowio":  {"internal/arrowfb"},
	"source":             {"internal/civil", "internal/hugemem", "internal/arrowfb", "internal/decimaltext", "internal/errcode"},
	"fingerprint":        {"normalize", "arrays", "internal/civil", "internal/hugemem", "internal/errcode"},
	"repo":               {"snapshot", "source", "fingerprint", "normalize", "arrays", "internal/errcode"},
	"scan":               {"snapshot", "source", "fingerprint", "normalize", "arrays", "repo", "lineage", "internal/hugemem", "internal/errcode"},
	"incident":           {"snapshot", "fingerprint", "normalize", "arrays", "repo", "config", "lineage", "why", "internal/tablefp", "internal/chain", "internal/errcode"},
	"retention":          {"snapshot", "repo", "lineage", "incident", "internal/errcode"}, // prune: the scans, and the histories that refer to them
	"why":                {"snapshot", "fingerprint", "normalize", "arrays", "repo", "scan", "source", "compare", "lineage", "internal/human", "internal/errcode"},
	"lineage":            {"snapshot", "source", "fingerprint", "normalize", "arrays", "repo", "config", "internal/tablefp", "internal/chain", "internal/errcode"},
	"compare":            {"snapshot", "fingerprint", "normalize", "repo", "source", "internal/errcode"}, // source: type names (no adapter, no scan)
	"compare/live":       {"snapshot", "fingerprint", "normalize", "repo", "scan", "source"},
	"examples":           {},
	"config":             {"normalize"},
	"internal/cli": {"canonical", "compare", "config", "examples", "fingerprint", "incident", "lineage", "normalize", "repo",
		"report", "retention", "scan", "snapshot", "source", "why", "internal/errcode", "internal/human"}, // the command: every library package
	"internal/tablefp": {"fingerprint", "normalize", "snapshot"},
	"internal/chain":   {"fingerprint", "snapshot", "internal/tablefp"},
	"internal/cputime": {}, // a leaf: the standard library only
	"internal/hugemem": {}, // a leaf: the standard library only
	"internal/civil":   {}, // a leaf: the standard library only
	"internal/arrowfb": {}, // a leaf: the standard library only
	"internal/errcode": {}, // a leaf: the standard library only
	"internal/human":   {}, // a leaf: the standard library only
	"internal/mutant":  {}, // a leaf: the standard library only; imported by mutated code through go test -overlay (tools/mutate)
	"internal/testenv": {}, // a leaf, and imported by tests only (testOnly)
	"cmd":              {"internal/cli"},
	"bench":            {"*"}, // benchmark programs may measure anything

	// A leaf: arrow-go only (the Arrow extension type source and normalize/columnar share).
	"internal/decimaltext": {},
}

// testOnly lists the packages that only tests may import.
// They may import each other.
var testOnly = map[string]bool{"internal/testenv": true, "source/sourcetest": true, "source/sourcetest/confdata": true, "internal/browsertest": true}

func TestLayering(t *testing.T) {
	checked := 0
	moduleFiles(t, parser.ImportsOnly, func(rel string, f *ast.File) {
		if !strings.Contains(rel, "/") {
			return // files at the root, if any
		}
		pkg := path.Dir(rel)
		for _, imp := range f.Imports {
			p, _ := strconv.Unquote(imp.Path.Value)
			if !strings.HasPrefix(p, module) {
				continue
			}
			checked++
			depPath := strings.TrimPrefix(p, module)
			if testOnly[depPath] && !testOnly[pkg] {
				t.Errorf("%s imports %s, which only tests may import", rel, p)
			}
			dep := unit(depPath)
			if dep == unit(pkg) {
				continue
			}
			rule, rules, known := ruleFor(pkg)
			if !known {
				t.Errorf("%s: package %q has no layering rule; add one to allowed", rel, pkg)
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
	})
	if checked == 0 {
		t.Fatal("no PipeWhy imports found: the walk did not see the module")
	}
}

// unit is the package an import path belongs to for the layering: its top-level
// directory, or under internal/ the package itself (internal/civil, internal/cli).
func unit(pkg string) string {
	parts := strings.Split(pkg, "/")
	if parts[0] == "internal" && len(parts) > 1 {
		return parts[0] + "/" + parts[1]
	}
	return parts[0]
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
		"internal/cli":              "internal/cli",
		"internal/hugemem":          "internal/hugemem",
	} {
		if got, _, ok := ruleFor(pkg); !ok || got != want {
			t.Errorf("ruleFor(%q) = %q, %v; want %q", pkg, got, ok, want)
		}
	}
	for _, pkg := range []string{"nosuchpkg", "internal/nosuchpkg"} {
		if _, _, ok := ruleFor(pkg); ok {
			t.Errorf("ruleFor found a rule for the unknown package %s", pkg)
		}
	}
	for pkg, want := range map[string]string{"internal/cli": "internal/cli", "internal/cli/sub": "internal/cli",
		"source/duckdb": "source", "internal": "internal"} {
		if got := unit(pkg); got != want {
			t.Errorf("unit(%q) = %q, want %q", pkg, got, want)
		}
	}
}
