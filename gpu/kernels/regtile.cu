// regtile.cu: the framework's register-blocked direct kernel (no report),
// aimed at the roofline: DRAM-bound for small filters, FP32-bound for
// large ones.
//
// Memory strategy: a BX x BY block computes a (BX*RX) x (BY*RY) output
// tile; each thread owns RX adjacent columns (tx*RX .. tx*RX+RX-1 of the
// tile) in each of RY rows, taken in RY/RYC chunks of RYC rows (RYC = RY:
// one chunk). Chunk q of the block covers its output rows q*BY*RYC ..
// (q+1)*BY*RYC-1, thread row ty the RYC rows from q*BY*RYC + ty*RYC. A
// chunk's (RT_SH+BX*RX+KW-1) x (BY*RYC+KH-1) input tile is loaded into
// dynamic shared memory, converted to float, its rows RT_PITCH floats
// apart (a multiple of 4). Tile column 0 is image column x0 - RT_SH,
// where x0 is the first column the block's outputs read and
// RT_SH = -(KW/2) mod 4 (0 to 3): when BX*RX is a multiple of 4 this is a
// 4-aligned image column in every block, which VEC_IN (pixels contiguous
// in a row, every input row starting on a 4-element boundary) uses. The
// shift is the same with or without VEC_IN, so the tile's shape (and the
// plan's shared memory) depends only on the block, RX, RY, RYC and the
// filter. The fill:
//   - under VEC_IN: vector loads of 4 input elements (16, 8 or 4 bytes
//     for float, short, unsigned char) converted to float and stored as
//     128-bit shared stores, each row read once from its aligned start,
//     each thread issuing up to RT_BATCH loads before it stores them.
//     Interior tiles map nothing; a tile at an edge maps each load's row
//     through the border and loads the 4 pixels as one vector where they
//     lie inside the image, else one by one through read_px;
//   - otherwise interior tiles: coalesced scalar loads, no border
//     mapping;
//   - otherwise tiles that reach past an image edge: every element
//     through read_px, the border mapping of border.cuh.
// With more than one chunk the block keeps two tile buffers: while it
// computes chunk q from one, the input of chunk q+1 is in flight
// (interior tiles under VEC_IN: loaded into registers before the compute
// and stored into the other buffer after it; other tiles filled after
// the compute), and one barrier per chunk separates them. So only the
// first chunk's load leaves the multiply-adds idle, where with one tile
// per block every block loaded, waited at its barrier, then computed.
// In the compute each thread walks the RYC+KH-1 tile rows its chunk's
// outputs need. Of each row it loads the RX+KW-1 values its outputs read
// into registers once (RT_SEGV-wide shared loads: 128-bit when RX is a
// multiple of 4), and every value feeds up to RX*RYC multiply-adds whose
// weights are constant-bank operands (the whole walk of a chunk is
// unrolled while it holds at most RT_UNROLL_LIMIT multiply-adds; see
// below). Outputs are stored as RT_SEGV-wide vectors where the layout and
// the width allow.
//
// Summation order: output (r, k) accumulates tile row t = r + j for
// increasing t, that is filter rows j in increasing order, columns i in
// increasing order within a row: the reference order, whatever the
// chunks. With --fmad=false the output equals the CPU naive baseline bit
// for bit.
//
// Dynamic shared memory: RT_PITCH*(BY*RYC+KH-1)*4 bytes, twice that with
// more than one chunk.
//
// Compile-time: KW, KH, BX, BY, RX, RY, RYC, VEC_IN plus the parameters of
// border.cuh (CH_IN_X among them).
#include "border.cuh"

#ifndef RX
#define RX 4
#endif
#ifndef RY
#define RY 4
#endif
#ifndef VEC_IN
#define VEC_IN 0
#endif
// RYC: the rows of outputs per thread of one chunk (see the header
// comment); RY by default, one chunk.
#ifndef RYC
#define RYC RY
#endif
#if RYC < 1 || RY % RYC != 0
#error "RYC must divide RY"
#endif
#define RT_NCH (RY / RYC)

// Outputs of one block in x and y, of one chunk in y, and the input tile
// of a chunk.
#define RT_OW (BX * RX)
#define RT_OH (BY * RY)
#define RT_CH_OH (BY * RYC)
#if VEC_IN && RT_OW % 4 != 0
#error "VEC_IN needs BX*RX to be a multiple of 4"
#endif
// x0 = blockIdx.x*RT_OW - KW/2 is -(KW/2) mod 4 for every block when
// RT_OW is a multiple of 4; the tile starts RT_SH columns before it.
#define RT_SH ((4 - (KW / 2) % 4) % 4)
#define RT_TW (RT_SH + RT_OW + KW - 1)
#define RT_TH (RT_CH_OH + KH - 1)
// Floats of one tile buffer; chunked blocks keep two.
#define RT_BUF (RT_PITCH * RT_TH)
// Tile row pitch in floats: a multiple of 4, so that every RX-aligned
// segment of a row starts on an RT_SEGV-float boundary.
#define RT_PITCH ((RT_TW + 3) / 4 * 4)

// Width of the shared loads of a segment and of the output stores.
#if RX % 4 == 0
#define RT_SEGV 4
#elif RX % 2 == 0
#define RT_SEGV 2
#else
#define RT_SEGV 1
#endif
// Segment length: from the thread's RT_SEGV-aligned tile column tx*RX,
// the RT_SH columns before its first input column and the RX+KW-1 values
// its row feeds, rounded up to whole loads (the extra values come from
// the pitch padding and stay unused).
#define RT_SEG ((RT_SH + RX + KW - 1 + RT_SEGV - 1) / RT_SEGV * RT_SEGV)

// 4-element loads per tile row of the VEC_IN fill, in the whole tile, and
// per thread (RT_FILL_N, rounded up). The fill issues up to RT_BATCH
// loads into registers before it stores any of them, so that each
// thread has that many independent 16-byte loads in flight.
#define RT_NV (RT_PITCH / 4)
#define RT_NVEC (RT_TH * RT_NV)
#define RT_FILL_N ((RT_NVEC + BX * BY - 1) / (BX * BY))
#define RT_BATCH 4

// Blocks per SM the compiler must fit (__launch_bounds__'s second
// argument): with one chunk of at most 8 outputs per thread, as many
// blocks as fill an SM's 64 warps (at most 32 blocks), that is at most 32
// registers per thread, which 8 accumulators and a row segment need no
// more than; more outputs, or the registers that hold a chunk's prefetched
// input, leave the register count to the compiler.
#define RT_WARPS ((BX * BY + 31) / 32)
#if RX * RYC <= 8 && RT_NCH == 1
#define RT_MINB (64 / RT_WARPS < 32 ? 64 / RT_WARPS : 32)
#else
#define RT_MINB 1
#endif

// The row walk of a chunk: tile row t feeds output row r (of the RYC
// rows of a thread's chunk) through filter row j = t - r where
// 0 <= j < KH. Rows RYC-1 .. KH-1 (the body) feed all RYC output rows;
// the first RYC-1 rows (the head) and the rows after the body
// (the tail) feed only some, and are unrolled completely so that their
// tests of j fold away. The body is unrolled completely while the whole
// walk holds at most RT_UNROLL_LIMIT multiply-adds (RegtileUnrollLimit in
// regtile.go), else walked in a loop (its weights then come from the
// constant cache by a run-time index). Rows are taken in increasing t
// either way.
#define RT_UNROLL_LIMIT 8192
#define RT_ROWS (RYC + KH - 1)
#define RT_BODY_END (KH > RYC - 1 ? KH : RYC - 1)
#if KH >= RYC && RX * RYC * KW * KH <= RT_UNROLL_LIMIT
#define RT_UNROLL_BODY (KH - RYC + 1)
#else
#define RT_UNROLL_BODY 1
#endif

__constant__ float c_filter[KW * KH];

// rt_load_segment copies RT_SEG floats of a tile row, starting at p (an
// RT_SEGV-float boundary), into v.
__device__ __forceinline__ void rt_load_segment(float (&v)[RT_SEG], const float* p)
{
#pragma unroll
    for (int m = 0; m < RT_SEG / RT_SEGV; ++m) {
#if RT_SEGV == 4
        const float4 q = reinterpret_cast<const float4*>(p)[m];
        v[4 * m] = q.x;
        v[4 * m + 1] = q.y;
        v[4 * m + 2] = q.z;
        v[4 * m + 3] = q.w;
#elif RT_SEGV == 2
        const float2 q = reinterpret_cast<const float2*>(p)[m];
        v[2 * m] = q.x;
        v[2 * m + 1] = q.y;
#else
        v[m] = p[m];
#endif
    }
}

// rt_row adds tile row t (row points at the thread's segment) to the
// outputs it feeds; ALL says it feeds every output row, so no test is
// needed.
template <bool ALL>
__device__ __forceinline__ void rt_row(float (&s)[RYC][RX], const float* row, int t)
{
    float v[RT_SEG];
    rt_load_segment(v, row);
#pragma unroll
    for (int i = 0; i < KW; ++i) {
#pragma unroll
        for (int r = 0; r < RYC; ++r) {
            const int j = t - r;
            if (ALL || (j >= 0 && j < KH)) {
                const float w = c_filter[j * KW + i];
#pragma unroll
                for (int k = 0; k < RX; ++k) {
                    s[r][k] += w * v[RT_SH + k + i];
                }
            }
        }
    }
}

#if VEC_IN
#define VF_NV RT_NV
#define VF_NVEC RT_NVEC
#define VF_FILL_N RT_FILL_N
#define VF_BATCH RT_BATCH
#include "vecfill.cuh"
            }
        }
    }
}

// rt_prefetch loads the interior tile at (x0, y0) into registers, every
// pixel inside the image (as for vf_fill_vec<false>); rt_commit stores
// them into a tile buffer.
__device__ __forceinline__ void rt_prefetch(float4 (&q)[RT_FILL_N], const in_t* __restrict__ in, int x0, int y0, int c, int H, idx_t S)
{
    const int tid = threadIdx.y * BX + threadIdx.x;
    const in_t* base = in + in_offset(x0, y0, c, H, S);
#pragma unroll
    for (int n = 0; n < RT_FILL_N; ++n) {
        const int e = tid + n * (BX * BY);
        if (e < RT_NVEC) {
            const int ty = e / RT_NV;
            q[n] = vf_ld4(base + (idx_t)ty * S + 4 * (e - ty * RT_NV));
        }
    }
}

__device__ __forceinline__ void rt_commit(float4* dst, const float4 (&q)[RT_FILL_N])
{
    const int tid = threadIdx.y * BX + threadIdx.x;
#pragma unroll
    for (int n = 0; n < RT_FILL_N; ++n) {
        const int e = tid + n * (BX * BY);
        if (e < RT_NVEC) {
            dst[e] = q[n];
        }
    }
}
#endif

// rt_fill fills one tile buffer with the input tile whose top-left pixel
// is (x0, y0), by the fills of the header comment. It has no barrier.
__device__ __forceinline__ void rt_fill(float4* dst, const in_t* __restrict__ in, int x0, int y0, int c, int W, int H, idx_t S)
{
#if VEC_IN
    // Vector loads: input rows start on 4-element boundaries (checked by
    // the plan) and tile column 0 is the 4-aligned image column x0, so
    // each load fills 4 tile columns of one row, the last ones up to the
    // pitch. Blocks at an edge map each load through the border.
    if (x0 >= 0 && y0 >= 0 && x0 + RT_PITCH <= W && y0 + RT_TH <= H) {
        vf_fill_vec<false>(dst, in, x0, y0, c, W, H, S);
    } else {
        vf_fill_vec<true>(dst, in, x0, y0, c, W, H, S);
    }
#else
    float* tile = reinterpret_cast<float*>(dst);
    const bool interior = x0 >= 0 && y0 >= 0 && x0 + RT_TW <= W && y0 + RT_TH <= H;
    if (interior) {
        for (int ty = threadIdx.y; ty < RT_TH; ty += BY) {
            const in_t* row = in + in_offset(x0, y0 + ty, c, H, S);
            for (int tx = threadIdx.x; tx < RT_TW; tx += BX) {
#if PLANAR
                tile[ty * RT_PITCH + tx] = (float)row[tx];
#else
                tile[ty * RT_PITCH + tx] = (float)row[tx * CHANNELS];
#endif
            }
        }
    } else {
        for (int ty = threadIdx.y; ty < RT_TH; ty += BY) {
            for (int tx = threadIdx.x; tx < RT_TW; tx += BX) {
                tile[ty * RT_PITCH + tx] = read_px(in, x0 + tx, y0 + ty, c, W, H, S);
            }
        }
    }
#endif
}

// rt_chunk computes the thread's RYC x RX outputs of the chunk whose tile
// is in tile (their first row ybase, first column xbase) and stores them.
__device__ __forceinline__ void rt_chunk(const float* tile, float* __restrict__ out, int xbase, int ybase, int c, int W, int H)
{
    float s[RYC][RX];
#pragma unroll
    for (int r = 0; r < RYC; ++r) {
#pragma unroll
        for (int k = 0; k < RX; ++k) {
            s[r][k] = 0.f;
        }
    }
    const float* tp = tile + (threadIdx.y * RYC) * RT_PITCH + threadIdx.x * RX;
#pragma unroll
    for (int t = 0; t < RYC - 1; ++t) {
        rt_row<false>(s, tp + t * RT_PITCH, t);
    }
#pragma unroll RT_UNROLL_BODY
    for (int t = RYC - 1; t < RT_BODY_END; ++t) {
        rt_row<true>(s, tp + t * RT_PITCH, t);
    }
#pragma unroll
    for (int t = RT_BODY_END; t < RT_ROWS; ++t) {
        rt_row<false>(s, tp + t * RT_PITCH, t);
    }

#if RT_SEGV > 1 && (CHANNELS == 1 || PLANAR)
    // Whole vectors: the thread's RX columns lie inside the row and every
    // output row starts on an RT_SEGV-float boundary.
    if (xbase + RX <= W && out_rows_aligned(W, RT_SEGV)) {
#pragma unroll
        for (int r = 0; r < RYC; ++r) {
            if (ybase + r < H) {
                float* o = out + out_offset(xbase, ybase + r, c, W, H);
#pragma unroll
                for (int m = 0; m < RX / RT_SEGV; ++m) {
#if RT_SEGV == 4
                    float4 q;
                    q.x = s[r][4 * m];
                    q.y = s[r][4 * m + 1];
                    q.z = s[r][4 * m + 2];
                    q.w = s[r][4 * m + 3];
                    reinterpret_cast<float4*>(o)[m] = q;
#else
                    float2 q;
                    q.x = s[r][2 * m];
                    q.y = s[r][2 * m + 1];
                    reinterpret_cast<float2*>(o)[m] = q;
#endif
                }
            }
        }
        return;
    }
#endif
#pragma unroll
    for (int r = 0; r < RYC; ++r) {
#pragma unroll
        for (int k = 0; k < RX; ++k) {
            if (ybase + r < H && xbase + k < W) {
                out[out_offset(xbase + k, ybase + r, c, W, H)] = s[r][k];
            }
        }
    }
}

extern "C" __global__ void __launch_bounds__(BX * BY, RT_MINB)
conv_regtile(const in_t* __restrict__ in, float* __restrict__ out, int W, int H, idx_t S)
{
    extern __shared__ float4 rt_smem[];
    const int c = tile_ch();
    // x0 is the image column of tile column 0; yb the block's first
    // output row.
    const int x0 = tile_bx() * RT_OW - KW / 2 - RT_SH;
    const int yb = blockIdx.y * RT_OH;
    const int xbase = tile_bx() * RT_OW + threadIdx.x * RX;

    rt_fill(rt_smem, in, x0, yb - KH / 2, c, W, H, S);
    __syncthreads();
#if RT_NCH == 1
    if (xbase < W && yb + threadIdx.y * RYC < H) {
        rt_chunk(reinterpret_cast<const float*>(rt_smem), out, xbase, yb + threadIdx.y * RYC, c, W, H);
    }
#else
    // Chunks, each with its own tile buffer of two: while a chunk is
    // computed the next chunk's input is in flight (interior tiles under
    // VEC_IN: loaded into registers before the compute, stored after it;
    // others filled after the compute). Every thread runs every chunk, so
    // each barrier is reached by all.
    for (int q = 0; q < RT_NCH; ++q) {
        const float4* cur = rt_smem + (q & 1) * (RT_BUF / 4);
        float4* nxt = rt_smem + ((q + 1) & 1) * (RT_BUF / 4);
        const int yn = yb + (q + 1) * RT_CH_OH - KH / 2;
        const bool more = q + 1 < RT_NCH;
#if VEC_IN
        const bool pre = more && x0 >= 0 && yn >= 0 && x0 + RT_PITCH <= W && yn + RT_TH <= H;
        float4 pf[RT_FILL_N];
        if (pre) {
            rt_prefetch(pf, in, x0, yn, c, H, S);
        }
#endif
        const int ybase = yb + q * RT_CH_OH + threadIdx.y * RYC;
        if (xbase < W && ybase < H) {
            rt_chunk(reinterpret_cast<const float*>(cur), out, xbase, ybase, c, W, H);
        }
#if VEC_IN
        if (pre) {
            rt_commit(nxt, pf);
        } else if (more) {
            rt_fill(nxt, in, x0, yn, c, W, H, S);
        }
#else
        if (more) {
            rt_fill(nxt, in, x0, yn, c, W, H, S);
        }
#endif
        __syncthreads();
    }
#endif
}
