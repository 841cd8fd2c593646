package cli

import (
	"bytes"
	"strings"
	"testing"
)

// run invokes the command line in process and returns its exit code and output.
func run(t *testing.T, stdin string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	code = Main(args, strings.NewReader(stdin), &out, &errb)
	return code, out.String(), errb.String()
}

func TestVersion(t *testing.T) {
	code, out, _ := run(t, "", "version")
	if code != ExitOK {
		t.Fatalf("exit %d, want %d", code, ExitOK)
	}
	if !strings.HasPrefix(out, "pipewhy ") {
		t.Fatalf("output %q does not start with %q", out, "pipewhy ")
	}
}

func TestUnknownCommandExitsWithError(t *testing.T) {
	code, out, errOut := run(t, "", "no-such-command")
	if code != ExitError {
		t.Fatalf("exit %d, want %d", code, ExitError)
	}
	if out != "" {
		t.Fatalf("unexpected stdout %q", out)
	}
	if !strings.Contains(errOut, `unknown command "no-such-command"`) {
		t.Fatalf("stderr %q does not name the unknown command", errOut)
	}
}

func TestBadFlagExitsWithError(t *testing.T) {
	code, _, errOut := run(t, "", "version", "--no-such-flag")
	if code != ExitError {
		t.Fatalf("exit %d, want %d", code, ExitError)
	}
	if !strings.Contains(errOut, "unknown flag") {
		t.Fatalf("stderr %q does not explain the bad flag", errOut)
	}
}
