//go:build !linux

package hugemem

import "errors"

// ErrUnobservable: whether memory is advised cannot be seen on this system.
var ErrUnobservable = errors.New("hugemem: the advice cannot be observed")

// Advised reports that the advice cannot be observed on this system.
func Advised[T any](s []T) (bool, error) { return false, ErrUnobservable }
