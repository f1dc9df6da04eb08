// offbyone.cu: direct.cu with a deliberate bug, for the refusal path: the
// taps are read one pixel to the right (x + i - KW/2 + 1), so the output
// is shifted and the property suite must fail it. Its description is the
// sidecar file offbyone.kernel beside it.
#include "border.cuh"

extern "C" __global__ void __launch_bounds__(BX * BY)
offbyone_conv(const in_t* __restrict__ in, const float* __restrict__ filter, float* __restrict__ out,
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
            s += filter[j * KW + i] * read_px(in, x + i - KW / 2 + 1, y + j - KH / 2, c, W, H, S);
        }
    }
    out[out_offset(x, y, c, W, H)] = s;
}
