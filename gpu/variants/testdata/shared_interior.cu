// shared_interior.cu: shared.cu's tile with tiled.cu's load: blocks whose
// tile lies inside the image read it without any border mapping.
//
// Memory strategy: the block's (BX+KW-1) x (BY+KH-1) input tile is loaded
// into dynamic shared memory by tile.cuh's tile_load_global, then each
// thread sums its KW*KH taps from it against the constant-memory filter in
// the reference order, unrolled as unroll.cuh says.
//
// Compile-time: KW, KH, BX, BY plus the parameters of border.cuh.
#include "tile.cuh"
#include "unroll.cuh"

__constant__ float c_filter[KW * KH];

extern "C" __global__ void __launch_bounds__(BX * BY)
conv_shared_interior(const in_t* __restrict__ in, float* __restrict__ out, int W, int H, idx_t S)
{
    extern __shared__ float tile[];
    const int c = blockIdx.z;
    tile_load_global(tile, in, c, W, H, S);
    __syncthreads();

    const int x = blockIdx.x * BX + threadIdx.x;
    const int y = blockIdx.y * BY + threadIdx.y;
    if (x >= W || y >= H) {
        return;
    }
    const float* t = tile + threadIdx.y * TILE_W + threadIdx.x;
    float s = 0.f;
#pragma unroll UNROLL_ROWS
    for (int j = 0; j < KH; ++j) {
#pragma unroll UNROLL_COLS
        for (int i = 0; i < KW; ++i) {
            s += c_filter[j * KW + i] * t[j * TILE_W + i];
        }
    }
    out[out_offset(x, y, c, W, H)] = s;
}
