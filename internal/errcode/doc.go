// Package errcode is the one shape of PipeWhy's errors, as a caller that does not know
// their types sees them.
//
// Every exported error type of the module carries a stable code, a string that is only
// ever appended to its package's list and never changes (PW_SOURCE_TYPE, PW_FP_STATE,
// GF_CANONICAL_LIMIT, invalid_metadata, ...), and reports it through one method:
//
//	ErrorCode() string
//
// Each package keeps its typed Code field (what errors.Is sentinels and callers that know
// the type match on), its own context fields (Op, Path, Source, ...), the words of its
// message, where it has some, in a field Msg, and a CodeOf function for its own codes
// (one line over As); most also share the layout of their text (Text). ErrorCode is the
// same code as a plain string, for callers that know no type: the command's one-line
// error and the error object of its --json output (internal/cli/errors.go). The method is not named Code because the field is.
//
// Invariants: Coded is implemented by every exported type of the module that has an
// Error method, except causes that are only ever wrapped in a coded error of the package
// that returns them (TestEveryErrorTypeIsCoded in internal/errorshape_test.go checks it
// and lists them; TestErrorFieldsAgree checks the names of the fields and methods); Of
// returns a code of the chain or "", never one it does not hold.
package errcode
