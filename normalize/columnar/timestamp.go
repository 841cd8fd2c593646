package columnar

import (
	"math"
	"strconv"
	"time"

	"github.com/pipewhy/pipewhy/internal/civil"
	"github.com/pipewhy/pipewhy/normalize"
)

const (
	usPerSec = 1_000_000
	usPerDay = 86_400 * usPerSec
	nsPerDay = 86_400 * 1_000_000_000
)

func floorDiv(a, b int64) int64 {
	q := a / b
	if (a%b != 0) && ((a < 0) != (b < 0)) {
		q--
	}
	return q
}

// Python's datetime range, 0001-01-01 .. 9999-12-31, in days and microseconds since
// the epoch.
var (
	minDay = civil.DaysFromCivil(1, 1, 1)
	maxDay = civil.DaysFromCivil(9999, 12, 31)
	minUS  = minDay * usPerDay
	maxUS  = (maxDay+1)*usPerDay - 1
)

// zoneKind mirrors normalize.ZoneKind for the column's timezone.
type tz struct {
	kind  normalize.ZoneKind
	offUS int64  // fixed offset in microseconds
	name  string // fixed tzname() or IANA key
	loc   *time.Location
	// cache of the IANA period containing the last instant looked up: [start, end)
	// in Unix seconds, its offset, and foldEnd: instants in [start, foldEnd) repeat
	// wall times of the previous period (fold=1).
	start, end, foldEnd, off int64
}

// parseTZ maps an Arrow timestamp timezone string to a Python tzinfo (see the package
// documentation): "" naive; "UTC" datetime.timezone.utc; "+HH:MM"/"-HH:MM" a fixed
// datetime.timezone with Python's tzname ("UTC+01:00", and "UTC" for a zero offset);
// anything else an IANA key as zoneinfo.ZoneInfo accepts it.
func parseTZ(s string) (tz, error) {
	switch {
	case s == "":
		return tz{kind: normalize.ZoneNaive}, nil
	case s == "UTC":
		return tz{kind: normalize.ZoneFixed, name: "UTC"}, nil
	case len(s) == 6 && (s[0] == '+' || s[0] == '-') && s[3] == ':':
		h, err1 := strconv.Atoi(s[1:3])
		m, err2 := strconv.Atoi(s[4:6])
		if err1 != nil || err2 != nil || !isDigits(s[1:3]) || !isDigits(s[4:6]) || h > 23 || m > 59 {
			return tz{}, newError("schema", normalize.CodeTimezone, "malformed fixed offset timezone")
		}
		off := int64(h*3600+m*60) * usPerSec
		if s[0] == '-' {
			off = -off
		}
		if off == 0 {
			return tz{kind: normalize.ZoneFixed, name: "UTC"}, nil
		}
		return tz{kind: normalize.ZoneFixed, offUS: off, name: "UTC" + s}, nil
	}
	loc, err := normalize.LoadZone(s)
	if err != nil {
		return tz{}, err
	}
	return tz{kind: normalize.ZoneIANA, name: s, loc: loc, start: 1, end: 0}, nil
}

func isDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// at returns utcoffset() in seconds and the PEP 495 fold of the instant sec (Unix
// seconds, floored) in the IANA zone, as zoneinfo's fromutc gives them: fold is 1 when
// the instant lies within the first (previous offset - offset) seconds after a
// transition that moved the clock back.
func (z *tz) at(sec int64) (off int64, fold int) {
	if sec < z.start || sec >= z.end {
		t := time.Unix(sec, 0).In(z.loc)
		_, o := t.Zone()
		s, e := t.ZoneBounds()
		z.off, z.start, z.end = int64(o), math.MinInt64, math.MaxInt64
		if !s.IsZero() {
			z.start = s.Unix()
		}
		if !e.IsZero() {
			z.end = e.Unix()
		}
		z.foldEnd = z.start
		if z.start != math.MinInt64 {
			_, prev := time.Unix(z.start-1, 0).In(z.loc).Zone()
			if shift := int64(prev) - z.off; shift > 0 {
				z.foldEnd = z.start + shift
			}
		}
	}
	if sec < z.foldEnd {
		return z.off, 1
	}
	return z.off, 0
}

// offset returns the offset in microseconds and the fold of the instant us.
func (z *tz) offset(us int64) (int64, int) {
	switch z.kind {
	case normalize.ZoneFixed:
		return z.offUS, 0
	case normalize.ZoneIANA:
		off, fold := z.at(floorDiv(us, usPerSec))
		return off * usPerSec, fold
	}
	return 0, 0
}
