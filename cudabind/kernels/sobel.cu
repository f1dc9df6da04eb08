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
//                 border included, into static shared memory as float,
//                 then after one barrier every thread reads its 9 values
//                 from shared memory (report 004's cooperative halo load).
//
// Compile-time: BX, BY plus the parameters of border.cuh; blockIdx.z is
// the channel.
#include "border.cuh"

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

#define SOBEL_TW (BX + 2)
#define SOBEL_TH (BY + 2)

extern "C" __global__ void __launch_bounds__(BX * BY)
sobel_shared(const in_t* __restrict__ in, float* __restrict__ out, int W, int H, idx_t S)
{
    __shared__ float tile[SOBEL_TH][SOBEL_TW];
    const int c = blockIdx.z;
    const int x0 = blockIdx.x * BX - 1;
    const int y0 = blockIdx.y * BY - 1;
    for (int ty = threadIdx.y; ty < SOBEL_TH; ty += BY) {
        for (int tx = threadIdx.x; tx < SOBEL_TW; tx += BX) {
            tile[ty][tx] = read_px(in, x0 + tx, y0 + ty, c, W, H, S);
        }
    }
    __syncthreads();

    const int x = blockIdx.x * BX + threadIdx.x;
    const int y = blockIdx.y * BY + threadIdx.y;
    if (x >= W || y >= H) {
        return;
    }
    const int tx = threadIdx.x;
    const int ty = threadIdx.y;
    out[out_offset(x, y, c, W, H)] = sobel_mag(tile[ty][tx], tile[ty][tx + 1], tile[ty][tx + 2],
                                               tile[ty + 1][tx], tile[ty + 1][tx + 2],
                                               tile[ty + 2][tx], tile[ty + 2][tx + 1], tile[ty + 2][tx + 2]);
}
