//go:build amd64 && !purego

#include "textflag.h"

// XXH3's initial accumulators: PRIME32_3, PRIME64_1..4, PRIME32_2, PRIME64_5, PRIME32_1.
DATA accinit<>+0(SB)/8, $0x00000000c2b2ae3d
DATA accinit<>+8(SB)/8, $0x9e3779b185ebca87
DATA accinit<>+16(SB)/8, $0xc2b2ae3d27d4eb4f
DATA accinit<>+24(SB)/8, $0x165667b19e3779f9
DATA accinit<>+32(SB)/8, $0x85ebca77c2b2ae63
DATA accinit<>+40(SB)/8, $0x0000000085ebca77
DATA accinit<>+48(SB)/8, $0x27d4eb2f165667c5
DATA accinit<>+56(SB)/8, $0x000000009e3779b1
GLOBL accinit<>(SB), RODATA|NOPTR, $64

// ACCUM accumulates 32 message bytes at data with the 32 secret bytes at sec into the
// four accumulator lanes in acc: XXH3_accumulate_512 for one half of a stripe.
//   data_key = data ^ secret
//   acc[i] += lo32(data_key[i]) * hi32(data_key[i]); acc[i^1] += data[i]
#define ACCUM(data, sec, acc) \
	VMOVDQU  data, Y2        \
	VPXOR    sec, Y2, Y3     \
	VPSHUFD  $0x31, Y3, Y4   \
	VPMULUDQ Y3, Y4, Y4      \
	VPSHUFD  $0x4e, Y2, Y2   \
	VPADDQ   Y4, acc, acc    \
	VPADDQ   Y2, acc, acc

// MERGE2 adds mulFold64(acc[a] ^ secret[s], acc[a+1] ^ secret[s+8]) to r.
#define MERGE2(a, s, r) \
	MOVQ a(SP), AX        \
	XORQ s(DI), AX        \
	MOVQ a+8(SP), DX      \
	XORQ s+8(DI), DX      \
	MULQ DX               \
	XORQ DX, AX           \
	ADDQ AX, r

// AVALANCHE is XXH3_avalanche of r (clobbers AX).
#define AVALANCHE(r) \
	MOVQ  r, AX                 \
	SHRQ  $37, AX               \
	XORQ  AX, r                 \
	MOVQ  $0x165667919e3779f9, AX \
	IMULQ AX, r                 \
	MOVQ  r, AX                 \
	SHRQ  $32, AX               \
	XORQ  AX, r

// MERGE writes lo = avalanche(l×PRIME64_1 + Σ mulFold64(acc ^ secret[11:])) and
// hi = avalanche(^(l×PRIME64_2) + Σ mulFold64(acc ^ secret[117:])) from the accumulators
// at acc-64(SP), l = 32+recBytes (clobbers AX, DX, R11, R12).
#define MERGE \
	LEAQ 32(SI), R11 \
	MOVQ  $0x9e3779b185ebca87, R12 \
	IMULQ R11, R12 \
	MERGE2(acc-64, 11, R12) \
	MERGE2(acc-48, 27, R12) \
	MERGE2(acc-32, 43, R12) \
	MERGE2(acc-16, 59, R12) \
	AVALANCHE(R12) \
	MOVQ R12, lo+24(FP) \
	MOVQ  $0xc2b2ae3d27d4eb4f, R12 \
	IMULQ R11, R12 \
	NOTQ  R12 \
	MERGE2(acc-64, 117, R12) \
	MERGE2(acc-48, 133, R12) \
	MERGE2(acc-32, 149, R12) \
	MERGE2(acc-16, 165, R12) \
	AVALANCHE(R12) \
	MOVQ R12, hi+32(FP)

// func hashKeyedLongAVX2(key *[32]byte, rec unsafe.Pointer, recBytes uint64) (lo, hi uint64)
//
// XXH3-128 (seed 0, default secret) of the message key ‖ rec, for 241 ≤ 32+recBytes ≤ 1024
// and recBytes a multiple of 8: one partial block of (l-1)/64 full stripes from message
// offset 0 (secret at 8×stripe), the last stripe at l-64 (secret at 121), then the two
// merges (secret at 11 and 117). It reads no byte outside key and rec.
TEXT ·hashKeyedLongAVX2(SB), NOSPLIT, $64-40
	MOVQ key+0(FP), BX
	MOVQ rec+8(FP), CX
	MOVQ recBytes+16(FP), SI
	LEAQ ·xxhSecret(SB), DI
	VMOVDQU accinit<>+0(SB), Y0
	VMOVDQU accinit<>+32(SB), Y1

	// Stripe 0: the key, then the first 32 record bytes.
	ACCUM((BX), (DI), Y0)
	ACCUM((CX), 32(DI), Y1)

	// Stripe s = 1 .. (l-1)/64 - 1: message bytes 64s..64s+63 are record bytes 64s-32..64s+31.
	LEAQ 31(SI), R10
	SHRQ $6, R10
	DECQ R10
	LEAQ 32(CX), R8
	LEAQ 8(DI), R9

loop:
	TESTQ R10, R10
	JZ    last
	ACCUM((R8), (R9), Y0)
	ACCUM(32(R8), 32(R9), Y1)
	ADDQ  $64, R8
	ADDQ  $8, R9
	DECQ  R10
	JMP   loop

last:
	// The last stripe: the record's last 64 bytes, secret at 192-64-7 = 121.
	LEAQ -64(CX)(SI*1), R8
	ACCUM((R8), 121(DI), Y0)
	ACCUM(32(R8), 153(DI), Y1)
	VMOVDQU Y0, acc-64(SP)
	VMOVDQU Y1, acc-32(SP)
	VZEROUPPER

	MERGE
	RET
