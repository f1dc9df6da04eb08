package variants

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/convbench/convbench/convolve"
	"github.com/convbench/convbench/internal/gputest"
	"github.com/convbench/convbench/internal/imagetest"
)

// yuvSizes are image sizes for RGB->YUV: a single pixel, sizes whose pixel
// count is and is not a multiple of the 16-pixel run, tall and wide
// strips, and padded rows (which defeat the flat view of the image).
var yuvSizes = []convolve.Geometry{
	{Width: 1, Height: 1},
	{Width: 16, Height: 4},
	{Width: 37, Height: 23},
	{Width: 3, Height: 71},
	{Width: 1029, Height: 2},
	{Width: 64, Height: 33, Stride: 64*3 + 5},
	{Width: 48, Height: 9, Stride: 48*3 + 16},
}

func yuvProblem(g convolve.Geometry) convolve.Problem {
	g.Channels, g.Type, g.Layout = 3, convolve.Uint8, convolve.Interleaved
	return convolve.Problem{Op: convolve.RGBToYUV, Input: g}
}

// yuvPoisoned is an output no correct conversion produces: Y, U and V
// never fall below 16.
func yuvPoisoned(t *testing.T, p convolve.Problem) *convolve.Image {
	t.Helper()
	out, err := p.NewOutput()
	if err != nil {
		t.Fatal(err)
	}
	out.Fill(0)
	return out
}

func yuvConfigs() []convolve.Config {
	return []convolve.Config{{}, {Tunables: map[string]int{tunableOpt: 1}}}
}

// TestYUVKernelsCompile compiles rgb2yuv.cu for sm_90 with the block
// shapes the tests use.
func TestYUVKernelsCompile(t *testing.T) {
	gputest.NVRTC(t)
	var checks []compileCheck
	p := yuvProblem(convolve.Geometry{Width: 37, Height: 23})
	for _, blk := range []convolve.Block{{X: 32, Y: 8}, {X: 16, Y: 16}, {X: 7, Y: 5}, {X: 1024, Y: 1}} {
		checks = append(checks, compileFor(t, "rgb2yuv", p, convolve.Config{}, blk, nil))
	}
	checks = append(checks, compileFor(t, "rgb2yuv", p, convolve.Config{NoFMA: true}, defaultBlock, nil))
	checks = append(checks, compileFor(t, "rgb2yuv", p, convolve.Config{FastMath: true}, defaultBlock, nil))
	checkCompiles(t, checks)
}

// TestChunkRows checks the pipeline's row split: it covers every row
// once, in increasing non-empty chunks, at most n of them, and places the
// boundaries on 16-pixel multiples when the rows allow it.
func TestChunkRows(t *testing.T) {
	for _, c := range []struct {
		h, w, n int
		aligned bool
	}{
		{1, 1, 1, true}, {1, 7, 4, false}, {7, 5, 4, false}, {100, 16, 4, true}, {100, 12, 4, true},
		{1000, 1000, 4, true}, {33, 64, 16, true}, {5, 3, 4, false}, {64, 1, 4, true}, {3, 1000, 7, false},
	} {
		b := chunkRows(c.h, c.w, c.n)
		if b[0] != 0 || b[len(b)-1] != c.h {
			t.Errorf("chunkRows(%d, %d, %d) = %v: does not span 0..%d", c.h, c.w, c.n, b, c.h)
		}
		if len(b)-1 > c.n || len(b) < 2 {
			t.Errorf("chunkRows(%d, %d, %d) = %v: %d chunks", c.h, c.w, c.n, b, len(b)-1)
		}
		for i := 1; i < len(b); i++ {
			if b[i] <= b[i-1] {
				t.Errorf("chunkRows(%d, %d, %d) = %v: empty or decreasing chunk", c.h, c.w, c.n, b)
			}
			if c.aligned && i < len(b)-1 && b[i]*c.w%yuvRun != 0 {
				t.Errorf("chunkRows(%d, %d, %d) = %v: boundary %d not on a 16-pixel multiple", c.h, c.w, c.n, b, b[i])
			}
		}
		if c.h >= c.n && c.aligned && len(b)-1 != c.n {
			t.Errorf("chunkRows(%d, %d, %d) = %v: want %d chunks", c.h, c.w, c.n, b, c.n)
		}
	}
}

// TestYUVCapabilities checks the refusals that need no device.
func TestYUVCapabilities(t *testing.T) {
	v, err := convolve.Lookup("gpu-rgb2yuv")
	if err != nil {
		t.Fatal(err)
	}
	planar := yuvProblem(convolve.Geometry{Width: 8, Height: 8})
	planar.Input.Layout = convolve.Planar
	gray := convolve.Problem{Op: convolve.SobelMagnitude, Input: convolve.Geometry{Width: 8, Height: 8, Channels: 1, Type: convolve.Uint8}}
	for _, p := range []convolve.Problem{planar, gray} {
		var ce *convolve.CapabilityError
		if _, err := convolve.PlanFor(v, p, convolve.Config{}); !errors.As(err, &ce) {
			t.Errorf("%v: err = %v, want a *convolve.CapabilityError", p, err)
		}
	}
}

// TestYUVAgreement checks both kernels bit for bit against
// convolve.RGBToYUVPixel (through refimpl.Expect, whose tolerance is 0)
// over yuvSizes and several block shapes, on random inputs and poisoned
// outputs, through Run and through Upload/TimeKernel/Download.
func TestYUVAgreement(t *testing.T) {
	d := gputest.DeviceNoLeakCheck(t)
	leakCheck := gputest.LeakCheck(t, d)
	v, err := convolve.Lookup("gpu-rgb2yuv")
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(17, 5))
	for _, base := range yuvConfigs() {
		for _, blk := range []convolve.Block{{}, {X: 16, Y: 16}, {X: 7, Y: 5}, {X: 1024, Y: 1}} {
			cfg := base
			cfg.Block = blk
			for _, g := range yuvSizes {
				p := yuvProblem(g)
				plan, err := convolve.PlanFor(v, p, cfg)
				if err != nil {
					t.Errorf("%v %v: Plan: %v", cfg, p, err)
					continue
				}
				for range 2 {
					in := imagetest.Random(r, p.Input, imagetest.NonZero)
					out := yuvPoisoned(t, p)
					if err := plan.Run(in, out); err != nil {
						t.Errorf("%v %v: Run: %v", cfg, p, err)
						continue
					}
					compareToReference(t, "gpu-rgb2yuv["+cfg.String()+"]", p, in, out)
				}
				if err := plan.Close(); err != nil {
					t.Errorf("%v %v: Close: %v", cfg, p, err)
				}
			}
		}
		p := yuvProblem(convolve.Geometry{Width: 301, Height: 77})
		devicePlanAgreesYUV(t, v, p, base, imagetest.Random(r, p.Input, imagetest.NonZero))
	}
	leakCheck()
}

func devicePlanAgreesYUV(t *testing.T, v convolve.Variant, p convolve.Problem, cfg convolve.Config, in *convolve.Image) {
	t.Helper()
	plan, err := convolve.PlanFor(v, p, cfg)
	if err != nil {
		t.Fatalf("%v %v: Plan: %v", cfg, p, err)
	}
	defer plan.Close()
	dp := plan.(convolve.DevicePlan)
	if err := dp.Upload(in); err != nil {
		t.Fatalf("Upload: %v", err)
	}
	if el, err := dp.TimeKernel(3); err != nil || el <= 0 {
		t.Fatalf("TimeKernel(3) = %v, %v", el, err)
	}
	out := yuvPoisoned(t, p)
	if err := dp.Download(out); err != nil {
		t.Fatalf("Download: %v", err)
	}
	compareToReference(t, "gpu-rgb2yuv["+cfg.String()+"]", p, in, out)
}

// TestYUVPipelined checks RunPipelined bit for bit with 1 to 7 streams,
// pinned and pageable, on sizes that do and do not split evenly, and that
// it refuses a stream count outside 1..MaxPipelineStreams.
func TestYUVPipelined(t *testing.T) {
	d := gputest.DeviceNoLeakCheck(t)
	leakCheck := gputest.LeakCheck(t, d)
	v, err := convolve.Lookup("gpu-rgb2yuv")
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(19, 5))
	sizes := []convolve.Geometry{{Width: 640, Height: 480}, {Width: 37, Height: 23}, {Width: 5, Height: 3},
		{Width: 100, Height: 61, Stride: 307}}
	for _, cfg := range yuvConfigs() {
		for _, g := range sizes {
			p := yuvProblem(g)
			plan, err := convolve.PlanFor(v, p, cfg)
			if err != nil {
				t.Fatalf("%v %v: Plan: %v", cfg, p, err)
			}
			pp, ok := plan.(PipelinedPlan)
			if !ok {
				t.Fatalf("plan %T is not a PipelinedPlan", plan)
			}
			for _, streams := range []int{1, 2, 4, 7} {
				for _, pinned := range []bool{false, true} {
					name := fmt.Sprintf("gpu-rgb2yuv[%v] streams=%d pinned=%v", cfg, streams, pinned)
					in := imagetest.Random(r, p.Input, imagetest.NonZero)
					out := yuvPoisoned(t, p)
					el, err := pp.RunPipelined(in, out, streams, pinned)
					if err != nil {
						t.Errorf("%s %v: %v", name, p, err)
						continue
					}
					if el <= 0 {
						t.Errorf("%s %v: elapsed %v", name, p, el)
					}
					compareToReference(t, name, p, in, out)
				}
			}
			in := imagetest.Random(r, p.Input, imagetest.NonZero)
			for _, bad := range []int{0, maxPipelineStreams + 1} {
				if _, err := pp.RunPipelined(in, yuvPoisoned(t, p), bad, true); err == nil {
					t.Errorf("RunPipelined with %d streams: no error", bad)
				}
			}
			if err := plan.Close(); err != nil {
				t.Errorf("Close: %v", err)
			}
		}
	}
	leakCheck()
}
