package human

import (
	"strconv"
	"strings"
	"time"
)

// Commas formats n with thousands separators: 20,000,016.
func Commas(n uint64) string {
	s := strconv.FormatUint(n, 10)
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	return b.String()
}

// Time formats a Unix timestamp in nanoseconds as UTC to the second.
func Time(ns uint64) string {
	return time.Unix(0, int64(ns)).UTC().Format("2006-01-02 15:04:05")
}

// Plural is the suffix of a count's noun: "" for one, "s" for any other count.
func Plural[N ~int | ~int64 | ~uint64](n N) string {
	if n == 1 {
		return ""
	}
	return "s"
}
