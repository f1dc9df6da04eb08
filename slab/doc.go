// Package slab divides an image into horizontal slabs, each with the halo
// rows its filter needs, for multi-GPU and out-of-core filtering: which
// rows every slab holds and where each row comes from. Package gpu/gpuslab
// runs variants on the partition as it is.
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
// values, and the results equal the wrapped variant's bit for bit.
// [Partition.Copies] lists the halo exchange of repeated passes over an
// image kept in slabs, so that k passes equal k runs on the whole image.
//
// The package's tests prove both on the CPU variants, over every border,
// type, channel count and layout: they run cpu-naive and cpu-fast on
// slabs in memory ("slab<n>-<variant>"), streamed under a byte limit
// ("stream<limit>-<variant>") and resident with the halo exchange, and the
// property suite over those variants.
package slab
