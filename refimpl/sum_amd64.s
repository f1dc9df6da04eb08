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
