// convbench:kernel
// summary: deliberately broken: a store 4 TiB past the output (an illegal address)
// entry: oob_conv
// types: f32
//
// oob.cu: a broken kernel of the faults stage (scripts/gpu-run.sh faults).
// It computes the direct convolution of examples/kernels/direct.cu, but
// the thread of pixel (0, 0) of channel 0 also stores its sum 2^40
// floats (4 TiB) past the output, far outside any allocation: every
// launch faults with CUDA_ERROR_ILLEGAL_ADDRESS, a sticky error after
// which the process cannot use the device again. The benchmarks must
// refuse it as a crash, in a run of the property suite of its own,
// without disturbing the other kernels of the sweep.
//
// The faults stage checks the refusal of each broken kernel against the
// "expect refusal" lines (each text must appear in it):
//
// expect refusal: refused: crash: failed the property suite
// expect refusal: CUDA_ERROR_ILLEGAL_ADDRESS
#include "border.cuh"

extern "C" __global__ void __launch_bounds__(BX * BY)
oob_conv(const in_t* __restrict__ in, const float* __restrict__ filter, float* __restrict__ out,
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
    if (x == 0 && y == 0 && c == 0) {
        out[(long long)out_offset(x, y, c, W, H) + (1LL << 40)] = s; // the fault
    }
}
