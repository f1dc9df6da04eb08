package variants

import (
	"errors"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/convbench/convbench/convolve"
	"github.com/convbench/convbench/cudabind"
	"github.com/convbench/convbench/internal/imagetest"
)

func TestSepfusedSharedBytes(t *testing.T) {
	tests := []struct {
		b               convolve.Block
		ry, rxr, kw, kh int
		want            int
	}{
		// Shift -(21/2) mod 4 = 2: 2+128+20 = 150, padded to 152; 64+20 = 84 rows.
		{convolve.Block{X: 32, Y: 8}, 8, 4, 21, 21, 152 * 84 * 4},
		// rxr=8: 150 padded to 164, 4 more than 5*32.
		{convolve.Block{X: 32, Y: 8}, 8, 8, 21, 21, 164 * 84 * 4},
		// Shift 3: 3+128+2 = 133, padded to 136; 32+2 = 34 rows.
		{convolve.Block{X: 32, Y: 8}, 4, 4, 3, 3, 136 * 34 * 4},
		// rxr=8: 1+64+30 = 95, padded to 100; 64+30 = 94 rows.
		{convolve.Block{X: 16, Y: 16}, 4, 8, 31, 31, 100 * 94 * 4},
		// rxr=8: 3+64+2 = 69, padded to 100 (68 is 4 more than 2*32, too short).
		{convolve.Block{X: 16, Y: 16}, 4, 8, 3, 3, 100 * 66 * 4},
		// Shift 1: 1+28+6 = 35, padded to 36; 5+0 = 5 rows.
		{convolve.Block{X: 7, Y: 5}, 1, 4, 7, 1, 36 * 5 * 4},
	}
	for _, tt := range tests {
		if got := sepfusedSharedBytes(tt.b, tt.ry, tt.rxr, tt.kw, tt.kh); got != tt.want {
			t.Errorf("sepfusedSharedBytes(%v, ry=%d, rxr=%d, %dx%d) = %d, want %d", tt.b, tt.ry, tt.rxr, tt.kw, tt.kh, got, tt.want)
		}
	}
}

func TestSepfusedDefaultRY(t *testing.T) {
	b := convolve.Block{X: 32, Y: 8}
	tests := []struct {
		b          convolve.Block
		kw, kh, ry int
	}{
		{b, 3, 3, 4},
		{b, 7, 7, 4},
		{b, 9, 9, 8},
		{b, 21, 21, 8},
		{b, 31, 31, 8}, // 164*94*4 = 61664 bytes
		{b, 63, 63, 2}, // ry=8: 192*126*4 = 96768 bytes, ry=4: 72192, both over 64 KB
		{convolve.Block{X: 32, Y: 32}, 5, 5, 2},
	}
	for _, tt := range tests {
		ry := sepfusedDefaultRY(tt.b, tt.kw, tt.kh)
		if ry != tt.ry {
			t.Errorf("sepfusedDefaultRY(%v, %d, %d) = %d, want %d", tt.b, tt.kw, tt.kh, ry, tt.ry)
		}
		if n := sepfusedSharedBytes(tt.b, ry, 4, tt.kw, tt.kh); n > sepfusedMaxTile {
			t.Errorf("%v %dx%d: ry=%d needs %d bytes, over %d", tt.b, tt.kw, tt.kh, ry, n, sepfusedMaxTile)
		}
	}
}

// TestSepfusedDeclared checks gpu-sepfused's declaration without a
// device: its capabilities, the grid of 4 x ry outputs per thread, the
// shared memory of its tile, and its refusals of a filter that is not
// rank one, a filter past its side limit and a bad tunable.
func TestSepfusedDeclared(t *testing.T) {
	v, err := convolve.Lookup("gpu-sepfused")
	if err != nil {
		t.Fatal(err)
	}
	caps := v.Describe().Caps
	if !caps.GPU || !caps.SeparableOnly || !caps.FiniteInput || caps.ReferenceOrder || caps.MaxFilterSide != sepfusedMaxSide {
		t.Errorf("caps: GPU %v SeparableOnly %v FiniteInput %v ReferenceOrder %v MaxFilterSide %d; want true, true, true, false, %d",
			caps.GPU, caps.SeparableOnly, caps.FiniteInput, caps.ReferenceOrder, caps.MaxFilterSide, sepfusedMaxSide)
	}
	d := v.(*Variant).decl
	if d == nil {
		t.Fatal("gpu-sepfused is not a declaration")
	}
	r := rand.New(rand.NewPCG(15, 3))
	tests := []struct {
		w, h, k int
		cfg     convolve.Config
		grid    cudabind.Dim3
		shared  int
	}{
		{4096, 4096, 21, convolve.Config{}, cudabind.Dim3{X: 32, Y: 64, Z: 1}, sepfusedSharedBytes(sepfusedBlock, 8, 4, 21, 21)},
		{4099, 4097, 3, convolve.Config{}, cudabind.Dim3{X: 33, Y: 129, Z: 1}, sepfusedSharedBytes(sepfusedBlock, 4, 4, 3, 3)},
		// Three planar channels: blockIdx.z is the channel.
		{100, 50, 5, convolve.Config{Block: convolve.Block{X: 16, Y: 4}, Tunables: map[string]int{tunableRY: 16}},
			cudabind.Dim3{X: 2, Y: 1, Z: 3}, sepfusedSharedBytes(convolve.Block{X: 16, Y: 4}, 16, 4, 5, 5)},
		// Three interleaved channels (CH_IN_X): the channels fold into
		// gridDim.x.
		{100, 50, 5, convolve.Config{Block: convolve.Block{X: 16, Y: 4}, Tunables: map[string]int{tunableRY: 16}},
			cudabind.Dim3{X: 6, Y: 1, Z: 1}, sepfusedSharedBytes(convolve.Block{X: 16, Y: 4}, 16, 4, 5, 5)},
		// rxr=8: the pitch of 4 more than a multiple of 32 floats.
		{4096, 4096, 31, convolve.Config{Block: convolve.Block{X: 16, Y: 16}, Tunables: map[string]int{tunableRY: 4, tunableRXR: 8}},
			cudabind.Dim3{X: 64, Y: 64, Z: 1}, sepfusedSharedBytes(convolve.Block{X: 16, Y: 16}, 4, 8, 31, 31)},
	}
	for i, tt := range tests {
		ch, layout := 1, convolve.Interleaved
		switch i {
		case 2:
			ch, layout = 3, convolve.Planar
		case 3:
			ch = 3
		}
		p := convolve.Problem{Op: convolve.Filter2D, Filter: imagetest.SeparableFilter(r, tt.k, tt.k),
			Input: convolve.Geometry{Width: tt.w, Height: tt.h, Channels: ch, Type: convolve.Uint8, Layout: layout}}
		if err := d.Validate(p, tt.cfg, h100); err != nil {
			t.Errorf("%dx%d K=%d %v: Validate: %v", tt.w, tt.h, tt.k, tt.cfg, err)
			continue
		}
		b, err := newBase(d.Desc, d.Block, p, tt.cfg)
		if err != nil {
			t.Fatal(err)
		}
		b.Info = h100
		res, err := d.resolve(b)
		if err != nil {
			t.Fatal(err)
		}
		if l := res.kernels[0]; l.grid != tt.grid || l.shared != tt.shared {
			t.Errorf("%dx%d K=%d %v: grid %v shared %d, want %v and %d", tt.w, tt.h, tt.k, tt.cfg, l.grid, l.shared, tt.grid, tt.shared)
		}
	}

	g := convolve.Geometry{Width: 64, Height: 64, Channels: 1, Type: convolve.Float32}
	refusals := []struct {
		name string
		f    *convolve.Filter
		cfg  convolve.Config
		want string
	}{
		{"dense 5x5", imagetest.RandomFilter(r, 5, 5), convolve.Config{}, "non-separable"},
		{"65x1", imagetest.SeparableFilter(r, 65, 1), convolve.Config{}, "65"},
		{"ry=3", imagetest.SeparableFilter(r, 5, 5), convolve.Config{Tunables: map[string]int{tunableRY: 3}}, "ry=3"},
		{"rxr=6", imagetest.SeparableFilter(r, 5, 5), convolve.Config{Tunables: map[string]int{tunableRXR: 6}}, "rxr=6"},
		{"rxr=8 odd block", imagetest.SeparableFilter(r, 5, 5), convolve.Config{Block: convolve.Block{X: 7, Y: 4}, Tunables: map[string]int{tunableRXR: 8}}, "7x4 with tunable rxr=8 (it needs an even block width)"},
	}
	for _, tt := range refusals {
		err := d.Validate(convolve.Problem{Op: convolve.Filter2D, Filter: tt.f, Input: g}, tt.cfg, h100)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: Validate = %v, want an error about %q", tt.name, err, tt.want)
		}
		var ce *convolve.CapabilityError
		if !strings.HasPrefix(tt.name, "r") && !errors.As(err, &ce) {
			t.Errorf("%s: Validate = %v, want a *convolve.CapabilityError", tt.name, err)
		}
	}
}

// sepfusedAgreement (run by TestAgreementSuites) runs gpu-sepfused over rank-1 filters 1..63 with
// its default and other rows per thread, and over every border, type,
// channel count and layout and odd block shapes, on regtileSizes (which
// reach its vector fill, with and without border mapping, and its scalar
// fills), on NaN-poisoned outputs, against refimpl.Expect.
func sepfusedAgreement(t *testing.T) {
	v, err := convolve.Lookup("gpu-sepfused")
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(15, 16))
	var runs []agreeRun
	tunes := []map[string]int{nil, {tunableRY: 1}, {tunableRY: 2}, {tunableRY: 16}, {tunableRXR: 8}, {tunableRY: 2, tunableRXR: 8}}
	for ti, tu := range tunes {
		for i, k := range []int{1, 3, 5, 7, 9, 11, 15, 21, 31} {
			b := convolve.Borders[(i+ti)%len(convolve.Borders)]
			runs = append(runs, agreeRun{convolve.Config{Tunables: tu},
				kernelCase{kw: k, kh: k, border: b, mode: convolve.Modes[i%2], typ: convolve.ElemTypes[(i+ti)%len(convolve.ElemTypes)], channels: 1}})
		}
	}
	for bi, bo := range convolve.Borders {
		for ti, typ := range convolve.ElemTypes {
			runs = append(runs, agreeRun{convolve.Config{},
				kernelCase{kw: 5, kh: 3, border: bo, typ: typ, channels: 1 + (bi+ti)%4, layout: convolve.Layouts[(bi+ti)%2]}})
		}
	}
	runs = append(runs,
		agreeRun{convolve.Config{}, kernelCase{kw: 63, kh: 1, border: convolve.Wrap, typ: convolve.Float32, channels: 1}},
		agreeRun{convolve.Config{}, kernelCase{kw: 1, kh: 63, border: convolve.Reflect, typ: convolve.Uint8, channels: 1}},
		agreeRun{convolve.Config{}, kernelCase{kw: 63, kh: 63, border: convolve.Mirror, typ: convolve.Float32, channels: 1}},
		agreeRun{convolve.Config{}, kernelCase{kw: 7, kh: 7, border: convolve.Zero, typ: convolve.Float32, channels: 3, layout: convolve.Planar, block: convolve.Block{X: 7, Y: 5}}},
		agreeRun{convolve.Config{}, kernelCase{kw: 3, kh: 3, border: convolve.Mirror, typ: convolve.Int16, channels: 1, block: convolve.Block{X: 1, Y: 64}}},
		agreeRun{convolve.Config{}, kernelCase{kw: 9, kh: 5, border: convolve.Replicate, typ: convolve.Float32, channels: 2, block: convolve.Block{X: 64, Y: 4}}},
		agreeRun{convolve.Config{Tunables: map[string]int{tunableRXR: 8}}, kernelCase{kw: 7, kh: 7, border: convolve.Zero, typ: convolve.Float32, channels: 3, layout: convolve.Planar, block: convolve.Block{X: 2, Y: 5}}},
		agreeRun{convolve.Config{Tunables: map[string]int{tunableRXR: 8, tunableRY: 4}}, kernelCase{kw: 31, kh: 31, border: convolve.Mirror, typ: convolve.Uint8, channels: 2, block: convolve.Block{X: 16, Y: 16}}},
		agreeRun{convolve.Config{Tunables: map[string]int{tunableRXR: 8}}, kernelCase{kw: 63, kh: 63, border: convolve.Wrap, typ: convolve.Float32, channels: 1, block: convolve.Block{X: 128, Y: 2}}},
	)
	agreeOverSizes(t, v, "gpu-sepfused", runs, r, imagetest.SeparableFilter)
}
