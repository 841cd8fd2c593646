package why

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/pipewhy/pipewhy/internal/cputime"
	"github.com/pipewhy/pipewhy/internal/testenv"
	"github.com/pipewhy/pipewhy/lineage"
	"github.com/pipewhy/pipewhy/normalize"
	"github.com/pipewhy/pipewhy/repo"
	"github.com/pipewhy/pipewhy/scan"
	"github.com/pipewhy/pipewhy/snapshot"
	"github.com/pipewhy/pipewhy/source"
)

// The benchmark graph: 20 layers of 50 artifacts. Artifact (l, i) of layer l > 0 is a
// TRANSFORM of (l-1, i), (l-1, i+7) and (l-1, i+19) (mod 50), except every tenth, a COPY
// of (l-1, i), and (19, 31), a TRANSFORM of all 50 artifacts of layer 18: the artifact the
// benchmark explains, whose upstream closure is the 950 artifacts of layers 0 to 18. Each artifact has 10 snapshots
// (record resolution, 5 records of 3 columns), every one different from the last; the
// copies match their sources except (18, 0), corrupted in its last snapshot.
const (
	benchLayers = 20
	benchWidth  = 50
	benchSnaps  = 10
)

func benchName(l, i int) string { return fmt.Sprintf("a%02d_%02d", l, i) }

var benchSink = benchName(benchLayers-1, 31)

var (
	benchOnce sync.Once
	benchDir  string
	benchRepo *repo.Repo
	benchErr  error
)

// TestMain removes the benchmark repository (about 0.9 GB in /dev/shm) when the tests
// and benchmarks are done.
func TestMain(m *testing.M) {
	code := m.Run()
	if benchDir != "" {
		os.RemoveAll(benchDir)
	}
	os.Exit(code)
}

// benchRepository builds the benchmark repository once per process, in /dev/shm when
// there is one (10,000 snapshots, each published with its fsyncs). Scans are observed
// with scan.Observe and published as scan.Run publishes them (the snapshot, then the log
// line), without saving the schema registry after each one.
func benchRepository(b *testing.B) *repo.Repo {
	benchOnce.Do(func() {
		dir, temp, err := testenv.BenchDir("pipewhy-bench-why-", filepath.Join(repo.DirName, repo.ConfigFile), buildBench)
		if temp {
			benchDir = dir
		}
		if benchErr = err; err == nil {
			benchRepo, benchErr = repo.Open(filepath.Join(dir, repo.DirName))
		}
	})
	if benchErr != nil {
		b.Fatal(benchErr)
	}
	return benchRepo
}

func buildBench(dir string) error {
	ctx := context.Background()
	r, err := repo.Init(filepath.Join(dir, repo.DirName))
	if err != nil {
		return err
	}
	var decls []lineage.Declaration
	isCopy := func(l, i int) bool { return l > 0 && i%10 == 0 }
	// inputs returns the TRANSFORM inputs of (l, i), l > 0 and not a copy.
	inputs := func(l, i int) []string {
		var out []string
		if l == benchLayers-1 && i == 31 {
			for j := range benchWidth {
				out = append(out, benchName(l-1, j))
			}
			return out
		}
		for _, d := range []int{0, 7, 19} {
			out = append(out, benchName(l-1, (i+d)%benchWidth))
		}
		return out
	}
	for l := 1; l < benchLayers; l++ {
		for i := range benchWidth {
			t := benchName(l, i)
			if isCopy(l, i) {
				decls = append(decls, lineage.Declaration{Source: benchName(l-1, i), Target: t, Relation: lineage.Copy})
				continue
			}
			for _, src := range inputs(l, i) {
				decls = append(decls, lineage.Declaration{Source: src, Target: t,
					Relation: lineage.Transform, Transform: lineage.TransformRef{Kind: lineage.TransformLiteral, Ref: "v1"}})
			}
		}
	}
	for i := range decls {
		decls[i].Origin = lineage.Origin{Kind: lineage.OriginCLI}
	}
	v, _, err := lineage.Open(r).Update(ctx, func(g *lineage.Graph) (*lineage.Graph, error) { return g.Merge(decls) })
	if err != nil {
		return err
	}
	reg, err := source.OpenRegistry(filepath.Join(dir, "registry.json"))
	if err != nil {
		return err
	}
	data := func(l, i, s int) string {
		var b strings.Builder
		b.WriteString("k,a,b\n")
		for k := range 5 {
			fmt.Fprintf(&b, "%d,%d,%d\n", k, l*1000+i+k, s*7+k)
		}
		return b.String()
	}
	csv := filepath.Join(dir, "t.csv")
	for s := range benchSnaps {
		for l := range benchLayers {
			for i := range benchWidth {
				// A copy holds its source's data; (18, 0) is corrupted in the last round.
				dl, di := l, i
				if isCopy(l, i) {
					dl, di = l-1, i
				}
				text := data(dl, di, s)
				if l == 18 && i == 0 && s == benchSnaps-1 {
					text = strings.Replace(text, "\n2,", "\n2,9", 1)
				}
				if err := os.WriteFile(csv, []byte(text), 0o644); err != nil {
					return err
				}
				name := benchName(l, i)
				res, err := scan.Observe(ctx, reg, scan.Options{Address: csv, Name: name, Key: []string{"k"},
					Resolution: snapshot.ResolutionRecord, Profile: normalize.StrictV1, Workers: 1})
				if err != nil {
					return err
				}
				sc := res.Scan
				sc.Lineage = &repo.ScanLineage{Lineage: v.ID.String(), Aligned: []string{}, Transforms: []repo.TransformRun{}}
				if l > 0 && !isCopy(l, i) {
					srcs := inputs(l, i)
					slices.Sort(srcs)
					sc.Lineage.Transforms = append(sc.Lineage.Transforms, repo.TransformRun{Sources: srcs, Relation: "transform",
						Kind: "literal", Ref: "v1", Identity: "v1"})
				}
				arrs, err := sc.Arrays()
				if err != nil {
					return err
				}
				if err := r.Store().Publish(ctx, sc.Metadata, arrs); err != nil {
					return err
				}
				if err := r.AppendLog(repo.LogEntry{Snapshot: sc.Metadata.ID.String(), Artifact: name, Address: csv,
					Resolution: string(sc.Metadata.Resolution), Rows: uint64(sc.Descriptor.Rows), Coverage: "COMPLETE",
					FinishedAtNs: sc.Metadata.FinishedAtNs}); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

func benchWhy(b *testing.B, r *repo.Repo) *Explanation {
	h, err := Open(r)
	if err != nil {
		b.Fatal(err)
	}
	e, err := Explain(context.Background(), h, lineage.Open(r), benchSink, Options{Limit: 5})
	if err != nil {
		b.Fatal(err)
	}
	if err := h.Save(); err != nil {
		b.Fatal(err)
	}
	return e
}

// BenchmarkWhy explains the change of (19, 31) over its whole upstream closure. "warm":
// every summary is in the index (the steady state: each scan is summarized once); "cold":
// the index and the change cache are deleted first, so the summary arrays of every
// snapshot of the closure are loaded and checked. PIPEWHY_BENCH_DIR=DIR keeps the
// repository in DIR (built on the first run) for later runs and for the command line.
//
//	go test ./why/ -run '^$' -bench BenchmarkWhy -benchtime 10x
func BenchmarkWhy(b *testing.B) {
	r := benchRepository(b)
	_, g, _, err := lineage.Open(r).Head()
	if err != nil {
		b.Fatal(err)
	}
	up := g.Upstream(benchSink)
	arts := map[string]bool{}
	for _, e := range up {
		arts[e.Source] = true
	}
	b.Logf("upstream closure of %s: %d artifacts, %d edges", benchSink, len(arts), len(up))
	check := func(e *Explanation) {
		if len(e.Edges) != len(up) || !e.Changed {
			b.Fatalf("%d edges (want %d), changed %v", len(e.Edges), len(up), e.Changed)
		}
		if e.RootCauses[0].Verdict != CopyMismatch || e.RootCauses[0].Artifact != benchName(18, 0) {
			b.Fatalf("strongest root cause %+v", e.RootCauses[0])
		}
	}
	b.Run("cold", func(b *testing.B) {
		cpu := cputime.Process()
		for b.Loop() {
			os.Remove(filepath.Join(r.Dir(), IndexFile))
			os.Remove(filepath.Join(r.Dir(), ChangesFile))
			check(benchWhy(b, r))
		}
		b.ReportMetric((cputime.Process()-cpu).Seconds()/float64(b.N), "cpu-s/op")
	})
	b.Run("warm", func(b *testing.B) {
		benchWhy(b, r)
		cpu := cputime.Process()
		for b.Loop() {
			check(benchWhy(b, r))
		}
		b.ReportMetric((cputime.Process()-cpu).Seconds()/float64(b.N), "cpu-s/op")
	})
}
