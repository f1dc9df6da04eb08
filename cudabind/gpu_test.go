package cudabind

import (
	"errors"
	"fmt"
	"math"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"
	"unsafe"

	"github.com/convbench/convbench/cudabind/cudaerr"
	"github.com/convbench/convbench/cudabind/driver"
	"github.com/convbench/convbench/cudabind/nvrtc"
)

// gpu returns the default device, or skips the test with the one-line
// reason when CUDA is unavailable. It checks at cleanup that the test
// released everything it allocated.
func gpu(t *testing.T) *Device {
	t.Helper()
	d, err := Default()
	var ue *UnavailableError
	if errors.As(err, &ue) {
		t.Skip(ue.Error())
	}
	if err != nil {
		t.Fatalf("Default(): %v", err)
	}
	start := d.LiveAllocations()
	t.Cleanup(func() {
		if n := d.LiveAllocations(); n != start {
			t.Errorf("live allocations: %d at start, %d at end (%v)", start, n, d.LiveByKind())
		}
	})
	return d
}

// testModule compiles the test kernels for the device.
func testModule(t *testing.T, d *Device) *Module {
	t.Helper()
	m, err := d.Compile(testSource(), CompileOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := m.Close(); err != nil {
			t.Errorf("Module.Close: %v", err)
		}
	})
	return m
}

func function(t *testing.T, m *Module, name string) *Function {
	t.Helper()
	f, err := m.Function(name)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

func TestGPUDeviceInfo(t *testing.T) {
	d := gpu(t)
	i := d.Info()
	t.Logf("%+v", i)
	if lib, err := nvrtc.Library(); err == nil {
		t.Logf("NVRTC library: %s", lib)
	}
	t.Logf("arch %s, driver %s, nvrtc %s, peak %.0f GB/s", i.Arch(), i.Driver(), i.NVRTC(), i.PeakBandwidthGBps)
	if !regexp.MustCompile(`^GPU-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$`).MatchString(i.UUID) {
		t.Errorf("UUID %q", i.UUID)
	}
	if i.Name == "" || i.Major < 3 || i.SMs <= 0 || i.ClockKHz <= 0 || i.MemClockKHz <= 0 || i.BusWidthBits <= 0 ||
		i.L2Bytes <= 0 || i.SharedPerBlock <= 0 || i.SharedPerBlockOptin < i.SharedPerBlock || i.ConstantBytes <= 0 ||
		i.TotalMemBytes <= 0 || i.TexturePitchAlignment <= 0 || i.TextureAlignment <= 0 || i.DriverVersion <= 0 || i.WarpSize != 32 {
		t.Errorf("implausible device info %+v", i)
	}
	if want := 2 * float64(i.MemClockKHz) * 1e3 * float64(i.BusWidthBits) / 8 / 1e9; i.PeakBandwidthGBps != want {
		t.Errorf("PeakBandwidthGBps %v, want %v", i.PeakBandwidthGBps, want)
	}
	if i.Arch() != fmt.Sprintf("sm_%d%d", i.Major, i.Minor) {
		t.Errorf("Arch() = %q", i.Arch())
	}
	all, err := Devices()
	if err != nil || len(all) == 0 || all[0].UUID != i.UUID {
		t.Errorf("Devices() = %v, %v; want device 0 first", all, err)
	}
}

func TestGPUSaxpyRoundTrip(t *testing.T) {
	d := gpu(t)
	f := function(t, testModule(t, d), "saxpy")
	const n = 100003
	x := make([]float32, n)
	y := make([]float32, n)
	for i := range x {
		x[i] = float32(i%1000) * 0.25
		y[i] = float32(n-i) * 0.5
	}
	a := float32(1.75)
	got := make([]float32, n)
	err := d.Do(func(ex *Exec) error {
		dx, err := ex.Alloc(SizeOf(x))
		if err != nil {
			return err
		}
		defer ex.Free(dx)
		dy, err := ex.Alloc(SizeOf(y))
		if err != nil {
			return err
		}
		defer ex.Free(dy)
		if err := ex.CopyHtoD(dx, Ptr(x), SizeOf(x)); err != nil {
			return err
		}
		if err := ex.CopyHtoD(dy, Ptr(y), SizeOf(y)); err != nil {
			return err
		}
		if err := ex.Launch(f, Dim3{X: (n + 255) / 256}, Dim3{X: 256}, 0, 0, dy, dx, a, int32(n)); err != nil {
			return err
		}
		return ex.CopyDtoH(Ptr(got), dy, SizeOf(got))
	})
	if err != nil {
		t.Fatal(err)
	}
	// Compiled with --fmad=false: one rounding for the product, one for the sum.
	for i := range got {
		want := float32(a*x[i]) + y[i]
		if got[i] != want {
			t.Fatalf("y[%d] = %v, want %v", i, got[i], want)
		}
	}
}

func TestGPUArgumentPacking(t *testing.T) {
	d := gpu(t)
	f := function(t, testModule(t, d), "echo")
	var out [8]uint64
	err := d.Do(func(x *Exec) error {
		p, err := x.Alloc(64)
		if err != nil {
			return err
		}
		defer x.Free(p)
		if err := x.Launch(f, Dim3{X: 1}, Dim3{X: 1}, 0, 0, p, int8(-5), int64(-1234567890123), int32(-42), int16(-300),
			float64(math.Pi), float32(2.5), uint8(200), uint64(0xdeadbeefcafef00d)); err != nil {
			return err
		}
		return x.CopyDtoH(unsafe.Pointer(&out[0]), p, 64)
	})
	if err != nil {
		t.Fatal(err)
	}
	u := func(v int64) uint64 { return uint64(v) }
	want := [8]uint64{u(-5), u(-1234567890123), u(-42), u(-300),
		math.Float64bits(math.Pi), uint64(math.Float32bits(2.5)), 200, 0xdeadbeefcafef00d}
	if out != want {
		t.Errorf("kernel saw %#x, want %#x", out, want)
	}
}

func TestGPUConstantMemory(t *testing.T) {
	d := gpu(t)
	m := testModule(t, d)
	f := function(t, m, "read_const")
	coef := make([]float32, 16)
	for i := range coef {
		coef[i] = float32(i*i) - 7.5
	}
	got := make([]float32, 16)
	err := d.Do(func(x *Exec) error {
		if err := m.SetConstant(x, "coef", Ptr(coef), SizeOf(coef)); err != nil {
			return err
		}
		too := make([]float32, 17)
		if err := m.SetConstant(x, "coef", Ptr(too), SizeOf(too)); err == nil || !strings.Contains(err.Error(), "do not fit") {
			return fmt.Errorf("oversized SetConstant: %v, want a size error", err)
		}
		err := m.SetConstant(x, "no_such_symbol", Ptr(coef), 4)
		var e *Error
		if !errors.As(err, &e) || e.Name != "CUDA_ERROR_NOT_FOUND" {
			return fmt.Errorf("missing symbol: %v, want CUDA_ERROR_NOT_FOUND", err)
		}
		out, err := x.Alloc(SizeOf(got))
		if err != nil {
			return err
		}
		defer x.Free(out)
		if err := x.Launch(f, Dim3{X: 1}, Dim3{X: 16}, 0, 0, out); err != nil {
			return err
		}
		return x.CopyDtoH(Ptr(got), out, SizeOf(got))
	})
	if err != nil {
		t.Fatal(err)
	}
	for i := range got {
		if got[i] != coef[i] {
			t.Errorf("coef[%d] read %v, want %v", i, got[i], coef[i])
		}
	}
}

// texel is the value stored at (x, y) of the texture test image.
func texel(x, y int) float32 { return float32(1 + x + 10*y) }

// addressed maps an index outside [0, n) as the address mode does; ok is
// false when the fetch returns the border color.
func addressed(m AddressMode, i, n int) (int, bool) {
	switch m {
	case AddressClamp:
		return min(max(i, 0), n-1), true
	case AddressBorder:
		return i, i >= 0 && i < n
	case AddressWrap:
		return ((i % n) + n) % n, true
	case AddressMirror:
		p := ((i % (2 * n)) + 2*n) % (2 * n)
		if p >= n {
			p = 2*n - 1 - p
		}
		return p, true
	}
	return 0, false
}

func TestGPUTextureAddressModes(t *testing.T) {
	d := gpu(t)
	f := function(t, testModule(t, d), "sample2d")
	const w, h, pad = 8, 4, 3
	img := make([]float32, w*h)
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			img[y*w+x] = texel(x, y)
		}
	}
	ow, oh := w+2*pad, h+2*pad
	cases := []struct {
		mode       AddressMode
		normalized bool
	}{
		{AddressClamp, false}, {AddressClamp, true},
		{AddressBorder, false}, {AddressBorder, true},
		{AddressWrap, true}, {AddressMirror, true},
	}
	err := d.Do(func(x *Exec) error {
		p, pitch, err := x.AllocPitch(w*4, h)
		if err != nil {
			return err
		}
		defer x.Free(p)
		if err := x.CopyHtoD2D(p, pitch, Ptr(img), w*4, w*4, h); err != nil {
			return err
		}
		out, err := x.Alloc(int64(ow * oh * 4))
		if err != nil {
			return err
		}
		defer x.Free(out)
		desc := TextureDesc{Ptr: p, Width: w, Height: h, PitchBytes: int(pitch), Format: FormatFloat32, Channels: 1}
		for _, m := range []AddressMode{AddressWrap, AddressMirror} {
			bad := desc
			bad.Address = m
			if tex, err := x.NewTexture2D(bad); err == nil {
				x.DestroyTexture(tex)
				return fmt.Errorf("%v with unnormalized coordinates accepted", m)
			}
		}
		for _, c := range cases {
			desc.Address, desc.NormalizedCoords = c.mode, c.normalized
			tex, err := x.NewTexture2D(desc)
			if err != nil {
				return fmt.Errorf("%v normalized=%v: %w", c.mode, c.normalized, err)
			}
			norm := int32(0)
			if c.normalized {
				norm = 1
			}
			err = x.Launch(f, Dim3{X: uint32((ow*oh + 127) / 128)}, Dim3{X: 128}, 0, 0, out, tex, int32(w), int32(h), int32(pad), norm)
			got := make([]float32, ow*oh)
			if err == nil {
				err = x.CopyDtoH(Ptr(got), out, SizeOf(got))
			}
			if derr := x.DestroyTexture(tex); err == nil {
				err = derr
			}
			if err != nil {
				return err
			}
			for oy := 0; oy < oh; oy++ {
				for ox := 0; ox < ow; ox++ {
					xi, yi := ox-pad, oy-pad
					ax, okx := addressed(c.mode, xi, w)
					ay, oky := addressed(c.mode, yi, h)
					want := float32(0)
					if okx && oky {
						want = texel(ax, ay)
					}
					if g := got[oy*ow+ox]; g != want {
						t.Errorf("%v normalized=%v: texel (%d,%d) = %v, want %v", c.mode, c.normalized, xi, yi, g, want)
					}
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func TestGPUTexture1D(t *testing.T) {
	d := gpu(t)
	f := function(t, testModule(t, d), "fetch1d")
	filter := []float32{0.25, 0.5, 0.25, -1, 3}
	const shift = 2
	n := len(filter) + 2*shift
	got := make([]float32, n)
	err := d.Do(func(x *Exec) error {
		p, err := x.Alloc(SizeOf(filter))
		if err != nil {
			return err
		}
		defer x.Free(p)
		if err := x.CopyHtoD(p, Ptr(filter), SizeOf(filter)); err != nil {
			return err
		}
		tex, err := x.NewTexture1D(LinearTextureDesc{Ptr: p, Elements: len(filter), Format: FormatFloat32, Channels: 1})
		if err != nil {
			return err
		}
		defer x.DestroyTexture(tex)
		out, err := x.Alloc(SizeOf(got))
		if err != nil {
			return err
		}
		defer x.Free(out)
		if err := x.Launch(f, Dim3{X: 1}, Dim3{X: 32}, 0, 0, out, tex, int32(n), int32(shift)); err != nil {
			return err
		}
		return x.CopyDtoH(Ptr(got), out, SizeOf(got))
	})
	if err != nil {
		t.Fatal(err)
	}
	for i := range got {
		want := float32(0)
		if j := i - shift; j >= 0 && j < len(filter) {
			want = filter[j]
		}
		if got[i] != want {
			t.Errorf("fetch %d = %v, want %v", i-shift, got[i], want)
		}
	}
}

func TestGPUCompileCacheHit(t *testing.T) {
	d := gpu(t)
	t.Setenv(nvrtc.EnvCacheDir, t.TempDir())
	src := testSource()
	opts := CompileOptions{Defines: map[string]string{"CACHE_PROBE": fmt.Sprint(time.Now().UnixNano())}}
	before := ReadCacheStats()
	m1, err := d.Compile(src, opts)
	if err != nil {
		t.Fatal(err)
	}
	defer m1.Close()
	mid := ReadCacheStats()
	m2, err := d.Compile(src, opts)
	if err != nil {
		t.Fatal(err)
	}
	defer m2.Close()
	after := ReadCacheStats()
	if mid.Misses != before.Misses+1 || after.Hits() != mid.Hits()+1 || !m2.Compiled().Cached || m1.Compiled().Cached {
		t.Errorf("stats %+v -> %+v -> %+v, cached %v/%v: want a miss then a hit", before, mid, after, m1.Compiled().Cached, m2.Compiled().Cached)
	}
	if _, err := m2.Function("saxpy"); err != nil {
		t.Errorf("cached module: %v", err)
	}
}

func TestGPUNamedErrors(t *testing.T) {
	d := gpu(t)
	f := function(t, testModule(t, d), "saxpy")
	err := d.Do(func(x *Exec) error {
		p, err := x.Alloc(4096)
		if err != nil {
			return err
		}
		defer x.Free(p)
		err = x.Launch(f, Dim3{X: 1}, Dim3{X: 1025}, 0, 0, p, p, float32(1), int32(1))
		var e *Error
		if !errors.As(err, &e) || e.Name != "CUDA_ERROR_INVALID_VALUE" || e.API != "cuLaunchKernel" || e.Sticky() {
			return fmt.Errorf("1025-thread launch: %v, want cuLaunchKernel CUDA_ERROR_INVALID_VALUE, not sticky", err)
		}
		t.Logf("1025 threads: %v", err)
		live := d.LiveAllocations()
		_, err = x.Alloc(1 << 50)
		if !errors.As(err, &e) || e.Name != "CUDA_ERROR_OUT_OF_MEMORY" || e.Code != CodeOutOfMemory {
			return fmt.Errorf("1 PiB allocation: %v, want CUDA_ERROR_OUT_OF_MEMORY", err)
		}
		t.Logf("1 PiB: %v", err)
		if d.LiveAllocations() != live {
			return fmt.Errorf("failed allocation counted as live")
		}
		// The context is still usable.
		if err := x.Launch(f, Dim3{X: 1}, Dim3{X: 32}, 0, 0, p, p, float32(1), int32(32)); err != nil {
			return err
		}
		return x.Sync()
	})
	if err != nil {
		t.Fatal(err)
	}
	_, err = d.Compile(Source{Name: "bad.cu", Code: "extern \"C\" __global__ void k(int* p) { *p = nope; }"}, CompileOptions{})
	var ce *CompileError
	if !errors.As(err, &ce) || ce.Result != "NVRTC_ERROR_COMPILATION" || !strings.Contains(ce.Log, "nope") {
		t.Errorf("compile error: %v, want *CompileError with the log", err)
	}
	if _, err := function(t, testModule(t, d), "saxpy").m.Function("no_such_kernel"); !errors.Is(err, &Error{Code: cudaerr.CodeNotFound}) {
		t.Errorf("missing kernel: %v, want CUDA_ERROR_NOT_FOUND", err)
	}
}

func TestGPUDynamicSharedOptIn(t *testing.T) {
	d := gpu(t)
	m := testModule(t, d)
	f := function(t, m, "big_shared")
	info := d.Info()
	attrs, err := f.Attributes()
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("big_shared attributes: %+v", attrs)
	if attrs.Registers <= 0 || attrs.MaxThreadsPerBlock <= 0 {
		t.Errorf("implausible attributes %+v", attrs)
	}
	if info.SharedPerBlockOptin <= info.SharedPerBlock {
		t.Skipf("device has no opt-in shared memory beyond %d bytes", info.SharedPerBlock)
	}
	bytes := info.SharedPerBlockOptin - attrs.StaticSharedBytes
	floats := int32(bytes / 4)
	var got float32
	err = d.Do(func(x *Exec) error {
		out, err := x.Alloc(4)
		if err != nil {
			return err
		}
		defer x.Free(out)
		err = x.Launch(f, Dim3{X: 1}, Dim3{X: 256}, bytes, 0, out, floats)
		if !errors.Is(err, &Error{Code: cudaerr.CodeInvalidValue}) {
			return fmt.Errorf("launch with %d shared bytes before opt-in: %v, want CUDA_ERROR_INVALID_VALUE", bytes, err)
		}
		if err := f.SetMaxDynamicShared(bytes); err != nil {
			return err
		}
		if err := x.Launch(f, Dim3{X: 1}, Dim3{X: 256}, bytes, 0, out, floats); err != nil {
			return err
		}
		return x.CopyDtoH(unsafe.Pointer(&got), out, 4)
	})
	if err != nil {
		t.Fatal(err)
	}
	if got != float32(floats-1) {
		t.Errorf("kernel read %v from shared memory, want %v", got, floats-1)
	}
	if err := f.SetMaxDynamicShared(info.SharedPerBlockOptin + 1); err == nil {
		t.Error("SetMaxDynamicShared beyond the opt-in maximum accepted")
	}
}

func TestGPUExecutor(t *testing.T) {
	d := gpu(t)
	// Re-entrant Do runs inline with the same Exec.
	err := d.Do(func(x *Exec) error {
		return d.Do(func(y *Exec) error {
			if y != x {
				return fmt.Errorf("nested Do got another Exec")
			}
			return nil
		})
	})
	if err != nil {
		t.Fatal(err)
	}
	// A panic becomes an error and the executor survives.
	err = d.Do(func(x *Exec) error { panic("boom") })
	if err == nil || !strings.Contains(err.Error(), "boom") {
		t.Errorf("panic in Do: %v", err)
	}
	// An Exec kept past its Do refuses work.
	var kept *Exec
	d.Do(func(x *Exec) error { kept = x; return nil })
	if _, err := kept.Alloc(16); err == nil {
		kept.d.Free(1)
		t.Error("Exec used after Do returned")
	}
	// Many goroutines share the executor.
	var wg sync.WaitGroup
	errs := make(chan error, 16)
	for g := 0; g < 16; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			in := make([]int32, 1024)
			for i := range in {
				in[i] = int32(g*10000 + i)
			}
			out := make([]int32, len(in))
			errs <- d.Do(func(x *Exec) error {
				p, err := x.Alloc(SizeOf(in))
				if err != nil {
					return err
				}
				defer x.Free(p)
				if err := x.CopyHtoD(p, Ptr(in), SizeOf(in)); err != nil {
					return err
				}
				if err := x.CopyDtoH(Ptr(out), p, SizeOf(out)); err != nil {
					return err
				}
				for i := range in {
					if in[i] != out[i] {
						return fmt.Errorf("goroutine %d: element %d came back %d", g, i, out[i])
					}
				}
				return nil
			})
		}(g)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Error(err)
		}
	}
}

func TestGPUPinnedAsyncAnd2DCopies(t *testing.T) {
	d := gpu(t)
	const n = 1 << 20
	err := d.Do(func(x *Exec) error {
		src, err := x.HostAlloc(n * 4)
		if err != nil {
			return err
		}
		defer x.FreeHost(src)
		dst, err := x.HostAlloc(n * 4)
		if err != nil {
			return err
		}
		defer x.FreeHost(dst)
		in := HostSlice[float32](src)
		for i := range in {
			in[i] = float32(i) * 0.5
		}
		s, err := x.NewStream()
		if err != nil {
			return err
		}
		defer x.DestroyStream(s)
		p, err := x.Alloc(n * 4)
		if err != nil {
			return err
		}
		defer x.Free(p)
		if err := x.MemsetD32Async(p, 0xffffffff, n, s); err != nil {
			return err
		}
		if err := x.CopyHtoDAsync(p, src.Ptr(), n*4, s); err != nil {
			return err
		}
		if err := x.CopyDtoHAsync(dst.Ptr(), p, n*4, s); err != nil {
			return err
		}
		if err := x.StreamSync(s); err != nil {
			return err
		}
		out := HostSlice[float32](dst)
		for i := range in {
			if out[i] != in[i] {
				return fmt.Errorf("async round trip: element %d = %v, want %v", i, out[i], in[i])
			}
		}
		// 2-D: copy a 100x7 window of a 128-wide host image through a
		// pitched buffer and back into a 100-wide image.
		const w, h, hostPitch = 100, 7, 128
		dp, pitch, err := x.AllocPitch(w*4, h)
		if err != nil {
			return err
		}
		defer x.Free(dp)
		if pitch < w*4 || pitch%int64(d.Info().TexturePitchAlignment) != 0 {
			return fmt.Errorf("AllocPitch pitch %d for %d-byte rows", pitch, w*4)
		}
		if err := x.CopyHtoD2D(dp, pitch, src.Ptr(), hostPitch*4, w*4, h); err != nil {
			return err
		}
		back := make([]float32, w*h)
		if err := x.CopyDtoH2D(Ptr(back), w*4, dp, pitch, w*4, h); err != nil {
			return err
		}
		for y := 0; y < h; y++ {
			for i := 0; i < w; i++ {
				if back[y*w+i] != in[y*hostPitch+i] {
					return fmt.Errorf("2-D copy: (%d,%d) = %v, want %v", i, y, back[y*w+i], in[y*hostPitch+i])
				}
			}
		}
		// MemsetD8 then read back.
		if err := x.MemsetD8(p, 0x7f, 64); err != nil {
			return err
		}
		b := make([]byte, 64)
		if err := x.CopyDtoH(Ptr(b), p, 64); err != nil {
			return err
		}
		for i, v := range b {
			if v != 0x7f {
				return fmt.Errorf("MemsetD8: byte %d = %#x", i, v)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func TestGPUOpenClose(t *testing.T) {
	gpu(t)
	d, err := Open(0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := d.Alloc(1 << 20); err != nil {
		t.Fatal(err)
	}
	if err := d.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	if err := d.Do(func(*Exec) error { return nil }); err == nil {
		t.Error("Do after Close succeeded")
	}
	if err := d.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
	if _, err := Open(-1); err == nil {
		t.Error("Open(-1) succeeded")
	}
}

// TestGPULaunchChecksArguments: where the driver has cuFuncGetParamInfo
// (CUDA 12.4 and later), a kernel's parameters are known and a launch
// with a wrong argument is refused before it runs; with an older driver
// the check is skipped, and the test says so.
func TestGPULaunchChecksArguments(t *testing.T) {
	d := gpu(t)
	m := testModule(t, d)
	saxpy := function(t, m, "saxpy")
	t.Logf("driver %s: cuFuncGetParamInfo %v, cuFuncGetParamCount %v", d.Info().Driver(),
		d.drv.Has(driver.ParamInfo), d.drv.Has(driver.ParamCount))
	params, ok := saxpy.Params()
	if !ok {
		if d.Info().DriverVersion >= 12040 {
			t.Fatalf("driver %s has no parameter info for saxpy", d.Info().Driver())
		}
		t.Skipf("driver %s lacks cuFuncGetParamInfo (CUDA 12.4): launches are not checked", d.Info().Driver())
	}
	want := []ParamInfo{{0, 8}, {8, 8}, {16, 4}, {20, 4}}
	if fmt.Sprint(params) != fmt.Sprint(want) {
		t.Errorf("saxpy parameters %v, want %v", params, want)
	}
	echo := function(t, m, "echo")
	if p, _ := echo.Params(); len(p) != 9 {
		t.Errorf("echo has %d parameters by the driver, want 9: %v", len(p), p)
	}
	err := d.Do(func(x *Exec) error {
		return x.Launch(saxpy, Dim3{X: 1}, Dim3{X: 32}, 0, 0, DevPtr(0), DevPtr(0), float32(1), int64(0))
	})
	var ae *ArgumentError
	if !errors.As(err, &ae) || ae.Index != 3 || ae.Want != 4 || ae.Got != 8 {
		t.Errorf("launch of saxpy with an int64 n = %v, want an *ArgumentError for argument 3", err)
	}
	err = d.Do(func(x *Exec) error {
		return x.Launch(saxpy, Dim3{X: 1}, Dim3{X: 32}, 0, 0, DevPtr(0), DevPtr(0), float32(1))
	})
	if !errors.As(err, &ae) || ae.Index != -1 || ae.Want != 4 || ae.Got != 3 {
		t.Errorf("launch of saxpy with 3 arguments = %v, want an *ArgumentError on the count", err)
	}
	if err := d.Sync(); err != nil {
		t.Fatalf("the refused launches left an error: %v", err)
	}
}
