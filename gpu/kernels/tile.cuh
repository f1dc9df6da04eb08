// tile.cuh: a thread block's input tile with its halo, loaded into shared
// memory as float with the border applied. Every family that stages its
// input in shared memory takes the tile's shape and its load from here.
//
// Shape: a block of BX x BY threads computes BX columns and BY*RY rows of
// output (RY outputs per thread, stacked vertically; RY is 1 unless the
// family defines it). Their taps read the TILE_W x TILE_H input pixels
//
//   TILE_W = BX + KW - 1        TILE_H = BY*RY + KH - 1
//
// whose top-left pixel is (tile_x0(), tile_y0()): the output tile grown by
// KW/2 columns on the left, KW-1-KW/2 on the right, and likewise KH/2 rows
// above and KH-1-KH/2 below. Tile element (tx, ty) is at tile[ty*TILE_W+tx]
// and output (x, y) of the block reads tile rows and columns from
// (x - blockIdx.x*BX, y - blockIdx.y*BY*RY) on. The Go side mirrors this
// shape in variants.Tile (shared memory size: TILE_W*TILE_H*4 bytes).
//
// Loads (each followed by __syncthreads() in the kernel):
//   tile_load<Src>(tile, args)  the block slides over the tile: thread
//                               (tx, ty) loads (tx + m*BX, ty + n*BY).
//   tile_load_rows<Src>(...)    the threads regroup into groups of 32 (one
//                               warp, or the whole block when smaller) and
//                               each group copies whole tile rows, 32
//                               consecutive pixels per step, so every read
//                               is one coalesced row segment whatever the
//                               block shape.
//   tile_load_global(tile, ...) tile_load from global memory, with plain
//                               row loads and no border mapping when the
//                               tile lies wholly inside the image.
// Src is a type whose static Src::px(x, y, args...) returns the pixel at
// image coordinates (x, y) with the border applied, as float: global_src
// (read_px) here, tex_src (a texture fetch) in texture.cu. The arguments
// travel as plain values, so a kernel's const __restrict__ input pointer
// keeps its read-only, no-alias loads. Every load stores the same values (the
// exact float of each input element, or 0 for a zero-border pixel
// outside), so the choice of load never changes a sum.
//
// Compile-time: KW, KH, BX, BY, optionally RY, plus the parameters of
// border.cuh (included here).
#pragma once

#include "border.cuh"

#ifndef RY
#define RY 1
#endif

#define TILE_W (BX + KW - 1)
#define TILE_H (BY * RY + KH - 1)

// tile_x0 and tile_y0 are the image coordinates of the block's tile's
// top-left pixel.
__device__ __forceinline__ int tile_x0() { return blockIdx.x * BX - KW / 2; }
__device__ __forceinline__ int tile_y0() { return blockIdx.y * (BY * RY) - KH / 2; }

// global_src reads channel c of an input in global memory with the border
// applied (read_px); its arguments are (in, c, W, H, S).
struct global_src {
    static __device__ __forceinline__ float px(int x, int y, const in_t* __restrict__ in, int c, int W, int H, idx_t S)
    {
        return read_px(in, x, y, c, W, H, S);
    }
};

template <class Src, class... Args>
__device__ __forceinline__ void tile_load(float* tile, Args... args)
{
    const int x0 = tile_x0();
    const int y0 = tile_y0();
    for (int ty = threadIdx.y; ty < TILE_H; ty += BY) {
        for (int tx = threadIdx.x; tx < TILE_W; tx += BX) {
            tile[ty * TILE_W + tx] = Src::px(x0 + tx, y0 + ty, args...);
        }
    }
}

#define TILE_THREADS (BX * BY)
#define TILE_GROUP (TILE_THREADS < 32 ? TILE_THREADS : 32)
#define TILE_GROUPS (TILE_THREADS / TILE_GROUP)

template <class Src, class... Args>
__device__ __forceinline__ void tile_load_rows(float* tile, Args... args)
{
    const int x0 = tile_x0();
    const int y0 = tile_y0();
    const int t = threadIdx.y * BX + threadIdx.x;
    const int g = t / TILE_GROUP;
    const int lane = t % TILE_GROUP;
    if (g < TILE_GROUPS) {
        for (int ty = g; ty < TILE_H; ty += TILE_GROUPS) {
            for (int tx = lane; tx < TILE_W; tx += TILE_GROUP) {
                tile[ty * TILE_W + tx] = Src::px(x0 + tx, y0 + ty, args...);
            }
        }
    }
}

// tile_load_global loads channel c of the input in global memory. A tile
// wholly inside the W x H image is read row by row without any border
// mapping; any other goes through read_px.
__device__ __forceinline__ void tile_load_global(float* tile, const in_t* __restrict__ in, int c, int W, int H, idx_t S)
{
    const int x0 = tile_x0();
    const int y0 = tile_y0();
    if (x0 >= 0 && y0 >= 0 && x0 + TILE_W <= W && y0 + TILE_H <= H) {
        for (int ty = threadIdx.y; ty < TILE_H; ty += BY) {
            const in_t* row = in + in_offset(x0, y0 + ty, c, H, S);
            for (int tx = threadIdx.x; tx < TILE_W; tx += BX) {
#if PLANAR
                tile[ty * TILE_W + tx] = (float)row[tx];
#else
                tile[ty * TILE_W + tx] = (float)row[tx * CHANNELS];
#endif
            }
        }
    } else {
        tile_load<global_src>(tile, in, c, W, H, S);
    }
}
