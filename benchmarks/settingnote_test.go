package benchmarks

import (
	"testing"

	"github.com/convbench/convbench/convolve"
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
		{tunedPlan{s: s, source: "tuned (results/tuning/x.json: gpu-regtile f32 k=3 large)"},
			"config: block=64x4 rx=4,ry=8, tuned (results/tuning/x.json: gpu-regtile f32 k=3 large)"},
		{tunedPlan{s: s, source: "default"}, "config: block=64x4 rx=4,ry=8, default"},
		{struct{ convolve.Plan }{}, ""},
	}
	for _, tt := range tests {
		if got := settingNote(tt.plan); got != tt.want {
			t.Errorf("settingNote = %q, want %q", got, tt.want)
		}
	}
}
