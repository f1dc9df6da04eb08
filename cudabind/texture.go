package cudabind

import (
	"fmt"

	"github.com/convbench/convbench/cudabind/dl"
	"github.com/convbench/convbench/cudabind/driver"
)

// TexObject is a texture object handle (CUtexObject), passed to kernels as
// cudaTextureObject_t.
type TexObject uint64

// ArrayFormat is a texel channel format (CUarray_format).
type ArrayFormat uint32

const (
	FormatUint8   ArrayFormat = 0x01
	FormatUint16  ArrayFormat = 0x02
	FormatUint32  ArrayFormat = 0x03
	FormatInt8    ArrayFormat = 0x08
	FormatInt16   ArrayFormat = 0x09
	FormatInt32   ArrayFormat = 0x0a
	FormatHalf    ArrayFormat = 0x10
	FormatFloat32 ArrayFormat = 0x20
)

// Size returns the bytes of one channel.
func (f ArrayFormat) Size() int {
	switch f {
	case FormatUint8, FormatInt8:
		return 1
	case FormatUint16, FormatInt16, FormatHalf:
		return 2
	case FormatUint32, FormatInt32, FormatFloat32:
		return 4
	}
	return 0
}

func (f ArrayFormat) isInteger() bool { return f != FormatFloat32 && f != FormatHalf }

var formatNames = map[ArrayFormat]string{
	FormatUint8: "u8", FormatUint16: "u16", FormatUint32: "u32", FormatInt8: "i8",
	FormatInt16: "i16", FormatInt32: "i32", FormatHalf: "f16", FormatFloat32: "f32",
}

func (f ArrayFormat) String() string { return dl.Name(formatNames, f, "ArrayFormat(%#x)") }

// AddressMode says what a texture fetch outside [0, size) returns
// (CUaddress_mode).
type AddressMode uint32

const (
	// AddressWrap repeats the texture; hardware supports it only with
	// normalized coordinates.
	AddressWrap AddressMode = 0
	// AddressClamp returns the nearest edge texel.
	AddressClamp AddressMode = 1
	// AddressMirror reflects the texture at its edges (edge texels
	// repeated); hardware supports it only with normalized coordinates.
	AddressMirror AddressMode = 2
	// AddressBorder returns the border color (zero by default).
	AddressBorder AddressMode = 3
)

var addressModeNames = map[AddressMode]string{AddressWrap: "wrap", AddressClamp: "clamp", AddressMirror: "mirror", AddressBorder: "border"}

func (m AddressMode) String() string { return dl.Name(addressModeNames, m, "AddressMode(%d)") }

// FilterMode is point (nearest) or linear sampling (CUfilter_mode).
type FilterMode uint32

const (
	FilterPoint  FilterMode = 0
	FilterLinear FilterMode = 1
)

// Texture descriptor flags (CU_TRSF_*).
const (
	trsfReadAsInteger         = 0x01
	trsfNormalizedCoordinates = 0x02
)

// TextureDesc describes a 2-D texture over pitched linear device memory.
type TextureDesc struct {
	Ptr        DevPtr // aligned to DeviceInfo.TextureAlignment
	Width      int    // texels per row
	Height     int    // rows
	PitchBytes int    // row pitch, a multiple of DeviceInfo.TexturePitchAlignment (see AllocPitch)
	Format     ArrayFormat
	Channels   int // 1, 2 or 4
	Address    AddressMode
	Filter     FilterMode
	// NormalizedCoords addresses the texture with [0, 1) coordinates;
	// AddressWrap and AddressMirror require it.
	NormalizedCoords bool
	// ReadAsInteger returns integer texels unconverted; otherwise integer
	// formats read as floats normalized to [0, 1] or [-1, 1].
	ReadAsInteger bool
	BorderColor   [4]float32 // for AddressBorder
}

func (d TextureDesc) validate(info DeviceInfo) error {
	if d.Ptr == 0 {
		return fmt.Errorf("cudabind: texture over a null device pointer")
	}
	if d.Width <= 0 || d.Height <= 0 {
		return fmt.Errorf("cudabind: texture of %dx%d texels: sizes must be positive", d.Width, d.Height)
	}
	if err := checkTexFormat(d.Format, d.Channels, d.Filter, d.ReadAsInteger); err != nil {
		return err
	}
	if d.Address > AddressBorder {
		return fmt.Errorf("cudabind: unknown texture address mode %d", d.Address)
	}
	if (d.Address == AddressWrap || d.Address == AddressMirror) && !d.NormalizedCoords {
		return fmt.Errorf("cudabind: texture address mode %s needs NormalizedCoords: the hardware supports wrap and mirror only with normalized coordinates", d.Address)
	}
	rowBytes := d.Width * d.Format.Size() * d.Channels
	if d.PitchBytes < rowBytes {
		return fmt.Errorf("cudabind: texture pitch %d bytes is less than a row of %d bytes", d.PitchBytes, rowBytes)
	}
	if a := info.TexturePitchAlignment; a > 0 && d.PitchBytes%a != 0 {
		return fmt.Errorf("cudabind: texture pitch %d bytes is not a multiple of the device's pitch alignment %d (use AllocPitch)", d.PitchBytes, a)
	}
	if a := info.TextureAlignment; a > 0 && uint64(d.Ptr)%uint64(a) != 0 {
		return fmt.Errorf("cudabind: texture base address %#x is not aligned to %d bytes", uint64(d.Ptr), a)
	}
	if info.MaxTex2DLinearWidth > 0 && (d.Width > info.MaxTex2DLinearWidth || d.Height > info.MaxTex2DLinearHeight || d.PitchBytes > info.MaxTex2DLinearPitch) {
		return fmt.Errorf("cudabind: texture %dx%d with pitch %d exceeds the device limits %dx%d, pitch %d",
			d.Width, d.Height, d.PitchBytes, info.MaxTex2DLinearWidth, info.MaxTex2DLinearHeight, info.MaxTex2DLinearPitch)
	}
	return nil
}

func checkTexFormat(f ArrayFormat, channels int, filter FilterMode, readAsInt bool) error {
	if f.Size() == 0 {
		return fmt.Errorf("cudabind: unknown texture format %v", f)
	}
	if channels != 1 && channels != 2 && channels != 4 {
		return fmt.Errorf("cudabind: texture with %d channels (want 1, 2 or 4)", channels)
	}
	if filter != FilterPoint && filter != FilterLinear {
		return fmt.Errorf("cudabind: unknown texture filter mode %d", filter)
	}
	if filter == FilterLinear && readAsInt && f.isInteger() {
		return fmt.Errorf("cudabind: linear filtering of %v texels read as integers is not supported", f)
	}
	return nil
}

func (d TextureDesc) texDesc() driver.TextureDesc {
	t := driver.TextureDesc{AddressMode: [3]uint32{uint32(d.Address), uint32(d.Address), uint32(d.Address)},
		FilterMode: uint32(d.Filter), BorderColor: d.BorderColor}
	if d.NormalizedCoords {
		t.Flags |= trsfNormalizedCoordinates
	}
	if d.ReadAsInteger {
		t.Flags |= trsfReadAsInteger
	}
	return t
}

// NewTexture2D creates a texture object over pitched linear memory
// (CU_RESOURCE_TYPE_PITCH2D). Release it with DestroyTexture.
func (x *Exec) NewTexture2D(desc TextureDesc) (TexObject, error) {
	if err := x.ok("NewTexture2D"); err != nil {
		return 0, err
	}
	if err := desc.validate(x.d.info); err != nil {
		return 0, err
	}
	var rd driver.ResourceDesc
	rd.SetPitch2D(driver.Pitch2D{DevPtr: driver.DevPtr(desc.Ptr), Format: uint32(desc.Format),
		NumChannels: uint32(desc.Channels), Width: uintptr(desc.Width), Height: uintptr(desc.Height), PitchInBytes: uintptr(desc.PitchBytes)})
	return x.createTexture(&rd, desc.texDesc())
}

// LinearTextureDesc describes a 1-D texture over linear device memory
// (CU_RESOURCE_TYPE_LINEAR), read with tex1Dfetch. Out-of-range fetches
// return zero.
type LinearTextureDesc struct {
	Ptr      DevPtr
	Elements int // texels
	Format   ArrayFormat
	Channels int
	// ReadAsInteger as in TextureDesc.
	ReadAsInteger bool
}

// NewTexture1D creates a 1-D linear texture, e.g. over a float32 filter.
func (x *Exec) NewTexture1D(desc LinearTextureDesc) (TexObject, error) {
	if err := x.ok("NewTexture1D"); err != nil {
		return 0, err
	}
	if desc.Ptr == 0 {
		return 0, fmt.Errorf("cudabind: 1-D texture over a null device pointer")
	}
	if desc.Elements <= 0 {
		return 0, fmt.Errorf("cudabind: 1-D texture of %d texels: size must be positive", desc.Elements)
	}
	if err := checkTexFormat(desc.Format, desc.Channels, FilterPoint, desc.ReadAsInteger); err != nil {
		return 0, err
	}
	info := x.d.info
	if info.MaxTex1DLinearWidth > 0 && desc.Elements > info.MaxTex1DLinearWidth {
		return 0, fmt.Errorf("cudabind: 1-D texture of %d texels exceeds the device limit %d", desc.Elements, info.MaxTex1DLinearWidth)
	}
	if a := info.TextureAlignment; a > 0 && uint64(desc.Ptr)%uint64(a) != 0 {
		return 0, fmt.Errorf("cudabind: texture base address %#x is not aligned to %d bytes", uint64(desc.Ptr), a)
	}
	var rd driver.ResourceDesc
	rd.SetLinear(driver.Linear{DevPtr: driver.DevPtr(desc.Ptr), Format: uint32(desc.Format),
		NumChannels: uint32(desc.Channels), SizeInBytes: uintptr(desc.Elements * desc.Format.Size() * desc.Channels)})
	td := driver.TextureDesc{AddressMode: [3]uint32{uint32(AddressBorder), uint32(AddressBorder), uint32(AddressBorder)}}
	if desc.ReadAsInteger {
		td.Flags |= trsfReadAsInteger
	}
	return x.createTexture(&rd, td)
}

func (x *Exec) createTexture(rd *driver.ResourceDesc, td driver.TextureDesc) (TexObject, error) {
	t, r := x.lib().TexObjectCreate(rd, &td)
	if err := x.check("cuTexObjectCreate", r); err != nil {
		return 0, err
	}
	x.count(kindTexture, 1)
	return TexObject(t), nil
}

// DestroyTexture destroys a texture object.
func (x *Exec) DestroyTexture(t TexObject) error {
	return x.release("DestroyTexture", "cuTexObjectDestroy", kindTexture, false, "", func() driver.Result { return x.lib().TexObjectDestroy(driver.TexObject(t)) })
}
