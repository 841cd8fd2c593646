package snapshot

import (
	"crypto/rand"
	"encoding/hex"
)

// ID identifies a snapshot: 128 bits written as 32 lowercase hexadecimal characters.
// IDs are names, never paths. The zero ID is a valid ID.
type ID [16]byte

// NewID returns a random ID from crypto/rand.
func NewID() ID {
	var id ID
	rand.Read(id[:]) // never returns an error (crypto/rand, Go 1.24+)
	return id
}

// ParseID parses exactly 32 lowercase hexadecimal characters.
func ParseID(s string) (ID, error) {
	var id ID
	if !isLowerHex(s, 32) {
		return id, &Error{Code: CodeInvalidMetadata, Op: "parse id", Msg: "an ID is exactly 32 lowercase hexadecimal characters"}
	}
	_, _ = hex.Decode(id[:], []byte(s)) // 32 lowercase hex digits, checked above
	return id, nil
}

// String returns the 32 lowercase hexadecimal characters of id.
func (id ID) String() string { return hex.EncodeToString(id[:]) }

func isLowerHex(s string, n int) bool {
	if len(s) != n {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}
