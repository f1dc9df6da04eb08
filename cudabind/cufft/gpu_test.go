package cufft

import (
	"math"
	"testing"
	"unsafe"

	"github.com/convbench/convbench/cudabind"
	"github.com/convbench/convbench/internal/gputest"
)

// defaultOrSkip returns the host's cuFFT, or skips saying why there is none.
func defaultOrSkip(t *testing.T) *Library {
	t.Helper()
	l, err := Default()
	gputest.Need(t, "cuFFT", err)
	return l
}

// TestDefault: the host's cuFFT, where there is one, reports a version.
func TestDefault(t *testing.T) {
	l := defaultOrSkip(t)
	t.Logf("cuFFT: %v", l)
	if l.Version() < 10000 {
		t.Errorf("%s: cufftGetVersion = %d, want a version of cuFFT 10 or later", l.Name(), l.Version())
	}
}

// TestRoundTripGPU transforms two batches of 6x10 real images forward and
// back on the device, through a plan bound to a stream with a work area
// of its own, and checks that the result is 60 times the input and that
// the spectrum of a constant image is its sum at frequency zero.
func TestRoundTripGPU(t *testing.T) {
	d := gputest.DeviceNoLeakCheck(t)
	l := defaultOrSkip(t)
	const rows, cols, batch = 6, 10, 2
	const n = rows * cols
	in := make([]float32, n*batch)
	for i := range in[:n] {
		in[i] = float32(i%7) - 2.5
	}
	for i := range in[n:] {
		in[n+i] = 1.5
	}
	specLen := rows * (cols/2 + 1) * batch // complex elements
	out := make([]float32, n*batch)
	spec := make([]complex64, specLen)
	err := d.Do(func(x *cudabind.Exec) error {
		s, err := x.NewStream()
		if err != nil {
			return err
		}
		defer x.DestroyStream(s)
		rbuf, err := x.Alloc(int64(len(in)) * 4)
		if err != nil {
			return err
		}
		defer x.Free(rbuf)
		cplx, err := x.Alloc(int64(specLen) * 8)
		if err != nil {
			return err
		}
		defer x.Free(cplx)
		var plans [2]Handle
		for i, typ := range []Type{R2C, C2R} {
			h, err := l.Create()
			if err != nil {
				return err
			}
			defer l.Destroy(h)
			if err := l.SetAutoAllocation(h, false); err != nil {
				return err
			}
			ws, err := l.MakePlanMany64(h, []int64{rows, cols}, typ, batch)
			if err != nil {
				return err
			}
			if ws > 0 {
				area, err := x.Alloc(ws)
				if err != nil {
					return err
				}
				defer x.Free(area)
				if err := l.SetWorkArea(h, uintptr(area)); err != nil {
					return err
				}
			}
			if err := l.SetStream(h, uintptr(s)); err != nil {
				return err
			}
			plans[i] = h
		}
		if err := x.CopyHtoD(rbuf, unsafe.Pointer(&in[0]), int64(len(in))*4); err != nil {
			return err
		}
		if err := l.ExecR2C(plans[0], uintptr(rbuf), uintptr(cplx)); err != nil {
			return err
		}
		if err := x.StreamSync(s); err != nil {
			return err
		}
		if err := x.CopyDtoH(unsafe.Pointer(&spec[0]), cplx, int64(specLen)*8); err != nil {
			return err
		}
		if err := l.ExecC2R(plans[1], uintptr(cplx), uintptr(rbuf)); err != nil {
			return err
		}
		if err := x.StreamSync(s); err != nil {
			return err
		}
		return x.CopyDtoH(unsafe.Pointer(&out[0]), rbuf, int64(len(out))*4)
	})
	if err != nil {
		t.Fatal(err)
	}
	for i, v := range in {
		if got := out[i]; math.Abs(float64(got)-n*float64(v)) > 1e-3 {
			t.Errorf("element %d: forward then inverse = %v, want %d * %v", i, got, n, v)
		}
	}
	// The second batch is constant: its spectrum is n*1.5 at (0, 0) and 0
	// elsewhere.
	second := spec[specLen/batch:]
	for i, v := range second {
		want := complex64(0)
		if i == 0 {
			want = complex(n*1.5, 0)
		}
		if math.Abs(float64(real(v-want))) > 1e-3 || math.Abs(float64(imag(v-want))) > 1e-3 {
			t.Errorf("spectrum of the constant batch, element %d = %v, want %v", i, v, want)
		}
	}
}
