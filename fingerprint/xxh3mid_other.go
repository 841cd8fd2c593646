//go:build !amd64 || purego

package fingerprint

// midKernel is false: without the amd64 vector routine every value takes midText.sum.
const midKernel = false

func midRunAVX512(a *midRunArgs, out *Digest) {
	panic("fingerprint: midRunAVX512 without the amd64 kernel")
}

func records2AVX512(dst *Digest, words *uint64, groups int, k *records2Key, sums *[16]uint64) {
	panic("fingerprint: records2AVX512 without the amd64 kernel")
}

func oneWordsAVX512(out *Digest, stride int, vals *uint64, groups int, k *oneWordsKey, sums *[16]uint64) {
	panic("fingerprint: oneWordsAVX512 without the amd64 kernel")
}
