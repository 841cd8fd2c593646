package snapshot

import (
	"errors"
	"io/fs"
	"testing"
)

// TestErrorText: each part of an *Error is written only when set, in the order op, path,
// field, message (or the code when there is none), cause, then the code in brackets.
func TestErrorText(t *testing.T) {
	cause := errors.New("disk full")
	for _, tc := range []struct {
		e    *Error
		want string
	}{
		{&Error{Code: CodeIO, Op: "publish", Path: "/s/x", Field: "arrays.a", Msg: "write failed", Err: cause},
			"snapshot: publish: /s/x: arrays.a: write failed: disk full [io]"},
		{&Error{Code: CodeIO, Msg: "write failed"}, "snapshot: write failed [io]"},
		{&Error{Code: CodeNotFound, Op: "open"}, "snapshot: open: not_found [not_found]"},
		{&Error{Code: CodeInvalidManifest, Field: "format"}, "snapshot: format: invalid_manifest [invalid_manifest]"},
	} {
		if got := tc.e.Error(); got != tc.want {
			t.Errorf("Error() = %q, want %q", got, tc.want)
		}
	}
}

// TestErrorIs: each code matches exactly its sentinel, and no other.
func TestErrorIs(t *testing.T) {
	sentinels := []error{ErrInvalid, ErrCommitUncertain, fs.ErrExist, fs.ErrNotExist, fs.ErrPermission}
	for code, want := range map[Code]error{
		CodeInvalidMetadata: ErrInvalid, CodeInvalidArray: ErrInvalid, CodeParent: ErrInvalid,
		CodeExists: fs.ErrExist, CodeNotFound: fs.ErrNotExist, CodeCommitUncertain: ErrCommitUncertain,
		CodeIO: nil, CodeIntegrity: nil,
	} {
		for _, s := range sentinels {
			if got := errors.Is(&Error{Code: code}, s); got != (s == want) {
				t.Errorf("errors.Is(%s error, %v) = %v", code, s, got)
			}
		}
	}
}
