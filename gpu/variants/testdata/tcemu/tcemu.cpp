// tcemu.cpp: runs tc.cu's conv_tc on the host, each CUDA thread of a
// block a coroutine (ucontext) of one OS thread, with mma.sync emulated
// for the whole warp (mma.cuh here). The scheduler resumes the block's
// threads in turn, each running to its next __syncthreads or mma: as
// every thread of tc.cu meets the same sequence of them, one round of
// resumptions brings every thread to the same one, which is what a
// barrier needs. Reads from
// stdin: int32 W, H, S (the input row stride in elements), then the
// input (IN_T elements, CHANNELS*H*S planar or H*S interleaved), then
// KW*KH float32 weights; writes the W*H*CHANNELS float32 outputs to
// stdout in the output layout. Compile-time: the defines of tc.cu, and
// TC_ENTRY, the kernel to run (conv_tc unless set).
#include "cuda_host.h"

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <ucontext.h>
#include <vector>

host_dim3 threadIdx;
host_dim3 blockIdx;

// The scheduler's context and the running coroutine's.
static ucontext_t sched_ctx;
static ucontext_t* cur_ctx;

// yield returns to the scheduler until the running thread's next turn.
static void yield() { swapcontext(cur_ctx, &sched_ctx); }

void host_syncthreads() { yield(); }

// The fragments each lane hands to the current mma of its warp, how many
// lanes have, and the results, computed when the last lane arrives.
struct warp_frags {
    float a[32][4], b[32][2], c[32][4];
    float d[32][4];
    int arrived;
};
static warp_frags frags[64];

static void need_tf32(float v)
{
    if (__float_as_uint(v) & 0x1fffu) {
        std::fprintf(stderr, "tcemu: mma operand %a is not TF32\n", v);
        std::exit(3);
    }
}

// tc_sum is C + the products, accumulated as described in mma.cuh.
static float tc_sum(const double* p, int n, float c)
{
    double v[9];
    v[0] = c;
    for (int i = 0; i < n; ++i) {
        v[i + 1] = p[i];
    }
    double amax = 0;
    bool finite = true;
    for (int i = 0; i <= n; ++i) {
        finite = finite && std::isfinite(v[i]);
        amax = std::fmax(amax, std::fabs(v[i]));
    }
    if (!finite) {
        float s = c;
        for (int i = 0; i < n; ++i) {
            s += (float)p[i];
        }
        return s;
    }
    if (amax == 0) {
        return 0.f;
    }
    int e;
    std::frexp(amax, &e);
    const double quantum = std::ldexp(1.0, e - 24);
    double s = 0;
    for (int i = 0; i <= n; ++i) {
        s += std::trunc(v[i] / quantum) * quantum;
    }
    if (s == 0) {
        return 0.f;
    }
    int es;
    std::frexp(s, &es);
    const double q2 = std::ldexp(1.0, es - 24);
    return (float)(std::trunc(s / q2) * q2);
}

// warp_mma computes D = A*B + C for warp f from its lanes' fragments,
// laid out as .bf16 fragments when bf16 is set, else as .tf32 ones.
static void warp_mma(warp_frags& f, bool bf16)
{
    float A[16][8], B[8][8], C[16][8];
    for (int l = 0; l < 32; ++l) {
        const int g = l / 4, t = l % 4;
        if (bf16) {
            A[g][2 * t] = f.a[l][0];
            A[g][2 * t + 1] = f.a[l][1];
            A[g + 8][2 * t] = f.a[l][2];
            A[g + 8][2 * t + 1] = f.a[l][3];
            B[2 * t][g] = f.b[l][0];
            B[2 * t + 1][g] = f.b[l][1];
        } else {
            A[g][t] = f.a[l][0];
            A[g + 8][t] = f.a[l][1];
            A[g][t + 4] = f.a[l][2];
            A[g + 8][t + 4] = f.a[l][3];
            B[t][g] = f.b[l][0];
            B[t + 4][g] = f.b[l][1];
        }
        C[g][2 * t] = f.c[l][0];
        C[g][2 * t + 1] = f.c[l][1];
        C[g + 8][2 * t] = f.c[l][2];
        C[g + 8][2 * t + 1] = f.c[l][3];
    }
    for (int l = 0; l < 32; ++l) {
        const int g = l / 4, t = l % 4;
        for (int i = 0; i < 4; ++i) {
            const int m = g + (i >> 1) * 8, n = 2 * t + (i & 1);
            double p[8];
            for (int k = 0; k < 8; ++k) {
                p[k] = (double)A[m][k] * (double)B[k][n];
            }
            f.d[l][i] = tc_sum(p, 8, C[m][n]);
        }
    }
}

// arrive records that the running lane has handed its fragments to its
// warp's mma, computes the mma when it is the last, and returns the
// lane's part of D once every lane has arrived.
static void arrive(float (&d)[4], bool bf16)
{
    const int lane = threadIdx.x;
    warp_frags& f = frags[threadIdx.y];
    if (++f.arrived == 32) {
        f.arrived = 0;
        warp_mma(f, bf16);
    }
    yield();
    for (int i = 0; i < 4; ++i) {
        d[i] = f.d[lane][i];
    }
}

void host_mma(float (&d)[4], const float (&a)[4], const float (&b)[2], const float (&c)[4])
{
    const int lane = threadIdx.x;
    warp_frags& f = frags[threadIdx.y];
    for (int i = 0; i < 4; ++i) {
        need_tf32(a[i]);
        f.a[lane][i] = a[i];
        f.c[lane][i] = c[i];
    }
    for (int i = 0; i < 2; ++i) {
        need_tf32(b[i]);
        f.b[lane][i] = b[i];
    }
    arrive(d, false);
}

// bf16_lo and bf16_hi are the halves of a packed pair as float.
static float bf16_lo(unsigned v) { return __uint_as_float(v << 16); }
static float bf16_hi(unsigned v) { return __uint_as_float(v & 0xffff0000u); }

void host_mma_bf16(float (&d)[4], const unsigned (&a)[2], unsigned b, const float (&c)[4])
{
    const int lane = threadIdx.x;
    warp_frags& f = frags[threadIdx.y];
    f.a[lane][0] = bf16_lo(a[0]);
    f.a[lane][1] = bf16_hi(a[0]);
    f.a[lane][2] = bf16_lo(a[1]);
    f.a[lane][3] = bf16_hi(a[1]);
    f.b[lane][0] = bf16_lo(b);
    f.b[lane][1] = bf16_hi(b);
    for (int i = 0; i < 4; ++i) {
        f.c[lane][i] = c[i];
    }
    arrive(d, true);
}

#include "tc.cu"

float tc_smem[1 << 16];

// The kernel's arguments, and whether the coroutine that just yielded has
// returned from it.
static struct {
    const in_t* in;
    const float* filter;
    float* out;
    int W, H;
    idx_t S;
} run_args;
static bool running_done;

#ifndef TC_ENTRY
#define TC_ENTRY conv_tc
#endif

static void thread_main()
{
    TC_ENTRY(run_args.in, run_args.filter, run_args.out, run_args.W, run_args.H, run_args.S);
    running_done = true;
}

static void read_all(void* p, size_t n)
{
    if (std::fread(p, 1, n, stdin) != n) {
        std::fprintf(stderr, "tcemu: short input\n");
        std::exit(2);
    }
}

int main()
{
    int32_t dims[3];
    read_all(dims, sizeof dims);
    const int W = dims[0], H = dims[1], S = dims[2];
    const size_t nin = PLANAR ? (size_t)CHANNELS * H * S : (size_t)H * S;
    std::vector<in_t> in(nin);
    read_all(in.data(), nin * sizeof(in_t));
    std::vector<float> filter(KW * KH);
    read_all(filter.data(), filter.size() * 4);
    std::vector<float> out((size_t)W * H * CHANNELS, NAN);

    const size_t shared = (size_t)TC_TH * TC_P + (size_t)KH * TC_FP * (1 + SPLIT);
    if (shared > sizeof tc_smem / sizeof(float) || BY > 64) {
        std::fprintf(stderr, "tcemu: block too large\n");
        return 2;
    }
    const int gx = (W + TC_OW - 1) / TC_OW, gy = (H + TC_OH - 1) / TC_OH;
    const int nt = BX * BY;
    const size_t stack = 256 << 10;
    std::vector<ucontext_t> ctx(nt);
    std::vector<std::vector<char>> stacks(nt, std::vector<char>(stack));
    std::vector<char> done(nt);
    for (int bz = 0; bz < CHANNELS; ++bz) {
        for (int by = 0; by < gy; ++by) {
            for (int bx = 0; bx < gx; ++bx) {
                for (size_t i = 0; i < sizeof tc_smem / sizeof(float); ++i) {
                    tc_smem[i] = NAN;
                }
                for (int i = 0; i < nt; ++i) {
                    run_args = {in.data(), filter.data(), out.data(), W, H, S};
                    getcontext(&ctx[i]);
                    ctx[i].uc_stack.ss_sp = stacks[i].data();
                    ctx[i].uc_stack.ss_size = stack;
                    ctx[i].uc_link = &sched_ctx;
                    makecontext(&ctx[i], (void (*)())thread_main, 0);
                    done[i] = 0;
                }
                blockIdx = {(unsigned)bx, (unsigned)by, (unsigned)bz};
                for (int left = nt; left > 0;) {
                    for (int i = 0; i < nt; ++i) {
                        if (done[i]) {
                            continue;
                        }
                        threadIdx = {(unsigned)(i % BX), (unsigned)(i / BX), 0};
                        cur_ctx = &ctx[i];
                        running_done = false;
                        swapcontext(&sched_ctx, &ctx[i]);
                        if (running_done) {
                            done[i] = 1;
                            --left;
                        }
                    }
                }
            }
        }
    }
    std::fwrite(out.data(), 4, out.size(), stdout);
    return 0;
}
