// Package slab runs a variant on horizontal slabs of the image, each slab
// with the halo rows its filter needs, and assembles the output in place.
// It is the host-side half of multi-GPU and out-of-core filtering; package
// gpu/gpuslab is the GPU half and takes the partition as it is.
//
// [Divide] cuts the image into n slabs of equal height (within one row;
// empty slabs are left out), [DivideRows] into slabs of a given height. A
// slab computing output rows [Y0, Y1) reads rows Y0-KH/2 to Y1+KH-1-KH/2,
// mapped into the image by the whole image's border (convolve.Border.Index),
// never by the slab's: under Zero the slab's input stops at the image's
// edges and the wrapped plan's own Zero border supplies the rest; under the
// other borders every halo row is copied through the whole image's mapping,
// so the wrapped plan never reads a row outside its input. Every output
// element is thus computed by the wrapped variant's own code from the same
// values, and the results equal the wrapped variant's bit for bit; the
// tests prove it for cpu-naive and cpu-fast over every border, type,
// channel count and layout. A slab variant has the wrapped one's
// capabilities.
//
// [Wrap] makes "slab<n>-<variant>": one plan of the wrapped variant per
// slab, run concurrently. [Stream] makes "stream<limit>-<variant>" for
// images larger than the memory at hand: slabs as tall as lets two slabs'
// buffers fit in the limit, run one after the other while a goroutine fills
// the next (double buffering). [Lookup] resolves these names, [Register]
// adds them to the convolve registry. The plans implement [Partitioned]. A
// variant that declares FiniteInput has the whole image checked first, so
// that an error names the pixel's row in the image.
//
// [Partition.Copies] lists the halo exchange of repeated passes over an
// image kept in slabs, so that k passes equal k runs of the wrapped variant
// on the whole image, bit for bit.
package slab
