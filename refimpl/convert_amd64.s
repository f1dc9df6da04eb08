#include "textflag.h"

// Conversions of uint8 and int16 rows to float32 with AVX only (no AVX2):
// VPMOVZXBD / VPMOVSXWD widen four values to 32-bit integers in an X
// register, VINSERTF128 joins two such halves in a Y register, and
// VCVTDQ2PS converts the eight, exactly (every value fits in 24 bits).
// 32 values per iteration, then 8 at a time.

// func u8ToFloat32(dst *float32, src *uint8, n int)
TEXT ·u8ToFloat32(SB), NOSPLIT, $0-24
	MOVQ dst+0(FP), DI
	MOVQ src+8(FP), SI
	MOVQ n+16(FP), CX
	XORQ AX, AX
	MOVQ CX, BX
	ANDQ $-32, BX
	CMPQ AX, BX
	JGE  u8tail

u8loop32:
	VPMOVZXBD   (SI)(AX*1), X0
	VPMOVZXBD   4(SI)(AX*1), X1
	VPMOVZXBD   8(SI)(AX*1), X2
	VPMOVZXBD   12(SI)(AX*1), X3
	VPMOVZXBD   16(SI)(AX*1), X4
	VPMOVZXBD   20(SI)(AX*1), X5
	VPMOVZXBD   24(SI)(AX*1), X6
	VPMOVZXBD   28(SI)(AX*1), X7
	VINSERTF128 $1, X1, Y0, Y0
	VINSERTF128 $1, X3, Y2, Y2
	VINSERTF128 $1, X5, Y4, Y4
	VINSERTF128 $1, X7, Y6, Y6
	VCVTDQ2PS   Y0, Y0
	VCVTDQ2PS   Y2, Y2
	VCVTDQ2PS   Y4, Y4
	VCVTDQ2PS   Y6, Y6
	VMOVUPS     Y0, (DI)(AX*4)
	VMOVUPS     Y2, 32(DI)(AX*4)
	VMOVUPS     Y4, 64(DI)(AX*4)
	VMOVUPS     Y6, 96(DI)(AX*4)
	ADDQ        $32, AX
	CMPQ        AX, BX
	JLT         u8loop32

u8tail:
	CMPQ AX, CX
	JGE  u8done

u8loop8:
	VPMOVZXBD   (SI)(AX*1), X0
	VPMOVZXBD   4(SI)(AX*1), X1
	VINSERTF128 $1, X1, Y0, Y0
	VCVTDQ2PS   Y0, Y0
	VMOVUPS     Y0, (DI)(AX*4)
	ADDQ        $8, AX
	CMPQ        AX, CX
	JLT         u8loop8

u8done:
	VZEROUPPER
	RET

// func i16ToFloat32(dst *float32, src *int16, n int)
TEXT ·i16ToFloat32(SB), NOSPLIT, $0-24
	MOVQ dst+0(FP), DI
	MOVQ src+8(FP), SI
	MOVQ n+16(FP), CX
	XORQ AX, AX
	MOVQ CX, BX
	ANDQ $-32, BX
	CMPQ AX, BX
	JGE  i16tail

i16loop32:
	VPMOVSXWD   (SI)(AX*2), X0
	VPMOVSXWD   8(SI)(AX*2), X1
	VPMOVSXWD   16(SI)(AX*2), X2
	VPMOVSXWD   24(SI)(AX*2), X3
	VPMOVSXWD   32(SI)(AX*2), X4
	VPMOVSXWD   40(SI)(AX*2), X5
	VPMOVSXWD   48(SI)(AX*2), X6
	VPMOVSXWD   56(SI)(AX*2), X7
	VINSERTF128 $1, X1, Y0, Y0
	VINSERTF128 $1, X3, Y2, Y2
	VINSERTF128 $1, X5, Y4, Y4
	VINSERTF128 $1, X7, Y6, Y6
	VCVTDQ2PS   Y0, Y0
	VCVTDQ2PS   Y2, Y2
	VCVTDQ2PS   Y4, Y4
	VCVTDQ2PS   Y6, Y6
	VMOVUPS     Y0, (DI)(AX*4)
	VMOVUPS     Y2, 32(DI)(AX*4)
	VMOVUPS     Y4, 64(DI)(AX*4)
	VMOVUPS     Y6, 96(DI)(AX*4)
	ADDQ        $32, AX
	CMPQ        AX, BX
	JLT         i16loop32

i16tail:
	CMPQ AX, CX
	JGE  i16done

i16loop8:
	VPMOVSXWD   (SI)(AX*2), X0
	VPMOVSXWD   8(SI)(AX*2), X1
	VINSERTF128 $1, X1, Y0, Y0
	VCVTDQ2PS   Y0, Y0
	VMOVUPS     Y0, (DI)(AX*4)
	ADDQ        $8, AX
	CMPQ        AX, CX
	JLT         i16loop8

i16done:
	VZEROUPPER
	RET
