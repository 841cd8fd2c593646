package repo

import (
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"

	"github.com/pipewhy/pipewhy/normalize"
)

// FormatValue renders the C2 payload words of one value of type tc for people:
// null, true, -42, 1.5, "text" (Go-quoted), 0x0a0b (bytes), 84.19 (decimals from their
// exact coefficient and exponent), 2026-11-01 08:37:00[.ffffff][+01:00 | UTC | Europe/Berlin].
// Malformed payloads render as "?" rather than failing: this is display only.
func FormatValue(tc normalize.TypeCode, p []uint64) string {
	switch tc {
	case normalize.Missing:
		return "(missing)"
	case normalize.Null:
		return "null"
	case normalize.Bool:
		if len(p) == 1 {
			return strconv.FormatBool(p[0] == 1)
		}
	case normalize.Int64:
		if len(p) == 1 {
			return strconv.FormatInt(int64(p[0]), 10)
		}
	case normalize.Uint64:
		if len(p) == 1 {
			return strconv.FormatUint(p[0], 10)
		}
	case normalize.Float64:
		if len(p) == 1 {
			return strconv.FormatFloat(math.Float64frombits(p[0]), 'g', -1, 64)
		}
	case normalize.Text:
		if b, ok := unpackBytes(p); ok {
			return strconv.Quote(string(b))
		}
	case normalize.Bytes:
		if b, ok := unpackBytes(p); ok {
			return "0x" + hex.EncodeToString(b)
		}
	case normalize.Decimal:
		if s, ok := formatDecimal(p); ok {
			return s
		}
	case normalize.Timestamp:
		if s, ok := formatTimestamp(p); ok {
			return s
		}
	}
	return "?"
}

func unpackBytes(p []uint64) ([]byte, bool) {
	if len(p) == 0 {
		return nil, false
	}
	n := p[0]
	if uint64(len(p)-1) != (n+7)/8 {
		return nil, false
	}
	b := make([]byte, 8*(len(p)-1))
	for i, w := range p[1:] {
		binary.LittleEndian.PutUint64(b[8*i:], w)
	}
	return b[:n], true
}

func formatDecimal(p []uint64) (string, bool) {
	if len(p) < 7 || uint64(len(p)-6) != p[5] {
		return "", false
	}
	sign := ""
	if p[0] == 1 {
		sign = "-"
	}
	switch p[1] {
	case 1:
		return sign + "Infinity", true
	case 2:
		return sign + "NaN", true
	case 3:
		return sign + "sNaN", true
	}
	coef := new(big.Int)
	for i := len(p) - 1; i >= 6; i-- {
		coef.Lsh(coef, 64)
		coef.Or(coef, new(big.Int).SetUint64(p[i]))
	}
	digits := coef.String()
	if d := int(p[4]); d > len(digits) && d < 1<<20 {
		digits = strings.Repeat("0", d-len(digits)) + digits
	}
	if p[3] == 0 {
		return sign + digits, true
	}
	if p[2] == 0 { // positive exponent
		return sign + digits + "E+" + strconv.FormatUint(p[3], 10), true
	}
	if p[3] > 1<<20 {
		return sign + digits + "E-" + strconv.FormatUint(p[3], 10), true
	}
	e := int(p[3])
	if e < len(digits) {
		return sign + digits[:len(digits)-e] + "." + digits[len(digits)-e:], true
	}
	return sign + "0." + strings.Repeat("0", e-len(digits)) + digits, true
}

func formatTimestamp(p []uint64) (string, bool) {
	if len(p) < 11 {
		return "", false
	}
	name, ok := unpackBytes(p[10:])
	if !ok {
		return "", false
	}
	s := fmt.Sprintf("%04d-%02d-%02d %02d:%02d:%02d", p[0], p[1], p[2], p[3], p[4], p[5])
	if p[6] != 0 {
		s += fmt.Sprintf(".%06d", p[6])
	}
	switch p[8] {
	case 1:
		off := int64(p[9]) / 1e6
		if off == 0 && string(name) == "UTC" {
			return s + " UTC", true
		}
		sg := "+"
		if off < 0 {
			sg, off = "-", -off
		}
		s += fmt.Sprintf("%s%02d:%02d", sg, off/3600, off/60%60)
	case 2:
		s += " " + string(name)
	}
	if p[7] == 1 {
		s += " (fold 1)"
	}
	return s, true
}

// FormatRecord renders a framed C2 record (for example a key record) as
// "name=value" pairs separated by spaces, in field id order; name maps a field id to
// its column name. A malformed record renders as "?".
func FormatRecord(rec []uint64, name func(uint64) string) string {
	if normalize.ValidateRecordWords(rec) != nil {
		return "?"
	}
	var parts []string
	forEachFrame(rec, func(id uint64, tc normalize.TypeCode, payload []uint64) {
		parts = append(parts, name(id)+"="+FormatValue(tc, payload))
	})
	return strings.Join(parts, " ")
}

// forEachFrame calls fn for every field frame of a record that passed
// normalize.ValidateRecordWords.
func forEachFrame(rec []uint64, fn func(id uint64, tc normalize.TypeCode, payload []uint64)) {
	n := rec[2]
	pos := 3
	for k := uint64(0); k < n; k++ {
		id, tc, l := rec[pos], normalize.TypeCode(rec[pos+1]), int(rec[pos+2])
		fn(id, tc, rec[pos+3:pos+3+l])
		pos += 3 + l
	}
}

// RecordFields returns the frames of a record that passed
// normalize.ValidateRecordWords as (id, type, payload) triples, payloads borrowed.
func RecordFields(rec []uint64) (ids []uint64, types []normalize.TypeCode, payloads [][]uint64) {
	forEachFrame(rec, func(id uint64, tc normalize.TypeCode, p []uint64) {
		ids = append(ids, id)
		types = append(types, tc)
		payloads = append(payloads, p)
	})
	return
}
