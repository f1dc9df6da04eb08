// Package gpuslab runs any single-GPU variant over several devices.
//
// Each device takes horizontal slabs of the image. It is the multi-GPU
// half of package slab, whose partition (halo rows taken through the whole
// image's border) it uses as it is, so that the output equals the wrapped
// variant's bit for bit.
//
// # Devices
//
// A plan opens one logical device per entry of convolve.Config.Devices:
// its own executor (cudabind.Open), streams and buffers. A repeated
// ordinal is another logical device on the same GPU, sharing its context
// ("-gpus 0,0" proves and times two slabs on one GPU); without Devices a
// plan takes every GPU present once ("gpu-slab-<variant>") or, for
// "gpu-slab<n>-<variant>", n logical devices round robin over them. The
// wrapped variant is planned on each slab with variants.PlanOn, with the
// block and tunables the whole image would get (variants.SettledConfig).
//
// # One-shot mode
//
// Run copies a host image in and the output back. The image is divided
// into devices x chunks slabs (tunable "chunks", default 4 per device),
// each device takes a contiguous run of them and its streams (tunable
// "streams", default 4) take its chunks in turn; on its stream each
// chunk's uploads (the row runs of slab.Partition.Copies, row by row
// into a wrapped plan whose device rows are padded, Base.InStride), the
// wrapped plan's kernels and the download of its output rows run in
// order, so
// that one chunk's copies overlap another's kernels. The copies are
// asynchronous from the caller's memory: from pinned memory they overlap,
// from pageable memory the driver stages them. Timeline runs the same
// with events around every phase of every chunk.
//
// # Resident mode
//
// Upload leaves the image on the devices, each chunk's input with its
// halo rows. Pass filters it and makes the output the next input: the
// kernels, then the exchange of every chunk's rows from the chunks that
// own them, by device copies within a context (logical devices of one
// GPU), cuMemcpyPeerAsync between GPUs with peer access (enabled with
// cuCtxEnablePeerAccess where cuDeviceCanAccessPeer allows), and through
// pinned host memory between GPUs without (Link). Events order a pass
// across streams and devices (cuStreamWaitEvent: the exchange waits for
// the kernels of the chunks it reads, a chunk's next kernels for the
// copies out of its output), so that the host waits for the devices once
// per Pass, and once per batch of TimeKernel. TimeKernel times the
// iterations of resident filtering (kernels and halo exchange over the
// same links) without changing the uploaded input, so that Download
// gives one filtering as for every convolve.DevicePlan.
//
// # Streaming
//
// When a device's slabs do not fit under its cap (tunable "memcap-kib",
// the "gpu-stream<limit>-" names, and never more than 90% of the
// device's free memory) the plan streams the image: slabs of StreamRows
// output rows, every slab's input of one height (edge slabs read more
// image rows than their halos, computed and dropped), in sequence over
// two streams with a buffer pair each, so that the next slab's upload
// overlaps the current slab's kernels (double buffering). Its output
// equals the in-memory path's.
//
// The orchestration (copy lists, stream assignment, exchange order and
// links, the cap forcing streaming) is proved on the fake driver with a
// wrapped variant that computes on the host; the GPU tests and the
// property suite prove the registered variants on a GPU, and skip without
// one.
package gpuslab
