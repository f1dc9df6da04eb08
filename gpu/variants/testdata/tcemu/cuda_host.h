// cuda_host.h: the CUDA C++ that tc.cu uses, on the host, for tcemu.cpp:
// every thread of a block is a coroutine, __syncthreads a return to the
// scheduler until every thread of the block has reached it, and the
// built-in indices globals the scheduler sets before it resumes a
// thread. Blocks run one after the other, so one static array stands for
// a block's dynamic shared memory.
#pragma once

#include <cstring>

#define __global__
#define __device__
#define __forceinline__ inline
#define __noinline__ __attribute__((noinline))
#define __shared__
#define __launch_bounds__(...)

struct float2 {
    float x, y;
};

struct host_dim3 {
    unsigned x, y, z;
};

extern host_dim3 threadIdx;
extern host_dim3 blockIdx;

void host_syncthreads();
#define __syncthreads() host_syncthreads()

inline unsigned __float_as_uint(float f)
{
    unsigned u;
    std::memcpy(&u, &f, 4);
    return u;
}

inline float __uint_as_float(unsigned u)
{
    float f;
    std::memcpy(&f, &u, 4);
    return f;
}
