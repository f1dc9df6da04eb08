// Package slab runs a variant on horizontal slabs of the image, each slab
// with the halo rows its filter needs, and assembles the output in place.
// It is the host-side half of multi-GPU and out-of-core filtering: the
// division of the image, the rows every slab must hold and where each row
// comes from, proved on the CPU variants bit for bit.
//
// # Slabs and halos
//
// [Divide] cuts the image into n slabs of equal height (within one row),
// [DivideRows] into slabs of a given height. A slab computes the output
// rows [Y0, Y1); for a filter of height KH each output row reads KH/2
// rows above it and KH-1-KH/2 below, so the slab's input is the rows
// Y0-KH/2 to Y1+KH-1-KH/2 of the image extended by its border. Those
// rows are mapped into the image by the whole image's border
// (convolve.Border.Index), never by the slab's:
//
//   - Zero: rows outside the image read as zero terms. The slab's input
//     stops at the image's top and bottom edges, and the wrapped plan's
//     own Zero border supplies the outside rows there, exactly as it does
//     for the whole image (cpu-fast, for one, skips such rows instead of
//     adding their zero terms, which rows of zeros in the input would add).
//   - Replicate, Reflect, Mirror, Wrap: every halo row is copied into the
//     slab's input through the whole image's mapping: the edge row
//     repeated, the rows reflected with or without the edge, and under
//     Wrap the rows of the far side of the image. The wrapped plan then
//     never reads a row outside its input, so its own vertical border
//     logic (which would see the slab, not the image) is never used.
//
// Slabs shorter than the filter, images with fewer rows than slabs (the
// empty slabs are left out: Divide makes min(n, H) slabs) and filters
// taller than the image follow from the same mapping, which is periodic
// under Reflect, Mirror and Wrap. Horizontally nothing changes: a slab
// has the image's width and the wrapped plan applies the border to its
// columns as it does for the whole image.
//
// Every output element is then computed by the wrapped variant's own code
// from the same input values, with the same rows inside and outside the
// image, so the results equal the wrapped variant's bit for bit; the
// tests prove it for cpu-naive and cpu-fast over 1 to 5 slabs, every
// border, element type, channel count and layout, and run convtest's
// property suite over the family. The capabilities of a slab variant are
// the wrapped one's, ReferenceOrder included.
//
// # Variants
//
// [Wrap] makes "slab<n>-<variant>": at plan time one plan of the wrapped
// variant per slab (later: one per device), and a Run that fills each
// slab's input from the image, runs the slabs concurrently and copies
// each slab's output rows into the output image. [Stream] makes
// "stream<limit>-<variant>", the mode for images larger than the memory
// at hand: slabs as tall as lets two slabs' input and output buffers fit
// in the limit ([StreamRows]; a limit too small for one row and its halo
// is a *convolve.MemoryError), run one after the other while a goroutine
// fills the next slab's input into the other buffer pair (double
// buffering). Its output equals the in-memory one. [Lookup] resolves
// these names for any registered variant, [Register] adds them to the
// convolve registry for benchmarks and presets. The plans implement
// [Partitioned]. A variant that declares FiniteInput has the whole image
// checked first, so that an error names the pixel's row in the image.
//
// [Resident] keeps an image in slabs between repeated passes of a filter
// over a Float32 image: after each pass every slab's new output rows go
// to its own input and to the halos of the slabs that read them
// ([Partition.Copies]), and k passes equal k runs of the wrapped variant
// on the whole image, bit for bit. It is resident mode's halo exchange
// with host memory standing in for the devices.
//
// The wrapped plan computes every row of its slab's input, the halo rows
// included, and their outputs are dropped: at most KH-1 rows of extra
// work per slab, small beside the slab for the slab heights that matter.
//
// # The GPU part: how devices, streams and peer copies use this
//
// Nothing here touches a GPU. The pieces that do will take the partition
// as it is:
//
//   - One executor per device. Slab i's plan becomes the wrapped GPU
//     variant planned on device i (cudabind's executor goroutine per
//     device; several logical devices on one GPU are several executors on
//     it). Wrap's concurrent Run over slabs is the shape of that: one
//     goroutine hands each slab to its device. What is missing is a way
//     to plan a registered GPU variant on a chosen device, and a -gpus
//     flag to pick the devices.
//   - One-shot mode. [Partition.Copies] lists, for each slab, the runs of
//     contiguous image rows that fill its input: each run is one
//     host-to-device copy from pinned memory. Chunking a slab over four or
//     more streams is DivideRows applied to the slab's output rows, each
//     chunk with its own upload, kernel and download, ordered by events.
//     A kernel that takes a row offset would compute only the output
//     rows, not the halo rows the CPU path computes and drops.
//   - Resident mode. The slabs stay on their devices and Resident's
//     exchange becomes device copies: the runs of Copies(i) whose From is
//     another slab ([Partition.Owner] names it) are peer copies
//     (cuMemcpyPeerAsync) where peer access exists, staged through pinned
//     host memory where not; under Wrap the top and bottom slabs are
//     neighbours. Runs with From == i are copies within the device (the
//     slab's own rows, and Reflect and Mirror halos at the image's
//     edges); a kernel writing its output rows straight into the next
//     input buffer would save those.
//   - Streaming. Stream's two buffer pairs become two device buffer
//     pairs, the fill an upload on a copy stream overlapping the kernel of
//     the other pair; the limit becomes the device-memory cap flag, and
//     the *convolve.MemoryError then says "device".
//
// Left to do for the multi-GPU issue: device-bound plans of the GPU
// variants and -gpus; the pinned, chunked, multi-stream one-shot
// pipeline; Resident on devices with peer or staged halo exchange; the slab
// family in the property suite on a GPU (1 to 4 logical devices on one
// GPU, then every GPU present); the 004-multigpu preset with scaling
// efficiency and host-copy bound, its timeline and scaling table; and the
// README's instructions for several GPUs. Until then no GPU behaviour of
// the family is claimed.
package slab
