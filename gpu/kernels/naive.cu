// naive.cu: report 000's V1 kernel (and report 002's "naive without
// padding"): one thread per output pixel, filter and image both read from
// global memory, the border applied to every tap.
//
// Memory strategy: no reuse beyond what the L1/L2 caches find on their
// own; each thread reads KW*KH pixels and KW*KH weights from global memory.
// The taps are summed in the reference order (row j outer, column i inner,
// zero-border taps added as w*0), so with --fmad=false the output equals the
// CPU naive baseline bit for bit.
//
// Compile-time: KW, KH, BX, BY plus the parameters of border.cuh.
#include "border.cuh"

extern "C" __global__ void __launch_bounds__(BX * BY)
conv_naive(const in_t* __restrict__ in, const float* __restrict__ filter, float* __restrict__ out,
           int W, int H, idx_t S)
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
            s += filter[j * KW + i] * read_px(in, x + i - KW / 2, y + j - KH / 2, c, W, H, S);
        }
    }
    out[out_offset(x, y, c, W, H)] = s;
}
