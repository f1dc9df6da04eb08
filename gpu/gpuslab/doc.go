// Package gpuslab runs any single-GPU variant over several devices, each
// taking horizontal slabs of the image as package slab divides it, so that
// the output equals the wrapped variant's bit for bit. See
// docs/multi-gpu-and-fleets.md.
//
// A plan opens one logical device per entry of convolve.Config.Devices (a
// repeated ordinal is another executor on the same GPU); without Devices
// it takes every GPU once ("gpu-slab-<variant>") or, for
// "gpu-slab<n>-<variant>", n logical devices round robin. The wrapped
// variant is planned on each slab with variants.PlanOn, with the setting
// the whole image would get (variants.SettledConfig).
//
// One-shot mode: Run divides the image into devices x chunks slabs
// (tunables "chunks" and "streams", default 4 each); on its stream each
// chunk's uploads, kernels and download run in order, so that one chunk's
// copies overlap another's kernels. Timeline runs the same with events
// around every phase.
//
// Resident mode: Upload leaves the image on the devices; Pass filters it
// and exchanges halo rows by device copies within a context, peer copies
// between GPUs with peer access, and pinned host memory otherwise (Link),
// ordered by events, so that the host waits once per Pass. TimeKernel times
// such passes without changing the uploaded input.
//
// Streaming: when a device's slabs do not fit under its cap (tunable
// "memcap-kib", the "gpu-stream<limit>-" names, at most 90% of free
// memory) slabs of StreamRows rows go through two streams with a buffer
// pair each (double buffering), with the in-memory path's output.
//
// The orchestration is proved on the fake driver with a wrapped variant
// that computes on the host; the GPU tests prove the registered variants.
package gpuslab
