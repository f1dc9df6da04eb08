// unroll.cuh: the one unrolling policy of the kernel families' tap loops.
//
// KW and KH are compile-time constants, so every tap loop could be
// unrolled completely. Unrolling never changes a result: the taps are
// added in the same order either way. It changes the speed and the
// compile time, and the policy below is what was found to serve both.
//
// Taps read from shared memory or registers (shared.cu, shared_rows.cu,
// texture.cu's conv_texture_shared, separable.cu's shared passes,
// tiled.cu):
//   UNROLL_COLS, UNROLL_LINE(N)
//                 the loop over one filter row, or over the N taps of a 1-D
//                 pass, is always unrolled completely: its body is one row
//                 of the filter, at most the variant's largest side, and a
//                 partial unroll (by 16 past 64 columns, as this file once
//                 did) made every tap about twice as slow (preset
//                 tuning-unroll).
//   UNROLL_ROWS   the loop over filter rows is unrolled completely while
//                 KW*KH <= 1024; past that a complete unroll of both loops
//                 only bloats the code and the compile time, so it stays a
//                 loop.
//   UNROLL_WALK   tiled.cu's row walk (RY outputs per thread): the body
//                 rows, which feed all RY outputs, are unrolled completely
//                 while they hold at most 4096 multiply-adds
//                 (tiling.UnrollLimit mirrors the test), else walked in a
//                 loop; the head and tail rows are always unrolled.
//
// Taps that map their coordinates through the border one by one
// (channels.cu, separable.cu's naive passes): each tap carries its own
// border arithmetic, so a complete unroll of a large filter buys little
// and costs minutes of compile time.
//   UNROLL_BORDER_ROWS, UNROLL_BORDER_COLS
//                 both loops completely up to 49 taps (7x7); larger
//                 filters keep the row loop and unroll the column loop by
//                 up to 8.
//   UNROLL_BORDER_LINE(N)
//                 a 1-D pass of N taps: completely up to 49, else by 8.
//
// The kernels that reproduce a report's untuned loop (naive.cu, const.cu,
// padded.cu, texture.cu's conv_texture and conv_texture_filter) carry no
// pragma: the compiler unrolls them as it did for the report. sobel.cu's
// taps are written out.
#pragma once

#if KW * KH <= 1024
#define UNROLL_ROWS KH
#else
#define UNROLL_ROWS 1
#endif

#define UNROLL_COLS KW
#define UNROLL_LINE(N) N

#ifdef RY
#if KH >= RY && (KH - RY + 1) * KW * RY <= 4096
#define UNROLL_WALK (KH - RY + 1)
#else
#define UNROLL_WALK 1
#endif
#endif

#if KW * KH <= 49
#define UNROLL_BORDER_ROWS KH
#define UNROLL_BORDER_COLS KW
#else
#define UNROLL_BORDER_ROWS 1
#define UNROLL_BORDER_COLS (KW < 8 ? KW : 8)
#endif

#define UNROLL_BORDER_LINE(N) ((N) <= 49 ? (N) : 8)
