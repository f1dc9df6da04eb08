// texture.cu: report 002's texture-memory kernels: "texture" (image read
// through a texture object, filter in constant memory), "texture image
// and filter" (both through textures) and "texture and shared" (the
// texture source staged into a shared-memory tile).
//
// Memory strategy: the image is read through the texture cache, which is
// organised for 2-D locality: threads of a warp reading neighbouring rows
// hit the same cache lines. Each texture is a 2-D pitched array of one
// element type (IN_T) and one component, read with point sampling at
// unnormalized coordinates (x+0.5, y+0.5). Single-channel and planar images
// get one texture per plane (t0..t3, picked by blockIdx.z); an interleaved
// multi-channel image is one texture CHANNELS times as wide.
//
// Borders: where a hardware address mode matches the border and each
// texture holds exactly one channel (TEX_HW=1), the texture unit applies it:
// zero = border address mode (reads 0 outside), replicate = clamp. Wrap
// and mirror address modes need normalized coordinates, whose fixed-point
// conversion is not exact for every image width, and reflect (period 2n)
// has no unnormalized hardware mode, so those borders, and every border of
// an interleaved multi-channel image, map indices explicitly with
// border_index (TEX_HW=0) and read in-range texels only.
//
// conv_texture_filter reads the weights with tex1Dfetch from a linear
// texture instead of the constant cache: the report found this slowest,
// because every thread of a warp fetches the same texel at each tap.
// conv_texture_shared loads the (BX+KW-1) x (BY+KH-1) tile from the texture
// into dynamic shared memory (tile.cuh's tile_load with a texture source)
// and computes as shared.cu does.
//
// All three sum in the reference order (zero-border taps add w*0).
//
// Compile-time: KW, KH, BX, BY, TEX_HW plus the parameters of border.cuh.
#include "tile.cuh"
#include "unroll.cuh"

#ifndef TEX_HW
#define TEX_HW 0
#endif

__constant__ float c_filter[KW * KH];

__device__ __forceinline__ cudaTextureObject_t pick_texture(int c, cudaTextureObject_t t0, cudaTextureObject_t t1,
                                                           cudaTextureObject_t t2, cudaTextureObject_t t3)
{
#if PLANAR && CHANNELS > 1
    return c == 0 ? t0 : c == 1 ? t1 : c == 2 ? t2 : t3;
#else
    return t0;
#endif
}

// tex_px is channel c of pixel (x, y) of the image behind texture t, with
// the border applied, as a float.
__device__ __forceinline__ float tex_px(cudaTextureObject_t t, int x, int y, int c, int W, int H)
{
#if TEX_HW
    return (float)tex2D<in_t>(t, (float)x + 0.5f, (float)y + 0.5f);
#else
    int bx = border_index(x, W);
    const int by = border_index(y, H);
#if BORDER == BORDER_ZERO
    if (bx < 0 || by < 0) {
        return 0.f;
    }
#endif
#if !PLANAR && CHANNELS > 1
    bx = bx * CHANNELS + c;
#endif
    return (float)tex2D<in_t>(t, (float)bx + 0.5f, (float)by + 0.5f);
#endif
}

// tex_src is tex_px as a tile.cuh source; its arguments are (t, c, W, H).
struct tex_src {
    static __device__ __forceinline__ float px(int x, int y, cudaTextureObject_t t, int c, int W, int H)
    {
        return tex_px(t, x, y, c, W, H);
    }
};

extern "C" __global__ void __launch_bounds__(BX * BY)
conv_texture(cudaTextureObject_t t0, cudaTextureObject_t t1, cudaTextureObject_t t2, cudaTextureObject_t t3,
             float* __restrict__ out, int W, int H)
{
    const int x = blockIdx.x * BX + threadIdx.x;
    const int y = blockIdx.y * BY + threadIdx.y;
    const int c = blockIdx.z;
    if (x >= W || y >= H) {
        return;
    }
    const cudaTextureObject_t t = pick_texture(c, t0, t1, t2, t3);
    float s = 0.f;
    for (int j = 0; j < KH; ++j) {
        for (int i = 0; i < KW; ++i) {
            s += c_filter[j * KW + i] * tex_px(t, x + i - KW / 2, y + j - KH / 2, c, W, H);
        }
    }
    out[out_offset(x, y, c, W, H)] = s;
}

extern "C" __global__ void __launch_bounds__(BX * BY)
conv_texture_filter(cudaTextureObject_t t0, cudaTextureObject_t t1, cudaTextureObject_t t2, cudaTextureObject_t t3,
                    cudaTextureObject_t ftex, float* __restrict__ out, int W, int H)
{
    const int x = blockIdx.x * BX + threadIdx.x;
    const int y = blockIdx.y * BY + threadIdx.y;
    const int c = blockIdx.z;
    if (x >= W || y >= H) {
        return;
    }
    const cudaTextureObject_t t = pick_texture(c, t0, t1, t2, t3);
    float s = 0.f;
    for (int j = 0; j < KH; ++j) {
        for (int i = 0; i < KW; ++i) {
            s += tex1Dfetch<float>(ftex, j * KW + i) * tex_px(t, x + i - KW / 2, y + j - KH / 2, c, W, H);
        }
    }
    out[out_offset(x, y, c, W, H)] = s;
}

extern "C" __global__ void __launch_bounds__(BX * BY)
conv_texture_shared(cudaTextureObject_t t0, cudaTextureObject_t t1, cudaTextureObject_t t2, cudaTextureObject_t t3,
                    float* __restrict__ out, int W, int H)
{
    extern __shared__ float tile[];
    const int c = blockIdx.z;
    const cudaTextureObject_t t = pick_texture(c, t0, t1, t2, t3);
    tile_load<tex_src>(tile, t, c, W, H);
    __syncthreads();

    const int x = blockIdx.x * BX + threadIdx.x;
    const int y = blockIdx.y * BY + threadIdx.y;
    if (x >= W || y >= H) {
        return;
    }
    const float* tp = tile + threadIdx.y * TILE_W + threadIdx.x;
    float s = 0.f;
#pragma unroll UNROLL_ROWS
    for (int j = 0; j < KH; ++j) {
#pragma unroll UNROLL_COLS
        for (int i = 0; i < KW; ++i) {
            s += c_filter[j * KW + i] * tp[j * TILE_W + i];
        }
    }
    out[out_offset(x, y, c, W, H)] = s;
}
