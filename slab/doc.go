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
// in the limit ([streamRows]; a limit too small for one row and its halo
// is a *convolve.MemoryError), run one after the other while a goroutine
// fills the next slab's input into the other buffer pair (double
// buffering). Its output equals the in-memory one. [Lookup] resolves
// these names for any registered variant, [Register] adds them to the
// convolve registry for benchmarks and presets. The plans implement
// [Partitioned]. A variant that declares FiniteInput has the whole image
// checked first, so that an error names the pixel's row in the image.
//
// [Partition.Copies] lists the halo exchange of repeated passes over an
// image kept in slabs: after each pass every slab's new output rows go
// to its own input and to the halos of the slabs that read them, so that
// k passes equal k runs of the wrapped variant on the whole image, bit
// for bit. Package gpu/gpuslab's resident mode exchanges them so.
//
// The wrapped plan computes every row of its slab's input, the halo rows
// included, and their outputs are dropped: at most KH-1 rows of extra
// work per slab, small beside the slab for the slab heights that matter.
//
// # The GPU part
//
// Nothing here touches a GPU. Package gpu/gpuslab takes the
// partition as it is: one plan of a single-GPU variant per slab on a
// chosen device (several logical devices on one GPU being several
// executors on it), the runs of [Partition.Copies] as the uploads of
// one-shot mode and as the halo exchange of resident mode (device, peer
// or pinned-host staged copies), and DivideRows as the slabs streamed
// through a device under a memory cap.
package slab
