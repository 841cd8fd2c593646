package normalize

import (
	"strings"
	"sync"
	"time"
	_ "time/tzdata" // fallback IANA data when the host has none, so results do not vary by host setup
	"unicode/utf8"

	"github.com/pipewhy/pipewhy/internal/civil"
)

// ZoneKind is the timestamp's timezone kind; its value is the wire tz_kind word.
type ZoneKind uint8

// Zone kinds (PW-03.06).
const (
	ZoneNaive ZoneKind = 0 // no tzinfo
	ZoneFixed ZoneKind = 1 // datetime.timezone(offset, name)
	ZoneIANA  ZoneKind = 2 // zoneinfo.ZoneInfo(key)
)

// Zone is a timestamp's timezone: naive (the zero value), a fixed offset with its
// tzname(), or an IANA zone key whose offset comes from the tz database.
type Zone struct {
	Kind ZoneKind
	// OffsetMicros is the fixed zone's utcoffset() in microseconds; it must lie strictly
	// within ±24 hours. Ignored for other kinds (an IANA offset is computed).
	OffsetMicros int64
	// Name is the fixed zone's exact tzname() ("UTC" for timezone.utc, "UTC+01:00" for an
	// unnamed one), or the IANA key ("Europe/Berlin").
	Name string
}

// FixedZone returns datetime.timezone(timedelta(microseconds=offsetMicros), name).
func FixedZone(offsetMicros int64, name string) Zone {
	return Zone{Kind: ZoneFixed, OffsetMicros: offsetMicros, Name: name}
}

// IANAZone returns zoneinfo.ZoneInfo(key).
func IANAZone(key string) Zone { return Zone{Kind: ZoneIANA, Name: key} }

// TimestampValue is a Python datetime.datetime, modelled field by field: Go's time.Time
// has neither naive times nor fold, so it is not used as the value.
//
// Fields must be calendar-valid as Python requires (year 1..9999, a real month and day,
// hour 0..23, minute and second 0..59, microsecond 0..999999, fold 0 or 1), else the
// encoder fails with CodeInput. Nanosecond is sub-microsecond input (0..999): wire
// version 1 has microsecond resolution, so a nonzero value fails with CodePrecision
// rather than being rounded.
type TimestampValue struct {
	Year, Month, Day     int
	Hour, Minute, Second int
	Microsecond          int
	Nanosecond           int
	Fold                 int
	Zone                 Zone
}

const (
	usPerSecond = 1_000_000
	usPerDay    = 86_400 * usPerSecond
	maxFixedUS  = 24 * 3600 * usPerSecond // exclusive bound on |fixed offset|
)

func civilFromDays(z int64) (y, m, d int) {
	z += 719468
	era := z / 146097
	if z < 0 && z%146097 != 0 {
		era--
	}
	doe := z - era*146097
	yoe := (doe - doe/1460 + doe/36524 - doe/146096) / 365
	yy := yoe + era*400
	doy := doe - (365*yoe + yoe/4 - yoe/100)
	mp := (5*doy + 2) / 153
	d = int(doy - (153*mp+2)/5 + 1)
	m = int(mp + 3)
	if m > 12 {
		m -= 12
	}
	if m <= 2 {
		yy++
	}
	return int(yy), m, d
}

func (t *TimestampValue) checkFields(p Profile) *Error {
	if t.Nanosecond < 0 || t.Nanosecond > 999 {
		return encErr(CodeInput, "nanosecond outside 0..999")
	}
	if t.Nanosecond != 0 && !p.Extended() {
		return encErr(CodePrecision, "sub-microsecond timestamp input (wire version 1 has microsecond resolution)")
	}
	switch {
	case t.Year < 1 || t.Year > 9999:
		return encErr(CodeInput, "year outside 1..9999")
	case t.Month < 1 || t.Month > 12:
		return encErr(CodeInput, "month outside 1..12")
	case t.Day < 1 || int64(t.Day) > civil.DaysInMonth(int64(t.Year), int64(t.Month)):
		return encErr(CodeInput, "day outside the month")
	case t.Hour < 0 || t.Hour > 23:
		return encErr(CodeInput, "hour outside 0..23")
	case t.Minute < 0 || t.Minute > 59:
		return encErr(CodeInput, "minute outside 0..59")
	case t.Second < 0 || t.Second > 59:
		return encErr(CodeInput, "second outside 0..59")
	case t.Microsecond < 0 || t.Microsecond > 999999:
		return encErr(CodeInput, "microsecond outside 0..999999")
	case t.Fold != 0 && t.Fold != 1:
		return encErr(CodeInput, "fold is not 0 or 1")
	}
	return nil
}

// wallSeconds returns the wall-clock fields as seconds since 1970-01-01T00:00 (as if UTC).
func (t *TimestampValue) wallSeconds() int64 {
	return civil.DaysFromCivil(int64(t.Year), int64(t.Month), int64(t.Day))*86400 + int64(t.Hour*3600+t.Minute*60+t.Second)
}

// utcOffset returns utcoffset() in microseconds, as Python computes it.
func (t *TimestampValue) utcOffset() (int64, *Error) {
	switch t.Zone.Kind {
	case ZoneNaive:
		return 0, nil
	case ZoneFixed:
		if t.Zone.OffsetMicros <= -maxFixedUS || t.Zone.OffsetMicros >= maxFixedUS {
			return 0, encErr(CodeTimezone, "fixed offset not strictly within 24 hours")
		}
		if !utf8.ValidString(t.Zone.Name) {
			return 0, encErr(CodeUTF8, "fixed zone name is not strict UTF-8")
		}
		return t.Zone.OffsetMicros, nil
	case ZoneIANA:
		loc, err := loadZone(t.Zone.Name)
		if err != nil {
			return 0, err
		}
		return pep495Offset(loc, t.wallSeconds(), t.Fold) * usPerSecond, nil
	}
	return 0, encErr(CodeTimezone, "unknown timezone kind")
}

var zoneCache sync.Map // key string -> *time.Location; immutable values, successes only

// loadZone loads an IANA zone the way zoneinfo.ZoneInfo(key) accepts keys: relative,
// normalized paths only. It refuses "" and "Local", which Go's time.LoadLocation would
// map to UTC and the host zone.
func loadZone(key string) (*time.Location, *Error) {
	if v, ok := zoneCache.Load(key); ok {
		return v.(*time.Location), nil
	}
	if key == "" || key == "Local" || !utf8.ValidString(key) ||
		strings.ContainsAny(key, "\\\x00") || key[0] == '/' {
		return nil, encErr(CodeTimezone, "invalid zone key")
	}
	for _, c := range strings.Split(key, "/") {
		if c == "" || c == "." || c == ".." {
			return nil, encErr(CodeTimezone, "invalid zone key")
		}
	}
	loc, err := time.LoadLocation(key)
	if err != nil {
		e := encErr(CodeTimezone, "unknown zone key")
		return nil, e
	}
	zoneCache.Store(key, loc)
	return loc, nil
}

// pep495Offset returns the UTC offset in seconds that zoneinfo gives the wall time wall
// (seconds since the epoch, read as if UTC) with the given fold.
//
// zoneinfo compares wall against each transition's local threshold: a transition at UTC
// instant T from offset a to offset b happens, in local time, at T+max(a,b) for fold=0
// and at T+min(a,b) for fold=1. The offset is that of the last transition whose
// threshold is <= wall; before all thresholds the zone's first (local mean time) offset
// applies. So in a gap fold=0 keeps the earlier offset and fold=1 takes the later, and
// in a fold fold=0 is the first occurrence. Go's ZoneBounds walks the same transitions,
// including those generated from the TZif footer rule beyond the table. Offsets are far
// below two days, so only transitions within two days of wall can have a threshold on
// the other side of it; everything earlier is already in effect.
func pep495Offset(loc *time.Location, wall int64, fold int) int64 {
	const window = 2 * 86400
	t := time.Unix(wall-window, 0).In(loc)
	_, cur := t.Zone()
	for range 64 { // a few transitions at most in four days
		_, end := t.ZoneBounds()
		if end.IsZero() || end.Unix() > wall+window {
			break
		}
		_, next := end.Zone()
		threshold := end.Unix() + int64(max(cur, next))
		if fold == 1 {
			threshold = end.Unix() + int64(min(cur, next))
		}
		if threshold > wall {
			break
		}
		cur, t = next, end
	}
	return int64(cur)
}

// timestampCode is the type code of t under p: TIMESTAMP, or TIMESTAMP_NS for a value
// with a nonzero sub-microsecond part under an extension profile.
func timestampCode(t *TimestampValue, p Profile) TypeCode {
	if t.Nanosecond != 0 && p.Extended() {
		return TimestampNS
	}
	return Timestamp
}

// appendTimestamp appends the TIMESTAMP payload of t under profile p, or, for a value
// with a nonzero Nanosecond under an extension profile, the TIMESTAMP_NS payload: the
// same layout with word 6 holding the nanosecond of the second
// (Microsecond*1000 + Nanosecond) instead of the microsecond.
func appendTimestamp(dst []uint64, t *TimestampValue, p Profile) ([]uint64, *Error) {
	if err := t.checkFields(p); err != nil {
		return dst, err
	}
	// sub is word 6: the microsecond, or for TIMESTAMP_NS the nanosecond of the second.
	// Nanosecond is 0 unless p is an extension profile (checkFields).
	sub := uint64(t.Microsecond)
	if t.Nanosecond != 0 {
		sub = sub*1000 + uint64(t.Nanosecond)
	}
	off, err := t.utcOffset()
	if err != nil {
		return dst, err
	}
	if p.Logical() {
		if t.Zone.Kind == ZoneNaive {
			dst = append(dst, uint64(t.Year), uint64(t.Month), uint64(t.Day), uint64(t.Hour),
				uint64(t.Minute), uint64(t.Second), sub, 0, uint64(ZoneNaive), 0)
			return appendPacked(dst, ""), nil
		}
		// astimezone(timezone.utc): exact microsecond arithmetic on the civil fields.
		us := t.wallSeconds()*usPerSecond + int64(t.Microsecond) - off
		days := us / usPerDay
		rem := us % usPerDay
		if rem < 0 {
			rem += usPerDay
			days--
		}
		y, m, d := civilFromDays(days)
		if y < 1 || y > 9999 {
			return dst, encErr(CodeOverflow, "UTC conversion leaves years 1..9999")
		}
		sec := rem / usPerSecond
		usub := uint64(rem % usPerSecond)
		if t.Nanosecond != 0 {
			usub = usub*1000 + uint64(t.Nanosecond)
		}
		dst = append(dst, uint64(y), uint64(m), uint64(d), uint64(sec/3600), uint64(sec/60%60),
			uint64(sec%60), usub, 0, uint64(ZoneFixed), 0)
		return appendPacked(dst, "UTC"), nil
	}
	name := ""
	if t.Zone.Kind != ZoneNaive {
		name = t.Zone.Name
	}
	dst = append(dst, uint64(t.Year), uint64(t.Month), uint64(t.Day), uint64(t.Hour),
		uint64(t.Minute), uint64(t.Second), sub, uint64(t.Fold),
		uint64(t.Zone.Kind), uint64(off))
	return appendPacked(dst, name), nil
}

// LoadZone returns the IANA zone for key exactly as the timestamp encoder resolves
// ZoneIANA keys: zoneinfo's key syntax (relative, normalized paths; not "" or "Local"),
// Go's tz data, loaded once per key and cached. Errors are CodeTimezone. Columnar
// encoders use it so that they accept exactly the keys the scalar encoder accepts.
func LoadZone(key string) (*time.Location, error) {
	loc, err := loadZone(key)
	if err != nil {
		return nil, err
	}
	return loc, nil
}
