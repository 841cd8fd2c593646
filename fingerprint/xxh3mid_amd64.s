//go:build amd64 && !purego

#include "textflag.h"

// midRunAVX512 computes field digests of text or bytes values of one length (65 to 176
// bytes) on XXH3-128's 129–240-byte path, eight values at a time, one value per 64-bit
// lane: midText.sum for groups of eight values. The caller (midText.run) has checked the
// lengths and that 8w bytes are readable from every value's start, and has mixed the key
// and header rounds, which are the same for every value; see midRunArgs for the layout.
// It writes each digest to its tile row and adds the digests to the sums.
//
// The 64×64→128-bit multiplications of XXH3's mix16B are built from four 32×32→64-bit
// ones (VPMULUDQ); everything else is XXH3's arithmetic lane by lane.

// Offsets into midRunArgs.
#define A_DATA 0
#define A_OFFS 8
#define A_LO 72
#define A_HI 80
#define A_LP2 88
#define A_ROUNDS 96
#define A_LAST 104
#define A_MASK 112
#define A_MMASK 120
#define A_OUT 128
#define A_OUTSTRIDE 136
#define A_GROUPS 144
#define A_STEP 152
#define A_PF 160
#define A_PFLINE 168
#define A_SUMS 176

// LOAD4 loads the four message words at byte offset R12 of each of the eight values
// (pointers AX, BX, CX, DX, SI, DI, R8, R9) and transposes them: Z0..Z3 hold word 0..3,
// lanes in the value order 0, 2, 1, 3, 4, 6, 5, 7.
#define LOAD4 \
	VMOVDQU      (AX)(R12*1), Y4         \
	VINSERTI64X4 $1, (BX)(R12*1), Z4, Z4 \
	VMOVDQU      (CX)(R12*1), Y5         \
	VINSERTI64X4 $1, (DX)(R12*1), Z5, Z5 \
	VMOVDQU      (SI)(R12*1), Y6         \
	VINSERTI64X4 $1, (DI)(R12*1), Z6, Z6 \
	VMOVDQU      (R8)(R12*1), Y7         \
	VINSERTI64X4 $1, (R9)(R12*1), Z7, Z7 \
	VPUNPCKLQDQ  Z5, Z4, Z8              \
	VPUNPCKHQDQ  Z5, Z4, Z9              \
	VPUNPCKLQDQ  Z7, Z6, Z10             \
	VPUNPCKHQDQ  Z7, Z6, Z11             \
	VSHUFI64X2   $0x88, Z10, Z8, Z0      \
	VSHUFI64X2   $0x88, Z11, Z9, Z1      \
	VSHUFI64X2   $0xdd, Z10, Z8, Z2      \
	VSHUFI64X2   $0xdd, Z11, Z9, Z3

// MULFOLD sets Z17 to mulFold64(a, b) lane by lane: the high and low halves of the
// 128-bit product, xored. Z31 holds 0xffffffff in every lane. Clobbers Z12..Z16.
#define MULFOLD(a, b) \
	VPSRLQ     $32, a, Z12        \
	VPSRLQ     $32, b, Z13        \
	VPMULUDQ   b, a, Z14          \
	VPMULUDQ   Z13, a, Z15        \
	VPMULUDQ   b, Z12, Z16        \
	VPMULUDQ   Z13, Z12, Z17      \
	VPSRLQ     $32, Z14, Z12      \
	VPADDQ     Z12, Z16, Z16      \
	VPANDQ     Z31, Z16, Z12      \
	VPADDQ     Z12, Z15, Z15      \
	VPSRLQ     $32, Z16, Z16      \
	VPADDQ     Z16, Z17, Z17      \
	VPSRLQ     $32, Z15, Z12      \
	VPADDQ     Z12, Z17, Z17      \
	VPSLLQ     $32, Z15, Z15      \
	VPANDQ     Z31, Z14, Z14      \
	VPTERNLOGQ $0x96, Z14, Z15, Z17

// MIX adds mulFold64(x0 ^ s0, x1 ^ s1) to acc and xors y0 + y1 into it (s0, s1 memory
// operands holding one secret word each). Clobbers Z12..Z19.
#define MIX(acc, x0, x1, s0, s1, y0, y1) \
	VPXORQ.BCST  s0, x0, Z18 \
	VPXORQ.BCST  s1, x1, Z19 \
	MULFOLD(Z18, Z19)        \
	VPADDQ       Z17, acc, acc \
	VPADDQ       y0, y1, Z18 \
	VPXORQ       Z18, acc, acc

// ROUND is one mix32B round over Z0..Z3 into lo Z28 and hi Z29 with the secret words
// at s+0, s+8, s+16, s+24 bytes of the default secret (sw holds word i at 8*i).
#define ROUND(s0, s1, s2, s3) \
	MIX(Z28, Z0, Z1, s0, s1, Z2, Z3) \
	MIX(Z29, Z2, Z3, s2, s3, Z0, Z1)

// AVAL is XXH3's avalanche of x; Z24 holds its multiplier in every lane.
#define AVAL(x) \
	VPSRLQ  $37, x, Z12 \
	VPXORQ  Z12, x, x   \
	VPMULLQ Z24, x, x   \
	VPSRLQ  $32, x, Z12 \
	VPXORQ  Z12, x, x

// SETUP64 sets the constants of the routines over 64-byte messages: Z31 0xffffffff,
// Z24 the avalanche multiplier, Z25 PRIME64_1, Z26 PRIME64_4 in every lane.
#define SETUP64 \
	MOVQ         $0xffffffff, R13         \
	VPBROADCASTQ R13, Z31                 \
	MOVQ         $0x165667919e3779f9, R13 \
	VPBROADCASTQ R13, Z24                 \
	MOVQ         $0x9e3779b185ebca87, R13 \
	VPBROADCASTQ R13, Z25                 \
	MOVQ         $0x85ebca77c2b2ae63, R13 \
	VPBROADCASTQ R13, Z26

// FINISH64 is finishShort(lo, hi, 64) lane by lane (lp2 holds 64*PRIME64_2): the
// digests' Lo to Z19, Hi to hi, both added to the sums Z30 (Lo) and Z29 (Hi). Clobbers
// lo and Z12.
#define FINISH64(lo, hi, lp2) \
	VPADDQ  lo, hi, Z19 \
	VPMULLQ Z25, lo, lo \
	VPMULLQ Z26, hi, hi \
	VPADDQ  lo, hi, hi  \
	VPADDQ  lp2, hi, hi \
	AVAL(Z19)           \
	AVAL(hi)            \
	VPXORQ  lo, lo, lo  \
	VPSUBQ  hi, lo, hi  \
	VPADDQ  Z19, Z30, Z30 \
	VPADDQ  hi, Z29, Z29

// func midRunAVX512(a *midRunArgs, out *Digest)
TEXT ·midRunAVX512(SB), NOSPLIT, $0-16
	MOVQ a+0(FP), R10
	MOVQ out+8(FP), R11
	MOVQ R11, A_OUT(R10)
	MOVQ A_DATA(R10), R11
	MOVQ A_OFFS+0(R10), AX
	ADDQ R11, AX
	MOVQ A_OFFS+8(R10), BX
	ADDQ R11, BX
	MOVQ A_OFFS+16(R10), CX
	ADDQ R11, CX
	MOVQ A_OFFS+24(R10), DX
	ADDQ R11, DX
	MOVQ A_OFFS+32(R10), SI
	ADDQ R11, SI
	MOVQ A_OFFS+40(R10), DI
	ADDQ R11, DI
	MOVQ A_OFFS+48(R10), R8
	ADDQ R11, R8
	MOVQ A_OFFS+56(R10), R9
	ADDQ R11, R9

	MOVQ         $0xffffffff, R13
	VPBROADCASTQ R13, Z31
	MOVQ         $0x165667919e3779f9, R13
	VPBROADCASTQ R13, Z24
	VMOVDQU64    A_SUMS(R10), Z25
	VMOVDQU64    A_SUMS+64(R10), Z26

group:
	// Prefetch the lines of a later group (a hint: it never faults).
	MOVQ A_PFLINE(R10), R11
	TESTQ R11, R11
	JZ   hash
	MOVQ A_PF(R10), R13
	ADDQ AX, R13

prefetch:
	PREFETCHT0 (R13)
	ADDQ $128, R13
	DECQ R11
	JNZ  prefetch

hash:
	VPBROADCASTQ A_LO(R10), Z28
	VPBROADCASTQ A_HI(R10), Z29

	// Payload words 0..7: message bytes 64..127.
	XORQ  R12, R12
	LOAD4
	ROUND(·sw+512(SB), ·sw+576(SB), ·sw+640(SB), ·sw+704(SB))
	MOVQ  $32, R12
	LOAD4
	ROUND(·sw+768(SB), ·sw+832(SB), ·sw+896(SB), ·sw+960(SB))
	AVAL(Z28)
	AVAL(Z29)

	// Rounds over message bytes 128 .. l&^31: payload words 8+4r .. 11+4r, secret
	// words 3+32r, 11+32r, 19+32r, 27+32r; the last one's fourth word masked by mmask.
	MOVQ         A_ROUNDS(R10), R11
	TESTQ        R11, R11
	JZ           last
	VPBROADCASTQ A_MMASK(R10), Z27
	MOVQ         $64, R12
	LEAQ         ·sw+24(SB), R13

middle:
	LOAD4
	CMPQ   R11, $1
	JNE    mixmid
	VPANDQ Z27, Z3, Z3

mixmid:
	ROUND((R13), 64(R13), 128(R13), 192(R13))
	ADDQ $32, R12
	ADDQ $256, R13
	DECQ R11
	JNZ  middle

last:
	// The last 32 bytes: payload words w-4 .. w-1, the last masked to its bytes.
	MOVQ         A_LAST(R10), R12
	LOAD4
	VPBROADCASTQ A_MASK(R10), Z27
	VPANDQ       Z27, Z3, Z3
	MIX(Z29, Z0, Z1, ·sw+952(SB), ·sw+1016(SB), Z2, Z3)
	MIX(Z28, Z2, Z3, ·sw+824(SB), ·sw+888(SB), Z0, Z1)

	// finishShort: Lo = avalanche(lo + hi), Hi = -avalanche(lo*P1 + hi*P4 + l*P2).
	VPADDQ       Z28, Z29, Z20
	MOVQ         $0x9e3779b185ebca87, R13
	VPBROADCASTQ R13, Z21
	VPMULLQ      Z21, Z28, Z28
	MOVQ         $0x85ebca77c2b2ae63, R13
	VPBROADCASTQ R13, Z21
	VPMULLQ      Z21, Z29, Z29
	VPADDQ       Z28, Z29, Z29
	VPBROADCASTQ A_LP2(R10), Z21
	VPADDQ       Z21, Z29, Z29
	AVAL(Z20)
	AVAL(Z29)
	VPXORQ       Z21, Z21, Z21
	VPSUBQ       Z29, Z21, Z29
	VPADDQ       Z20, Z25, Z25
	VPADDQ       Z29, Z26, Z26

	// Lanes hold values 0, 2, 1, 3, 4, 6, 5, 7: pairing Lo and Hi gives values 0, 1,
	// 4, 5 and 2, 3, 6, 7.
	VPUNPCKLQDQ   Z29, Z20, Z8
	VPUNPCKHQDQ   Z29, Z20, Z9
	MOVQ          A_OUT(R10), R13
	MOVQ          A_OUTSTRIDE(R10), R12
	VMOVDQU64     X8, (R13)
	ADDQ          R12, R13
	VEXTRACTI64X2 $1, Z8, (R13)
	ADDQ          R12, R13
	VMOVDQU64     X9, (R13)
	ADDQ          R12, R13
	VEXTRACTI64X2 $1, Z9, (R13)
	ADDQ          R12, R13
	VEXTRACTI64X2 $2, Z8, (R13)
	ADDQ          R12, R13
	VEXTRACTI64X2 $3, Z8, (R13)
	ADDQ          R12, R13
	VEXTRACTI64X2 $2, Z9, (R13)
	ADDQ          R12, R13
	VEXTRACTI64X2 $3, Z9, (R13)
	ADDQ          R12, R13
	MOVQ          R13, A_OUT(R10)

	// The next group's values lie step bytes on.
	MOVQ A_STEP(R10), R12
	ADDQ R12, AX
	ADDQ R12, BX
	ADDQ R12, CX
	ADDQ R12, DX
	ADDQ R12, SI
	ADDQ R12, DI
	ADDQ R12, R8
	ADDQ R12, R9
	DECQ A_GROUPS(R10)
	JNZ  group

	VMOVDQU64 Z25, A_SUMS(R10)
	VMOVDQU64 Z26, A_SUMS+64(R10)
	VZEROUPPER
	RET

// func records2AVX512(dst *Digest, words *uint64, groups int, k *records2Key, sums *[16]uint64)
//
// records2AVX512 is keyedShort.records2 for 8*groups rows, eight at a time: rows of
// four words (two field digests) at words, digests to dst, and the digests' lane sums
// added to sums (Lo lanes, then Hi lanes).
TEXT ·records2AVX512(SB), NOSPLIT, $0-40
	MOVQ dst+0(FP), DI
	MOVQ words+8(FP), SI
	MOVQ groups+16(FP), CX
	MOVQ k+24(FP), R10
	MOVQ sums+32(FP), R11

	SETUP64
	VPBROADCASTQ 0(R10), Z20  // lo1
	VPBROADCASTQ 8(R10), Z21  // lo0
	VPBROADCASTQ 16(R10), Z22 // k2 + k3
	VPBROADCASTQ 24(R10), Z23 // k0 + k1
	VPBROADCASTQ 32(R10), Z27 // 64 * PRIME64_2
	VMOVDQU64    0(R11), Z30
	VMOVDQU64    64(R11), Z29
	TESTQ        CX, CX
	JZ           done

loop:
	VMOVDQU64   0(SI), Z4
	VMOVDQU64   64(SI), Z5
	VMOVDQU64   128(SI), Z6
	VMOVDQU64   192(SI), Z7
	VPUNPCKLQDQ Z5, Z4, Z8
	VPUNPCKHQDQ Z5, Z4, Z9
	VPUNPCKLQDQ Z7, Z6, Z10
	VPUNPCKHQDQ Z7, Z6, Z11
	VSHUFI64X2  $0x88, Z10, Z8, Z0
	VSHUFI64X2  $0x88, Z11, Z9, Z1
	VSHUFI64X2  $0xdd, Z10, Z8, Z2
	VSHUFI64X2  $0xdd, Z11, Z9, Z3

	// hi = (mulFold64(w0^s48, w1^s56) ^ (k2+k3)) + mulFold64(w2^s16, w3^s24) ^ (k0+k1)
	VPXORQ.BCST ·sw+384(SB), Z0, Z18
	VPXORQ.BCST ·sw+448(SB), Z1, Z19
	MULFOLD(Z18, Z19)
	VPXORQ      Z22, Z17, Z28
	VPXORQ.BCST ·sw+128(SB), Z2, Z18
	VPXORQ.BCST ·sw+192(SB), Z3, Z19
	MULFOLD(Z18, Z19)
	VPADDQ      Z17, Z28, Z28
	VPXORQ      Z23, Z28, Z28

	// lo = ((lo1 ^ (w0+w1)) + lo0) ^ (w2+w3)
	VPADDQ Z0, Z1, Z18
	VPXORQ Z20, Z18, Z18
	VPADDQ Z21, Z18, Z18
	VPADDQ Z2, Z3, Z19
	VPXORQ Z19, Z18, Z18

	FINISH64(Z18, Z28, Z27)

	// Lanes hold rows 0, 2, 1, 3, 4, 6, 5, 7: pairing Lo and Hi gives rows 0, 1, 4, 5
	// and 2, 3, 6, 7.
	VPUNPCKLQDQ Z28, Z19, Z8
	VPUNPCKHQDQ Z28, Z19, Z9
	VSHUFI64X2  $0x44, Z9, Z8, Z10
	VSHUFI64X2  $0xee, Z9, Z8, Z11
	VMOVDQU64   Z10, 0(DI)
	VMOVDQU64   Z11, 64(DI)

	ADDQ $256, SI
	ADDQ $128, DI
	DECQ CX
	JNZ  loop

done:
	VMOVDQU64 Z30, 0(R11)
	VMOVDQU64 Z29, 64(R11)
	VZEROUPPER
	RET

// func oneWordsAVX512(out *Digest, stride int, vals *uint64, groups int, k *oneWordsKey, sums *[16]uint64)
//
// oneWordsAVX512 is oneWords' loop without a validity bitmap for 8*groups 64-bit values,
// eight at a time: value r's digest to out + r*stride bytes, the digests' lane sums added
// to sums (Lo lanes, then Hi lanes).
TEXT ·oneWordsAVX512(SB), NOSPLIT, $0-48
	MOVQ out+0(FP), DI
	MOVQ stride+8(FP), R12
	MOVQ vals+16(FP), SI
	MOVQ groups+24(FP), CX
	MOVQ k+32(FP), R10
	MOVQ sums+40(FP), R11

	SETUP64
	VPBROADCASTQ 0(R10), Z20  // the positive head state's lo
	VPBROADCASTQ 8(R10), Z21  // and hi
	VPBROADCASTQ 16(R10), Z22 // negative ^ positive: lo
	VPBROADCASTQ 24(R10), Z23 // and hi
	VPBROADCASTQ 32(R10), Z27 // x01
	VPBROADCASTQ 40(R10), Z0  // 64 * PRIME64_2
	VPBROADCASTQ ·sw+128(SB), Z1
	MOVQ         $1, R13
	VPBROADCASTQ R13, Z2
	VPXORQ       Z2, Z1, Z1   // 1 ^ secret16: the frame's third word, mixed
	VPBROADCASTQ ·sw+192(SB), Z3 // secret24
	VMOVDQU64    0(R11), Z30
	VMOVDQU64    64(R11), Z29
	TESTQ        CX, CX
	JZ           done1

loop1:
	VMOVDQU64 0(SI), Z4           // w
	VPSRAQ    $63, Z4, Z5         // all ones where w is negative
	VPANDQ    Z22, Z5, Z6
	VPXORQ    Z20, Z6, Z6         // head lo
	VPANDQ    Z23, Z5, Z7
	VPXORQ    Z21, Z7, Z7         // head hi
	VPADDQ    Z2, Z4, Z8          // 1 + w
	VPXORQ    Z8, Z6, Z6          // lo = head.lo ^ (1 + w)
	VPXORQ    Z3, Z4, Z19         // w ^ secret24
	MULFOLD(Z1, Z19)
	VPADDQ    Z17, Z7, Z7
	VPXORQ    Z27, Z7, Z7         // hi = (head.hi + mulFold64(1^s16, w^s24)) ^ x01

	FINISH64(Z6, Z7, Z0)

	// Lo and Hi paired: values 0, 2, 4, 6 and 1, 3, 5, 7.
	VPUNPCKLQDQ   Z7, Z19, Z8
	VPUNPCKHQDQ   Z7, Z19, Z9
	MOVQ          DI, DX
	VMOVDQU64     X8, (DX)
	ADDQ          R12, DX
	VMOVDQU64     X9, (DX)
	ADDQ          R12, DX
	VEXTRACTI64X2 $1, Z8, (DX)
	ADDQ          R12, DX
	VEXTRACTI64X2 $1, Z9, (DX)
	ADDQ          R12, DX
	VEXTRACTI64X2 $2, Z8, (DX)
	ADDQ          R12, DX
	VEXTRACTI64X2 $2, Z9, (DX)
	ADDQ          R12, DX
	VEXTRACTI64X2 $3, Z8, (DX)
	ADDQ          R12, DX
	VEXTRACTI64X2 $3, Z9, (DX)
	ADDQ          R12, DX
	MOVQ          DX, DI

	ADDQ $64, SI
	DECQ CX
	JNZ  loop1

done1:
	VMOVDQU64 Z30, 0(R11)
	VMOVDQU64 Z29, 64(R11)
	VZEROUPPER
	RET
