// fft.cu: the device passes of gpu-fft, convolution through cuFFT's
// real transforms of NX x NY points, powers of two with NX >= W+KW-1 and
// NY >= H+KH-1, so that the circular convolution of the bordered image
// equals the linear one.
//
// Memory strategy: one float buffer of CHANNELS planes of NX x NY points
// (plane c at c*NX*NY, rows of NX) holds the bordered image on the way
// in and the convolution on the way out; cuFFT's R2C writes the spectra,
// CHANNELS planes of NY x (NX/2+1) complex values, into a second buffer,
// the pointwise product overwrites them, and cuFFT's C2R turns them back
// into the first buffer. A run is:
//
//   fft_absmax         the largest |pixel| of each channel (amax, zeroed
//                      before), as float bits through atomicMax
//   fft_fill           plane c, point (u, v): the pixel (u-KW/2, v-KH/2)
//                      read through the border mapping (read_px) for
//                      u < W+KW-1 and v < H+KH-1, zero elsewhere, scaled
//                      by 2^-e with amax[c] = f * 2^e, 0.5 <= f < 1
//   (cuFFT R2C)
//   fft_multiply       each channel's spectrum times the filter's
//   (cuFFT C2R)
//   fft_crop           output (x, y, c) is point (x, y) of plane c,
//                      scaled back by 2^(e + ew)
//
// The filter's spectrum is made once per plan: fft_place_filter puts the
// weights, oriented for correlation and scaled by 2^-ew into [0.5, 1) in
// magnitude, at the negated indices modulo NX and NY in plane 0 (so that
// the product of spectra is the correlation out(x, y) = sum w(i, j)
// p(x+i, y+j) with p the bordered image), the forward transform follows,
// and fft_scale_spectrum keeps plane 0 times 1/(NX*NY), which makes the
// unnormalised inverse exact in scale. Scaling by powers of two is exact
// in binary floating point away from overflow and underflow, so the
// result is 2^(e+ew) times the FFT convolution of operands of magnitude
// below 1, whose intermediates can neither overflow nor underflow: the
// FFT32 error bound of the unscaled problem holds, and images near the
// float32 limits (or subnormal) come out as a direct sum's do.
//
// Point offsets are 64-bit (a plane can pass 2^31 points before the image
// does); the output uses idx_t as every family does.
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

// fft_absmax: blocks of 256 threads, blockIdx.z the channel; each block
// strides over the channel's pixels and adds its maximum with one atomic.
extern "C" __global__ void __launch_bounds__(256)
fft_absmax(const in_t* __restrict__ in, unsigned int* __restrict__ amax, int W, int H, idx_t S)
{
    __shared__ float part[256];
    const int c = blockIdx.z;
    const long long n = (long long)W * H;
    float m = 0.f;
    for (long long i = (long long)blockIdx.x * 256 + threadIdx.x; i < n; i += (long long)gridDim.x * 256) {
        const int y = (int)(i / W);
        const int x = (int)(i - (long long)y * W);
        m = fmaxf(m, fabsf((float)in[in_offset(x, y, c, H, S)]));
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

extern "C" __global__ void __launch_bounds__(BX * BY)
fft_fill(const in_t* __restrict__ in, float* __restrict__ pad, const unsigned int* __restrict__ amax,
         int W, int H, idx_t S, int NX, int NY)
{
    const int u = blockIdx.x * BX + threadIdx.x;
    const int v = blockIdx.y * BY + threadIdx.y;
    const int c = blockIdx.z;
    if (u >= NX || v >= NY) {
        return;
    }
    float val = 0.f;
    if (u < W + KW - 1 && v < H + KH - 1) {
        val = scalbnf(read_px(in, u - KW / 2, v - KH / 2, c, W, H, S), -fft_exponent(amax[c]));
    }
    pad[((long long)c * NY + v) * NX + u] = val;
}

// fft_place_filter writes every point of every plane: the filter in
// plane 0, zeros elsewhere. w holds the KW x KH weights row-major,
// oriented for correlation and already scaled.
extern "C" __global__ void __launch_bounds__(BX * BY)
fft_place_filter(const float* __restrict__ w, float* __restrict__ pad, int NX, int NY)
{
    const int u = blockIdx.x * BX + threadIdx.x;
    const int v = blockIdx.y * BY + threadIdx.y;
    const int c = blockIdx.z;
    if (u >= NX || v >= NY) {
        return;
    }
    float val = 0.f;
    const int i = (NX - u) % NX;
    const int j = (NY - v) % NY;
    if (c == 0 && i < KW && j < KH) {
        val = w[j * KW + i];
    }
    pad[((long long)c * NY + v) * NX + u] = val;
}

// fft_scale_spectrum: dst[k] = src[k] * scale for the n complex values of
// plane 0; blocks of 256 threads.
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

// fft_multiply: spec[c][k] *= filt[k] for the n complex values of each
// plane; blocks of 256 threads, blockIdx.y the channel.
extern "C" __global__ void __launch_bounds__(256)
fft_multiply(float2* __restrict__ spec, const float2* __restrict__ filt, long long n)
{
    const long long k = (long long)blockIdx.x * 256 + threadIdx.x;
    if (k >= n) {
        return;
    }
    float2* p = spec + (long long)blockIdx.y * n + k;
    const float2 a = *p;
    const float2 b = filt[k];
    *p = make_float2(a.x * b.x - a.y * b.y, a.x * b.y + a.y * b.x);
}

extern "C" __global__ void __launch_bounds__(BX * BY)
fft_crop(const float* __restrict__ pad, float* __restrict__ out, const unsigned int* __restrict__ amax,
         int W, int H, int NX, int NY, int ew)
{
    const int x = blockIdx.x * BX + threadIdx.x;
    const int y = blockIdx.y * BY + threadIdx.y;
    const int c = blockIdx.z;
    if (x >= W || y >= H) {
        return;
    }
    out[out_offset(x, y, c, W, H)] = scalbnf(pad[((long long)c * NY + y) * NX + x], fft_exponent(amax[c]) + ew);
}
