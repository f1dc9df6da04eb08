package convolve

import (
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"
	"testing"
	"time"
)

func grayProblem(typ ElemType, f *Filter, b Border) Problem {
	return Problem{Op: Filter2D, Input: Geometry{Width: 16, Height: 8, Channels: 1, Type: typ}, Filter: f, Border: b}
}

func TestCapabilitiesCheck(t *testing.T) {
	gauss := GaussianInt3()
	big, _ := Box(9)
	rgbPlanar := Problem{Op: Filter2D, Input: Geometry{Width: 4, Height: 4, Channels: 3, Type: Uint8, Layout: Planar}, Filter: gauss}
	grayPlanar := Problem{Op: Filter2D, Input: Geometry{Width: 4, Height: 4, Channels: 1, Layout: Planar}, Filter: gauss}
	tests := []struct {
		name      string
		caps      Capabilities
		p         Problem
		what, val string // empty what: no error
	}{
		{"all allowed", Capabilities{}, grayProblem(Int16, gauss, Wrap), "", ""},
		{"op", Capabilities{Ops: []Operation{Filter2D}}, Problem{Op: SobelMagnitude, Input: Geometry{Width: 4, Height: 4, Channels: 1}}, "operation", "sobel-mag"},
		{"type", Capabilities{Types: []ElemType{Float32}}, grayProblem(Uint8, gauss, Zero), "element type", "u8"},
		{"channels", Capabilities{Channels: []int{1}}, rgbPlanar, "channel count", "3"},
		{"layout", Capabilities{Layouts: []Layout{Interleaved}}, rgbPlanar, "layout", "planar"},
		{"layout ignored for one channel", Capabilities{Layouts: []Layout{Interleaved}}, grayPlanar, "", ""},
		{"border", Capabilities{Borders: []Border{Zero, Replicate}}, grayProblem(Float32, gauss, Mirror), "border", "mirror"},
		{"filter size", Capabilities{MaxFilterSide: 7}, grayProblem(Float32, big, Zero), "filter size", "9x9 (largest 7)"},
		{"filter size fits", Capabilities{MaxFilterSide: 9}, grayProblem(Float32, big, Zero), "", ""},
		{"separable only", Capabilities{SeparableOnly: true}, grayProblem(Float32, Laplacian(), Zero), "non-separable filter", "laplacian"},
		{"separable ok", Capabilities{SeparableOnly: true}, grayProblem(Float32, SobelY(), Zero), "", ""},
		{"sobel is 3x3", Capabilities{MaxFilterSide: 1}, Problem{Op: SobelMagnitude, Input: Geometry{Width: 4, Height: 4, Channels: 1}}, "filter size", "3x3 (largest 1)"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.caps.Check(tc.p)
			if tc.what == "" {
				if err != nil {
					t.Fatalf("unexpected error %v", err)
				}
				return
			}
			var ce *CapabilityError
			if !errors.As(err, &ce) {
				t.Fatalf("error %v is not a *CapabilityError", err)
			}
			if ce.What != tc.what || ce.Value != tc.val {
				t.Errorf("got %q %q, want %q %q", ce.What, ce.Value, tc.what, tc.val)
			}
			if !strings.Contains(err.Error(), tc.what+" "+tc.val) {
				t.Errorf("message %q does not name %s %s", err, tc.what, tc.val)
			}
		})
	}
	// An invalid problem is a validation error, not a capability error.
	err := Capabilities{}.Check(Problem{Op: Filter2D, Input: Geometry{Width: 0, Height: 1, Channels: 1}, Filter: gauss})
	var ce *CapabilityError
	if err == nil || errors.As(err, &ce) || !strings.Contains(err.Error(), "width 0") {
		t.Errorf("invalid problem: %v", err)
	}
}

func TestCapabilitiesCheckConfig(t *testing.T) {
	cpu := Capabilities{Tunables: []string{"tile"}}
	gpu := Capabilities{GPU: true, Tunables: []string{"rows"}}
	fixed := Capabilities{GPU: true, FixedBlocks: []Block{{16, 16}, {32, 8}}}
	tests := []struct {
		name      string
		caps      Capabilities
		cfg       Config
		what, val string
		plain     string // non-capability error text
	}{
		{"cpu default", cpu, Config{}, "", "", ""},
		{"cpu tunable", cpu, Config{Tunables: map[string]int{"tile": 64}}, "", "", ""},
		{"cpu block", cpu, Config{Block: Block{16, 16}}, "block shape", "16x16 (CPU variant)", ""},
		{"cpu fmad", cpu, Config{NoFMA: true}, "compile options", "fmad/fast-math (CPU variant)", ""},
		{"cpu fast math", cpu, Config{FastMath: true}, "compile options", "fmad/fast-math (CPU variant)", ""},
		{"unknown tunable", gpu, Config{Tunables: map[string]int{"tile": 1}}, "tunable", "tile", ""},
		{"gpu block ok", gpu, Config{Block: Block{32, 32}, NoFMA: true}, "", "", ""},
		{"gpu block too big", gpu, Config{Block: Block{64, 32}}, "", "", "block 64x32"},
		{"gpu block negative", gpu, Config{Block: Block{-1, 4}}, "", "", "block -1x4"},
		{"fixed blocks", fixed, Config{Block: Block{8, 8}}, "block shape", "8x8", ""},
		{"fixed blocks ok", fixed, Config{Block: Block{32, 8}}, "", "", ""},
		{"cpu devices", cpu, Config{Devices: []int{0, 1}}, "devices", "0,1 (CPU variant)", ""},
		{"gpu devices", gpu, Config{Devices: []int{1}}, "", "", ""},
		{"single-device variant", gpu, Config{Devices: []int{0, 0}}, "devices", "0,0 (a single-device variant)", ""},
		{"multi-device variant", Capabilities{GPU: true, MultiDevice: true}, Config{Devices: []int{0, 0}}, "", "", ""},
		{"negative ordinal", gpu, Config{Devices: []int{-1}}, "", "", "device ordinal -1"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.caps.CheckConfig(tc.cfg)
			var ce *CapabilityError
			switch {
			case tc.what != "":
				if !errors.As(err, &ce) || ce.What != tc.what || ce.Value != tc.val {
					t.Errorf("error %v, want capability %q %q", err, tc.what, tc.val)
				}
			case tc.plain != "":
				if err == nil || errors.As(err, &ce) || !strings.Contains(err.Error(), tc.plain) {
					t.Errorf("error %v, want a plain error naming %q", err, tc.plain)
				}
			default:
				if err != nil {
					t.Errorf("unexpected error %v", err)
				}
			}
		})
	}
}

func TestCapabilityErrorMessage(t *testing.T) {
	e := &CapabilityError{What: "border", Value: "wrap"}
	if got := e.Error(); got != "convolve: variant does not support border wrap" {
		t.Errorf("%q", got)
	}
	e.Variant = "gpu-naive"
	if got := e.Error(); got != "convolve: gpu-naive does not support border wrap" {
		t.Errorf("%q", got)
	}
}

// fakeVariant is a test-local variant that records what it planned.
type fakeVariant struct {
	name    string
	caps    Capabilities
	planned []Problem
}

func (v *fakeVariant) Describe() Description {
	return Description{Name: v.name, Summary: "test fake", Caps: v.caps}
}

func (v *fakeVariant) Plan(p Problem, cfg Config) (Plan, error) {
	v.planned = append(v.planned, p)
	return fakePlan{}, nil
}

type fakePlan struct{}

func (fakePlan) Run(in, out *Image) error { return nil }
func (fakePlan) Close() error             { return nil }

func mustPanic(t *testing.T, what string, f func()) {
	t.Helper()
	defer func() {
		if recover() == nil {
			t.Errorf("%s did not panic", what)
		}
	}()
	f()
}

func TestRegistry(t *testing.T) {
	name := "test-fake-registry-" + time.Now().Format("150405.000000000")
	v := &fakeVariant{name: name, caps: Capabilities{Borders: []Border{Zero}}}
	Register(v)
	got, err := Lookup(name)
	if err != nil || got != v {
		t.Fatalf("Lookup(%q) = %v, %v", name, got, err)
	}
	found := false
	vs := Variants()
	for i, x := range vs {
		if x == v {
			found = true
		}
		if i > 0 && vs[i-1].Describe().Name >= x.Describe().Name {
			t.Errorf("Variants not sorted: %q before %q", vs[i-1].Describe().Name, x.Describe().Name)
		}
	}
	if !found {
		t.Error("Variants does not list the registered fake")
	}
	mustPanic(t, "duplicate Register", func() { Register(&fakeVariant{name: name}) })
	mustPanic(t, "Register with empty name", func() { Register(&fakeVariant{}) })

	_, err = Lookup("no-such-variant")
	if err == nil || !strings.Contains(err.Error(), `"no-such-variant"`) || !strings.Contains(err.Error(), "registered") {
		t.Errorf("Lookup of an unknown name: %v; want the name and how many are registered", err)
	}
	if _, err := PlanFor(nil, grayProblem(Float32, SobelX(), Zero), Config{}); err == nil {
		t.Error("PlanFor(nil, ...): no error")
	}

	// PlanFor refuses what the capabilities exclude, naming the variant,
	// and plans the rest.
	_, err = PlanFor(v, grayProblem(Float32, SobelX(), Wrap), Config{})
	var ce *CapabilityError
	if !errors.As(err, &ce) || ce.Variant != name || ce.What != "border" {
		t.Errorf("PlanFor with an unsupported border: %v", err)
	}
	_, err = PlanFor(v, grayProblem(Float32, SobelX(), Zero), Config{Block: Block{8, 8}})
	if !errors.As(err, &ce) || ce.Variant != name || ce.What != "block shape" {
		t.Errorf("PlanFor with a block on a CPU variant: %v", err)
	}
	if len(v.planned) != 0 {
		t.Fatalf("Plan called for refused problems: %v", v.planned)
	}
	p := grayProblem(Float32, SobelX(), Zero)
	pl, err := PlanFor(v, p, Config{})
	if err != nil || pl == nil || len(v.planned) != 1 || v.planned[0].Filter != p.Filter {
		t.Errorf("PlanFor of a supported problem: %v %v %v", pl, err, v.planned)
	}
}

func TestParseBlock(t *testing.T) {
	good := map[string]Block{"32x8": {32, 8}, "1x1": {1, 1}, "1024x1": {1024, 1}, "32x32": {32, 32}}
	for s, want := range good {
		b, err := ParseBlock(s)
		if err != nil || b != want || b.String() != s {
			t.Errorf("ParseBlock(%q) = %v, %v", s, b, err)
		}
	}
	for _, s := range []string{"", "32", "x8", "32x", "32x8x1", "32 x 8", "+32x8", "032x8", "0x8", "8x-1", "33x32", "2048x1", "axb"} {
		b, err := ParseBlock(s)
		if err == nil {
			t.Errorf("ParseBlock(%q) = %v, want an error", s, b)
		} else if !strings.Contains(err.Error(), `"`+s+`"`) {
			t.Errorf("ParseBlock(%q) error %q does not quote the input", s, err)
		}
	}
}

func TestParseDevices(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want []int
		bad  string // the part an error quotes; "" when it parses
	}{
		{"", nil, ""},
		{"0", []int{0}, ""},
		{"0,0", []int{0, 0}, ""},
		{"3, 1,2", []int{3, 1, 2}, ""},
		{"10", []int{10}, ""},
		{"0,", nil, `""`},
		{"a", nil, `"a"`},
		{"-1", nil, `"-1"`},
		{"+1", nil, `"+1"`},
		{"01", nil, `"01"`},
		{"0;1", nil, `"0;1"`},
	} {
		got, err := ParseDevices(tt.in)
		switch {
		case tt.bad == "" && (err != nil || !slices.Equal(got, tt.want)):
			t.Errorf("ParseDevices(%q) = %v, %v; want %v", tt.in, got, err, tt.want)
		case tt.bad != "" && (err == nil || !strings.Contains(err.Error(), tt.bad)):
			t.Errorf("ParseDevices(%q) = %v, %v; want an error quoting %s", tt.in, got, err, tt.bad)
		case err == nil && len(got) > 0 && FormatDevices(got) != strings.ReplaceAll(tt.in, " ", ""):
			t.Errorf("FormatDevices(ParseDevices(%q)) = %q", tt.in, FormatDevices(got))
		}
	}
}

func TestConfigString(t *testing.T) {
	c := Config{Block: Block{32, 8}, NoFMA: true, FastMath: true, Tunables: map[string]int{"rows": 4, "cols": 2}, Devices: []int{0, 0}}
	if got, want := c.String(), "block=32x8 fmad=false fast-math cols=2 rows=4 gpus=0,0"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	if got := (Config{}).String(); got != "" {
		t.Errorf("zero Config = %q", got)
	}
}

func TestProblemValidate(t *testing.T) {
	in := Geometry{Width: 8, Height: 8, Channels: 3, Type: Uint8}
	tests := []struct {
		name string
		p    Problem
		want string
	}{
		{"op", Problem{Op: Operation(7), Input: in}, "operation 7"},
		{"input", Problem{Op: SobelMagnitude, Input: Geometry{Width: 8, Height: -1, Channels: 1}}, "height -1"},
		{"border", Problem{Op: SobelMagnitude, Input: in, Border: Border(9)}, "border 9"},
		{"mode", Problem{Op: SobelMagnitude, Input: in, Mode: Mode(3)}, "mode 3"},
		{"no filter", Problem{Op: Filter2D, Input: in}, "needs a filter"},
		{"bad filter", Problem{Op: Filter2D, Input: in, Filter: &Filter{Name: "bad", Width: 2, Height: 3}}, "width 2"},
		{"yuv channels", Problem{Op: RGBToYUV, Input: Geometry{Width: 8, Height: 8, Channels: 1, Type: Uint8}}, "1-channel u8"},
		{"yuv type", Problem{Op: RGBToYUV, Input: Geometry{Width: 8, Height: 8, Channels: 3}}, "3-channel f32"},
	}
	for _, tc := range tests {
		err := tc.p.Validate()
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want it to mention %q", tc.name, err, tc.want)
		}
	}
	p := Problem{Op: RGBToYUV, Input: Geometry{Width: 8, Height: 4, Channels: 3, Type: Uint8, Stride: 30}}
	if err := p.Validate(); err != nil {
		t.Fatal(err)
	}
	og := p.OutputGeometry()
	if og.Type != Uint8 || og.Layout != Planar || og.Stride != 0 || og.Channels != 3 {
		t.Errorf("rgb2yuv output %v", og)
	}
	if kw, kh := p.KernelSize(); kw != 1 || kh != 1 {
		t.Errorf("rgb2yuv kernel %dx%d", kw, kh)
	}
	f := Problem{Op: Filter2D, Input: Geometry{Width: 8, Height: 4, Channels: 2, Type: Int16, Layout: Planar, Stride: 9}, Filter: SobelX()}
	if og := f.OutputGeometry(); og.Type != Float32 || og.Layout != Planar || og.Stride != 0 {
		t.Errorf("filter2d output %v", og)
	}
}

func TestProblemCheckIO(t *testing.T) {
	p := Problem{Op: Filter2D, Input: Geometry{Width: 4, Height: 3, Channels: 1, Type: Uint8, Stride: 6}, Filter: SobelX()}
	in, _ := NewImage(p.Input)
	out, err := p.NewOutput()
	if err != nil {
		t.Fatal(err)
	}
	if err := p.CheckIO(in, out); err != nil {
		t.Fatal(err)
	}
	packed, _ := NewImage(p.Input.Packed())
	if err := p.CheckIO(packed, out); err == nil || !strings.Contains(err.Error(), "input") {
		t.Errorf("input with another stride: %v", err)
	}
	wrong, _ := NewImage(Geometry{Width: 4, Height: 3, Channels: 1, Type: Uint8})
	if err := p.CheckIO(in, wrong); err == nil || !strings.Contains(err.Error(), "output") {
		t.Errorf("u8 output: %v", err)
	}
	if err := p.CheckIO(in, nil); err == nil || !strings.Contains(err.Error(), "convolve: output: nil image") {
		t.Errorf("nil output: %v", err)
	}
}

func TestTunablesRoundTrip(t *testing.T) {
	for _, tt := range []struct {
		in      string
		want    map[string]int
		wantErr bool
	}{
		{"", nil, false},
		{"shared=1", map[string]int{"shared": 1}, false},
		{"ry=4,shared=0", map[string]int{"ry": 4, "shared": 0}, false},
		{"shared", nil, true},
		{"=1", nil, true},
		{"shared=x", nil, true},
		{"shared=1,shared=0", nil, true},
	} {
		got, err := ParseTunables(tt.in)
		if (err != nil) != tt.wantErr {
			t.Errorf("ParseTunables(%q) error %v, want error %v", tt.in, err, tt.wantErr)
			continue
		}
		if !maps.Equal(got, tt.want) {
			t.Errorf("ParseTunables(%q) = %v, want %v", tt.in, got, tt.want)
		}
		if err == nil {
			if back := FormatTunables(got); back != tt.in {
				t.Errorf("FormatTunables(ParseTunables(%q)) = %q", tt.in, back)
			}
		}
	}
	if got := (Config{Tunables: map[string]int{"shared": 1, "ry": 2}}).String(); got != "ry=2 shared=1" {
		t.Errorf("Config.String() = %q", got)
	}
}

// TestLookupEmptyRegistry: with no variant package imported, the error
// says none is registered and which packages register them.
func TestLookupEmptyRegistry(t *testing.T) {
	registryMu.Lock()
	saved := registry
	registry = map[string]Variant{}
	registryMu.Unlock()
	defer func() {
		registryMu.Lock()
		registry = saved
		registryMu.Unlock()
	}()
	_, err := Lookup("cpu-naive")
	if err == nil {
		t.Fatal("Lookup in an empty registry: no error")
	}
	for _, want := range []string{"registered: none", "refimpl", "gpu/variants"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not mention %q", err, want)
		}
	}
}

// TestFiniteInputCheck: a FiniteInput variant's capabilities refuse a
// filter with a NaN or infinite weight with a *NonFiniteError naming the
// variant (through PlanFor) and the weight; other variants accept it.
func TestFiniteInputCheck(t *testing.T) {
	w := SobelX().Weights
	w[4] = float32(math.Inf(1))
	f := &Filter{Name: "inf", Width: 3, Height: 3, Weights: w}
	p := grayProblem(Float32, f, Zero)
	if err := (Capabilities{}).Check(p); err != nil {
		t.Errorf("IEEE capabilities refuse a non-finite filter: %v", err)
	}
	err := (Capabilities{FiniteInput: true}).Check(p)
	var nf *NonFiniteError
	if !errors.As(err, &nf) || !math.IsInf(nf.Value, 1) || !strings.Contains(err.Error(), "row 1, col 1") {
		t.Errorf("FiniteInput Check = %v, want a *NonFiniteError for weight (1, 1)", err)
	}
	name := "test-finite-only-" + time.Now().Format("150405.000000000")
	v := &fakeVariant{name: name, caps: Capabilities{FiniteInput: true}}
	_, err = PlanFor(v, p, Config{})
	if !errors.As(err, &nf) || nf.Variant != name || len(v.planned) != 0 {
		t.Errorf("PlanFor of a finite-only variant with an infinite weight: %v (planned %d)", err, len(v.planned))
	}
	// Sobel's own weights are finite whatever the problem's filter.
	if err := (Capabilities{FiniteInput: true}).Check(Problem{Op: SobelMagnitude, Input: p.Input}); err != nil {
		t.Errorf("FiniteInput Check of a Sobel problem: %v", err)
	}
}

// TestCheckFiniteImage: the first NaN or infinite element of a float32
// image is named; padding and integer images are not looked at.
func TestCheckFiniteImage(t *testing.T) {
	for _, l := range Layouts {
		g := Geometry{Width: 5, Height: 3, Channels: 2, Layout: l, Stride: 12}
		im, err := NewImage(g)
		if err != nil {
			t.Fatal(err)
		}
		im.Fill(math.NaN()) // padding included
		for c := 0; c < 2; c++ {
			for y := 0; y < 3; y++ {
				for x := 0; x < 5; x++ {
					im.Set(x, y, c, float64(x-y))
				}
			}
		}
		if err := CheckFiniteImage(im); err != nil {
			t.Errorf("%v: finite pixels with NaN padding: %v", l, err)
		}
		for _, v := range []float64{math.NaN(), math.Inf(1), math.Inf(-1)} {
			bad := im.Clone()
			bad.Set(3, 2, 1, v)
			err := CheckFiniteImage(bad)
			var nf *NonFiniteError
			if !errors.As(err, &nf) || !strings.Contains(err.Error(), "(x=3, y=2, c=1)") || ClassOf(nf.Value) != ClassOf(v) {
				t.Errorf("%v: element %v at (3, 2, 1): %v", l, v, err)
			}
		}
	}
	// A large image is scanned on every core; the last element counts.
	big, _ := NewImage(Geometry{Width: 1024, Height: 1024, Channels: 1})
	if err := CheckFiniteImage(big); err != nil {
		t.Errorf("large zero image: %v", err)
	}
	big.F32[len(big.F32)-1] = float32(math.Inf(-1))
	if err := CheckFiniteImage(big); err == nil || !strings.Contains(err.Error(), "(x=1023, y=1023, c=0)") {
		t.Errorf("large image with -Inf in its last element: %v", err)
	}
	u8, _ := NewImage(Geometry{Width: 2, Height: 2, Channels: 1, Type: Uint8})
	if err := CheckFiniteImage(u8); err != nil || CheckFiniteImage(nil) != nil {
		t.Errorf("integer or nil image: %v", err)
	}
}

// Clone's lists share no memory with the original's.
func TestCapabilitiesClone(t *testing.T) {
	c := Capabilities{Ops: []Operation{Filter2D}, Types: []ElemType{Float32}, Channels: []int{1}, Layouts: []Layout{Planar},
		Borders: []Border{Zero}, FixedBlocks: []Block{{X: 32, Y: 8}}, Tunables: []string{"ry"}, MaxFilterSide: 31}
	d := c.Clone()
	d.Ops[0], d.Types[0], d.Channels[0], d.Layouts[0] = SobelMagnitude, Uint8, 3, Interleaved
	d.Borders[0], d.FixedBlocks[0], d.Tunables[0] = Wrap, Block{X: 1, Y: 1}, "rx"
	if c.Ops[0] != Filter2D || c.Types[0] != Float32 || c.Channels[0] != 1 || c.Layouts[0] != Planar ||
		c.Borders[0] != Zero || c.FixedBlocks[0] != (Block{X: 32, Y: 8}) || c.Tunables[0] != "ry" {
		t.Errorf("changing the clone changed the original: %+v", c)
	}
	if d.MaxFilterSide != 31 {
		t.Errorf("clone lost MaxFilterSide: %+v", d)
	}
}

// planErrVariant is a variant whose Plan returns err.
type planErrVariant struct {
	name string
	caps Capabilities
	err  error
}

func (v planErrVariant) Describe() Description {
	return Description{Name: v.name, Summary: "test fake", Caps: v.caps}
}

func (v planErrVariant) Plan(Problem, Config) (Plan, error) { return nil, v.err }

// TestPlanForErrorsNameVariant: every error PlanFor returns names the
// variant once, with one convolve: prefix, and keeps the typed errors and
// sentinels of its chain reachable.
func TestPlanForErrorsNameVariant(t *testing.T) {
	const name = "gpu-test"
	gpu := Capabilities{GPU: true, Borders: []Border{Zero}, FiniteInput: true}
	ok := grayProblem(Float32, SobelX(), Zero)
	inf := SobelX()
	inf.Weights[4] = float32(math.Inf(1))
	errNoDevice := errors.New("cudabind: no CUDA device")
	huge := ok
	huge.Input = Geometry{Width: 1 << 20, Height: 1 << 20, Channels: 4}
	badFilter := ok
	badFilter.Filter = &Filter{Name: "even", Width: 2, Height: 3, Weights: make([]float32, 6)}
	borderWrap := ok
	borderWrap.Border = Wrap

	tests := []struct {
		name    string
		p       Problem
		cfg     Config
		planErr error  // what the variant's Plan returns
		want    string // the whole message
		as      string // the typed error errors.As must find, naming the variant where it has a field for it
		is      error  // a sentinel errors.Is must find, or nil
	}{
		{name: "invalid image", p: Problem{Op: Filter2D, Input: Geometry{Height: 4, Channels: 1}, Filter: SobelX()},
			want: "convolve: gpu-test: image width 0: must be positive"},
		{name: "invalid filter", p: badFilter,
			want: `convolve: gpu-test: filter "even" width 2: must be odd, 1 to 1023`},
		{name: "image too large", p: huge, as: "SizeError",
			want: "convolve: gpu-test: image 1048576x1048576x4 f32 interleaved stride 4194304: 17592186044416 bytes of data, more than the limit of 17179869184 bytes (MaxImageBytes)"},
		{name: "capability", p: borderWrap, as: "CapabilityError",
			want: "convolve: gpu-test does not support border wrap"},
		{name: "non-finite filter", p: Problem{Op: Filter2D, Input: ok.Input, Filter: inf}, as: "NonFiniteError",
			want: `convolve: gpu-test needs finite input: filter "sobel-x" weight 4 (row 1, col 1) is +Inf`},
		{name: "config capability", p: ok, cfg: Config{Tunables: map[string]int{"ry": 2}}, as: "CapabilityError",
			want: "convolve: gpu-test does not support tunable ry"},
		{name: "config value", p: ok, cfg: Config{Devices: []int{-1}},
			want: "convolve: gpu-test: device ordinal -1: ordinals are not negative"},
		{name: "plan error of another package", p: ok, planErr: fmt.Errorf("open device: %w", errNoDevice), is: errNoDevice,
			want: "convolve: gpu-test: open device: cudabind: no CUDA device"},
		{name: "plan error naming the variant", p: ok, planErr: errors.New("variants: gpu-test: Setup left Enqueue unset"),
			want: "variants: gpu-test: Setup left Enqueue unset"},
		{name: "plan capability error", p: ok, planErr: &CapabilityError{What: "image size", Value: "2^30"}, as: "CapabilityError",
			want: "convolve: gpu-test does not support image size 2^30"},
		{name: "plan memory error", p: ok, planErr: &MemoryError{Memory: "device", What: "input", Needed: 8, Available: 4}, as: "MemoryError",
			want: "convolve: gpu-test: input needs 8 bytes of device memory, 4 available"},
		{name: "wrapped plan memory error", p: ok, planErr: wrapf(&MemoryError{Memory: "device", What: "input", Needed: 8, Available: 4}, "buffers"), as: "MemoryError",
			want: "convolve: buffers: gpu-test: input needs 8 bytes of device memory, 4 available"},
		{name: "plan error of this package", p: ok, planErr: errors.New("convolve: plan used after Close"),
			want: "convolve: gpu-test: plan used after Close"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			v := planErrVariant{name: name, caps: gpu, err: tc.planErr}
			pl, err := PlanFor(v, tc.p, tc.cfg)
			if err == nil {
				t.Fatalf("PlanFor = %v, nil; want an error", pl)
			}
			if err.Error() != tc.want {
				t.Errorf("PlanFor error\n%s\nwant\n%s", err, tc.want)
			}
			found, named := false, false
			switch tc.as {
			case "":
				found, named = true, true
			case "SizeError":
				var e *SizeError
				found, named = errors.As(err, &e), true
			case "CapabilityError":
				var e *CapabilityError
				found = errors.As(err, &e)
				named = found && e.Variant == name
			case "NonFiniteError":
				var e *NonFiniteError
				found = errors.As(err, &e)
				named = found && e.Variant == name
			case "MemoryError":
				var e *MemoryError
				found = errors.As(err, &e)
				named = found && e.Variant == name
			}
			if !found || !named {
				t.Errorf("errors.As(err, *%s): found %v, naming %s %v", tc.as, found, name, named)
			}
			if tc.is != nil && !errors.Is(err, tc.is) {
				t.Errorf("errors.Is(%v, %v) = false", err, tc.is)
			}
		})
	}
}

// TestLookupSuggests: a wrong name gets one short line naming the closest
// registered names, not the whole registry.
func TestLookupSuggests(t *testing.T) {
	registryMu.Lock()
	saved := registry
	registry = map[string]Variant{}
	for _, n := range []string{"cpu-fast", "cpu-naive", "gpu-shared", "gpu-shared-rows", "gpu-tiled", "gpu-regtile", "npp"} {
		registry[n] = nil
	}
	registryMu.Unlock()
	defer func() {
		registryMu.Lock()
		registry = saved
		registryMu.Unlock()
	}()
	for _, tt := range []struct {
		name, want string
	}{
		{"cpu-fst", `(did you mean cpu-fast? 7 are registered)`},
		{"gpu-shard", `(did you mean gpu-shared?`},
		{"tiled", `(did you mean gpu-tiled?`},
		{"fft-direct-xyz", `(none of the 7 registered is close; Variants lists them)`},
	} {
		_, err := Lookup(tt.name)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("Lookup(%q) = %v, want an error containing %q", tt.name, err, tt.want)
		}
		if err != nil && (len(err.Error()) > 120 || strings.Contains(err.Error(), "\n")) {
			t.Errorf("Lookup(%q): %d characters or several lines: %q", tt.name, len(err.Error()), err)
		}
	}
}
