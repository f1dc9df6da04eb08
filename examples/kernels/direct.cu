// convbench:kernel
// summary: direct convolution, one thread per pixel, filter and image in global memory
// entry: direct_conv
// geometry: pixel
// types: f32, u8, i16
// borders: zero, replicate, reflect, mirror, wrap
// channels: 1, 2, 3, 4
// layouts: interleaved, planar
// block: 16x16
// order: reference
//
// direct.cu: the smallest kernel that keeps the user-kernel contract of
// package gpu/userkernel. Each thread computes one output pixel of
// one channel (blockIdx.z) by summing KW*KH taps, filter row j outer and
// column i inner, every tap multiplied and added in IEEE arithmetic (a
// zero-border tap outside the image reads 0.f and is still added): the
// order of cpu-naive, which the description declares with "order:
// reference", so the property suite holds it to bit-exactness under
// --fmad=false. It declares no finite-input: NaN and infinities flow
// through the sums as in the reference.
//
// Run the suite on it and time it beside a built-in variant, from the
// repository root:
//
//   go run ./benchmarks/cmd/sweep -kernel examples/kernels/direct.cu -variants 'user-.*|gpu-naive'
#include "border.cuh"

extern "C" __global__ void __launch_bounds__(BX * BY)
direct_conv(const in_t* __restrict__ in, const float* __restrict__ filter, float* __restrict__ out,
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
