package convolve

import (
	"errors"
	"testing"
)

func testSpace() *TuningSpace {
	return &TuningSpace{
		Blocks:   []Block{{32, 4}, {32, 8}, {64, 8}, {16, 16}},
		Tunables: []Tunable{{"rx", []int{1, 2, 4}}, {"ry", []int{1, 2}}},
		Allow: func(p Problem, s Setting, lim DeviceLimits) error {
			if s.Block.X*s.Tunables["rx"]*4 > lim.SharedPerBlock {
				return errors.New("tile too large")
			}
			return nil
		},
		Default: func(Problem, Block, DeviceLimits) Setting {
			return Setting{Block: Block{32, 8}, Tunables: map[string]int{"rx": 1, "ry": 1}}
		},
	}
}

func TestTuningSpaceSettings(t *testing.T) {
	sp := testSpace()
	if got := sp.Size(); got != 24 {
		t.Fatalf("Size = %d, want 24", got)
	}
	tests := []struct {
		lim          DeviceLimits
		ok, excluded int
	}{
		{DeviceLimits{SharedPerBlock: 1 << 20}, 24, 0},
		// 64-wide blocks with rx=4 need 1024 bytes, 32-wide with rx=4 512.
		{DeviceLimits{SharedPerBlock: 512}, 22, 2},
		{DeviceLimits{SharedPerBlock: 1 << 20, MaxThreadsPerBlock: 256}, 18, 6},
	}
	for _, tt := range tests {
		ok, out := sp.Settings(Problem{}, tt.lim)
		if len(ok) != tt.ok || len(out) != tt.excluded {
			t.Errorf("Settings(%+v): %d allowed, %d excluded; want %d, %d", tt.lim, len(ok), len(out), tt.ok, tt.excluded)
		}
		seen := map[string]bool{}
		for _, s := range ok {
			if seen[s.String()] {
				t.Errorf("Settings(%+v) gives %v twice", tt.lim, s)
			}
			seen[s.String()] = true
		}
		for _, e := range out {
			if e.Reason == "" {
				t.Errorf("excluded %v without a reason", e.Setting)
			}
		}
	}
}

func TestTuningSpaceString(t *testing.T) {
	if got, want := testSpace().String(), "blocks=32x4,32x8,64x8,16x16 rx=1,2,4 ry=1,2"; got != want {
		t.Errorf("String = %q, want %q", got, want)
	}
	if got := (&TuningSpace{}).String(); got != "blocks=default" {
		t.Errorf("empty space: %q", got)
	}
}

func TestTuningSpaceNeighbours(t *testing.T) {
	sp := testSpace()
	s := Setting{Block: Block{32, 8}, Tunables: map[string]int{"rx": 2, "ry": 1}}
	want := []string{
		"block=32x4 rx=2,ry=1", "block=64x8 rx=2,ry=1",
		"block=32x8 rx=1,ry=1", "block=32x8 rx=4,ry=1", "block=32x8 rx=2,ry=2",
	}
	got := sp.Neighbours(s)
	if len(got) != len(want) {
		t.Fatalf("Neighbours(%v) = %v, want %v", s, got, want)
	}
	for i := range want {
		if got[i].String() != want[i] {
			t.Errorf("neighbour %d = %v, want %s", i, got[i], want[i])
		}
	}
	if s.Tunables["rx"] != 2 {
		t.Errorf("Neighbours changed its argument: %v", s)
	}
}

func TestTuningSpaceCheck(t *testing.T) {
	caps := Capabilities{GPU: true, Tunables: []string{"rx", "ry"}}
	if err := testSpace().Check(caps); err != nil {
		t.Fatalf("Check of a good space: %v", err)
	}
	bad := map[string]func(sp *TuningSpace){
		"unknown tunable": func(sp *TuningSpace) { sp.Tunables[0].Name = "vec" },
		"no values":       func(sp *TuningSpace) { sp.Tunables[1].Values = nil },
		"value twice":     func(sp *TuningSpace) { sp.Tunables[1].Values = []int{2, 2} },
		"block too big":   func(sp *TuningSpace) { sp.Blocks[0] = Block{64, 32} },
		"block twice":     func(sp *TuningSpace) { sp.Blocks[1] = sp.Blocks[0] },
		"no default":      func(sp *TuningSpace) { sp.Default = nil },
	}
	for name, spoil := range bad {
		sp := testSpace()
		spoil(sp)
		if err := sp.Check(caps); err == nil {
			t.Errorf("%s: Check = nil, want an error", name)
		}
	}
}

func TestSizeClassOf(t *testing.T) {
	tests := []struct {
		w, h int
		want SizeClass
	}{
		{1, 1, SizeSmall}, {512, 512, SizeSmall}, {513, 512, SizeMedium},
		{2048, 2048, SizeMedium}, {4096, 4096, SizeLarge}, {4099, 4097, SizeHuge}, {8192, 8192, SizeHuge},
	}
	for _, tt := range tests {
		if got := SizeClassOf(tt.w, tt.h); got != tt.want {
			t.Errorf("SizeClassOf(%d, %d) = %s, want %s", tt.w, tt.h, got, tt.want)
		}
		if c, err := ParseSizeClass(string(tt.want)); err != nil || c != tt.want {
			t.Errorf("ParseSizeClass(%s) = %v, %v", tt.want, c, err)
		}
		if tt.want.Side() == 0 {
			t.Errorf("%s.Side() = 0", tt.want)
		}
	}
	if _, err := ParseSizeClass("tiny"); err == nil {
		t.Error("ParseSizeClass(tiny) = nil error")
	}
}

func TestSettingApply(t *testing.T) {
	cfg := Config{NoFMA: true, Tunables: map[string]int{"ry": 2}}
	got := Setting{Block: Block{64, 4}, Tunables: map[string]int{"rx": 4}}.Apply(cfg)
	if got.Block != (Block{64, 4}) || got.Tunables["rx"] != 4 || got.Tunables["ry"] != 2 || !got.NoFMA {
		t.Errorf("Apply = %+v", got)
	}
	if _, ok := cfg.Tunables["rx"]; ok {
		t.Error("Apply changed the caller's tunables")
	}
}
