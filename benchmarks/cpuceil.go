package benchmarks

import (
	"runtime"
	"sync"
	"time"
)

// CPUCeilings are this host's CPU limits, measured before the CPU cases
// run, that a CPU case's GB/s and GFLOP/s are read against.
type CPUCeilings struct {
	Threads int // GOMAXPROCS and goroutines of both measurements
	// CopyGBps is the best rate of copy over a float32 buffer split into
	// one part per goroutine: bytes read plus bytes written, per second.
	CopyGBps float64
	// ScalarGFLOPs is the best rate of a pure-Go float32 multiply-add
	// loop with several independent accumulators on every goroutine,
	// counting a multiply-add as two operations. It is the cores' scalar
	// rate: cpu-fast's vector passes can exceed it.
	ScalarGFLOPs float64
	// FMAGFLOPs is the best rate of a vector fused multiply-add loop in
	// assembly (fmaLoop: eight float32 lanes, twelve independent chains)
	// on every goroutine, counting a fused multiply-add as two
	// operations: the cores' 256-bit float32 peak, the roof of a CPU
	// roofline (a CPU with 512-bit FMA units may reach more, with code
	// this project does not have). It is 0 where the CPU lacks AVX and FMA3 or is not amd64 (not
	// measured).
	FMAGFLOPs float64
}

// The defaults of MeasureCPU: a 64 MiB buffer copied, 2^22 multiply-adds
// per accumulator per goroutine in each loop, best of cpuReps; under
// 0.5 s in all on a 2-core host, most of it filling the buffer.
const (
	cpuCopyBytes = 64 << 20
	cpuMadds     = 1 << 22
	cpuReps      = 3
)

// MeasureCPU measures the copy bandwidth, the scalar multiply-add rate
// and the vector FMA peak with threads goroutines under
// GOMAXPROCS=threads (at least 1).
func MeasureCPU(threads int) CPUCeilings {
	return measureCPU(threads, cpuCopyBytes, cpuMadds, cpuReps)
}

// measureCPU is MeasureCPU over a buffer of copyBytes (rounded down to
// float32s, at least one per goroutine) and madds multiply-adds per
// accumulator per goroutine in the scalar and the vector loop, keeping
// the best of reps repetitions.
func measureCPU(threads, copyBytes, madds, reps int) CPUCeilings {
	threads, reps, madds = max(threads, 1), max(reps, 1), max(madds, 1)
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(threads))
	n := max(copyBytes/4, threads)
	src, dst := make([]float32, n), make([]float32, n)
	for i := range src {
		src[i] = float32(i)
	}
	copy(dst, src) // fault dst's pages in before timing
	var best CPUCeilings
	best.Threads = threads
	for range reps {
		d := parallel(threads, func(w int) {
			lo, hi := w*n/threads, (w+1)*n/threads
			copy(dst[lo:hi], src[lo:hi])
		})
		best.CopyGBps = max(best.CopyGBps, rate(float64(2*4*n), d))
	}
	sums := make([]float32, threads)
	for range reps {
		d := parallel(threads, func(w int) { sums[w] = maddLoop(madds) })
		best.ScalarGFLOPs = max(best.ScalarGFLOPs, rate(float64(threads)*maddAccumulators*2*float64(madds), d))
	}
	runtime.KeepAlive(sums)
	if hasFMALoop {
		accs := make([][fmaLanes]float32, threads)
		for range reps {
			d := parallel(threads, func(w int) { fmaRun(&accs[w], madds) })
			best.FMAGFLOPs = max(best.FMAGFLOPs, rate(float64(threads)*fmaLanes*2*float64(madds), d))
		}
	}
	return best
}

// fmaLanes is the number of float32 values fmaLoop updates per step: 12
// chains of 8 lanes.
const fmaLanes = 96

// fmaRun runs fmaLoop n steps on acc from values that converge to 1, as
// maddLoop's do.
func fmaRun(acc *[fmaLanes]float32, n int) {
	for i := range acc {
		acc[i] = float32(i+1) / fmaLanes
	}
	fmaLoop(acc, 0.999, 0.001, n)
}

// maddAccumulators is the number of independent chains of maddLoop:
// enough to cover the latency of an add on current cores.
const maddAccumulators = 8

// maddLoop runs n multiply-adds on each of maddAccumulators independent
// accumulators, which converge to 1, and returns their sum.
func maddLoop(n int) float32 {
	const m, c = 0.999, 0.001
	a0, a1, a2, a3 := float32(0.1), float32(0.2), float32(0.3), float32(0.4)
	a4, a5, a6, a7 := float32(0.5), float32(0.6), float32(0.7), float32(0.8)
	for range n {
		a0 = a0*m + c
		a1 = a1*m + c
		a2 = a2*m + c
		a3 = a3*m + c
		a4 = a4*m + c
		a5 = a5*m + c
		a6 = a6*m + c
		a7 = a7*m + c
	}
	return a0 + a1 + a2 + a3 + a4 + a5 + a6 + a7
}

// parallel runs f(0) to f(threads-1) on their own goroutines and returns
// the wall time until the last returns.
func parallel(threads int, f func(w int)) time.Duration {
	var wg sync.WaitGroup
	start := time.Now()
	for w := range threads {
		wg.Go(func() { f(w) })
	}
	wg.Wait()
	return time.Since(start)
}

// rate is units per nanosecond of d (units/1e9 per second), or 0 when d is
// not positive.
func rate(units float64, d time.Duration) float64 {
	if d <= 0 {
		return 0
	}
	return units / float64(d.Nanoseconds())
}

// FLOPCounter is a plan that counts the floating-point operations its
// last Run executed, as refimpl's cpu-fast does: a separable filter's two
// passes rather than the problem's nominal 2*KW*KH an output.
type FLOPCounter interface {
	RunFLOPs() int64
}
