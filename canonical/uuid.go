package canonical

import "encoding/hex"

// UUID is 16 network-order bytes. Ordering is unsigned lexicographic order of the bytes.
type UUID [16]byte

// String renders u in the lowercase RFC 9562 8-4-4-4-12 form.
func (u UUID) String() string {
	var b [36]byte
	hex.Encode(b[0:8], u[0:4])
	b[8] = '-'
	hex.Encode(b[9:13], u[4:6])
	b[13] = '-'
	hex.Encode(b[14:18], u[6:8])
	b[18] = '-'
	hex.Encode(b[19:23], u[8:10])
	b[23] = '-'
	hex.Encode(b[24:], u[10:])
	return string(b[:])
}

// ParseUUID parses the RFC 9562 hyphenated 8-4-4-4-12 form, case-insensitively. URNs,
// braces, omitted hyphens and whitespace are rejected, not repaired, and so are UUIDs whose
// variant field is not the RFC 9562 variant (binary 10), except the Nil and Max UUIDs that
// RFC 9562 defines. Errors are GF_CANONICAL_ENCODING and never echo the text.
func ParseUUID(s string) (UUID, error) {
	var u UUID
	if len(s) != 36 || s[8] != '-' || s[13] != '-' || s[18] != '-' || s[23] != '-' {
		return u, &Error{Code: CodeEncoding, Op: "uuid"}
	}
	j := 0
	for i := 0; i < 36; {
		if i == 8 || i == 13 || i == 18 || i == 23 {
			i++
			continue
		}
		hi, ok1 := unhex(s[i])
		lo, ok2 := unhex(s[i+1])
		if !ok1 || !ok2 {
			return UUID{}, &Error{Code: CodeEncoding, Op: "uuid"}
		}
		u[j] = hi<<4 | lo
		j++
		i += 2
	}
	if u[8]&0xc0 != 0x80 && u != (UUID{}) && u != maxUUID {
		return UUID{}, &Error{Code: CodeEncoding, Op: "uuid variant"}
	}
	return u, nil
}

var maxUUID = UUID{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff}

func unhex(c byte) (byte, bool) {
	switch {
	case '0' <= c && c <= '9':
		return c - '0', true
	case 'a' <= c && c <= 'f':
		return c - 'a' + 10, true
	case 'A' <= c && c <= 'F':
		return c - 'A' + 10, true
	}
	return 0, false
}
