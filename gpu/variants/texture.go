package variants

import (
	"fmt"
	"unsafe"

	"github.com/convbench/convbench/convolve"
	"github.com/convbench/convbench/cudabind"
)

func init() {
	convolve.Register(Declare(textureDecl("gpu-texture",
		"image read through a texture object (hardware border where one matches), filter in constant memory",
		Kernel{Name: "conv_texture", Grid: PerPixel, Args: textureArgs})))
	convolve.Register(Declare(textureDecl("gpu-texture-filter", "image and filter both read through texture objects",
		Kernel{Name: "conv_texture_filter", Grid: PerPixel,
			Args: []Arg{prepared(0), prepared(1), prepared(2), prepared(3), prepared(texFilterArg), ArgOut, ArgWidth, ArgHeight}})))
	convolve.Register(Declare(textureDecl("gpu-texture-shared", "tile plus halo fetched through a texture into shared memory, constant filter",
		Kernel{Name: "conv_texture_shared", Grid: PerPixel, Shared: Tile.Bytes, Args: textureArgs})))
}

// textureArgs are the arguments of the texture kernels that read the
// filter from constant memory: the four plane textures (texturePrepare's
// values), the output and the image size.
var textureArgs = []Arg{prepared(0), prepared(1), prepared(2), prepared(3), ArgOut, ArgWidth, ArgHeight}

// texFilterArg is the index of the filter texture among texturePrepare's
// values.
const texFilterArg = 4

// textureDecl declares a variant of texture.cu launching k. The kernel
// that reads its weights through a texture (conv_texture_filter) gets the
// filter texture; the others the constant-memory filter.
func textureDecl(name, summary string, k Kernel) Decl {
	withFilterTex := k.Name == "conv_texture_filter"
	d := Decl{
		Desc:    convolve.Description{Name: name, Report: "002", Summary: summary, Caps: directCaps()},
		Family:  "texture",
		Defines: func(b *Base) (map[string]string, error) { return map[string]string{"TEX_HW": texHW(b.Problem)}, nil },
		Check:   func(b *Base) error { return checkTexture(b, withFilterTex) },
		Prepare: func(b *Base) ([]any, error) { return texturePrepare(b, withFilterTex) },
		Kernels: []Kernel{k},
	}
	if !withFilterTex {
		d.Constants = constFilter
	}
	return d
}

// texHW is the TEX_HW macro of texture.cu for p: "1" when the texture
// address mode applies the border (zero: border mode, replicate: clamp)
// and each texture holds one channel, else "0" (explicit index mapping).
func texHW(p convolve.Problem) string {
	if hwAddress(p) {
		return "1"
	}
	return "0"
}

func hwAddress(p convolve.Problem) bool {
	oneChannel := p.Input.Channels == 1 || p.Input.Layout == convolve.Planar
	return oneChannel && (p.Border == convolve.Zero || p.Border == convolve.Replicate)
}

func texFormat(t convolve.ElemType) cudabind.ArrayFormat {
	switch t {
	case convolve.Uint8:
		return cudabind.FormatUint8
	case convolve.Int16:
		return cudabind.FormatInt16
	}
	return cudabind.FormatFloat32
}

// texLayout is how the input lies in texture memory: planes textures of
// width x height texels, each in its own pitched allocation.
type texLayout struct {
	planes        int
	width, height int
}

func texLayoutOf(g convolve.Geometry) texLayout {
	if g.Channels > 1 && g.Layout == convolve.Interleaved {
		return texLayout{planes: 1, width: g.Width * g.Channels, height: g.Height}
	}
	return texLayout{planes: g.Channels, width: g.Width, height: g.Height}
}

// checkTexture refuses an image past the device's pitched 2-D texture
// limits and, with withFilterTex, a filter past its 1-D texture limit.
func checkTexture(b *Base, withFilterTex bool) error {
	in := b.Problem.Input
	lay := texLayoutOf(in)
	info := b.Info
	if info.MaxTex2DLinearWidth > 0 && (lay.width > info.MaxTex2DLinearWidth || lay.height > info.MaxTex2DLinearHeight) {
		return &convolve.CapabilityError{Variant: b.Name, What: "image size",
			Value: fmt.Sprintf("%v: a %dx%d-texel texture exceeds the device's pitched 2-D texture limit %dx%d",
				in, lay.width, lay.height, info.MaxTex2DLinearWidth, info.MaxTex2DLinearHeight)}
	}
	if withFilterTex && info.MaxTex1DLinearWidth > 0 && b.Filter.Taps() > info.MaxTex1DLinearWidth {
		return &convolve.CapabilityError{Variant: b.Name, What: "filter size",
			Value: fmt.Sprintf("%v: %d taps exceed the device's 1-D texture limit %d", b.Filter, b.Filter.Taps(), info.MaxTex1DLinearWidth)}
	}
	return nil
}

// texturePrepare puts the input in one pitched allocation and texture per
// plane, copied straight from the host rows by CopyIn, and frees In. Its
// values are the four plane textures (planes past the image's repeat the
// first) and, with withFilterTex, a 1-D texture over the filter's weights
// in global memory.
func texturePrepare(b *Base, withFilterTex bool) ([]any, error) {
	lay := texLayoutOf(b.Problem.Input)
	texs, ptrs, pitch, err := texturePlanes(b, lay)
	if err != nil {
		return nil, err
	}
	b.CopyIn = textureCopyIn(b.Problem.Input, lay, ptrs, pitch)
	if err := b.ReleaseInput(); err != nil {
		return nil, err
	}
	values := []any{texs[0], texs[1], texs[2], texs[3]}
	if !withFilterTex {
		return values, nil
	}
	ftex, err := filterTexture(b)
	if err != nil {
		return nil, err
	}
	return append(values, ftex), nil
}

// texturePlanes allocates lay's planes, pitched, with a point-sampled
// texture over each (border addressing where the hardware applies a Zero
// border, clamping otherwise) that Close destroys. Of the four textures
// it returns, those past lay's planes repeat the first; pitch is the
// planes' row pitch in bytes.
func texturePlanes(b *Base, lay texLayout) (texs [4]cudabind.TexObject, ptrs []cudabind.DevPtr, pitch int64, err error) {
	p := b.Problem
	in := p.Input
	size := in.Type.Size()
	ptrs = make([]cudabind.DevPtr, lay.planes)
	address := cudabind.AddressClamp
	if hwAddress(p) && p.Border == convolve.Zero {
		address = cudabind.AddressBorder
	}
	err = b.Dev.Do(func(x *cudabind.Exec) error {
		for i := range ptrs {
			if err := b.CheckDeviceMemory(x, fmt.Sprintf("texture plane %d", i), int64(lay.width*size)*int64(lay.height)); err != nil {
				return err
			}
			ptr, pp, err := x.AllocPitch(int64(lay.width*size), int64(lay.height))
			if err != nil {
				return fmt.Errorf("variants: %s: texture plane %d: %w", b.Name, i, err)
			}
			b.allocs = append(b.allocs, ptr)
			ptrs[i], pitch = ptr, pp
			t, err := x.NewTexture2D(cudabind.TextureDesc{
				Ptr: ptr, Width: lay.width, Height: lay.height, PitchBytes: int(pp),
				Format: texFormat(in.Type), Channels: 1, Address: address, Filter: cudabind.FilterPoint,
				ReadAsInteger: in.Type != convolve.Float32,
			})
			if err != nil {
				return fmt.Errorf("variants: %s: texture plane %d: %w", b.Name, i, err)
			}
			texs[i] = t
			b.OnClose(func(x *cudabind.Exec) error { return x.DestroyTexture(t) })
		}
		return nil
	})
	if err != nil {
		return texs, nil, 0, err
	}
	for i := lay.planes; i < len(texs); i++ {
		texs[i] = texs[0]
	}
	return texs, ptrs, pitch, nil
}

// textureCopyIn is the CopyIn of a texture plan: the input goes straight
// from the host rows of in into the pitched planes ptrs.
func textureCopyIn(in convolve.Geometry, lay texLayout, ptrs []cudabind.DevPtr, pitch int64) func(x *cudabind.Exec, im *convolve.Image) error {
	size := in.Type.Size()
	rowBytes := int64(lay.width * size)
	hostPitch := int64(in.RowStride() * size)
	planeElems := in.RowStride() * in.Height
	return func(x *cudabind.Exec, im *convolve.Image) error {
		for i, ptr := range ptrs {
			src := HostData(im)
			if i > 0 {
				src = unsafe.Add(src, i*planeElems*size)
			}
			if err := x.CopyHtoD2D(ptr, pitch, src, hostPitch, rowBytes, int64(lay.height)); err != nil {
				return err
			}
		}
		return nil
	}
}

// filterTexture uploads the filter's weights and returns a 1-D texture
// over them that Close destroys.
func filterTexture(b *Base) (cudabind.TexObject, error) {
	fptr, err := b.UploadFloats(b.Filter.Weights)
	if err != nil {
		return 0, err
	}
	var ftex cudabind.TexObject
	err = b.Dev.Do(func(x *cudabind.Exec) error {
		var err error
		ftex, err = x.NewTexture1D(cudabind.LinearTextureDesc{Ptr: fptr, Elements: b.Filter.Taps(),
			Format: cudabind.FormatFloat32, Channels: 1})
		if err != nil {
			return fmt.Errorf("variants: %s: filter texture: %w", b.Name, err)
		}
		b.OnClose(func(x *cudabind.Exec) error { return x.DestroyTexture(ftex) })
		return nil
	})
	if err != nil {
		return 0, err
	}
	return ftex, nil
}
