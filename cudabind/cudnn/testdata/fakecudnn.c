/* fakecudnn.c: a stand-in for cuDNN 9 with the real prototypes of the
 * entry points package cudnn binds, for tests on hosts without cuDNN or a
 * GPU. Built twice: with -DSHIM it holds the handle, version, status and
 * tensor-descriptor calls (like libcudnn.so.9 exporting only part of the
 * API), with -DCNN the filter and convolution calls (like
 * libcudnn_cnn.so.9); with both it is one library.
 *
 * The "device" pointers are host pointers: cudnnConvolutionForward
 * computes the convolution on the CPU from what the descriptors say, as
 * cuDNN defines it (zero padding, CUDNN_CONVOLUTION flips the filter), so
 * a test can compare it with the reference. The algorithm search returns a
 * fixed list that exercises the caller's filtering. */
#include <stdlib.h>
#include <string.h>
#include <stddef.h>

typedef struct { int n, c, h, w, ns, cs, hs, ws; } Tensor;
typedef struct { int k, c, h, w; } Filter;
typedef struct { int ph, pw, u, v, dh, dw, mode, math; } Conv;
typedef struct {
    int algo; int status; float time; size_t memory;
    int determinism; int mathType; int reserved[3];
} Perf;

#ifdef SHIM
static int fake_version = 90100;
void fake_set_version(int v) { fake_version = v; }
size_t cudnnGetVersion(void) { return (size_t)fake_version; }
const char *cudnnGetErrorString(int s) {
    switch (s) {
    case 0: return "CUDNN_STATUS_SUCCESS";
    case 2000: return "CUDNN_STATUS_BAD_PARAM";
    case 3000: return "CUDNN_STATUS_NOT_SUPPORTED";
    }
    return "CUDNN_STATUS_UNKNOWN";
}
static void *last_stream;
int cudnnCreate(void **h) { *h = malloc(1); return 0; }
int cudnnDestroy(void *h) { free(h); return 0; }
int cudnnSetStream(void *h, void *s) { (void)h; last_stream = s; return 0; }
void *fake_last_stream(void) { return last_stream; }
int cudnnCreateTensorDescriptor(Tensor **d) { *d = calloc(1, sizeof(Tensor)); return 0; }
int cudnnDestroyTensorDescriptor(Tensor *d) { free(d); return 0; }
int cudnnSetTensor4dDescriptorEx(Tensor *d, int dt, int n, int c, int h, int w, int ns, int cs, int hs, int ws) {
    if (dt != 0 || n < 1 || c < 1 || h < 1 || w < 1 || ws < 1) return 2000;
    d->n = n; d->c = c; d->h = h; d->w = w; d->ns = ns; d->cs = cs; d->hs = hs; d->ws = ws;
    return 0;
}
#endif

#ifdef CNN
int cudnnCreateFilterDescriptor(Filter **d) { *d = calloc(1, sizeof(Filter)); return 0; }
int cudnnDestroyFilterDescriptor(Filter *d) { free(d); return 0; }
int cudnnSetFilter4dDescriptor(Filter *d, int dt, int format, int k, int c, int h, int w) {
    if (dt != 0 || format != 0) return 2000;
    d->k = k; d->c = c; d->h = h; d->w = w;
    return 0;
}
int cudnnCreateConvolutionDescriptor(Conv **d) { *d = calloc(1, sizeof(Conv)); return 0; }
int cudnnDestroyConvolutionDescriptor(Conv *d) { free(d); return 0; }
int cudnnSetConvolution2dDescriptor(Conv *d, int ph, int pw, int u, int v, int dh, int dw, int mode, int ct) {
    if (ct != 0 || u != 1 || v != 1 || dh != 1 || dw != 1 || (mode != 0 && mode != 1)) return 2000;
    d->ph = ph; d->pw = pw; d->u = u; d->v = v; d->dh = dh; d->dw = dw; d->mode = mode;
    return 0;
}
int cudnnSetConvolutionMathType(Conv *d, int m) {
    if (m < 0 || m > 3) return 2000;
    d->math = m;
    return 0;
}
int fake_math(Conv *d) { return d->math; }
int cudnnGetConvolution2dForwardOutputDim(Conv *c, Tensor *x, Filter *w, int *n, int *k, int *h, int *wd) {
    *n = x->n; *k = w->k;
    *h = (x->h + 2 * c->ph - w->h) / c->u + 1;
    *wd = (x->w + 2 * c->pw - w->w) / c->v + 1;
    return 0;
}
/* The search's results: fastest first, as cuDNN sorts them. */
static Perf results[] = {
    {4, 0, 0.010f, 1 << 20, 1, 3, {0}},     /* FFT */
    {6, 0, 0.020f, 4096, 1, 1, {0}},        /* WINOGRAD, tensor ops */
    {1, 0, 0.030f, 0, 0, 1, {0}},           /* IMPLICIT_PRECOMP_GEMM, not deterministic */
    {1, 0, 0.040f, 2048, 1, 1, {0}},        /* IMPLICIT_PRECOMP_GEMM, tensor ops */
    {1, 0, 0.050f, 1024, 1, 2, {0}},        /* IMPLICIT_PRECOMP_GEMM, conversion allowed */
    {0, 0, 0.060f, 0, 1, 3, {0}},           /* IMPLICIT_GEMM, FMA */
    {2, 3000, -1.0f, 0, 1, 3, {0}},         /* GEMM, not supported */
};
static size_t last_search_ws;
size_t fake_last_search_workspace(void) { return last_search_ws; }
/* As cuDNN does, an algorithm that needs more workspace than it is given
 * is not run: its result is not a success. */
int cudnnFindConvolutionForwardAlgorithmEx(void *h, Tensor *x, const void *xp, Filter *w, const void *wp, Conv *c,
                                           Tensor *y, void *yp, int requested, int *returned, Perf *perf,
                                           void *ws, size_t wsBytes) {
    (void)h; (void)x; (void)w; (void)c; (void)y;
    if (xp == NULL || wp == NULL || yp == NULL || (wsBytes > 0 && ws == NULL)) return 2002;
    last_search_ws = wsBytes;
    int n = (int)(sizeof results / sizeof results[0]);
    if (n > requested) n = requested;
    memcpy(perf, results, n * sizeof(Perf));
    for (int i = 0; i < n; i++)
        if (perf[i].status == 0 && perf[i].memory > wsBytes) { perf[i].status = 3000; perf[i].time = -1.0f; }
    *returned = n;
    return 0;
}
/* The heuristics rank the same list without running anything: no times. */
int cudnnGetConvolutionForwardAlgorithm_v7(void *h, Tensor *x, Filter *w, Conv *c, Tensor *y,
                                           int requested, int *returned, Perf *perf) {
    (void)h; (void)x; (void)w; (void)c; (void)y;
    int n = (int)(sizeof results / sizeof results[0]);
    if (n > requested) n = requested;
    memcpy(perf, results, n * sizeof(Perf));
    for (int i = 0; i < n; i++) perf[i].time = -1.0f;
    *returned = n;
    return 0;
}
int cudnnGetConvolutionForwardWorkspaceSize(void *h, Tensor *x, Filter *w, Conv *c, Tensor *y, int algo, size_t *size) {
    (void)h; (void)x; (void)w; (void)y;
    *size = (size_t)(1000 * algo + c->math);
    return 0;
}
static size_t last_ws;
size_t fake_last_workspace(void) { return last_ws; }
int cudnnConvolutionForward(void *h, const void *alpha, Tensor *x, const float *xp, Filter *w, const float *wp,
                            Conv *c, int algo, void *ws, size_t wsBytes, const void *beta, Tensor *y, float *yp) {
    (void)h; (void)algo; (void)ws;
    last_ws = wsBytes;
    float a = *(const float *)alpha, b = *(const float *)beta;
    if (xp == NULL || wp == NULL || yp == NULL) return 2002;
    for (int n = 0; n < y->n; n++)
        for (int oy = 0; oy < y->h; oy++)
            for (int ox = 0; ox < y->w; ox++) {
                double s = 0;
                for (int j = 0; j < w->h; j++)
                    for (int i = 0; i < w->w; i++) {
                        int ix = ox + i - c->pw, iy = oy + j - c->ph;
                        if (ix < 0 || iy < 0 || ix >= x->w || iy >= x->h) continue;
                        int fi = i, fj = j;
                        if (c->mode == 0) { fi = w->w - 1 - i; fj = w->h - 1 - j; }
                        s += (double)wp[fj * w->w + fi] * xp[n * x->ns + iy * x->hs + ix * x->ws];
                    }
                float *o = &yp[n * y->ns + oy * y->hs + ox * y->ws];
                *o = (float)(a * s + (b != 0 ? b * *o : 0));
            }
    return 0;
}
#endif
