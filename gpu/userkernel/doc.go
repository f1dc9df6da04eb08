// Package userkernel turns a user's CUDA source file into a GPU variant,
// without Go: Load reads the .cu file and its description and checks it
// field by field, and Kernel.Variant builds a *variants.Variant whose
// plans compile the file with NVRTC for the GPU at hand, with the built-in
// kernels' specialization macros. The benchmarks' -kernel flag registers
// such variants and proves them with the property suite before timing
// them (docs/variants.md).
//
// # The kernel contract
//
// The description names one extern "C" __global__ function, the entry,
// which every launch calls with six arguments, in this order:
//
//	extern "C" __global__ void my_conv(const in_t* __restrict__ in,
//	                                   const float* __restrict__ filter,
//	                                   float* __restrict__ out,
//	                                   int W, int H, idx_t S)
//
// The arguments:
//
//   - in: the input as the host lays it out, in_t elements (IN_T: float,
//     unsigned char or short). Channel c of pixel (x, y) is at
//     in_offset(x, y, c, H, S) (border.cuh): y*S + x*CHANNELS + c
//     interleaved, (c*H + y)*S + x planar; S is the row stride in
//     elements, rows may be padded.
//   - filter: the KW x KH weights, row-major, oriented for correlation:
//     out(x, y) = sum over j < KH, i < KW of filter[j*KW + i] *
//     in(x + i - KW/2, y + j - KH/2). A convolve-mode problem gets the
//     flipped filter, so the kernel always correlates.
//   - out: the float32 output, packed in the input's layout, channel c of
//     pixel (x, y) at out_offset(x, y, c, W, H). Every element must be
//     written: the suite poisons the output before each run.
//   - W, H: the image size in pixels; idx_t is int, or long long when
//     INDEX64 is defined (images of 2^31 elements or more).
//
// Pixels outside the image follow the border mode BORDER: read_px(in, x,
// y, c, W, H, S) maps both coordinates and returns the element as a float
// (0 outside for the zero border), exactly as the CPU reference does.
//
// A launch has blocks of (BX, BY, 1) threads and a grid of
// (ceil(W/(BX*RX)), ceil(H/(BY*RY)), CHANNELS) blocks: blockIdx.z is the
// channel, and each thread writes an RX x RY patch (1x1 for geometry
// pixel). Threads whose pixels fall outside the image must not write.
// With shared: tile a block has (BX*RX + KW - 1) * (BY*RY + KH - 1)
// floats of dynamic shared memory (extern __shared__ float tile[]), the
// limit raised past 48 KB where the device allows; larger tiles are
// refused at plan time.
//
// The source is compiled for the device's own sm_XY with --std=c++17,
// --fmad=false when the plan asks for it (Config.NoFMA), and these macros
// (variants.Defines plus RX and RY):
//
//	KW, KH     filter width and height (odd)
//	BX, BY     block shape
//	RX, RY     pixels per thread in x and y (geometry)
//	BORDER     0 zero, 1 replicate, 2 reflect, 3 mirror, 4 wrap
//	IN_T       float, unsigned char or short
//	CHANNELS   1 to 4
//	PLANAR     1 planar, 0 interleaved
//	INDEX64    defined for images of 2^31 elements or more
//
// #include "border.cuh" gives in_t, idx_t, border_index, in_offset,
// out_offset and read_px; "unroll.cuh" is there too. Other quoted includes
// are read from beside the .cu file (the built-in names win). Compiled
// modules are cached on disk like the built-in kernels'.
//
// # The description
//
// The description is a header in the .cu file, the line
//
//	// convbench:kernel
//
// followed by "// key: value" lines up to the first line that is not a
// comment or is an empty comment; or, for a file without one, a sidecar
// file named after it with the extension .kernel (my.cu: my.kernel) of
// "key: value" lines, blank lines and '#' comments. Fields:
//
//	entry         the kernel function (required)
//	name          the variant's name (default user-<file name without extension>)
//	summary       one line on the kernel
//	geometry      pixel, or pixel RXxRY (default pixel)
//	shared        none or tile (default none)
//	filter        global, or constant NAME: the weights are also copied into
//	              __constant__ float NAME[KW * KH] (default global)
//	types         of u8, i16, f32 (default all)
//	borders       of zero, replicate, reflect, mirror, wrap (default all)
//	channels      of 1, 2, 3, 4 (default all)
//	layouts       of interleaved, planar (default both)
//	block         the block shape when a plan names none (default 16x16)
//	blocks        any, or the only block shapes accepted (default any)
//	max-filter    the largest filter side (default 1023)
//	order         reference when the kernel sums the taps in cpu-naive's
//	              order (row j outer, column i inner, border taps included),
//	              so --fmad=false output must equal cpu-naive's bit for bit;
//	              any otherwise (default any)
//	finite-input  true when the kernel does not multiply and add every tap
//	              in IEEE arithmetic: NaN and infinite input is then refused
//	              (default false)
//
// Lists are comma-separated. An unknown, repeated or bad field, a missing
// entry, or a description in both places or in neither is a *SpecError
// naming the file, the line, the field and the valid values. What the
// description declares is what the suite tests.
package userkernel
