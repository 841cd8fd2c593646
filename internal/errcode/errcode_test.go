package errcode_test

import (
	"errors"
	"fmt"
	"slices"
	"testing"

	"github.com/pipewhy/pipewhy/internal/errcode"
)

type coded struct {
	code string
	err  error
}

func (e *coded) Error() string     { return e.code }
func (e *coded) ErrorCode() string { return e.code }
func (e *coded) Unwrap() error     { return e.err }

func TestOf(t *testing.T) {
	plain := errors.New("plain")
	for _, c := range []struct {
		name  string
		err   error
		codes []string
		of    string
	}{
		{"nil", nil, nil, ""},
		{"uncoded", fmt.Errorf("wrap: %w", plain), nil, ""},
		{"one", &coded{code: "PW_A"}, []string{"PW_A"}, "PW_A"},
		{"innermost PW_ wins", &coded{code: "PW_OUTER", err: fmt.Errorf("x: %w", &coded{code: "PW_INNER", err: plain})},
			[]string{"PW_OUTER", "PW_INNER"}, "PW_INNER"},
		{"a PW_ code over an inner contract code", &coded{code: "PW_SNAP", err: &coded{code: "invalid_metadata"}},
			[]string{"PW_SNAP", "invalid_metadata"}, "PW_SNAP"},
		{"innermost code without PW_", &coded{code: "GF_OUTER", err: &coded{code: "io"}}, []string{"GF_OUTER", "io"}, "io"},
		{"empty code skipped", &coded{code: "PW_A", err: &coded{code: ""}}, []string{"PW_A"}, "PW_A"},
		{"joined, depth first", errors.Join(&coded{code: "PW_A", err: &coded{code: "PW_B"}}, plain, &coded{code: "PW_C"}),
			[]string{"PW_A", "PW_B", "PW_C"}, "PW_C"},
	} {
		if got := errcode.Codes(c.err); !slices.Equal(got, c.codes) {
			t.Errorf("%s: Codes = %q, want %q", c.name, got, c.codes)
		}
		if got := errcode.Of(c.err); got != c.of {
			t.Errorf("%s: Of = %q, want %q", c.name, got, c.of)
		}
	}
}

type pkgCode string

type other struct{ coded }

func TestAs(t *testing.T) {
	inner := &coded{code: "PW_INNER"}
	outer := &other{coded{code: "PW_OUTER", err: fmt.Errorf("x: %w", inner)}}
	if got := errcode.As[*coded, pkgCode](outer); got != "PW_INNER" {
		t.Errorf("As[*coded] = %q, want the first *coded in the chain, PW_INNER", got)
	}
	if got := errcode.As[*other, pkgCode](outer); got != "PW_OUTER" {
		t.Errorf("As[*other] = %q, want PW_OUTER", got)
	}
	if got := errcode.As[*other, pkgCode](fmt.Errorf("w: %w", inner)); got != "" {
		t.Errorf("As[*other] of a chain without one = %q, want \"\"", got)
	}
	if got := errcode.As[*coded, pkgCode](nil); got != "" {
		t.Errorf("As(nil) = %q, want \"\"", got)
	}
}

func TestText(t *testing.T) {
	if got, want := errcode.Text("repo load /x", "cannot read the log", errors.New("permission denied"), "PW_REPO_IO"),
		"repo load /x: cannot read the log: permission denied [PW_REPO_IO]"; got != want {
		t.Errorf("Text = %q, want %q", got, want)
	}
	if got, want := errcode.Text("why", "no such artifact", nil, "PW_WHY_ARTIFACT"), "why: no such artifact [PW_WHY_ARTIFACT]"; got != want {
		t.Errorf("Text without a cause = %q, want %q", got, want)
	}
}
