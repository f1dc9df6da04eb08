// separable.cu: the two-pass convolution of reports 001 and 004 for rank-1
// filters w(i,j) = col[j]*row[i]: a row pass then a column pass through a
// float32 intermediate, each in a naive and a shared-memory version.
//
// Memory strategy: the row factor (c_row, KW floats) and the column factor
// (c_col, KH floats) live in constant memory. The row pass reads the input
// with the border applied along x and writes tmp, a packed float plane per
// channel (plane c starts at c*W*H); the column pass reads tmp with the
// border applied along y and writes the output. Since the border mapping
// of each axis is independent, this equals the 2-D convolution with the
// border applied to both coordinates. Work per pixel falls from KW*KH to
// KW+KH multiply-adds, at the price of one extra float write and read of
// the image. Summation order differs from the direct kernels: the result is
// within convolve.Tolerance of the reference, not bit-equal to cpu-naive.
//
// Naive passes (sep_rows, sep_cols): one thread per pixel reading global
// memory. Shared passes (sep_rows_shared, sep_cols_shared): the block loads
// a BY x TILE_W or TILE_H x BX tile into dynamic shared memory (TILE_W =
// BX+KW-1 and TILE_H = BY+KH-1, tile.cuh's shape), border applied along the
// pass's axis at load, then sums from it.
//
// Unrolling (unroll.cuh): the shared passes read their taps from the tile
// and unroll them completely; the naive passes map every tap through the
// border and unroll completely up to 49 taps, else by 8.
//
// Compile-time: KW, KH, BX, BY plus the parameters of border.cuh.
#include "tile.cuh"
#include "unroll.cuh"

__constant__ float c_row[KW];
__constant__ float c_col[KH];

extern "C" __global__ void __launch_bounds__(BX * BY)
sep_rows(const in_t* __restrict__ in, float* __restrict__ tmp, int W, int H, idx_t S)
{
    const int x = blockIdx.x * BX + threadIdx.x;
    const int y = blockIdx.y * BY + threadIdx.y;
    const int c = blockIdx.z;
    if (x >= W || y >= H) {
        return;
    }
    float s = 0.f;
#pragma unroll UNROLL_BORDER_LINE(KW)
    for (int i = 0; i < KW; ++i) {
        const int bx = border_index(x + i - KW / 2, W);
#if BORDER == BORDER_ZERO
        const float v = bx < 0 ? 0.f : (float)in[in_offset(bx, y, c, H, S)];
#else
        const float v = (float)in[in_offset(bx, y, c, H, S)];
#endif
        s += c_row[i] * v;
    }
    tmp[((idx_t)c * H + y) * W + x] = s;
}

extern "C" __global__ void __launch_bounds__(BX * BY)
sep_cols(const float* __restrict__ tmp, float* __restrict__ out, int W, int H)
{
    const int x = blockIdx.x * BX + threadIdx.x;
    const int y = blockIdx.y * BY + threadIdx.y;
    const int c = blockIdx.z;
    if (x >= W || y >= H) {
        return;
    }
    const float* plane = tmp + (idx_t)c * H * W;
    float s = 0.f;
#pragma unroll UNROLL_BORDER_LINE(KH)
    for (int j = 0; j < KH; ++j) {
        const int by = border_index(y + j - KH / 2, H);
#if BORDER == BORDER_ZERO
        const float v = by < 0 ? 0.f : plane[(idx_t)by * W + x];
#else
        const float v = plane[(idx_t)by * W + x];
#endif
        s += c_col[j] * v;
    }
    out[out_offset(x, y, c, W, H)] = s;
}

extern "C" __global__ void __launch_bounds__(BX * BY)
sep_rows_shared(const in_t* __restrict__ in, float* __restrict__ tmp, int W, int H, idx_t S)
{
    extern __shared__ float tile[]; // BY rows of TILE_W
    const int c = blockIdx.z;
    const int x0 = blockIdx.x * BX - KW / 2;
    const int y = blockIdx.y * BY + threadIdx.y;
    if (y < H) {
        for (int tx = threadIdx.x; tx < TILE_W; tx += BX) {
            const int bx = border_index(x0 + tx, W);
#if BORDER == BORDER_ZERO
            tile[threadIdx.y * TILE_W + tx] = bx < 0 ? 0.f : (float)in[in_offset(bx, y, c, H, S)];
#else
            tile[threadIdx.y * TILE_W + tx] = (float)in[in_offset(bx, y, c, H, S)];
#endif
        }
    }
    __syncthreads();
    const int x = blockIdx.x * BX + threadIdx.x;
    if (x >= W || y >= H) {
        return;
    }
    const float* t = tile + threadIdx.y * TILE_W + threadIdx.x;
    float s = 0.f;
#pragma unroll UNROLL_LINE(KW)
    for (int i = 0; i < KW; ++i) {
        s += c_row[i] * t[i];
    }
    tmp[((idx_t)c * H + y) * W + x] = s;
}

extern "C" __global__ void __launch_bounds__(BX * BY)
sep_cols_shared(const float* __restrict__ tmp, float* __restrict__ out, int W, int H)
{
    extern __shared__ float tile[]; // TILE_H rows of BX
    const int c = blockIdx.z;
    const float* plane = tmp + (idx_t)c * H * W;
    const int x = blockIdx.x * BX + threadIdx.x;
    const int y0 = blockIdx.y * BY - KH / 2;
    if (x < W) {
        for (int ty = threadIdx.y; ty < TILE_H; ty += BY) {
            const int by = border_index(y0 + ty, H);
#if BORDER == BORDER_ZERO
            tile[ty * BX + threadIdx.x] = by < 0 ? 0.f : plane[(idx_t)by * W + x];
#else
            tile[ty * BX + threadIdx.x] = plane[(idx_t)by * W + x];
#endif
        }
    }
    __syncthreads();
    const int y = blockIdx.y * BY + threadIdx.y;
    if (x >= W || y >= H) {
        return;
    }
    const float* t = tile + threadIdx.y * BX + threadIdx.x;
    float s = 0.f;
#pragma unroll UNROLL_LINE(KH)
    for (int j = 0; j < KH; ++j) {
        s += c_col[j] * t[j * BX];
    }
    out[out_offset(x, y, c, W, H)] = s;
}
