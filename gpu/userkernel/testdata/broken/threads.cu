// convbench:kernel
// summary: deliberately broken: launched with more threads per block than it allows
// entry: threads_conv
// types: f32
// blocks: 16x16
//
// threads.cu: a broken kernel of the faults stage (scripts/gpu-run.sh
// faults). It computes the direct convolution of examples/kernels/direct.cu,
// but is compiled with __launch_bounds__(64), at most 64 threads a block,
// while its description gives it blocks of 16x16, 256 threads: the
// driver refuses every launch with CUDA_ERROR_INVALID_VALUE. That error is
// not sticky: the benchmarks must refuse the kernel as failing the
// property suite, not as a crash, in a run of the suite of its own.
//
// expect refusal: refused: failed the property suite
// expect refusal: CUDA_ERROR_INVALID_VALUE
#include "border.cuh"

extern "C" __global__ void __launch_bounds__(64) // the fault: the block has BX * BY = 256 threads
threads_conv(const in_t* __restrict__ in, const float* __restrict__ filter, float* __restrict__ out,
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
