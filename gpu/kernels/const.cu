// const.cu: report 000's V1_const kernel (report 002's "constant"): the
// naive one-thread-per-pixel kernel with the filter in __constant__ memory.
//
// Memory strategy: all threads of a warp read the same weight at the same
// step, so the constant cache broadcasts it in one transaction; the image
// is still read from global memory once per tap. The constant array holds
// exactly KW*KH floats (at most 64 KB: 16384 taps); it is uploaded once at
// plan time under the name c_filter. Same summation order as naive.cu, so
// with --fmad=false the output equals the CPU naive baseline bit for bit.
//
// Compile-time: KW, KH, BX, BY plus the parameters of border.cuh.
#include "border.cuh"

__constant__ float c_filter[KW * KH];

extern "C" __global__ void __launch_bounds__(BX * BY)
conv_const(const in_t* __restrict__ in, float* __restrict__ out, int W, int H, idx_t S)
{
    const int x = blockIdx.x * BX + threadIdx.x;
    const int y = blockIdx.y * BY + threadIdx.y;
    const int c = blockIdx.z;
    if (x >= W || y >= H) {
        return;
    }
    float s = 0.f;
    for (int j = 0; j < KH; ++j) {
        for (int i = 0; i < KW; ++i) {
            s += c_filter[j * KW + i] * read_px(in, x + i - KW / 2, y + j - KH / 2, c, W, H, S);
        }
    }
    out[out_offset(x, y, c, W, H)] = s;
}
