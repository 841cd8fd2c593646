package repo_test

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/pipewhy/pipewhy/fingerprint"
	"github.com/pipewhy/pipewhy/repo"
)

// TestOpenKeepsAlgorithm: a repository is opened with the algorithm its configuration
// names, for each algorithm; one whose configuration names none is a legacy XXH3
// repository.
func TestOpenKeepsAlgorithm(t *testing.T) {
	for _, alg := range []fingerprint.Algorithm{fingerprint.XXH3, fingerprint.XXH3Columnar} {
		dir := t.TempDir()
		if _, err := repo.InitAlgorithm(dir, alg); err != nil {
			t.Fatal(err)
		}
		r, err := repo.Open(dir)
		if err != nil || r.Algorithm() != alg {
			t.Fatalf("Open of a %v repository: %v, %v", alg, r, err)
		}
	}
	// The configuration of a columnar repository without its algorithm field.
	dir := t.TempDir()
	if _, err := repo.InitAlgorithm(dir, fingerprint.XXH3Columnar); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, repo.ConfigFile)
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	var cfg map[string]any
	if err := json.Unmarshal(b, &cfg); err != nil {
		t.Fatal(err)
	}
	if _, ok := cfg["algorithm"]; !ok {
		t.Fatalf("configuration %s has no algorithm field", b)
	}
	delete(cfg, "algorithm")
	b, _ = json.Marshal(cfg)
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	r, err := repo.Open(dir)
	if err != nil || r.Algorithm() != fingerprint.XXH3 {
		t.Fatalf("Open without algorithm: %v, %v; want XXH3", r, err)
	}
}

func logEntry(snap string) repo.LogEntry {
	return repo.LogEntry{Snapshot: snap, Artifact: "t", Address: "t.csv", Resolution: "dataset", Rows: 3, Coverage: "COMPLETE", FinishedAtNs: 5}
}

// TestAppendLogAfterTornOnlyLog: a log whose only content is a torn line (no newline
// at all) is cut to nothing by the next append.
func TestAppendLogAfterTornOnlyLog(t *testing.T) {
	r, err := repo.Init(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(r.Dir(), repo.LogFile)
	if err := os.WriteFile(p, []byte(`{"snapshot":"bbbb`), 0o644); err != nil {
		t.Fatal(err)
	}
	e := logEntry(strings.Repeat("c", 32))
	if err := r.AppendLog(e); err != nil {
		t.Fatal(err)
	}
	if l, err := r.Log(); err != nil || len(l) != 1 || l[0] != e {
		t.Fatalf("Log = %v, %v; want the one appended entry", l, err)
	}
}

// TestAppendLogTornTailAtChunkEdge: the tail is searched for the last newline in
// chunks of 4096 bytes from the end; a newline that is the first byte of a chunk is
// found. A complete line of L bytes then a torn tail of 4095 bytes puts the line's
// newline at offset 0 of the last chunk: the append keeps that line.
func TestAppendLogTornTailAtChunkEdge(t *testing.T) {
	r, err := repo.Init(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	e1, e2 := logEntry(strings.Repeat("a", 32)), logEntry(strings.Repeat("c", 32))
	if err := r.AppendLog(e1); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(r.Dir(), repo.LogFile)
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	if len(b) >= 4096 || strings.Count(string(b), "\n") != 1 {
		t.Fatalf("log after one append: %q", b)
	}
	torn := append(slices.Clone(b), strings.Repeat("x", 4095)...)
	if err := os.WriteFile(p, torn, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := r.AppendLog(e2); err != nil {
		t.Fatal(err)
	}
	if l, err := r.Log(); err != nil || len(l) != 2 || l[0] != e1 || l[1] != e2 {
		t.Fatalf("Log = %v, %v; want both entries", l, err)
	}
}

// TestLogMalformedLineNumber: a malformed line is named by its 1-based line number.
func TestLogMalformedLineNumber(t *testing.T) {
	r, err := repo.Init(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{"a", "c"} {
		if err := r.AppendLog(logEntry(strings.Repeat(s, 32))); err != nil {
			t.Fatal(err)
		}
	}
	p := filepath.Join(r.Dir(), repo.LogFile)
	f, err := os.OpenFile(p, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString("{\"snapshot\":1}\n")
	f.Close()
	_, err = r.Log()
	var e *repo.Error
	if !errors.As(err, &e) || e.Code != repo.CodeLog || e.Msg != "malformed line 3" {
		t.Fatalf("Log = %v, want CodeLog for malformed line 3", err)
	}
}

// TestResolveScanCountMessage: NAME~N past the artifact's scans says how many scans it
// has and their range, in the singular for one.
func TestResolveScanCountMessage(t *testing.T) {
	r, err := repo.Init(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range []repo.LogEntry{
		{Snapshot: "abcd0000000000000000000000000001", Artifact: "orders"},
		{Snapshot: "abcd0000000000000000000000000002", Artifact: "customers"},
		{Snapshot: "abce0000000000000000000000000003", Artifact: "orders"},
	} {
		e.Address, e.Resolution, e.Coverage = "x", "dataset", "COMPLETE"
		if err := r.AppendLog(e); err != nil {
			t.Fatal(err)
		}
	}
	// A line with no artifact, which AppendLog refuses and Log reads (a log written by
	// hand or by an older PipeWhy): "~0" must still not name its scan.
	f, err := os.OpenFile(filepath.Join(r.Dir(), repo.LogFile), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString(`{"snapshot":"abce0000000000000000000000000003","artifact":"","address":"x","resolution":"dataset","rows":"0","coverage":"COMPLETE","finished_at_ns":"0"}` + "\n"); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	for in, want := range map[string]string{
		"orders~2":    `orders~2: artifact "orders" has 2 scans (orders~0 to orders~1)`,
		"customers~1": `customers~1: artifact "customers" has 1 scan (customers~0)`,
	} {
		_, err := r.Resolve(in)
		var e *repo.Error
		if !errors.As(err, &e) || e.Code != repo.CodeUnknownID || e.Msg != want {
			t.Errorf("Resolve(%q) = %v, want CodeUnknownID %q", in, err, want)
		}
	}
	// NAME~N needs a NAME before the ~: "~0" is no scan of the artifact "".
	if id, err := r.Resolve("~0"); repo.CodeOf(err) != repo.CodeUnknownID {
		t.Errorf("Resolve(\"~0\") = %s, %v; want CodeUnknownID", id, err)
	}
}

// TestIDsInIDOrder: IDs lists the published snapshots in ascending id order, whatever
// order they were created in.
func TestIDsInIDOrder(t *testing.T) {
	r, err := repo.Init(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	snaps := filepath.Join(r.Dir(), repo.StoreDir, "snapshots")
	if err := os.MkdirAll(snaps, 0o755); err != nil {
		t.Fatal(err)
	}
	want := []string{"0000000000000000000000000000000f", "10000000000000000000000000000000", "abcd0000000000000000000000000001", "abcd0000000000000000000000000002"}
	for _, i := range []int{2, 0, 3, 1} {
		if err := os.Mkdir(filepath.Join(snaps, want[i]), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	ids, err := r.IDs()
	if err != nil {
		t.Fatal(err)
	}
	got := make([]string, len(ids))
	for i, id := range ids {
		got[i] = id.String()
	}
	if !slices.Equal(got, want) {
		t.Fatalf("IDs = %v, want %v", got, want)
	}
}

// TestAppendLogRejectsBadEntry: an entry Log would reject or Resolve could never name is
// CodeLog and leaves the log byte for byte as it was, so later reads still succeed.
func TestAppendLogRejectsBadEntry(t *testing.T) {
	dir := t.TempDir()
	r, err := repo.Init(dir)
	if err != nil {
		t.Fatal(err)
	}
	good := logEntry(strings.Repeat("a", 32))
	if err := r.AppendLog(good); err != nil {
		t.Fatal(err)
	}
	before, err := os.ReadFile(filepath.Join(dir, repo.LogFile))
	if err != nil {
		t.Fatal(err)
	}
	noArtifact := logEntry(strings.Repeat("b", 32))
	noArtifact.Artifact = ""
	for name, e := range map[string]repo.LogEntry{
		"short id":    logEntry(strings.Repeat("b", 31)),
		"upper-case":  logEntry(strings.Repeat("B", 32)),
		"not hex":     logEntry(strings.Repeat("g", 32)),
		"empty id":    logEntry(""),
		"no artifact": noArtifact,
	} {
		var re *repo.Error
		if err := r.AppendLog(e); !errors.As(err, &re) || re.Code != repo.CodeLog {
			t.Errorf("%s: AppendLog = %v, want %s", name, err, repo.CodeLog)
		}
	}
	after, err := os.ReadFile(filepath.Join(dir, repo.LogFile))
	if err != nil {
		t.Fatal(err)
	}
	if string(after) != string(before) {
		t.Fatalf("log changed by rejected entries:\n%s\nwant\n%s", after, before)
	}
	if got, err := r.Log(); err != nil || len(got) != 1 || got[0] != good {
		t.Fatalf("Log = %v, %v; want the one good entry", got, err)
	}
}
