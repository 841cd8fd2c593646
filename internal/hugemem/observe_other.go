//go:build !linux

package hugemem

// Advised reports that the advice cannot be observed on this system.
func Advised[T any](s []T) (bool, error) { return false, ErrUnobservable }
