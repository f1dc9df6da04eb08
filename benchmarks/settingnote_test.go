package benchmarks

import (
	"strings"
	"testing"

	"github.com/convbench/convbench/convolve"
	"github.com/convbench/convbench/runfile"
)

type tunedPlan struct {
	convolve.Plan
	s      convolve.Setting
	source string
}

func (p tunedPlan) Setting() convolve.Setting { return p.s }
func (p tunedPlan) SettingSource() string     { return p.source }

func TestSettingNote(t *testing.T) {
	s := convolve.Setting{Block: convolve.Block{X: 64, Y: 4}, Tunables: map[string]int{"rx": 4, "ry": 8}}
	tests := []struct {
		plan convolve.Plan
		want string
	}{
		{tunedPlan{s: s, source: "tuned (tables/tuning/x.json: gpu-regtile f32 k=3 large)"},
			"config: block=64x4 rx=4,ry=8, tuned (tables/tuning/x.json: gpu-regtile f32 k=3 large)"},
		{tunedPlan{s: s, source: "default"}, "config: block=64x4 rx=4,ry=8, default"},
		{struct{ convolve.Plan }{}, ""},
	}
	for _, tt := range tests {
		if got := settingNote(tt.plan); got != tt.want {
			t.Errorf("settingNote = %q, want %q", got, tt.want)
		}
	}
}

// tunedNaive is cpu-naive whose plans say how they were set up.
type tunedNaive struct{ convolve.Variant }

func (v tunedNaive) Plan(p convolve.Problem, cfg convolve.Config) (convolve.Plan, error) {
	pl, err := v.Variant.Plan(p, cfg)
	if err != nil {
		return nil, err
	}
	return tunedPlan{Plan: pl, s: convolve.Setting{Block: convolve.Block{X: 8, Y: 8}}, source: "path cpu-naive, chosen by test"}, nil
}

// A Runner with Settings writes one "# setting" line for a case whose
// plan is a convolve.TunedPlan, naming the case, and none for others.
func TestRunnerWritesSettings(t *testing.T) {
	naive, err := convolve.Lookup("cpu-naive")
	if err != nil {
		t.Fatal(err)
	}
	for _, tuned := range []bool{true, false} {
		var settings, progress strings.Builder
		c := Case{Variant: "cpu-naive", Width: 16, Height: 12, Filter: "gauss3", Channels: 1, Cache: Hot, Timing: CPUTiming}
		r := &Runner{CPUThreads: 1, Seed: 1, Progress: newProgress(&progress, "test", 1, nowForTest()), Noise: quickNoise, Settings: &settings,
			Lookup: func(string) (convolve.Variant, error) {
				if tuned {
					return tunedNaive{naive}, nil
				}
				return naive, nil
			}}
		benchOnce(t, func(b *testing.B) { r.Run(b, c) })
		if err := r.Close(); err != nil {
			t.Fatal(err)
		}
		want := ""
		if tuned {
			want = runfile.SettingPrefix + c.Name() + ": config: block=8x8, path cpu-naive, chosen by test\n"
		}
		if got := settings.String(); got != want {
			t.Errorf("tuned %v: settings %q, want %q", tuned, got, want)
		}
	}
}
