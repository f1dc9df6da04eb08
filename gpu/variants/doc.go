// Package variants registers the GPU convolution variants with convolve.
//
// They are the kernel designs of the five reports, each specialized by
// NVRTC for the problem (filter size, block shape, border, element type,
// channels and layout as compile-time constants, see gpu/kernels).
//
// Every variant is a *Variant over the common plan Base: Plan checks the
// capabilities, opens the device convolve.Config.Devices names (device 0
// by default; cudabind.Shared; its *cudabind.UnavailableError when there
// is none), allocates the input and
// output buffers once, and runs the variant's Setup, which compiles its
// kernels, uploads the filter (to constant memory, global memory or a
// texture) and sets the launch sequence. PlanOn plans a variant on a
// Device the caller opened, as the multi-device plans of package
// gpu/gpuslab do for each slab (several Devices on one ordinal being
// logical devices of that GPU), and SettledConfig gives them the setting
// of the whole image.
//
// The kernel-family variants are declarations (Decl, made a Variant by
// Declare): the family's source, the macros it adds, its __constant__
// arrays, a scratch buffer, and its kernels with their shared memory
// (from the block's Tile, the shape of kernels/tile.cuh), grid rule
// (PerPixel, PerRows, PerPaddedPixel, PerTile) and arguments. One setup path
// compiles, looks up, uploads and launches for all of them, and
// Decl.Validate checks a declaration against its source and a device's
// limits without a GPU. The channel strategies, RGB->YUV, gpu-fft and the peers
// keep hand-written plans over Base. The plan then implements
// convolve.DevicePlan: Upload, TimeKernel (events around n host launches
// in one device task), TimeKernelGraph (the same n runs replayed from CUDA
// graphs of GraphBatch runs, captured once from the launch sequence),
// Download, Run and Close (which frees everything it made).
//
// The peers are vendor libraries in the same harness, loaded at run time
// and refused (a *cudabind.UnavailableError, on which tests skip) where
// the library is missing: npp, NPP's filter after a padding pass through
// the border, timed with the padding and the copy of the result; npp-interior,
// the same pipeline with only NPP's filter call timed; cudnn and
// cudnn-tf32, cuDNN's forward convolution with the fastest of cuDNN's
// direct-sum candidates, timed on the problem, FP32 alone (Direct error model) or
// with TF32 tensor cores allowed (TF32 model), the algorithm reported
// through the plan's Setting and SettingSource.
//
// gpu-fft convolves through cuFFT (package cudabind/cufft, loaded at run
// time; a host without it skips the variant with the reason) by
// overlap-save: power-of-two tiles of the bordered image, one batched
// real-to-complex transform of every tile of every channel, the product
// with the filter's spectrum (computed once per plan), the batched
// complex-to-real transform and a crop, all on the plan's stream, so that
// its runs are timed and captured into CUDA graphs like the kernels'. Its cuFFT plans
// take their work area from the plan's own buffers, and Close destroys
// them. It declares the FFT32 error model (convolve.FFTTolerance), which
// the tests and the property suite hold it to.
//
// gpu-tc-3xtf32, gpu-tc-tf32 and gpu-tc-bf16 (tc.go, kernels/tc.cu)
// compute direct convolution on tensor cores: each filter row applied to 8
// output columns is a product with a banded Toeplitz matrix, done by
// warp-level mma.sync m16n8k8 instructions 16 output rows at a time, each
// group of products added to float32 accumulators. gpu-tc-3xtf32 splits
// every operand into TF32 high and low parts and forms three products, and
// declares convolve.Direct; gpu-tc-tf32 and gpu-tc-bf16 round the operands
// to TF32 or bfloat16 and declare convolve.TF32 or convolve.BF16. Their
// error bound is derived in tc.go from the formats and a stated assumption
// on the tensor cores' summation; filters for which it exceeds the
// declared model's (the smallest and thinnest) run tc.cu's conv_tc_direct,
// the same tile summed on CUDA cores in float32. Their tests run tc.cu on
// the CPU too, through a host harness (testdata/tcemu) that makes each
// CUDA thread a coroutine and emulates mma.sync from the PTX ISA's
// fragment layouts with the worst accumulation the bound allows.
//
// gpu-regtile and gpu-sepfused fill their tiles with aligned vector
// loads and store aligned vectors; their declarations ask for device
// input and output rows that start on multiples of 32 elements
// (Decl.InRowAlign, Decl.OutRowAlign), so an image of any width (4099
// columns, say) is copied in and out with two-dimensional copies between
// packed host rows and buffers of the wider strides, and keeps the vector
// paths. The kernels read the output stride as the macro OUT_S.
//
// gpu-tiled, gpu-regtile and the gpu-tc variants declare tuning spaces (convolve.TuningSpace:
// block shapes, ry, rx, and what shared memory and the unrolled walk
// allow). Their plans take the block and tunables a configuration leaves
// unset from the GPU's tuning table (package tables/tuning), for the
// nearest K and size class, else from the family's defaults, unless
// Config.Untuned; Base reports the result (Setting, SettingSource).
//
// Filters past the device's constant memory (64 KB) or opt-in shared
// memory, and grids past CUDA's limits, are refused at plan time with a
// *convolve.CapabilityError naming the variant; buffers past the device's
// free memory (cuMemGetInfo) with a *convolve.MemoryError, before the
// allocation is tried.
//
// A plan keeps its own copy of the filter. Its Run refuses an output
// whose data overlaps the input's (convolve.ErrOverlap), and after Close
// every method, and a second Close, returns an error wrapping
// convolve.ErrClosed. The direct and channel kernels follow IEEE
// arithmetic over every tap (see directCaps); gpu-separable,
// gpu-sepfused, gpu-sobel, gpu-fft, the gpu-tc variants and the peers declare
// convolve.Capabilities.FiniteInput, each with its reason, and are
// refused NaN and infinite weights at plan time and pixels in Run and
// Upload with a *convolve.NonFiniteError.
//
// Warm compiles the kernels of a batch of plans on several goroutines
// before they are made, each by planning it on a small image of the same
// specialization (WarmPlan). Every variant of the package has the methods
// Warm (WarmPlan of itself) and LiveAllocations (the default device's),
// through which the property suite (package convtest: Warmer and
// AllocationCounter) compiles a variant's kernels before its first case
// and checks that its plans leave no device allocation behind.
package variants
