package errcode

import (
	"errors"
	"strings"
)

// Coded is an error with a stable code.
type Coded interface {
	error
	ErrorCode() string
}

// Codes returns the non-empty codes of the coded errors in err's tree, in the order
// errors.As visits them: err first, then a depth-first walk of what it wraps
// (Unwrap() error and Unwrap() []error). For a chain of wrappers that is outermost first.
func Codes(err error) []string {
	var codes []string
	var walk func(error)
	walk = func(err error) {
		for err != nil {
			if c, ok := err.(Coded); ok {
				if code := c.ErrorCode(); code != "" {
					codes = append(codes, code)
				}
			}
			switch u := err.(type) {
			case interface{ Unwrap() error }:
				err = u.Unwrap()
			case interface{ Unwrap() []error }:
				for _, e := range u.Unwrap() {
					walk(e)
				}
				return
			default:
				return
			}
		}
	}
	walk(err)
	return codes
}

// Of returns the code that names err: the innermost PW_ code of its chain (the most
// specific of PipeWhy's own), else the innermost code it has (a GF_ code of the canonical
// contract, a snapshot or arrays code), else "".
func Of(err error) string { return Pick(Codes(err)) }

// Pick chooses among codes, listed outermost first, the one Of returns.
func Pick(codes []string) string {
	code := ""
	for _, c := range codes {
		if strings.HasPrefix(c, "PW_") || !strings.HasPrefix(code, "PW_") {
			code = c
		}
	}
	return code
}

// As returns, as the package's code type C, the code of the first error of type E in
// err's tree (the one errors.As finds), or "". It is each package's CodeOf, for the codes
// of its own error types:
//
//	func CodeOf(err error) Code { return errcode.As[*Error, Code](err) }
func As[E Coded, C ~string](err error) C {
	if e, ok := errors.AsType[E](err); ok {
		return C(e.ErrorCode())
	}
	return ""
}

// Text is the message of an error in the layout most packages share: head (the package
// and what it was doing: "scan open", "repo load /x"), ": " and msg, ": " and the text of
// cause when there is one, then the code in brackets:
//
//	repo load /x: cannot read the log: open /x: permission denied [PW_REPO_IO]
func Text(head, msg string, cause error, code string) string {
	s := head + ": " + msg
	if cause != nil {
		s += ": " + cause.Error()
	}
	return s + " [" + code + "]"
}
