package variants

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/convbench/convbench/convolve"
	"github.com/convbench/convbench/cudabind"
	"github.com/convbench/convbench/cudabind/cudnn"
)

// The cuDNN peers, cudnn and cudnn-tf32: cuDNN 9's forward convolution
// (package cudnn, loaded at run time) with the fastest of its candidate
// algorithms, over the input as the host lays it out: one batch of
// single-channel float32 planes (NCHW, N = channels, C = 1), zero padding
// of KW/2 and KH/2 (Zero is the one border), stride 1, CROSS_CORRELATION
// or CONVOLUTION for the two modes.
//
// The algorithm is chosen at plan time: cuDNN's heuristic ranking gives
// the candidates, and the peer times on the plan's own buffers each that
// is deterministic, runs with an allowed math type and computes a direct
// sum of products (IMPLICIT_GEMM, IMPLICIT_PRECOMP_GEMM, GEMM, DIRECT; see
// cudnnState.search). FFT, FFT_TILING and Winograd are left out: no error
// model a peer could declare bounds them. The tunable algo asks for one
// algorithm instead. A problem with no usable algorithm is refused with a
// *convolve.CapabilityError listing the results. The search's results are
// kept per device and problem shape for the life of the process, so that
// every plan of one shape gives the same bits; the plan reports its
// algorithm as the tunable algo in Setting and SettingSource.
//
// cudnn sets CUDNN_FMA_MATH (float32 fused multiply-adds, no tensor cores)
// and declares the Direct model. cudnn-tf32 sets CUDNN_TENSOR_OP_MATH
// (never ..._ALLOW_CONVERSION, which may convert to half precision) and
// declares TF32; TestCUDNNTF32Rounding measures on a GPU whether cuDNN
// rounds the operands to nearest, as the model assumes.
//
// Both declare FiniteInput: cuDNN's kernels are not published, so nothing
// says NaN and infinities propagate as in the reference. NoFMA and
// FastMath, compile options of this module's kernels, are accepted and
// change nothing; the peers accept defaultBlock alone, so that one case is
// not timed again under other names. The forward call enqueues on the
// plan's stream, so TimeKernel and TimeKernelGraph time cuDNN's kernels
// alone.
func init() {
	convolve.Register(&cudnnPeer{
		desc: convolve.Description{Name: "cudnn",
			Summary: "NVIDIA cuDNN forward convolution, FP32 (FMA math), the fastest of its direct-sum candidates on the problem (library peer)",
			Caps:    cudnnCaps(convolve.Direct)},
		math:  cudnn.FMAMath,
		maths: []cudnn.MathType{cudnn.FMAMath},
	})
	convolve.Register(&cudnnPeer{
		desc: convolve.Description{Name: "cudnn-tf32",
			Summary: "NVIDIA cuDNN forward convolution with TF32 tensor cores allowed, the fastest of its direct-sum candidates on the problem (library peer)",
			Caps:    cudnnCaps(convolve.TF32)},
		math:  cudnn.TensorOpMath,
		maths: []cudnn.MathType{cudnn.TensorOpMath, cudnn.DefaultMath, cudnn.FMAMath},
	})
}

// tunableAlgo is the cuDNN peers' tunable: the forward algorithm to run
// instead of the search's choice.
const tunableAlgo = "algo"

func cudnnCaps(m convolve.ErrorModel) convolve.Capabilities {
	return convolve.Capabilities{
		Ops:         []convolve.Operation{convolve.Filter2D},
		Types:       []convolve.ElemType{convolve.Float32},
		Channels:    []int{1, 2, 3, 4},
		Layouts:     []convolve.Layout{convolve.Planar},
		Borders:     []convolve.Border{convolve.Zero},
		GPU:         true,
		FixedBlocks: []convolve.Block{defaultBlock},
		Tunables:    []string{tunableAlgo},
		FiniteInput: true,
		Accuracy:    m,
	}
}

// cudnnPeer is one cuDNN peer: the math type its convolution descriptor
// sets and the math types of the search results it may run.
type cudnnPeer struct {
	desc  convolve.Description
	math  cudnn.MathType
	maths []cudnn.MathType
}

func (v *cudnnPeer) Describe() convolve.Description { return v.desc }

// cudnnConv is the cudnn.Conv2D of problem p under math type m.
func cudnnConv(p convolve.Problem, m cudnn.MathType) cudnn.Conv2D {
	in := p.Input
	row := in.RowStride()
	return cudnn.Conv2D{Batch: in.Channels, Width: in.Width, Height: in.Height,
		RowStride: row, PlaneStride: in.Height * row,
		KW: p.Filter.Width, KH: p.Filter.Height, Correlate: p.Mode == convolve.Correlate, Math: m}
}

// forcedAlgo returns the algorithm cfg asks for, or -1, and refuses a
// value that is not a direct-sum algorithm.
func (v *cudnnPeer) forcedAlgo(cfg convolve.Config) (cudnn.Algo, error) {
	n, ok := cfg.Tunables[tunableAlgo]
	if !ok {
		return -1, nil
	}
	a := cudnn.Algo(n)
	if n < 0 || n >= cudnn.AlgoCount || !a.DirectSum() {
		return -1, &convolve.CapabilityError{Variant: v.desc.Name, What: "tunable",
			Value: fmt.Sprintf("algo=%d (%v): want a direct-sum algorithm, %d (IMPLICIT_GEMM), %d (IMPLICIT_PRECOMP_GEMM), %d (GEMM) or %d (DIRECT)",
				n, a, cudnn.AlgoImplicitGEMM, cudnn.AlgoImplicitPrecompGEMM, cudnn.AlgoGEMM, cudnn.AlgoDirect)}
	}
	return a, nil
}

// usable reports whether the peer may run search result r: it succeeded,
// is deterministic, is a direct sum and ran with one of the peer's math
// types.
func (v *cudnnPeer) usable(r cudnn.AlgoPerf) bool {
	return r.Status == cudnn.StatusSuccess && r.Deterministic == 1 && r.Algo.DirectSum() && slices.Contains(v.maths, r.MathType)
}

// choose returns the result the plan runs: the first (fastest) usable
// one, or the first usable one of the forced algorithm when forced >= 0.
func (v *cudnnPeer) choose(found []cudnn.AlgoPerf, forced cudnn.Algo) (cudnn.AlgoPerf, bool) {
	for _, r := range found {
		if v.usable(r) && (forced < 0 || r.Algo == forced) {
			return r, true
		}
	}
	return cudnn.AlgoPerf{}, false
}

// cudnnSearchWorkspace is the most device memory, in bytes, a candidate
// of the cuDNN peers' search may need as workspace (half the free memory
// when that is less); a candidate that needs more is not timed.
const cudnnSearchWorkspace = 1 << 30

// cudnnTimedRuns is how many runs the search times per candidate after
// one untimed run; a candidate whose untimed run takes longer than
// cudnnLongRun is timed by that run alone.
const (
	cudnnTimedRuns = 3
	cudnnLongRun   = 100 * time.Millisecond
)

// cudnnState is what the cuDNN peers keep per device: one handle, and the
// search's results per problem shape.
type cudnnState struct {
	mu      sync.Mutex
	handles map[*cudabind.Device]cudnn.Handle
	found   map[cudnnKey]cudnnSearch
}

type cudnnKey struct {
	dev  *cudabind.Device
	conv cudnn.Conv2D
}

// cudnnSearch is one search's results, fastest timed candidate first,
// then the candidates that were not timed (with their status), and the
// wall time the search took.
type cudnnSearch struct {
	perf []cudnn.AlgoPerf
	took time.Duration
}

var cudnnShared = cudnnState{handles: map[*cudabind.Device]cudnn.Handle{}, found: map[cudnnKey]cudnnSearch{}}

// handle returns the device's cuDNN handle, creating it on first use; it
// runs on the device goroutine. The handle lives as long as the process:
// plans share it and set their stream before each call.
func (s *cudnnState) handle(lib *cudnn.Library, d *cudabind.Device) (cudnn.Handle, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if h, ok := s.handles[d]; ok {
		return h, nil
	}
	h, err := lib.NewHandle()
	if cudnn.Unusable(err) {
		// A sub-library cuDNN could not load, or a GPU, driver or
		// runtime it does not support: cuDNN cannot run here.
		return 0, &cudabind.UnavailableError{Lib: "libcudnn", Reason: lib.Name + ": " + err.Error()}
	}
	if err != nil {
		return 0, err
	}
	s.handles[d] = h
	return h, nil
}

// search returns the search's results for cv on b's device, searching
// on the first call for its shape; it runs on the device goroutine x with
// the handle h bound to b's stream. The candidates are cuDNN's heuristic
// ranking (cudnnGetConvolutionForwardAlgorithm_v7); those the peer may
// run (usable) and whose workspace fits cudnnSearchWorkspace are timed on
// the plan's own buffers (one untimed run, then cudnnTimedRuns between
// CUDA events), and the fastest comes first. cuDNN's own timed search,
// cudnnFindConvolutionForwardAlgorithm(Ex), is not used: it times every
// algorithm, and FFT_TILING alone, which no peer may run, takes about a
// minute a run for a 31x31 filter over 4096x4096 on an H100.
func (s *cudnnState) search(x *cudabind.Exec, b *Base, h cudnn.Handle, cv *cudnn.Convolution, weights cudabind.DevPtr, usable func(cudnn.AlgoPerf) bool) (cudnnSearch, error) {
	k := cudnnKey{b.Dev, cv.Conv2D}
	s.mu.Lock()
	r, ok := s.found[k]
	s.mu.Unlock()
	if ok {
		return r, nil
	}
	t0 := time.Now()
	cands, err := cv.Heuristics(h)
	if err != nil {
		return r, err
	}
	limit := int64(cudnnSearchWorkspace)
	if free, _, err := x.MemInfo(); err == nil && free/2 < limit {
		limit = free / 2
	}
	var timed, rest []cudnn.AlgoPerf
	for _, c := range cands {
		if !usable(c) {
			rest = append(rest, c)
			continue
		}
		t, ws, err := timeCandidate(x, b, h, cv, weights, c, limit)
		var ce *cudnn.Error
		if errors.As(err, &ce) {
			// cuDNN refused the candidate it proposed: keep its status,
			// as its own search would.
			c.Status = ce.Status
			rest = append(rest, c)
			continue
		}
		if err != nil {
			return r, fmt.Errorf("timing %v under %v: %w", c.Algo, c.MathType, err)
		}
		c.Memory = uint64(ws)
		if t < 0 {
			c.Status = cudnn.StatusNotSupported // its workspace does not fit
			rest = append(rest, c)
			continue
		}
		c.Time = float32(t.Seconds() * 1e3)
		timed = append(timed, c)
	}
	if err := cv.SetMath(cv.Conv2D.Math); err != nil {
		return r, err
	}
	slices.SortStableFunc(timed, func(a, b cudnn.AlgoPerf) int { return cmp.Compare(a.Time, b.Time) })
	r = cudnnSearch{perf: append(timed, rest...), took: time.Since(t0)}
	s.mu.Lock()
	s.found[k] = r
	s.mu.Unlock()
	return r, nil
}

// timeCandidate times c on b's buffers: its workspace (returned, in
// bytes) allocated for the purpose, one untimed run, then cudnnTimedRuns
// runs between events on b's stream, or the untimed run alone when it
// took longer than cudnnLongRun. It returns a negative time when the
// workspace exceeds limit.
func timeCandidate(x *cudabind.Exec, b *Base, h cudnn.Handle, cv *cudnn.Convolution, weights cudabind.DevPtr, c cudnn.AlgoPerf, limit int64) (time.Duration, int64, error) {
	if err := cv.SetMath(c.MathType); err != nil {
		return 0, 0, err
	}
	wsBytes, err := cv.WorkspaceSize(h, c.Algo)
	if err != nil || wsBytes > limit {
		return -1, wsBytes, err
	}
	var ws cudabind.DevPtr
	if wsBytes > 0 {
		if ws, err = x.Alloc(wsBytes); err != nil {
			return 0, wsBytes, err
		}
		defer x.Free(ws)
		if err := x.MemsetD8(ws, 0, wsBytes); err != nil {
			return 0, wsBytes, err
		}
	}
	start, err := x.NewEvent()
	if err != nil {
		return 0, wsBytes, err
	}
	defer x.DestroyEvent(start)
	stop, err := x.NewEvent()
	if err != nil {
		return 0, wsBytes, err
	}
	defer x.DestroyEvent(stop)
	runs := func(n int) (time.Duration, error) {
		if err := x.Record(start, b.stream); err != nil {
			return 0, err
		}
		for range n {
			if err := cv.Forward(h, c.Algo, uintptr(b.In), uintptr(weights), uintptr(ws), wsBytes, uintptr(b.Out)); err != nil {
				return 0, err
			}
		}
		if err := x.Record(stop, b.stream); err != nil {
			return 0, err
		}
		if err := x.EventSync(stop); err != nil {
			return 0, err
		}
		t, err := x.Elapsed(start, stop)
		return t / time.Duration(n), err
	}
	first, err := runs(1)
	if err != nil || first > cudnnLongRun {
		return first, wsBytes, err
	}
	t, err := runs(cudnnTimedRuns)
	return t, wsBytes, err
}

// Plan checks p and cfg, loads cuDNN (returning its
// *cudabind.UnavailableError when it cannot), opens the device, sets up
// the descriptors, searches (or recalls) the algorithms, allocates the
// chosen one's workspace and uploads the filter.
func (v *cudnnPeer) Plan(p convolve.Problem, cfg convolve.Config) (convolve.Plan, error) {
	if err := v.Supports(p, cfg, convolve.DeviceLimits{}); err != nil {
		return nil, err
	}
	forced, _ := v.forcedAlgo(cfg) // checked by Supports
	conv := cudnnConv(p, v.math)
	lib, err := cudnn.Load()
	if err != nil {
		return nil, fmt.Errorf("variants: %s: %w", v.desc.Name, err)
	}
	b, err := NewBase(v.desc, convolve.Block{}, p, cfg)
	if err != nil {
		return nil, err
	}
	return completePlan(b, func(b *Base) (*cudnnPlan, error) {
		pl := &cudnnPlan{Base: b, forced: forced >= 0}
		return pl, v.setup(pl, lib, conv, forced)
	})
}

func (v *cudnnPeer) setup(pl *cudnnPlan, lib *cudnn.Library, conv cudnn.Conv2D, forced cudnn.Algo) error {
	b := pl.Base
	weights, err := b.UploadFloats(b.Problem.Filter.Weights)
	if err != nil {
		return err
	}
	var (
		h       cudnn.Handle
		cv      *cudnn.Convolution
		ws      cudabind.DevPtr
		wsBytes int64
		choice  cudnn.AlgoPerf
		search  cudnnSearch
	)
	err = b.Dev.Do(func(x *cudabind.Exec) error {
		var err error
		if h, err = cudnnShared.handle(lib, b.Dev); err != nil {
			return err
		}
		if err := lib.SetStream(h, uintptr(b.stream)); err != nil {
			return err
		}
		if cv, err = lib.NewConvolution(conv); err != nil {
			return err
		}
		b.OnClose(func(*cudabind.Exec) error { return cv.Destroy() })
		// The search runs the candidates on the plan's buffers before
		// any input is uploaded: give them defined contents (the memset
		// is ordered before the plan's stream's work, which waits for
		// the legacy stream).
		if err := x.MemsetD8(b.In, 0, b.InBytes); err != nil {
			return err
		}
		found, err := cudnnShared.search(x, b, h, cv, weights, v.usable)
		if err != nil {
			return err
		}
		search = found
		var ok bool
		if choice, ok = v.choose(found.perf, forced); !ok {
			return v.noAlgorithm(conv, found.perf, forced)
		}
		if err := cv.SetMath(choice.MathType); err != nil {
			return err
		}
		if wsBytes, err = cv.WorkspaceSize(h, choice.Algo); err != nil {
			return err
		}
		if wsBytes > 0 {
			if ws, err = b.alloc(x, wsBytes); err != nil {
				return fmt.Errorf("%v workspace: %w", choice.Algo, err)
			}
			if err := x.MemsetD8(ws, 0, wsBytes); err != nil {
				return fmt.Errorf("%v workspace: %w", choice.Algo, err)
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("variants: %s: plan %v: %w", v.desc.Name, b.Problem, named(v.desc.Name, err))
	}
	pl.choice, pl.wsBytes, pl.search = choice, wsBytes, search
	b.Enqueue = func(x *cudabind.Exec, s cudabind.Stream) error {
		if err := lib.SetStream(h, uintptr(s)); err != nil {
			return err
		}
		return cv.Forward(h, choice.Algo, uintptr(b.In), uintptr(weights), uintptr(ws), wsBytes, uintptr(b.Out))
	}
	return nil
}

// noAlgorithm is the error of a search that found nothing the peer may
// run: a *convolve.CapabilityError (cuDNN cannot compute the problem
// under the peer's constraints) naming the algorithm asked for, if any,
// and listing the search's results.
func (v *cudnnPeer) noAlgorithm(conv cudnn.Conv2D, found []cudnn.AlgoPerf, forced cudnn.Algo) error {
	var rs []string
	for _, r := range found {
		rs = append(rs, r.String())
	}
	list := strings.Join(rs, "; ")
	if list == "" {
		list = "no results"
	}
	if forced >= 0 {
		return &convolve.CapabilityError{Variant: v.desc.Name, What: "tunable",
			Value: fmt.Sprintf("algo=%d (%v) for %v: the search found it unusable (%s)", int(forced), forced, conv, list)}
	}
	return &convolve.CapabilityError{Variant: v.desc.Name, What: "problem",
		Value: fmt.Sprintf("%v: the search found no deterministic direct-sum algorithm under %v (%s)", conv, v.maths, list)}
}

// cudnnPlan is a cuDNN peer's plan: Base with the forward call as its
// device work, and the search's choice.
type cudnnPlan struct {
	*Base
	choice  cudnn.AlgoPerf
	wsBytes int64
	forced  bool
	search  cudnnSearch
}

// Setting reports the algorithm as the tunable algo.
func (p *cudnnPlan) Setting() convolve.Setting {
	return convolve.Setting{Tunables: map[string]int{tunableAlgo: int(p.choice.Algo)}}
}

// SettingSource says whether the algorithm was given or searched, with
// the search's figures for it, the workspace the search had and the wall
// time it took (on the first plan of the shape; later plans recall it).
func (p *cudnnPlan) SettingSource() string {
	how := fmt.Sprintf("searched (cuDNN's heuristic candidates timed on the plan's buffers, %.3g s)", p.search.took.Seconds())
	if p.forced {
		how = settingGiven
	}
	src := fmt.Sprintf("%s: %v, %v, %.4g ms in the search, %d bytes of workspace", how, p.choice.Algo, p.choice.MathType, p.choice.Time, p.wsBytes)
	if !p.forced && len(p.search.perf) > 0 {
		src += "; every result: " + listResults(p.search.perf)
	}
	return src
}

// listResults lists a search's results briefly, in order: algorithm,
// math type, and its time, "not timed" (a candidate the peer may not
// run), or the status it failed with.
func listResults(perf []cudnn.AlgoPerf) string {
	rs := make([]string, len(perf))
	for i, r := range perf {
		switch {
		case r.Status == cudnn.StatusSuccess && r.Time >= 0:
			rs[i] = fmt.Sprintf("%v %v %.4g ms", r.Algo, r.MathType, r.Time)
		case r.Status == cudnn.StatusSuccess:
			rs[i] = fmt.Sprintf("%v %v not timed", r.Algo, r.MathType)
		default:
			rs[i] = fmt.Sprintf("%v %v %v", r.Algo, r.MathType, r.Status)
		}
	}
	return strings.Join(rs, ", ")
}

var (
	_ convolve.DevicePlan = (*cudnnPlan)(nil)
	_ convolve.TunedPlan  = (*cudnnPlan)(nil)
)
