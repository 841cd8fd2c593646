package snapshot

import (
	"errors"
	"io"
	"testing"
)

// TestJSONTruncatedContainers: a document cut inside an array or object, before a member
// name or before its closing bracket, is io.ErrUnexpectedEOF like every other truncation
// (TestJSONErrorKinds), never a bare io.EOF, by parseJSON and by the token decoder alone.
// "[" and "{" used to return io.EOF: the decoder answers io.EOF for the closing token.
func TestJSONTruncatedContainers(t *testing.T) {
	for _, c := range []string{`[`, `[ `, `{`, "{\n", `[1`, `[[]`, `{"a":1`, `{"a":1,`, `{"a":[1,2]`, `[{}`} {
		for name, parse := range map[string]func([]byte) (*jvalue, error){"parseJSON": parseJSON, "parseTokens": parseTokens} {
			_, err := parse([]byte(c))
			if !errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
				t.Errorf("%s(%q): error %v, want io.ErrUnexpectedEOF and not io.EOF", name, c, err)
			}
		}
	}
}
