package auto

import (
	"errors"
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/convbench/convbench/convolve"
	"github.com/convbench/convbench/tables/crossover"
)

// fake is a path that describes itself and plans a fakePlan; it refuses
// at plan time, as a device limit would, filters of refuseFrom taps or
// more.
type fake struct {
	d          convolve.Description
	refuseFrom int
	device     bool
}

func (f *fake) Describe() convolve.Description { return f.d }
func (f *fake) Plan(p convolve.Problem, cfg convolve.Config) (convolve.Plan, error) {
	if err := f.d.Caps.Check(p); err != nil {
		return nil, convolve.NameVariant(f.d.Name, err)
	}
	if kw, kh := p.KernelSize(); f.refuseFrom > 0 && max(kw, kh) >= f.refuseFrom {
		return nil, &convolve.CapabilityError{Variant: f.d.Name, What: "filter size", Value: "past the device's shared memory"}
	}
	if f.device {
		return &fakeDevicePlan{fakePlan{name: f.d.Name}}, nil
	}
	return &fakePlan{name: f.d.Name}, nil
}

type fakePlan struct {
	name string
	runs int
}

func (p *fakePlan) Run(in, out *convolve.Image) error { p.runs++; return nil }
func (p *fakePlan) Close() error                      { return nil }

type fakeDevicePlan struct{ fakePlan }

func (p *fakeDevicePlan) Upload(*convolve.Image) error            { return nil }
func (p *fakeDevicePlan) TimeKernel(n int) (time.Duration, error) { return time.Duration(n), nil }
func (p *fakeDevicePlan) TimeKernelGraph(n int) (time.Duration, error) {
	return time.Duration(2 * n), nil
}
func (p *fakeDevicePlan) Download(*convolve.Image) error { return nil }
func (p *fakeDevicePlan) Setting() convolve.Setting {
	return convolve.Setting{Block: convolve.Block{X: 32, Y: 8}}
}
func (p *fakeDevicePlan) SettingSource() string { return "tuned (a table)" }

func gpuCaps(m convolve.ErrorModel) convolve.Capabilities {
	return convolve.Capabilities{Ops: []convolve.Operation{convolve.Filter2D}, Types: []convolve.ElemType{convolve.Float32, convolve.Uint8},
		Borders: []convolve.Border{convolve.Zero, convolve.Replicate}, GPU: true, Accuracy: m}
}

// The fakes stand in for the GPU paths and a peer in this test binary,
// which registers no real GPU variant.
func init() {
	sep := gpuCaps(convolve.Direct)
	sep.SeparableOnly, sep.FiniteInput = true, true
	regtile := gpuCaps(convolve.Direct)
	regtile.MaxFilterSide = 63
	for _, f := range []*fake{
		{d: convolve.Description{Name: "gpu-regtile", Caps: regtile}, refuseFrom: 41, device: true},
		{d: convolve.Description{Name: "gpu-tiled", Caps: gpuCaps(convolve.Direct)}, device: true},
		{d: convolve.Description{Name: "gpu-sepfused", Caps: sep}, device: true},
		{d: convolve.Description{Name: "gpu-tc-3xtf32", Caps: gpuCaps(convolve.Direct)}},
		{d: convolve.Description{Name: "gpu-tc-tf32", Caps: gpuCaps(convolve.TF32)}},
		{d: convolve.Description{Name: "gpu-fft", Caps: gpuCaps(convolve.FFT32)}},
		{d: convolve.Description{Name: "cudnn", Caps: gpuCaps(convolve.Direct)}},
		{d: convolve.Description{Name: "fake-f32-zero", Caps: convolve.Capabilities{Types: []convolve.ElemType{convolve.Float32}, Borders: []convolve.Border{convolve.Zero}}}},
		{d: convolve.Description{Name: "fake-u8-wrap", Caps: convolve.Capabilities{Types: []convolve.ElemType{convolve.Uint8}, Borders: []convolve.Border{convolve.Wrap}}}},
	} {
		convolve.Register(f)
	}
}

func problem(t *testing.T, side, k int, separable bool, typ convolve.ElemType) convolve.Problem {
	t.Helper()
	var f *convolve.Filter
	var err error
	if separable {
		f, err = convolve.Gaussian(k, 0)
	} else {
		w := make([]float32, k*k)
		x := uint32(7)
		for i := range w {
			x = x*1664525 + 1013904223
			w[i] = float32(x>>16)/65536 - 0.5
		}
		f, err = convolve.NewFilter("dense", k, k, w)
	}
	if err != nil {
		t.Fatal(err)
	}
	return convolve.Problem{Op: convolve.Filter2D, Filter: f, Input: convolve.Geometry{Width: side, Height: side, Channels: 1, Type: typ}}
}

func ranking(vs ...string) []crossover.Timing {
	var r []crossover.Timing
	for i, v := range vs {
		r = append(r, crossover.Timing{Variant: v, MedianNS: float64(1000 * (i + 1))})
	}
	return r
}

// testAuto is an auto variant over the registered fakes, on "Fake GPU"
// with a crossover table of it.
func testAuto(device string) *Variant {
	var set crossover.Set
	set.Add(&crossover.Table{GPU: "Fake GPU", Entries: []crossover.Entry{
		{Size: convolve.SizeLarge, K: 21, Kind: convolve.DenseFilter, Type: "f32", Case: "4096x4096 dense21",
			Ranking: ranking("cudnn", "gpu-tc-tf32", "gpu-tc-3xtf32", "gpu-regtile")},
		{Size: convolve.SizeLarge, K: 3, Kind: convolve.DenseFilter, Type: "f32", Case: "4096x4096 dense3",
			Ranking: ranking("gpu-regtile", "gpu-tiled")},
		{Size: convolve.SizeLarge, K: 7, Kind: convolve.SeparableFilter, Type: "f32", Case: "4096x4096 gauss7",
			Ranking: ranking("gpu-sepfused", "gpu-regtile")},
		{Size: convolve.SizeMedium, K: 45, Kind: convolve.DenseFilter, Type: "f32", Case: "1024x1024 dense45",
			Ranking: ranking("gpu-fft", "gpu-regtile", "gpu-tiled")},
	}}, "fake.json")
	return New(Options{Name: "auto-test", Tables: func() (*crossover.Set, error) { return &set, nil },
		Device: func() (string, error) { return device, nil }})
}

func TestAdmits(t *testing.T) {
	tests := []struct {
		decl, path convolve.ErrorModel
		want       bool
	}{
		{convolve.Direct, convolve.Direct, true},
		{convolve.Direct, convolve.TF32, false},
		{convolve.Direct, convolve.FFT32, false},
		{convolve.Direct, convolve.FFT64, false},
		{convolve.TF32, convolve.Direct, true},
		{convolve.TF32, convolve.BF16, false},
		{convolve.BF16, convolve.TF32, true},
		{convolve.BF16, convolve.Direct, true},
		{convolve.FFT32, convolve.FFT64, true},
		{convolve.FFT32, convolve.Direct, false},
		{convolve.FFT64, convolve.FFT32, false},
		{convolve.TF32, convolve.FFT32, false},
	}
	for _, tt := range tests {
		if got := Admits(tt.decl, tt.path); got != tt.want {
			t.Errorf("Admits(%v, %v) = %v, want %v", tt.decl, tt.path, got, tt.want)
		}
	}
}

// Admits is sound: on random problems the tolerance of an admitted
// model is never above the declared model's.
func TestAdmitsBounds(t *testing.T) {
	for _, decl := range convolve.ErrorModels {
		for _, path := range convolve.ErrorModels {
			if !Admits(decl, path) || decl.IsFFT() != path.IsFFT() {
				continue
			}
			for _, c := range []struct {
				k              int
				absSum, ref    float64
				inL2, filterL2 float64
				logN           int
			}{{3, 1, 0.5, 10, 1, 12}, {31, 500, -20, 1e4, 3, 26}, {75, 1e-30, 1e-31, 1, 1, 8}} {
				var td, tp float64
				if decl.IsFFT() {
					terms := convolve.FFTTerms{InL2: c.inL2, FilterL2: c.filterL2, LogN: c.logN}
					td = convolve.FFTTolerance(terms, c.ref, decl.FFTRoundoff())
					tp = convolve.FFTTolerance(terms, c.ref, path.FFTRoundoff())
				} else {
					var err error
					if td, err = convolve.ModelTolerance(decl, c.k, c.k, c.absSum, c.ref); err != nil {
						t.Fatal(err)
					}
					if tp, err = convolve.ModelTolerance(path, c.k, c.k, c.absSum, c.ref); err != nil {
						t.Fatal(err)
					}
				}
				if tp > td {
					t.Errorf("Admits(%v, %v) but at K=%d the path's tolerance %g is above the declared %g", decl, path, c.k, tp, td)
				}
			}
		}
	}
}

func TestHeuristic(t *testing.T) {
	tests := []struct {
		k         int
		separable bool
		first     string
	}{
		{3, true, "gpu-sepfused"}, {63, true, "gpu-sepfused"}, {75, true, "gpu-separable"},
		{3, false, "gpu-regtile"}, {31, false, "gpu-regtile"}, {33, false, "gpu-fft"}, {75, false, "gpu-fft"},
	}
	for _, tt := range tests {
		if got := Heuristic(problem(t, 256, tt.k, tt.separable, convolve.Float32)); len(got) == 0 || got[0] != tt.first {
			t.Errorf("Heuristic(K=%d separable=%v) = %v, want %s first", tt.k, tt.separable, got, tt.first)
		}
	}
}

func TestDescribe(t *testing.T) {
	v, err := convolve.Lookup(Name)
	if err != nil {
		t.Fatal(err)
	}
	d := v.Describe()
	if d.Name != Name || d.Caps.Accuracy != convolve.Direct || !d.Caps.GPU || !d.Caps.FiniteInput || d.Caps.SeparableOnly {
		t.Errorf("auto declares %+v: want Direct, GPU, FiniteInput (gpu-sepfused's), not SeparableOnly", d.Caps)
	}
	if !slices.Equal(d.Caps.Types, []convolve.ElemType{convolve.Float32, convolve.Uint8}) || d.Caps.MaxFilterSide != convolve.MaxFilterSide {
		t.Errorf("auto's types %v, largest filter %d: want its paths' union", d.Caps.Types, d.Caps.MaxFilterSide)
	}
	var names []string
	for _, p := range v.(*Variant).paths() {
		names = append(names, p.Describe().Name)
	}
	if want := []string{"gpu-regtile", "gpu-tiled", "gpu-sepfused", "gpu-tc-3xtf32", "gpu-fft"}; !slices.Equal(names, want) {
		t.Errorf("auto's paths %v, want %v (TF32 paths and peers left out)", names, want)
	}
	tf := New(Options{Name: "auto-tf32", Model: convolve.TF32})
	names = nil
	for _, p := range tf.paths() {
		names = append(names, p.Describe().Name)
	}
	if want := []string{"gpu-regtile", "gpu-tiled", "gpu-sepfused", "gpu-tc-3xtf32", "gpu-tc-tf32"}; !slices.Equal(names, want) {
		t.Errorf("a TF32 auto's paths %v, want %v", names, want)
	}
	if d := New(Options{Name: "auto-none", Paths: []string{"nothing-*"}}).Describe(); !strings.Contains(d.Summary, "no path") {
		t.Errorf("auto without paths says %q", d.Summary)
	}
}

// TestRegisteredBF16 checks the registered auto-bf16: it declares BF16,
// takes the TF32 tensor-core path and gpu-fft beside auto's, and leaves
// the peers out; auto does not take the TF32 path.
func TestRegisteredBF16(t *testing.T) {
	v, err := convolve.Lookup(nameBF16)
	if err != nil {
		t.Fatal(err)
	}
	a := v.(*Variant)
	if m := a.Describe().Caps.Accuracy; m != convolve.BF16 {
		t.Errorf("%s declares %v, want BF16", nameBF16, m)
	}
	names := a.PathNames()
	if want := []string{"gpu-regtile", "gpu-tiled", "gpu-sepfused", "gpu-tc-3xtf32", "gpu-tc-tf32", "gpu-fft"}; !slices.Equal(names, want) {
		t.Errorf("%s's paths %v, want %v", nameBF16, names, want)
	}
	direct, err := convolve.Lookup(Name)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		auto *Variant
		path string
		want bool
	}{
		{direct.(*Variant), "gpu-regtile", true},
		{direct.(*Variant), "gpu-tc-tf32", false},
		{direct.(*Variant), "gpu-fft", true},
		{direct.(*Variant), nameBF16, false},
		{direct.(*Variant), "cudnn", false},
		{a, "gpu-tc-tf32", true},
		{a, "gpu-regtile", true},
		{a, Name, false},
		{a, "cudnn", false},
	}
	for _, tt := range tests {
		if got := slices.Contains(tt.auto.PathNames(), tt.path); got != tt.want {
			t.Errorf("%s takes %s: %v, want %v", tt.auto.Describe().Name, tt.path, got, tt.want)
		}
	}
}

func TestChoose(t *testing.T) {
	tests := []struct {
		name      string
		device    string
		side, k   int
		separable bool
		typ       convolve.ElemType
		want      string
		source    string
	}{
		{"table, peers and looser models skipped", "Fake GPU", 4096, 21, false, convolve.Float32, "gpu-tc-3xtf32", "crossover (fake.json: large k=21 dense f32, 4096x4096 dense21)"},
		{"table, exact", "Fake GPU", 4096, 3, false, convolve.Float32, "gpu-regtile", "crossover (fake.json: large k=3 dense f32"},
		{"table, nearest", "Fake GPU", 8192, 5, false, convolve.Float32, "gpu-regtile", "nearest entry large k=3"},
		{"table, separable", "Fake GPU", 2048, 9, true, convolve.Float32, "gpu-sepfused", "nearest entry large k=7 separable"},
		{"table's FFT not admitted", "Fake GPU", 1024, 45, false, convolve.Float32, "gpu-regtile", "crossover (fake.json: medium k=45 dense f32"},
		{"no entry of the type", "Fake GPU", 4096, 5, false, convolve.Uint8, "gpu-regtile", "heuristic (no entry of fake.json for u8 dense"},
		{"no table", "Other GPU", 4096, 7, true, convolve.Float32, "gpu-sepfused", "heuristic (no crossover table of Other GPU)"},
		{"no table, large K", "Other GPU", 1024, 75, false, convolve.Float32, "gpu-tc-3xtf32", "heuristic (no crossover table"},
	}
	for _, tt := range tests {
		cs, err := testAuto(tt.device).Choose(problem(t, tt.side, tt.k, tt.separable, tt.typ), convolve.Config{})
		if err != nil {
			t.Errorf("%s: %v", tt.name, err)
			continue
		}
		if cs[0].Variant != tt.want || !strings.Contains(cs[0].Source, tt.source) {
			t.Errorf("%s: chose %v, want %s from %q", tt.name, cs[0], tt.want, tt.source)
		}
		for _, c := range cs {
			if c.Variant == "cudnn" || c.Variant == "gpu-fft" || c.Variant == "gpu-tc-tf32" {
				t.Errorf("%s: %s among the choices %v", tt.name, c.Variant, cs)
			}
		}
	}
	// Only paths whose capabilities accept the problem: a dense filter
	// never goes to gpu-sepfused, K = 75 never to gpu-regtile (63 at most).
	cs, err := testAuto("Other GPU").Choose(problem(t, 512, 75, false, convolve.Float32), convolve.Config{})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, c := range cs {
		names = append(names, c.Variant)
	}
	if want := []string{"gpu-tc-3xtf32", "gpu-tiled"}; !slices.Equal(names, want) {
		t.Errorf("choices for dense K=75: %v, want %v", names, want)
	}
}

func TestChooseRefuses(t *testing.T) {
	a := testAuto("Fake GPU")
	p := problem(t, 64, 3, false, convolve.Float32)
	bad := p
	bad.Border = convolve.Wrap // no path takes it
	var ce *convolve.CapabilityError
	if _, err := a.Choose(bad, convolve.Config{}); !errors.As(err, &ce) || ce.Variant != "auto-test" {
		t.Errorf("wrap border: error %v, want a *convolve.CapabilityError naming auto-test", err)
	}
	if _, err := a.Plan(p, convolve.Config{Tunables: map[string]int{"ry": 2}}); !errors.As(err, &ce) || ce.What != "tunable" {
		t.Errorf("tunable: error %v, want a *convolve.CapabilityError about the tunable", err)
	}
	// The union accepts f32 with wrap (one path takes f32, the other
	// wrap) but no path takes both.
	mixed := New(Options{Name: "auto-mixed", Paths: []string{"fake-*"}, Tables: func() (*crossover.Set, error) { return nil, nil },
		Device: func() (string, error) { return "", errors.New("no GPU") }})
	_, err := mixed.Plan(bad, convolve.Config{})
	if !errors.As(err, &ce) || !strings.Contains(err.Error(), "no path can serve it") || !strings.Contains(err.Error(), "fake-u8-wrap") {
		t.Errorf("problem no path serves: error %v", err)
	}
	if pl, err := mixed.Plan(p, convolve.Config{}); err != nil || pl.(*Plan).Chosen().Variant != "fake-f32-zero" || !strings.Contains(pl.(*Plan).Chosen().Source, "no device: no GPU") {
		t.Errorf("without a device: %v, %v", pl, err)
	}
	none := New(Options{Name: "auto-none", Paths: []string{"nothing"}})
	if _, err := none.Plan(p, convolve.Config{}); !errors.As(err, &ce) || !strings.Contains(err.Error(), "no path registered") {
		t.Errorf("no path: error %v", err)
	}
	var nfe *convolve.NonFiniteError
	nan := problem(t, 64, 3, true, convolve.Float32)
	nan.Filter.Weights[0] = float32(math.NaN())
	if _, err := a.Plan(nan, convolve.Config{}); !errors.As(err, &nfe) || nfe.Variant != "auto-test" {
		t.Errorf("NaN weight: error %v, want a *convolve.NonFiniteError naming auto-test", err)
	}
}

func TestPlan(t *testing.T) {
	a := testAuto("Fake GPU")
	// gpu-regtile, the table's choice at K = 45 among the admitted paths,
	// refuses K >= 41 at plan time: auto plans the next one.
	pl, err := a.Plan(problem(t, 1024, 45, false, convolve.Float32), convolve.Config{})
	if err != nil {
		t.Fatal(err)
	}
	dp, ok := pl.(*DevicePlan)
	if !ok {
		t.Fatalf("plan of gpu-tiled is a %T, want a *DevicePlan", pl)
	}
	if c := dp.Chosen(); c.Variant != "gpu-tiled" || !strings.Contains(c.Source, "refused first: convolve: gpu-regtile does not support filter size") {
		t.Errorf("chose %v, want gpu-tiled after gpu-regtile's refusal", c)
	}
	if s := dp.SettingSource(); !strings.HasPrefix(s, "path gpu-tiled, ") || !strings.HasSuffix(s, "; its setting tuned (a table)") {
		t.Errorf("SettingSource %q", s)
	}
	if s := dp.Setting(); s.Block != (convolve.Block{X: 32, Y: 8}) {
		t.Errorf("Setting %v, want the path's", s)
	}
	if d, err := dp.TimeKernelGraph(3); err != nil || d != 6 {
		t.Errorf("TimeKernelGraph(3) = %v, %v: want the path's", d, err)
	}
	in, err := convolve.NewImage(convolve.Geometry{Width: 1024, Height: 1024, Channels: 1, Type: convolve.Float32})
	if err != nil {
		t.Fatal(err)
	}
	if err := dp.Run(in, in); err != nil || dp.Plan.Plan.(*fakeDevicePlan).runs != 1 {
		t.Errorf("Run: %v, path runs %d", err, dp.Plan.Plan.(*fakeDevicePlan).runs)
	}
	in.F32[5] = float32(math.Inf(1))
	var nfe *convolve.NonFiniteError
	if err := dp.Upload(in); !errors.As(err, &nfe) || nfe.Variant != "auto-test" {
		t.Errorf("Upload of an infinite pixel: %v, want a *convolve.NonFiniteError naming auto-test", err)
	}
	if err := dp.Run(in, in); !errors.As(err, &nfe) {
		t.Errorf("Run of an infinite pixel: %v", err)
	}
	if err := dp.Close(); err != nil {
		t.Error(err)
	}
	// A path whose plan times nothing on a device gives a plain Plan.
	pl, err = New(Options{Name: "auto-tc", Paths: []string{"gpu-tc-*"}, Tables: func() (*crossover.Set, error) { return nil, nil },
		Device: func() (string, error) { return "Fake GPU", nil }}).Plan(problem(t, 64, 3, false, convolve.Float32), convolve.Config{})
	if err != nil {
		t.Fatal(err)
	}
	if _, isDev := pl.(convolve.DevicePlan); isDev {
		t.Errorf("plan of gpu-tc-3xtf32 (%T) is a DevicePlan, its path's is not", pl)
	}
	if s := pl.(*Plan).SettingSource(); s != "path gpu-tc-3xtf32, heuristic (no crossover table of Fake GPU)" {
		t.Errorf("SettingSource %q", s)
	}
}

// An auto over the Direct and FFT32 paths holds each plan to its path's
// model: ModelFor names the first choice's, and when that path refuses at
// plan time Plan falls back only on a path within its bound.
func TestModelFor(t *testing.T) {
	a := testAuto("Fake GPU")
	a.opt.Models = []convolve.ErrorModel{convolve.Direct, convolve.FFT32}
	tests := []struct {
		name      string
		side, k   int
		wantModel convolve.ErrorModel
		wantPath  string
	}{
		{"the table's FFT first", 1024, 45, convolve.FFT32, "gpu-fft"},
		{"a direct path first", 4096, 3, convolve.Direct, "gpu-regtile"},
	}
	for _, tt := range tests {
		p := problem(t, tt.side, tt.k, false, convolve.Float32)
		if m := a.ModelFor(p, convolve.Config{}); m != tt.wantModel {
			t.Errorf("%s: ModelFor = %v, want %v", tt.name, m, tt.wantModel)
		}
		if m := convolve.ModelOf(a, p, convolve.Config{}); m != tt.wantModel {
			t.Errorf("%s: convolve.ModelOf = %v, want %v", tt.name, m, tt.wantModel)
		}
		pl, err := a.Plan(p, convolve.Config{})
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		chosen := func() Choice {
			if dp, ok := pl.(*DevicePlan); ok {
				return dp.Chosen()
			}
			return pl.(*Plan).Chosen()
		}
		if got := chosen().Variant; got != tt.wantPath {
			t.Errorf("%s: planned on %s, want %s", tt.name, got, tt.wantPath)
		}
		pl.Close()
	}
	// Sobel magnitude is held to Direct whatever the paths.
	if m := convolve.ModelOf(a, convolve.Problem{Op: convolve.SobelMagnitude}, convolve.Config{}); m != convolve.Direct {
		t.Errorf("ModelOf(sobel) = %v, want direct", m)
	}
	// A problem no path serves is held to auto's declared model.
	bad := problem(t, 64, 3, false, convolve.Float32)
	bad.Border = convolve.Wrap
	if m := a.ModelFor(bad, convolve.Config{}); m != convolve.Direct {
		t.Errorf("ModelFor of a refused problem = %v, want the declared direct", m)
	}
}

// A first choice that refuses at plan time gives way only to a path within
// its bound: after an FFT32 path, no Direct one.
func TestPlanFallsBackWithinModel(t *testing.T) {
	refusing := &fake{d: convolve.Description{Name: "fft-refusing", Caps: gpuCaps(convolve.FFT32)}, refuseFrom: 1}
	convolve.Register(refusing)
	a := New(Options{Name: "auto-fallback", Paths: []string{"fft-refusing", "gpu-tiled"}, Models: []convolve.ErrorModel{convolve.Direct, convolve.FFT32},
		Heuristic: func(convolve.Problem) []string { return []string{"fft-refusing", "gpu-tiled"} },
		Tables:    func() (*crossover.Set, error) { return &crossover.Set{}, nil },
		Device:    func() (string, error) { return "Other GPU", nil }})
	p := problem(t, 256, 5, false, convolve.Float32)
	if m := a.ModelFor(p, convolve.Config{}); m != convolve.FFT32 {
		t.Fatalf("ModelFor = %v, want fft32 (the first choice's)", m)
	}
	_, err := a.Plan(p, convolve.Config{})
	var ce *convolve.CapabilityError
	if !errors.As(err, &ce) || !strings.Contains(err.Error(), "not within the first choice's fft32") {
		t.Errorf("Plan = %v, want a refusal saying gpu-tiled's direct bound is not within fft32", err)
	}
}
