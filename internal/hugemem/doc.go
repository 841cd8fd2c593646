// Package hugemem asks the kernel to back large, long-lived arrays with huge pages.
//
// Random reads over arrays of hundreds of megabytes (the record-resolution merge
// gathers every key from wherever its worker stored it) miss the TLB on nearly every
// access with 4 KiB pages, and under virtualization each miss is a two-dimensional
// page walk: on the 2-core VMs PipeWhy is developed on, about half a microsecond per
// access. Writing fresh memory also takes one page fault per 4 KiB. With 2 MiB pages
// both costs fall by the page-size ratio.
//
// Advise marks the 2 MiB-aligned interior of a slice's backing array with
// madvise(MADV_HUGEPAGE) on Linux, which makes transparent huge pages apply to it when
// the system's policy is "madvise" (the usual default) as well as "always". It is only
// advice: it never changes the slice's contents or its behaviour, it is a no-op for
// arrays too small to hold one aligned 2 MiB page, on other systems, and when the
// kernel refuses, and its result is not reported. The memory stays ordinary Go heap
// memory; the Go runtime may later return parts of it to the kernel as usual.
//
// Advised reads the advice back (Linux, /proc/self/smaps), so that the tests of the
// places that call Advise fail when one stops doing it.
package hugemem
