// shared_rows.cu: report 002's "constant and shared, row wise" kernel: the
// shared-memory tiling of shared.cu with a different tile copy.
//
// Memory strategy: instead of sliding the 2-D thread block over the
// (BX+KW-1) x (BY+KH-1) input tile, the block's threads are regrouped into
// groups of 32 (one warp each, or the whole block when it is smaller), and
// each group copies whole tile rows, 32 consecutive elements per step, so
// every global read of the copy is one coalesced row segment whatever the
// block shape (tile.cuh's tile_load_rows). The compute is as in shared.cu: constant-memory filter,
// unrolled taps from shared memory, reference summation order.
//
// Dynamic shared memory: (BX+KW-1)*(BY+KH-1)*4 bytes.
//
// Compile-time: KW, KH, BX, BY plus the parameters of border.cuh.
#include "tile.cuh"
#include "unroll.cuh"

__constant__ float c_filter[KW * KH];

extern "C" __global__ void __launch_bounds__(BX * BY)
conv_shared_rows(const in_t* __restrict__ in, float* __restrict__ out, int W, int H, idx_t S)
{
    extern __shared__ float tile[];
    const int c = blockIdx.z;
    tile_load_rows<global_src>(tile, in, c, W, H, S);
    __syncthreads();

    const int x = blockIdx.x * BX + threadIdx.x;
    const int y = blockIdx.y * BY + threadIdx.y;
    if (x >= W || y >= H) {
        return;
    }
    const float* tp = tile + threadIdx.y * TILE_W + threadIdx.x;
    float s = 0.f;
#pragma unroll UNROLL_ROWS
    for (int j = 0; j < KH; ++j) {
#pragma unroll UNROLL_COLS
        for (int i = 0; i < KW; ++i) {
            s += c_filter[j * KW + i] * tp[j * TILE_W + i];
        }
    }
    out[out_offset(x, y, c, W, H)] = s;
}
