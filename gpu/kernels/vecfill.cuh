// vecfill.cuh: a block's input tile filled with 4-element vector loads
// (16, 8 or 4 bytes by element type) converted to float, for the kernels
// whose tile rows start on 4-aligned image columns (regtile.cu,
// sepfused.cu).
//
// The includer defines, before including it:
//   VF_NV      float4 vectors loaded per tile row
//   VF_NVEC    float4 vectors loaded in all (VF_NV times the tile's rows)
// and may define VF_PITCH4, the float4 vectors from one tile row to the
// next (VF_NV when not defined).
//   VF_FILL_N  vectors each thread fills, rounded up
//   VF_BATCH   loads each thread has in flight before its shared stores
#pragma once

#include "border.cuh"

#if !defined(VF_NV) || !defined(VF_NVEC) || !defined(VF_FILL_N) || !defined(VF_BATCH)
#error "vecfill.cuh needs VF_NV, VF_NVEC, VF_FILL_N and VF_BATCH"
#endif
#ifndef VF_PITCH4
#define VF_PITCH4 VF_NV
#endif

// vf_f4 is the float4 (a, b, c, d).
__device__ __forceinline__ float4 vf_f4(float a, float b, float c, float d)
{
    float4 q;
    q.x = a;
    q.y = b;
    q.z = c;
    q.w = d;
    return q;
}

// vf_ld4 loads the 4 input elements at p (4-element aligned) with one
// vector load, 16, 8 or 4 bytes by element type, as float (exact).
__device__ __forceinline__ float4 vf_ld4(const float* p)
{
    return *reinterpret_cast<const float4*>(p);
}
__device__ __forceinline__ float4 vf_ld4(const short* p)
{
    const short4 q = *reinterpret_cast<const short4*>(p);
    return vf_f4((float)q.x, (float)q.y, (float)q.z, (float)q.w);
}
__device__ __forceinline__ float4 vf_ld4(const unsigned char* p)
{
    const uchar4 q = *reinterpret_cast<const uchar4*>(p);
    return vf_f4((float)q.x, (float)q.y, (float)q.z, (float)q.w);
}

// vf_load4_mapped is the 4 pixels from the 4-aligned column x of row y,
// after the border mapping of both coordinates: one vector load from the
// mapped row where all 4 columns lie inside the image, else one read_px
// per pixel.
__device__ __forceinline__ float4 vf_load4_mapped(const in_t* __restrict__ in, int x, int y, int c, int W, int H, idx_t S)
{
    if (x >= 0 && x + 4 <= W) {
        const int by = border_index(y, H);
#if BORDER == BORDER_ZERO
        if (by < 0) {
            return vf_f4(0.f, 0.f, 0.f, 0.f);
        }
#endif
        return vf_ld4(in + in_offset(x, by, c, H, S));
    }
    return vf_f4(read_px(in, x, y, c, W, H, S), read_px(in, x + 1, y, c, W, H, S),
                       read_px(in, x + 2, y, c, W, H, S), read_px(in, x + 3, y, c, W, H, S));
}

// vf_fill_vec fills the tile with 4-element vector loads of the input from
// the 4-aligned image column x0, the whole pitch (4*VF_NV columns), up
// to VF_BATCH loads per thread in flight before their 128-bit shared
// stores. Without MAP every pixel read lies inside the image and nothing
// is mapped; with MAP each load goes through vf_load4_mapped.
template <bool MAP>
__device__ __forceinline__ void vf_fill_vec(float4* dst, const in_t* __restrict__ in, int x0, int y0, int c, int W, int H, idx_t S)
{
    const int tid = threadIdx.y * BX + threadIdx.x;
    const in_t* base = in + in_offset(x0, y0, c, H, S);
#pragma unroll
    for (int n0 = 0; n0 < VF_FILL_N; n0 += VF_BATCH) {
        float4 q[VF_BATCH];
#pragma unroll
        for (int n = 0; n < VF_BATCH; ++n) {
            const int e = tid + (n0 + n) * (BX * BY);
            if (n0 + n < VF_FILL_N && e < VF_NVEC) {
                const int ty = e / VF_NV;
                const int m = e - ty * VF_NV;
                if (MAP) {
                    q[n] = vf_load4_mapped(in, x0 + 4 * m, y0 + ty, c, W, H, S);
                } else {
                    q[n] = vf_ld4(base + (idx_t)ty * S + 4 * m);
                }
            }
        }
#pragma unroll
        for (int n = 0; n < VF_BATCH; ++n) {
            const int e = tid + (n0 + n) * (BX * BY);
            if (n0 + n < VF_FILL_N && e < VF_NVEC) {
#if VF_PITCH4 == VF_NV
                dst[e] = q[n];
#else
                const int ty = e / VF_NV;
                dst[ty * VF_PITCH4 + (e - ty * VF_NV)] = q[n];
#endif
