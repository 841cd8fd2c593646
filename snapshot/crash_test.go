package snapshot

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/pipewhy/pipewhy/snapshot/vfs"
)

// The crash and multi-process tests re-execute this test binary as a helper process
// (the os/exec test pattern). The helper's behavior is chosen by environment variables.
const helperEnv = "PIPEWHY_SNAPSHOT_HELPER"

func TestMain(m *testing.M) {
	if mode := os.Getenv(helperEnv); mode != "" {
		os.Exit(helperMain(mode))
	}
	os.Exit(m.Run())
}

// genArrays makes deterministic arrays of about size bytes from id and writer.
func genArrays(id ID, writer uint64, size int) map[string]Array {
	var seed [32]byte
	copy(seed[:], id[:])
	seed[31] = byte(writer)
	buf := make([]byte, size)
	rand.NewChaCha8(seed).Read(buf)
	n64 := size / 2 &^ 7
	n32 := size / 4 &^ 3
	u, _ := NewArray(Uint64, buf[:n64])
	v, _ := NewArray(Int32, buf[n64:n64+n32])
	w, _ := NewArray(Uint8, append(buf[n64+n32:], uint8(writer)))
	return map[string]Array{"a_u64": u, "b_i32": v, "writer": w}
}

func helperMetadata(id ID) Metadata {
	md := Metadata{ID: id, SourceNamespace: "crash", SourceVersion: "1", SourceConsistency: "test", Scope: "helper",
		StartedAtNs: 1, FinishedAtNs: 2, Resolution: ResolutionDataset,
		Coverage: Coverage{Status: Partial, Returned: 0, FailureReasons: []string{"killed?"}},
		Fingerprint: FingerprintContext{AlgorithmName: "a", AlgorithmID: "b", ContextID: "c", ProfileID: "d",
			SourceSchemaID: "e", Mode: "f"}}
	return md
}

// helperMain runs in the child process. Modes:
//
//	stop: publish ID, and at STOP ("rename", "after-rename" or "op:N") print
//	      "STOP renamed=<bool>" and block until killed;
//	loop: publish snapshots with fresh IDs until killed;
//	race: wait for START_FILE, publish ID as WRITER; exit 0 won, 3 lost, 1 other error.
func helperMain(mode string) int {
	root := os.Getenv("ROOT")
	size, _ := strconv.Atoi(os.Getenv("SIZE"))
	stop := os.Getenv("STOP")
	renamed := false
	n := 0
	fsys := vfs.Inject(vfs.Default, func(op vfs.Op) error {
		if !op.Mutating() {
			return nil
		}
		hit := false
		switch {
		case stop == "rename":
			hit = op.Kind == vfs.OpRename
		case stop == "after-rename":
			hit = renamed
		case strings.HasPrefix(stop, "op:"):
			k, _ := strconv.Atoi(stop[3:])
			hit = n == k
		}
		n++
		if hit {
			fmt.Printf("STOP renamed=%v\n", renamed)
			os.Stdout.Sync()
			time.Sleep(time.Hour)
		}
		if op.Kind == vfs.OpRename {
			renamed = true
		}
		return nil
	})
	s, err := Open(root, Options{FS: fsys})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	ctx := context.Background()
	switch mode {
	case "stop":
		id, _ := ParseID(os.Getenv("ID"))
		err = s.Publish(ctx, helperMetadata(id), genArrays(id, 0, size))
		fmt.Printf("DONE %v\n", err)
		return 2 // the parent expected a stop
	case "loop":
		for {
			id := NewID()
			if err := s.Publish(ctx, helperMetadata(id), genArrays(id, 0, size)); err != nil {
				fmt.Fprintln(os.Stderr, err)
				return 1
			}
		}
	case "race":
		id, _ := ParseID(os.Getenv("ID"))
		writer, _ := strconv.ParseUint(os.Getenv("WRITER"), 10, 64)
		arrays := genArrays(id, writer, size)
		for {
			if _, err := os.Stat(os.Getenv("START_FILE")); err == nil {
				break
			}
			time.Sleep(200 * time.Microsecond)
		}
		err := s.Publish(ctx, helperMetadata(id), arrays)
		switch {
		case err == nil:
			return 0
		case errors.Is(err, fs.ErrExist):
			return 3
		}
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 1
}

func helperCmd(t *testing.T, mode string, env ...string) *exec.Cmd {
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), append([]string{helperEnv + "=" + mode}, env...)...)
	cmd.Stderr = os.Stderr
	return cmd
}

// crashSize is the payload size of one helper snapshot: tens of MB, less under -short
// or the race detector (which slows the helper processes too).
func crashSize() int {
	if testing.Short() || raceEnabled {
		return 4 << 20
	}
	return 24 << 20
}

// runUntilStop starts a "stop" helper, waits for its STOP line, kills it with SIGKILL
// and reports whether the rename had run.
func runUntilStop(t *testing.T, root string, id ID, stop string) bool {
	t.Helper()
	cmd := helperCmd(t, "stop", "ROOT="+root, "ID="+id.String(), "STOP="+stop, "SIZE="+strconv.Itoa(crashSize()))
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(out).ReadString('\n')
	cmd.Process.Kill() // SIGKILL on POSIX
	werr := cmd.Wait()
	if err != nil || !strings.HasPrefix(line, "STOP ") {
		t.Fatalf("helper said %q (%v), exit %v", line, err, werr)
	}
	return strings.Contains(line, "renamed=true")
}

// checkStore checks the invariants that must hold after any crash: every listed
// snapshot opens, verifies and has exactly the content its writer meant; every staged
// attempt is inspectable and none of them is listed.
func checkStore(t *testing.T, s *Store) map[ID]bool {
	t.Helper()
	list, err := s.List()
	if err != nil {
		t.Fatalf("list after crash: %v", err)
	}
	published := map[ID]bool{}
	for _, md := range list {
		published[md.ID] = true
		snap, err := s.Open(md.ID)
		if err != nil {
			t.Fatalf("open %s after crash: %v", md.ID, err)
		}
		for k, a := range genArrays(md.ID, 0, crashSize()) {
			if !snap.Arrays[k].Equal(a) {
				t.Fatalf("snapshot %s array %s differs from what was published", md.ID, k)
			}
		}
	}
	attempts, err := s.InspectIncomplete()
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range attempts {
		if a.Diagnostic == "" {
			t.Fatalf("attempt %s has no diagnostic", a.Path)
		}
		if _, err := os.Stat(filepath.Join(a.Path, markerName)); err != nil && a.Phase == PhaseValidated {
			t.Fatalf("attempt %s VALIDATED without a marker", a.Path)
		}
	}
	return published
}

func TestCrashAtRename(t *testing.T) {
	iters := 3
	if testing.Short() || raceEnabled {
		iters = 1
	}
	for i := range iters {
		for _, stop := range []string{"rename", "after-rename"} {
			root := t.TempDir()
			s, err := Open(root, Options{})
			if err != nil {
				t.Fatal(err)
			}
			id := NewID()
			renamed := runUntilStop(t, root, id, stop)
			if renamed != (stop == "after-rename") {
				t.Fatalf("%d %s: renamed=%v", i, stop, renamed)
			}
			published := checkStore(t, s)
			attempts, _ := s.InspectIncomplete()
			if stop == "rename" {
				// Killed right before the rename: nothing visible, one VALIDATED attempt.
				if _, err := s.Open(id); !errors.Is(err, fs.ErrNotExist) || len(published) != 0 {
					t.Fatalf("killed before rename but visible: %v", err)
				}
				if len(attempts) != 1 || attempts[0].Phase != PhaseValidated || *attempts[0].ID != id {
					t.Fatalf("attempts %+v", attempts)
				}
			} else {
				// Killed right after: published and complete, no attempt left.
				if !published[id] || len(attempts) != 0 {
					t.Fatalf("killed after rename: published %v, attempts %+v", published, attempts)
				}
			}
		}
	}
}

func TestCrashAtRandomPoints(t *testing.T) {
	iters := 12
	if testing.Short() || raceEnabled {
		iters = 4
	}
	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d", seed)
	r := rand.New(rand.NewPCG(seed, 1))
	for range iters {
		// A kill at an exact mutating operation (a fresh store's publish has 33).
		root := t.TempDir()
		s, err := Open(root, Options{})
		if err != nil {
			t.Fatal(err)
		}
		id := NewID()
		k := r.IntN(33)
		renamed := runUntilStop(t, root, id, "op:"+strconv.Itoa(k))
		published := checkStore(t, s)
		if renamed != published[id] {
			t.Fatalf("op %d: renamed=%v but published=%v", k, renamed, published[id])
		}
		// A kill at a random time of a process publishing in a loop.
		root = t.TempDir()
		if s, err = Open(root, Options{}); err != nil {
			t.Fatal(err)
		}
		cmd := helperCmd(t, "loop", "ROOT="+root, "SIZE="+strconv.Itoa(crashSize()))
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		time.Sleep(time.Duration(20+r.IntN(300)) * time.Millisecond)
		cmd.Process.Kill() // SIGKILL on POSIX
		cmd.Wait()
		checkStore(t, s)
	}
}

// TestConcurrentWriters: goroutines and processes publish one ID at once; exactly one
// wins, the others get fs.ErrExist and their attempts stay inspectable.
func TestConcurrentWriters(t *testing.T) {
	t.Run("goroutines", func(t *testing.T) {
		s := newStore(t, Options{})
		id := NewID()
		const n = 16
		start := make(chan struct{})
		errs := make([]error, n)
		var wg sync.WaitGroup
		for w := range n {
			arrays := genArrays(id, uint64(w), 1<<16)
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-start
				errs[w] = s.Publish(context.Background(), helperMetadata(id), arrays)
			}()
		}
		close(start)
		wg.Wait()
		checkRace(t, s, id, errs)
	})
	t.Run("processes", func(t *testing.T) {
		root := t.TempDir()
		s, err := Open(root, Options{})
		if err != nil {
			t.Fatal(err)
		}
		id := NewID()
		startFile := filepath.Join(t.TempDir(), "start")
		const n = 4
		cmds := make([]*exec.Cmd, n)
		for w := range n {
			cmds[w] = helperCmd(t, "race", "ROOT="+root, "ID="+id.String(), "WRITER="+strconv.Itoa(w),
				"START_FILE="+startFile, "SIZE="+strconv.Itoa(1<<20))
			if err := cmds[w].Start(); err != nil {
				t.Fatal(err)
			}
		}
		os.WriteFile(startFile, nil, 0o644)
		errs := make([]error, n)
		for w, cmd := range cmds {
			err := cmd.Wait()
			var ee *exec.ExitError
			switch {
			case err == nil:
			case errors.As(err, &ee) && ee.ExitCode() == 3:
				errs[w] = fs.ErrExist
			default:
				errs[w] = fmt.Errorf("writer %d: %v", w, err)
			}
		}
		checkRace(t, s, id, errs)
	})
}

func checkRace(t *testing.T, s *Store, id ID, errs []error) {
	t.Helper()
	winner := -1
	for w, err := range errs {
		switch {
		case err == nil:
			if winner >= 0 {
				t.Fatalf("writers %d and %d both won", winner, w)
			}
			winner = w
		case !errors.Is(err, fs.ErrExist):
			t.Fatalf("writer %d: %v", w, err)
		}
	}
	if winner < 0 {
		t.Fatal("no writer won")
	}
	snap, err := s.Open(id)
	if err != nil {
		t.Fatal(err)
	}
	w := snap.Arrays["writer"].Bytes()
	if int(w[len(w)-1]) != winner {
		t.Fatalf("published content is writer %d's, the winner is %d", w[len(w)-1], winner)
	}
	attempts, err := s.InspectIncomplete()
	if err != nil {
		t.Fatal(err)
	}
	if len(attempts) > len(errs)-1 {
		t.Fatalf("%d attempts for %d losers", len(attempts), len(errs)-1)
	}
	for _, a := range attempts {
		if a.Phase != PhaseValidated || *a.ID != id || !strings.Contains(a.Diagnostic, "published") {
			t.Fatalf("loser attempt %+v", a)
		}
	}
	t.Logf("%d losers, %d kept attempts", len(errs)-1, len(attempts))
}
