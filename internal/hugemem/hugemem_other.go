//go:build !linux

package hugemem

// Advise does nothing on this system.
func Advise[T any](s []T) {}
