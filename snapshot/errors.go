package snapshot

import (
	"errors"
	"io/fs"
	"strings"
)

// Code is a stable error code. Codes are only ever appended, never renamed or reused.
type Code string

// Error codes.
const (
	CodeInvalidMetadata Code = "invalid_metadata"  // metadata breaks a PW-07.01 rule
	CodeInvalidArray    Code = "invalid_array"     // bad array key, dtype or byte length
	CodeInvalidManifest Code = "invalid_manifest"  // manifest bytes are not a valid C5 manifest
	CodeUnsupported     Code = "unsupported"       // unsupported format, version, dtype or endianness
	CodeContext         Code = "context_mismatch"  // Options.VerifyContext rejected the fingerprint context
	CodeParent          Code = "invalid_parent"    // parent is the snapshot itself or not a complete snapshot
	CodeExists          Code = "exists"            // the snapshot ID is already published
	CodeNotFound        Code = "not_found"         // no published snapshot has this ID
	CodeIO              Code = "io"                // a filesystem operation failed before commit
	CodeCommitUncertain Code = "commit_uncertain"  // a failure after the publishing rename
	CodeCanceled        Code = "canceled"          // the context ended before commit
	CodeBadStore        Code = "bad_store"         // the store root is missing or not a directory
	CodeIntegrity       Code = "storage_integrity" // stored bytes fail validation (*StorageIntegrityError)
)

// Sentinels for categories, matched with errors.Is. An *Error with CodeExists also
// matches fs.ErrExist and one with CodeNotFound matches fs.ErrNotExist.
var (
	// ErrInvalid: the caller's metadata, array or ID breaks the contract.
	ErrInvalid = errors.New("snapshot: invalid input")
	// ErrCommitUncertain: Publish failed after the directory rename. The snapshot may be
	// published, and may or may not be durable: inspect the exact ID before any new
	// action and never overwrite it.
	ErrCommitUncertain = errors.New("snapshot: commit uncertain, the snapshot may be published")
)

// Error is the error type of this package, except for integrity failures of stored
// bytes, which are *StorageIntegrityError.
type Error struct {
	Code  Code
	Op    string // "publish", "open", "list", "verify", "inspect", "decode", ...
	Path  string // file or directory involved, if any
	Field string // metadata or manifest field, if any
	Msg   string // what is wrong, without user data values
	Err   error  // underlying cause, if any
}

func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString("snapshot: ")
	if e.Op != "" {
		b.WriteString(e.Op)
		b.WriteString(": ")
	}
	if e.Path != "" {
		b.WriteString(e.Path)
		b.WriteString(": ")
	}
	if e.Field != "" {
		b.WriteString(e.Field)
		b.WriteString(": ")
	}
	if e.Msg != "" {
		b.WriteString(e.Msg)
	} else {
		b.WriteString(string(e.Code))
	}
	if e.Err != nil {
		b.WriteString(": ")
		b.WriteString(e.Err.Error())
	}
	b.WriteString(" [")
	b.WriteString(string(e.Code))
	b.WriteString("]")
	return b.String()
}

func (e *Error) Unwrap() error { return e.Err }

// ErrorCode returns the stable code as a string (internal/errcode: the method every
// PipeWhy error has, for callers that do not know its type).
func (e *Error) ErrorCode() string { return string(e.Code) }

// Is matches the category sentinels of e.Code.
func (e *Error) Is(target error) bool {
	switch e.Code {
	case CodeInvalidMetadata, CodeInvalidArray, CodeParent:
		return target == ErrInvalid
	case CodeExists:
		return target == fs.ErrExist
	case CodeNotFound:
		return target == fs.ErrNotExist
	case CodeCommitUncertain:
		return target == ErrCommitUncertain
	}
	return false
}

// StorageIntegrityError reports stored bytes that fail validation: a checksum, size,
// inventory or manifest check. Path names the file (or directory) that failed. It is
// never turned into an empty result.
type StorageIntegrityError struct {
	Path   string // the file or directory that failed
	Reason string // what failed, e.g. "sha256 mismatch"
	Err    error  // underlying cause, if any
}

func (e *StorageIntegrityError) Error() string {
	s := "snapshot: storage integrity: " + e.Path + ": " + e.Reason
	if e.Err != nil {
		s += ": " + e.Err.Error()
	}
	return s
}

func (e *StorageIntegrityError) Unwrap() error { return e.Err }

// ErrorCode returns CodeIntegrity (internal/errcode).
func (e *StorageIntegrityError) ErrorCode() string { return string(CodeIntegrity) }

func invalidMeta(field, msg string) error {
	return &Error{Code: CodeInvalidMetadata, Op: "validate", Field: field, Msg: msg}
}
