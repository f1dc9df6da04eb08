package variants

import (
	"fmt"
	"maps"

	"github.com/convbench/convbench/convolve"
	"github.com/convbench/convbench/convolve/tiling"
	"github.com/convbench/convbench/cudabind"
	"github.com/convbench/convbench/cudabind/devfacts"
	"github.com/convbench/convbench/tables/tuning"
)

// Limits are the limits of the device info describes that the validity
// rules (Variant.Supports) and the tuning spaces' restrictions read.
func Limits(info cudabind.DeviceInfo) convolve.DeviceLimits {
	return convolve.DeviceLimits{Name: info.Name, Major: info.Major, Minor: info.Minor, SMs: info.SMs,
		SharedPerBlock: max(info.SharedPerBlock, info.SharedPerBlockOptin), SharedPerSM: info.SharedPerSM,
		MaxThreadsPerBlock: info.MaxThreadsPerBlock, MaxThreadsPerSM: info.MaxThreadsPerSM,
		RegistersPerBlock: info.RegistersPerBlock, ConstantBytes: info.ConstantBytes,
		MemoryBytes: info.TotalMemBytes, MaxGridDimX: info.MaxGridDimX,
		MaxTex1DLinearWidth: info.MaxTex1DLinearWidth, MaxTex2DLinearWidth: info.MaxTex2DLinearWidth,
		MaxTex2DLinearHeight: info.MaxTex2DLinearHeight}
}

// InfoOf is the device description that limits lim stand for: the
// fields of cudabind.DeviceInfo that Limits reads, with the default
// shared memory per block at CUDA's 48 KiB (or lim's limit when smaller).
// The validity rules run on it as on a device's own description.
func InfoOf(lim convolve.DeviceLimits) cudabind.DeviceInfo {
	return cudabind.DeviceInfo{Name: lim.Name, Major: lim.Major, Minor: lim.Minor, SMs: lim.SMs,
		SharedPerBlock: min(lim.SharedPerBlock, 48<<10), SharedPerBlockOptin: lim.SharedPerBlock, SharedPerSM: lim.SharedPerSM,
		MaxThreadsPerBlock: lim.MaxThreadsPerBlock, MaxThreadsPerSM: lim.MaxThreadsPerSM,
		RegistersPerBlock: lim.RegistersPerBlock, ConstantBytes: lim.ConstantBytes,
		TotalMemBytes: lim.MemoryBytes, MaxGridDimX: lim.MaxGridDimX,
		MaxTex1DLinearWidth: lim.MaxTex1DLinearWidth, MaxTex2DLinearWidth: lim.MaxTex2DLinearWidth,
		MaxTex2DLinearHeight: lim.MaxTex2DLinearHeight}
}

// KnownLimits are the limits of every device of devfacts.Known, the GPUs
// the project supports, for checks of the validity rules on a machine
// without them.
func KnownLimits() []convolve.DeviceLimits {
	lims := make([]convolve.DeviceLimits, len(devfacts.Known))
	for i, info := range devfacts.Known {
		lims[i] = Limits(info)
	}
	return lims
}

// tuneBlocks are the block shapes the tiled and register-tiled families
// are tuned over: a warp or more wide (coalesced rows), 128 to 512
// threads.
var tuneBlocks = []convolve.Block{
	{X: 32, Y: 4}, {X: 32, Y: 8}, {X: 32, Y: 16}, {X: 64, Y: 2}, {X: 64, Y: 4}, {X: 64, Y: 8},
	{X: 128, Y: 1}, {X: 128, Y: 2}, {X: 128, Y: 4}, {X: 16, Y: 8}, {X: 16, Y: 16},
}

// outputsPerThread are the values of rx and ry.
var outputsPerThread = []int{1, 2, 4, 8}

func filterSides(p convolve.Problem) (kw, kh int) {
	if p.Filter == nil {
		return 1, 1
	}
	return p.Filter.Width, p.Filter.Height
}

// tiledSpace is gpu-tiled's tuning space: the block and ry. A point is
// kept out when its tile does not fit the device's shared memory, or
// when tiled.cu would not unroll its row walk (about 4x slower; ry=1
// always stays).
var tiledSpace = &convolve.TuningSpace{
	Blocks:   tuneBlocks,
	Tunables: []convolve.Tunable{{Name: tunableRY, Values: outputsPerThread}},
	Allow: func(p convolve.Problem, s convolve.Setting, lim convolve.DeviceLimits) error {
		kw, kh := filterSides(p)
		ry := s.Tunables[tunableRY]
		if n := (Tile{Block: s.Block, KW: kw, KH: kh, RY: ry}).Bytes(); lim.SharedPerBlock > 0 && n > lim.SharedPerBlock {
			return fmt.Errorf("tile of %d bytes over the device's %d bytes of shared memory per block", n, lim.SharedPerBlock)
		}
		if ry > 1 && !tiling.Unrolled(kw, kh, ry) {
			return fmt.Errorf("ry=%d: the row walk of a %dx%d filter is not unrolled", ry, kw, kh)
		}
		return nil
	},
	Default: func(p convolve.Problem, block convolve.Block, lim convolve.DeviceLimits) convolve.Setting {
		if block == (convolve.Block{}) {
			block = tiledBlock
		}
		return convolve.Setting{Block: block, Tunables: map[string]int{tunableRY: tiling.DefaultRY(p, block, lim.SMs)}}
	},
}

// sepfusedSpace is gpu-sepfused's tuning space: the block, ry (rows of 4
// outputs per thread, up to 16: a tall tile spends less of its row pass
// on the KH-1 halo rows) and rxr (row-pass sums per thread, 4 or 8). A
// point is kept out when its tile does not fit the device's shared
// memory per block.
var sepfusedSpace = &convolve.TuningSpace{
	Blocks:   tuneBlocks,
	Tunables: []convolve.Tunable{{Name: tunableRY, Values: []int{1, 2, 4, 8, 16}}, {Name: tunableRXR, Values: []int{4, 8}}},
	Allow: func(p convolve.Problem, s convolve.Setting, lim convolve.DeviceLimits) error {
		kw, kh := filterSides(p)
		if s.Tunables[tunableRXR] == 8 && s.Block.X%2 != 0 {
			return fmt.Errorf("rxr=8 needs an even block width, not %d", s.Block.X)
		}
		if n := sepfusedSharedBytes(s.Block, s.Tunables[tunableRY], s.Tunables[tunableRXR], kw, kh); lim.SharedPerBlock > 0 && n > lim.SharedPerBlock {
			return fmt.Errorf("tile of %d bytes over the device's %d bytes of shared memory per block", n, lim.SharedPerBlock)
		}
		return nil
	},
	Default: func(p convolve.Problem, block convolve.Block, lim convolve.DeviceLimits) convolve.Setting {
		if block == (convolve.Block{}) {
			block = sepfusedBlock
		}
		kw, kh := filterSides(p)
		return convolve.Setting{Block: block, Tunables: map[string]int{tunableRY: sepfusedDefaultRY(block, kw, kh), tunableRXR: 4}}
	},
}

// regtileSpace is gpu-regtile's tuning space: the block, rx and ry. A
// point is kept out when its tile does not fit the device's shared
// memory, or when the row walk of one chunk (regtileChunk rows) would
// hold more than regtileUnrollLimit multiply-adds (rx=ry=1 always stays).
var regtileSpace = &convolve.TuningSpace{
	Blocks:   tuneBlocks,
	Tunables: []convolve.Tunable{{Name: tunableRX, Values: outputsPerThread}, {Name: tunableRY, Values: outputsPerThread}},
	Allow: func(p convolve.Problem, s convolve.Setting, lim convolve.DeviceLimits) error {
		kw, kh := filterSides(p)
		rx, ry := s.Tunables[tunableRX], s.Tunables[tunableRY]
		n := regtileSharedBytes(s.Block, rx, ry, kw, kh)
		if lim.SharedPerBlock > 0 && n > lim.SharedPerBlock {
			return fmt.Errorf("tile of %d bytes over the device's %d bytes of shared memory per block", n, lim.SharedPerBlock)
		}
		if ryc := regtileChunk(ry); rx*ryc > 1 && rx*ryc*kw*kh > regtileUnrollLimit {
			return fmt.Errorf("rx=%d ry=%d: %d multiply-adds per row walk of a chunk, over %d", rx, ry, rx*ryc*kw*kh, regtileUnrollLimit)
		}
		return nil
	},
	Default: func(p convolve.Problem, block convolve.Block, lim convolve.DeviceLimits) convolve.Setting {
		if block == (convolve.Block{}) {
			block = regtileBlock
		}
		rx, ry := regtileDefaults(filterSides(p))
		return convolve.Setting{Block: block, Tunables: map[string]int{tunableRX: rx, tunableRY: ry}}
	},
}

// Sources of a plan's setting (convolve.TunedPlan).
const (
	settingGiven   = "given"   // the configuration set the block and every tunable
	settingDefault = "default" // the family's heuristic, for the parts left unset
	settingTuned   = "tuned"   // a tuning table's entry, for the parts left unset
)

// applyTuning completes the block and tunables that b's configuration
// leaves unset, for a variant with a tuning space: from the entry of
// set's table for b's GPU with the nearest K and size class, where there
// is one that the space allows for this problem and device, else from
// the space's Default (the family computes it again in Setup); always
// from Default under Config.Untuned. It records
// the setting and where it came from (Setting, SettingSource).
func applyTuning(b *Base, sp *convolve.TuningSpace, set *tuning.Set) error {
	if sp == nil {
		return nil
	}
	lim := Limits(b.Info)
	unsetBlock := b.Config.Block == (convolve.Block{})
	var unset []string
	for _, t := range sp.Tunables {
		if _, ok := b.Config.Tunables[t.Name]; !ok {
			unset = append(unset, t.Name)
		}
	}
	eff := convolve.Setting{Block: b.Block, Tunables: maps.Clone(b.Config.Tunables)}
	if eff.Tunables == nil {
		eff.Tunables = map[string]int{}
	}
	if !unsetBlock && len(unset) == 0 {
		b.setting, b.settingSource = eff, settingGiven
		return nil
	}
	def := sp.Default(b.Problem, b.Block, lim)
	for _, n := range unset {
		eff.Tunables[n] = def.Tunables[n]
	}
	b.setting, b.settingSource = eff, settingDefault
	if set == nil || b.Config.Untuned {
		return nil
	}
	m, ok := tuning.Lookup(set, b.Info.Name, b.Name, b.Problem)
	if !ok {
		return nil
	}
	chosen, err := m.Entry.Chosen.Setting()
	if err != nil {
		return fmt.Errorf("variants: %s: tuning entry %s of %s: %w", b.Name, m.Entry.Key(), m.Source, err)
	}
	cand := convolve.Setting{Block: eff.Block, Tunables: maps.Clone(eff.Tunables)}
	if unsetBlock && chosen.Block != (convolve.Block{}) {
		cand.Block = chosen.Block
	}
	for _, n := range unset {
		if v, ok := chosen.Tunables[n]; ok {
			cand.Tunables[n] = v
		}
	}
	if sp.Allowed(b.Problem, cand, lim) != nil {
		return nil
	}
	in := b.Problem.Input
	if _, _, err := Grid(in.Width, in.Height, in.Channels, cand.Block); err != nil {
		return nil
	}
	b.Block = cand.Block
	b.Config.Block = cand.Block
	b.Config.Tunables = cand.Tunables
	b.setting = cand
	b.settingSource = fmt.Sprintf("%s (%s: %s)", settingTuned, m.Source, m.Entry.Key())
	return nil
}

// Setting is the block and tunables the plan runs with: those its
// configuration gave, completed from a tuning table or the family's
// defaults. Variants without a tuning space report their block alone.
func (b *Base) Setting() convolve.Setting {
	if b.settingSource == "" {
		return convolve.Setting{Block: b.Block, Tunables: maps.Clone(b.Config.Tunables)}
	}
	return convolve.Setting{Block: b.setting.Block, Tunables: maps.Clone(b.setting.Tunables)}
}

// SettingSource says where Setting came from: settingGiven,
// settingDefault, or settingTuned followed by the table and its entry in
// parentheses. Variants without a tuning space report settingGiven when
// the configuration set a block and settingDefault otherwise.
func (b *Base) SettingSource() string {
	if b.settingSource != "" {
		return b.settingSource
	}
	if b.Config.Block != (convolve.Block{}) {
		return settingGiven
	}
	return settingDefault
}

// SettledConfig is cfg with the block and tunables that v's plan of p
// on a device described by info would take from its tuning table or its
// defaults (applyTuning) written in, without using the device; cfg itself
// when v has no tuning space or p or cfg is refused.
func SettledConfig(v *Variant, p convolve.Problem, cfg convolve.Config, info cudabind.DeviceInfo) convolve.Config {
	sp := v.Desc.Caps.Space
	if sp == nil {
		return cfg
	}
	b, err := newBase(v.Desc, v.Block, p, cfg)
	if err != nil {
		return cfg
	}
	b.Info = info
	set, err := tuning.Tables.Default()
	if err != nil || applyTuning(b, sp, set) != nil {
		return cfg
	}
	return b.setting.Apply(cfg)
}
