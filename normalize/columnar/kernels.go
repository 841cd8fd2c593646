package columnar

import (
	"encoding/binary"
	"unicode/utf8"
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal"
	"golang.org/x/text/unicode/norm"

	"github.com/pipewhy/pipewhy/internal/civil"
	"github.com/pipewhy/pipewhy/normalize"
)

const (
	tcNull        = uint64(normalize.Null)
	tcBool        = uint64(normalize.Bool)
	tcInt64       = uint64(normalize.Int64)
	tcUint64      = uint64(normalize.Uint64)
	tcFloat64     = uint64(normalize.Float64)
	tcText        = uint64(normalize.Text)
	tcBytes       = uint64(normalize.Bytes)
	tcDecimal     = uint64(normalize.Decimal)
	tcTimestamp   = uint64(normalize.Timestamp)
	tcDate        = uint64(normalize.Date)
	tcTime        = uint64(normalize.Time)
	tcDuration    = uint64(normalize.Duration)
	tcTimestampNS = uint64(normalize.TimestampNS)
	tcNested      = uint64(normalize.Nested)
)

// str returns value j of a string or binary array, borrowed (no copy, no allocation;
// binary bytes are viewed as a string only to share the packing code and never kept).
func str(k kind, a arrow.Array, j int) string {
	var b []byte
	switch k {
	case kString:
		return a.(*array.String).Value(j)
	case kLargeString:
		return a.(*array.LargeString).Value(j)
	case kStringView:
		return a.(*array.StringView).Value(j)
	case kBinary:
		b = a.(*array.Binary).Value(j)
	case kLargeBinary:
		b = a.(*array.LargeBinary).Value(j)
	case kBinaryView:
		b = a.(*array.BinaryView).Value(j)
	case kFixedBinary:
		b = a.(*array.FixedSizeBinary).Value(j)
	}
	return unsafe.String(unsafe.SliceData(b), len(b))
}

func isText(k kind) bool { return k == kString || k == kLargeString || k == kStringView }

func isBytes(k kind) bool {
	return k == kBinary || k == kLargeBinary || k == kBinaryView || k == kFixedBinary
}

// pack writes [len(s), little-endian packed words...] at w and returns the word count.
func pack(w []uint64, s string) int {
	n := len(s)
	w[0] = uint64(n)
	k := 1
	for len(s) >= 8 {
		w[k] = binary.LittleEndian.Uint64(unsafe.Slice(unsafe.StringData(s), 8))
		s = s[8:]
		k++
	}
	if len(s) > 0 {
		var x uint64
		for i := len(s) - 1; i >= 0; i-- {
			x = x<<8 | uint64(s[i])
		}
		w[k] = x
		k++
	}
	return k
}

// decimalAt returns the sign and magnitude of decimal value j.
func decimalAt(k kind, a arrow.Array, j int) (bool, u256) {
	var m u256
	switch k {
	case kDecimal32:
		x := int64(a.(*array.Decimal32).Value(j))
		if x < 0 {
			return true, u256{uint64(-x)}
		}
		return false, u256{uint64(x)}
	case kDecimal64:
		x := int64(a.(*array.Decimal64).Value(j))
		if x < 0 {
			return true, u256{-uint64(x)}
		}
		return false, u256{uint64(x)}
	case kDecimal128:
		x := a.(*array.Decimal128).Value(j)
		m = u256{x.LowBits(), uint64(x.HighBits())}
		if x.HighBits() < 0 {
			m = neg256(u256{m[0], m[1], ^uint64(0), ^uint64(0)})
			return true, m
		}
		return false, m
	case kDecimal256:
		m = u256(decimal.Decimal256(a.(*array.Decimal256).Value(j)).Array())
		if int64(m[3]) < 0 {
			return true, neg256(m)
		}
	}
	return false, m
}

// size adds each row's variable payload words to e.rowWords (and removes the fixed
// payload of null rows), checking every value that can fail.
func (e *Encoder) size(p *plan, arr arrow.Array, n int) *Error {
	if p.kind == kNull {
		return nil
	}
	if err := p.prepare(arr, n); err != nil {
		return err
	}
	v := &p.v
	if !p.check && v.dense() {
		return nil
	}
	rw := e.rowWords
	logical := e.profile.Logical()
	switch {
	case p.kind == kNested:
		return p.nest.size(p, n, rw)
	case isText(p.kind) || isBytes(p.kind):
		text := isText(p.kind)
		p.alt, p.altAt = p.alt[:0], 0
		for r := 0; r < n; r++ {
			j := v.phys(r)
			if j < 0 {
				if p.fixed > 0 {
					rw[r] -= p.fixed
				}
				continue
			}
			s := p.strAt(j)
			if text && !v.ascii {
				if !utf8.ValidString(s) {
					return p.err(r, normalize.CodeUTF8, "text is not strict UTF-8 of Unicode scalar values")
				}
				if logical && norm.NFC.QuickSpanString(s) != len(s) {
					s = norm.NFC.String(s)
					p.alt = append(p.alt, altText{row: r, s: s})
				}
			}
			if p.fixed < 0 {
				rw[r] += 1 + (len(s)+7)/8
			}
		}
	case p.kind == kDecimalText:
		// The payloads are computed here, once, by the scalar encoder's own parser and
		// encoder (normalize.ParseDecimal, normalize.AppendDecimal), and copied by write.
		p.dec = p.dec[:0]
		for r := 0; r < n; r++ {
			j := v.phys(r)
			if j < 0 {
				continue
			}
			d, err := normalize.ParseDecimal(p.strAt(j))
			if err != nil {
				return p.err(r, normalize.CodeDecimal, "decimal text is not a decimal number")
			}
			at := len(p.dec)
			if p.dec, err = normalize.AppendDecimal(p.dec, &d, e.profile); err != nil {
				return p.err(r, normalize.CodeOf(err), "decimal not representable: exponent out of range")
			}
			rw[r] += len(p.dec) - at
		}
	case p.kind >= kDecimal32 && p.kind <= kDecimal256:
		for r := 0; r < n; r++ {
			j := v.phys(r)
			if j < 0 {
				continue
			}
			neg, m := decimalAt(p.kind, v.values, j)
			hdr, _ := decimalPayload(neg, m, p.scale, logical)
			rw[r] += 6 + int(hdr[5])
		}
	case p.kind == kTimestamp:
		vals := v.values.(*array.Timestamp).Values()
		for r := 0; r < n; r++ {
			j := v.phys(r)
			if j < 0 {
				rw[r] -= p.fixed
				continue
			}
			if msg := p.checkTimestamp(int64(vals[j]), logical); msg != "" {
				return p.err(r, normalize.CodeOverflow, msg)
			}
		}
	case p.kind == kDate32 || p.kind == kDate64:
		for r := 0; r < n; r++ {
			j := v.phys(r)
			if j < 0 {
				rw[r] -= p.fixed
				continue
			}
			var days int64
			if p.kind == kDate32 {
				days = int64(v.values.(*array.Date32).Value(j))
			} else {
				ms := int64(v.values.(*array.Date64).Value(j))
				if ms%86_400_000 != 0 {
					return p.err(r, normalize.CodePrecision, "date64 value is not a whole number of days")
				}
				days = ms / 86_400_000
			}
			if days < minDay || days > maxDay {
				return p.err(r, normalize.CodeOverflow, "date outside years 1..9999")
			}
		}
	case p.kind == kTime32 || p.kind == kTime64:
		for r := 0; r < n; r++ {
			j := v.phys(r)
			if j < 0 {
				rw[r] -= p.fixed
				continue
			}
			if _, ok := p.timeNanos(v.values, j); !ok {
				return p.err(r, normalize.CodeOverflow, "time of day outside 00:00..24:00")
			}
		}
	default:
		for r := 0; r < n; r++ {
			if v.phys(r) < 0 {
				rw[r] -= p.fixed
			}
		}
	}
	return nil
}

func (p *plan) timeNanos(a arrow.Array, j int) (uint64, bool) {
	var x int64
	if p.kind == kTime32 {
		x = int64(a.(*array.Time32).Value(j))
	} else {
		x = int64(a.(*array.Time64).Value(j))
	}
	// factor <= 1e9 and a valid value is below 86400 seconds, so bound x first.
	if x < 0 || x >= nsPerDay/p.factor {
		return 0, false
	}
	return uint64(x * p.factor), true
}

// instant returns the timestamp value x as microseconds since the epoch and the
// nanoseconds below the microsecond; ok is false when it lies more than a day outside
// Python's datetime range (no offset can bring it back; the microseconds could
// overflow int64).
func (p *plan) instant(x int64) (us, subNS int64, ok bool) {
	if p.ns {
		us = floorDiv(x, 1000)
		return us, x - us*1000, true
	}
	if x < p.xLo || x > p.xHi {
		return 0, 0, false
	}
	return x * p.factor, 0, true
}

// checkTimestamp returns "" when the timestamp x converts: its wall time (and under
// logical-v1 its UTC time) in years 1..9999.
func (p *plan) checkTimestamp(x int64, logical bool) string {
	if x >= p.safeLo && x <= p.safeHi {
		return "" // offsets are below one day: the wall time is in range too
	}
	us, _, ok := p.instant(x)
	if !ok {
		return "timestamp outside years 1..9999"
	}
	if p.zone.kind != normalize.ZoneNaive && logical && (us < minUS || us > maxUS) {
		return "UTC conversion leaves years 1..9999"
	}
	off, _ := p.zone.offset(us)
	if wall := us + off; wall < minUS || wall > maxUS {
		return "timestamp outside years 1..9999"
	}
	return ""
}

// putTimestamp writes the TIMESTAMP or TIMESTAMP_NS payload of x at w and returns the
// type code.
func (p *plan) putTimestamp(w []uint64, x int64, logical bool) uint64 {
	us, sub, _ := p.instant(x)
	off, fold := p.zone.offset(us)
	kind := uint64(p.zone.kind)
	wall := us + off
	if logical {
		fold = 0
		if p.zone.kind != normalize.ZoneNaive {
			wall, off, kind = us, 0, uint64(normalize.ZoneFixed)
		}
	}
	days := floorDiv(wall, usPerDay)
	rem := wall - days*usPerDay
	if days != p.day {
		p.dayY, p.dayM, p.dayD = civil.FromDays(days)
		p.day = days
	}
	y, m, d := p.dayY, p.dayM, p.dayD
	sec := rem / usPerSec
	frac := uint64(rem % usPerSec)
	tc := tcTimestamp
	if sub != 0 {
		frac, tc = frac*1000+uint64(sub), tcTimestampNS
	}
	w[0], w[1], w[2], w[3], w[4], w[5] = uint64(y), uint64(m), uint64(d), uint64(sec/3600), uint64(sec/60%60), uint64(sec%60)
	w[6], w[7], w[8], w[9] = frac, uint64(fold), kind, uint64(off)
	copy(w[10:], p.nameWords)
	return tc
}

// write writes the field (header and payload) of column p for rows lo..hi-1 at
// e.pos[r] and advances the cursors. It cannot fail: size checked everything.
func (e *Encoder) write(p *plan, arr arrow.Array, lo, hi int, words []uint64) {
	id := p.id
	pos := e.pos
	if p.kind == kNull {
		for r := lo; r < hi; r++ {
			at := pos[r]
			words[at], words[at+1], words[at+2] = id, tcNull, 0
			pos[r] = at + 3
		}
		return
	}
	v := p.v // prepared by size
	logical := e.profile.Logical()
	switch p.kind {
	case kInt8:
		writeSigned(&v, pos, id, v.values.(*array.Int8).Values(), words, lo, hi)
	case kInt16:
		writeSigned(&v, pos, id, v.values.(*array.Int16).Values(), words, lo, hi)
	case kInt32:
		writeSigned(&v, pos, id, v.values.(*array.Int32).Values(), words, lo, hi)
	case kInt64:
		writeSigned(&v, pos, id, v.values.(*array.Int64).Values(), words, lo, hi)
	case kUint8:
		writeUnsigned(&v, pos, id, v.values.(*array.Uint8).Values(), words, lo, hi)
	case kUint16:
		writeUnsigned(&v, pos, id, v.values.(*array.Uint16).Values(), words, lo, hi)
	case kUint32:
		writeUnsigned(&v, pos, id, v.values.(*array.Uint32).Values(), words, lo, hi)
	case kUint64:
		writeUnsigned(&v, pos, id, v.values.(*array.Uint64).Values(), words, lo, hi)
	case kFloat64:
		vals := v.values.(*array.Float64).Values()
		for r := lo; r < hi; r++ {
			at := pos[r]
			j := v.phys(r)
			if j < 0 {
				words[at], words[at+1], words[at+2] = id, tcNull, 0
				pos[r] = at + 3
				continue
			}
			b := *(*uint64)(unsafe.Pointer(&vals[j]))
			if logical {
				b = logicalFloat(b)
			}
			words[at], words[at+1], words[at+2], words[at+3] = id, tcFloat64, 1, b
			pos[r] = at + 4
		}
	case kFloat32:
		vals := v.values.(*array.Float32).Values()
		writeOne(&v, pos, id, words, lo, hi, func(j int) (uint64, uint64) {
			b := Widen32(*(*uint32)(unsafe.Pointer(&vals[j])))
			if logical {
				b = logicalFloat(b)
			}
			return tcFloat64, b
		})
	case kFloat16:
		vals := v.values.(*array.Float16).Values()
		writeOne(&v, pos, id, words, lo, hi, func(j int) (uint64, uint64) {
			b := Widen16(vals[j].Uint16())
			if logical {
				b = logicalFloat(b)
			}
			return tcFloat64, b
		})
	case kBool:
		a := v.values.(*array.Boolean)
		writeOne(&v, pos, id, words, lo, hi, func(j int) (uint64, uint64) {
			if a.Value(j) {
				return tcBool, 1
			}
			return tcBool, 0
		})
	case kDate32:
		a := v.values.(*array.Date32).Values()
		writeOne(&v, pos, id, words, lo, hi, func(j int) (uint64, uint64) { return tcDate, uint64(int64(a[j])) })
	case kDate64:
		a := v.values.(*array.Date64).Values()
		writeOne(&v, pos, id, words, lo, hi, func(j int) (uint64, uint64) { return tcDate, uint64(int64(a[j]) / 86_400_000) })
	case kTime32, kTime64:
		writeOne(&v, pos, id, words, lo, hi, func(j int) (uint64, uint64) {
			ns, _ := p.timeNanos(v.values, j)
			return tcTime, ns
		})
	case kDuration:
		vals := v.values.(*array.Duration).Values()
		for r := lo; r < hi; r++ {
			at := pos[r]
			j := v.phys(r)
			if j < 0 {
				words[at], words[at+1], words[at+2] = id, tcNull, 0
				pos[r] = at + 3
				continue
			}
			lo, hi := normalize.DurationWords(int64(vals[j]), uint64(p.factor))
			words[at], words[at+1], words[at+2], words[at+3], words[at+4] = id, tcDuration, 2, lo, hi
			pos[r] = at + 5
		}
	case kTimestamp:
		vals := v.values.(*array.Timestamp).Values()
		for r := lo; r < hi; r++ {
			at := pos[r]
			j := v.phys(r)
			if j < 0 {
				words[at], words[at+1], words[at+2] = id, tcNull, 0
				pos[r] = at + 3
				continue
			}
			tc := p.putTimestamp(words[at+3:at+3+p.fixed], int64(vals[j]), logical)
			words[at], words[at+1], words[at+2] = id, tc, uint64(p.fixed)
			pos[r] = at + 3 + p.fixed
		}
	case kNested:
		p.nest.write(p, &v, pos, words, lo, hi)
	case kDecimalText:
		for r := lo; r < hi; r++ {
			at := pos[r]
			if v.phys(r) < 0 {
				words[at], words[at+1], words[at+2] = id, tcNull, 0
				pos[r] = at + 3
				continue
			}
			// A DECIMAL payload is six header words and its coefficient words (word 5
			// counts them).
			pay := p.dec[p.decAt:]
			nw := 6 + int(pay[5])
			words[at], words[at+1], words[at+2] = id, tcDecimal, uint64(nw)
			copy(words[at+3:at+3+nw], pay[:nw])
			p.decAt += nw
			pos[r] = at + 3 + nw
		}
	case kDecimal32, kDecimal64, kDecimal128, kDecimal256:
		for r := lo; r < hi; r++ {
			at := pos[r]
			j := v.phys(r)
			if j < 0 {
				words[at], words[at+1], words[at+2] = id, tcNull, 0
				pos[r] = at + 3
				continue
			}
			neg, m := decimalAt(p.kind, v.values, j)
			hdr, coef := decimalPayload(neg, m, p.scale, logical)
			nw := 6 + int(hdr[5])
			words[at], words[at+1], words[at+2] = id, tcDecimal, uint64(nw)
			copy(words[at+3:at+9], hdr[:])
			copy(words[at+9:at+3+nw], coef[:hdr[5]])
			pos[r] = at + 3 + nw
		}
	default: // text and bytes
		tc := tcBytes
		if isText(p.kind) {
			tc = tcText
		}
		alt := p.alt[p.altAt:]
		for r := lo; r < hi; r++ {
			at := pos[r]
			j := v.phys(r)
			if j < 0 {
				words[at], words[at+1], words[at+2] = id, tcNull, 0
				pos[r] = at + 3
				continue
			}
			var s string
			if len(alt) > 0 && alt[0].row == r {
				s, alt = alt[0].s, alt[1:]
				p.altAt++
			} else {
				s = p.strAt(j)
			}
			k := pack(words[at+3:], s)
			words[at], words[at+1], words[at+2] = id, tc, uint64(k)
			pos[r] = at + 3 + k
		}
	}
}

func writeSigned[T int8 | int16 | int32 | int64](v *view, pos []int, id uint64, vals []T, words []uint64, lo, hi int) {
	if v.dense() {
		vals := vals[lo:hi]
		for r, x := range vals {
			at := pos[lo+r]
			tc := tcUint64
			if x < 0 {
				tc = tcInt64
			}
			words[at], words[at+1], words[at+2], words[at+3] = id, tc, 1, uint64(int64(x))
			pos[lo+r] = at + 4
		}
		return
	}
	for r := lo; r < hi; r++ {
		at := pos[r]
		j := v.phys(r)
		if j < 0 {
			words[at], words[at+1], words[at+2] = id, tcNull, 0
			pos[r] = at + 3
			continue
		}
		x := int64(vals[j])
		tc := tcUint64
		if x < 0 {
			tc = tcInt64
		}
		words[at], words[at+1], words[at+2], words[at+3] = id, tc, 1, uint64(x)
		pos[r] = at + 4
	}
}

func writeUnsigned[T uint8 | uint16 | uint32 | uint64](v *view, pos []int, id uint64, vals []T, words []uint64, lo, hi int) {
	if v.dense() {
		vals := vals[lo:hi]
		for r, x := range vals {
			at := pos[lo+r]
			words[at], words[at+1], words[at+2], words[at+3] = id, tcUint64, 1, uint64(x)
			pos[lo+r] = at + 4
		}
		return
	}
	for r := lo; r < hi; r++ {
		at := pos[r]
		j := v.phys(r)
		if j < 0 {
			words[at], words[at+1], words[at+2] = id, tcNull, 0
			pos[r] = at + 3
			continue
		}
		words[at], words[at+1], words[at+2], words[at+3] = id, tcUint64, 1, uint64(vals[j])
		pos[r] = at + 4
	}
}

// writeOne writes one-word payloads computed by f (for the less common types).
func writeOne(v *view, pos []int, id uint64, words []uint64, lo, hi int, f func(j int) (tc, w uint64)) {
	for r := lo; r < hi; r++ {
		at := pos[r]
		j := v.phys(r)
		if j < 0 {
			words[at], words[at+1], words[at+2] = id, tcNull, 0
			pos[r] = at + 3
			continue
		}
		tc, w := f(j)
		words[at], words[at+1], words[at+2], words[at+3] = id, tc, 1, w
		pos[r] = at + 4
	}
}
