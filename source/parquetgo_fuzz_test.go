package source

import (
	"flag"
	"math/rand/v2"
	"os"
	"testing"
)

// FuzzParquetGo feeds damaged Parquet files to the parquet-go reader (forced
// with ParquetReaderEnv, so a file it would leave to pqarrow fails at open
// with PW_SOURCE_UNSUPPORTED): it must fail with a known code or read with
// consistent coverage and valid UTF-8, never panic or crash. The seeds are
// the conformance file and random files of its scope (plain, dictionary,
// page v1 and v2, every codec it reads).
func FuzzParquetGo(f *testing.F) {
	pq, _, _ := fuzzSeedFiles(f)
	f.Add(pq)
	dir := f.TempDir()
	for seed, added := 0, 0; added < 8 && seed < 200; seed++ {
		r := rand.New(rand.NewPCG(uint64(seed), 23))
		p, fast := pgFile(f, r, dir, seed)
		if st, err := os.Stat(p); !fast || err != nil || st.Size() > 64<<10 {
			continue
		}
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
		added++
	}
	f.Setenv(ParquetReaderEnv, "parquet-go")
	boundMinimization(f, "1000x")
	f.Fuzz(func(t *testing.T, data []byte) {
		skipLarge(t, len(data))
		fuzzRead(t, "f.parquet", data, Options{})
	})
}

// boundMinimization sets -test.fuzzminimizetime to limit unless the command
// line gave it. The fuzzer minimizes every input that finds new coverage
// for up to 60 s by default, and its byte-range pass needs about n²/2 runs
// for an n-byte input: for Parquet files of a kilobyte at about a
// millisecond a run, every new input took the whole minute, during which the
// fuzzer reports no executions, so fuzzing looked stalled at 0 execs/s. The
// flag is read when f.Fuzz starts the coordinator, after this runs.
func boundMinimization(f *testing.F, limit string) {
	const name = "test.fuzzminimizetime"
	set := false
	flag.Visit(func(fl *flag.Flag) { set = set || fl.Name == name })
	if set {
		return
	}
	if err := flag.Set(name, limit); err != nil {
		f.Fatal(err)
	}
}
