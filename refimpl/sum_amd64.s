#include "textflag.h"

// func mulAddRows(dst *float32, n int, srcs **float32, ws *float32, k int, set bool)
//
// For x in 0..n-1 (n a multiple of 8, k >= 1):
// s = ws[0]*srcs[0][x] + ws[1]*srcs[1][x] + ... + ws[k-1]*srcs[k-1][x],
// each product rounded and added in that order, then dst[x] = s (set) or
// dst[x] + s. Eight accumulators of eight values each (Y0-Y7) take 64
// values per pass over the terms, then one accumulator 8 at a time; Y15
// holds the broadcast weight, Y8-Y14 the products.
TEXT ·mulAddRows(SB), NOSPLIT, $0-41
	MOVQ    dst+0(FP), DI
	MOVQ    n+8(FP), CX
	MOVQ    srcs+16(FP), SI
	MOVQ    ws+24(FP), DX
	MOVQ    k+32(FP), R8
	MOVBLZX set+40(FP), R9
	XORQ    AX, AX
	MOVQ    CX, BX
	ANDQ    $-64, BX
	CMPQ    AX, BX
	JGE     blocks8

blocks64:
	MOVQ         (SI), R11
	VBROADCASTSS (DX), Y15
	VMULPS       (R11)(AX*4), Y15, Y0
	VMULPS       32(R11)(AX*4), Y15, Y1
	VMULPS       64(R11)(AX*4), Y15, Y2
	VMULPS       96(R11)(AX*4), Y15, Y3
	VMULPS       128(R11)(AX*4), Y15, Y4
	VMULPS       160(R11)(AX*4), Y15, Y5
	VMULPS       192(R11)(AX*4), Y15, Y6
	VMULPS       224(R11)(AX*4), Y15, Y7
	MOVQ         $1, R12

terms64:
	CMPQ         R12, R8
	JGE          sum64
	MOVQ         (SI)(R12*8), R11
	VBROADCASTSS (DX)(R12*4), Y15
	VMULPS       (R11)(AX*4), Y15, Y8
	VADDPS       Y8, Y0, Y0
	VMULPS       32(R11)(AX*4), Y15, Y9
	VADDPS       Y9, Y1, Y1
	VMULPS       64(R11)(AX*4), Y15, Y10
	VADDPS       Y10, Y2, Y2
	VMULPS       96(R11)(AX*4), Y15, Y11
	VADDPS       Y11, Y3, Y3
	VMULPS       128(R11)(AX*4), Y15, Y12
	VADDPS       Y12, Y4, Y4
	VMULPS       160(R11)(AX*4), Y15, Y13
	VADDPS       Y13, Y5, Y5
	VMULPS       192(R11)(AX*4), Y15, Y14
	VADDPS       Y14, Y6, Y6
	VMULPS       224(R11)(AX*4), Y15, Y8
	VADDPS       Y8, Y7, Y7
	INCQ         R12
	JMP          terms64

sum64:
	TESTQ   R9, R9
	JNZ     store64
	VADDPS  (DI)(AX*4), Y0, Y0
	VADDPS  32(DI)(AX*4), Y1, Y1
	VADDPS  64(DI)(AX*4), Y2, Y2
	VADDPS  96(DI)(AX*4), Y3, Y3
	VADDPS  128(DI)(AX*4), Y4, Y4
	VADDPS  160(DI)(AX*4), Y5, Y5
	VADDPS  192(DI)(AX*4), Y6, Y6
	VADDPS  224(DI)(AX*4), Y7, Y7

store64:
	VMOVUPS Y0, (DI)(AX*4)
	VMOVUPS Y1, 32(DI)(AX*4)
	VMOVUPS Y2, 64(DI)(AX*4)
	VMOVUPS Y3, 96(DI)(AX*4)
	VMOVUPS Y4, 128(DI)(AX*4)
	VMOVUPS Y5, 160(DI)(AX*4)
	VMOVUPS Y6, 192(DI)(AX*4)
	VMOVUPS Y7, 224(DI)(AX*4)
	ADDQ    $64, AX
	CMPQ    AX, BX
	JLT     blocks64

blocks8:
	MOVQ CX, BX
	ANDQ $-8, BX
	CMPQ AX, BX
	JGE  done

loop8:
	MOVQ         (SI), R11
	VBROADCASTSS (DX), Y15
	VMULPS       (R11)(AX*4), Y15, Y0
	MOVQ         $1, R12

terms8:
	CMPQ         R12, R8
	JGE          sum8
	MOVQ         (SI)(R12*8), R11
	VBROADCASTSS (DX)(R12*4), Y15
	VMULPS       (R11)(AX*4), Y15, Y8
	VADDPS       Y8, Y0, Y0
	INCQ         R12
	JMP          terms8

sum8:
	TESTQ  R9, R9
	JNZ    store8
	VADDPS (DI)(AX*4), Y0, Y0

store8:
	VMOVUPS Y0, (DI)(AX*4)
	ADDQ    $8, AX
	CMPQ    AX, BX
	JLT     loop8

done:
	VZEROUPPER
	RET

// func mulAddRows16(dst *float32, n int, srcs **float32, ws *float32, k int, set bool)
//
// mulAddRows with 512-bit registers (AVX-512F), n a multiple of 16: eight
// accumulators of sixteen values each (Z0-Z7) take 128 values per pass
// over the terms, then one accumulator 16 at a time; Z15 holds the
// broadcast weight, Z8-Z14 the products. Each product is rounded and the
// sum taken in mulAddRows's order, so the values are the same.
TEXT ·mulAddRows16(SB), NOSPLIT, $0-41
	MOVQ    dst+0(FP), DI
	MOVQ    n+8(FP), CX
	MOVQ    srcs+16(FP), SI
	MOVQ    ws+24(FP), DX
	MOVQ    k+32(FP), R8
	MOVBLZX set+40(FP), R9
	XORQ    AX, AX
	MOVQ    CX, BX
	ANDQ    $-128, BX
	CMPQ    AX, BX
	JGE     blocks16

blocks128:
	MOVQ         (SI), R11
	VBROADCASTSS (DX), Z15
	VMULPS       (R11)(AX*4), Z15, Z0
	VMULPS       64(R11)(AX*4), Z15, Z1
	VMULPS       128(R11)(AX*4), Z15, Z2
	VMULPS       192(R11)(AX*4), Z15, Z3
	VMULPS       256(R11)(AX*4), Z15, Z4
	VMULPS       320(R11)(AX*4), Z15, Z5
	VMULPS       384(R11)(AX*4), Z15, Z6
	VMULPS       448(R11)(AX*4), Z15, Z7
	MOVQ         $1, R12

terms128:
	CMPQ         R12, R8
	JGE          sum128
	MOVQ         (SI)(R12*8), R11
	VBROADCASTSS (DX)(R12*4), Z15
	VMULPS       (R11)(AX*4), Z15, Z8
	VADDPS       Z8, Z0, Z0
	VMULPS       64(R11)(AX*4), Z15, Z9
	VADDPS       Z9, Z1, Z1
	VMULPS       128(R11)(AX*4), Z15, Z10
	VADDPS       Z10, Z2, Z2
	VMULPS       192(R11)(AX*4), Z15, Z11
	VADDPS       Z11, Z3, Z3
	VMULPS       256(R11)(AX*4), Z15, Z12
	VADDPS       Z12, Z4, Z4
	VMULPS       320(R11)(AX*4), Z15, Z13
	VADDPS       Z13, Z5, Z5
	VMULPS       384(R11)(AX*4), Z15, Z14
	VADDPS       Z14, Z6, Z6
	VMULPS       448(R11)(AX*4), Z15, Z8
	VADDPS       Z8, Z7, Z7
	INCQ         R12
	JMP          terms128

sum128:
	TESTQ   R9, R9
	JNZ     store128
	VADDPS  (DI)(AX*4), Z0, Z0
	VADDPS  64(DI)(AX*4), Z1, Z1
	VADDPS  128(DI)(AX*4), Z2, Z2
	VADDPS  192(DI)(AX*4), Z3, Z3
	VADDPS  256(DI)(AX*4), Z4, Z4
	VADDPS  320(DI)(AX*4), Z5, Z5
	VADDPS  384(DI)(AX*4), Z6, Z6
	VADDPS  448(DI)(AX*4), Z7, Z7

store128:
	VMOVUPS Z0, (DI)(AX*4)
	VMOVUPS Z1, 64(DI)(AX*4)
	VMOVUPS Z2, 128(DI)(AX*4)
	VMOVUPS Z3, 192(DI)(AX*4)
	VMOVUPS Z4, 256(DI)(AX*4)
	VMOVUPS Z5, 320(DI)(AX*4)
	VMOVUPS Z6, 384(DI)(AX*4)
	VMOVUPS Z7, 448(DI)(AX*4)
	ADDQ    $128, AX
	CMPQ    AX, BX
	JLT     blocks128

blocks16:
	MOVQ CX, BX
	ANDQ $-16, BX
	CMPQ AX, BX
	JGE  done16

loop16:
	MOVQ         (SI), R11
	VBROADCASTSS (DX), Z15
	VMULPS       (R11)(AX*4), Z15, Z0
	MOVQ         $1, R12

terms16:
	CMPQ         R12, R8
	JGE          sum16
	MOVQ         (SI)(R12*8), R11
	VBROADCASTSS (DX)(R12*4), Z15
	VMULPS       (R11)(AX*4), Z15, Z8
	VADDPS       Z8, Z0, Z0
	INCQ         R12
	JMP          terms16

sum16:
	TESTQ  R9, R9
	JNZ    store16
	VADDPS (DI)(AX*4), Z0, Z0

store16:
	VMOVUPS Z0, (DI)(AX*4)
	ADDQ    $16, AX
	CMPQ    AX, BX
	JLT     loop16

done16:
	VZEROUPPER
	RET
