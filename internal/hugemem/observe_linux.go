package hugemem

import (
	"bufio"
	"fmt"
	"os"
	"strconv"
	"strings"
	"unsafe"
)

// Advised reports whether the 2 MiB-aligned interior of s's backing array is marked for
// transparent huge pages (the mapping's VmFlags in /proc/self/smaps include "hg"). It is
// for tests of the places that call Advise; it reads /proc/self/smaps, which is slow.
func Advised[T any](s []T) (bool, error) {
	if _, err := os.Stat("/sys/kernel/mm/transparent_hugepage/enabled"); err != nil {
		return false, fmt.Errorf("%w: %v", ErrUnobservable, err)
	}
	var zero T
	size := uintptr(cap(s)) * unsafe.Sizeof(zero)
	start := uintptr(unsafe.Pointer(unsafe.SliceData(s)))
	inner := (start + hugePage - 1) &^ (hugePage - 1)
	if size < hugePage || inner+hugePage > start+size {
		return false, fmt.Errorf("%w: the array holds no aligned huge page", ErrUnobservable)
	}
	f, err := os.Open("/proc/self/smaps")
	if err != nil {
		return false, fmt.Errorf("%w: %v", ErrUnobservable, err)
	}
	defer f.Close()
	in := false
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		fields := strings.Fields(line)
		if len(fields) == 0 {
			continue
		}
		if lo, hi, ok := strings.Cut(fields[0], "-"); ok && !strings.HasSuffix(fields[0], ":") && len(fields) >= 5 {
			a, err1 := strconv.ParseUint(lo, 16, 64)
			b, err2 := strconv.ParseUint(hi, 16, 64)
			in = err1 == nil && err2 == nil && uint64(inner) >= a && uint64(inner) < b
			continue
		}
		if in && fields[0] == "VmFlags:" {
			for _, flag := range fields[1:] {
				if flag == "hg" {
					return true, nil
				}
			}
			return false, nil
		}
	}
	if err := sc.Err(); err != nil {
		return false, fmt.Errorf("%w: %v", ErrUnobservable, err)
	}
	return false, fmt.Errorf("%w: no VmFlags for the array's mapping", ErrUnobservable)
}
