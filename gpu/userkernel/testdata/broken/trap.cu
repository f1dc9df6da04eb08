// convbench:kernel
// summary: deliberately broken: __trap() in every launch
// entry: trap_conv
// types: f32
//
// trap.cu: a broken kernel of the faults stage (scripts/gpu-run.sh faults).
// It computes the direct convolution of examples/kernels/direct.cu, then
// the thread of pixel (0, 0) executes __trap(): every launch ends with
// CUDA_ERROR_LAUNCH_FAILED, a sticky error after which the process
// cannot use the device again. The benchmarks must refuse it as a crash,
// in a run of the property suite of its own, without disturbing the
// other kernels of the sweep.
//
// expect refusal: refused: crash: failed the property suite
// expect refusal: CUDA_ERROR_LAUNCH_FAILED
#include "border.cuh"

extern "C" __global__ void __launch_bounds__(BX * BY)
trap_conv(const in_t* __restrict__ in, const float* __restrict__ filter, float* __restrict__ out,
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
    if (x == 0 && y == 0) {
        __trap(); // the fault
    }
}
