package cudabind

import (
	"testing"

	"github.com/convbench/convbench/cudabind/nvrtc"
)

// testKernels is the CUDA source used by the GPU tests. TestTestKernelsCompile
// compiles it with NVRTC on machines without a GPU, so a broken kernel is
// caught before a GPU run.
const testKernels = `
#include "common.cuh"

extern "C" __global__ void saxpy(float* y, const float* x, float a, int n) {
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n) y[i] = a * x[i] + y[i];
}

// echo writes every argument back so the host can check the packing.
extern "C" __global__ void echo(unsigned long long* out, signed char a, long long b, int c, short d,
                                double e, float f, unsigned char g, unsigned long long h) {
	out[0] = (unsigned long long)(long long)a;
	out[1] = (unsigned long long)b;
	out[2] = (unsigned long long)(long long)c;
	out[3] = (unsigned long long)(long long)d;
	out[4] = (unsigned long long)__double_as_longlong(e);
	out[5] = (unsigned long long)__float_as_uint(f);
	out[6] = (unsigned long long)g;
	out[7] = h;
}

__constant__ float coef[COEFS];

extern "C" __global__ void read_const(float* out) {
	int i = threadIdx.x;
	if (i < COEFS) out[i] = coef[i];
}

// sample2d reads texel centres (x + 0.5, y + 0.5) for x in [-pad, w + pad)
// and y in [-pad, h + pad).
extern "C" __global__ void sample2d(float* out, cudaTextureObject_t tex, int w, int h, int pad, int normalized) {
	int ow = w + 2 * pad, oh = h + 2 * pad;
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i >= ow * oh) return;
	float x = (float)(i % ow - pad) + 0.5f;
	float y = (float)(i / ow - pad) + 0.5f;
	if (normalized) { x /= (float)w; y /= (float)h; }
	out[i] = tex2D<float>(tex, x, y);
}

extern "C" __global__ void fetch1d(float* out, cudaTextureObject_t tex, int n, int shift) {
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n) out[i] = tex1Dfetch<float>(tex, i - shift);
}

extern "C" __global__ void big_shared(float* out, int n) {
	extern __shared__ float s[];
	for (int i = threadIdx.x; i < n; i += blockDim.x) s[i] = (float)i;
	__syncthreads();
	if (threadIdx.x == 0) out[0] = s[n - 1];
}
`

func testSource() Source {
	return Source{Name: "cudabind_test.cu", Code: testKernels,
		Headers: map[string]string{"common.cuh": "#define COEFS 16\n"}}
}

func TestTestKernelsCompile(t *testing.T) {
	nvrtcOrSkip(t)
	t.Setenv(nvrtc.EnvCacheDir, t.TempDir())
	for _, arch := range []string{"sm_90", "sm_80", "compute_90"} {
		if _, err := CompileOnly(testSource(), CompileOptions{Arch: arch}); err != nil {
			t.Errorf("%s: %v", arch, err)
		}
	}
}

// nvrtcOrSkip loads NVRTC or skips the test with the reason.
func nvrtcOrSkip(t *testing.T) {
	t.Helper()
	if _, _, err := NVRTCVersion(); err != nil {
		t.Skip(err.Error())
	}
}
