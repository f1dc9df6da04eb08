// shared.cu: report 000's V2 kernel (report 002's "constant and shared"):
// shared-memory tiling with the filter in constant memory.
//
// Memory strategy: the block's BX x BY output tile needs a
// (BX+KW-1) x (BY+KH-1) input tile (the halo is KW/2 and KH/2 wide on each
// side). The threads load it cooperatively into dynamic shared memory by
// sliding the BX x BY block over it (tile.cuh's tile_load), converting to
// float and applying the border at load time, so the compute loop has no
// bounds checks. After a
// barrier each thread sums its KW*KH taps from shared memory against the
// constant-memory filter (c_filter), loops unrolled at compile time
// (unroll.cuh). Each input pixel is read from global memory about
// (BX+KW-1)(BY+KH-1)/(BX*BY) times instead of KW*KH times. The summation
// order is the reference's, so --fmad=false gives the CPU naive result.
//
// Dynamic shared memory: (BX+KW-1)*(BY+KH-1)*4 bytes, sized and, past
// 48 KB, opted in at plan time.
//
// Compile-time: KW, KH, BX, BY plus the parameters of border.cuh.
#include "tile.cuh"
#include "unroll.cuh"

__constant__ float c_filter[KW * KH];

extern "C" __global__ void __launch_bounds__(BX * BY)
conv_shared(const in_t* __restrict__ in, float* __restrict__ out, int W, int H, idx_t S)
{
    extern __shared__ float tile[];
    const int c = blockIdx.z;
    tile_load<global_src>(tile, in, c, W, H, S);
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
