// Package variants registers the GPU convolution variants with convolve:
// the kernel designs of the five reports, the framework's own families
// (gpu-regtile, gpu-sepfused, the gpu-tc tensor-core variants), gpu-fft
// and the vendor peers (npp, npp-interior, cudnn, cudnn-tf32). Kernels are
// specialized by NVRTC for the problem (see gpu/kernels); docs/variants.md
// says how a family is added.
//
// Every variant is a *Variant over the common plan Base: Plan checks the
// capabilities, opens the device convolve.Config.Devices names (device 0 by
// default; a *cudabind.UnavailableError when there is none), allocates the
// buffers once and runs the variant's Setup, which compiles its kernels,
// uploads the filter and sets the launch sequence. PlanOn plans on a Device
// the caller opened, as package gpu/gpuslab does per slab, and
// SettledConfig gives it the setting of the whole image.
//
// The kernel families are declarations (Decl, made a Variant by Declare):
// source, macros, __constant__ arrays, scratch, and kernels with their
// shared memory, grid rule and arguments, over one setup path;
// Decl.Validate checks a declaration against its source and a device's
// limits without a GPU. The channel strategies, RGB->YUV, gpu-fft and the
// peers keep hand-written plans over Base. Plans implement
// convolve.DevicePlan: Upload, TimeKernel (events around n launches in one
// device task), TimeKernelGraph (the same replayed from CUDA graphs),
// Download, Run and Close.
//
// gpu-fft convolves through cuFFT by overlap-save over power-of-two tiles
// of the bordered image, on the plan's stream, held to the FFT32 error
// model. The gpu-tc variants (tc.go, kernels/tc.cu) apply each filter row
// as a banded Toeplitz product on mma.sync tensor cores; their error bound
// is derived in tc.go, and their tests run tc.cu on the CPU through a host
// harness (testdata/tcemu). gpu-regtile and gpu-sepfused ask for device
// rows aligned to 32 elements (Decl.InRowAlign, Decl.OutRowAlign), so that
// any width keeps their vector paths.
//
// Tuned families take the block and tunables a configuration leaves unset
// from the GPU's tuning table (package tables/tuning), else from their
// defaults, unless Config.Untuned; Base reports the result (Setting,
// SettingSource).
//
// What a device cannot hold is refused at plan time: filters past constant
// or shared memory and grids past CUDA's limits with a
// *convolve.CapabilityError, buffers past free memory with a
// *convolve.MemoryError. Run refuses overlapping output
// (convolve.ErrOverlap), and after Close every method returns an error
// wrapping convolve.ErrClosed. Variants that declare FiniteInput refuse
// non-finite input with a *convolve.NonFiniteError.
//
// Warm compiles the kernels of a batch of plans on several goroutines
// (WarmPlan). Every variant has the methods Warm and LiveAllocations,
// through which the property suite (convtest's Warmer and
// AllocationCounter) warms it and checks it for leaks.
package variants
