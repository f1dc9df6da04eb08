package variants

import (
	"maps"
	"strings"
	"testing"

	"github.com/convbench/convbench/convolve"
	"github.com/convbench/convbench/cudabind"
	"github.com/convbench/convbench/tables/tuning"
)

func TestTuningSpacesCheck(t *testing.T) {
	n := 0
	for _, v := range convolve.Variants() {
		d := v.Describe()
		if d.Caps.Space == nil {
			continue
		}
		n++
		if err := d.Caps.Space.Check(d.Caps); err != nil {
			t.Errorf("%s: %v", d.Name, err)
		}
	}
	for _, name := range []string{"gpu-tiled", "gpu-regtile", "gpu-sepfused"} {
		v, err := convolve.Lookup(name)
		if err != nil {
			t.Fatal(err)
		}
		if v.Describe().Caps.Space == nil {
			t.Errorf("%s declares no tuning space", name)
		}
	}
	if n == 0 {
		t.Fatal("no variant declares a tuning space")
	}
}

// TestTuningSpaceDefaults checks that each space's Default is allowed
// and is the setting its family picks itself: the variant's block, and,
// for a declared family, the same defines as a plan without tunables.
func TestTuningSpaceDefaults(t *testing.T) {
	info := testInfo()
	for _, name := range []string{"gpu-tiled", "gpu-regtile", "gpu-sepfused"} {
		for _, k := range []int{3, 7, 15, 31} {
			for _, side := range []int{256, 4096} {
				p := tuneProblem(t, side, k)
				v := lookupVariant(t, name)
				def := v.Desc.Caps.Space.Default(p, convolve.Block{}, Limits(info))
				if def.Block != v.Block {
					t.Errorf("%s: default block %v, variant's %v", name, def.Block, v.Block)
				}
				if err := v.Desc.Caps.Space.Allowed(p, def, Limits(info)); err != nil {
					t.Errorf("%s K=%d %dx%d: default %v is not allowed: %v", name, k, side, side, def, err)
				}
				if d := v.decl; d != nil {
					got := resolveDefines(t, v, p, convolve.Config{}, info)
					want := resolveDefines(t, v, p, def.Apply(convolve.Config{}), info)
					if !maps.Equal(got, want) {
						t.Errorf("%s K=%d %dx%d: defines %v without tunables, %v with Default's %v", name, k, side, side, got, want, def)
					}
				}
			}
		}
	}
}

func resolveDefines(t *testing.T, v *Variant, p convolve.Problem, cfg convolve.Config, info cudabind.DeviceInfo) map[string]string {
	t.Helper()
	b, err := newBase(v.Desc, v.Block, p, cfg)
	if err != nil {
		t.Fatal(err)
	}
	b.Info = info
	r, err := v.decl.resolve(b)
	if err != nil {
		t.Fatal(err)
	}
	return r.defines
}

func testInfo() cudabind.DeviceInfo {
	return cudabind.DeviceInfo{Name: "Test GPU", SMs: 132, SharedPerBlock: 48 << 10, SharedPerBlockOptin: 227 << 10,
		MaxThreadsPerBlock: 1024, ConstantBytes: 64 << 10}
}

func tuneProblem(t *testing.T, side, k int) convolve.Problem {
	t.Helper()
	w := make([]float32, k*k)
	for i := range w {
		w[i] = 1
	}
	f, err := convolve.NewFilter("box", k, k, w)
	if err != nil {
		t.Fatal(err)
	}
	return convolve.Problem{Op: convolve.Filter2D, Filter: f,
		Input: convolve.Geometry{Width: side, Height: side, Channels: 1, Type: convolve.Float32}}
}

func lookupVariant(t *testing.T, name string) *Variant {
	t.Helper()
	v, err := convolve.Lookup(name)
	if err != nil {
		t.Fatal(err)
	}
	return v.(*Variant)
}

func TestApplyTuning(t *testing.T) {
	var set tuning.Set
	set.Add(&tuning.Table{GPU: "Test GPU", Entries: []tuning.Entry{
		{Variant: "gpu-regtile", Type: "f32", K: 3, Size: convolve.SizeLarge,
			Chosen: tuning.Candidate{Block: "64x4", Tunables: map[string]int{"rx": 2, "ry": 4}, Status: tuning.OK}},
		{Variant: "gpu-tiled", Type: "f32", K: 5, Size: convolve.SizeLarge,
			Chosen: tuning.Candidate{Block: "128x2", Tunables: map[string]int{"ry": 2}, Status: tuning.OK}},
		// Allowed at K=3, kept out at K=31 (over the unroll limit).
		{Variant: "gpu-regtile", Type: "f32", K: 31, Size: convolve.SizeLarge,
			Chosen: tuning.Candidate{Block: "32x8", Tunables: map[string]int{"rx": 8, "ry": 8}, Status: tuning.OK}},
	}}, "test.json")
	tests := []struct {
		name, variant string
		gpu           string
		k             int
		cfg           convolve.Config
		want          string // the setting
		source        string // its source's prefix
	}{
		{"entry", "gpu-regtile", "Test GPU", 3, convolve.Config{}, "block=64x4 rx=2,ry=4", "tuned (test.json: gpu-regtile f32 k=3 large)"},
		{"nearest K", "gpu-tiled", "Test GPU", 7, convolve.Config{}, "block=128x2 ry=2", "tuned (test.json: gpu-tiled f32 k=5 large)"},
		{"untuned", "gpu-regtile", "Test GPU", 3, convolve.Config{Untuned: true}, "block=32x8 rx=4,ry=2", "default"},
		{"no table", "gpu-regtile", "Other GPU", 3, convolve.Config{}, "block=32x8 rx=4,ry=2", "default"},
		{"no entry", "gpu-tiled", "Other GPU", 3, convolve.Config{}, "block=32x8 ry=8", "default"},
		{"entry not allowed", "gpu-regtile", "Test GPU", 31, convolve.Config{}, "block=32x8 rx=4,ry=8", "default"},
		{"rx given", "gpu-regtile", "Test GPU", 3, convolve.Config{Tunables: map[string]int{"rx": 1}}, "block=64x4 rx=1,ry=4", "tuned"},
		{"block given", "gpu-regtile", "Test GPU", 3, convolve.Config{Block: convolve.Block{X: 16, Y: 16}}, "block=16x16 rx=2,ry=4", "tuned"},
		{"all given", "gpu-regtile", "Test GPU", 3, convolve.Config{Block: convolve.Block{X: 32, Y: 4}, Tunables: map[string]int{"rx": 1, "ry": 1}}, "block=32x4 rx=1,ry=1", "given"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v := lookupVariant(t, tt.variant)
			b, err := newBase(v.Desc, v.Block, tuneProblem(t, 4096, tt.k), tt.cfg)
			if err != nil {
				t.Fatal(err)
			}
			b.Info = testInfo()
			b.Info.Name = tt.gpu
			if err := applyTuning(b, v.Desc.Caps.Space, &set); err != nil {
				t.Fatal(err)
			}
			if got := b.Setting().String(); got != tt.want {
				t.Errorf("setting %s, want %s", got, tt.want)
			}
			if !strings.HasPrefix(b.SettingSource(), tt.source) {
				t.Errorf("source %q, want %q", b.SettingSource(), tt.source)
			}
			if b.Block != b.Setting().Block {
				t.Errorf("plan block %v, setting's %v", b.Block, b.Setting().Block)
			}
			// What Setup reads: the tuned values are in the configuration.
			if strings.HasPrefix(tt.source, "tuned") {
				for n, val := range b.Setting().Tunables {
					if b.Config.Tunables[n] != val {
						t.Errorf("Config.Tunables[%s] = %d, want %d", n, b.Config.Tunables[n], val)
					}
				}
			}
			// The declaration accepts the completed configuration.
			if d := v.decl; d != nil {
				if err := d.Validate(b.Problem, b.Config, b.Info); err != nil {
					t.Errorf("Validate: %v", err)
				}
			}
		})
	}
}

// SettledConfig writes in what the plan of the real problem takes: at
// 4096x4096 gpu-tiled's default ry is 8 for a 3x3 filter, which the small
// image Warm compiles on would not give (too few blocks).
func TestSettledConfig(t *testing.T) {
	v := lookupVariant(t, "gpu-tiled")
	info := testInfo()
	info.Name = "GPU without a table"
	got := SettledConfig(v, tuneProblem(t, 4096, 3), convolve.Config{NoFMA: true}, info)
	if got.Block != (convolve.Block{X: 32, Y: 8}) || got.Tunables[tunableRY] != 8 || !got.NoFMA {
		t.Errorf("SettledConfig = %+v, want block 32x8, ry=8, NoFMA kept", got)
	}
	small := SettledConfig(v, tuneProblem(t, 16, 3), convolve.Config{}, info)
	if small.Tunables[tunableRY] == 8 {
		t.Errorf("SettledConfig of a 16x16 image = %+v: the test no longer shows a difference", small)
	}
	plain := lookupVariant(t, "gpu-naive")
	if got := SettledConfig(plain, tuneProblem(t, 4096, 3), convolve.Config{}, info); got.Block != (convolve.Block{}) || got.Tunables != nil {
		t.Errorf("SettledConfig of a variant without a space = %+v", got)
	}
}
