// mma.cuh: the tensor-core instructions of tc.cu, each in one small
// function so that a host harness can stand in for them (the CPU test of
// tc.cu's index arithmetic supplies its own mma.cuh).
//
//   tc_tf32(x)   x rounded to nearest TF32, ties away from zero
//                (cvt.rna.tf32.f32), as a float32 whose low 13 bits are
//                zero; a finite value that would round past the largest
//                finite TF32 (2^128 - 2^117) is clamped to it, keeping its
//                sign, so that the low part x - tc_tf32(x) of a finite x
//                stays finite (and under 2^-11 |x|, as the rounding's).
//   tc_mma(d, a, b, c)
//                d = a * b + c for one warp (mma.sync.aligned.m16n8k8,
//                row.col, TF32 operands, float32 accumulator). Lane l
//                (g = l/4, t = l%4) holds, as the PTX ISA lays out the
//                m16n8k8 .tf32 fragments:
//                  a[0] = A[g][t]    a[1] = A[g+8][t]
//                  a[2] = A[g][t+4]  a[3] = A[g+8][t+4]
//                  b[0] = B[t][g]    b[1] = B[t+4][g]
//                  c[0], c[1] = C[g][2t], C[g][2t+1]
//                  c[2], c[3] = C[g+8][2t], C[g+8][2t+1]
//                and d like c. Every lane of the warp must call it.
//   tc_bf16x2(x0, x1)
//                x0 and x1 rounded to nearest bfloat16, ties to even
//                (cvt.rn.bf16x2.f32), packed x0 in the low half;
//                a finite value that would round past the largest finite
//                bfloat16 (2^128 - 2^120) is clamped to it, keeping its sign.
//   tc_mma_bf16(d, a, b, c)
//                d = a * b + c for one warp (mma.sync.aligned.m16n8k8,
//                row.col, bfloat16 operands, float32 accumulator), with
//                the m16n8k8 .bf16 fragments: lane l holds
//                  a[0] = A[g][2t], A[g][2t+1]      (low, high half)
//                  a[1] = A[g+8][2t], A[g+8][2t+1]
//                  b    = B[2t][g], B[2t+1][g]
//                and c, d as tc_mma's.
#pragma once

// TC_SATFINITE: the compiler's PTX has cvt's .satfinite for TF32 and
// bfloat16 (PTX ISA 8.1, CUDA 12.1 and later), one instruction that
// clamps a result past the largest finite value to it. Older compilers
// clamp after the conversion. Infinite and NaN inputs never reach these
// functions: the tensor-core variants declare FiniteInput.
#if defined(__CUDACC_VER_MAJOR__) && (__CUDACC_VER_MAJOR__ > 12 || (__CUDACC_VER_MAJOR__ == 12 && __CUDACC_VER_MINOR__ >= 1))
#define TC_SATFINITE 1
#else
#define TC_SATFINITE 0
#endif

#define TC_MAX_TF32_BITS 0x7f7fe000u

__device__ __forceinline__ float tc_tf32(float x)
{
    unsigned r;
#if TC_SATFINITE
    asm("cvt.rna.satfinite.tf32.f32 %0, %1;" : "=r"(r) : "f"(x));
#else
    asm("cvt.rna.tf32.f32 %0, %1;" : "=r"(r) : "f"(x));
    if ((r & 0x7fffffffu) == 0x7f800000u && (__float_as_uint(x) & 0x7fffffffu) < 0x7f800000u) {
        r = (__float_as_uint(x) & 0x80000000u) | TC_MAX_TF32_BITS;
    }
#endif
    return __uint_as_float(r);
}

__device__ __forceinline__ void tc_mma(float (&d)[4], const float (&a)[4], const float (&b)[2], const float (&c)[4])
{
    asm("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 "
        "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%10, %11, %12, %13};"
        : "=f"(d[0]), "=f"(d[1]), "=f"(d[2]), "=f"(d[3])
        : "r"(__float_as_uint(a[0])), "r"(__float_as_uint(a[1])), "r"(__float_as_uint(a[2])), "r"(__float_as_uint(a[3])),
          "r"(__float_as_uint(b[0])), "r"(__float_as_uint(b[1])),
          "f"(c[0]), "f"(c[1]), "f"(c[2]), "f"(c[3]));
}

#define TC_MAX_BF16_BITS 0x7f7fu

__device__ __forceinline__ unsigned tc_bf16x2(float x0, float x1)
{
    unsigned r;
#if TC_SATFINITE
    asm("cvt.rn.satfinite.bf16x2.f32 %0, %1, %2;" : "=r"(r) : "f"(x1), "f"(x0));
#else
    asm("cvt.rn.bf16x2.f32 %0, %1, %2;" : "=r"(r) : "f"(x1), "f"(x0));
    if ((r & 0x7fffu) == 0x7f80u && (__float_as_uint(x0) & 0x7fffffffu) < 0x7f800000u) {
        r = (r & 0xffff0000u) | ((__float_as_uint(x0) >> 16) & 0x8000u) | TC_MAX_BF16_BITS;
    }
    if ((r & 0x7fff0000u) == 0x7f800000u && (__float_as_uint(x1) & 0x7fffffffu) < 0x7f800000u) {
        r = (r & 0xffffu) | (__float_as_uint(x1) & 0x80000000u) | (TC_MAX_BF16_BITS << 16);
    }
#endif
    return r;
}

__device__ __forceinline__ void tc_mma_bf16(float (&d)[4], const unsigned (&a)[2], unsigned b, const float (&c)[4])
{
    asm("mma.sync.aligned.m16n8k8.row.col.f32.bf16.bf16.f32 "
        "{%0, %1, %2, %3}, {%4, %5}, {%6}, {%7, %8, %9, %10};"
        : "=f"(d[0]), "=f"(d[1]), "=f"(d[2]), "=f"(d[3])
        : "r"(a[0]), "r"(a[1]), "r"(b), "f"(c[0]), "f"(c[1]), "f"(c[2]), "f"(c[3]));
}
