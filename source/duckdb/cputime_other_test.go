//go:build cgo && !unix

package duckdb

import "time"

// cpuTime is unknown here; benchmarks then report no CPU time per row.
func cpuTime() time.Duration { return 0 }
