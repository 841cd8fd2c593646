package testenv

import (
	"bufio"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// StartAtStop re-executes the running test binary as a helper process (the os/exec test
// pattern: no test runs, the test's TestMain picks the helper by env) and returns once
// the helper has printed the line "STOP" on its standard output. It fails t when the
// helper says anything else first or cannot start, with the helper's standard error in
// the message. The helper is killed when the test ends, if the caller has not done so.
func StartAtStop(t testing.TB, env ...string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), env...)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { Kill(cmd) })
	if line, _ := bufio.NewReader(stdout).ReadString('\n'); line != "STOP\n" {
		Kill(cmd)
		t.Fatalf("helper said %q: %s", line, stderr.String())
	}
	return cmd
}

// Kill kills the helper cmd (SIGKILL on POSIX) and returns once it has exited, so the
// caller sees every file it left. Killing a helper that has exited does nothing.
func Kill(cmd *exec.Cmd) {
	if cmd.ProcessState != nil {
		return
	}
	_ = cmd.Process.Kill() // fails only when the process has already exited
	_ = cmd.Wait()         // a killed process's exit status is an error by design
}

// KillAtStop is StartAtStop, then, delay after the helper's "STOP", Kill.
func KillAtStop(t testing.TB, delay time.Duration, env ...string) {
	t.Helper()
	cmd := StartAtStop(t, env...)
	time.Sleep(delay)
	Kill(cmd)
}
