// fft.cu: the device passes of gpu-fft, convolution through cuFFT's
// real transforms by overlap-save over tiles of TX x TY points, powers of
// two.
//
// The bordered image is the image extended by the filter's reach (KW/2
// columns left, KW-1-KW/2 right, KH/2 rows up, KH-1-KH/2 down) and read
// through the border mapping (read_px). Tile (gx, gy) of a channel holds
// the bordered points (gx*SX + u, gy*SY + v), 0 <= u < TX, 0 <= v < TY,
// zero past the bordered image, with SX = TX-KW+1 and SY = TY-KH+1: its
// circular correlation with the filter at (lx, ly), lx < SX and ly < SY,
// never wraps, and is the output (gx*SX + lx, gy*SY + ly). There are GX x
// GY tiles per channel, enough to cover W x H outputs; a tile as large as
// the whole bordered image is the one-tile case.
//
// Memory strategy: one float buffer of CHANNELS*GY*GX tiles (tile
// (c, gy, gx) at ((c*GY + gy)*GX + gx)*TX*TY, rows of TX) holds the
// tiles on the way in and the correlations on the way out; cuFFT's
// batched R2C writes their spectra, TY x (TX/2+1) complex values each,
// into a second buffer, the pointwise product overwrites them, and
// cuFFT's C2R turns them back into the first buffer. A run is:
//
//   fft_absmax         the largest |pixel| of each channel (amax, zeroed
//                      before), as float bits through atomicMax
//   fft_fill           every point of every tile, scaled by 2^-e with
//                      amax[c] = f * 2^e, 0.5 <= f < 1
//   (cuFFT R2C)
//   fft_multiply       each tile's spectrum times the filter's
//   (cuFFT C2R)
//   fft_crop           each output from its tile, scaled back by
//                      2^(e + ew); a block's outputs lie in one tile
//
// The filter's spectrum is made once per plan: fft_place_filter puts the
// weights, oriented for correlation and scaled by 2^-ew into [0.5, 1) in
// magnitude, at the negated indices modulo TX and TY in the first tile
// (so that the product of spectra is a correlation) and zeros elsewhere,
// the forward transform follows, and fft_scale_spectrum keeps the first
// tile's spectrum times 1/(TX*TY), which makes the unnormalised inverse
// exact in scale. Scaling by powers of two is exact in binary floating
// point away from overflow and underflow, so the result is 2^(e+ew) times
// the FFT convolution of operands of magnitude below 1, whose
// intermediates can neither overflow nor underflow: the FFT32 error bound
// of the unscaled problem holds, and images near the float32 limits (or
// subnormal) come out as a direct sum's do.
//
// Tile offsets are 64-bit (the tiles can pass 2^31 points before the
// image does); the output uses idx_t as every family does.
//
// Compile-time: KW, KH, BX, BY plus the parameters of border.cuh.
#include "border.cuh"

// fft_exponent is e with m = f * 2^e, 0.5 <= f < 1 (0 for m = 0).
__device__ __forceinline__ int fft_exponent(unsigned int bits)
{
    int e;
    frexpf(__uint_as_float(bits), &e);
    return e;
}

// fft_normal reports whether x is a normal number, an infinity or a NaN
// (its exponent field is not 0), read from its bits so that no
// flush-to-zero mode changes the answer.
__device__ __forceinline__ bool fft_normal(float x)
{
    return (__float_as_uint(x) & 0x7f800000u) != 0u;
}

// fft_ldexp is x * 2^k, rounded once, as scalbnf gives it. Where 2^k is a
// normal float and neither x nor the product is subnormal the product
// with 2^k is exact and is returned (a multiply against scalbnf's
// dozens of instructions, and the same in any flush-to-zero mode); zero
// stays zero with its sign; anything else goes to scalbnf.
__device__ __forceinline__ float fft_ldexp(float x, int k)
{
    if (k >= -126 && k <= 127) {
        const float r = x * __uint_as_float((unsigned int)(k + 127) << 23);
        if ((__float_as_uint(x) << 1) == 0u || (fft_normal(x) && fft_normal(r))) {
            return r;
        }
    }
    return scalbnf(x, k);
}

// fft_log2 is log2 of n, a power of two.
__device__ __forceinline__ int fft_log2(int n)
{
    return __ffs(n) - 1;
}

// fft_absmax: blocks of 256 threads, blockIdx.z the channel; each block
// strides over the channel's rows from blockIdx.y by gridDim.y and over
// their columns from blockIdx.x*256 by gridDim.x*256, and adds its
// maximum with one atomic.
extern "C" __global__ void __launch_bounds__(256)
fft_absmax(const in_t* __restrict__ in, unsigned int* __restrict__ amax, int W, int H, idx_t S)
{
    __shared__ float part[256];
    const int c = blockIdx.z;
    float m = 0.f;
#pragma unroll 4
    for (int y = blockIdx.y; y < H; y += gridDim.y) {
        for (int x = blockIdx.x * 256 + threadIdx.x; x < W; x += gridDim.x * 256) {
            m = fmaxf(m, fabsf((float)in[in_offset(x, y, c, H, S)]));
        }
    }
    part[threadIdx.x] = m;
    __syncthreads();
    for (int k = 128; k > 0; k >>= 1) {
        if (threadIdx.x < k) {
            part[threadIdx.x] = fmaxf(part[threadIdx.x], part[threadIdx.x + k]);
        }
        __syncthreads();
    }
    if (threadIdx.x == 0) {
        // Non-negative floats order as their bit patterns do.
        atomicMax(amax + c, __float_as_uint(part[0]));
    }
}

// fft_tile_offset is the element offset of point (u, v) of tile
// (c, gy, gx), tiles of 2^LTX x 2^LTY points.
__device__ __forceinline__ long long fft_tile_offset(int c, int gx, int gy, int u, int v, int LTX, int LTY, int GX, int GY)
{
    return ((((long long)c * GY + gy) * GX + gx) << (LTX + LTY)) + ((long long)v << LTX) + u;
}

// fft_fill: a grid over GX*TX x GY*TY points, blockIdx.z the channel.
extern "C" __global__ void __launch_bounds__(BX * BY)
fft_fill(const in_t* __restrict__ in, float* __restrict__ pad, const unsigned int* __restrict__ amax,
         int W, int H, idx_t S, int TX, int TY, int GX, int GY)
{
    const int U = blockIdx.x * BX + threadIdx.x;
    const int V = blockIdx.y * BY + threadIdx.y;
    const int c = blockIdx.z;
    if (U >= GX * TX || V >= GY * TY) {
        return;
    }
    const int ltx = fft_log2(TX), lty = fft_log2(TY);
    const int gx = U >> ltx, u = U & (TX - 1);
    const int gy = V >> lty, v = V & (TY - 1);
    const int bu = gx * (TX - KW + 1) + u; // bordered coordinates
    const int bv = gy * (TY - KH + 1) + v;
    float val = 0.f;
    if (bu < W + KW - 1 && bv < H + KH - 1) {
        val = fft_ldexp(read_px(in, bu - KW / 2, bv - KH / 2, c, W, H, S), -fft_exponent(amax[c]));
    }
    pad[fft_tile_offset(c, gx, gy, u, v, ltx, lty, GX, GY)] = val;
}

// fft_place_filter writes every point of every tile, on fft_fill's grid:
// the filter in the first tile, zeros elsewhere. w holds the KW x KH
// weights row-major, oriented for correlation and already scaled.
extern "C" __global__ void __launch_bounds__(BX * BY)
fft_place_filter(const float* __restrict__ w, float* __restrict__ pad, int TX, int TY, int GX, int GY)
{
    const int U = blockIdx.x * BX + threadIdx.x;
    const int V = blockIdx.y * BY + threadIdx.y;
    const int c = blockIdx.z;
    if (U >= GX * TX || V >= GY * TY) {
        return;
    }
    const int ltx = fft_log2(TX), lty = fft_log2(TY);
    const int gx = U >> ltx, u = U & (TX - 1);
    const int gy = V >> lty, v = V & (TY - 1);
    const int i = (TX - u) & (TX - 1);
    const int j = (TY - v) & (TY - 1);
    float val = 0.f;
    if (c == 0 && gx == 0 && gy == 0 && i < KW && j < KH) {
        val = w[j * KW + i];
    }
    pad[fft_tile_offset(c, gx, gy, u, v, ltx, lty, GX, GY)] = val;
}

// fft_scale_spectrum: dst[k] = src[k] * scale for the n complex values of
// the first tile; blocks of 256 threads.
extern "C" __global__ void __launch_bounds__(256)
fft_scale_spectrum(const float2* __restrict__ src, float2* __restrict__ dst, long long n, float scale)
{
    const long long k = (long long)blockIdx.x * 256 + threadIdx.x;
    if (k >= n) {
        return;
    }
    const float2 s = src[k];
    dst[k] = make_float2(s.x * scale, s.y * scale);
}

// fft_multiply: spec[t][k] *= filt[k] for the n complex values of each of
// the tiles t < tiles; blocks of 256 threads, each thread striding over
// the tiles from blockIdx.y by gridDim.y.
extern "C" __global__ void __launch_bounds__(256)
fft_multiply(float2* __restrict__ spec, const float2* __restrict__ filt, long long n, long long tiles)
{
    const long long k = (long long)blockIdx.x * 256 + threadIdx.x;
    if (k >= n) {
        return;
    }
    const float2 b = filt[k];
    for (long long t = blockIdx.y; t < tiles; t += gridDim.y) {
        float2* p = spec + t * n + k;
        const float2 a = *p;
        *p = make_float2(a.x * b.x - a.y * b.y, a.x * b.y + a.y * b.x);
    }
}

// fft_crop: one thread per output, blockIdx.z the channel. The grid is
// GX*NBX x GY*NBY blocks: NBX blocks across each tile's SX outputs and
// NBY down its SY, so that a block's tile (gx, gy) comes from blockIdx
// alone, and its threads past the tile's outputs or the image do nothing.
extern "C" __global__ void __launch_bounds__(BX * BY)
fft_crop(const float* __restrict__ pad, float* __restrict__ out, const unsigned int* __restrict__ amax,
         int W, int H, int TX, int TY, int GX, int GY, int ew, int NBX, int NBY)
{
    const int gx = blockIdx.x / NBX, gy = blockIdx.y / NBY;
    const int lx = (blockIdx.x - gx * NBX) * BX + threadIdx.x;
    const int ly = (blockIdx.y - gy * NBY) * BY + threadIdx.y;
    const int c = blockIdx.z;
    const int sx = TX - KW + 1, sy = TY - KH + 1;
    const int x = gx * sx + lx, y = gy * sy + ly;
    if (lx >= sx || ly >= sy || x >= W || y >= H) {
        return;
    }
    const float v = pad[fft_tile_offset(c, gx, gy, lx, ly, fft_log2(TX), fft_log2(TY), GX, GY)];
    out[out_offset(x, y, c, W, H)] = fft_ldexp(v, fft_exponent(amax[c]) + ew);
}
