// tc.cu: direct convolution on tensor cores (no report): each filter row
// applied to 8 consecutive output columns is a product with a banded
// Toeplitz matrix, which warp-level mma.sync m16n8k8 TF32 (or bfloat16)
// instructions compute 16 output rows at a time.
//
// Formulation: for output rows y and columns x0 + n (n = 0..7),
//
//   out[y][x0+n] = sum_r sum_j in[y+r-KH/2][x0-KW/2+j] * T_r[j][n],
//   T_r[j][n] = w[r][j-n] where 0 <= j-n < KW, else 0,
//
// j = 0 .. 8*TC_Q-1 with TC_Q = ceil((KW+7)/8). For one filter row r, A is
// 16 output rows' input rows (a 16 x 8*TC_Q slab of the tile) and B = T_r
// (8*TC_Q x 8); the k dimension is taken 8 columns (one chunk q) per mma.
// A fraction KW/(8*TC_Q) of B's entries are weights, the rest zeros: 66%
// at K=21, 78% at K=31 (the "stencil as GEMM" idea of ConvStencil, with
// the band kept in B instead of a duplicated input layout). A warp owns 16
// output rows and TC_S = 4*RX segments of 8 columns; the A chunk of
// segment s and chunk q is the tile's chunk s+q, so each A fragment loaded
// from shared memory serves up to TC_S mmas, and each filter row's TC_Q B
// fragments (read from a zero-padded copy of the filter in shared memory)
// serve all segments.
//
// Arithmetic: SPLIT=1 (3xTF32) splits every operand v into v_hi =
// tc_tf32(v) and v_lo = tc_tf32(v - v_hi) and forms, for each (row r,
// chunk q, segment s), the group D = lo*hi + hi*lo + hi*hi as three
// chained mmas started from zero (small terms first; with IN_TF32 the
// input's low part is zero and lo*hi is left out); SPLIT=0 (TF32) forms
// D = hi*hi with one mma; BF16=1 likewise with operands rounded to
// bfloat16 (to nearest, ties to even) and the .bf16 form of the mma,
// whose fragments hold pairs of adjacent columns (A) and rows (B). Either way D is added to the thread's float32
// accumulators with an ordinary float32 add, so the tensor core never
// carries a sum across groups. The error bound this gives, and the
// filters for which it lies within the declared model's, are derived in
// gpu/variants/tc.go.
//
// Memory: a BX x BY block (BX = 32: one warp per row of threads, BY warps)
// computes 32*RX columns by 16*BY rows (RY = 16: each lane holds 4
// outputs of each of the TC_S segments). Its input tile, TC_TH rows of
// TC_TW columns converted to float, lies in dynamic shared memory with
// rows TC_P floats apart (TC_P = 4 mod 8, so the 32 lanes' A fragment
// loads hit 32 banks); interior tiles are filled without border mapping,
// edge tiles through read_px. With ROUND_TILE the tile holds the
// operands already rounded (TF32 high parts, or bfloat16 values), each
// input value converted once as the tile is filled instead of once per
// filter row that reads it, and with TC_LO_TILE (the split of non-TF32
// input) a second tile of the same shape holds the low parts. The filter
// follows: TC_FP floats per filter row (8 zeros, the row, zeros), high
// parts then, with SPLIT, low parts.
//
// conv_tc_direct is the same block over the same tile with every output
// summed on CUDA cores in float32 (KW*KH fused multiply-adds, filter rows
// then columns, the weights unrounded in shared memory): what the
// variants run for the small or thin filters whose tensor-core error
// bound would exceed their declared model's (see tc.go).
//
// Dynamic shared memory: (TC_TH*TC_P*(1+TC_LO_TILE) + KH*TC_FP*(1+SPLIT))
// * 4 bytes (the filter's parts stay float32 in shared memory, bfloat16
// ones too).
//
// Compile-time: KW, KH, BX (32), BY, RX, RY (16), SPLIT, IN_TF32, BF16,
// ROUND_TILE, TC_LO_TILE plus the parameters of border.cuh.
#include "border.cuh"
#include "mma.cuh"

#ifndef RX
#define RX 2
#endif
#ifndef RY
#define RY 16
#endif
#ifndef SPLIT
#define SPLIT 1
#endif
// IN_TF32: every input value is a TF32 already (uint8 input: 8
// significant bits), so its low part is zero and the split's lo*hi
// product is left out.
#ifndef IN_TF32
#define IN_TF32 0
#endif
#define TC_ALO (SPLIT && !IN_TF32)
// BF16: operands rounded to bfloat16 (tc_bf16x2) instead of TF32, one
// product per group (SPLIT must be 0).
#ifndef BF16
#define BF16 0
#endif
#if BF16 && SPLIT
#error "tc.cu: BF16 takes SPLIT=0"
#endif
// ROUND_TILE: the tile holds the rounded operands; TC_LO_TILE: and a tile
// of low parts follows it (ROUND_TILE with TC_ALO).
#ifndef ROUND_TILE
#define ROUND_TILE 0
#endif
#ifndef TC_LO_TILE
#define TC_LO_TILE 0
#endif
#if TC_LO_TILE != (ROUND_TILE && TC_ALO)
#error "tc.cu: TC_LO_TILE must be ROUND_TILE && SPLIT && !IN_TF32"
#endif
#if BX != 32
#error "tc.cu: BX must be 32 (one warp per row of threads)"
#endif
#if RY != 16
#error "tc.cu: RY must be 16 (the m dimension of one mma)"
#endif

#define TC_S (4 * RX)
#define TC_Q ((KW + 14) / 8)
#define TC_OW (8 * TC_S)
#define TC_OH (16 * BY)
#define TC_TW (TC_OW + 8 * (TC_Q - 1))
#define TC_TH (TC_OH + KH - 1)
#define TC_P (TC_TW + 4)
#define TC_FP (8 * TC_Q + 8)
#define TC_NA (TC_S + TC_Q - 1)

// tc_pack packs two floats that are bfloat16 values already (low 16 bits
// zero), x0 in the low half.
__device__ __forceinline__ unsigned tc_pack(float x0, float x1)
{
    return (__float_as_uint(x0) >> 16) | (__float_as_uint(x1) & 0xffff0000u);
}

// tc_fill fills the tile whose top-left pixel is (x0, y0): with ROUND
// the rounded operands, and with TC_LO_TILE their low parts into lo; the
// input values otherwise.
template <bool ROUND>
__device__ __forceinline__ void tc_fill(float* tile, float* lo, const in_t* __restrict__ in, int x0, int y0, int c, int W, int H, idx_t S)
{
    const int tid = threadIdx.y * BX + threadIdx.x;
    const bool interior = x0 >= 0 && y0 >= 0 && x0 + TC_TW <= W && y0 + TC_TH <= H;
    for (int e = tid; e < TC_TH * TC_TW; e += BX * BY) {
        const int ty = e / TC_TW;
        const int tx = e - ty * TC_TW;
        float v;
        if (interior) {
            v = (float)in[in_offset(x0 + tx, y0 + ty, c, H, S)];
        } else {
            v = read_px(in, x0 + tx, y0 + ty, c, W, H, S);
        }
        if constexpr (ROUND) {
#if BF16
            v = __uint_as_float(tc_bf16x2(v, 0.f) << 16);
#else
            const float h = tc_tf32(v);
#if TC_LO_TILE
            lo[ty * TC_P + tx] = tc_tf32(v - h);
#endif
            v = h;
#endif
        }
        tile[ty * TC_P + tx] = v;
    }
}

// tc_filter fills the zero-padded filter rows: fhi[r*TC_FP + 8 + i] is the
// high part of w[r][i], flo likewise the low part (SPLIT only).
__device__ __forceinline__ void tc_filter(float* fhi, float* flo, const float* __restrict__ filter)
{
    const int tid = threadIdx.y * BX + threadIdx.x;
    for (int e = tid; e < KH * TC_FP; e += BX * BY) {
        const int r = e / TC_FP;
        const int i = e - r * TC_FP - 8;
        const float w = (i >= 0 && i < KW) ? filter[r * KW + i] : 0.f;
#if BF16
        const float hi = __uint_as_float(tc_bf16x2(w, 0.f) << 16);
#else
        const float hi = tc_tf32(w);
#endif
        fhi[e] = hi;
#if SPLIT
        flo[e] = tc_tf32(w - hi);
#endif
    }
}

// tc_direct_at sums on CUDA cores, in float32, the output whose taps start
// at tp in the tile, with weights w (KW*KH, row-major).
__device__ __forceinline__ float tc_direct_at(const float* tp, const float* w)
{
    float acc = 0.f;
    for (int r = 0; r < KH; ++r) {
#pragma unroll
        for (int k = 0; k < KW; ++k) {
            acc += w[r * KW + k] * tp[r * TC_P + k];
        }
    }
    return acc;
}

// tc_redo is tc_direct_at out of line, over the tile's values plus, with
// TC_LO_TILE, their low parts at lo: conv_tc's epilogue calls it only for
// an output that came out infinite or NaN, so that its many call sites
// share one copy.
__device__ __noinline__ float tc_redo(const float* tp, const float* lo, const float* w)
{
#if TC_LO_TILE
    float acc = 0.f;
    for (int r = 0; r < KH; ++r) {
        for (int k = 0; k < KW; ++k) {
            acc += w[r * KW + k] * (tp[r * TC_P + k] + lo[r * TC_P + k]);
        }
    }
    return acc;
#else
    return tc_direct_at(tp, w);
#endif
}

extern "C" __global__ void __launch_bounds__(BX * BY)
conv_tc(const in_t* __restrict__ in, const float* __restrict__ filter, float* __restrict__ out, int W, int H, idx_t S)
{
    extern __shared__ float tc_smem[];
    float* tile = tc_smem;
    float* tlo = tile + TC_TH * TC_P; // the low parts' tile (TC_LO_TILE)
    float* fhi = tile + TC_TH * TC_P * (1 + TC_LO_TILE);
    float* flo = fhi + KH * TC_FP;
    const int c = blockIdx.z;
    const int xo = blockIdx.x * TC_OW;
    const int yo = blockIdx.y * TC_OH;
    tc_fill<ROUND_TILE>(tile, tlo, in, xo - KW / 2, yo - KH / 2, c, W, H, S);
    tc_filter(fhi, flo, filter);
    __syncthreads();

    const int g = threadIdx.x >> 2;
    const int t = threadIdx.x & 3;
    float acc[TC_S][4];
#pragma unroll
    for (int s = 0; s < TC_S; ++s) {
#pragma unroll
        for (int i = 0; i < 4; ++i) {
            acc[s][i] = 0.f;
        }
    }
    const float zero[4] = {0.f, 0.f, 0.f, 0.f};
#if BF16
    // This lane's A elements: rows g and g+8 of the warp's 16, columns 2t
    // and 2t+1 of a chunk; its B elements of chunk q: T_r[8q+2t][g] and
    // T_r[8q+2t+1][g], that is w[r][8q+2t-g] and w[r][8q+2t+1-g].
    const float* ap = tile + (threadIdx.y * 16 + g) * TC_P + 2 * t;
    const int bo = 8 + 2 * t - g;
#pragma unroll 1
    for (int r = 0; r < KH; ++r) {
        unsigned bb[TC_Q];
#pragma unroll
        for (int q = 0; q < TC_Q; ++q) {
            bb[q] = tc_pack(fhi[r * TC_FP + bo + 8 * q], fhi[r * TC_FP + bo + 8 * q + 1]);
        }
        const float* arow = ap + r * TC_P;
#pragma unroll
        for (int p = 0; p < TC_NA; ++p) {
            const float2 lo = *reinterpret_cast<const float2*>(arow + 8 * p);
            const float2 hi = *reinterpret_cast<const float2*>(arow + 8 * TC_P + 8 * p);
#if ROUND_TILE
            const unsigned a[2] = {tc_pack(lo.x, lo.y), tc_pack(hi.x, hi.y)};
#else
            const unsigned a[2] = {tc_bf16x2(lo.x, lo.y), tc_bf16x2(hi.x, hi.y)};
#endif
#pragma unroll
            for (int s = 0; s < TC_S; ++s) {
                const int q = p - s;
                if (q >= 0 && q < TC_Q) {
                    float d[4];
                    tc_mma_bf16(d, a, bb[q], zero);
#pragma unroll
                    for (int i = 0; i < 4; ++i) {
                        acc[s][i] += d[i];
                    }
                }
            }
        }
    }
#else
    // This lane's A elements: rows g and g+8 of the warp's 16, columns t
    // and t+4 of a chunk.
    const float* ap = tile + (threadIdx.y * 16 + g) * TC_P + t;
    // This lane's B elements of chunk q: T_r[8q+t][g] and T_r[8q+t+4][g],
    // that is w[r][8q+t-g] and w[r][8q+t+4-g], at fhi[r*TC_FP + 8 + ...].
    const int bo = 8 + t - g;
#pragma unroll 1
    for (int r = 0; r < KH; ++r) {
        float bh[TC_Q][2];
#if SPLIT
        float bl[TC_Q][2];
#endif
#pragma unroll
        for (int q = 0; q < TC_Q; ++q) {
            bh[q][0] = fhi[r * TC_FP + bo + 8 * q];
            bh[q][1] = fhi[r * TC_FP + bo + 8 * q + 4];
#if SPLIT
            bl[q][0] = flo[r * TC_FP + bo + 8 * q];
            bl[q][1] = flo[r * TC_FP + bo + 8 * q + 4];
#endif
        }
        const float* arow = ap + r * TC_P;
#pragma unroll
        for (int p = 0; p < TC_NA; ++p) {
            const float a[4] = {arow[8 * p], arow[8 * TC_P + 8 * p], arow[8 * p + 4], arow[8 * TC_P + 8 * p + 4]};
            float ah[4];
#if TC_ALO
            float al[4];
#endif
#if ROUND_TILE
#pragma unroll
            for (int i = 0; i < 4; ++i) {
                ah[i] = a[i];
            }
#if TC_LO_TILE
            const float* lrow = arow + TC_TH * TC_P;
            al[0] = lrow[8 * p];
            al[1] = lrow[8 * TC_P + 8 * p];
            al[2] = lrow[8 * p + 4];
            al[3] = lrow[8 * TC_P + 8 * p + 4];
#endif
#else
#pragma unroll
            for (int i = 0; i < 4; ++i) {
                ah[i] = tc_tf32(a[i]);
#if TC_ALO
                al[i] = tc_tf32(a[i] - ah[i]);
#endif
            }
#endif
#pragma unroll
            for (int s = 0; s < TC_S; ++s) {
                const int q = p - s;
                if (q >= 0 && q < TC_Q) {
                    float d[4];
#if TC_ALO
                    float e[4];
                    tc_mma(d, al, bh[q], zero);
                    tc_mma(e, ah, bl[q], d);
                    tc_mma(d, ah, bh[q], e);
#elif SPLIT
                    float e[4];
                    tc_mma(e, ah, bl[q], zero);
                    tc_mma(d, ah, bh[q], e);
#else
                    tc_mma(d, ah, bh[q], zero);
#endif
#pragma unroll
                    for (int i = 0; i < 4; ++i) {
                        acc[s][i] += d[i];
                    }
                }
            }
        }
    }

#endif

    // The input is finite (the variants declare FiniteInput), so an output
    // that is infinite or NaN overflowed, and the split's parts may have
    // overflowed with opposite signs (a low part's sign may differ from
    // its value's), or the tensor core's sum taken the infinity of its C
    // over that of its products: such an output is summed again on CUDA
    // cores, where float32 gives the reference's infinity.
#pragma unroll
    for (int s = 0; s < TC_S; ++s) {
#pragma unroll
        for (int i = 0; i < 4; ++i) {
            const int m = g + (i >> 1) * 8;
            const int n = 8 * s + 2 * t + (i & 1);
            const int yy = yo + threadIdx.y * 16 + m;
            const int xx = xo + n;
            float v = acc[s][i];
            if ((__float_as_uint(v) & 0x7f800000u) == 0x7f800000u) {
                const int o = (threadIdx.y * 16 + m) * TC_P + n;
                v = tc_redo(tile + o, tlo + o, filter);
            }
            if (xx < W && yy < H) {
                out[out_offset(xx, yy, c, W, H)] = v;
            }
        }
    }
}

extern "C" __global__ void __launch_bounds__(BX * BY)
conv_tc_direct(const in_t* __restrict__ in, const float* __restrict__ filter, float* __restrict__ out, int W, int H, idx_t S)
{
    extern __shared__ float tc_smem[];
    float* tile = tc_smem;
    float* wsh = tile + TC_TH * TC_P;
    const int c = blockIdx.z;
    const int xo = blockIdx.x * TC_OW;
    const int yo = blockIdx.y * TC_OH;
    tc_fill<false>(tile, nullptr, in, xo - KW / 2, yo - KH / 2, c, W, H, S);
    for (int e = threadIdx.y * BX + threadIdx.x; e < KW * KH; e += BX * BY) {
        wsh[e] = filter[e];
    }
    __syncthreads();

    // The lane's outputs are those of conv_tc: rows g and g+8 of the
    // warp's 16, columns 8s+2t and 8s+2t+1 of each segment s.
    const int g = threadIdx.x >> 2;
    const int t = threadIdx.x & 3;
    const int y = yo + threadIdx.y * 16 + g;
#pragma unroll
    for (int s = 0; s < TC_S; ++s) {
#pragma unroll
        for (int i = 0; i < 4; ++i) {
            const int m = g + (i >> 1) * 8;
            const int n = 8 * s + 2 * t + (i & 1);
            const float acc = tc_direct_at(tile + (threadIdx.y * 16 + m) * TC_P + n, wsh);
            const int yy = y + (i >> 1) * 8;
            const int xx = xo + n;
            if (xx < W && yy < H) {
                out[out_offset(xx, yy, c, W, H)] = acc;
            }
        }
    }
}
