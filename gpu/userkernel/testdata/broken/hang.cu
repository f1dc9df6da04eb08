// convbench:kernel
// summary: deliberately broken: never returns (stores its output forever)
// entry: hang_conv
// types: f32
//
// hang.cu: a broken kernel of the faults stage (scripts/gpu-run.sh faults).
// It computes the direct convolution of examples/kernels/direct.cu, then
// every thread stores its sum through a volatile pointer in a loop that
// never ends (a volatile store cannot be optimized away), so no launch
// ever completes; a data-centre GPU has no display watchdog to end it.
// The benchmarks must refuse it as a hang: its run of the property suite
// is killed after -prove-timeout, and the other kernels of the sweep run
// on.
//
// expect refusal: refused: hang: the property suite was still running after
// expect refusal: (-prove-timeout)
#include "border.cuh"

extern "C" __global__ void __launch_bounds__(BX * BY)
hang_conv(const in_t* __restrict__ in, const float* __restrict__ filter, float* __restrict__ out,
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
    volatile float* o = out + out_offset(x, y, c, W, H);
    for (;;) {
        *o = s; // the fault: the loop never ends
    }
}
