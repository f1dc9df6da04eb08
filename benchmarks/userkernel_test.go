package benchmarks_test

import (
	"testing"

	"github.com/convbench/convbench/benchmarks"
	"github.com/convbench/convbench/convolve"
	"github.com/convbench/convbench/convtest"
)

// TestUserKernels proves every kernel the -kernel flags added with the
// whole property suite, one subtest per variant. The benchmarks run it in
// a child process (benchmarks.ProveKernels) before they time a user
// kernel; on its own it is the way to prove a kernel without timing it:
//
//	go test ./benchmarks -run TestUserKernels -args -kernel $PWD/my.cu
func TestUserKernels(t *testing.T) {
	ks := benchmarks.FlagKernels()
	if len(ks) == 0 {
		t.Skip("no -kernel flag given: go test ./benchmarks -run TestUserKernels -args -kernel $PWD/my.cu proves my.cu")
	}
	for _, k := range ks {
		t.Run(k.Spec.Name, func(t *testing.T) {
			v, err := convolve.Lookup(k.Spec.Name)
			if err != nil {
				t.Fatal(err)
			}
			convtest.TestVariantOptions(t, v, convtest.Options{Rerun: "go test ./benchmarks -" + benchmarks.KernelFlagName + "=" + k.Path})
		})
	}
}
