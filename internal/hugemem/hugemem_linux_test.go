package hugemem

import (
	"errors"
	"os"
	"runtime"
	"testing"

	"github.com/pipewhy/pipewhy/internal/testenv"
)

// TestAdviseMarksInterior: the aligned interior of a large array is marked for huge
// pages (VmFlags "hg"), the contents are unchanged, and small arrays are left alone.
func TestAdviseMarksInterior(t *testing.T) {
	if _, err := os.Stat("/sys/kernel/mm/transparent_hugepage/enabled"); err != nil {
		testenv.Missing(t, testenv.HugePages, "this kernel has no transparent huge pages: madvise(MADV_HUGEPAGE) is refused and Advise does nothing, by design")
	}
	s := make([]uint64, 3*hugePage/8)
	for i := range s {
		s[i] = uint64(i) * 0x9e3779b97f4a7c15
	}
	Advise(s)
	for i := range s {
		if s[i] != uint64(i)*0x9e3779b97f4a7c15 {
			t.Fatalf("word %d changed", i)
		}
	}
	advised, err := Advised(s)
	if errors.Is(err, ErrUnobservable) {
		testenv.Missing(t, testenv.HugePages, "%v", err)
	}
	if err != nil {
		t.Fatal(err)
	}
	if !advised {
		t.Fatal("the advised interior lacks VmFlags hg")
	}
	// An array never advised is not reported as advised (unless the system advises
	// everything: THP "always" does not set hg, so this holds there too).
	plain := make([]uint64, 3*hugePage/8)
	if advised, err := Advised(plain); err != nil || advised {
		t.Fatalf("an array never advised: advised %v, %v", advised, err)
	}
	runtime.KeepAlive(s) // plain must not reuse s's advised memory

	small := make([]byte, 1<<20)
	Advise(small) // below one huge page: nothing to advise, must not fail
	Advise([]uint64(nil))
	Advise(make([]struct{}, 10))
}
