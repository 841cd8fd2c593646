package snapshot

import (
	"runtime"
	"testing"
)

// Opening and verifying a small snapshot allocates about what it holds, not a read
// buffer of 1 MiB per worker: a report loads thousands of small snapshots.
func TestSmallSnapshotReadsAllocateLittle(t *testing.T) {
	s := newStore(t, Options{})
	id := publishFixture(t, s)
	for _, c := range []struct {
		name string
		read func() error
	}{
		{"Open", func() error { _, err := s.Open(id); return err }},
		{"Verify", func() error { return s.Verify(id) }},
	} {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		if err := c.read(); err != nil {
			t.Fatal(err)
		}
		runtime.ReadMemStats(&after)
		if n := after.TotalAlloc - before.TotalAlloc; n > 256<<10 {
			t.Errorf("%s of a 27-byte snapshot allocated %d bytes", c.name, n)
		}
	}
}
