// channels.cu: report 003's four ways to filter a 3-channel image, plus the
// layout kernels they need (de-interleave, interleave).
//
// Every convolution kernel here is the constant-memory direct kernel of
// const.cu (one thread per output element, filter in c_filter, taps summed
// row by row in the reference's order, border through border_index); the
// strategies differ only in how threads and launches map onto channels:
//
//   ch_conv_loop    one launch per channel (the channel is an argument);
//                   the host uploads, filters and downloads one channel at
//                   a time (report 003's "1channel").
//   ch_conv_grid3d  one launch, 2-D grid of pixels, blockIdx.z = channel
//                   (report 003's "3channel_grid"). With TRANSPOSED=1 the
//                   thread's x index walks down a column, as in the
//                   report's Algorithm 5: a warp then touches 32 rows and
//                   nothing is coalesced; TRANSPOSED=0 is the fixed map.
//   ch_conv_linear  one launch over a 1-D grid of C*H*W threads covering
//                   the linearized planar image (report 003's "3channel"):
//                   index -> (channel, row, column) by division.
//   ch_conv_arrays  one launch, each thread computes its pixel in all
//                   three channels, read from three separate input arrays
//                   and written to three separate output arrays (report
//                   003's "3channel_3").
//
// Linear and arrays read planes. An interleaved (RGBRGB...) input is first
// split on the device by ch_deinterleave into packed planes of the input
// type, and arrays' three output planes are merged back by ch_interleave;
// both passes are part of the timed work, like the report's host-side
// linearization. Loop and grid3d read the input in its own layout.
//
// Compile-time: KW, KH, BX, BY plus the parameters of border.cuh (CHANNELS
// is 3; PLANAR is the layout the convolution kernels read); STRATEGY picks
// the one convolution kernel compiled (0 loop, 1 grid3d, 2 linear,
// 3 arrays; linear and arrays need PLANAR=1); OUT_PLANAR is the output
// layout of ch_conv_linear (default PLANAR); TRANSPOSED selects
// ch_conv_grid3d's thread map.
//
// Unrolling: every tap maps its coordinates through the border, so the
// taps follow unroll.cuh's UNROLL_BORDER_ROWS and UNROLL_BORDER_COLS: small
// filters (up to 7x7) unroll completely, larger ones unroll the inner loop
// by up to 8.
#include "border.cuh"
#include "unroll.cuh"

#ifndef STRATEGY
#error "STRATEGY must be defined: 0 loop, 1 grid3d, 2 linear, 3 arrays"
#endif

#if CHANNELS != 3
#error "channels.cu is for 3-channel images: CHANNELS must be 3"
#endif
#ifndef OUT_PLANAR
#define OUT_PLANAR PLANAR
#endif
#ifndef TRANSPOSED
#define TRANSPOSED 0
#endif

__constant__ float c_filter[KW * KH];

// tap_sum is the filter response at (x, y) of channel c of in, summed in
// the reference's order (rows of the filter top to bottom, each left to
// right).
__device__ __forceinline__ float tap_sum(const in_t* __restrict__ in, int x, int y, int c, int W, int H, idx_t S)
{
    float s = 0.f;
#pragma unroll UNROLL_BORDER_ROWS
    for (int j = 0; j < KH; ++j) {
#pragma unroll UNROLL_BORDER_COLS
        for (int i = 0; i < KW; ++i) {
            s += c_filter[j * KW + i] * read_px(in, x + i - KW / 2, y + j - KH / 2, c, W, H, S);
        }
    }
    return s;
}

#if STRATEGY == 0
extern "C" __global__ void __launch_bounds__(BX * BY)
ch_conv_loop(const in_t* __restrict__ in, float* __restrict__ out, int W, int H, idx_t S, int c)
{
    const int x = blockIdx.x * BX + threadIdx.x;
    const int y = blockIdx.y * BY + threadIdx.y;
    if (x >= W || y >= H) {
        return;
    }
    out[out_offset(x, y, c, W, H)] = tap_sum(in, x, y, c, W, H, S);
}

#endif

#if STRATEGY == 1
extern "C" __global__ void __launch_bounds__(BX * BY)
ch_conv_grid3d(const in_t* __restrict__ in, float* __restrict__ out, int W, int H, idx_t S)
{
#if TRANSPOSED
    // Report 003's map: the grid's x dimension covers rows.
    const int y = blockIdx.x * BX + threadIdx.x;
    const int x = blockIdx.y * BY + threadIdx.y;
#else
    const int x = blockIdx.x * BX + threadIdx.x;
    const int y = blockIdx.y * BY + threadIdx.y;
#endif
    const int c = blockIdx.z;
    if (x >= W || y >= H) {
        return;
    }
    out[out_offset(x, y, c, W, H)] = tap_sum(in, x, y, c, W, H, S);
}

#endif

#if (STRATEGY == 2 || STRATEGY == 3) && !PLANAR
#error "ch_conv_linear and ch_conv_arrays read planes: compile them with PLANAR=1"
#endif

#if STRATEGY == 2
// ch_conv_linear: thread t of the 1-D grid computes element t of the packed
// planar C x H x W output (the input is read with row stride S, planar).
extern "C" __global__ void __launch_bounds__(BX * BY)
ch_conv_linear(const in_t* __restrict__ in, float* __restrict__ out, int W, int H, idx_t S)
{
    const long long t = (long long)blockIdx.x * (BX * BY) + threadIdx.x;
    const long long plane = (long long)W * H;
    if (t >= plane * CHANNELS) {
        return;
    }
    const int c = (int)(t / plane);
    const long long r = t - c * plane;
    const int y = (int)(r / W);
    const int x = (int)(r - (long long)y * W);
    const float s = tap_sum(in, x, y, c, W, H, S);
#if OUT_PLANAR
    out[t] = s;
#else
    out[((idx_t)y * W + x) * CHANNELS + c] = s;
#endif
}

#endif

#if STRATEGY == 3
// ch_conv_arrays reads three single-plane inputs (row stride S) and writes
// three packed float planes; border.cuh's planar addressing with c = 0
// addresses one plane.
extern "C" __global__ void __launch_bounds__(BX * BY)
ch_conv_arrays(const in_t* __restrict__ in0, const in_t* __restrict__ in1, const in_t* __restrict__ in2,
               float* __restrict__ out0, float* __restrict__ out1, float* __restrict__ out2,
               int W, int H, idx_t S)
{
    const int x = blockIdx.x * BX + threadIdx.x;
    const int y = blockIdx.y * BY + threadIdx.y;
    if (x >= W || y >= H) {
        return;
    }
    const idx_t o = (idx_t)y * W + x;
    out0[o] = tap_sum(in0, x, y, 0, W, H, S);
    out1[o] = tap_sum(in1, x, y, 0, W, H, S);
    out2[o] = tap_sum(in2, x, y, 0, W, H, S);
}
#endif

// ch_deinterleave splits an interleaved 3-channel input (row stride S
// elements) into three packed planes of the same element type.
extern "C" __global__ void __launch_bounds__(BX * BY)
ch_deinterleave(const in_t* __restrict__ in, in_t* __restrict__ p0, in_t* __restrict__ p1, in_t* __restrict__ p2,
                int W, int H, idx_t S)
{
    const int x = blockIdx.x * BX + threadIdx.x;
    const int y = blockIdx.y * BY + threadIdx.y;
    if (x >= W || y >= H) {
        return;
    }
    const in_t* px = in + (idx_t)y * S + (idx_t)x * 3;
    const idx_t o = (idx_t)y * W + x;
    p0[o] = px[0];
    p1[o] = px[1];
    p2[o] = px[2];
}

// ch_interleave merges three packed float planes into a packed interleaved
// float image.
extern "C" __global__ void __launch_bounds__(BX * BY)
ch_interleave(const float* __restrict__ p0, const float* __restrict__ p1, const float* __restrict__ p2,
              float* __restrict__ out, int W, int H)
{
    const int x = blockIdx.x * BX + threadIdx.x;
    const int y = blockIdx.y * BY + threadIdx.y;
    if (x >= W || y >= H) {
        return;
    }
    const idx_t o = (idx_t)y * W + x;
    float* px = out + o * 3;
    px[0] = p0[o];
    px[1] = p1[o];
    px[2] = p2[o];
}
