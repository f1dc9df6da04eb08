// sepfused.cu: the fused separable convolution for rank-1 filters
// w(i,j) = col[j]*row[i] (no report): the row pass and the column pass in
// one kernel, the row pass's result kept in shared memory, so that the
// image is read once and the output written once, with no intermediate
// image in global memory.
//
// Memory strategy: a BX x BY block computes a (BX*4) x (BY*RY) output
// tile. It loads the input tile with its halo, FS_TW = FS_SH+BX*4+KW-1
// columns by FS_TH = BY*RY+KH-1 rows, into dynamic shared memory as float
// (rows FS_PITCH floats apart, a multiple of 4; 4 more than a multiple of
// 32 under RXR = 8):
//   - under VEC_IN (pixels contiguous in a row, every input row starting
//     on a 4-element boundary; BX*4 columns per block, so that every tile
//     starts on a 4-aligned image column x0 - FS_SH): vector loads of 4
//     elements (16, 8 or 4 bytes for float, short, unsigned char),
//     converted to float, up to FS_BATCH per thread in flight before
//     their 128-bit shared stores.
//     Interior blocks map nothing; a block at an edge maps each load's
//     row through the border and loads the 4 pixels as one vector where
//     they lie inside the image, else one by one through read_px;
//   - otherwise interior blocks: coalesced scalar loads, no border
//     mapping;
//   - otherwise blocks that reach past an image edge: every element
//     through read_px, the border mapping of both coordinates
//     (border.cuh).
// Row pass, in place: each thread takes RXR (4 or 8) adjacent columns of
// one tile row, loads the FS_SH+RXR+KW-1 values they read into registers
// (128-bit shared loads), sums row[i]*pixel for each, and after a
// __syncthreads() that orders every read of the step before every write,
// stores the RXR sums over the first BX*4 columns of the same row (a step
// covers BY*RXR/4 rows). With 8 columns a thread each segment load feeds
// twice the sums; a warp then walks down rows rather than along one, so
// that its loads at one column do not share banks. Column pass: each thread owns 4 adjacent columns of RY output
// rows and walks the RY+KH-1 row-pass rows they read, one 128-bit shared
// load per row feeding up to 4*RY multiply-adds. Outputs are stored as
// 128-bit vectors where the layout and the width allow.
//
// Borders: a tile row outside the image is the border-mapped image row
// (zero for the zero border), so its row-pass sums are those of the mapped
// row: exactly what a column pass over a row-pass image with the border
// applied along y reads (separable.cu). Since the border mapping of each
// axis is independent, this equals the 2-D convolution with the border
// applied to both coordinates.
//
// Summation order: the row sum of each pixel adds row[i]*pixel for
// increasing i from 0.f, the column sum col[j]*rowsum for increasing j
// from 0.f: separable.cu's shared passes term by term, so the result is
// within convolve.Tolerance of the reference, not bit-equal to cpu-naive.
//
// Dynamic shared memory: FS_PITCH*FS_TH*4 bytes.
//
// Compile-time: KW, KH, BX, BY, RY, RX (always 4), RXR (4 or 8), VEC_IN
// plus the parameters of border.cuh.
#include "border.cuh"

#ifndef RY
#define RY 4
#endif
// Columns per thread: 4, one 128-bit vector (the plan's PerTile grid reads
// RX).
#ifndef RX
#define RX 4
#endif
#if RX != 4
#error "sep_fused computes RX = 4 columns per thread"
#endif
// Row-pass sums per thread: 4 (a thread per 4 columns of a row, BY rows a
// step) or 8 (a thread per 8 columns, 2*BY rows a step, consecutive
// threads on consecutive rows), each from one register segment.
#ifndef RXR
#define RXR 4
#endif
#if RXR != 4 && RXR != 8
#error "sep_fused's row pass sums RXR = 4 or 8 columns per thread"
#endif
#if (BX * 4) % RXR != 0
#error "sep_fused with RXR = 8 needs an even BX"
#endif
#ifndef VEC_IN
#define VEC_IN 0
#endif

#define FS_OW (BX * RX)
#define FS_OH (BY * RY)
// x0 = blockIdx.x*FS_OW - KW/2 is -(KW/2) mod 4 for every block; the tile
// starts FS_SH columns before it, on a 4-aligned image column.
#define FS_SH ((4 - (KW / 2) % 4) % 4)
#define FS_TW (FS_SH + FS_OW + KW - 1)
#define FS_TH (FS_OH + KH - 1)
// FS_LW: the columns loaded a tile row, whole 128-bit vectors.
#define FS_LW ((FS_TW + 3) / 4 * 4)
// With RXR = 8 a warp's row-pass threads walk down tile rows, so the
// pitch is 4 more than a multiple of 32 floats: 8 rows' 128-bit loads at
// one column fall in 8 different 16-byte slots of the banks.
#if RXR == 4
#define FS_PITCH FS_LW
#else
#define FS_PITCH ((FS_TW + 27) / 32 * 32 + 4)
#endif
// A row segment: the FS_SH columns before a thread's first input column
// and the RXR+KW-1 values its RXR row sums read, in whole 128-bit loads.
#define FS_SEG ((FS_SH + RXR + KW - 1 + 3) / 4 * 4)

#define FS_NV (FS_LW / 4)
#define FS_NVEC (FS_TH * FS_NV)
#define FS_FILL_N ((FS_NVEC + BX * BY - 1) / (BX * BY))
#define FS_BATCH 4
// Row pass: FS_RG threads a tile row, each summing RXR columns from a
// segment of FS_SEG values; FS_RR tile rows a step.
#define FS_RG (FS_OW / RXR)
#define FS_RR ((BX * BY) / FS_RG)
#define FS_STEPS ((FS_TH + FS_RR - 1) / FS_RR)

__constant__ float c_row[KW];
__constant__ float c_col[KH];

#if VEC_IN
#define VF_NV FS_NV
#define VF_NVEC FS_NVEC
#define VF_PITCH4 (FS_PITCH / 4)
#define VF_FILL_N FS_FILL_N
#define VF_BATCH FS_BATCH
#include "vecfill.cuh"
            }
        }
    }
}
#endif

extern "C" __global__ void __launch_bounds__(BX * BY)
sep_fused(const in_t* __restrict__ in, float* __restrict__ out, int W, int H, idx_t S)
{
    extern __shared__ float4 fs_smem[];
    float* tile = reinterpret_cast<float*>(fs_smem);
    const int c = tile_ch();
    const int x0 = tile_bx() * FS_OW - KW / 2 - FS_SH;
    const int y0 = blockIdx.y * FS_OH - KH / 2;

#if VEC_IN
    // 4-element vector loads of whole pitch rows from the 4-aligned
    // column x0; blocks at an edge map each load through the border.
    if (x0 >= 0 && y0 >= 0 && x0 + FS_LW <= W && y0 + FS_TH <= H) {
        vf_fill_vec<false>(fs_smem, in, x0, y0, c, W, H, S);
    } else {
        vf_fill_vec<true>(fs_smem, in, x0, y0, c, W, H, S);
    }
#else
    const bool interior = x0 >= 0 && y0 >= 0 && x0 + FS_TW <= W && y0 + FS_TH <= H;
    if (interior) {
        for (int ty = threadIdx.y; ty < FS_TH; ty += BY) {
            const in_t* row = in + in_offset(x0, y0 + ty, c, H, S);
            for (int tx = threadIdx.x; tx < FS_TW; tx += BX) {
#if PLANAR
                tile[ty * FS_PITCH + tx] = (float)row[tx];
#else
                tile[ty * FS_PITCH + tx] = (float)row[tx * CHANNELS];
#endif
            }
        }
    } else {
        for (int ty = threadIdx.y; ty < FS_TH; ty += BY) {
            for (int tx = threadIdx.x; tx < FS_TW; tx += BX) {
                tile[ty * FS_PITCH + tx] = read_px(in, x0 + tx, y0 + ty, c, W, H, S);
            }
        }
    }
#endif
    __syncthreads();

    // Row pass, in place. Every thread runs every step (the barrier is
    // reached by all); rows past the tile are skipped. A step's rows are
    // read before the barrier and written after it; no other step reads
    // them.
#if RXR == 4
    const int rr = threadIdx.y, g = threadIdx.x;
#else
    const int tid = threadIdx.y * BX + threadIdx.x;
    const int rr = tid % FS_RR, g = tid / FS_RR;
#endif
    for (int step = 0; step < FS_STEPS; ++step) {
        const int t = step * FS_RR + rr;
        float r[RXR];
#pragma unroll
        for (int k = 0; k < RXR; ++k) {
            r[k] = 0.f;
        }
        if (t < FS_TH) {
            const float4* p = reinterpret_cast<const float4*>(tile + t * FS_PITCH + g * RXR);
            float v[FS_SEG];
#pragma unroll
            for (int m = 0; m < FS_SEG / 4; ++m) {
                const float4 q = p[m];
                v[4 * m] = q.x;
                v[4 * m + 1] = q.y;
                v[4 * m + 2] = q.z;
                v[4 * m + 3] = q.w;
            }
#pragma unroll
            for (int i = 0; i < KW; ++i) {
                const float w = c_row[i];
#pragma unroll
                for (int k = 0; k < RXR; ++k) {
                    r[k] += w * v[FS_SH + k + i];
                }
            }
        }
        __syncthreads();
        if (t < FS_TH) {
            float4* q = reinterpret_cast<float4*>(tile + t * FS_PITCH + g * RXR);
#pragma unroll
            for (int m = 0; m < RXR / 4; ++m) {
                float4 o;
                o.x = r[4 * m];
                o.y = r[4 * m + 1];
                o.z = r[4 * m + 2];
                o.w = r[4 * m + 3];
                q[m] = o;
            }
        }
    }
    __syncthreads();

    // Column pass: output row ty*RY + o reads row-pass rows ty*RY + o + j.
    const int xbase = tile_bx() * FS_OW + threadIdx.x * 4;
    const int ybase = blockIdx.y * FS_OH + threadIdx.y * RY;
    if (xbase >= W || ybase >= H) {
        return;
    }
    float s[RY][4];
#pragma unroll
    for (int o = 0; o < RY; ++o) {
#pragma unroll
        for (int k = 0; k < 4; ++k) {
            s[o][k] = 0.f;
        }
    }
    const float* cp = tile + (threadIdx.y * RY) * FS_PITCH + threadIdx.x * 4;
#pragma unroll
    for (int t = 0; t < RY + KH - 1; ++t) {
        const float4 q = *reinterpret_cast<const float4*>(cp + t * FS_PITCH);
#pragma unroll
        for (int o = 0; o < RY; ++o) {
            const int j = t - o;
            if (j >= 0 && j < KH) {
                const float w = c_col[j];
                s[o][0] += w * q.x;
                s[o][1] += w * q.y;
                s[o][2] += w * q.z;
                s[o][3] += w * q.w;
            }
        }
    }

#if CHANNELS == 1 || PLANAR
    if (xbase + 4 <= W && out_rows_aligned(W, 4)) {
#pragma unroll
        for (int o = 0; o < RY; ++o) {
            if (ybase + o < H) {
                float4 q;
                q.x = s[o][0];
                q.y = s[o][1];
                q.z = s[o][2];
                q.w = s[o][3];
                *reinterpret_cast<float4*>(out + out_offset(xbase, ybase + o, c, W, H)) = q;
            }
        }
        return;
    }
#endif
#pragma unroll
    for (int o = 0; o < RY; ++o) {
#pragma unroll
        for (int k = 0; k < 4; ++k) {
            if (ybase + o < H && xbase + k < W) {
                out[out_offset(xbase + k, ybase + o, c, W, H)] = s[o][k];
            }
        }
    }
}
