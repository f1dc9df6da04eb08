package gpuslab

import (
	"errors"
	"fmt"
	"maps"
	"sync"
	"unsafe"

	"github.com/convbench/convbench/convolve"
	"github.com/convbench/convbench/cudabind"
	"github.com/convbench/convbench/gpu/variants"
	"github.com/convbench/convbench/slab"
)

// Options are what a plan's configuration sets besides the wrapped
// variant's: the devices, the chunks and streams per device and the cap
// on each device's slab buffers.
type Options struct {
	Devices []int // ordinals, one per logical device
	Chunks  int
	Streams int
	MemCap  int64 // bytes; 0: the device's free memory
}

// Supports is the validity rule of the slab variants
// (convolve.Supporter): the capabilities, the slab tunables, the number
// of devices named, a cap on the slab buffers that holds two slabs of
// one row and their halos (checkCap), and the wrapped variant's own rule
// for p under the configuration its slabs' plans take.
func (v *variant) Supports(p convolve.Problem, cfg convolve.Config, lim convolve.DeviceLimits) error {
	d := v.Describe()
	err := d.Caps.Check(p)
	if err == nil {
		err = d.Caps.CheckConfig(cfg)
	}
	var o Options
	if err == nil {
		o, err = v.tunableOptions(cfg)
	}
	if err == nil {
		err = checkCap(p, o.MemCap)
	}
	if err == nil {
		err = convolve.Supports(v.inner, p, strippedConfig(cfg), lim)
	}
	if err != nil {
		return convolve.NameVariant(d.Name, err)
	}
	return nil
}

// DeviceLimits returns the limits of the first device a plan under cfg
// runs on (convolve.Supporter): the first ordinal cfg names, or device 0.
func (v *variant) DeviceLimits(cfg convolve.Config) (convolve.DeviceLimits, error) {
	o := 0
	if len(cfg.Devices) > 0 {
		o = cfg.Devices[0]
	}
	d, err := cudabind.Shared(o)
	if err != nil {
		return convolve.DeviceLimits{}, err
	}
	return variants.Limits(d.Info()), nil
}

// checkCap refuses, with a *convolve.CapabilityError, a cap on the slab
// buffers (memCap bytes; 0 is none) under which not even two slabs of one
// output row and their halos fit.
func checkCap(p convolve.Problem, memCap int64) error {
	if memCap <= 0 {
		return nil
	}
	var me *convolve.MemoryError
	if _, err := streamRows(p, memCap); errors.As(err, &me) {
		_, kh := p.KernelSize()
		return &convolve.CapabilityError{What: "image rows",
			Value: fmt.Sprintf("of %v with a %d-row filter: one row and its halo need %d bytes of slab buffers, over the cap of %d", p.Input, kh, me.Needed, memCap)}
	}
	return nil
}

// options reads the plan's options from cfg, the devices included.
func (v *variant) options(cfg convolve.Config) (Options, error) {
	o, err := v.tunableOptions(cfg)
	if err != nil || len(o.Devices) > 0 {
		return o, err
	}
	gpus, err := v.gpus()
	if err != nil {
		return o, err
	}
	if gpus < 1 {
		return o, &cudabind.UnavailableError{Lib: "driver", Reason: "no CUDA device"}
	}
	n := v.n
	if n == 0 {
		n = gpus
	}
	for i := range n {
		o.Devices = append(o.Devices, i%gpus) // logical devices round robin over the GPUs
	}
	return o, nil
}

// tunableOptions reads the options cfg sets without a device: the slab
// tunables, and the devices when cfg names them.
func (v *variant) tunableOptions(cfg convolve.Config) (Options, error) {
	o := Options{Chunks: defaultChunks, Streams: defaultStreams, MemCap: v.limit}
	for _, t := range []struct {
		name, per string // the tunable; what it counts per device
		def       int
		dst       *int
	}{{tuneChunks, "chunk", defaultChunks, &o.Chunks}, {tuneStreams, "stream", defaultStreams, &o.Streams}} {
		switch n := cfg.Tunables[t.name]; {
		case n < 0:
			return o, fmt.Errorf("gpuslab: %s=%d: need at least one %s per device (0: %d)", t.name, n, t.per, t.def)
		case n > 0:
			*t.dst = n
		}
	}
	if n, ok := cfg.Tunables[tuneMemCap]; ok {
		if n < 0 {
			return o, fmt.Errorf("gpuslab: %s=%d: the cap must not be negative", tuneMemCap, n)
		}
		if n > 0 {
			o.MemCap = int64(n) << 10
		}
	}
	if len(cfg.Devices) > 0 {
		if v.n > 0 && len(cfg.Devices) != v.n {
			return o, &convolve.CapabilityError{What: "devices",
				Value: fmt.Sprintf("%s (%d of them; this variant runs on %d)", convolve.FormatDevices(cfg.Devices), len(cfg.Devices), v.n)}
		}
		o.Devices = cfg.Devices
	}
	return o, nil
}

// device is one logical device of a plan: its own executor and streams.
type device struct {
	d       *cudabind.Device
	streams []cudabind.Stream
	chunks  []int // indices of the chunks it runs, top to bottom
	// ref and ev are the timeline's events: ref first, then four per
	// chunk (before the upload, after it, after the kernel, after the
	// download), created by the first Timeline.
	ref cudabind.Event
	ev  [][4]cudabind.Event
}

// chunk is one slab of the partition as one plan of the wrapped variant
// runs it.
type chunk struct {
	s      slab.Slab
	dev    int // index in plan.devs
	stream int // index in the device's streams
	b      *variants.Base
	// in is the geometry of the wrapped plan's device input: the slab's
	// input with the plan's row stride (Base.InStride: wider than the
	// host's where the plan pads its rows).
	in convolve.Geometry
	// host is the chunk's input on the host for wrapped plans that copy
	// their input into buffers of their own (Base.CopyIn, In released).
	host *convolve.Image
}

// plan is a plan of the slab variants.
type plan struct {
	name   string
	p      convolve.Problem
	opts   Options
	pt     *slab.Partition
	devs   []*device
	chunks []chunk
	// stream is true when the slabs are streamed through two buffer
	// pairs per device; bases then holds those plans, and chunk i runs
	// on bases[dev][i's parity].
	stream bool
	bases  [][2]*variants.Base
	finite bool
	closed bool
	// res is the resident state (Upload, TimeKernel, Download).
	res resident
}

// Plan divides the image and plans the wrapped variant on every slab,
// on the devices the configuration names.
func (v *variant) Plan(p convolve.Problem, cfg convolve.Config) (convolve.Plan, error) {
	d := v.Describe()
	err := d.Caps.Check(p)
	if err == nil {
		err = d.Caps.CheckConfig(cfg)
	}
	if err != nil {
		return nil, convolve.NameVariant(d.Name, err)
	}
	if err := v.Supports(p, cfg, convolve.DeviceLimits{}); err != nil {
		return nil, err
	}
	opts, err := v.options(cfg)
	if err != nil {
		return nil, convolve.NameVariant(d.Name, err)
	}
	pl := &plan{name: d.Name, p: p, opts: opts, finite: d.Caps.FiniteInput}
	if err := pl.prepare(v, cfg); err != nil {
		pl.release()
		return nil, convolve.NameVariant(d.Name, err)
	}
	return pl, nil
}

// Warm plans v for p under cfg on a small image of the same
// specialization and closes the plan (variants.WarmPlan), so that the
// wrapped variant's kernels are compiled before a plan of p needs them.
// The property suite (convtest.Warmer) calls it before v's first case.
func (v *variant) Warm(p convolve.Problem, cfg convolve.Config) error {
	return variants.WarmPlan(v, p, cfg)
}

// LiveAllocations is the default CUDA device's count of live allocations
// (cudabind.Default), or its *cudabind.UnavailableError. The property
// suite (convtest.AllocationCounter) checks that v's plans leave it where
// it was; the logical devices a plan opens are the plan's own, and its
// Close closes them.
func (v *variant) LiveAllocations() (int, error) {
	d, err := cudabind.Default()
	if err != nil {
		return 0, err
	}
	return d.LiveAllocations(), nil
}

// ReleaseDevice resets the device contexts of this process that a sticky
// error poisoned (variants.ReleaseFaulted; convtest.DeviceReleaser).
func (v *variant) ReleaseDevice() error { return variants.ReleaseFaulted() }

// innerConfig is cfg without the slab tunables and devices, with the
// block and tunables the wrapped variant's plan of the whole image would
// take on device d (variants.SettledConfig) written in, so that every
// slab's plan computes as that plan would.
func innerConfig(inner convolve.Variant, d *cudabind.Device, p convolve.Problem, cfg convolve.Config) (convolve.Config, error) {
	cfg = strippedConfig(cfg)
	if v, ok := inner.(*variants.Variant); ok {
		cfg = variants.SettledConfig(v, p, cfg, d.Info())
	}
	return cfg, nil
}

// strippedConfig is cfg without the slab tunables and devices: the
// wrapped variant's configuration.
func strippedConfig(cfg convolve.Config) convolve.Config {
	cfg.Devices = nil
	cfg.Tunables = maps.Clone(cfg.Tunables)
	for _, k := range ownTunables {
		delete(cfg.Tunables, k)
	}
	if len(cfg.Tunables) == 0 {
		cfg.Tunables = nil
	}
	return cfg
}

// prepare opens the devices, chooses one-shot or streaming mode and
// plans the wrapped variant.
func (pl *plan) prepare(v *variant, cfg convolve.Config) error {
	for _, o := range pl.opts.Devices {
		d, err := v.open(o)
		if err != nil {
			return fmt.Errorf("open device %d: %w", o, err)
		}
		pl.devs = append(pl.devs, &device{d: d})
	}
	icfg, err := innerConfig(v.inner, pl.devs[0].d, pl.p, cfg)
	if err != nil {
		return err
	}
	limit, err := pl.deviceLimit()
	if err != nil {
		return err
	}
	pt, err := slab.Divide(pl.p, len(pl.devs)*pl.opts.Chunks)
	if err != nil {
		return err
	}
	pl.pt = pt
	pl.assign()
	if need := pl.oneShotBytes(); need > limit || v.limit > 0 {
		// A cap too small for one row is refused by the validity rule
		// (checkCap); here the device's free memory can still be.
		if err := pl.streamPartition(limit); err != nil {
			return err
		}
	}
	if err := pl.newStreams(); err != nil {
		return err
	}
	if pl.stream {
		err = pl.planStreamed(v.inner, icfg)
	} else {
		err = pl.planChunks(v.inner, icfg)
	}
	if err != nil {
		return err
	}
	return pl.chunkInputs()
}

// newStreams creates each device's streams: the tunable count, or two
// when streaming.
func (pl *plan) newStreams() error {
	n := pl.opts.Streams
	if pl.stream {
		n = 2
	}
	for _, dv := range pl.devs {
		err := dv.d.Do(func(x *cudabind.Exec) error {
			for range n {
				s, err := x.NewStream()
				if err != nil {
					return err
				}
				dv.streams = append(dv.streams, s)
			}
			return nil
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// planStreamed plans inner for streaming mode: one plan per device and
// stream, on the problem of the first slab that stream takes, shared by
// the slabs the two streams take in turn.
func (pl *plan) planStreamed(inner convolve.Variant, icfg convolve.Config) error {
	pl.bases = make([][2]*variants.Base, len(pl.devs))
	for _, dv := range pl.devs {
		for k, ci := range dv.chunks {
			c := &pl.chunks[ci]
			c.stream = k % 2
			if pl.bases[c.dev][c.stream] == nil {
				b, err := variants.PlanOn(inner, dv.d, pl.pt.Problem(pl.p, c.s), icfg)
				if err != nil {
					return fmt.Errorf("slab rows %d to %d on device %d: %w", c.s.Y0, c.s.Y1-1, pl.opts.Devices[c.dev], err)
				}
				pl.bases[c.dev][c.stream] = b
			}
			c.b = pl.bases[c.dev][c.stream]
		}
	}
	return nil
}

// planChunks plans inner for one-shot mode: one plan per chunk, on its
// device.
func (pl *plan) planChunks(inner convolve.Variant, icfg convolve.Config) error {
	for i := range pl.chunks {
		c := &pl.chunks[i]
		b, err := variants.PlanOn(inner, pl.devs[c.dev].d, pl.pt.Problem(pl.p, c.s), icfg)
		if err != nil {
			return fmt.Errorf("chunk %d (rows %d to %d) on device %d: %w", i, c.s.Y0, c.s.Y1-1, pl.opts.Devices[c.dev], err)
		}
		c.b = b
	}
	return nil
}

// chunkInputs sets each chunk's input geometry, with the row stride its
// plan reads, and allocates a host staging image for the chunks whose
// plan copies its input itself or takes it on the host.
func (pl *plan) chunkInputs() error {
	for i := range pl.chunks {
		c := &pl.chunks[i]
		c.in = pl.pt.Problem(pl.p, c.s).Input
		if st := c.b.InStride(); st != c.in.RowStride() {
			c.in.Stride = st // padded rows, filled by the copies here
		} else if c.b.CopyIn != nil || c.b.In == 0 {
			var err error
			if c.host, err = convolve.NewImage(c.in); err != nil {
				return err
			}
		}
	}
	return nil
}

// assign gives the slabs of pl.pt to the devices in contiguous runs, and
// within each device to its streams in turn.
func (pl *plan) assign() {
	n := len(pl.pt.Slabs)
	pl.chunks = make([]chunk, n)
	for _, dv := range pl.devs {
		dv.chunks = nil
	}
	for i, s := range pl.pt.Slabs {
		dev := i * len(pl.devs) / n
		dv := pl.devs[dev]
		pl.chunks[i] = chunk{s: s, dev: dev, stream: len(dv.chunks) % pl.opts.Streams}
		dv.chunks = append(dv.chunks, i)
	}
}

// deviceLimit is the most slab-buffer bytes one logical device may
// hold: the cap, and no more than its share of 90% of its GPU's free
// memory (the logical devices of one GPU share it evenly). A variant
// whose name fixes a cap ("gpu-stream<limit>-") always streams;
// otherwise the image is streamed when a device's one-shot slabs exceed
// the limit.
func (pl *plan) deviceLimit() (int64, error) {
	limit := pl.opts.MemCap
	perGPU := map[int]int{}
	for _, o := range pl.opts.Devices {
		perGPU[o]++
	}
	for i, dv := range pl.devs {
		var free int64
		err := dv.d.Do(func(x *cudabind.Exec) error {
			var err error
			free, _, err = x.MemInfo()
			return err
		})
		if err != nil {
			continue // the driver cannot say: the allocations decide
		}
		if f := free / 10 * 9 / int64(perGPU[pl.opts.Devices[i]]); limit == 0 || f < limit {
			limit = f
		}
	}
	if limit == 0 {
		limit = 1 << 62
	}
	return limit, nil
}

// bufBytes is the size of the input and output buffers of a plan of
// slab s.
func (pl *plan) bufBytes(s slab.Slab) int64 {
	sub := pl.pt.Problem(pl.p, s)
	in, out := sub.Input, sub.OutputGeometry()
	return convolve.MulBytes(int64(in.Len()), int64(in.Type.Size())) + convolve.MulBytes(int64(out.Len()), int64(out.Type.Size()))
}

// oneShotBytes is the most slab-buffer bytes one device holds in
// one-shot mode.
func (pl *plan) oneShotBytes() int64 {
	var most int64
	for _, dv := range pl.devs {
		var n int64
		for _, ci := range dv.chunks {
			n += pl.bufBytes(pl.chunks[ci].s)
		}
		most = max(most, n)
	}
	return most
}

// streamRows returns the output rows of each slab of p streamed under a
// cap of limit bytes per device: two slabs' input and output buffers,
// halo rows included, fit in it. It is at most the image's height, and a
// *convolve.MemoryError for device memory when not even one row fits.
func streamRows(p convolve.Problem, limit int64) (int, error) {
	if err := p.Validate(); err != nil {
		return 0, err
	}
	_, kh := p.KernelSize()
	halo := int64(kh - 1)
	in, out := p.Input.Packed(), p.OutputGeometry()
	in.Height, out.Height = 1, 1
	perRow := convolve.MulBytes(int64(in.Len()), int64(in.Type.Size())) + convolve.MulBytes(int64(out.Len()), int64(out.Type.Size()))
	rows := limit/2/perRow - halo
	if rows < 1 {
		return 0, &convolve.MemoryError{Memory: "device",
			What:   fmt.Sprintf("two slab buffers of 1 row and %d halo rows of %v", halo, p),
			Needed: convolve.MulBytes(2, perRow, 1+halo), Available: limit}
	}
	return int(min(rows, int64(p.Input.Height))), nil
}

// streamPartition divides the image into slabs of StreamRows under limit,
// every slab's input of one height (the slabs at the image's edges take
// more rows of the image than their halos, computed and dropped), so that
// two plans per device serve them all.
func (pl *plan) streamPartition(limit int64) error {
	rows, err := streamRows(pl.p, limit)
	if err != nil {
		return err
	}
	pt, err := slab.DivideRows(pl.p, rows)
	if err != nil {
		return err
	}
	height := rows + pt.Above + pt.Below
	if pl.p.Border == convolve.Zero {
		height = min(height, pt.Height)
	}
	for i := range pt.Slabs {
		s := &pt.Slabs[i]
		if pl.p.Border == convolve.Zero {
			s.In0 = max(0, min(s.In0, s.In1-height))
			s.In1 = s.In0 + height
		} else if s.InputRows() < height {
			s.In0 = s.In1 - height
		}
	}
	pl.pt, pl.stream = pt, true
	pl.assign()
	return nil
}

// Partition returns the slabs the plan runs, top to bottom. The caller
// must not change it.
func (pl *plan) Partition() *slab.Partition { return pl.pt }

// Streaming reports whether the plan streams its slabs through two
// buffer pairs per device (the image does not fit under the cap).
func (pl *plan) Streaming() bool { return pl.stream }

// Devices returns the ordinals of the plan's logical devices.
func (pl *plan) Devices() []int { return append([]int(nil), pl.opts.Devices...) }

func (pl *plan) usable() error {
	if pl.closed {
		return fmt.Errorf("gpuslab: %s: %w", pl.name, convolve.ErrClosed)
	}
	return nil
}

// Run copies in to the devices, filters and copies the output back into
// out: each device runs its chunks over its streams in turn, every chunk's
// upload, kernel and download in order on its stream, so that the copies
// of one chunk overlap the kernels of the others.
func (pl *plan) Run(in, out *convolve.Image) error {
	return pl.run(in, out, false)
}

// run is Run, recording the timeline's events when timed is set.
func (pl *plan) run(in, out *convolve.Image, timed bool) error {
	if err := pl.usable(); err != nil {
		return err
	}
	if err := pl.p.CheckRun(pl.name, in, out, pl.finite); err != nil {
		return err
	}
	if !pl.stream {
		pl.res.loaded = false // the chunk buffers now hold this run's data
	}
	err := pl.eachDevice(func(di int, dv *device, x *cudabind.Exec) error {
		if timed {
			if err := x.Record(dv.ref, dv.streams[0]); err != nil {
				return err
			}
		}
		for k, ci := range dv.chunks {
			var ev *[4]cudabind.Event
			if timed {
				ev = &dv.ev[k]
			}
			if err := pl.runChunk(x, ci, dv.streams[pl.chunks[ci].stream], in, out, ev); err != nil {
				return err
			}
		}
		return syncStreams(x, dv)
	})
	if err != nil {
		return fmt.Errorf("gpuslab: %s: %w", pl.name, err)
	}
	return nil
}

// eachDevice runs f on every device's executor concurrently and joins
// the errors.
func (pl *plan) eachDevice(f func(di int, dv *device, x *cudabind.Exec) error) error {
	errs := make([]error, len(pl.devs))
	var wg sync.WaitGroup
	for i, dv := range pl.devs {
		wg.Go(func() {
			if err := dv.d.Do(func(x *cudabind.Exec) error { return f(i, dv, x) }); err != nil {
				errs[i] = fmt.Errorf("device %d (logical %d): %w", pl.opts.Devices[i], i, err)
			}
		})
	}
	wg.Wait()
	return errors.Join(errs...)
}

// eachChunk runs f on every chunk of each device in turn on the device's
// executor, the devices concurrently (eachDevice), and then, with sync
// and no error, waits for the device's streams.
func (pl *plan) eachChunk(sync bool, f func(x *cudabind.Exec, dv *device, ci int) error) error {
	return pl.eachDevice(func(_ int, dv *device, x *cudabind.Exec) error {
		for _, ci := range dv.chunks {
			if err := f(x, dv, ci); err != nil {
				return err
			}
		}
		if sync {
			return syncStreams(x, dv)
		}
		return nil
	})
}

// syncStreams waits for every stream of dv.
func syncStreams(x *cudabind.Exec, dv *device) error {
	for _, s := range dv.streams {
		if err := x.StreamSync(s); err != nil {
			return err
		}
	}
	return nil
}

func record(x *cudabind.Exec, ev *[4]cudabind.Event, i int, s cudabind.Stream) error {
	if ev == nil {
		return nil
	}
	return x.Record(ev[i], s)
}

// runChunk enqueues chunk ci on stream s: the uploads of its input rows
// (Partition.Copies), the wrapped plan's kernels and the download of its
// output rows.
func (pl *plan) runChunk(x *cudabind.Exec, ci int, s cudabind.Stream, in, out *convolve.Image, ev *[4]cudabind.Event) error {
	c := &pl.chunks[ci]
	if err := record(x, ev, 0, s); err != nil {
		return err
	}
	if c.host != nil {
		// The wrapped plan copies its input itself, synchronously.
		for r := range c.s.InputRows() {
			copyHostRow(c.host, r, in, pl.pt.Source(c.s, r))
		}
		if err := x.StreamSync(s); err != nil {
			return err
		}
		if err := c.b.CopyIn(x, c.host); err != nil {
			return err
		}
	} else {
		for _, cp := range pl.pt.Copies(ci) {
			if err := hostToDevice(x, c.b.In, c.in, cp.Dst, in, cp.Src, cp.Rows, s); err != nil {
				return err
			}
		}
	}
	if err := record(x, ev, 1, s); err != nil {
		return err
	}
	if err := c.b.Enqueue(x, s); err != nil {
		return err
	}
	if err := record(x, ev, 2, s); err != nil {
		return err
	}
	if err := deviceToHost(x, out, c.s.Y0, c.b.Out, c.b.OutGeometry(), c.s.Top(), c.s.Rows(), s); err != nil {
		return err
	}
	return record(x, ev, 3, s)
}

// planes is the number of separately stored row sequences of g.
func planes(g convolve.Geometry) int {
	if g.Layout == convolve.Planar {
		return g.Channels
	}
	return 1
}

// hostToDevice copies rows rows of every plane of the host image im from
// row src on into the device image of geometry g at dev, from row dst on,
// on stream s.
func hostToDevice(x *cudabind.Exec, dev cudabind.DevPtr, g convolve.Geometry, dst int, im *convolve.Image, src, rows int, s cudabind.Stream) error {
	return copyRows(x, true, dev, g, dst, im, src, rows, s)
}

// deviceToHost copies rows rows of every plane of the packed device image
// of geometry g at dev, from row src on, into the host image im from row
// dst on, on stream s.
func deviceToHost(x *cudabind.Exec, im *convolve.Image, dst int, dev cudabind.DevPtr, g convolve.Geometry, src, rows int, s cudabind.Stream) error {
	return copyRows(x, false, dev, g, src, im, dst, rows, s)
}

// copyRows copies rows rows of every plane between the device image of
// geometry g at dev, from row devRow on, and the host image im, from row
// hostRow on, to the device when toDevice, on stream s: one copy per plane
// when the rows of both are packed, one per row otherwise.
func copyRows(x *cudabind.Exec, toDevice bool, dev cudabind.DevPtr, g convolve.Geometry, devRow int, im *convolve.Image, hostRow, rows int, s cudabind.Stream) error {
	es := int64(g.Type.Size())
	n, bytes := rows, int64(g.RowElems())*es
	if im.RowStride() == g.RowElems() && g.RowStride() == g.RowElems() {
		n, bytes = 1, int64(rows)*bytes
	}
	base := variants.HostData(im)
	for c := range planes(g) {
		for r := range n {
			h := unsafe.Add(base, int64(im.Offset(0, hostRow+r, c))*es)
			d := dev.Add(int64(g.Offset(0, devRow+r, c)) * es)
			var err error
			if toDevice {
				err = x.CopyHtoDAsync(d, h, bytes, s)
			} else {
				err = x.CopyDtoHAsync(h, d, bytes, s)
			}
			if err != nil {
				return err
			}
		}
	}
	return nil
}

// copyHostRow copies image row sy of src into row dy of dst, every
// channel (an element at a time: the path of wrapped plans that copy
// their input themselves).
func copyHostRow(dst *convolve.Image, dy int, src *convolve.Image, sy int) {
	for c := range dst.Channels {
		for x := range dst.Width {
			dst.Set(x, dy, c, src.At(x, sy, c))
		}
	}
}

// Close releases the wrapped plans, the streams and events and the
// logical devices; a second Close returns an error wrapping
// convolve.ErrClosed.
func (pl *plan) Close() error {
	if pl.closed {
		return fmt.Errorf("gpuslab: %s: Close: %w", pl.name, convolve.ErrClosed)
	}
	pl.closed = true
	return pl.release()
}

// release frees what prepare allocated, whatever it got to.
func (pl *plan) release() error {
	var errs []error
	seen := map[*variants.Base]bool{}
	for _, c := range pl.chunks {
		if c.b != nil && !seen[c.b] {
			seen[c.b] = true
			errs = append(errs, c.b.Close())
		}
	}
	for _, pair := range pl.bases {
		for _, b := range pair {
			if b != nil && !seen[b] {
				seen[b] = true
				errs = append(errs, b.Close())
			}
		}
	}
	errs = append(errs, pl.res.release(pl))
	for _, dv := range pl.devs {
		errs = append(errs, dv.d.Do(func(x *cudabind.Exec) error {
			var errs []error
			for _, s := range dv.streams {
				errs = append(errs, x.DestroyStream(s))
			}
			if dv.ref != 0 {
				errs = append(errs, x.DestroyEvent(dv.ref))
			}
			for _, ev := range dv.ev {
				for _, e := range ev {
					errs = append(errs, x.DestroyEvent(e))
				}
			}
			return errors.Join(errs...)
		}))
		errs = append(errs, dv.d.Close())
	}
	pl.chunks, pl.bases, pl.devs = nil, nil, nil
	return errors.Join(errs...)
}

var _ convolve.DevicePlan = (*plan)(nil)
