// unroll.cuh: how far the tap loops of the tiled kernels are unrolled.
//
// KW and KH are compile-time constants, so every tap loop can be unrolled
// completely. That pays while the unrolled body stays small (report 000's
// templated V2 kernel unrolled 3x3 to 7x7); for large filters a complete
// unroll of both loops only bloats the code and the compile time, so past
// 1024 taps the row loop stays a loop. The column loop is always unrolled
// completely: its body is one row of the filter, at most the variant's
// largest side, and a partial unroll (by 16 past 64 columns, as this file
// once did) made every tap about twice as slow (preset tuning-unroll).
#pragma once

#if KW * KH <= 1024
#define UNROLL_ROWS KH
#else
#define UNROLL_ROWS 1
#endif

#define UNROLL_COLS KW
