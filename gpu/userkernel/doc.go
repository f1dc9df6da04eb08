// Package userkernel turns a user's CUDA source file into a GPU variant.
//
// No Go is needed: Load reads the .cu file and its description, checks the
// description field by field, and Kernel.Variant builds a
// *variants.Variant whose plans compile the file with NVRTC for the GPU at
// hand, with the same specialization macros as the built-in kernels. The
// benchmarks' -kernel flag registers such variants, proves them with the
// property suite (package convtest) and only then times them.
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
//	  - in: the input image as the host lays it out, in_t elements (IN_T:
//	    float, unsigned char or short). Channel c of pixel (x, y) is at
//	    in_offset(x, y, c, H, S) (border.cuh): y*S + x*CHANNELS + c when
//	    interleaved, (c*H + y)*S + x when planar. S is the row stride in
//	    elements, at least W*CHANNELS (interleaved) or W (planar); rows
//	    may be padded.
//	  - filter: the KW x KH weights in global memory, row-major, oriented
//	    for correlation: out(x, y) = sum over j < KH, i < KW of
//	    filter[j*KW + i] * in(x + i - KW/2, y + j - KH/2). A convolve-mode
//	    problem gets the flipped filter, so the kernel always correlates.
//	  - out: the float32 output, packed (no padding) in the input's layout:
//	    channel c of pixel (x, y) at out_offset(x, y, c, W, H). Every
//	    element must be written: the suite poisons the output before each
//	    run.
//	  - W, H: the image size in pixels. S: the input row stride in
//	    elements; idx_t is int, or long long when INDEX64 is defined (an
//	    image of 2^31 elements or more).
//
// Pixels outside the image follow the border mode BORDER: read_px(in, x,
// y, c, W, H, S) of border.cuh maps both coordinates and returns the
// element as a float (0 outside for the zero border), exactly as the CPU
// reference does.
//
// # Launch geometry
//
// A launch has blocks of (BX, BY, 1) threads and a grid of
// (ceil(W/(BX*RX)), ceil(H/(BY*RY)), CHANNELS) blocks: blockIdx.z is the
// channel, and each thread writes an RX x RY patch of pixels (geometry:
// pixel is 1x1, one thread per output pixel). Threads whose pixels fall
// outside the image must return without writing. With shared: tile the
// launch has (BX*RX + KW - 1) * (BY*RY + KH - 1) floats of dynamic shared
// memory (extern __shared__ float tile[]), the limit raised past 48 KB
// where the device allows it; larger tiles are refused at plan time.
//
// # Defines and includes
//
// The source is compiled with NVRTC for the device's own sm_XY, with
// --std=c++17, --fmad=false when the plan asks for it (Config.NoFMA), and
// these macros (variants.Defines plus RX and RY):
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
// out_offset and read_px; "unroll.cuh" is there too. Other quoted
// includes are read from files beside the .cu file (the built-in names
// win). Compiled modules are cached on disk like the built-in kernels'.
//
// # The description
//
// The description is either a header in the .cu file, the line
//
//	// convbench:kernel
//
// followed by "// key: value" lines up to the first line that is not a
// comment or is an empty comment, or, for a file without such a header,
// a sidecar file beside it named after it with the extension .kernel
// (my.cu: my.kernel) holding "key: value" lines, blank lines and lines
// starting with '#'. Fields:
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
//	              order (row j outer, column i inner, border taps included):
//	              --fmad=false output must then equal cpu-naive's bit for bit;
//	              any otherwise (default any)
//	finite-input  true when the kernel does not multiply and add every tap
//	              in IEEE arithmetic, so NaN and infinities would not give the
//	              reference's result: such input is then refused (default false)
//
// Lists are comma-separated. An unknown field, a field given twice, a
// bad value, a missing entry, or a description in both places or in
// neither is a *SpecError naming the file, the line, the field and the
// valid values.
//
// What the description declares is what the suite tests: every declared
// type, border, channel count and layout, filter sizes up to max-filter,
// block shapes, both filter modes, --fmad=false and --use_fast_math, NaN
// and infinite input unless finite-input, bit-exactness under order:
// reference.
package userkernel
