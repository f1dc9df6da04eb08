// sobel.cu: report 004's fused Sobel edge magnitude, naive and tiled.
//
// Both kernels compute, per channel, gx and gy (the correlations with
// Sobel X = [-1 0 1; -2 0 2; -1 0 1] and Sobel Y = [-1 -2 -1; 0 0 0;
// 1 2 1]) and write sqrt(gx^2 + gy^2) as float32 in one pass: the two
// gradients are never stored. The weights are literals (the compiler folds
// the zeros and the factors of 2), summed in the reference's row-major
// order with the zero taps left out.
//
// Memory strategy:
//   sobel_naive   one thread per output pixel reads its 3x3 neighbourhood
//                 straight from global memory through the border mapping
//                 (9 loads per pixel; the L1/L2 caches catch most of the
//                 reuse, which is why the report's tiled version was no
//                 faster on a T4).
//   sobel_shared  the block first loads its (BX+2) x (BY+2) tile, halo and
//                 border included (tile.cuh's tile_load), into static
//                 shared memory as float,
//                 then after one barrier every thread reads its 9 values
//                 from shared memory (report 004's cooperative halo load).
//
// Compile-time: BX, BY, KW = KH = 3 plus the parameters of border.cuh;
// blockIdx.z is the channel.
#include "tile.cuh"

#if KW != 3 || KH != 3
#error "sobel.cu is a 3x3 operator: KW and KH must be 3"
#endif

__device__ __forceinline__ float sobel_mag(float p00, float p01, float p02,
                                           float p10, float p12,
                                           float p20, float p21, float p22)
{
    const float gx = -p00 + p02 - 2.f * p10 + 2.f * p12 - p20 + p22;
    const float gy = -p00 - 2.f * p01 - p02 + p20 + 2.f * p21 + p22;
    return sqrtf(gx * gx + gy * gy);
}

extern "C" __global__ void __launch_bounds__(BX * BY)
sobel_naive(const in_t* __restrict__ in, float* __restrict__ out, int W, int H, idx_t S)
{
    const int x = blockIdx.x * BX + threadIdx.x;
    const int y = blockIdx.y * BY + threadIdx.y;
    const int c = blockIdx.z;
    if (x >= W || y >= H) {
        return;
    }
    const float p00 = read_px(in, x - 1, y - 1, c, W, H, S);
    const float p01 = read_px(in, x, y - 1, c, W, H, S);
    const float p02 = read_px(in, x + 1, y - 1, c, W, H, S);
    const float p10 = read_px(in, x - 1, y, c, W, H, S);
    const float p12 = read_px(in, x + 1, y, c, W, H, S);
    const float p20 = read_px(in, x - 1, y + 1, c, W, H, S);
    const float p21 = read_px(in, x, y + 1, c, W, H, S);
    const float p22 = read_px(in, x + 1, y + 1, c, W, H, S);
    out[out_offset(x, y, c, W, H)] = sobel_mag(p00, p01, p02, p10, p12, p20, p21, p22);
}

extern "C" __global__ void __launch_bounds__(BX * BY)
sobel_shared(const in_t* __restrict__ in, float* __restrict__ out, int W, int H, idx_t S)
{
    __shared__ float tile[TILE_H * TILE_W];
    const int c = blockIdx.z;
    tile_load<global_src>(tile, in, c, W, H, S);
    __syncthreads();

    const int x = blockIdx.x * BX + threadIdx.x;
    const int y = blockIdx.y * BY + threadIdx.y;
    if (x >= W || y >= H) {
        return;
    }
    const float* t = tile + threadIdx.y * TILE_W + threadIdx.x;
    out[out_offset(x, y, c, W, H)] = sobel_mag(t[0], t[1], t[2],
                                               t[TILE_W], t[TILE_W + 2],
                                               t[2 * TILE_W], t[2 * TILE_W + 1], t[2 * TILE_W + 2]);
}
