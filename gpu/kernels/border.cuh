// border.cuh: border modes, element types and pixel addressing shared by
// every convolution kernel family.
//
// border_index mirrors convolve.Border.Index (convolve/border.go) exactly,
// so that a pixel outside the image reads the same value on the GPU as in
// every CPU implementation. The mode is a compile-time constant, so each
// specialization contains only its own branch.
//
// Compile-time parameters (NVRTC -D options):
//   BORDER    0 zero, 1 replicate, 2 reflect (period 2n), 3 mirror
//             (reflect-101, period 2n-2), 4 wrap (period n)
//   IN_T      input element type: float, unsigned char or short
//   CHANNELS  channels per pixel, 1 to 4 (blockIdx.z is the channel, or
//             under CH_IN_X part of blockIdx.x: see tile_ch)
//   PLANAR    1: each channel is its own plane; 0: channels interleaved
//   INDEX64   defined when an image has 2^31 elements or more; element
//             offsets are then 64-bit (idx_t)
//
// Runtime parameters: W, H (pixels) and S, the input row stride in
// elements. The output is always float32 with packed rows in the input's
// layout (convolve.Problem.OutputGeometry).
#pragma once

#define BORDER_ZERO 0
#define BORDER_REPLICATE 1
#define BORDER_REFLECT 2
#define BORDER_MIRROR 3
#define BORDER_WRAP 4

#ifndef BORDER
#error "BORDER must be defined: 0 zero, 1 replicate, 2 reflect, 3 mirror, 4 wrap"
#endif
#if BORDER < 0 || BORDER > 4
#error "BORDER must be 0 to 4"
#endif
#ifndef IN_T
#define IN_T float
#endif
#ifndef CHANNELS
#define CHANNELS 1
#endif
#ifndef PLANAR
#define PLANAR 0
#endif

typedef IN_T in_t;

#ifdef INDEX64
typedef long long idx_t;
#else
typedef int idx_t;
#endif

// border_mod is i mod n in 0..n-1 for any sign of i (n > 0).
__device__ __forceinline__ int border_mod(int i, int n)
{
    int m = i % n;
    return m < 0 ? m + n : m;
}

// border_index maps coordinate i of a row or column of n >= 1 pixels into
// 0..n-1, or returns -1 for a zero-border pixel outside the image.
__device__ __forceinline__ int border_index(int i, int n)
{
    if (i >= 0 && i < n) {
        return i;
    }
#if BORDER == BORDER_REPLICATE
    return i < 0 ? 0 : n - 1;
#elif BORDER == BORDER_REFLECT
    const int p = 2 * n;
    const int m = border_mod(i, p);
    return m >= n ? p - 1 - m : m;
#elif BORDER == BORDER_MIRROR
    if (n == 1) {
        return 0;
    }
    const int p = 2 * n - 2;
    const int m = border_mod(i, p);
    return m >= n ? p - m : m;
#elif BORDER == BORDER_WRAP
    return border_mod(i, n);
#else
    return -1;
#endif
}

// tile_bx and tile_ch are the tile column and the channel of a block of
// the PerTile grid rule. Where a family's plan sets CH_IN_X (interleaved
// images of several channels), blockIdx.x runs over tile columns times
// channels, the channel fastest, and gridDim.z is 1: the blocks of one
// tile's channels run side by side and read its input lines, which hold
// every channel, from DRAM once. Otherwise blockIdx.z is the channel.
#ifndef CH_IN_X
#define CH_IN_X 0
#endif
__device__ __forceinline__ int tile_bx()
{
    return CH_IN_X ? (int)(blockIdx.x / CHANNELS) : (int)blockIdx.x;
}
__device__ __forceinline__ int tile_ch()
{
    return CH_IN_X ? (int)(blockIdx.x % CHANNELS) : (int)blockIdx.z;
}

// in_offset is the element index of channel c of pixel (x, y) in an input
// of H rows with row stride S (convolve.Geometry.Offset).
__device__ __forceinline__ idx_t in_offset(int x, int y, int c, int H, idx_t S)
{
#if PLANAR
    return ((idx_t)c * H + y) * S + x;
#else
    return (idx_t)y * S + (idx_t)x * CHANNELS + c;
#endif
}

// out_offset is the element index of channel c of pixel (x, y) in the
// float32 output of a W x H image: packed rows, or rows OUT_S elements
// apart where the plan pads the device output's rows (OUT_S defined).
__device__ __forceinline__ idx_t out_offset(int x, int y, int c, int W, int H)
{
#ifdef OUT_S
#if PLANAR
    return ((idx_t)c * H + y) * OUT_S + x;
#else
    return (idx_t)y * OUT_S + (idx_t)x * CHANNELS + c;
#endif
#else
#if PLANAR
    return ((idx_t)c * H + y) * W + x;
#else
    return ((idx_t)y * W + x) * CHANNELS + c;
#endif
#endif
}

// out_rows_aligned reports whether every output row of a W-wide image
// starts on an n-element boundary (n a power of two), so that stores of
// n floats at columns that are multiples of n are aligned.
__device__ __forceinline__ bool out_rows_aligned(int W, int n)
{
#ifdef OUT_S
    return OUT_S % n == 0;
#else
    return W % n == 0;
#endif
}

// read_px is channel c of pixel (x, y) after the border mapping of both
// coordinates, converted to float (exact for every IN_T).
__device__ __forceinline__ float read_px(const in_t* __restrict__ in, int x, int y, int c, int W, int H, idx_t S)
{
    const int bx = border_index(x, W);
    const int by = border_index(y, H);
#if BORDER == BORDER_ZERO
    if (bx < 0 || by < 0) {
        return 0.f;
    }
#endif
    return (float)in[in_offset(bx, by, c, H, S)];
}
