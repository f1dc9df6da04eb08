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
// fft_fill and fft_crop take FFT_RUN adjacent points of a row per thread,
// one 128-bit access of the tile buffer where its rows hold whole vectors.
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
// maximum with one atomic. A thread loads FFT_MAXROWS of its rows before
// it compares them, so that as many loads are in flight at once.
#define FFT_MAXROWS 4
extern "C" __global__ void __launch_bounds__(256)
fft_absmax(const in_t* __restrict__ in, unsigned int* __restrict__ amax, int W, int H, idx_t S)
{
    __shared__ float part[256];
    const int c = blockIdx.z;
    const int gy = gridDim.y;
    float m = 0.f;
    for (int y0 = blockIdx.y; y0 < H; y0 += FFT_MAXROWS * gy) {
        for (int x = blockIdx.x * 256 + threadIdx.x; x < W; x += gridDim.x * 256) {
            float v[FFT_MAXROWS];
#pragma unroll
            for (int r = 0; r < FFT_MAXROWS; ++r) {
                const int y = y0 + r * gy;
                v[r] = y < H ? fabsf((float)in[in_offset(x, y, c, H, S)]) : 0.f;
            }
#pragma unroll
            for (int r = 0; r < FFT_MAXROWS; ++r) {
                m = fmaxf(m, v[r]);
            }
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

// FFT_RUN is the points of a tile row one thread of fft_fill and
// fft_crop takes: FFT_RUN adjacent ones, a 128-bit vector of the tile
// buffer where a tile row holds whole vectors (TX >= FFT_RUN).
#define FFT_RUN 4

// fft_fill: a grid over GX*TX/FFT_RUN x GY*TY threads (rounded up to
// whole blocks), blockIdx.z the channel; the thread at (t, V) fills the
// FFT_RUN points from U = t*FFT_RUN along row V of the tiles.
extern "C" __global__ void __launch_bounds__(BX * BY)
fft_fill(const in_t* __restrict__ in, float* __restrict__ pad, const unsigned int* __restrict__ amax,
         int W, int H, idx_t S, int TX, int TY, int GX, int GY)
{
    const int U0 = (blockIdx.x * BX + threadIdx.x) * FFT_RUN;
    const int V = blockIdx.y * BY + threadIdx.y;
    const int c = blockIdx.z;
    if (U0 >= GX * TX || V >= GY * TY) {
        return;
    }
    const int ltx = fft_log2(TX), lty = fft_log2(TY);
    const int gy = V >> lty, v = V & (TY - 1);
    const int bv = gy * (TY - KH + 1) + v; // bordered row
    const int e = -fft_exponent(amax[c]);
    float val[FFT_RUN];
#pragma unroll
    for (int j = 0; j < FFT_RUN; j++) {
        const int U = U0 + j;
        const int gx = U >> ltx, u = U & (TX - 1);
        const int bu = gx * (TX - KW + 1) + u; // bordered column
        val[j] = 0.f;
        if (U < GX * TX && bu < W + KW - 1 && bv < H + KH - 1) {
            val[j] = fft_ldexp(read_px(in, bu - KW / 2, bv - KH / 2, c, W, H, S), e);
        }
    }
    if (TX >= FFT_RUN) {
        // The run lies in one tile row, 16-byte aligned.
        const int gx = U0 >> ltx, u = U0 & (TX - 1);
        *reinterpret_cast<float4*>(pad + fft_tile_offset(c, gx, gy, u, v, ltx, lty, GX, GY)) =
            make_float4(val[0], val[1], val[2], val[3]);
        return;
    }
#pragma unroll
    for (int j = 0; j < FFT_RUN; j++) {
        const int U = U0 + j;
        if (U < GX * TX) {
            pad[fft_tile_offset(c, U >> ltx, gy, U & (TX - 1), v, ltx, lty, GX, GY)] = val[j];
        }
    }
}

// fft_place_filter writes every point of every tile, a thread a point on a
// grid over GX*TX x GY*TY: the filter in the first tile, zeros elsewhere. w holds the KW x KH
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

// fft_crop: FFT_RUN adjacent outputs of a row per thread, blockIdx.z the
// channel. The grid is GX*NBX x GY*NBY blocks: NBX blocks across each
// tile's SX outputs (BX*FFT_RUN a block) and NBY down its SY, so that a
// block's tile (gx, gy) comes from blockIdx alone; outputs past the
// tile's or the image's are not written.
extern "C" __global__ void __launch_bounds__(BX * BY)
fft_crop(const float* __restrict__ pad, float* __restrict__ out, const unsigned int* __restrict__ amax,
         int W, int H, int TX, int TY, int GX, int GY, int ew, int NBX, int NBY)
{
    const int gx = blockIdx.x / NBX, gy = blockIdx.y / NBY;
    const int lx0 = ((blockIdx.x - gx * NBX) * BX + threadIdx.x) * FFT_RUN;
    const int ly = (blockIdx.y - gy * NBY) * BY + threadIdx.y;
    const int c = blockIdx.z;
    const int sx = TX - KW + 1, sy = TY - KH + 1;
    const int x0 = gx * sx + lx0, y = gy * sy + ly;
    if (lx0 >= sx || ly >= sy || x0 >= W || y >= H) {
        return;
    }
    const int ltx = fft_log2(TX), lty = fft_log2(TY);
    const long long row = fft_tile_offset(c, gx, gy, 0, ly, ltx, lty, GX, GY);
    const int e = fft_exponent(amax[c]) + ew;
    float v[FFT_RUN];
    if (TX >= FFT_RUN) {
        // lx0 + FFT_RUN <= TX: the run lies in the tile row, 16-byte aligned.
        const float4 q = *reinterpret_cast<const float4*>(pad + row + lx0);
        v[0] = q.x, v[1] = q.y, v[2] = q.z, v[3] = q.w;
    } else {
#pragma unroll
        for (int j = 0; j < FFT_RUN; j++) {
            v[j] = lx0 + j < sx ? pad[row + lx0 + j] : 0.f;
        }
    }
#pragma unroll
    for (int j = 0; j < FFT_RUN; j++) {
        if (lx0 + j < sx && x0 + j < W) {
            out[out_offset(x0 + j, y, c, W, H)] = fft_ldexp(v[j], e);
        }
    }
}
