package gpuslab

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/convbench/convbench/convolve"
	"github.com/convbench/convbench/cudabind"
	"github.com/convbench/convbench/runfile"
)

// Link is how halo rows travel from one logical device to another in
// resident mode.
type Link int

const (
	// local is a device-to-device copy within one context: the same
	// logical device, or two logical devices of one GPU.
	local Link = iota
	// peer is cuMemcpyPeerAsync between GPUs with peer access.
	peer
	// staged is a download into pinned host memory on the sending device
	// and an upload from it on the receiving one, between GPUs without
	// peer access.
	staged
)

func (l Link) String() string {
	switch l {
	case local:
		return "local"
	case peer:
		return "peer"
	case staged:
		return "staged"
	}
	return fmt.Sprintf("Link(%d)", int(l))
}

// pull is one copy of resident mode's exchange: bytes from the output
// buffer of chunk from into the input buffer of chunk to (dst), or, for
// a halo (from != to), into the chunk's halo buffer (halo), where timed
// passes put it.
type pull struct {
	from, to int
	src, dst cudabind.DevPtr
	halo     cudabind.DevPtr // 0 for a chunk's own rows
	bytes    int64
	link     Link
	stage    *cudabind.HostBuffer // Staged only, on the sending device
	// staged, for a staged pull, is recorded on the sender's stream when
	// the download into stage is done (an event of the sending device).
	staged cudabind.Event
}

// resident is the state of resident mode: the pulls of one exchange,
// the links between devices, the halo buffers, whether the image was
// uploaded; for a streamed plan, the uploaded image and the output of
// the last timed run, kept on the host.
type resident struct {
	pulls []pull
	links [][]Link // links[to][from] between logical devices
	halos []halo   // the halo buffers, freed on their devices
	// kernels[ci] is recorded on chunk ci's stream after its kernels,
	// pulled[ci] after the exchange's copies into it (events of its
	// device): the exchange waits for the kernels of the chunks it reads,
	// and a chunk's next kernels for the copies that read its output.
	kernels, pulled []cudabind.Event
	// into[ci] and outOf[ci] index the pulls into chunk ci and out of
	// its output.
	into, outOf [][]int
	ready       bool // pulls and links are computed
	loaded      bool
	in          *convolve.Image // streamed plans: the uploaded input
	out         *convolve.Image // streamed plans: the last run's output
}

// halo is a device buffer of halo rows of one chunk.
type halo struct {
	dev int
	p   cudabind.DevPtr
}

// feedback reports whether a pass's output can be the next pass's input:
// then each pass ends with the exchange.
func (pl *plan) feedback() bool { return pl.p.OutputGeometry() == pl.p.Input.Packed() }

// setupResident finds the link between every pair of logical devices
// (enabling peer access where the driver allows it) and lists the
// exchange's copies, with a pinned staging buffer for each one between
// GPUs without peer access.
func (pl *plan) setupResident() error {
	r := &pl.res
	if r.ready {
		return nil
	}
	for _, c := range pl.chunks {
		if c.host != nil {
			return fmt.Errorf("%s copies its input into buffers of its own: its slabs cannot exchange halo rows", pl.name)
		}
	}
	if err := pl.peerLinks(); err != nil {
		return err
	}
	for to := range pl.chunks {
		if err := pl.chunkPulls(to); err != nil {
			return err
		}
	}
	r.into, r.outOf = make([][]int, len(pl.chunks)), make([][]int, len(pl.chunks))
	for i, pu := range r.pulls {
		r.into[pu.to] = append(r.into[pu.to], i)
		r.outOf[pu.from] = append(r.outOf[pu.from], i)
	}
	if err := pl.residentEvents(); err != nil {
		return err
	}
	r.ready = true
	return nil
}

// peerLinks finds the link between each pair of the plan's devices: the
// same context, peer access (enabled here), or copies staged through
// host memory.
func (pl *plan) peerLinks() error {
	r := &pl.res
	r.links = make([][]Link, len(pl.devs))
	for to, dv := range pl.devs {
		r.links[to] = make([]Link, len(pl.devs))
		err := dv.d.Do(func(x *cudabind.Exec) error {
			for from, fv := range pl.devs {
				if dv.d.SameContext(fv.d) {
					r.links[to][from] = local
					continue
				}
				can, err := x.CanAccessPeer(fv.d)
				if err != nil {
					return err
				}
				if can && x.EnablePeerAccess(fv.d) == nil {
					r.links[to][from] = peer
				} else {
					r.links[to][from] = staged
				}
			}
			return nil
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// chunkPulls allocates chunk to's halo buffer and adds its pulls: the
// rows it needs of each chunk's output, a run of rows one copy where the
// input's and the source output's rows are both packed, one copy per row
// where either is padded, each staged copy with its host buffer.
func (pl *plan) chunkPulls(to int) error {
	r := &pl.res
	tc := &pl.chunks[to]
	g := tc.in
	og := pl.pt.Problem(pl.p, tc.s).OutputGeometry()
	es := int64(og.Type.Size())
	var haloBytes int64
	for _, cp := range pl.pt.Copies(to) {
		if cp.From != to {
			haloBytes += int64(cp.Rows) * int64(og.RowElems()) * es * int64(planes(og))
		}
	}
	var hb cudabind.DevPtr
	if haloBytes > 0 {
		err := pl.devs[tc.dev].d.Do(func(x *cudabind.Exec) error {
			var err error
			hb, err = x.Alloc(haloBytes)
			return err
		})
		if err != nil {
			return fmt.Errorf("halo buffer of chunk %d: %w", to, err)
		}
		r.halos = append(r.halos, halo{tc.dev, hb})
	}
	var off int64
	for _, cp := range pl.pt.Copies(to) {
		fc := &pl.chunks[cp.From]
		fg := fc.b.OutGeometry()
		n := cp.Rows
		if g.RowStride() != og.RowElems() || fg.RowStride() != og.RowElems() {
			n = 1
		}
		for c := range planes(og) {
			for k := 0; k < cp.Rows; k += n {
				pu := pull{from: cp.From, to: to,
					src:   fc.b.Out.Add(int64(fg.Offset(0, cp.Src+k-fc.s.In0, c)) * es),
					bytes: int64(n) * int64(og.RowElems()) * es,
					link:  r.links[tc.dev][fc.dev]}
				if pl.feedback() {
					pu.dst = tc.b.In.Add(int64(g.Offset(0, cp.Dst+k, c)) * es)
				}
				if cp.From != to {
					pu.halo = hb.Add(off)
					off += pu.bytes
				}
				if pu.link == staged {
					err := pl.devs[fc.dev].d.Do(func(x *cudabind.Exec) error {
						var err error
						pu.stage, err = x.HostAlloc(pu.bytes)
						return err
					})
					if err != nil {
						return err
					}
				}
				r.pulls = append(r.pulls, pu)
			}
		}
	}
	return nil
}

// residentEvents makes the events of each chunk's kernel and pulls and
// of each staged copy.
func (pl *plan) residentEvents() error {
	r := &pl.res
	r.kernels = make([]cudabind.Event, len(pl.chunks))
	r.pulled = make([]cudabind.Event, len(pl.chunks))
	for ci, c := range pl.chunks {
		err := pl.devs[c.dev].d.Do(func(x *cudabind.Exec) error {
			var err error
			if r.kernels[ci], err = x.NewEvent(); err != nil {
				return err
			}
			r.pulled[ci], err = x.NewEvent()
			return err
		})
		if err != nil {
			return fmt.Errorf("events of chunk %d: %w", ci, err)
		}
	}
	for i := range r.pulls {
		pu := &r.pulls[i]
		if pu.link != staged {
			continue
		}
		err := pl.devs[pl.chunks[pu.from].dev].d.Do(func(x *cudabind.Exec) error {
			var err error
			pu.staged, err = x.NewEvent()
			return err
		})
		if err != nil {
			return fmt.Errorf("event of a staged copy: %w", err)
		}
	}
	return nil
}

// release frees the staging and halo buffers and the events.
func (r *resident) release(pl *plan) error {
	var errs []error
	destroy := func(ci int, e cudabind.Event) {
		if e != 0 {
			errs = append(errs, pl.devs[pl.chunks[ci].dev].d.Do(func(x *cudabind.Exec) error { return x.DestroyEvent(e) }))
		}
	}
	for ci := range r.kernels {
		destroy(ci, r.kernels[ci])
		destroy(ci, r.pulled[ci])
	}
	r.kernels, r.pulled = nil, nil
	for _, pu := range r.pulls {
		destroy(pu.from, pu.staged)
		if pu.stage != nil {
			errs = append(errs, pl.devs[pl.chunks[pu.from].dev].d.Do(func(x *cudabind.Exec) error { return x.FreeHost(pu.stage) }))
		}
	}
	for _, h := range r.halos {
		errs = append(errs, pl.devs[h.dev].d.Do(func(x *cudabind.Exec) error { return x.Free(h.p) }))
	}
	r.pulls, r.halos, r.in, r.out, r.into, r.outOf = nil, nil, nil, nil, nil, nil
	return errors.Join(errs...)
}

// Links returns the link between every pair of logical devices,
// links[to][from], as resident mode's exchange uses them.
func (pl *plan) Links() ([][]Link, error) {
	if err := pl.usable(); err != nil {
		return nil, err
	}
	if err := pl.setupResident(); err != nil {
		return nil, fmt.Errorf("gpuslab: %s: %w", pl.name, err)
	}
	return pl.res.links, nil
}

// Upload copies in to the devices, every chunk's input rows with their
// halos, for resident passes (TimeKernel, Pass). A streamed plan cannot
// keep the image on its devices: it keeps a copy on the host, which
// TimeKernel streams through them.
func (pl *plan) Upload(in *convolve.Image) error {
	if err := pl.usable(); err != nil {
		return err
	}
	if err := in.Check(); err != nil {
		return fmt.Errorf("gpuslab: %s: input: %w", pl.name, err)
	}
	if in.Geometry.Packed() != pl.p.Input.Packed() {
		return fmt.Errorf("gpuslab: %s: input %v does not match the planned %v", pl.name, in.Geometry, pl.p.Input)
	}
	if pl.finite {
		if err := convolve.CheckFiniteImage(in); err != nil {
			return convolve.NameVariant(pl.name, err)
		}
	}
	if pl.stream {
		pl.res.in, pl.res.out = in.Clone(), nil
		pl.res.loaded = true
		return nil
	}
	if err := pl.setupResident(); err != nil {
		return fmt.Errorf("gpuslab: %s: resident mode: %w", pl.name, err)
	}
	err := pl.eachChunk(true, func(x *cudabind.Exec, dv *device, ci int) error {
		c := &pl.chunks[ci]
		for _, cp := range pl.pt.Copies(ci) {
			if err := hostToDevice(x, c.b.In, c.in, cp.Dst, in, cp.Src, cp.Rows, dv.streams[c.stream]); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("gpuslab: %s: upload: %w", pl.name, err)
	}
	pl.res.loaded = true
	return nil
}

// Pass filters the resident image once and makes the output the next
// input: every chunk's kernels on every device, then the exchange, which
// refills every chunk's input, its own rows and its halo rows, from the
// outputs of the chunks that own them, by device copies within a context,
// peer copies between GPUs with peer access, and through pinned host
// memory between GPUs without. The devices are synchronized once, at the
// end; within the pass events order the work (see pass). The output must
// be able to serve as the next input (a Float32 image); after k passes
// Download gives k filterings of the uploaded image.
func (pl *plan) Pass() error {
	if err := pl.usable(); err != nil {
		return err
	}
	if pl.stream || !pl.feedback() {
		return fmt.Errorf("gpuslab: %s: resident passes need the image on the devices and an output that can be the next input (%v gives %v)", pl.name, pl.p.Input, pl.p.OutputGeometry())
	}
	if !pl.res.loaded {
		return fmt.Errorf("gpuslab: %s: a resident pass before Upload", pl.name)
	}
	if err := pl.pass(true); err != nil {
		pl.res.loaded = false
		return fmt.Errorf("gpuslab: %s: %w", pl.name, err)
	}
	if err := pl.syncAll(); err != nil {
		pl.res.loaded = false
		return fmt.Errorf("gpuslab: %s: %w", pl.name, err)
	}
	return nil
}

// pass enqueues every chunk's kernels and then the exchange: every pull
// into the inputs when feedback is set, else the halo pulls alone into the
// halo buffers (a timed pass, which leaves the inputs as uploaded). It
// returns without waiting for the devices; events order the work across
// streams and devices:
//   - a chunk's kernels wait for the previous pass's copies out of its
//     output (pulled of every chunk that reads it), then record kernels;
//   - a staged pull's download runs on the sender's stream after its
//     kernels and records staged;
//   - the copies into a chunk run on its stream after waiting for the
//     kernels (or the staged download) of the chunks they read, then
//     record pulled.
//
// A chunk's kernels and the copies into its input share its stream, so
// they stay in order without events. The kernels of every device are
// enqueued before any exchange, so that every wait names the record of
// this pass.
func (pl *plan) pass(feedback bool) error {
	moves := func(pu pull) bool { return feedback || pu.halo != 0 }
	err := pl.eachChunk(false, func(x *cudabind.Exec, dv *device, ci int) error {
		return pl.enqueueKernels(x, dv.streams[pl.chunks[ci].stream], ci, moves)
	})
	if err != nil {
		return err
	}
	return pl.eachChunk(false, func(x *cudabind.Exec, dv *device, ci int) error {
		return pl.enqueuePulls(x, dv, ci, feedback, moves)
	})
}

// waitOnce makes stream s wait for event e unless it waits for it
// already (waited).
func waitOnce(x *cudabind.Exec, s cudabind.Stream, e cudabind.Event, waited map[cudabind.Event]bool) error {
	if waited[e] {
		return nil
	}
	waited[e] = true
	return x.WaitEvent(s, e)
}

// enqueueKernels enqueues chunk ci's kernels on s, after the previous
// pass's copies out of its output, records kernels, and then the
// downloads of its staged pulls that move, recording staged.
func (pl *plan) enqueueKernels(x *cudabind.Exec, s cudabind.Stream, ci int, moves func(pull) bool) error {
	r := &pl.res
	waited := map[cudabind.Event]bool{}
	for _, i := range r.outOf[ci] {
		pu := r.pulls[i]
		if pu.to != ci && moves(pu) {
			if err := waitOnce(x, s, r.pulled[pu.to], waited); err != nil {
				return err
			}
		}
	}
	if err := pl.chunks[ci].b.Enqueue(x, s); err != nil {
		return err
	}
	if err := x.Record(r.kernels[ci], s); err != nil {
		return err
	}
	for _, i := range r.outOf[ci] {
		pu := r.pulls[i]
		if pu.link == staged && moves(pu) {
			if err := x.CopyDtoHAsync(pu.stage.Ptr(), pu.src, pu.bytes, s); err != nil {
				return err
			}
			if err := x.Record(pu.staged, s); err != nil {
				return err
			}
		}
	}
	return nil
}

// enqueuePulls enqueues the pulls into chunk ci that move, on its stream
// of device dv, each after the kernels (or the staged download) of the
// chunk it reads: into its input with feedback, else into its halo
// buffer. It then records pulled.
func (pl *plan) enqueuePulls(x *cudabind.Exec, dv *device, ci int, feedback bool, moves func(pull) bool) error {
	r := &pl.res
	s := dv.streams[pl.chunks[ci].stream]
	waited := map[cudabind.Event]bool{}
	for _, i := range r.into[ci] {
		pu := r.pulls[i]
		if !moves(pu) {
			continue
		}
		wait := r.kernels[pu.from]
		if pu.link == staged {
			wait = pu.staged
		}
		if pu.from != ci {
			if err := waitOnce(x, s, wait, waited); err != nil {
				return err
			}
		}
		dst := pu.dst
		if !feedback {
			dst = pu.halo
		}
		var err error
		switch pu.link {
		case local:
			err = x.CopyDtoDAsync(dst, pu.src, pu.bytes, s)
		case peer:
			err = x.CopyPeerAsync(dst, dv.d, pu.src, pl.devs[pl.chunks[pu.from].dev].d, pu.bytes, s)
		case staged:
			err = x.CopyHtoDAsync(dst, pu.stage.Ptr(), pu.bytes, s)
		}
		if err != nil {
			return err
		}
	}
	return x.Record(r.pulled[ci], s)
}

// syncAll waits for every stream of every device.
func (pl *plan) syncAll() error {
	return pl.eachDevice(func(_ int, dv *device, x *cudabind.Exec) error { return syncStreams(x, dv) })
}

// TimeKernel runs the device work n times on the uploaded image and
// returns its time. On a resident image one run is an iteration of
// resident filtering: every chunk's kernels, then the halo rows every
// chunk needs from the others copied from their outputs over the links
// between the devices (into halo buffers, so that the uploaded input
// stays and Download gives one filtering, as for every DevicePlan; a
// resident iteration would swap its buffers rather than copy its own
// rows). A streamed plan streams the uploaded image through its devices.
// The time is the host's clock around work that ends with every device
// synchronized, since the devices' events cannot be compared across GPUs;
// the n iterations are enqueued back to back (pass) and the devices
// synchronized once, after the last.
func (pl *plan) TimeKernel(n int) (time.Duration, error) {
	if err := pl.usable(); err != nil {
		return 0, err
	}
	if n < 1 {
		return 0, fmt.Errorf("gpuslab: %s: TimeKernel(%d): need at least one run", pl.name, n)
	}
	if !pl.res.loaded {
		return 0, fmt.Errorf("gpuslab: %s: TimeKernel before Upload", pl.name)
	}
	if pl.stream {
		if pl.res.out == nil {
			out, err := pl.p.NewOutput()
			if err != nil {
				return 0, err
			}
			pl.res.out = out
		}
		t0 := time.Now()
		for range n {
			if err := pl.run(pl.res.in, pl.res.out, false); err != nil {
				return 0, err
			}
		}
		return time.Since(t0), nil
	}
	t0 := time.Now()
	for range n {
		if err := pl.pass(false); err != nil {
			pl.res.loaded = false
			return 0, fmt.Errorf("gpuslab: %s: %w", pl.name, err)
		}
	}
	if err := pl.syncAll(); err != nil {
		pl.res.loaded = false
		return 0, fmt.Errorf("gpuslab: %s: %w", pl.name, err)
	}
	return time.Since(t0), nil
}

// TimeKernelGraph is not offered (the variants declare NoGraphReplay): a
// run spans several executors and a host barrier between its phases,
// which one CUDA graph cannot hold.
func (pl *plan) TimeKernelGraph(n int) (time.Duration, error) {
	return 0, fmt.Errorf("gpuslab: %s: runs over several devices are not replayed from CUDA graphs; time them with TimeKernel (timing=kernel)", pl.name)
}

// Download copies the output of the last run or pass into out.
func (pl *plan) Download(out *convolve.Image) error {
	if err := pl.usable(); err != nil {
		return err
	}
	if err := out.Check(); err != nil {
		return fmt.Errorf("gpuslab: %s: output: %w", pl.name, err)
	}
	if want := pl.p.OutputGeometry(); out.Geometry.Packed() != want {
		return fmt.Errorf("gpuslab: %s: output %v does not match the planned %v", pl.name, out.Geometry, want)
	}
	if !pl.res.loaded {
		return fmt.Errorf("gpuslab: %s: Download before Upload", pl.name)
	}
	if pl.stream {
		if pl.res.out == nil {
			if _, err := pl.TimeKernel(1); err != nil {
				return err
			}
		}
		return out.CopyFrom(pl.res.out)
	}
	err := pl.eachChunk(true, func(x *cudabind.Exec, dv *device, ci int) error {
		c := &pl.chunks[ci]
		return deviceToHost(x, out, c.s.Y0, c.b.Out, c.b.OutGeometry(), c.s.Top(), c.s.Rows(), dv.streams[c.stream])
	})
	if err != nil {
		return fmt.Errorf("gpuslab: %s: download: %w", pl.name, err)
	}
	return nil
}

// Timeline runs the plan once end to end (Run) with events around every
// chunk's upload, kernels and download on its stream, and returns the
// spans, each device's from its own first event, by device, chunk and
// phase; their Case is empty.
func (pl *plan) Timeline(in, out *convolve.Image) ([]runfile.Span, error) {
	if err := pl.usable(); err != nil {
		return nil, err
	}
	err := pl.eachDevice(func(_ int, dv *device, x *cudabind.Exec) error {
		if dv.ref == 0 {
			e, err := x.NewEvent()
			if err != nil {
				return err
			}
			dv.ref = e
		}
		for len(dv.ev) < len(dv.chunks) {
			var ev [4]cudabind.Event
			for i := range ev {
				e, err := x.NewEvent()
				if err != nil {
					for _, e := range ev[:i] {
						x.DestroyEvent(e)
					}
					return err
				}
				ev[i] = e
			}
			dv.ev = append(dv.ev, ev)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("gpuslab: %s: timeline events: %w", pl.name, err)
	}
	if err := pl.run(in, out, true); err != nil {
		return nil, err
	}
	var mu sync.Mutex
	var spans []runfile.Span
	phases := [3]string{"h2d", "kernel", "d2h"}
	err = pl.eachDevice(func(di int, dv *device, x *cudabind.Exec) error {
		for k, ci := range dv.chunks {
			var at [4]time.Duration
			for i, e := range dv.ev[k] {
				d, err := x.Elapsed(dv.ref, e)
				if err != nil {
					return err
				}
				at[i] = d
			}
			mu.Lock()
			for i, ph := range phases {
				spans = append(spans, runfile.Span{Dev: di, GPU: pl.opts.Devices[di], Stream: pl.chunks[ci].stream,
					Chunk: ci, Phase: ph, StartUS: microseconds(at[i]), EndUS: microseconds(at[i+1])})
			}
			mu.Unlock()
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("gpuslab: %s: timeline: %w", pl.name, err)
	}
	slices.SortFunc(spans, func(a, b runfile.Span) int {
		return cmp.Or(cmp.Compare(a.Dev, b.Dev), cmp.Compare(a.Chunk, b.Chunk),
			cmp.Compare(slices.Index(phases[:], a.Phase), slices.Index(phases[:], b.Phase)))
	})
	return spans, nil
}

// microseconds is d in microseconds.
func microseconds(d time.Duration) float64 { return float64(d.Nanoseconds()) / 1e3 }

// WriteTimeline runs the plan once with its timeline (Timeline) and
// writes the timeline line of each span (runfile.Span.Line), label (a
// case's name, without spaces) as its case. Benchmark output carries
// these lines and package results draws them.
func (pl *plan) WriteTimeline(w io.Writer, label string, in, out *convolve.Image) error {
	if label == "" || strings.ContainsAny(label, " \t\n") {
		return fmt.Errorf("gpuslab: %s: timeline label %q: want one word", pl.name, label)
	}
	spans, err := pl.Timeline(in, out)
	if err != nil {
		return err
	}
	for _, s := range spans {
		s.Case = label
		if _, err := fmt.Fprintln(w, s.Line()); err != nil {
			return err
		}
	}
	return nil
}

// Timed is implemented by the family's plans: a run with its timeline.
type Timed interface {
	Timeline(in, out *convolve.Image) ([]runfile.Span, error)
	WriteTimeline(w io.Writer, label string, in, out *convolve.Image) error
}

var _ Timed = (*plan)(nil)
