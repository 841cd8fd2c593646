package cli

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"
	"syscall"

	"github.com/pipewhy/pipewhy/compare"
	"github.com/pipewhy/pipewhy/internal/errcode"
	"github.com/pipewhy/pipewhy/repo"
	"github.com/pipewhy/pipewhy/scan"
	"github.com/pipewhy/pipewhy/snapshot"
	"github.com/pipewhy/pipewhy/source"
	"github.com/spf13/cobra"
)

// CodeUsage marks bad usage of a command: an unknown command or flag, a wrong number
// of arguments, a flag value that does not parse.
const CodeUsage = "PW_CLI_USAGE"

// usageError is bad usage of the command at path (e.g. "pipewhy scan"): Main prints
// it with a pointer to that command's help.
type usageError struct {
	path string
	err  error
}

func (e *usageError) Error() string { return e.err.Error() }
func (e *usageError) Unwrap() error { return e.err }

// line is what Main prints for a usage error: one line that ends with the hint.
func (e *usageError) line() string {
	return fmt.Sprintf("%s [%s]; see '%s --help'", e.err, CodeUsage, e.path)
}

// message is the line without its code, for the --json error object.
func (e *usageError) message() string {
	return fmt.Sprintf("%s; see '%s --help'", e.err, e.path)
}

// checkUsage makes every usage error of the tree under c a *usageError: flag errors
// (through the flag error function, which subcommands inherit) and argument errors
// (by wrapping each command's Args). Commands that only group others get Args that
// reject an unknown subcommand, since cobra runs no Args check for them.
func checkUsage(c *cobra.Command) {
	c.SetFlagErrorFunc(func(cmd *cobra.Command, err error) error {
		return &usageError{path: cmd.CommandPath(), err: err}
	})
	var walk func(*cobra.Command)
	walk = func(cmd *cobra.Command) {
		if cmd.HasSubCommands() && !cmd.Runnable() {
			cmd.Args = subcommandArgs
			cmd.RunE = func(cmd *cobra.Command, _ []string) error { return cmd.Help() }
		}
		if args := cmd.Args; args != nil {
			cmd.Args = func(cmd *cobra.Command, a []string) error {
				if err := args(cmd, a); err != nil {
					if len(a) > 0 && cmd.HasSubCommands() {
						return &usageError{path: cmd.CommandPath(), err: err}
					}
					return &usageError{path: cmd.CommandPath(), err: fmt.Errorf("%w (usage: %s)", err, strings.TrimSuffix(cmd.UseLine(), " [flags]"))}
				}
				return nil
			}
		}
		for _, sub := range cmd.Commands() {
			walk(sub)
		}
	}
	walk(c)
}

// subcommandArgs rejects an argument that names no subcommand of cmd, suggesting the
// closest ones.
func subcommandArgs(cmd *cobra.Command, args []string) error {
	if len(args) == 0 {
		return nil
	}
	msg := fmt.Sprintf("unknown command %q for %q", args[0], cmd.CommandPath())
	if cmd.SuggestionsMinimumDistance <= 0 {
		cmd.SuggestionsMinimumDistance = 2 // cobra's default, which SuggestionsFor does not apply
	}
	if s := cmd.SuggestionsFor(args[0]); len(s) > 0 {
		msg += " (did you mean " + strings.Join(s, " or ") + "?)"
	}
	return errors.New(msg)
}

// CodeError is the code of a failure that carries no code of its own (an operating-system
// error met by the command itself), so that every error line and --json error has one.
const CodeError = "PW_CLI_ERROR"

// render is the one line Main prints for a command's error: its message and its code.
func render(err error) string {
	msg, code := describe(err)
	return msg + " [" + code + "]"
}

// describe returns what Main reports of a command's error: the messages of the error
// chain from the outermost, each path shown once, and one code, the innermost PW_ code
// (the most specific), else the innermost code the chain has (errcode.Pick), else
// CodeError.
func describe(err error) (msg, code string) {
	var parts []string
	var codes []string
	shown := func(s string) bool {
		for _, p := range parts {
			if strings.Contains(p, s) {
				return true
			}
		}
		return false
	}
	// A source address is the path with its adapter's prefix (csv:/data/x.csv): shown
	// when the path is.
	shownPath := func(p string) bool {
		if shown(p) {
			return true
		}
		scheme, rest, ok := strings.Cut(p, ":")
		return ok && rest != "" && !strings.HasPrefix(rest, "//") && strings.Trim(scheme, "abcdefghijklmnopqrstuvwxyz-") == "" && shown(rest)
	}
	add := func(s string) {
		s = strings.TrimSpace(strings.Trim(s, ": "))
		if s != "" && !shown(s) {
			parts = append(parts, s)
		}
	}
	path := func(p string) {
		if p != "" && !shownPath(p) {
			parts = append(parts, p)
		}
	}
	for err != nil {
		next := errors.Unwrap(err)
		own := ""
		if c, ok := err.(errcode.Coded); ok {
			own = c.ErrorCode()
		}
		if own != "" {
			codes = append(codes, own)
		}
		switch e := err.(type) {
		case *exitError, *usageError:
		case *scan.DuplicateKeyError:
			add(duplicateKeys(e))
		case *scan.Error:
			add(e.Msg)
		case *compare.Error:
			if side, ok := strings.CutPrefix(e.Op, "open "); ok {
				add("side " + side) // which of the two sources failed
			} else if side, ok := strings.CutPrefix(e.Op, "observe "); ok {
				add("side " + side)
			}
			add(e.Msg)
		case *source.Error:
			path(e.Source)
			add(e.Msg)
		case *repo.Error:
			path(e.Path)
			add(e.Msg)
		case *snapshot.Error:
			path(e.Path)
			add(e.Field)
			add(e.Msg)
		case *snapshot.StorageIntegrityError:
			add("storage integrity check failed")
			path(e.Path)
			add(e.Reason)
		case *fs.PathError:
			path(e.Path)
			add(errnoText(e.Err))
			next = nil
		case *os.LinkError:
			path(e.Old)
			add(errnoText(e.Err))
			next = nil
		default:
			// A wrapper such as fmt.Errorf("--schema: %w", err): its own words are its
			// text before the wrapped error's. A coded error's text may end with its code,
			// which the line shows once, at its end.
			text := err.Error()
			if own != "" {
				text = strings.TrimSuffix(strings.TrimSuffix(text, " ["+own+"]"), " ("+own+")")
			}
			if next != nil {
				if rest := next.Error(); strings.HasSuffix(text, rest) {
					text = strings.TrimSuffix(text, rest)
				} else {
					next = nil
				}
			}
			add(text)
		}
		err = next
	}
	code = errcode.Pick(codes)
	if code == "" {
		code = CodeError
	}
	return strings.Join(parts, ": "), code
}

// errnoText words an operating-system error for people; a missing file is "no such
// file".
func errnoText(err error) string {
	if errors.Is(err, syscall.ENOENT) || err.Error() == syscall.ENOENT.Error() {
		return "no such file"
	}
	return err.Error()
}

// duplicateKeys says what a duplicate-key error means and what to do, with up to three
// of the keys (data values, which the library's message leaves out).
func duplicateKeys(e *scan.DuplicateKeyError) string {
	s := fmt.Sprintf("%d key values occur more than once (%d records)", e.Keys, e.Records)
	if n := min(len(e.Examples), 3); n > 0 {
		s += ", e.g. " + strings.Join(e.Examples[:n], ", ")
	}
	return s + "; a key must identify one record: name other or more key columns with --key (a composite key is comma-separated: --key a,b)"
}
