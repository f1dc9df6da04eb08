// rgb2yuv.cu: report 004's RGB -> YUV conversion, 8-bit BT.601 fixed point,
// interleaved RGB in, planar Y, U, V out.
//
// The arithmetic is convolve.RGBToYUVPixel's, bit for bit: integer
// products with 8-bit coefficients, +128, arithmetic shift right by 8,
// offset; every result lies in 0..255.
//
// Memory strategy:
//   yuv_naive  one thread per pixel: three byte loads from the interleaved
//              row, three byte stores, one into each plane. A warp's loads
//              cover 96 contiguous bytes and its stores 32 bytes per plane,
//              so traffic is coalesced but every access is one byte wide.
//   yuv_opt    one thread per run of 16 pixels of a row: three 128-bit
//              loads bring in its 48 RGB bytes and three 128-bit stores
//              write 16 bytes of each plane (the report's proposed wide
//              loads, taken to 16 bytes). A run that is cut by the row end
//              or whose addresses are not 16-byte aligned falls back to
//              byte accesses, so any width and stride are correct. A plan
//              hands a packed image to it as one row of W*H pixels, and
//              keeps the planes 16-byte aligned, so only the tail is
//              scalar.
//
// Both kernels take the row count and each row's pixel count as
// arguments, and the three plane pointers already offset to the first row:
// the same code converts a whole image or one chunk of rows of the
// streamed pipeline. Rows beyond what the grid covers are taken by a
// grid-stride loop.
//
// Compile-time: BX, BY (yuv_naive's block; yuv_opt uses BX*BY threads in
// x). Input row stride S is in bytes; output rows are packed (W bytes).

typedef unsigned char u8;

__device__ __forceinline__ void yuv_pixel(int r, int g, int b, u8* y, u8* u, u8* v)
{
    *y = (u8)(((66 * r + 129 * g + 25 * b + 128) >> 8) + 16);
    *u = (u8)(((-38 * r - 74 * g + 112 * b + 128) >> 8) + 128);
    *v = (u8)(((112 * r - 94 * g - 18 * b + 128) >> 8) + 128);
}

extern "C" __global__ void __launch_bounds__(BX * BY)
yuv_naive(const u8* __restrict__ in, u8* __restrict__ py, u8* __restrict__ pu, u8* __restrict__ pv,
          int W, int rows, long long S)
{
    const int x = blockIdx.x * BX + threadIdx.x;
    if (x >= W) {
        return;
    }
    for (int row = blockIdx.y * BY + threadIdx.y; row < rows; row += gridDim.y * BY) {
        const u8* p = in + (long long)row * S + 3LL * x;
        const long long o = (long long)row * W + x;
        yuv_pixel(p[0], p[1], p[2], py + o, pu + o, pv + o);
    }
}

#define YUV_RUN 16

extern "C" __global__ void __launch_bounds__(BX * BY)
yuv_opt(const u8* __restrict__ in, u8* __restrict__ py, u8* __restrict__ pu, u8* __restrict__ pv,
        long long W, int rows, long long S)
{
    const long long x = ((long long)blockIdx.x * (BX * BY) + threadIdx.x) * YUV_RUN;
    if (x >= W) {
        return;
    }
    for (int row = blockIdx.y; row < rows; row += gridDim.y) {
        const u8* src = in + (long long)row * S + 3 * x;
        const long long o = (long long)row * W + x;
        u8* dy = py + o;
        u8* du = pu + o;
        u8* dv = pv + o;
        const bool aligned = ((((unsigned long long)src) | ((unsigned long long)dy) |
                               ((unsigned long long)du) | ((unsigned long long)dv)) & 15) == 0;
        if (x + YUV_RUN <= W && aligned) {
            uint4 rgb[3];
            rgb[0] = reinterpret_cast<const uint4*>(src)[0];
            rgb[1] = reinterpret_cast<const uint4*>(src)[1];
            rgb[2] = reinterpret_cast<const uint4*>(src)[2];
            const u8* b = reinterpret_cast<const u8*>(rgb);
            uint4 oy, ou, ov;
            u8* by = reinterpret_cast<u8*>(&oy);
            u8* bu = reinterpret_cast<u8*>(&ou);
            u8* bv = reinterpret_cast<u8*>(&ov);
#pragma unroll
            for (int i = 0; i < YUV_RUN; ++i) {
                yuv_pixel(b[3 * i], b[3 * i + 1], b[3 * i + 2], by + i, bu + i, bv + i);
            }
            *reinterpret_cast<uint4*>(dy) = oy;
            *reinterpret_cast<uint4*>(du) = ou;
            *reinterpret_cast<uint4*>(dv) = ov;
        } else {
            const int n = (int)(W - x < YUV_RUN ? W - x : YUV_RUN);
            for (int i = 0; i < n; ++i) {
                yuv_pixel(src[3 * i], src[3 * i + 1], src[3 * i + 2], dy + i, du + i, dv + i);
            }
        }
    }
}
