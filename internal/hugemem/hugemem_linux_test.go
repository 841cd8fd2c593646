package hugemem

import (
	"bufio"
	"os"
	"strconv"
	"strings"
	"testing"
	"unsafe"
)

// vmFlags returns the VmFlags of the mapping of /proc/self/smaps that contains addr.
func vmFlags(t *testing.T, addr uintptr) (flags []string, found bool) {
	t.Helper()
	f, err := os.Open("/proc/self/smaps")
	if err != nil {
		t.Skipf("no /proc/self/smaps (%v): cannot observe the advice", err)
	}
	defer f.Close()
	in := false
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if lo, hi, ok := strings.Cut(strings.Fields(line)[0], "-"); ok && !strings.HasSuffix(line, ":") && len(strings.Fields(line)) >= 5 {
			a, err1 := strconv.ParseUint(lo, 16, 64)
			b, err2 := strconv.ParseUint(hi, 16, 64)
			in = err1 == nil && err2 == nil && uint64(addr) >= a && uint64(addr) < b
			continue
		}
		if in && strings.HasPrefix(line, "VmFlags:") {
			return strings.Fields(strings.TrimPrefix(line, "VmFlags:")), true
		}
	}
	return nil, false
}

// TestAdviseMarksInterior: the aligned interior of a large array is marked for huge
// pages (VmFlags "hg"), the contents are unchanged, and small arrays are left alone.
func TestAdviseMarksInterior(t *testing.T) {
	if _, err := os.Stat("/sys/kernel/mm/transparent_hugepage/enabled"); err != nil {
		t.Skip("this kernel has no transparent huge pages: madvise(MADV_HUGEPAGE) is refused and Advise does nothing, by design")
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
	start := uintptr(unsafe.Pointer(&s[0]))
	inner := (start + hugePage - 1) &^ (hugePage - 1)
	flags, ok := vmFlags(t, inner)
	if !ok {
		t.Skip("smaps has no VmFlags line for the array: cannot observe the advice")
	}
	hg := false
	for _, f := range flags {
		hg = hg || f == "hg"
	}
	if !hg {
		t.Fatalf("VmFlags %v of the advised interior lack hg", flags)
	}

	small := make([]byte, 1<<20)
	Advise(small) // below one huge page: nothing to advise, must not fail
	Advise([]uint64(nil))
	Advise(make([]struct{}, 10))
}
