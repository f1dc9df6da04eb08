package benchmarks

import "golang.org/x/sys/cpu"

// hasFMALoop is true when this CPU runs fmaLoop: AVX with FMA3.
var hasFMALoop = cpu.X86.HasAVX && cpu.X86.HasFMA

// fmaLoop sets, n times, a = m*a + c (one rounding, a fused
// multiply-add) on each of the fmaLanes values of acc: twelve independent
// chains of eight lanes.
//
//go:noescape
func fmaLoop(acc *[fmaLanes]float32, m, c float32, n int)
