// convbench:kernel
// summary: deliberately broken: asks for more shared memory than a block may have
// entry: shared_conv
// types: f32
// shared: tile
// max-filter: 31
// blocks: 16x16
//
// shared.cu: a broken kernel of the faults stage (scripts/gpu-run.sh
// faults). It declares a 48 KiB static __shared__ array, all the static
// shared memory a kernel may have, and its description asks for the
// dynamic tile of "shared: tile" on top: (16+30)^2 floats, 8.3 KiB, at
// most, for its 16x16 block and filters up to 31. A plan raises a
// kernel's shared-memory limit only for a tile over 48 KiB, so such a
// launch needs more than the 48 KiB a block gets without opting in, and
// the driver refuses it with CUDA_ERROR_INVALID_VALUE. That error is not
// sticky: the benchmarks must refuse the kernel as failing the property
// suite, not as a crash, in a run of the suite of its own.
//
// expect refusal: refused: failed the property suite
// expect refusal: CUDA_ERROR_INVALID_VALUE
#include "border.cuh"

extern "C" __global__ void __launch_bounds__(BX * BY)
shared_conv(const in_t* __restrict__ in, const float* __restrict__ filter, float* __restrict__ out,
            int W, int H, idx_t S)
{
    __shared__ float staged[12 * 1024]; // 48 KiB: the fault, with the dynamic tile
    const int x = blockIdx.x * BX + threadIdx.x;
    const int y = blockIdx.y * BY + threadIdx.y;
    const int c = blockIdx.z;
    const int t = threadIdx.y * BX + threadIdx.x;
    const bool inside = x < W && y < H;
    float s = 0.f;
    if (inside) {
        for (int j = 0; j < KH; ++j) {
            for (int i = 0; i < KW; ++i) {
                s += filter[j * KW + i] * read_px(in, x + i - KW / 2, y + j - KH / 2, c, W, H, S);
            }
        }
    }
    staged[t] = s;
    __syncthreads();
    if (inside) {
        out[out_offset(x, y, c, W, H)] = staged[t];
    }
}
