#include "textflag.h"

// func fmaLoop(acc *[fmaLanes]float32, m, c float32, n int)
//
// n times, a = m*a + c on each of the 96 float32 values of acc, as twelve
// independent chains of eight-lane fused multiply-adds (Y0-Y11; Y12
// holds m, Y13 c): enough chains to keep two FMA units busy through
// their latency.
TEXT ·fmaLoop(SB), NOSPLIT, $0-24
	MOVQ         acc+0(FP), DI
	VBROADCASTSS m+8(FP), Y12
	VBROADCASTSS c+12(FP), Y13
	MOVQ         n+16(FP), CX
	VMOVUPS      (DI), Y0
	VMOVUPS      32(DI), Y1
	VMOVUPS      64(DI), Y2
	VMOVUPS      96(DI), Y3
	VMOVUPS      128(DI), Y4
	VMOVUPS      160(DI), Y5
	VMOVUPS      192(DI), Y6
	VMOVUPS      224(DI), Y7
	VMOVUPS      256(DI), Y8
	VMOVUPS      288(DI), Y9
	VMOVUPS      320(DI), Y10
	VMOVUPS      352(DI), Y11
	TESTQ        CX, CX
	JLE          store

loop:
	VFMADD213PS Y13, Y12, Y0
	VFMADD213PS Y13, Y12, Y1
	VFMADD213PS Y13, Y12, Y2
	VFMADD213PS Y13, Y12, Y3
	VFMADD213PS Y13, Y12, Y4
	VFMADD213PS Y13, Y12, Y5
	VFMADD213PS Y13, Y12, Y6
	VFMADD213PS Y13, Y12, Y7
	VFMADD213PS Y13, Y12, Y8
	VFMADD213PS Y13, Y12, Y9
	VFMADD213PS Y13, Y12, Y10
	VFMADD213PS Y13, Y12, Y11
	DECQ        CX
	JNZ         loop

store:
	VMOVUPS Y0, (DI)
	VMOVUPS Y1, 32(DI)
	VMOVUPS Y2, 64(DI)
	VMOVUPS Y3, 96(DI)
	VMOVUPS Y4, 128(DI)
	VMOVUPS Y5, 160(DI)
	VMOVUPS Y6, 192(DI)
	VMOVUPS Y7, 224(DI)
	VMOVUPS Y8, 256(DI)
	VMOVUPS Y9, 288(DI)
	VMOVUPS Y10, 320(DI)
	VMOVUPS Y11, 352(DI)
	VZEROUPPER
	RET
