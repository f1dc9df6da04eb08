package cudabind

import (
	"encoding/binary"
	"fmt"
	"math"
	"strings"
	"testing"
	"unsafe"
)

func TestTextureDescFlags(t *testing.T) {
	d := TextureDesc{Address: AddressMirror, Filter: FilterLinear, NormalizedCoords: true, BorderColor: [4]float32{1, 2, 3, 4}}
	td := d.texDesc()
	if td.AddressMode != [3]uint32{2, 2, 2} || td.FilterMode != 1 || td.Flags != trsfNormalizedCoordinates || td.BorderColor[3] != 4 {
		t.Errorf("texDesc = %+v", td)
	}
	d = TextureDesc{Address: AddressBorder, ReadAsInteger: true}
	if td := d.texDesc(); td.Flags != trsfReadAsInteger || td.AddressMode[0] != 3 {
		t.Errorf("texDesc = %+v", td)
	}
}

func TestTextureDescValidate(t *testing.T) {
	info := DeviceInfo{TexturePitchAlignment: 32, TextureAlignment: 512, MaxTex2DLinearWidth: 1 << 17,
		MaxTex2DLinearHeight: 1 << 17, MaxTex2DLinearPitch: 1 << 21}
	good := TextureDesc{Ptr: 0x7f0000000000, Width: 100, Height: 10, PitchBytes: 416, Format: FormatFloat32, Channels: 1, Address: AddressClamp}
	if err := good.validate(info); err != nil {
		t.Fatalf("valid desc rejected: %v", err)
	}
	cases := []struct {
		name string
		mod  func(*TextureDesc)
		msg  string
	}{
		{"null", func(d *TextureDesc) { d.Ptr = 0 }, "null"},
		{"zero width", func(d *TextureDesc) { d.Width = 0 }, "positive"},
		{"wrap unnormalized", func(d *TextureDesc) { d.Address = AddressWrap }, "NormalizedCoords"},
		{"mirror unnormalized", func(d *TextureDesc) { d.Address = AddressMirror }, "NormalizedCoords"},
		{"pitch too small", func(d *TextureDesc) { d.PitchBytes = 384 }, "less than a row"},
		{"pitch misaligned", func(d *TextureDesc) { d.PitchBytes = 420 }, "multiple"},
		{"base misaligned", func(d *TextureDesc) { d.Ptr += 4 }, "aligned"},
		{"3 channels", func(d *TextureDesc) { d.Channels = 3 }, "channels"},
		{"bad format", func(d *TextureDesc) { d.Format = 0x55 }, "format"},
		{"linear int", func(d *TextureDesc) { d.Format = FormatUint8; d.Filter = FilterLinear; d.ReadAsInteger = true }, "linear"},
		{"too wide", func(d *TextureDesc) { d.Width = 1<<17 + 1; d.PitchBytes = (1<<17 + 8) * 4 }, "limits"},
	}
	for _, c := range cases {
		d := good
		c.mod(&d)
		err := d.validate(info)
		if err == nil || !strings.Contains(err.Error(), c.msg) {
			t.Errorf("%s: validate = %v, want an error mentioning %q", c.name, err, c.msg)
		}
	}
	for _, m := range []AddressMode{AddressWrap, AddressMirror} {
		d := good
		d.Address, d.NormalizedCoords = m, true
		if err := d.validate(info); err != nil {
			t.Errorf("%v with normalized coordinates rejected: %v", m, err)
		}
	}
}

func TestPackArgs(t *testing.T) {
	p, err := PackArgs(int8(-1), DevPtr(0x1122334455667788), int32(-2), uint16(0xbeef), float64(1.5),
		float32(2.5), uint8(7), TexObject(9), int64(-3), uint32(4), uint64(5), int16(-6))
	if err != nil {
		t.Fatal(err)
	}
	wantOff := []int{0, 8, 16, 20, 24, 32, 36, 40, 48, 56, 64, 72}
	wantSize := []int{1, 8, 4, 2, 8, 4, 1, 8, 8, 4, 8, 2}
	for i := range wantOff {
		if p.offsets[i] != wantOff[i] || p.sizes[i] != wantSize[i] {
			t.Errorf("arg %d at offset %d size %d, want %d size %d", i, p.offsets[i], p.sizes[i], wantOff[i], wantSize[i])
		}
		if p.offsets[i]%p.sizes[i] != 0 {
			t.Errorf("arg %d misaligned", i)
		}
	}
	buf := unsafe.Slice((*byte)(unsafe.Pointer(&p.block[0])), len(p.block)*8)
	le := binary.LittleEndian
	if buf[0] != 0xff || le.Uint64(buf[8:]) != 0x1122334455667788 || int32(le.Uint32(buf[16:])) != -2 ||
		le.Uint16(buf[20:]) != 0xbeef || math.Float64frombits(le.Uint64(buf[24:])) != 1.5 ||
		math.Float32frombits(le.Uint32(buf[32:])) != 2.5 || buf[36] != 7 || le.Uint64(buf[40:]) != 9 ||
		int64(le.Uint64(buf[48:])) != -3 || le.Uint32(buf[56:]) != 4 || le.Uint64(buf[64:]) != 5 || int16(le.Uint16(buf[72:])) != -6 {
		t.Errorf("packed bytes wrong: % x", buf[:74])
	}
	if uintptr(unsafe.Pointer(&p.block[0]))%8 != 0 {
		t.Error("argument block is not 8-byte aligned")
	}
	if p, err := PackArgs(); err != nil || p.Len() != 0 {
		t.Errorf("PackArgs() = %v, %v", p, err)
	}
}

func TestPackArgsRejects(t *testing.T) {
	cases := []struct {
		args []any
		msg  string
	}{
		{[]any{DevPtr(1), 5}, "argument 1 is a Go int"},
		{[]any{uint(5)}, "argument 0 is a Go uint"},
		{[]any{int32(1), int32(2), "s"}, "argument 2 has unsupported type string"},
		{[]any{nil}, "argument 0 is nil"},
		{[]any{&struct{}{}}, "argument 0 has unsupported type"},
		{[]any{[]float32{1}}, "argument 0 has unsupported type []float32"},
		{[]any{uintptr(1)}, "argument 0 has unsupported type uintptr"},
	}
	for _, c := range cases {
		_, err := PackArgs(c.args...)
		if err == nil || !strings.Contains(err.Error(), c.msg) {
			t.Errorf("PackArgs(%v) = %v, want an error containing %q", c.args, err, c.msg)
		}
	}
}

func TestDim3(t *testing.T) {
	if n := (Dim3{X: 32}).Count(); n != 32 {
		t.Errorf("Dim3{32}.Count() = %d", n)
	}
	if n := (Dim3{X: 16, Y: 16, Z: 3}).Count(); n != 768 {
		t.Errorf("Count = %d", n)
	}
	if _, err := (Dim3{Y: 4}).norm("grid"); err == nil {
		t.Error("zero X accepted")
	}
}

func TestExecOutsideDo(t *testing.T) {
	var nilx *Exec
	if _, err := nilx.Alloc(16); err == nil {
		t.Error("Alloc on a nil Exec succeeded")
	}
	x := &Exec{d: &Device{}}
	calls := map[string]error{}
	_, calls["Alloc"] = x.Alloc(16)
	calls["Free"] = x.Free(1)
	calls["CopyHtoD"] = x.CopyHtoD(1, unsafe.Pointer(new(int64)), 8)
	calls["Launch"] = x.Launch(&Function{h: 1}, Dim3{X: 1}, Dim3{X: 1}, 0, 0)
	_, calls["NewEvent"] = x.NewEvent()
	_, calls["NewStream"] = x.NewStream()
	calls["DestroyEvent"] = x.DestroyEvent(1)
	calls["DestroyTexture"] = x.DestroyTexture(1)
	_, calls["NewTexture2D"] = x.NewTexture2D(TextureDesc{})
	_, calls["HostAlloc"] = x.HostAlloc(8)
	calls["Sync"] = x.Sync()
	for name, err := range calls {
		if err == nil || !strings.Contains(err.Error(), "outside Device.Do") {
			t.Errorf("%s outside Do: %v", name, err)
		}
	}
	// With the Exec active, argument checks run before any driver call.
	x.active.Store(true)
	defer x.active.Store(false)
	checks := map[string]error{}
	_, checks["Alloc(0)"] = x.Alloc(0)
	_, checks["Alloc(-1)"] = x.Alloc(-1)
	checks["Free(0)"] = x.Free(0)
	checks["CopyHtoD(nil)"] = x.CopyHtoD(1, nil, 8)
	checks["CopyDtoH(0)"] = x.CopyDtoH(unsafe.Pointer(new(int64)), 0, 8)
	checks["CopyDtoD(-8)"] = x.CopyDtoD(1, 2, -8)
	checks["MemsetD32(0 count)"] = x.MemsetD32(1, 0, 0)
	checks["CopyHtoD2D(pitch)"] = x.CopyHtoD2D(1, 4, unsafe.Pointer(new(int64)), 8, 8, 1)
	checks["Launch(nil)"] = x.Launch(nil, Dim3{X: 1}, Dim3{X: 1}, 0, 0)
	checks["Launch(int)"] = x.Launch(&Function{h: 1}, Dim3{X: 1}, Dim3{X: 1}, 0, 0, 3)
	checks["Launch(grid 0)"] = x.Launch(&Function{h: 1}, Dim3{}, Dim3{X: 1}, 0, 0)
	checks["Launch(shared<0)"] = x.Launch(&Function{h: 1}, Dim3{X: 1}, Dim3{X: 1}, -1, 0)
	checks["FreeHost(nil)"] = x.FreeHost(nil)
	checks["DestroyStream(0)"] = x.DestroyStream(0)
	checks["Record(0)"] = x.Record(0, 0)
	_, checks["Elapsed(0)"] = x.Elapsed(0, 0)
	_, checks["HostAlloc(0)"] = x.HostAlloc(0)
	_, checks["NewTexture1D(null)"] = x.NewTexture1D(LinearTextureDesc{Elements: 4, Format: FormatFloat32, Channels: 1})
	_, _, checks["AllocPitch(0)"] = x.AllocPitch(0, 4)
	for name, err := range checks {
		if err == nil {
			t.Errorf("%s: no error", name)
		}
	}
	// A null handle is refused by name, before the driver is asked.
	for _, c := range []struct {
		err  error
		want string
	}{
		{x.Free(0), "cudabind: Free of a null device pointer"},
		{x.DestroyStream(0), "cudabind: DestroyStream of the default stream"},
		{x.DestroyEvent(0), "cudabind: DestroyEvent of a null event"},
		{x.DestroyGraph(0), "cudabind: DestroyGraph of a null graph"},
	} {
		if c.err == nil || c.err.Error() != c.want {
			t.Errorf("error %v, want %q", c.err, c.want)
		}
	}
}

func TestNilDeviceAndModule(t *testing.T) {
	var d *Device
	if err := d.Do(func(*Exec) error { return nil }); err == nil {
		t.Error("Do on nil Device succeeded")
	}
	if _, err := d.Compile(Source{}, CompileOptions{}); err == nil {
		t.Error("Compile on nil Device succeeded")
	}
	if err := d.Close(); err != nil {
		t.Errorf("Close on nil Device: %v", err)
	}
	var m *Module
	if _, err := m.Function("k"); err == nil {
		t.Error("Function on nil Module succeeded")
	}
	var f *Function
	if err := f.SetMaxDynamicShared(1024); err == nil {
		t.Error("SetMaxDynamicShared on nil Function succeeded")
	}
	if _, err := f.Attributes(); err == nil {
		t.Error("Attributes on nil Function succeeded")
	}
}

func TestDeviceInfoNames(t *testing.T) {
	if a := (DeviceInfo{Major: 9}).Arch(); a != "sm_90" {
		t.Errorf("Arch() = %q", a)
	}
	if v := (DeviceInfo{DriverVersion: 13020}).Driver(); v != "13.2" {
		t.Errorf("Driver() = %q", v)
	}
}

func TestTextureEnumNames(t *testing.T) {
	for _, c := range []struct {
		v    fmt.Stringer
		want string
	}{
		{FormatUint16, "u16"}, {FormatHalf, "f16"}, {FormatFloat32, "f32"}, {ArrayFormat(0x30), "ArrayFormat(0x30)"},
		{AddressClamp, "clamp"}, {AddressBorder, "border"}, {AddressMode(9), "AddressMode(9)"},
	} {
		if got := c.v.String(); got != c.want {
			t.Errorf("%T %q, want %q", c.v, got, c.want)
		}
	}
}

// SizeOf returns the size in bytes of s's elements: len(s) * sizeof(T).
func SizeOf[T any](s []T) int64 {
	var zero T
	return int64(len(s)) * int64(unsafe.Sizeof(zero))
}
