package compare

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"testing"

	"github.com/pipewhy/pipewhy/repo"
	"github.com/pipewhy/pipewhy/scan"
	"github.com/pipewhy/pipewhy/snapshot"
)

// writeVersions writes two random versions of a table: B changes, removes and adds
// rows of A; without unique ids (dup) ids repeat and whole rows may be duplicated.
func writeVersions(t *testing.T, rng *rand.Rand, n int, dup bool) (string, string) {
	t.Helper()
	type row struct {
		id   int
		name string
		v    int
	}
	rows := make([]row, n)
	for i := range rows {
		id := i
		if dup {
			id = rng.IntN(max(n/4, 1))
		}
		rows[i] = row{id, fmt.Sprintf("n%d", rng.IntN(9)), rng.IntN(5)}
		if dup && rng.IntN(6) == 0 && i > 0 {
			rows[i] = rows[i-1]
		}
	}
	write := func(name string, rs []row) string {
		var b strings.Builder
		b.WriteString("id,name,v\n")
		for _, r := range rs {
			nm := r.name
			if nm == "n0" {
				nm = "" // null with Source.Null ""
			}
			fmt.Fprintf(&b, "%d,%s,%d\n", r.id, nm, r.v)
		}
		p := filepath.Join(t.TempDir(), name)
		if err := os.WriteFile(p, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	pa := write("t.csv", rows)
	var rb []row
	for _, r := range rows {
		switch rng.IntN(20) {
		case 0: // removed
		case 1, 2:
			r.v += 1 + rng.IntN(3) // changed
			rb = append(rb, r)
		case 3:
			r.name = fmt.Sprintf("m%d", rng.IntN(3))
			rb = append(rb, r)
		default:
			rb = append(rb, r)
		}
	}
	for k := range rng.IntN(n/10 + 2) {
		rb = append(rb, row{n + k, "new", k})
	}
	if rng.IntN(4) == 0 {
		rb = rows // equal states
	}
	return pa, write("t.csv", rb) // one artifact name: the same base name
}

// TestStreamDiffMatchesLoaded: on random pairs of versions, keys, resolutions and
// memory budgets (spilled scans among them), Diff over entry streams (Options.Stream)
// gives exactly the report of Diff over fully loaded scans: counts, duplicate keys,
// fields, examples with their rendered values, columns, notes.
func TestStreamDiffMatchesLoaded(t *testing.T) {
	seeds := 24
	if testing.Short() {
		seeds = 10
	}
	for seed := range uint64(seeds) {
		rng := rand.New(rand.NewPCG(seed, 11))
		n := 1 + rng.IntN(400)
		keyed := seed%2 == 0
		pa, pb := writeVersions(t, rng, n, !keyed)
		res := []snapshot.Resolution{snapshot.ResolutionRecord, snapshot.ResolutionValue}[seed/2%2]
		var key []string
		if keyed {
			key = []string{"id"}
		}
		mem := []int64{0, 3000}[rng.IntN(2)]
		limit := []int{-1, 0, 3, 1000}[rng.IntN(4)]
		t.Run(fmt.Sprintf("seed%d-%s-keyed%v-%d", seed, res, keyed, n), func(t *testing.T) {
			r, err := repo.Init(filepath.Join(t.TempDir(), "r"))
			if err != nil {
				t.Fatal(err)
			}
			null := ""
			ids := make([]snapshot.ID, 2)
			for i, p := range []string{pa, pb} {
				o := scan.Options{Address: p, Resolution: res, Key: key, Memory: mem}
				o.Source.Null = &null
				out, err := scan.Run(context.Background(), r, o)
				if err != nil {
					t.Fatal(err)
				}
				ids[i] = out.ID
			}
			load := func(parts repo.Parts) (*repo.Scan, *repo.Scan) {
				a, err := r.LoadParts(ids[0], parts, nil)
				if err != nil {
					t.Fatal(err)
				}
				b, err := r.LoadParts(ids[1], parts, nil)
				if err != nil {
					t.Fatal(err)
				}
				return a, b
			}
			a, b := load(repo.AllParts)
			want, err := Diff(a, b, Options{Limit: limit})
			if err != nil {
				t.Fatal(err)
			}
			a, b = load(0)
			streams := 0
			got, err := Diff(a, b, Options{Limit: limit, Stream: func(s *repo.Scan, parts repo.Parts) (*repo.EntryReader, error) {
				streams++
				return r.Entries(s, parts, nil)
			}})
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("streamed report differs:\n%+v\nloaded:\n%+v", got, want)
			}
			if !want.StatesEqual && streams == 0 {
				t.Fatal("states differ but nothing was streamed")
			}
			if want.StatesEqual && keyed && streams != 0 {
				t.Fatalf("equal states of keyed scans streamed %d arrays (the shortcut reads none)", streams)
			}
		})
	}
}

// TestStreamDiffDetectsCorruption: a payload changed after publication fails the
// streamed diff in its verifying pass, before any entry is compared, naming the file.
func TestStreamDiffDetectsCorruption(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	pa, pb := writeVersions(t, rng, 200, false)
	r, err := repo.Init(filepath.Join(t.TempDir(), "r"))
	if err != nil {
		t.Fatal(err)
	}
	var ids []snapshot.ID
	for _, p := range []string{pa, pb} {
		out, err := scan.Run(context.Background(), r, scan.Options{Address: p, Resolution: snapshot.ResolutionValue, Key: []string{"id"}})
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, out.ID)
	}
	f := filepath.Join(r.Store().Path(ids[1]), "array-value_payload_words.bin")
	os.Chmod(f, 0o644)
	b, err := os.ReadFile(f)
	if err != nil {
		t.Fatal(err)
	}
	b[len(b)/2] ^= 1
	if err := os.WriteFile(f, b, 0o644); err != nil {
		t.Fatal(err)
	}
	a, _ := r.LoadParts(ids[0], 0, nil)
	bs, _ := r.LoadParts(ids[1], 0, nil)
	_, err = Diff(a, bs, Options{Stream: func(s *repo.Scan, parts repo.Parts) (*repo.EntryReader, error) {
		return r.Entries(s, parts, nil)
	}})
	var ie *snapshot.StorageIntegrityError
	if !errors.As(err, &ie) || !strings.Contains(err.Error(), "array-value_payload_words.bin") {
		t.Fatalf("err = %v", err)
	}
}

// TestStreamDiffMemoryIndependentOfRows: the bytes a streamed value-resolution diff
// allocates do not grow with the rows (its read buffers and the examples kept), where
// loading the arrays grows with them: 4 times the rows (both past the 1 MiB read scratch of the checksum pass), nearly
// the same allocation.
func TestStreamDiffMemoryIndependentOfRows(t *testing.T) {
	alloc := func(n int) uint64 {
		rng := rand.New(rand.NewPCG(uint64(n), 5))
		pa, pb := writeVersions(t, rng, n, false)
		for sameFile(t, pa, pb) { // one pair in four is equal (nothing streamed then)
			pa, pb = writeVersions(t, rng, n, false)
		}
		r, err := repo.Init(filepath.Join(t.TempDir(), "r"))
		if err != nil {
			t.Fatal(err)
		}
		var ids []snapshot.ID
		for _, p := range []string{pa, pb} {
			out, err := scan.Run(context.Background(), r, scan.Options{Address: p, Resolution: snapshot.ResolutionValue, Key: []string{"id"}})
			if err != nil {
				t.Fatal(err)
			}
			ids = append(ids, out.ID)
		}
		a, _ := r.LoadParts(ids[0], 0, nil)
		b, _ := r.LoadParts(ids[1], 0, nil)
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		rep, err := Diff(a, b, Options{Limit: 3, Stream: func(s *repo.Scan, parts repo.Parts) (*repo.EntryReader, error) {
			return r.Entries(s, parts, nil)
		}})
		runtime.ReadMemStats(&after)
		if err != nil || rep.Records == nil || rep.Records.Changed == 0 {
			t.Fatalf("diff: %v %+v", err, rep)
		}
		return after.TotalAlloc - before.TotalAlloc
	}
	const n1, n2 = 40000, 160000
	small, large := alloc(n1), alloc(n2)
	t.Logf("allocated %d bytes for %d rows, %d for %d", small, n1, large, n2)
	// A diff holding even one 32-byte-a-record array (the record entries) of both sides
	// would allocate at least held more for the larger pair; a streamed one allocates a
	// constant per stream (one zstd block and frame per reader of a compressed snapshot,
	// reached sooner by the larger arrays; under -race sync.Pool drops decoder state, so
	// the constant is larger there) plus nothing per row.
	const held = 2 * (n2 - n1) * 32
	if large > small+held {
		t.Fatalf("a streamed diff of 4 times the rows allocated %d bytes, against %d (at most %d more)", large, small, held)
	}
}

func sameFile(t *testing.T, a, b string) bool {
	t.Helper()
	x, err := os.ReadFile(a)
	if err != nil {
		t.Fatal(err)
	}
	y, err := os.ReadFile(b)
	if err != nil {
		t.Fatal(err)
	}
	return string(x) == string(y)
}
