// mma.cuh for tcemu.cpp: tc_tf32, tc_bf16x2, tc_mma and tc_mma_bf16 on
// the host, each lane a coroutine. The mmas gather the 32 lanes'
// fragments, rebuild A (16x8), B (8x8) and C (16x8) by the m16n8k8 .tf32
// or .bf16 fragment layout of the PTX ISA, and give each lane its part of
// D = A*B + C. The sum of each element's
// 8 products and C is formed as a tensor core may form it at worst
// (products exact, each addend truncated to 24 bits below the largest
// one's leading bit, the result truncated to float32), so the host run
// meets the error of that accumulation, not a kinder one. A TF32 operand
// with any of its 13 low bits set is not TF32: the harness stops.
#pragma once

#include <cmath>
#include <cstdio>
#include <cstdlib>

#define TC_MAX_TF32_BITS 0x7f7fe000u

inline float tc_tf32(float x)
{
    unsigned u = __float_as_uint(x);
    if ((u & 0x7fffffffu) >= 0x7f800000u) {
        return x;
    }
    unsigned r = (u + 0x1000u) & 0xffffe000u;
    if ((r & 0x7fffffffu) >= 0x7f800000u) {
        r = (u & 0x80000000u) | TC_MAX_TF32_BITS;
    }
    return __uint_as_float(r);
}

// host_bf16 is x rounded to nearest bfloat16, ties to even, clamped to
// the largest finite one, as a 16-bit pattern.
inline unsigned host_bf16(float x)
{
    unsigned u = __float_as_uint(x);
    if ((u & 0x7fffffffu) >= 0x7f800000u) {
        return u >> 16;
    }
    unsigned r = (u + 0x7fffu + ((u >> 16) & 1u)) >> 16;
    if ((r & 0x7fffu) >= 0x7f80u) {
        r = ((u >> 16) & 0x8000u) | 0x7f7fu;
    }
    return r;
}

inline unsigned tc_bf16x2(float x0, float x1)
{
    return host_bf16(x0) | (host_bf16(x1) << 16);
}

void host_mma(float (&d)[4], const float (&a)[4], const float (&b)[2], const float (&c)[4]);
void host_mma_bf16(float (&d)[4], const unsigned (&a)[2], unsigned b, const float (&c)[4]);

inline void tc_mma(float (&d)[4], const float (&a)[4], const float (&b)[2], const float (&c)[4])
{
    host_mma(d, a, b, c);
}

inline void tc_mma_bf16(float (&d)[4], const unsigned (&a)[2], unsigned b, const float (&c)[4])
{
    host_mma_bf16(d, a, b, c);
}
