// unroll.cuh: how far the tap loops of the tiled kernels are unrolled.
//
// KW and KH are compile-time constants, so every tap loop can be unrolled
// completely. That pays while the unrolled body stays small (report 000's
// templated V2 kernel unrolled 3x3 to 7x7); for large filters a complete
// unroll only bloats the code and the compile time, so past 1024 taps only
// the inner loop is unrolled, and past 64 columns it is unrolled by 16.
#pragma once

#if KW * KH <= 1024
#define UNROLL_ROWS KH
#else
#define UNROLL_ROWS 1
#endif

#if KW <= 64
#define UNROLL_COLS KW
#else
#define UNROLL_COLS 16
#endif
