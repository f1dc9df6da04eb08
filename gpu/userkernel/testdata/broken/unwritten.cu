// convbench:kernel
// summary: deliberately broken: leaves the bottom-right output pixel unwritten
// entry: unwritten_conv
// types: f32
//
// unwritten.cu: a broken kernel of the faults stage (scripts/gpu-run.sh
// faults). It computes the direct convolution of examples/kernels/direct.cu,
// but the thread of the bottom-right pixel returns early without writing
// it, in every channel. Nothing faults: the output element keeps the
// poison the property suite fills the output with, and the suite must
// fail the kernel for wrong results (an element not written), not as a
// crash or a hang.
//
// expect refusal: refused: failed the property suite (property agreement)
// expect refusal: not written
#include "border.cuh"

extern "C" __global__ void __launch_bounds__(BX * BY)
unwritten_conv(const in_t* __restrict__ in, const float* __restrict__ filter, float* __restrict__ out,
               int W, int H, idx_t S)
{
    const int x = blockIdx.x * BX + threadIdx.x;
    const int y = blockIdx.y * BY + threadIdx.y;
    const int c = blockIdx.z;
    if (x >= W || y >= H) {
        return;
    }
    if (x == W - 1 && y == H - 1) {
        return; // the fault: this output element is never written
    }
    float s = 0.f;
    for (int j = 0; j < KH; ++j) {
        for (int i = 0; i < KW; ++i) {
            s += filter[j * KW + i] * read_px(in, x + i - KW / 2, y + j - KH / 2, c, W, H, S);
        }
    }
    out[out_offset(x, y, c, W, H)] = s;
}
