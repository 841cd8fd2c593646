// Package civil is proleptic Gregorian day arithmetic shared by the packages that turn
// dates into day or second counts (normalize, normalize/columnar, source, source/mysql):
// one implementation instead of one per package. It uses only the standard library.
package civil

// DaysFromCivil returns the number of days from 1970-01-01 to y-m-d in the proleptic
// Gregorian calendar (Howard Hinnant's days_from_civil), for any year, including zero
// and negative ones (year 0 is 1 BC). m must be 1..12; d is not checked against the
// month, so callers check it with DaysInMonth first.
func DaysFromCivil(y, m, d int64) int64 {
	if m <= 2 {
		y--
	}
	era := y / 400
	if y < 0 && y%400 != 0 {
		era--
	}
	yoe := y - era*400
	mp := (m + 9) % 12 // March = 0
	doy := (153*mp+2)/5 + d - 1
	doe := yoe*365 + yoe/4 - yoe/100 + doy
	return era*146097 + doe - 719468
}

// DaysInMonth is the length of month m (1..12) of the proleptic Gregorian year y.
func DaysInMonth(y, m int64) int64 {
	switch m {
	case 2:
		if y%4 == 0 && (y%100 != 0 || y%400 == 0) {
			return 29
		}
		return 28
	case 4, 6, 9, 11:
		return 30
	}
	return 31
}

// FromDays is the inverse of DaysFromCivil, by Neri and Schneider's Euclidean
// affine functions ("Euclidean affine functions and their application to calendar
// algorithms", 2022): a handful of multiplications instead of divisions. It is exact
// for every day from 0001-01-01 to 9999-12-31 and far beyond (tested exhaustively over
// that range against the time package); callers stay within ±2**31 days of it.
func FromDays(z int64) (y, m, d int64) {
	const (
		s = 82
		k = 719468 + 146097*s // shifts the epoch so that n is nonnegative
		l = 400 * s
	)
	n := uint32(z + k)
	n1 := 4*n + 3
	c := n1 / 146097
	nc := n1 % 146097 / 4
	n2 := 4*nc + 3
	p2 := uint64(2939745) * uint64(n2)
	zz := uint32(p2 >> 32)
	ny := uint32(p2) / 2939745 / 4
	yy := 100*c + zz
	n3 := 2141*ny + 197913
	mm := n3 >> 16
	dd := n3 & 0xffff / 2141
	if ny >= 306 {
		yy++
		mm -= 12
	}
	return int64(yy) - l, int64(mm), int64(dd) + 1
}
