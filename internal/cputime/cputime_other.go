//go:build !unix

package cputime

import "time"

// Process returns 0: this platform's process CPU time is not read.
func Process() time.Duration { return 0 }
