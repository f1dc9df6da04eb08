package testsum

import (
	"io"
	"slices"
	"strings"
	"testing"
)

// TestReadVerbose reads test binaries' -test.v output and checks the
// counts at every depth, the skip reasons (logged before the result, as
// -test.v prints them, or after it), the failures and the binary's time.
func TestReadVerbose(t *testing.T) {
	for _, tt := range []struct {
		name                 string
		out                  string
		failed               bool
		pass, fail, skip     int
		wantSummary, notWant []string
	}{{
		name: "nested results",
		out: `=== RUN   TestA
--- PASS: TestA (0.00s)
=== RUN   TestB
    --- PASS: TestB/x (0.00s)
    --- SKIP: TestB/y (0.00s)
        --- SKIP: TestB/y/z (0.00s)
        --- FAIL: TestB/y/w (0.00s)
--- FAIL: TestB (0.00s)
--- SKIP: TestC (0.00s)
FAIL
`,
		failed: true, pass: 2, fail: 2, skip: 3,
		wantSummary: []string{"failed: m/p.TestB, m/p.TestB/y/w\n"},
	}, {
		name: "skip reasons before and after the result",
		out: `=== RUN   TestGPU
    gpu_test.go:23: cudabind: libcuda.so.1 unavailable: cannot be opened
--- SKIP: TestGPU (0.00s)
=== RUN   TestCompile
--- SKIP: TestCompile (0.00s)
    compile_test.go:97: no NVRTC: cudabind: libnvrtc unavailable
=== RUN   TestOdd
=== PAUSE TestOdd
=== CONT  TestOdd
    odd_test.go:5: not on this OS
--- SKIP: TestOdd (0.00s)
PASS
`,
		skip:        3,
		wantSummary: []string{"3 skipped (1 for want of a GPU, 1 for want of NVRTC, 1 for other reasons)"},
	}, {
		name: "a line that only looks like a result",
		out: `=== RUN   TestLog
    log_test.go:9: --- PASS: TestFake (99.00s)
--- PASS: TestLog (0.10s)
PASS
`,
		pass: 1, notWant: []string{"TestFake"},
	}, {
		name:   "a binary that failed outside any test",
		out:    "=== RUN   TestA\n--- PASS: TestA (0.00s)\npanic: test timed out after 10m0s\n",
		failed: true, pass: 1, fail: 1,
		wantSummary: []string{"failed: m/p (the test binary failed outside any test)\n"},
	}, {
		name: "benchmark results without times",
		out:  "--- FAIL: BenchmarkConv/variant=gpu-x/size=8x8\n    bench_test.go:1: refused\nBenchmarkConv/variant=gpu-y 1 100 ns/op\n",
		fail: 1, failed: true,
	}} {
		t.Run(tt.name, func(t *testing.T) {
			s := New(io.Discard)
			if err := s.ReadVerbose("m/p", strings.NewReader(tt.out), 7, tt.failed); err != nil {
				t.Fatal(err)
			}
			if p, f, k := s.Counts(); p != tt.pass || f != tt.fail || k != tt.skip {
				t.Errorf("counts %d passed, %d failed, %d skipped; want %d, %d, %d", p, f, k, tt.pass, tt.fail, tt.skip)
			}
			var sum strings.Builder
			s.Print(&sum)
			for _, w := range tt.wantSummary {
				if !strings.Contains(sum.String(), w) {
					t.Errorf("summary lacks %q:\n%s", w, sum.String())
				}
			}
			for _, w := range tt.notWant {
				if strings.Contains(sum.String(), w) {
					t.Errorf("summary has %q:\n%s", w, sum.String())
				}
			}
			if !strings.Contains(sum.String(), "slowest packages:\n     7.00s  m/p\n") {
				t.Errorf("summary lacks the binary's time:\n%s", sum.String())
			}
		})
	}
}

// TestReadVerboseSlowest reads two binaries' output and checks the
// slowest top-level tests: a parent as long as its longest subtest, its
// result printed before or after theirs; skips, tests that did not end
// and log lines left out.
func TestReadVerboseSlowest(t *testing.T) {
	s := New(io.Discard)
	for _, b := range []struct{ pkg, out string }{
		{"m/convolve", `=== RUN   TestC1
--- PASS: TestC1 (3.00s)
=== RUN   TestC2
    --- PASS: TestC2/x (0.40s)
--- PASS: TestC2 (0.50s)
--- SKIP: TestSkip (9.00s)
PASS
`},
		{"m/variants", `=== RUN   TestPar
--- PASS: TestPar (0.00s)
    --- PASS: TestPar/a (7.25s)
        --- PASS: TestPar/a/deep (7.00s)
    --- PASS: TestPar/b (1.00s)
=== RUN   TestSeq
    --- PASS: TestSeq/a (1.50s)
--- PASS: TestSeq (0.30s)
=== RUN   TestTimedOut
    --- PASS: TestTimedOut/a (30.00s)
    variants_test.go:9: --- PASS: TestFake (99.00s)
--- FAIL: TestBroken (2.00s)
FAIL
`},
	} {
		if err := s.ReadVerbose(b.pkg, strings.NewReader(b.out), 1, false); err != nil {
			t.Fatal(err)
		}
	}
	got := slowest(s.testTimes(), nil, slowTests)
	want := []timing{{"m/variants", "TestPar", 7.25}, {"m/convolve", "TestC1", 3}, {"m/variants", "TestBroken", 2},
		{"m/variants", "TestSeq", 1.5}, {"m/convolve", "TestC2", 0.5}}
	if !slices.Equal(got, want) {
		t.Errorf("slowest tests %v, want %v", got, want)
	}
}
