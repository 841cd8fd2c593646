package report

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/pipewhy/pipewhy/internal/cputime"
	"github.com/pipewhy/pipewhy/internal/testenv"
	"github.com/pipewhy/pipewhy/lineage"
	"github.com/pipewhy/pipewhy/normalize"
	"github.com/pipewhy/pipewhy/repo"
	"github.com/pipewhy/pipewhy/scan"
	"github.com/pipewhy/pipewhy/snapshot"
	"github.com/pipewhy/pipewhy/source"
	"github.com/pipewhy/pipewhy/why"
)

// The benchmark repository: 1,000 artifacts in 20 layers of 50. Artifact (l, i) of a
// layer l > 0 is a TRANSFORM of (l-1, i), (l-1, i+7) and (l-1, i+19) (mod 50), except
// every tenth, a COPY of (l-1, i). Each artifact has benchSnaps snapshots at value
// resolution (5 records of 3 columns, keyed): every second layer changes from one
// snapshot to the next (so about half the artifacts are changed, half unchanged), and
// the copy (18, 0) is corrupted in the last snapshot.
const (
	benchLayers = 20
	benchWidth  = 50
	benchSnaps  = 10
)

func benchName(l, i int) string { return fmt.Sprintf("a%02d_%02d", l, i) }

var (
	benchOnce sync.Once
	benchDir  string
	benchRepo *repo.Repo
	benchErr  error
)

// TestMain removes the benchmark repository when the tests and benchmarks are done.
func TestMain(m *testing.M) {
	code := m.Run()
	if benchDir != "" {
		os.RemoveAll(benchDir)
	}
	os.Exit(code)
}

// benchRepository builds the benchmark repository once per process, in /dev/shm when
// there is one. Scans are observed with scan.Observe and published as scan.Run
// publishes them (the snapshot, then the log line), with the lineage recorded as scan
// records it.
func benchRepository(b *testing.B) *repo.Repo {
	benchOnce.Do(func() {
		dir, temp, err := testenv.BenchDir("pipewhy-bench-report-", filepath.Join(repo.DirName, repo.ConfigFile), buildBench)
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
	isCopy := func(l, i int) bool { return l > 0 && i%10 == 0 }
	inputs := func(l, i int) []string {
		var out []string
		for _, d := range []int{0, 7, 19} {
			out = append(out, benchName(l-1, (i+d)%benchWidth))
		}
		slices.Sort(out)
		return slices.Compact(out)
	}
	var decls []lineage.Declaration
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
		if l%2 == 1 {
			s = 0 // odd layers never change
		}
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
				dl := l
				for isCopy(dl, i) {
					dl-- // a copy holds what the first artifact of its copy chain holds
				}
				text := data(dl, i, s)
				if l == 18 && i == 0 && s == benchSnaps-1 {
					text = strings.Replace(text, "\n2,", "\n2,9", 1)
				}
				if err := os.WriteFile(csv, []byte(text), 0o644); err != nil {
					return err
				}
				name := benchName(l, i)
				res, err := scan.Observe(ctx, reg, scan.Options{Address: csv, Name: name, Key: []string{"k"},
					Resolution: snapshot.ResolutionValue, Profile: normalize.StrictV1, Workers: 1})
				if err != nil {
					return err
				}
				sc := res.Scan
				sc.Lineage = &repo.ScanLineage{Lineage: v.ID.String(), Aligned: []string{}, Transforms: []repo.TransformRun{}}
				if l > 0 && !isCopy(l, i) {
					sc.Lineage.Transforms = append(sc.Lineage.Transforms, repo.TransformRun{Sources: inputs(l, i), Relation: "transform",
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

// countingWriter counts the bytes written to it.
type countingWriter struct{ n int64 }

func (w *countingWriter) Write(p []byte) (int, error) { w.n += int64(len(p)); return len(p), nil }

// BenchmarkReport builds and writes the report of the whole benchmark repository (1,000
// artifacts, 10 snapshots each: the default history strip) from a repository whose
// caches are warm (the summary index and the history steps, as after the first report),
// and checks the page's size (under 5 MB). Besides ns/op it reports the process CPU time
// per report and the time of Build and Write alone.
//
//	go test ./report/ -run '^$' -bench BenchmarkReport -benchtime 3x -benchmem
func BenchmarkReport(b *testing.B) {
	r := benchRepository(b)
	var build, write time.Duration
	once := func(b *testing.B) int64 {
		start := time.Now()
		h, err := why.Open(r)
		if err != nil {
			b.Fatal(err)
		}
		p, err := Build(context.Background(), r, h, lineage.Open(r), Options{})
		if err != nil {
			b.Fatal(err)
		}
		if err := h.Save(); err != nil {
			b.Fatal(err)
		}
		built := time.Now()
		var w countingWriter
		if err := Write(&w, p); err != nil {
			b.Fatal(err)
		}
		build, write = build+built.Sub(start), write+time.Since(built)
		if len(p.Artifacts) != benchLayers*benchWidth || len(p.Notes) > 0 {
			b.Fatalf("%d artifacts, notes %v", len(p.Artifacts), p.Notes)
		}
		return w.n
	}
	size := once(b) // warms the summary index and the history cache
	b.Logf("page: %d bytes", size)
	if size >= 5<<20 {
		b.Fatalf("the page is %d bytes, over 5 MB", size)
	}
	build, write = 0, 0
	cpu := cputime.Process()
	for b.Loop() {
		once(b)
	}
	n := float64(b.N)
	b.ReportMetric((cputime.Process()-cpu).Seconds()/n, "cpu-s/op")
	b.ReportMetric(build.Seconds()/n, "build-s/op")
	b.ReportMetric(write.Seconds()/n, "write-s/op")
	b.ReportMetric(float64(size), "page-bytes")
}
