package arrays

import (
	"math/rand/v2"
	"os"
	"strconv"
	"testing"

	"github.com/pipewhy/pipewhy/internal/cputime"
)

// Benchmarks validate 10-million-row tables generated at run time. Run with
//
//	go test -run='^$' -bench=Validate -benchtime=3x ./arrays/
//
// rows/s is validated rows per wall-clock second of one call on one
// goroutine; rows/cpu-s divides by the process's user+system CPU time
// instead, which is steadier on a shared, oversubscribed machine.

// benchRows is 10 million; PIPEWHY_BENCH_ROWS overrides it (e.g. to check
// that the per-row cost does not grow with the table).
var benchRows = func() int {
	if n, err := strconv.Atoi(os.Getenv("PIPEWHY_BENCH_ROWS")); err == nil && n > 0 {
		return n
	}
	return 10_000_000
}()

func benchCtx(b *testing.B) *Context {
	ids := make([]uint64, 1024)
	for i := range ids {
		ids[i] = uint64(i)
	}
	s, err := NewIDSet(ids...)
	if err != nil {
		b.Fatal(err)
	}
	return &Context{Names: s, Kinds: s, Fields: s, Types: s, Snapshots: s, Policies: s,
		Algorithms: s, Evidence: s, Transforms: s, GroupingPolicies: s}
}

// measure runs f b.N times and reports rows/s and rows/cpu-s.
func measure(b *testing.B, rows int, f func() error) {
	b.ResetTimer()
	cpu0 := cputime.Process()
	for b.Loop() {
		if err := f(); err != nil {
			b.Fatal(err)
		}
	}
	cpu := cputime.Process() - cpu0
	total := float64(rows) * float64(b.N)
	b.ReportMetric(total/b.Elapsed().Seconds(), "rows/s")
	if cpu > 0 {
		b.ReportMetric(total/cpu.Seconds(), "rows/cpu-s")
	}
}

// benchArtifacts builds an n-row artifact table of the given shape:
//
//	deep_chain:   one chain of depth n, ids in row order (id i, parent i-1)
//	deep_chain_shuffled: the same chain, rows in random physical order
//	wide_tree:    a 1024-ary tree, parent row (i-1)/1024, depth ~3
//	sparse_ids:   random 64-bit ids (hash index), parent a random earlier row
func benchArtifacts(shape string, n int) *ArtifactTable {
	a := &ArtifactTable{ArtifactID: make([]uint64, n), ParentID: make([]uint64, n),
		KindID: make([]uint8, n), NameID: make([]uint64, n)}
	r := rand.New(rand.NewPCG(7, 8))
	for i := range n {
		a.KindID[i] = uint8(i % 7)
		a.NameID[i] = uint64(i % 1000)
		a.ArtifactID[i] = uint64(i)
	}
	switch shape {
	case "deep_chain", "deep_chain_shuffled":
		for i := range n {
			a.ParentID[i] = uint64(i) - 1
		}
		a.ParentID[0] = Absent
		if shape == "deep_chain_shuffled" {
			r.Shuffle(n, func(i, j int) {
				a.ArtifactID[i], a.ArtifactID[j] = a.ArtifactID[j], a.ArtifactID[i]
				a.ParentID[i], a.ParentID[j] = a.ParentID[j], a.ParentID[i]
			})
		}
	case "wide_tree":
		a.ParentID[0] = Absent
		for i := 1; i < n; i++ {
			a.ParentID[i] = uint64((i - 1) / 1024)
		}
	case "sparse_ids":
		seen := make(map[uint64]struct{}, n)
		for i := range n {
			for {
				id := r.Uint64() >> 1
				if _, dup := seen[id]; !dup {
					seen[id] = struct{}{}
					a.ArtifactID[i] = id
					break
				}
			}
		}
		a.ParentID[0] = Absent
		for i := 1; i < n; i++ {
			a.ParentID[i] = a.ArtifactID[r.IntN(i)]
		}
	}
	return a
}

func BenchmarkValidateArtifact(b *testing.B) {
	ctx := benchCtx(b)
	for _, shape := range []string{"deep_chain", "deep_chain_shuffled", "wide_tree", "sparse_ids"} {
		b.Run(shape, func(b *testing.B) {
			a := benchArtifacts(shape, benchRows)
			measure(b, benchRows, func() error { return a.Validate(ctx) })
		})
	}
}

// benchValues builds an n-row value table over 1000 artifacts: one payload
// word per present row, every tenth row null with length 0.
func benchValues(n int) (*ValueTable, *ArtifactTable) {
	arts := benchArtifacts("wide_tree", 1000)
	v := &ValueTable{ValueID: make([]uint64, n), ArtifactID: make([]uint64, n), FieldID: make([]uint64, n),
		TypeID: make([]uint8, n), PayloadOffset: make([]uint64, n), PayloadLength: make([]uint64, n),
		PayloadWords: make([]uint64, n)}
	valid := make([]bool, n)
	for i := range n {
		v.ValueID[i] = uint64(i)
		v.ArtifactID[i] = uint64(i % 1000)
		v.FieldID[i] = uint64(i % 64)
		v.TypeID[i] = uint8(i % 8)
		v.PayloadOffset[i] = uint64(i)
		v.PayloadWords[i] = uint64(i) * 0x9E3779B97F4A7C15
		if i%10 != 9 {
			v.PayloadLength[i] = 1
			valid[i] = true
		}
	}
	v.ValidityBitmap = NewBitmap(valid)
	return v, arts
}

func BenchmarkValidateValue(b *testing.B) {
	ctx := benchCtx(b)
	v, arts := benchValues(benchRows)
	measure(b, benchRows, func() error { return v.Validate(ctx, arts) })
}

// BenchmarkValidateValueSparseRefs validates an n-row value table whose
// artifact_id column points at random rows of an n-row artifact table with
// random 64-bit ids: the index build and the lookups are random accesses
// into tables far larger than the caches. rows counts value rows.
func BenchmarkValidateValueSparseRefs(b *testing.B) {
	ctx := benchCtx(b)
	arts := benchArtifacts("sparse_ids", benchRows)
	v, _ := benchValues(benchRows)
	r := rand.New(rand.NewPCG(9, 10))
	for i := range v.ArtifactID {
		v.ArtifactID[i] = arts.ArtifactID[r.IntN(benchRows)]
	}
	measure(b, benchRows, func() error { return v.Validate(ctx, arts) })
}

// BenchmarkValidateArtifactUnordered covers the two sparse-id shapes whose
// parents are not in row order:
//
//	sparse_chain_shuffled: one chain of depth n over increasing sparse ids
//	    (id i<<20 | 20 random bits, parent the previous id), rows in random
//	    order: every parent id is below its child id (one sequential check);
//	random_forest_shuffled: random 64-bit ids, parent a random earlier node,
//	    rows in random order: neither order is topological, so leaves are
//	    peeled off the parent-row forest (random, independent accesses).
func BenchmarkValidateArtifactUnordered(b *testing.B) {
	ctx := benchCtx(b)
	for _, shape := range []string{"sparse_chain_shuffled", "random_forest_shuffled"} {
		b.Run(shape, func(b *testing.B) {
			n := benchRows
			a := benchArtifacts("sparse_ids", n)
			r := rand.New(rand.NewPCG(11, 12))
			if shape == "sparse_chain_shuffled" {
				for i := range n {
					a.ArtifactID[i] = uint64(i)<<20 | r.Uint64N(1<<20)
					a.ParentID[i] = Absent
					if i > 0 {
						a.ParentID[i] = a.ArtifactID[i-1]
					}
				}
			}
			r.Shuffle(n, func(i, j int) {
				a.ArtifactID[i], a.ArtifactID[j] = a.ArtifactID[j], a.ArtifactID[i]
				a.ParentID[i], a.ParentID[j] = a.ParentID[j], a.ParentID[i]
			})
			measure(b, n, func() error { return a.Validate(ctx) })
		})
	}
}
