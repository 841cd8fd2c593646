package normalize

import (
	"math/bits"

	"github.com/pipewhy/pipewhy/internal/civil"
)

// This file holds the scalar values of PipeWhy extension 1 (docs/contracts/C2-extensions.md).
// Only the extension profiles encode them; v1 profiles reject them with CodeUnsupported,
// exactly as before the extension existed.

// DateValue is a calendar date (Python datetime.date): extension type DATE, one word, the
// number of days since 1970-01-01 as a two's-complement word. Fields must be
// calendar-valid with year 1..9999 (else CodeInput).
type DateValue struct{ Year, Month, Day int }

// TimeValue is a time of day without timezone, at nanosecond resolution: extension
// type TIME, one word, the nanoseconds since midnight. Hour 0..23, minute and second
// 0..59, nanosecond 0..999999999 (else CodeInput).
type TimeValue struct{ Hour, Minute, Second, Nanosecond int }

// TimeUnit is the unit of a DurationValue.
type TimeUnit uint8

// Time units.
const (
	UnitSecond TimeUnit = iota
	UnitMillisecond
	UnitMicrosecond
	UnitNanosecond
)

var unitNanos = [...]uint64{1_000_000_000, 1_000_000, 1_000, 1}

// DurationValue is a signed elapsed time of Value units: extension type DURATION, two
// words [lo, hi], the 128-bit two's-complement number of nanoseconds. The unit is not
// part of the words: 1 second and 1000 milliseconds are the same value.
type DurationValue struct {
	Value int64
	Unit  TimeUnit
}

// NestedValue is a list, struct or map value as graphforge-canonical/1 bytes (seed
// 001_a753aef31cef2db2): extension type NESTED. Type is the canonical schema bytes
// ("GFS1"...) of a one-field schema whose field is named "" and nullable, carrying the
// value's canonical data type (child names, nullability and participating metadata
// included); Value is the canonical logical value bytes of the field, starting with the
// presence byte 01 (a null is NULL, never NESTED). The payload packs both like BYTES:
// [type_byte_count, type words..., value_byte_count, value words...]. The bytes are
// taken as they are: canonical rules (its float and timestamp rules among them) apply
// inside nested values, under both extension profiles alike. Type must start with
// "GFS1" and Value with 01, else CodeInput.
type NestedValue struct {
	Type  []byte
	Value []byte
}

func (DateValue) isValue()     {}
func (TimeValue) isValue()     {}
func (DurationValue) isValue() {}
func (NestedValue) isValue()   {}

// appendExt appends the payload of an extension value (the profile is already checked).
// None of them has a logical-v1 equivalence: both extension profiles encode them alike.
func appendExt(dst []uint64, v Value) (TypeCode, []uint64, *Error) {
	switch v := v.(type) {
	case DateValue:
		if v.Year < 1 || v.Year > 9999 || v.Month < 1 || v.Month > 12 || v.Day < 1 || int64(v.Day) > civil.DaysInMonth(int64(v.Year), int64(v.Month)) {
			return 0, dst, encErr(CodeInput, "date fields outside the calendar (years 1..9999)")
		}
		return Date, append(dst, uint64(civil.DaysFromCivil(int64(v.Year), int64(v.Month), int64(v.Day)))), nil
	case TimeValue:
		if v.Hour < 0 || v.Hour > 23 || v.Minute < 0 || v.Minute > 59 || v.Second < 0 || v.Second > 59 ||
			v.Nanosecond < 0 || v.Nanosecond > 999_999_999 {
			return 0, dst, encErr(CodeInput, "time fields out of range")
		}
		return Time, append(dst, uint64((v.Hour*3600+v.Minute*60+v.Second))*1_000_000_000+uint64(v.Nanosecond)), nil
	case NestedValue:
		if len(v.Type) < 4 || string(v.Type[:4]) != "GFS1" || len(v.Value) == 0 || v.Value[0] != 1 {
			return 0, dst, encErr(CodeInput, "nested value needs canonical schema bytes and present value bytes")
		}
		return Nested, appendPacked(appendPacked(dst, v.Type), v.Value), nil
	case DurationValue:
		if int(v.Unit) >= len(unitNanos) {
			return 0, dst, encErr(CodeInput, "unknown duration unit")
		}
		lo, hi := DurationWords(v.Value, unitNanos[v.Unit])
		return Duration, append(dst, lo, hi), nil
	}
	return 0, dst, encErr(CodeUnsupported, "unsupported value type")
}

// DurationWords returns the DURATION payload [lo, hi] of v units of factor nanoseconds
// each: the 128-bit two's complement of v*factor, exact for every int64 v and uint64
// factor below 2**63.
func DurationWords(v int64, factor uint64) (lo, hi uint64) {
	mag := uint64(v)
	if v < 0 {
		mag = -mag // |v|, also for MinInt64
	}
	hi, lo = bits.Mul64(mag, factor)
	if v < 0 {
		lo, hi = -lo, ^hi
		if lo == 0 {
			hi++
		}
	}
	return lo, hi
}
