// tiled.cu: the framework's own direct kernel (no report): a shared-memory
// tile with register blocking, filter in constant memory.
//
// Memory strategy: a BX x BY block computes a BX x (BY*RY) output tile;
// each thread owns RY outputs stacked vertically (rows ty*RY .. ty*RY+RY-1
// of the tile). The (BX+KW-1) x (BY*RY+KH-1) input tile is loaded into
// dynamic shared memory once, converted to float, with the border applied
// at load; blocks whose tile lies wholly inside the image take a load path
// with no border mapping at all. In the compute each thread walks the
// RY+KH-1 tile rows its outputs need; every value read from shared memory
// (one per tap column) feeds all RY outputs whose filter row covers it, so
// shared-memory traffic per output falls from KW*KH to about
// KW*(RY+KH-1)/RY loads, and the weights are constant-bank operands of the
// multiply-adds. For small filters the kernel is bound by DRAM (one read
// of the input plus one write of the output, halo re-reads hit L2); for
// large ones by FP32 throughput.
//
// Summation order: output r accumulates tile row t = r + j for increasing
// t, that is filter rows j in increasing order, columns i in increasing
// order within a row: the reference order. With --fmad=false the output
// equals the CPU naive baseline bit for bit.
//
// Dynamic shared memory: (BX+KW-1)*(BY*RY+KH-1)*4 bytes.
//
// Compile-time: KW, KH, BX, BY, RY plus the parameters of border.cuh.
#include "border.cuh"

#ifndef RY
#define RY 4
#endif

#define TILE_W (BX + KW - 1)
#define TILE_H (BY * RY + KH - 1)

// Full unrolling of the row walk while the unrolled body stays small
// (tiledUnrollLimit in tiled.go). Past it the filter-row tests of the
// inner loop run at run time and the kernel is about 4x slower (31x31 on
// an H100), which is why the default RY is chosen to stay under it.
#if (RY + KH - 1) * KW * RY <= 4096
#define TILED_UNROLL_ROWS (RY + KH - 1)
#else
#define TILED_UNROLL_ROWS 1
#endif
#if KW <= 64
#define TILED_UNROLL_COLS KW
#else
#define TILED_UNROLL_COLS 8
#endif

__constant__ float c_filter[KW * KH];

extern "C" __global__ void __launch_bounds__(BX * BY)
conv_tiled(const in_t* __restrict__ in, float* __restrict__ out, int W, int H, idx_t S)
{
    extern __shared__ float tile[];
    const int c = blockIdx.z;
    const int x0 = blockIdx.x * BX - KW / 2;
    const int y0 = blockIdx.y * (BY * RY) - KH / 2;

    if (x0 >= 0 && y0 >= 0 && x0 + TILE_W <= W && y0 + TILE_H <= H) {
        // Interior tile: plain coalesced loads.
        for (int ty = threadIdx.y; ty < TILE_H; ty += BY) {
            const in_t* row = in + in_offset(x0, y0 + ty, c, H, S);
            for (int tx = threadIdx.x; tx < TILE_W; tx += BX) {
#if PLANAR
                tile[ty * TILE_W + tx] = (float)row[tx];
#else
                tile[ty * TILE_W + tx] = (float)row[tx * CHANNELS];
#endif
            }
        }
    } else {
        for (int ty = threadIdx.y; ty < TILE_H; ty += BY) {
            for (int tx = threadIdx.x; tx < TILE_W; tx += BX) {
                tile[ty * TILE_W + tx] = read_px(in, x0 + tx, y0 + ty, c, W, H, S);
            }
        }
    }
    __syncthreads();

    const int x = blockIdx.x * BX + threadIdx.x;
    const int ybase = blockIdx.y * (BY * RY) + threadIdx.y * RY;
    if (x >= W || ybase >= H) {
        return;
    }
    float s[RY];
#pragma unroll
    for (int r = 0; r < RY; ++r) {
        s[r] = 0.f;
    }
    const float* tp = tile + (threadIdx.y * RY) * TILE_W + threadIdx.x;
#pragma unroll TILED_UNROLL_ROWS
    for (int t = 0; t < RY + KH - 1; ++t) {
#pragma unroll TILED_UNROLL_COLS
        for (int i = 0; i < KW; ++i) {
            const float v = tp[t * TILE_W + i];
#pragma unroll
            for (int r = 0; r < RY; ++r) {
                const int j = t - r;
                if (j >= 0 && j < KH) {
                    s[r] += c_filter[j * KW + i] * v;
                }
            }
        }
    }
#pragma unroll
    for (int r = 0; r < RY; ++r) {
        if (ybase + r < H) {
            out[out_offset(x, ybase + r, c, W, H)] = s[r];
        }
    }
}
