package snapshot

import (
	"context"
	"errors"
	"flag"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/pipewhy/pipewhy/snapshot/vfs"
)

var update = flag.Bool("update", false, "rewrite testdata golden files")

// tracePublish publishes the fixture into a fresh store through a hook and returns the
// store, the ops the hook saw (paths relative to the root, the attempt named ATTEMPT)
// and Publish's error.
func tracePublish(t *testing.T, hook func(i int, op vfs.Op) error) (*Store, []vfs.Op, error) {
	t.Helper()
	root := t.TempDir()
	var ops []vfs.Op
	armed := false
	fsys := vfs.Inject(vfs.Default, func(op vfs.Op) error {
		if !armed {
			return nil
		}
		i := len(ops)
		ops = append(ops, op)
		if hook != nil {
			return hook(i, op)
		}
		return nil
	})
	s, err := Open(root, Options{FS: fsys})
	if err != nil {
		t.Fatal(err)
	}
	armed = true
	err = s.Publish(context.Background(), fixtureMetadata(t), fixtureArrays())
	armed = false
	for i := range ops {
		ops[i].Path = normalize(root, ops[i].Path)
		ops[i].NewPath = normalize(root, ops[i].NewPath)
	}
	return s, ops, err
}

func normalize(root, p string) string {
	if p == "" {
		return ""
	}
	rel, err := filepath.Rel(root, p)
	if err != nil {
		return p
	}
	if rel == "." {
		return "ROOT"
	}
	parts := strings.Split(filepath.ToSlash(rel), "/")
	if len(parts) >= 2 && parts[0] == "staging" && strings.HasPrefix(parts[1], fixtureID+"-") {
		parts[1] = "ATTEMPT"
	}
	return "ROOT/" + strings.Join(parts, "/")
}

// TestPublishTrace compares the mutating operations of one publish with
// testdata/publish.trace (regenerate with -update) and checks the PW-07.04 ordering
// rules directly, so a regenerated trace cannot silently break them.
func TestPublishTrace(t *testing.T) {
	_, ops, err := tracePublish(t, nil)
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	for _, op := range ops {
		if op.Mutating() {
			lines = append(lines, op.String())
		}
	}
	got := strings.Join(lines, "\n") + "\n"
	golden := filepath.Join("testdata", "publish.trace")
	if *update {
		if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if got != string(want) {
		t.Errorf("publish trace differs from %s (run with -update after checking):\n%s", golden, got)
	}

	at := func(line string) int {
		i := slices.Index(lines, line)
		if i < 0 {
			t.Fatalf("trace has no %q", line)
		}
		return i
	}
	a := "ROOT/staging/ATTEMPT/"
	intentDone := at("close " + a + "intent.json")
	if at("mkdir ROOT/staging/ATTEMPT") > at("create "+a+"intent.json") {
		t.Error("intent written before the attempt exists")
	}
	markerCreate := at("create " + a + "complete.sha256")
	for _, f := range []string{"array-flags.bin", "array-ids.bin", "array-none.bin", "manifest.json"} {
		c, w, s, cl := at("create "+a+f), at("write "+a+f), at("sync "+a+f), at("close "+a+f)
		if !(intentDone < c && c < w && w < s && s < cl && cl < markerCreate) {
			t.Errorf("%s: create %d write %d sync %d close %d; intent %d marker %d", f, c, w, s, cl, intentDone, markerCreate)
		}
	}
	markerSync := at("sync " + a + "complete.sha256")
	syncAttempt := at("syncdir ROOT/staging/ATTEMPT")
	rename := at("rename ROOT/staging/ATTEMPT -> ROOT/snapshots/" + fixtureID)
	syncSnaps := at("syncdir ROOT/snapshots")
	if !(markerCreate < markerSync && markerSync < syncAttempt && syncAttempt < rename && rename < syncSnaps) {
		t.Error("marker, attempt fsync, rename and snapshots fsync out of order")
	}
	if rename != len(lines)-3 {
		t.Errorf("rename is not followed by exactly the two directory fsyncs: %v", lines[rename:])
	}
}

// expected is what a fault at one operation must leave behind.
type expected struct {
	published bool  // the snapshot is published (and Publish reports an uncertain commit)
	phase     Phase // the one attempt's phase; "" means no attempt
	noID      bool  // the attempt's intent.json is missing or empty
}

// expectAfter derives, from PW-07.04, what a failure of op leaves, for the mutating
// operations of a publish into a fresh store.
func expectAfter(op vfs.Op, renamed bool) expected {
	base := filepath.Base(op.Path)
	switch {
	case renamed:
		return expected{published: true}
	case op.Kind == vfs.OpRename:
		return expected{phase: PhaseValidated}
	case op.Kind == vfs.OpMkdir || op.Path == "ROOT" || op.Path == "ROOT/staging" && op.Kind != vfs.OpSyncDir:
		return expected{}
	case op.Kind == vfs.OpSyncDir && op.Path == "ROOT/staging":
		return expected{phase: PhaseUnavailable, noID: true} // the empty attempt exists
	case base == intentName && op.Kind == vfs.OpCreate:
		return expected{phase: PhaseUnavailable, noID: true}
	case base == intentName && op.Kind == vfs.OpWrite:
		return expected{phase: PhaseInvalid, noID: true} // an empty intent.json
	case base == markerName && op.Kind == vfs.OpWrite:
		return expected{phase: PhaseInvalid} // an empty complete.sha256
	case base == markerName && op.Kind == vfs.OpCreate:
		return expected{phase: PhaseStaging}
	case base == markerName, op.Kind == vfs.OpSyncDir:
		return expected{phase: PhaseValidated} // marker written; its fsync (or the attempt's) failed
	}
	return expected{phase: PhaseStaging}
}

// TestFaultAtEveryStep fails each operation of a publish in turn and checks what is
// visible afterwards.
func TestFaultAtEveryStep(t *testing.T) {
	_, clean, err := tracePublish(t, nil)
	if err != nil {
		t.Fatal(err)
	}
	id := mustID(t, fixtureID)
	renamed := false
	for n, op := range clean {
		name := op.String()
		t.Run(name, func(t *testing.T) {
			s, _, err := tracePublish(t, func(i int, op vfs.Op) error {
				if i == n {
					return errInjected
				}
				return nil
			})
			if !errors.Is(err, errInjected) {
				t.Fatalf("Publish error %v does not carry the injected fault", err)
			}
			want := expected{}
			if op.Mutating() {
				want = expectAfter(op, renamed)
			}
			if renamed != errors.Is(err, ErrCommitUncertain) {
				t.Fatalf("ErrCommitUncertain = %v after rename = %v: %v", !renamed, renamed, err)
			}
			before := tree(t, s.Root())
			attempts, ierr := s.InspectIncomplete()
			list, lerr := s.List()
			snap, oerr := s.Open(id)
			if after := tree(t, s.Root()); !slices.Equal(before, after) {
				t.Fatalf("reading changed the store:\n%v\n%v", before, after)
			}
			if ierr != nil || lerr != nil {
				t.Fatalf("inspect %v, list %v", ierr, lerr)
			}
			if renamed {
				if oerr != nil || len(list) != 1 || !snap.Arrays["ids"].Equal(fixtureArrays()["ids"]) || len(attempts) != 0 {
					t.Fatalf("after the rename: open %v, list %d, attempts %v", oerr, len(list), attempts)
				}
				return
			}
			if !errors.Is(oerr, fs.ErrNotExist) || len(list) != 0 {
				t.Fatalf("a failed publish is visible: open %v, list %d", oerr, len(list))
			}
			if !op.Mutating() { // reads: nothing published, at most one attempt
				if len(attempts) > 1 || len(attempts) == 1 && attempts[0].Phase != PhaseStaging && attempts[0].Phase != PhaseValidated {
					t.Fatalf("attempts %+v", attempts)
				}
				return
			}
			if want.phase == "" {
				if len(attempts) != 0 {
					t.Fatalf("attempts %+v, want none", attempts)
				}
				return
			}
			if len(attempts) != 1 || attempts[0].Phase != want.phase {
				t.Fatalf("attempts %+v, want one in %s", attempts, want.phase)
			}
			a := attempts[0]
			if a.Diagnostic == "" || !strings.HasPrefix(a.Path, filepath.Join(s.Root(), "staging", fixtureID+"-")) {
				t.Fatalf("attempt %+v", a)
			}
			if (a.ID == nil) != want.noID || a.ID != nil && *a.ID != id {
				t.Fatalf("attempt ID %v in phase %s", a.ID, a.Phase)
			}
			if !strings.Contains(err.Error(), a.Path) && want.phase != "" {
				t.Fatalf("error %q does not name the kept attempt %s", err, a.Path)
			}
			// A retry makes a new attempt, publishes, and keeps the old attempt.
			if err := s.Publish(context.Background(), fixtureMetadata(t), fixtureArrays()); err != nil {
				t.Fatalf("retry: %v", err)
			}
			again, _ := s.InspectIncomplete()
			if len(again) != 1 || again[0].Path != a.Path {
				t.Fatalf("after retry attempts are %+v", again)
			}
			if err := s.Verify(id); err != nil {
				t.Fatal(err)
			}
		})
		if op.Kind == vfs.OpRename {
			renamed = true
		}
	}
}

// tree lists every path under root with its size, for before/after comparisons.
func tree(t *testing.T, root string) []string {
	var out []string
	filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		fi, _ := d.Info()
		out = append(out, p+" "+fi.Mode().String()+" "+itoa(uint64(fi.Size())))
		return nil
	})
	return out
}
