//go:build amd64 && !purego

package fingerprint

import "golang.org/x/sys/cpu"

// midKernel reports whether mid8AVX512 may be used on this machine.
var midKernel = cpu.X86.HasAVX512F && cpu.X86.HasAVX512DQ && cpu.X86.HasAVX2

// midRunAVX512 is midText.run's vector routine (xxh3mid_amd64.s): the first value's
// digest goes to out.
//
//go:noescape
func midRunAVX512(a *midRunArgs, out *Digest)

// records2AVX512 is keyedShort.records2's vector routine (xxh3mid_amd64.s).
//
//go:noescape
func records2AVX512(dst *Digest, words *uint64, groups int, k *records2Key, sums *[16]uint64)

// oneWordsAVX512 is oneWords' vector routine (xxh3mid_amd64.s).
//
//go:noescape
func oneWordsAVX512(out *Digest, stride int, vals *uint64, groups int, k *oneWordsKey, sums *[16]uint64)
