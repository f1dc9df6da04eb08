package driver

import (
	"testing"
	"unsafe"
)

// The C layouts on 64-bit Linux, from cuda.h.
func TestStructLayouts(t *testing.T) {
	checks := []struct {
		name      string
		got, want uintptr
	}{
		{"sizeof(CUDA_MEMCPY2D)", unsafe.Sizeof(Memcpy2D{}), 128},
		{"offsetof(CUDA_MEMCPY2D, srcMemoryType)", unsafe.Offsetof(Memcpy2D{}.SrcMemoryType), 16},
		{"offsetof(CUDA_MEMCPY2D, srcHost)", unsafe.Offsetof(Memcpy2D{}.SrcHost), 24},
		{"offsetof(CUDA_MEMCPY2D, srcDevice)", unsafe.Offsetof(Memcpy2D{}.SrcDevice), 32},
		{"offsetof(CUDA_MEMCPY2D, srcPitch)", unsafe.Offsetof(Memcpy2D{}.SrcPitch), 48},
		{"offsetof(CUDA_MEMCPY2D, dstXInBytes)", unsafe.Offsetof(Memcpy2D{}.DstXInBytes), 56},
		{"offsetof(CUDA_MEMCPY2D, dstMemoryType)", unsafe.Offsetof(Memcpy2D{}.DstMemoryType), 72},
		{"offsetof(CUDA_MEMCPY2D, dstHost)", unsafe.Offsetof(Memcpy2D{}.DstHost), 80},
		{"offsetof(CUDA_MEMCPY2D, dstDevice)", unsafe.Offsetof(Memcpy2D{}.DstDevice), 88},
		{"offsetof(CUDA_MEMCPY2D, dstPitch)", unsafe.Offsetof(Memcpy2D{}.DstPitch), 104},
		{"offsetof(CUDA_MEMCPY2D, WidthInBytes)", unsafe.Offsetof(Memcpy2D{}.WidthInBytes), 112},
		{"offsetof(CUDA_MEMCPY2D, Height)", unsafe.Offsetof(Memcpy2D{}.Height), 120},
		{"sizeof(CUDA_RESOURCE_DESC)", unsafe.Sizeof(ResourceDesc{}), 144},
		{"offsetof(CUDA_RESOURCE_DESC, res)", unsafe.Offsetof(ResourceDesc{}.Res), 8},
		{"sizeof(CUDA_RESOURCE_DESC.res)", unsafe.Sizeof(ResourceDesc{}.Res), 128},
		{"offsetof(CUDA_RESOURCE_DESC, flags)", unsafe.Offsetof(ResourceDesc{}.Flags), 136},
		{"sizeof(res.pitch2D)", unsafe.Sizeof(Pitch2D{}), 40},
		{"offsetof(res.pitch2D, format)", unsafe.Offsetof(Pitch2D{}.Format), 8},
		{"offsetof(res.pitch2D, numChannels)", unsafe.Offsetof(Pitch2D{}.NumChannels), 12},
		{"offsetof(res.pitch2D, width)", unsafe.Offsetof(Pitch2D{}.Width), 16},
		{"offsetof(res.pitch2D, height)", unsafe.Offsetof(Pitch2D{}.Height), 24},
		{"offsetof(res.pitch2D, pitchInBytes)", unsafe.Offsetof(Pitch2D{}.PitchInBytes), 32},
		{"sizeof(res.linear)", unsafe.Sizeof(Linear{}), 24},
		{"offsetof(res.linear, sizeInBytes)", unsafe.Offsetof(Linear{}.SizeInBytes), 16},
		{"sizeof(CUDA_TEXTURE_DESC)", unsafe.Sizeof(TextureDesc{}), 104},
		{"offsetof(CUDA_TEXTURE_DESC, filterMode)", unsafe.Offsetof(TextureDesc{}.FilterMode), 12},
		{"offsetof(CUDA_TEXTURE_DESC, flags)", unsafe.Offsetof(TextureDesc{}.Flags), 16},
		{"offsetof(CUDA_TEXTURE_DESC, mipmapFilterMode)", unsafe.Offsetof(TextureDesc{}.MipmapFilterMode), 24},
		{"offsetof(CUDA_TEXTURE_DESC, borderColor)", unsafe.Offsetof(TextureDesc{}.BorderColor), 40},
		{"offsetof(CUDA_TEXTURE_DESC, reserved)", unsafe.Offsetof(TextureDesc{}.Reserved), 56},
	}
	for _, c := range checks {
		if c.got != c.want {
			t.Errorf("%s = %d, want %d", c.name, c.got, c.want)
		}
	}
}
