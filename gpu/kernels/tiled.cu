// tiled.cu: the framework's own direct kernel (no report): a shared-memory
// tile with register blocking, filter in constant memory.
//
// Memory strategy: a BX x BY block computes a BX x (BY*RY) output tile;
// each thread owns RY outputs stacked vertically (rows ty*RY .. ty*RY+RY-1
// of the tile). The (BX+KW-1) x (BY*RY+KH-1) input tile is loaded into
// dynamic shared memory once, converted to float, with the border applied
// at load; blocks whose tile lies wholly inside the image take a load path
// with no border mapping at all (tile.cuh's tile_load_global). In the
// compute each thread walks the RY+KH-1 tile rows its outputs need; every
// value read from shared memory (one per tap column) feeds all RY outputs
// whose filter row covers it, so shared-memory traffic per output falls
// from KW*KH to about
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
#ifndef RY
#define RY 4
#endif

#include "tile.cuh"
#include "unroll.cuh"

// The row walk. Tile row t (0 <= t < RY+KH-1) feeds output r through
// filter row j = t - r where 0 <= j < KH. The rows RY-1 <= t <= KH-1 (the
// body) feed all RY outputs; the first RY-1 rows (the head) and the rows
// after the body (the tail) feed only some. Head and tail are unrolled
// completely, so their tests of j fold away; the body needs none, and is
// unrolled as unroll.cuh's UNROLL_WALK says. Rows are taken in increasing
// t either way, each row's columns as UNROLL_COLS says.
#define TILED_ROWS (RY + KH - 1)
#define TILED_BODY_END (KH > RY - 1 ? KH : RY - 1)

__constant__ float c_filter[KW * KH];

// tiled_row adds tile row t (row points at its first tap column) to the
// outputs it feeds; ALL says it feeds every one, so no test is needed.
template <bool ALL>
__device__ __forceinline__ void tiled_row(float (&s)[RY], const float* row, int t)
{
#pragma unroll UNROLL_COLS
    for (int i = 0; i < KW; ++i) {
        const float v = row[i];
#pragma unroll
        for (int r = 0; r < RY; ++r) {
            const int j = t - r;
            if (ALL || (j >= 0 && j < KH)) {
                s[r] += c_filter[j * KW + i] * v;
            }
        }
    }
}

extern "C" __global__ void __launch_bounds__(BX * BY)
conv_tiled(const in_t* __restrict__ in, float* __restrict__ out, int W, int H, idx_t S)
{
    extern __shared__ float tile[];
    const int c = blockIdx.z;
    tile_load_global(tile, in, c, W, H, S);
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
#pragma unroll
    for (int t = 0; t < RY - 1; ++t) {
        tiled_row<false>(s, tp + t * TILE_W, t);
    }
#pragma unroll UNROLL_WALK
    for (int t = RY - 1; t < TILED_BODY_END; ++t) {
        tiled_row<true>(s, tp + t * TILE_W, t);
    }
#pragma unroll
    for (int t = TILED_BODY_END; t < TILED_ROWS; ++t) {
        tiled_row<false>(s, tp + t * TILE_W, t);
    }
#pragma unroll
    for (int r = 0; r < RY; ++r) {
        if (ybase + r < H) {
            out[out_offset(x, ybase + r, c, W, H)] = s[r];
        }
    }
}
