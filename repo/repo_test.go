package repo_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pipewhy/pipewhy/repo"
	"github.com/pipewhy/pipewhy/scan"
	"github.com/pipewhy/pipewhy/snapshot"
)

func TestInitFindOpen(t *testing.T) {
	root := t.TempDir()
	r, err := repo.Init(filepath.Join(root, repo.DirName))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := repo.Init(r.Dir()); !errors.Is(err, &repo.Error{Code: repo.CodeExists}) {
		t.Errorf("second Init: %v", err)
	}
	sub := filepath.Join(root, "x", "y")
	os.MkdirAll(sub, 0o755)
	got, err := repo.Find(sub, "")
	if err != nil || got.Dir() != r.Dir() {
		t.Fatalf("Find from a subdirectory: %v, %v", got, err)
	}
	if _, err := repo.Find(t.TempDir(), ""); !errors.Is(err, repo.ErrNotRepo) {
		t.Errorf("Find outside: %v", err)
	}
	// An explicit directory may be the repository or the project folder holding it.
	for _, explicit := range []string{r.Dir(), root} {
		if got, err := repo.Find(t.TempDir(), explicit); err != nil || got.Dir() != r.Dir() {
			t.Errorf("Find(--repo %s): %v, %v", explicit, got, err)
		}
	}
	if _, err := repo.Find(root, sub); !errors.Is(err, repo.ErrNotRepo) || !strings.Contains(err.Error(), sub) {
		t.Errorf("Find(--repo of a folder without one): %v", err)
	}
	if _, err := repo.Open(t.TempDir()); !errors.Is(err, repo.ErrNotRepo) {
		t.Errorf("Open of a plain directory: %v", err)
	}
	os.WriteFile(filepath.Join(r.Dir(), repo.ConfigFile), []byte(`{"format":"pipewhy.repo","version":2}`), 0o644)
	if _, err := repo.Open(r.Dir()); repo.CodeOf(err) != repo.CodeLayout {
		t.Errorf("Open of a future version: %v", err)
	}
}

// TestTryLock: TryLock fails at once, with CodeBusy, while a writer holds the lock.
func TestTryLock(t *testing.T) {
	r, err := repo.Init(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	unlock, err := r.Lock()
	if err != nil {
		t.Fatal(err)
	}
	// flock locks belong to open files: a second Repo of the same directory is another
	// writer even in this process.
	other, err := repo.Open(r.Dir())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := other.TryLock(); repo.CodeOf(err) != repo.CodeBusy {
		t.Fatalf("TryLock while locked: %v", err)
	}
	unlock()
	un, err := other.TryLock()
	if err != nil {
		t.Fatalf("TryLock after unlock: %v", err)
	}
	un()
}

func TestLogAppendAndTornLine(t *testing.T) {
	r, err := repo.Init(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	e1 := repo.LogEntry{Snapshot: strings.Repeat("a", 32), Artifact: "t", Address: "t.csv", Resolution: "dataset", Rows: 3, Coverage: "COMPLETE", FinishedAtNs: 5}
	if err := r.AppendLog(e1); err != nil {
		t.Fatal(err)
	}
	// A crash mid-append leaves a line without newline: readers ignore it, the next
	// append cuts it off.
	p := filepath.Join(r.Dir(), repo.LogFile)
	f, _ := os.OpenFile(p, os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString(`{"snapshot":"bbbb`)
	f.Close()
	if l, err := r.Log(); err != nil || len(l) != 1 || l[0] != e1 {
		t.Fatalf("Log with torn tail = %v, %v", l, err)
	}
	e2 := e1
	e2.Snapshot = strings.Repeat("c", 32)
	if err := r.AppendLog(e2); err != nil {
		t.Fatal(err)
	}
	l, err := r.Log()
	if err != nil || len(l) != 2 || l[1] != e2 {
		t.Fatalf("Log = %v, %v", l, err)
	}
	b, _ := os.ReadFile(p)
	if strings.Count(string(b), "\n") != 2 || strings.Contains(string(b), "bbbb") {
		t.Errorf("log file %q", b)
	}
	// A malformed complete line is an error, not skipped.
	os.WriteFile(p, append(b, []byte("{\"snapshot\":1}\n")...), 0o644)
	if _, err := r.Log(); repo.CodeOf(err) != repo.CodeLog {
		t.Errorf("malformed line: %v", err)
	}
}

func TestResolve(t *testing.T) {
	r, err := repo.Init(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	snaps := filepath.Join(r.Dir(), repo.StoreDir, "snapshots")
	os.MkdirAll(snaps, 0o755)
	for _, id := range []string{"abcd0000000000000000000000000001", "abcd0000000000000000000000000002", "abce0000000000000000000000000003"} {
		os.Mkdir(filepath.Join(snaps, id), 0o755)
	}
	os.Mkdir(filepath.Join(snaps, "not-an-id"), 0o755)
	for _, e := range []repo.LogEntry{
		{Snapshot: "abcd0000000000000000000000000001", Artifact: "orders"},
		{Snapshot: "abcd0000000000000000000000000002", Artifact: "customers"},
		{Snapshot: "abce0000000000000000000000000003", Artifact: "orders"},
		{Snapshot: "abcd0000000000000000000000000002", Artifact: "a~b"},
		{Snapshot: "abce0000000000000000000000000003", Artifact: "beef"},
		{Snapshot: "abcd0000000000000000000000000001", Artifact: "f"},
		{Snapshot: "abce0000000000000000000000000003", Artifact: "f"},
	} {
		e.Address, e.Resolution, e.Coverage = "x", "dataset", "COMPLETE"
		if err := r.AppendLog(e); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range []struct {
		in   string
		want string
		code repo.Code
	}{
		{"abce", "abce0000000000000000000000000003", ""},
		{"ABCE00", "abce0000000000000000000000000003", ""},
		{"abcd0000000000000000000000000002", "abcd0000000000000000000000000002", ""},
		{"abcd", "", repo.CodeAmbiguous},
		{"abc", "", repo.CodeUnknownID}, // shorter than MinPrefix
		{"ffff", "", repo.CodeUnknownID},
		{"zzzz", "", repo.CodeUnknownID},
		{strings.Repeat("a", 33), "", repo.CodeUnknownID},
		// Artifacts, from the log (appended below): orders was scanned at 1 then 3.
		{"orders", "abce0000000000000000000000000003", ""},
		{"orders~0", "abce0000000000000000000000000003", ""},
		{"orders~1", "abcd0000000000000000000000000001", ""},
		{"orders~2", "", repo.CodeUnknownID},
		{"orders~x", "", repo.CodeUnknownID},
		{"customers", "abcd0000000000000000000000000002", ""},
		{"a~b", "abcd0000000000000000000000000002", ""},   // a name with ~ matches as it is first
		{"a~b~0", "abcd0000000000000000000000000002", ""}, // then only the last ~ counts
		{"a~b~1", "", repo.CodeUnknownID},
		{"ORDERS", "", repo.CodeUnknownID},
		{"beef", "", repo.CodeUnknownID},                // hex only: an id prefix, never the artifact "beef"
		{"f", "abce0000000000000000000000000003", ""},   // hex but shorter than MinPrefix: no id, a name
		{"f~1", "abcd0000000000000000000000000001", ""}, // (found scanning vega-datasets' flights as "f")
	} {
		id, err := r.Resolve(c.in)
		if repo.CodeOf(err) != c.code || (c.code == "" && id.String() != c.want) {
			t.Errorf("Resolve(%q) = %s, %v", c.in, id, err)
		}
	}
}

// TestLoadRejectsInconsistentScan: Decode refuses a checksummed snapshot whose scan
// arrays contradict each other (records out of order, a context identity that does not
// match the descriptor).
// valueScan publishes a value scan of a three-record CSV in a new repository.
func valueScan(t *testing.T) (*repo.Repo, snapshot.ID) {
	t.Helper()
	r, err := repo.Init(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), "t.csv")
	os.WriteFile(p, []byte("k,v\n1,a\n2,b\n3,c\n"), 0o644)
	res, err := scan.Run(context.Background(), r, scan.Options{Address: p, Resolution: snapshot.ResolutionValue, Key: []string{"k"}})
	if err != nil {
		t.Fatal(err)
	}
	return r, res.ID
}

func TestLoadRejectsInconsistentScan(t *testing.T) {
	r, id := valueScan(t)
	snap, err := r.Store().Open(id)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := repo.Decode(snap); err != nil {
		t.Fatalf("good snapshot: %v", err)
	}
	recs, _ := snap.Arrays[repo.KeyRecords].Uint64s()
	rev := append(append([]uint64{}, recs[4:8]...), recs[0:4]...)
	rev = append(rev, recs[8:]...)
	if _, err := repo.Decode(withArray(snap, repo.KeyRecords, rev)); repo.CodeOf(err) != repo.CodeFormat {
		t.Errorf("unsorted records: %v", err)
	}
	bad2 := *snap
	bad2.Metadata.Fingerprint.ContextID = "pipewhy.fingerprint.context/sha256:" + strings.Repeat("0", 64)
	if _, err := repo.Decode(&bad2); repo.CodeOf(err) != repo.CodeFormat {
		t.Errorf("foreign context id: %v", err)
	}
	bad3 := *snap
	bad3.Arrays = map[string]snapshot.Array{}
	for k, v := range snap.Arrays {
		if k != repo.KeyDescriptor {
			bad3.Arrays[k] = v
		}
	}
	if _, err := repo.Decode(&bad3); repo.CodeOf(err) != repo.CodeFormat {
		t.Errorf("no descriptor: %v", err)
	}
}

// TestConcurrentScansKeepRegistry: scans of two new artifacts in parallel both end up
// in the registry and the log (the writers' lock serializes them).
func TestConcurrentScansKeepRegistry(t *testing.T) {
	r, err := repo.Init(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	errs := make(chan error, 4)
	for i := 0; i < 4; i++ {
		p := filepath.Join(dir, "t"+string(rune('a'+i))+".csv")
		os.WriteFile(p, []byte("k,v\n1,a\n"), 0o644)
		go func() {
			r2, err := repo.Open(r.Dir()) // another handle, as another process would have
			if err == nil {
				_, err = scan.Run(context.Background(), r2, scan.Options{Address: p})
			}
			errs <- err
		}()
	}
	for i := 0; i < 4; i++ {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	l, err := r.Log()
	if err != nil || len(l) != 4 {
		t.Fatalf("log = %v, %v", l, err)
	}
	b, _ := os.ReadFile(r.RegistryPath())
	for _, name := range []string{`"ta"`, `"tb"`, `"tc"`, `"td"`} {
		if !strings.Contains(string(b), name) {
			t.Errorf("registry lacks namespace %s", name)
		}
	}
}

// TestOpenConfigErrors: a repo.json this build cannot read is refused with CodeLayout and
// a message that says what is wrong, and, where a newer PipeWhy may have written it, what
// to do; never a decoder's bare message.
func TestOpenConfigErrors(t *testing.T) {
	const newer = "(a newer PipeWhy may have made this repository: use that version or newer)"
	tests := []struct {
		name, config string
		want         []string
		notWant      string
	}{
		{"not json", `{"format":`, []string{"malformed repository configuration repo.json: not a pipewhy.repo document"}, newer},
		{"other format", `{"format":"pipewhy.other","version":1}`, []string{"not a pipewhy.repo document"}, newer},
		{"later version", `{"format":"pipewhy.repo","version":2,"whatever":[1]}`, []string{"unsupported repository version 2 (this build reads version 1)", newer}, ""},
		{"version 0", `{"format":"pipewhy.repo","version":0}`, []string{"unsupported repository version 0 (this build reads version 1)"}, newer},
		{"unknown field", `{"format":"pipewhy.repo","version":1,"future_thing":"x"}`, []string{`repo.json has a field this build does not know, "future_thing"`, newer}, "json:"},
		{"field of the wrong type", `{"format":"pipewhy.repo","version":1,"algorithm":7}`, []string{"malformed repository configuration repo.json: "}, newer},
		{"unknown encoding", `{"format":"pipewhy.repo","version":1,"snapshot_encoding":"lz4"}`, []string{`snapshot_encoding "lz4" is not one this build knows`, newer}, ""},
		{"unknown algorithm", `{"format":"pipewhy.repo","version":1,"algorithm":"pipewhy.fingerprint/xxh3-128-columnar/v9"}`,
			[]string{`fingerprint algorithm "pipewhy.fingerprint/xxh3-128-columnar/v9" is not one this build knows`, newer}, ""},
	}
	r, err := repo.Init(filepath.Join(t.TempDir(), "r"))
	if err != nil {
		t.Fatal(err)
	}
	cfg := filepath.Join(r.Dir(), repo.ConfigFile)
	for _, tt := range tests {
		if err := os.WriteFile(cfg, []byte(tt.config), 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := repo.Open(r.Dir())
		if repo.CodeOf(err) != repo.CodeLayout {
			t.Errorf("%s: %v, want code %s", tt.name, err, repo.CodeLayout)
			continue
		}
		for _, w := range tt.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s: %q lacks %q", tt.name, err, w)
			}
		}
		if tt.notWant != "" && strings.Contains(err.Error(), tt.notWant) {
			t.Errorf("%s: %q holds %q", tt.name, err, tt.notWant)
		}
	}
}
