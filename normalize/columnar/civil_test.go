package columnar

import (
	"testing"
	"time"

	"github.com/pipewhy/pipewhy/internal/civil"
)

// TestCivilExhaustive checks civil.FromDays and its inverse civil.DaysFromCivil on every day of Python's
// range (and a margin) against the time package.
func TestCivilExhaustive(t *testing.T) {
	t0 := time.Date(0, 12, 1, 0, 0, 0, 0, time.UTC)
	first := t0.Unix() / 86400
	last := time.Date(10000, 2, 1, 0, 0, 0, 0, time.UTC).Unix() / 86400
	for z := first; z <= last; z++ {
		ty, tm, td := time.Unix(z*86400, 0).UTC().Date()
		y, m, d := civil.FromDays(z)
		if y != int64(ty) || m != int64(tm) || d != int64(td) {
			t.Fatalf("civil.FromDays(%d) = %d-%d-%d, want %d-%d-%d", z, y, m, d, ty, tm, td)
		}
		if back := civil.DaysFromCivil(y, m, d); back != z {
			t.Fatalf("DaysFromCivil(%d-%d-%d) = %d, want %d", y, m, d, back, z)
		}
	}
	if minDay != time.Date(1, 1, 1, 0, 0, 0, 0, time.UTC).Unix()/86400 || maxDay != time.Date(9999, 12, 31, 0, 0, 0, 0, time.UTC).Unix()/86400 {
		t.Errorf("range bounds %d %d", minDay, maxDay)
	}
}
