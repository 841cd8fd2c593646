package fingerprint

import (
	"crypto/sha256"
	"encoding/binary"
	"strings"
	"unsafe"

	"github.com/zeebo/xxh3"
)

// Algorithm is a registered record-digest algorithm of C3. The zero Algorithm is invalid.
// Algorithms are values, compared with ==; the registry is closed: an identity this build
// does not know is rejected, never guessed.
type Algorithm struct{ kind algKind }

type algKind uint8

const (
	algInvalid algKind = iota
	algXXH3
	algSHA256
	algXXH3Columnar
)

// The registered algorithms. Their identities, versions and digest definitions are fixed
// by docs/contracts/C3-fingerprint.md and never change; a changed definition is a new
// version.
var (
	// XXH3 is the reference fast algorithm: XXH3-128 with seed 0 over the message bytes.
	XXH3 = Algorithm{algXXH3}
	// SHA256 is the slower second algorithm: the first 16 bytes of SHA-256 of the message.
	SHA256 = Algorithm{algSHA256}
	// XXH3Columnar is the algorithm designed for column-at-a-time computation
	// (pipewhy.fingerprint/xxh3-128-columnar/v2, v2.go): XXH3-128 of each field's frame
	// under a field key, and of the record's field digests under a record key.
	XXH3Columnar = Algorithm{algXXH3Columnar}
)

// identityPrefix begins every algorithm identity.
const identityPrefix = "pipewhy.fingerprint/"

type algInfo struct {
	name    string
	version uint64
	lanes   int
}

var algInfos = [...]algInfo{
	algXXH3:         {name: "xxh3-128", version: 1, lanes: 2},
	algSHA256:       {name: "sha256-128", version: 1, lanes: 2},
	algXXH3Columnar: {name: "xxh3-128-columnar", version: 2, lanes: 2},
}

// Algorithms returns the registered algorithms: the two of version 1, reference algorithm
// first, then XXH3Columnar.
func Algorithms() []Algorithm { return []Algorithm{XXH3, SHA256, XXH3Columnar} }

// Valid reports whether a is a registered algorithm.
func (a Algorithm) Valid() bool {
	return a.kind == algXXH3 || a.kind == algSHA256 || a.kind == algXXH3Columnar
}

// Name returns the algorithm's name, e.g. "xxh3-128" ("" for the zero Algorithm).
func (a Algorithm) Name() string {
	if !a.Valid() {
		return ""
	}
	return algInfos[a.kind].name
}

// Version returns the algorithm's version (1 for XXH3 and SHA256, 2 for XXH3Columnar).
func (a Algorithm) Version() uint64 {
	if !a.Valid() {
		return 0
	}
	return algInfos[a.kind].version
}

// Lanes returns the number of uint64 lanes of the algorithm's states (2 for every one).
func (a Algorithm) Lanes() int {
	if !a.Valid() {
		return 0
	}
	return algInfos[a.kind].lanes
}

// ID returns the full algorithm identity, "pipewhy.fingerprint/<name>/v<version>",
// e.g. "pipewhy.fingerprint/xxh3-128/v1". A local integer algorithm_id of a C1
// observation row must resolve to this string.
func (a Algorithm) ID() string {
	if !a.Valid() {
		return ""
	}
	in := algInfos[a.kind]
	return identityPrefix + in.name + "/v" + uitoa(in.version)
}

func (a Algorithm) String() string {
	if !a.Valid() {
		return "Algorithm(invalid)"
	}
	return a.ID()
}

// LookupAlgorithm returns the algorithm registered under name and version. An unknown
// name is CodeAlgorithm; a known name with another version is CodeAlgorithmVersion.
func LookupAlgorithm(name string, version uint64) (Algorithm, error) {
	for _, a := range Algorithms() {
		if a.Name() != name {
			continue
		}
		if a.Version() != version {
			return Algorithm{}, newErr("algorithm", CodeAlgorithmVersion,
				"algorithm "+name+" has version "+uitoa(a.Version())+", not "+uitoa(version))
		}
		return a, nil
	}
	return Algorithm{}, newErr("algorithm", CodeAlgorithm, "unknown algorithm name")
}

// ParseAlgorithm returns the algorithm whose identity (Algorithm.ID) is id. Errors as
// for LookupAlgorithm; a malformed identity is CodeAlgorithm.
func ParseAlgorithm(id string) (Algorithm, error) {
	rest, ok := strings.CutPrefix(id, identityPrefix)
	if !ok {
		return Algorithm{}, newErr("algorithm", CodeAlgorithm, "identity lacks the "+identityPrefix+" prefix")
	}
	name, ver, ok := strings.Cut(rest, "/v")
	if !ok {
		return Algorithm{}, newErr("algorithm", CodeAlgorithm, "identity lacks a /v<version> suffix")
	}
	v, ok := parseDecimal(ver)
	if !ok {
		return Algorithm{}, newErr("algorithm", CodeAlgorithm, "identity version is not a canonical decimal")
	}
	return LookupAlgorithm(name, v)
}

// Digest is a 128-bit digest as two words. For XXH3, Lo and Hi are the low and high 64
// bits of the XXH3-128 value (xxhsum -H2 prints Hi then Lo, each as 16 big-endian hex
// digits). For SHA256, Lo and Hi are the first and second 8 bytes of the SHA-256 output,
// each read as a little-endian uint64.
type Digest struct{ Lo, Hi uint64 }

// Sum returns a's digest of msg, the exact bytes the contract hashes (for version 1:
// context key, optional position, words). It is the primitive every record, key and
// value digest is built on; it allocates nothing. XXH3Columnar's primitive is XXH3-128
// too, over the messages of v2.go.
func (a Algorithm) Sum(msg []byte) Digest {
	switch a.kind {
	case algXXH3, algXXH3Columnar:
		h := xxh3.Hash128(msg)
		return Digest{Lo: h.Lo, Hi: h.Hi}
	case algSHA256:
		s := sha256.Sum256(msg)
		return Digest{Lo: binary.LittleEndian.Uint64(s[0:8]), Hi: binary.LittleEndian.Uint64(s[8:16])}
	}
	panic("fingerprint: Sum on an invalid Algorithm")
}

// hostLittleEndian guards the one unsafe reinterpretation of this package: uint64 words
// are copied as raw memory only where their in-memory bytes already are the little-endian
// wire bytes. Other hosts take the portable per-word loop.
var hostLittleEndian = func() bool {
	x := uint16(1)
	return *(*byte)(unsafe.Pointer(&x)) == 1
}()

// putWords writes words as little-endian bytes to dst, which must hold 8*len(words) bytes.
func putWords(dst []byte, words []uint64) {
	if len(words) == 0 {
		return
	}
	if hostLittleEndian {
		copy(dst, unsafe.Slice((*byte)(unsafe.Pointer(&words[0])), len(words)*8))
		return
	}
	for i, w := range words {
		binary.LittleEndian.PutUint64(dst[8*i:], w)
	}
}

// uitoa formats v in decimal without allocation beyond the result.
func uitoa(v uint64) string {
	var b [20]byte
	i := len(b)
	for {
		i--
		b[i] = byte('0' + v%10)
		v /= 10
		if v == 0 {
			break
		}
	}
	return string(b[i:])
}

// parseDecimal parses a canonical unsigned decimal (no sign, no leading zero unless "0").
func parseDecimal(s string) (uint64, bool) {
	if s == "" || len(s) > 20 || (len(s) > 1 && s[0] == '0') {
		return 0, false
	}
	var v uint64
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < '0' || c > '9' {
			return 0, false
		}
		d := uint64(c - '0')
		if v > (^uint64(0)-d)/10 {
			return 0, false
		}
		v = v*10 + d
	}
	return v, true
}
