package gpuslab

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/convbench/convbench/convolve"
	"github.com/convbench/convbench/internal/gputest"
	"github.com/convbench/convbench/internal/imagetest"
)

// gpusOrSkip returns the number of GPUs present, or skips the test with
// the reason there is none.
func gpusOrSkip(t *testing.T) int {
	t.Helper()
	n, err := gpuCount()
	gputest.Need(t, "CUDA device", err)
	if n == 0 {
		t.Skip("no CUDA device")
	}
	return n
}

// runPlan plans v for p under cfg and runs it once on in.
func runPlan(t *testing.T, v convolve.Variant, p convolve.Problem, cfg convolve.Config, in *convolve.Image) *convolve.Image {
	t.Helper()
	pl, err := v.Plan(p, cfg)
	if err != nil {
		t.Fatalf("%s: Plan %v: %v", v.Describe().Name, cfg, err)
	}
	defer pl.Close()
	out, _ := p.NewOutput()
	imagetest.Poison(out)
	if err := pl.Run(in, out); err != nil {
		t.Fatalf("%s: Run: %v", v.Describe().Name, err)
	}
	return out
}

// TestGPUMatchesWrapped runs the slab variants of gpu-tiled, gpu-regtile
// and gpu-sepfused on a GPU over 1, 2 and 4 logical devices of GPU 0 and
// over every GPU present, one-shot with 1 and 4 streams, streamed under
// a small cap, and resident, and checks each against the wrapped
// variant's own output bit for bit.
func TestGPUMatchesWrapped(t *testing.T) {
	gpus := gpusOrSkip(t)
	r := rand.New(rand.NewPCG(7, 0))
	all := make([]int, gpus)
	for i := range all {
		all[i] = i
	}
	for _, name := range []string{"gpu-tiled", "gpu-regtile", "gpu-sepfused"} {
		inner, err := convolve.Lookup(name)
		if err != nil {
			t.Fatal(err)
		}
		v, err := wrap(inner, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, b := range borders {
			for _, h := range []int{3, 37, 300} {
				for _, k := range []int{3, 7} {
					f, err := convolve.Gaussian(k, 0)
					if err != nil {
						t.Fatal(err)
					}
					p := convolve.Problem{Op: convolve.Filter2D, Input: convolve.Geometry{Width: 123, Height: h, Channels: 1, Type: convolve.Float32}, Filter: f, Border: b}
					in := imagetest.Random(r, p.Input, imagetest.Mixed)
					want := runPlan(t, inner, p, convolve.Config{}, in)
					for _, cfg := range []convolve.Config{
						{Devices: []int{0}},
						{Devices: []int{0, 0}, Tunables: map[string]int{tuneStreams: 1}},
						{Devices: []int{0, 0, 0, 0}},
						{Devices: all},
						{Devices: []int{0, 0}, Tunables: map[string]int{tuneMemCap: 64}},
					} {
						label := fmt.Sprintf("%s %v h=%d k=%d %v", name, b, h, k, cfg)
						got := runPlan(t, v, p, cfg, in)
						if err := imagetest.BitDiff(got, want); err != nil {
							t.Errorf("%s: %v", label, err)
						}
					}
					// Resident, on every GPU and on four logical devices of
					// GPU 0: four passes (each ordered by events across
					// devices, the host waiting once a pass) equal four runs
					// of the wrapped variant, and after timed iterations
					// (enqueued back to back) Download gives one filtering.
					want4 := want
					for range 3 {
						want4 = runPlan(t, inner, p, convolve.Config{}, want4)
					}
					for _, devs := range [][]int{all, {0, 0, 0, 0}} {
						label := fmt.Sprintf("%s %v h=%d k=%d devices %v", name, b, h, k, devs)
						pl, err := v.Plan(p, convolve.Config{Devices: devs})
						if err != nil {
							t.Fatal(err)
						}
						sp := pl.(*plan)
						if err := sp.Upload(in); err != nil {
							t.Fatal(err)
						}
						for range 4 {
							if err := sp.Pass(); err != nil {
								t.Fatal(err)
							}
						}
						got, _ := p.NewOutput()
						if err := sp.Download(got); err != nil {
							t.Fatal(err)
						}
						if err := imagetest.BitDiff(got, want4); err != nil {
							t.Errorf("%s: four resident passes: %v", label, err)
						}
						if err := sp.Upload(in); err != nil {
							t.Fatal(err)
						}
						if _, err := sp.TimeKernel(8); err != nil {
							t.Fatal(err)
						}
						if err := sp.Download(got); err != nil {
							t.Fatal(err)
						}
						if err := imagetest.BitDiff(got, want); err != nil {
							t.Errorf("%s: after timed iterations: %v", label, err)
						}
						pl.Close()
					}
				}
			}
		}
	}
}

// TestGPUTimeline checks a timed run on a GPU: three spans per chunk,
// each phase after the previous one on its stream.
func TestGPUTimeline(t *testing.T) {
	gpusOrSkip(t)
	inner, _ := convolve.Lookup("gpu-tiled")
	v, _ := wrap(inner, 0)
	f, _ := convolve.Gaussian(5, 0)
	p := convolve.Problem{Op: convolve.Filter2D, Input: convolve.Geometry{Width: 2048, Height: 2048, Channels: 1, Type: convolve.Float32}, Filter: f}
	pl, err := v.Plan(p, convolve.Config{Devices: []int{0}})
	if err != nil {
		t.Fatal(err)
	}
	defer pl.Close()
	in := imagetest.Random(rand.New(rand.NewPCG(1, 0)), p.Input, imagetest.Mixed)
	out, _ := p.NewOutput()
	spans, err := pl.(Timed).Timeline(in, out)
	if err != nil {
		t.Fatal(err)
	}
	if len(spans) != 3*defaultChunks {
		t.Fatalf("%d spans, want %d", len(spans), 3*defaultChunks)
	}
	for i := 0; i < len(spans); i += 3 {
		for j := i; j < i+3; j++ {
			if spans[j].EndUS < spans[j].StartUS || j > i && spans[j].StartUS < spans[j-1].EndUS {
				t.Errorf("spans out of order: %+v", spans[i:i+3])
			}
		}
	}
}
