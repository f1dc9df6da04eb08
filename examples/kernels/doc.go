// Package kernels holds example user kernels.
//
// They are CUDA source files in the contract of package gpu/userkernel,
// each with its description, that the benchmarks' -kernel flag adds as
// variants without any Go.
//
// direct.cu is a correct direct convolution described by a comment
// header; testdata/offbyone.cu, described by the sidecar file
// testdata/offbyone.kernel, has a deliberate off-by-one bug. The tests
// check both descriptions everywhere, compile both kernels with NVRTC
// where it is present, and on a GPU run direct.cu through the whole
// property suite (convtest.TestVariant) and check that the suite fails
// offbyone.cu.
//
// Prove and time direct.cu beside a built-in kernel, from the repository
// root:
//
//	go run ./benchmarks/cmd/sweep -kernel examples/kernels/direct.cu -variants 'user-.*|gpu-naive'
package kernels
