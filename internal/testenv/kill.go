package testenv

import (
	"bufio"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// KillAtStop re-executes the running test binary as a helper process (the os/exec test
// pattern: no test runs, the test's TestMain picks the helper by env), waits until the
// helper prints the line "STOP" on its standard output, waits delay more, and kills it
// (SIGKILL on POSIX). It fails t when the helper says anything else first or cannot
// start, with the helper's standard error in the message. It returns once the helper has
// exited, so the caller sees every file the helper left.
func KillAtStop(t testing.TB, delay time.Duration, env ...string) {
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
	line, _ := bufio.NewReader(stdout).ReadString('\n')
	if line != "STOP\n" {
		cmd.Process.Kill()
		cmd.Wait()
		t.Fatalf("helper said %q: %s", line, stderr.String())
	}
	time.Sleep(delay)
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	cmd.Wait()
}
