package c2text

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/pipewhy/pipewhy/normalize"
)

// Value renders the C2 payload words of one value of type tc for people:
// null, true, -42, 1.5, "text" (Go-quoted), 0x0a0b (bytes), 84.19 (decimals from their
// exact coefficient and exponent), 2026-11-01 08:37:00[.ffffff][+01:00 | UTC | Europe/Berlin].
// The extension 1 types (C2-extensions.md): DATE 2026-11-30; TIME 13:45:00[.fff |
// .ffffff | .fffffffff] (the shortest exact fraction); DURATION exact decimal seconds,
// 1.5s; TIMESTAMP_NS as TIMESTAMP with nine fraction digits; NESTED
// <nested N bytes 0x…> (its canonical value bytes; above 32 bytes a SHA-256 prefix).
// Malformed payloads render as "?" rather than failing: this is display only.
func Value(tc normalize.TypeCode, p []uint64) string {
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
		if s, ok := formatTimestamp(p, false); ok {
			return s
		}
	case normalize.TimestampNS:
		if s, ok := formatTimestamp(p, true); ok {
			return s
		}
	case normalize.Date:
		if len(p) == 1 {
			if s, ok := formatDate(int64(p[0])); ok {
				return s
			}
		}
	case normalize.Time:
		if len(p) == 1 && p[0] < 86400*1e9 {
			return formatClock(p[0]/1e9) + fraction(p[0]%1e9)
		}
	case normalize.Duration:
		if len(p) == 2 {
			return formatDuration(p[0], p[1])
		}
	case normalize.Nested:
		if s, ok := formatNested(p); ok {
			return s
		}
	}
	return "?"
}

// Python's date range, years 1..9999: days since 1970-01-01 of 0001-01-01 and 9999-12-31.
const (
	minDays = -719162
	maxDays = 2932896
)

// formatDate renders days since 1970-01-01 (proleptic Gregorian) as YYYY-MM-DD, for
// the years 1..9999 that DATE admits.
func formatDate(days int64) (string, bool) {
	if days < minDays || days > maxDays {
		return "", false
	}
	// Civil from days (H. Hinnant's algorithm), exact integer arithmetic.
	z := days + 719468
	era := z / 146097 // z >= 0 in range
	doe := z - era*146097
	yoe := (doe - doe/1460 + doe/36524 - doe/146096) / 365
	y := yoe + era*400
	doy := doe - (365*yoe + yoe/4 - yoe/100)
	mp := (5*doy + 2) / 153
	d := doy - (153*mp+2)/5 + 1
	m := mp + 3
	if m > 12 {
		m -= 12
	}
	if m <= 2 {
		y++
	}
	return fmt.Sprintf("%04d-%02d-%02d", y, m, d), true
}

// formatClock renders seconds since midnight as HH:MM:SS.
func formatClock(sec uint64) string {
	return fmt.Sprintf("%02d:%02d:%02d", sec/3600, sec/60%60, sec%60)
}

// fraction renders nanoseconds of a second as "", ".fff", ".ffffff" or ".fffffffff":
// the shortest of millisecond, microsecond and nanosecond digits that is exact.
func fraction(ns uint64) string {
	switch {
	case ns == 0:
		return ""
	case ns%1e6 == 0:
		return fmt.Sprintf(".%03d", ns/1e6)
	case ns%1e3 == 0:
		return fmt.Sprintf(".%06d", ns/1e3)
	}
	return fmt.Sprintf(".%09d", ns)
}

// formatDuration renders the signed 128-bit nanosecond count [lo, hi] as exact decimal
// seconds with the unit "s": 1.5s, -0.000000001s, 86400s.
func formatDuration(lo, hi uint64) string {
	v := new(big.Int).SetUint64(hi)
	v.Lsh(v, 64)
	v.Or(v, new(big.Int).SetUint64(lo))
	if hi>>63 == 1 {
		v.Sub(v, new(big.Int).Lsh(big.NewInt(1), 128))
	}
	sign := ""
	if v.Sign() < 0 {
		sign = "-"
		v.Neg(v)
	}
	sec, ns := new(big.Int).QuoRem(v, big.NewInt(1e9), new(big.Int))
	s := sign + sec.String()
	if ns.Sign() != 0 {
		s += "." + strings.TrimRight(fmt.Sprintf("%09d", ns.Uint64()), "0")
	}
	return s + "s"
}

// maxNestedHex is the largest nested value shown in full.
const maxNestedHex = 32

// formatNested renders a NESTED payload by its canonical value bytes (graphforge-
// canonical/1, presence byte first): "<nested N bytes 0x...>" in full up to
// maxNestedHex bytes, else "<nested N bytes sha256:XXXXXXXX>" with the first four bytes
// of the value bytes' SHA-256, enough to tell old and new apart. The type bytes are not
// shown: the schema names the column's type.
func formatNested(p []uint64) (string, bool) {
	if len(p) == 0 {
		return "", false
	}
	tw := 1 + (p[0]+7)/8
	if p[0] > uint64(len(p))*8 || tw >= uint64(len(p)) {
		return "", false
	}
	if _, ok := unpackBytes(p[:tw]); !ok {
		return "", false
	}
	v, ok := unpackBytes(p[tw:])
	if !ok {
		return "", false
	}
	if len(v) <= maxNestedHex {
		return fmt.Sprintf("<nested %d bytes 0x%s>", len(v), hex.EncodeToString(v)), true
	}
	sum := sha256.Sum256(v)
	return fmt.Sprintf("<nested %d bytes sha256:%s>", len(v), hex.EncodeToString(sum[:4])), true
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

// formatTimestamp renders TIMESTAMP (word 6 microseconds, shown as six digits) and,
// with ns, TIMESTAMP_NS (word 6 the nanosecond of the second, shown as nine digits).
func formatTimestamp(p []uint64, ns bool) (string, bool) {
	if len(p) < 11 {
		return "", false
	}
	name, ok := unpackBytes(p[10:])
	if !ok {
		return "", false
	}
	s := fmt.Sprintf("%04d-%02d-%02d %02d:%02d:%02d", p[0], p[1], p[2], p[3], p[4], p[5])
	if ns {
		s += fmt.Sprintf(".%09d", p[6])
	} else if p[6] != 0 {
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

// Record renders a framed C2 record (for example a key record) as
// "name=value" pairs separated by spaces, in field id order; name maps a field id to
// its column name. A malformed record renders as "?".
func Record(rec []uint64, name func(uint64) string) string {
	// Display only: the extension type codes are accepted whatever the profile.
	if normalize.ValidateRecordWordsIn(rec, normalize.StrictV1Ext1) != nil {
		return "?"
	}
	var parts []string
	forEachFrame(rec, func(id uint64, tc normalize.TypeCode, payload []uint64) {
		parts = append(parts, name(id)+"="+Value(tc, payload))
	})
	return strings.Join(parts, " ")
}

// RecordShort is Record on one line of at most about width runes, for
// records too wide to read whole (a keyless scan's key is the whole record): a text,
// bytes or nested value longer than valueWidth runes keeps its first runes and "…",
// and the fields that no longer fit are counted at the end:
// `a=1 b="a long te…" … +3 fields`. The fields first accepts (nil: none) come first,
// the others follow, each group in field id order; the first field always shows.
func RecordShort(rec []uint64, name func(uint64) string, first func(id uint64) bool, width, valueWidth int) string {
	if normalize.ValidateRecordWordsIn(rec, normalize.StrictV1Ext1) != nil {
		return "?"
	}
	ids, types, payloads := Fields(rec)
	order := make([]int, 0, len(ids))
	for pass := range 2 {
		for k, id := range ids {
			if (first != nil && first(id)) == (pass == 0) {
				order = append(order, k)
			}
		}
	}
	var b strings.Builder
	runes, shown := 0, 0
	for _, k := range order {
		part := name(ids[k]) + "=" + formatValueShort(types[k], payloads[k], valueWidth)
		n := utf8.RuneCountInString(part)
		if shown > 0 && runes+1+n > width {
			break
		}
		if shown > 0 {
			b.WriteByte(' ')
			runes++
		}
		b.WriteString(part)
		runes += n
		shown++
	}
	if len(ids) > shown {
		fmt.Fprintf(&b, " … +%d fields", len(ids)-shown)
	}
	return b.String()
}

// formatValueShort is Value with a text, bytes or nested value cut to about
// limit runes with "…" (a text before it is quoted, so an escape sequence is never
// split). Numbers and times are never cut: a shortened number would read as another.
func formatValueShort(tc normalize.TypeCode, p []uint64, limit int) string {
	limit = max(limit, 2)
	if tc == normalize.Text {
		if b, ok := unpackBytes(p); ok && utf8.RuneCount(b) > limit {
			q := strconv.Quote(string([]rune(string(b))[:limit-1]))
			return q[:len(q)-1] + `…"`
		}
	}
	v := Value(tc, p)
	if (tc == normalize.Bytes || tc == normalize.Nested) && len(v) > limit {
		return v[:limit-1] + "…" // ASCII: 0x… and <nested …>
	}
	return v
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

// Fields returns the frames of a record that passed
// normalize.ValidateRecordWords as (id, type, payload) triples, payloads borrowed.
func Fields(rec []uint64) (ids []uint64, types []normalize.TypeCode, payloads [][]uint64) {
	forEachFrame(rec, func(id uint64, tc normalize.TypeCode, p []uint64) {
		ids = append(ids, id)
		types = append(types, tc)
		payloads = append(payloads, p)
	})
	return
}
