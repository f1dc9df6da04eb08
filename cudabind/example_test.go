package cudabind_test

import (
	"fmt"
	"log"

	"github.com/convbench/convbench/cudabind"
	"github.com/convbench/convbench/cudabind/driver/fakedriver"
)

func ExampleCompileOptions_Options() {
	opts := cudabind.CompileOptions{Arch: "sm_90", Defines: map[string]string{"KW": "5", "KH": "3"}, LineInfo: true}
	fmt.Println(opts.Options())
	// Output: [--gpu-architecture=sm_90 --std=c++17 --fmad=false -lineinfo -DKH=3 -DKW=5]
}

func ExamplePackArgs() {
	_, err := cudabind.PackArgs(cudabind.DevPtr(0), float32(1), 42)
	fmt.Println(err)
	// Output: cudabind: kernel argument 2 is a Go int, whose size is ambiguous: convert it to int32 or int64
}

// A saxpy kernel compiled for the device, launched and read back in one
// task on the device's executor. The example needs a GPU, so it is
// compiled but not run by go test; TestGPUSaxpyRoundTrip checks the same
// work on a GPU.
func ExampleDevice_Do() {
	d, err := cudabind.Default()
	if err != nil {
		log.Fatal(err) // no GPU: the error says what is missing
	}
	m, err := d.Compile(cudabind.Source{Name: "saxpy.cu", Code: `
extern "C" __global__ void saxpy(float* y, const float* x, float a, int n) {
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n) y[i] = a * x[i] + y[i];
}`}, cudabind.CompileOptions{FMAD: true})
	if err != nil {
		log.Fatal(err)
	}
	defer m.Close()
	f, err := m.Function("saxpy")
	if err != nil {
		log.Fatal(err)
	}
	x := []float32{1, 2, 3, 4}
	y := []float32{10, 20, 30, 40}
	err = d.Do(func(ex *cudabind.Exec) error {
		dx, err := ex.Alloc(cudabind.SizeOf(x))
		if err != nil {
			return err
		}
		defer ex.Free(dx)
		dy, err := ex.Alloc(cudabind.SizeOf(y))
		if err != nil {
			return err
		}
		defer ex.Free(dy)
		if err := ex.CopyHtoD(dx, cudabind.Ptr(x), cudabind.SizeOf(x)); err != nil {
			return err
		}
		if err := ex.CopyHtoD(dy, cudabind.Ptr(y), cudabind.SizeOf(y)); err != nil {
			return err
		}
		if err := ex.Launch(f, cudabind.Dim3{X: 1}, cudabind.Dim3{X: 32}, 0, 0, dy, dx, float32(2), int32(len(x))); err != nil {
			return err
		}
		return ex.CopyDtoH(cudabind.Ptr(y), dy, cudabind.SizeOf(y))
	})
	if err != nil {
		log.Fatal(err)
	}
	// y is now [12 24 36 48].
}

// Work recorded once into a CUDA graph and replayed: three launches per
// replay for one host call. The example needs a GPU, so it is compiled
// but not run by go test; TestGPUGraphCaptureAndReplay checks the same
// work on a GPU.
func ExampleExec_Capture() {
	d, err := cudabind.Default()
	if err != nil {
		log.Fatal(err) // no GPU: the error says what is missing
	}
	m, err := d.Compile(cudabind.Source{Name: "inc.cu", Code: `
extern "C" __global__ void inc(float* y, int n) {
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n) y[i] += 1.0f;
}`}, cudabind.CompileOptions{})
	if err != nil {
		log.Fatal(err)
	}
	defer m.Close()
	f, err := m.Function("inc")
	if err != nil {
		log.Fatal(err)
	}
	y := make([]float32, 256)
	err = d.Do(func(ex *cudabind.Exec) error {
		s, err := ex.NewStream()
		if err != nil {
			return err
		}
		defer ex.DestroyStream(s)
		dy, err := ex.Alloc(cudabind.SizeOf(y))
		if err != nil {
			return err
		}
		defer ex.Free(dy)
		if err := ex.MemsetD32(dy, 0, int64(len(y))); err != nil {
			return err
		}
		g, err := ex.Capture(s, func() error {
			for i := 0; i < 3; i++ {
				if err := ex.Launch(f, cudabind.Dim3{X: 1}, cudabind.Dim3{X: 256}, 0, s, dy, int32(len(y))); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			return err
		}
		defer ex.DestroyGraph(g)
		for i := 0; i < 2; i++ {
			if err := ex.LaunchGraph(g, s); err != nil {
				return err
			}
		}
		if err := ex.StreamSync(s); err != nil {
			return err
		}
		return ex.CopyDtoH(cudabind.Ptr(y), dy, cudabind.SizeOf(y))
	})
	if err != nil {
		log.Fatal(err)
	}
	// Every element of y is now 6: two replays of three increments.
}

// A launch whose arguments do not match the kernel's parameters is refused
// before it reaches the driver. The fake driver stands in for a GPU here:
// its kernel "saxpy" takes two pointers, a float and an int.
func ExampleOpenDriver() {
	fd := &fakedriver.Driver{Kernels: map[string][]int{"saxpy": {8, 8, 4, 4}}}
	d, err := cudabind.OpenDriver(fd, 0)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer d.Close()
	err = d.Do(func(x *cudabind.Exec) error {
		m, err := x.LoadModule(&cudabind.Compiled{Name: "saxpy.cu", Kind: cudabind.ImageCUBIN, Image: []byte{1}})
		if err != nil {
			return err
		}
		defer m.Close()
		f, err := m.Function("saxpy")
		if err != nil {
			return err
		}
		// n passed as an int64 where the kernel takes an int.
		return x.Launch(f, cudabind.Dim3{X: 4}, cudabind.Dim3{X: 256}, 0, 0,
			cudabind.DevPtr(0x1000), cudabind.DevPtr(0x2000), float32(2), int64(1024))
	})
	fmt.Println(err)
	fmt.Println("launches reaching the driver:", len(fd.Launches()))
	// Output:
	// cudabind: launch of saxpy: argument 3 is 8 bytes, the kernel's parameter 3 is 4 bytes
	// launches reaching the driver: 0
}
