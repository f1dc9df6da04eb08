package variants

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/convbench/convbench/convolve"
	"github.com/convbench/convbench/internal/gputest"
	"github.com/convbench/convbench/internal/imagetest"
)

// sobelCases covers every border with every element type, channel counts
// 1 to 4 in both layouts, and block shapes including odd and 1-D ones.
func sobelCases() []kernelCase {
	var cs []kernelCase
	chans := []struct {
		c int
		l convolve.Layout
	}{{1, convolve.Interleaved}, {3, convolve.Interleaved}, {3, convolve.Planar}, {2, convolve.Planar}, {4, convolve.Interleaved}}
	i := 0
	for _, b := range convolve.Borders {
		for _, typ := range convolve.ElemTypes {
			ch := chans[i%len(chans)]
			cs = append(cs, kernelCase{kw: 3, kh: 3, border: b, mode: convolve.Modes[i%2], typ: typ, channels: ch.c, layout: ch.l})
			i++
		}
	}
	for _, blk := range []convolve.Block{{X: 4, Y: 4}, {X: 32, Y: 8}, {X: 7, Y: 5}, {X: 32, Y: 32}, {X: 256, Y: 1}, {X: 1, Y: 64}} {
		cs = append(cs, kernelCase{kw: 3, kh: 3, border: convolve.Borders[i%5], typ: convolve.Uint8, channels: 1, block: blk})
		i++
	}
	return cs
}

func (kc kernelCase) sobelProblem(g convolve.Geometry) convolve.Problem {
	p := kc.problem(g, nil)
	p.Op = convolve.SobelMagnitude
	return p
}

func sobelConfigs() []convolve.Config {
	return []convolve.Config{{}, {Tunables: map[string]int{sobelShared: 1}}}
}

// TestSobelKernelsCompile compiles sobel.cu (both kernels) for sm_90 over
// sobelCases, plus --fmad=false, fast math and 64-bit indexing.
func TestSobelKernelsCompile(t *testing.T) {
	t.Parallel() // NVRTC only: no device memory, so beside the other compile checks
	gputest.NVRTC(t)
	var checks []compileCheck
	for _, kc := range sobelCases() {
		p := kc.sobelProblem(convolve.Geometry{Width: 37, Height: 23})
		blk := kc.block
		if blk == (convolve.Block{}) {
			blk = defaultBlock
		}
		checks = append(checks, compileFor(t, "sobel", p, convolve.Config{}, blk, nil))
	}
	p := kernelCase{border: convolve.Mirror, typ: convolve.Float32, channels: 1}.sobelProblem(convolve.Geometry{Width: 8, Height: 8})
	checks = append(checks, compileFor(t, "sobel", p, convolve.Config{NoFMA: true}, defaultBlock, nil))
	checks = append(checks, compileFor(t, "sobel", p, convolve.Config{FastMath: true}, defaultBlock, nil))
	checks = append(checks, compileFor(t, "sobel", p, convolve.Config{}, defaultBlock, map[string]string{"INDEX64": ""}))
	checkCompiles(t, checks)
}

// TestSobelCapabilities checks the refusals that need no device.
func TestSobelCapabilities(t *testing.T) {
	v, err := convolve.Lookup("gpu-sobel")
	if err != nil {
		t.Fatal(err)
	}
	g := convolve.Geometry{Width: 8, Height: 8, Channels: 1, Type: convolve.Float32}
	f := &convolve.Filter{Name: "one", Width: 1, Height: 1, Weights: []float32{1}}
	for _, c := range []struct {
		p   convolve.Problem
		cfg convolve.Config
	}{
		{convolve.Problem{Op: convolve.Filter2D, Input: g, Filter: f}, convolve.Config{}},
		{convolve.Problem{Op: convolve.SobelMagnitude, Input: g}, convolve.Config{Tunables: map[string]int{"opt": 1}}},
	} {
		if _, err := convolve.PlanFor(v, c.p, c.cfg); err == nil {
			t.Errorf("%v %v: planned, want a capability error", c.p, c.cfg)
		}
	}
	if _, err := tunable("gpu-sobel", convolve.Config{Tunables: map[string]int{sobelShared: -1}}, sobelShared); err == nil {
		t.Error("shared=-1 accepted")
	}
}

// TestSobelAgreement runs both Sobel kernels over sobelCases x
// agreementSizes on fresh random inputs and NaN-poisoned outputs against
// refimpl.Expect, then checks that every plan was released.
func TestSobelAgreement(t *testing.T) {
	d := gputest.DeviceNoLeakCheck(t)
	leakCheck := gputest.LeakCheck(t, d)
	v, err := convolve.Lookup("gpu-sobel")
	if err != nil {
		t.Fatal(err)
	}
	for ci, base := range sobelConfigs() {
		t.Run(fmt.Sprint("shared=", ci), func(t *testing.T) {
			r := rand.New(rand.NewPCG(uint64(ci), 5))
			failures := 0
			for _, kc := range sobelCases() {
				cfg := base
				cfg.Block = kc.block
				for _, g := range agreementSizes {
					p := kc.sobelProblem(g)
					plan, err := convolve.PlanFor(v, p, cfg)
					if err != nil {
						t.Errorf("%v %v: Plan: %v", cfg, p, err)
						failures++
						continue
					}
					for range 2 {
						if _, ok := agree(t, "gpu-sobel["+cfg.String()+"]", plan, p, imagetest.Random(r, p.Input, imagetest.NonZero)); !ok {
							failures++
						}
					}
					if err := plan.Close(); err != nil {
						t.Errorf("%v %v: Close: %v", cfg, p, err)
					}
					if failures > 10 {
						t.Fatalf("too many failures")
					}
				}
			}
		})
	}
	leakCheck()
}

// TestSobelDevicePlan checks Upload, TimeKernel and Download of both
// kernels, with each compile option.
func TestSobelDevicePlan(t *testing.T) {
	gputest.DeviceNoLeakCheck(t)
	v, err := convolve.Lookup("gpu-sobel")
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(13, 5))
	for _, base := range sobelConfigs() {
		for _, extra := range []convolve.Config{{}, {NoFMA: true}, {FastMath: true}} {
			cfg := base
			cfg.NoFMA, cfg.FastMath = extra.NoFMA, extra.FastMath
			p := kernelCase{border: convolve.Replicate, typ: convolve.Uint8, channels: 3, layout: convolve.Planar}.
				sobelProblem(convolve.Geometry{Width: 61, Height: 35})
			devicePlanAgrees(t, v, p, cfg, imagetest.Random(r, p.Input, imagetest.NonZero))
		}
	}
}
