package main

import (
	"encoding/json"
	"fmt"
	"go/ast"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"golang.org/x/tools/go/packages"
)

const runtimePkg = "github.com/pipewhy/pipewhy/internal/mutant"

// pkgMutants is one package's files, sites and mutants.
type pkgMutants struct {
	dir     string // the package directory, relative to the module root
	files   []*srcFile
	mutants []*Mutant
	nameEnd map[*srcFile]int // offset of the end of the package name, where the import goes
	alias   string
	extra   map[string][]byte // files that exist only in the overlay (the rewriter's test)
}

// load parses and type-checks the package in dir (non-test files) and finds its sites in
// the files named by only (all when empty).
func load(root, dir string, only map[string]bool, extra map[string][]byte) (*pkgMutants, error) {
	cfg := &packages.Config{
		Mode:    packages.NeedName | packages.NeedFiles | packages.NeedSyntax | packages.NeedTypes | packages.NeedTypesInfo,
		Dir:     root,
		Overlay: extra,
	}
	pkgs, err := packages.Load(cfg, "./"+dir)
	if err != nil {
		return nil, err
	}
	if len(pkgs) != 1 {
		return nil, fmt.Errorf("%s: %d packages", dir, len(pkgs))
	}
	p := pkgs[0]
	if len(p.Errors) > 0 {
		return nil, fmt.Errorf("%s: %v", dir, p.Errors[0])
	}
	pm := &pkgMutants{dir: dir, nameEnd: map[*srcFile]int{}, alias: "mutant", extra: extra}
	for _, f := range p.Syntax {
		ast.Inspect(f, func(n ast.Node) bool {
			if id, ok := n.(*ast.Ident); ok && id.Name == "mutant" {
				pm.alias = "pwmutant" // the package has a name of its own "mutant"
			}
			return true
		})
	}
	next := 1
	for _, f := range p.Syntax {
		path := p.Fset.File(f.Pos()).Name()
		if !strings.HasSuffix(path, ".go") || (len(only) > 0 && !only[filepath.Base(path)]) {
			continue
		}
		src, ok := extra[path]
		if !ok {
			if src, err = os.ReadFile(path); err != nil {
				return nil, err
			}
		}
		rel, _ := filepath.Rel(root, path)
		sf := &srcFile{path: path, rel: filepath.ToSlash(rel), src: src}
		fd := &finder{fset: p.Fset, info: p.TypesInfo, f: sf, alias: pm.alias, next: &next}
		fd.find(f)
		pm.files = append(pm.files, sf)
		pm.nameEnd[sf] = fd.off(f.Name.End())
		for _, s := range sf.sites {
			for _, m := range s.mutants {
				m.site = s
				if s.dropped != "" {
					m.Status, m.Killer = NotMutable, s.dropped
				}
				pm.mutants = append(pm.mutants, m)
			}
		}
	}
	for name := range only {
		found := false
		for _, f := range pm.files {
			found = found || filepath.Base(f.path) == name
		}
		if !found {
			return nil, fmt.Errorf("%s: no non-test file %s in the package (for this platform and build tags)", dir, name)
		}
	}
	return pm, nil
}

// overlay writes the rewritten files under tmp and the overlay file go test -overlay reads.
func (pm *pkgMutants) overlay(tmp string) (string, map[string]*srcFile, error) {
	ov := struct{ Replace map[string]string }{map[string]string{}}
	byPath := map[string]*srcFile{}
	i := 0
	for path, src := range pm.extra {
		i++
		name := filepath.Join(tmp, fmt.Sprintf("extra%d_%s", i, filepath.Base(path)))
		if err := os.WriteFile(name, src, 0o644); err != nil {
			return "", nil, err
		}
		ov.Replace[path] = name
	}
	for i, f := range pm.files {
		out, ok := f.rewrite(pm.nameEnd[f], pm.alias)
		if !ok {
			continue
		}
		name := filepath.Join(tmp, fmt.Sprintf("%d_%s", i, filepath.Base(f.path)))
		if err := os.WriteFile(name, out, 0o644); err != nil {
			return "", nil, err
		}
		f.out = out
		ov.Replace[f.path] = name
		byPath[f.path], byPath[name] = f, f // the compiler names either in its errors
	}
	b, err := json.Marshal(ov)
	if err != nil {
		return "", nil, err
	}
	name := filepath.Join(tmp, "overlay.json")
	return name, byPath, os.WriteFile(name, b, 0o644)
}

var compileErr = regexp.MustCompile(`(?m)^(\S+\.go):(\d+):(\d+): (.*)$`)

// build compiles the package's test binary with every site switched in. A build error in
// a rewritten file drops the innermost site around it (the helper call does not fit there:
// an untyped operand, a type parameter) and the build is tried again.
func (pm *pkgMutants) build(root, tmp, bin string) error {
	for try := 0; ; try++ {
		ov, byPath, err := pm.overlay(tmp)
		if err != nil {
			return err
		}
		cmd := exec.Command("go", "test", "-c", "-vet=off", "-o", bin, "-overlay", ov, "-gcflags=-e", "./"+pm.dir)
		cmd.Dir = root
		out, err := cmd.CombinedOutput()
		if err == nil {
			return nil
		}
		dropped := 0
		for _, m := range compileErr.FindAllStringSubmatch(string(out), -1) {
			path := m[1]
			if !filepath.IsAbs(path) {
				path = filepath.Join(root, pm.dir, path)
				if _, ok := byPath[path]; !ok {
					path = filepath.Join(root, m[1])
				}
			}
			f := byPath[filepath.Clean(path)]
			if f == nil {
				continue
			}
			line, _ := strconv.Atoi(m[2])
			col, _ := strconv.Atoi(m[3])
			if s := f.siteAt(line, col); s != nil && s.dropped == "" {
				s.dropped = "does not compile: " + m[4]
				dropped++
			}
		}
		if dropped == 0 || try > 100 {
			return fmt.Errorf("%s: the rewritten package does not build:\n%s", pm.dir, out)
		}
		for _, m := range pm.mutants {
			if s := m.site; s.dropped != "" && m.Status == "" {
				m.Status, m.Killer = NotMutable, s.dropped
			}
		}
	}
}

// siteAt returns the innermost site whose rewritten text holds line:col, or else the
// innermost one on that line.
func (f *srcFile) siteAt(line, col int) *site {
	off, l := 0, 1
	for off < len(f.out) && l < line {
		if f.out[off] == '\n' {
			l++
		}
		off++
	}
	lineStart := off
	off += col - 1
	lineEnd := lineStart
	for lineEnd < len(f.out) && f.out[lineEnd] != '\n' {
		lineEnd++
	}
	var best, onLine *site
	for _, s := range f.sites {
		if s.dropped != "" || s.outEnd == 0 {
			continue
		}
		if s.outStart <= off && off < s.outEnd && (best == nil || s.outEnd-s.outStart < best.outEnd-best.outStart) {
			best = s
		}
		if s.outStart <= lineEnd && lineStart < s.outEnd && (onLine == nil || s.outEnd-s.outStart < onLine.outEnd-onLine.outStart) {
			onLine = s
		}
	}
	if best != nil {
		return best
	}
	return onLine
}
