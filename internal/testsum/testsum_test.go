package testsum

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/convbench/convbench/internal/golden"
)

func TestSummary(t *testing.T) {
	const events = `{"Action":"start","Package":"p/gpu"}
{"Action":"run","Package":"p/gpu","Test":"TestGPUSaxpy"}
{"Action":"output","Package":"p/gpu","Test":"TestGPUSaxpy","Output":"=== RUN   TestGPUSaxpy\n"}
{"Action":"output","Package":"p/gpu","Test":"TestGPUSaxpy","Output":"    gpu_test.go:23: cudabind: libcuda.so.1 unavailable: cannot be opened\n"}
{"Action":"skip","Package":"p/gpu","Test":"TestGPUSaxpy"}
{"Action":"output","Package":"p/gpu","Test":"TestKernelsCompile","Output":"    compile_test.go:97: no NVRTC: cudabind: libnvrtc unavailable\n"}
{"Action":"skip","Package":"p/gpu","Test":"TestKernelsCompile"}
{"Action":"output","Package":"p/gpu","Test":"TestAgreement/gpu-naive","Output":"    run_test.go:38: gpu-naive needs a GPU: no device\n"}
{"Action":"skip","Package":"p/gpu","Test":"TestAgreement/gpu-naive"}
{"Action":"pass","Package":"p/gpu","Test":"TestAgreement"}
{"Action":"output","Package":"p/gpu","Test":"TestOdd","Output":"    odd_test.go:5: not on this OS\n"}
{"Action":"skip","Package":"p/gpu","Test":"TestOdd"}
{"Action":"output","Package":"p/gpu","Test":"TestBroken","Output":"    broken_test.go:9: got 2 want 3\n"}
{"Action":"fail","Package":"p/gpu","Test":"TestBroken"}
{"Action":"output","Package":"p/gpu","Output":"PASS\n"}
{"Action":"output","Package":"p/gpu","Output":"FAIL\tp/gpu\t0.01s\n"}
{"Action":"fail","Package":"p/gpu"}
`
	var echo, sum bytes.Buffer
	s := New(&echo)
	if err := s.ReadJSON(strings.NewReader(events)); err != nil {
		t.Fatal(err)
	}
	s.Print(&sum)
	for _, want := range []string{"got 2 want 3", "FAIL\tp/gpu"} {
		if !strings.Contains(echo.String(), want) {
			t.Errorf("echoed output lacks %q:\n%s", want, echo.String())
		}
	}
	if strings.Contains(echo.String(), "libcuda") {
		t.Errorf("echoed the output of a skipped test:\n%s", echo.String())
	}
	for _, want := range []string{
		"tests: 1 passed, 1 failed, 4 skipped (2 for want of a GPU, 1 for want of NVRTC, 1 for other reasons)",
		"NVRTC kernel compile checks: skipped",
		"failed: p/gpu.TestBroken",
	} {
		if !strings.Contains(sum.String(), want) {
			t.Errorf("summary lacks %q:\n%s", want, sum.String())
		}
	}
}

func TestSummaryCompileChecksRan(t *testing.T) {
	const events = `{"Action":"pass","Package":"p","Test":"TestKernelsCompile"}
{"Action":"output","Package":"p","Test":"TestGPUSaxpy","Output":"    gpu_test.go:23: cudabind: libcuda.so.1 unavailable\n"}
{"Action":"skip","Package":"p","Test":"TestGPUSaxpy"}
`
	var sum bytes.Buffer
	s := New(&bytes.Buffer{})
	if err := s.ReadJSON(strings.NewReader(events)); err != nil {
		t.Fatal(err)
	}
	s.Print(&sum)
	if !strings.Contains(sum.String(), "NVRTC kernel compile checks: ran") {
		t.Errorf("summary:\n%s", sum.String())
	}
}

// TestGolden prints the summary of a recorded go test -json stream
// (testdata/events.json: nvrtc from go test's cache, convolve and refimpl
// run, on a host without NVRTC; the output of passing tests and the passes
// of nested subtests trimmed) with a compile log (testdata/compiles.log) as
// main prints it, and compares it with testdata/summary.golden.
func TestGolden(t *testing.T) {
	events, err := os.Open(filepath.Join("testdata", "events.json"))
	if err != nil {
		t.Fatal(err)
	}
	defer events.Close()
	compiles, err := os.Open(filepath.Join("testdata", "compiles.log"))
	if err != nil {
		t.Fatal(err)
	}
	defer compiles.Close()
	var got bytes.Buffer
	s := New(&got)
	if err := s.ReadJSON(events); err != nil {
		t.Fatal(err)
	}
	if err := s.ReadCompiles(compiles); err != nil {
		t.Fatal(err)
	}
	s.Print(&got)
	golden.Check(t, filepath.Join("testdata", "summary.golden"), got.Bytes())
}

// TestSlowest feeds pass, fail and skip events and checks which packages
// and top-level tests count as slowest, in what order.
func TestSlowest(t *testing.T) {
	for _, tc := range []struct {
		name          string
		events        string
		packages      []timing
		tests         []timing
		notPrintedAny bool
	}{{
		name: "subtests and skips left out, fails kept",
		events: `{"Action":"pass","Package":"a/p","Test":"TestA/sub","Elapsed":9}
{"Action":"pass","Package":"a/p","Test":"TestA","Elapsed":3}
{"Action":"fail","Package":"a/p","Test":"TestB","Elapsed":4}
{"Action":"skip","Package":"a/p","Test":"TestC","Elapsed":8}
{"Action":"fail","Package":"a/p","Elapsed":7.5}
`,
		packages: []timing{{pkg: "a/p", secs: 7.5}},
		tests:    []timing{{"a/p", "TestA", 9}, {"a/p", "TestB", 4}},
	}, {
		name: "a test as long as its longest subtest, at any depth",
		events: `{"Action":"pass","Package":"p","Test":"TestPar/a/x","Elapsed":33.8}
{"Action":"pass","Package":"p","Test":"TestPar/a","Elapsed":33.8}
{"Action":"fail","Package":"p","Test":"TestPar/b","Elapsed":12}
{"Action":"pass","Package":"p","Test":"TestPar","Elapsed":0}
{"Action":"pass","Package":"p","Test":"TestParallelNot","Elapsed":1}
{"Action":"pass","Package":"p","Test":"TestSeq/a","Elapsed":1}
{"Action":"pass","Package":"p","Test":"TestSeq","Elapsed":2}
{"Action":"pass","Package":"p","Elapsed":40}
`,
		packages: []timing{{pkg: "p", secs: 40}},
		tests:    []timing{{"p", "TestPar", 33.8}, {"p", "TestSeq", 2}, {"p", "TestParallelNot", 1}},
	}, {
		name: "a parallel parent's result before its subtests'",
		events: `{"Action":"pass","Package":"p","Test":"TestProperties","Elapsed":0}
{"Action":"pass","Package":"p","Test":"TestProperties/gpu-regtile","Elapsed":247.85}
{"Action":"pass","Package":"p","Test":"TestProperties/gpu-sobel","Elapsed":75.24}
{"Action":"pass","Package":"p","Test":"TestOther","Elapsed":1}
{"Action":"pass","Package":"p","Test":"TestTimedOut/sub","Elapsed":500}
{"Action":"pass","Package":"p","Elapsed":391}
`,
		packages: []timing{{pkg: "p", secs: 391}},
		tests:    []timing{{"p", "TestProperties", 247.85}, {"p", "TestOther", 1}},
	}, {
		name: "ties by package then test",
		events: `{"Action":"pass","Package":"b","Test":"TestZ","Elapsed":1}
{"Action":"pass","Package":"b","Test":"TestY","Elapsed":1}
{"Action":"pass","Package":"a","Test":"TestZ","Elapsed":1}
{"Action":"pass","Package":"b","Elapsed":2}
{"Action":"pass","Package":"a","Elapsed":2}
`,
		packages: []timing{{pkg: "a", secs: 2}, {pkg: "b", secs: 2}},
		tests:    []timing{{"a", "TestZ", 1}, {"b", "TestY", 1}, {"b", "TestZ", 1}},
	}, {
		name: "cached packages left out",
		events: `{"Action":"pass","Package":"old","Test":"TestSlow","Elapsed":60}
{"Action":"output","Package":"old","Output":"ok  \told\t(cached)\n"}
{"Action":"pass","Package":"old","Elapsed":0.001}
{"Action":"pass","Package":"new","Test":"TestFast","Elapsed":0.5}
{"Action":"pass","Package":"new","Elapsed":0.6}
`,
		packages: []timing{{pkg: "new", secs: 0.6}},
		tests:    []timing{{"new", "TestFast", 0.5}},
	}} {
		t.Run(tc.name, func(t *testing.T) {
			s := New(io.Discard)
			if err := s.ReadJSON(strings.NewReader(tc.events)); err != nil {
				t.Fatal(err)
			}
			if got := slowest(s.packageTimes, s.cached, slowPackages); !slices.Equal(got, tc.packages) {
				t.Errorf("slowest packages = %v, want %v", got, tc.packages)
			}
			if got := slowest(s.testTimes(), s.cached, slowTests); !slices.Equal(got, tc.tests) {
				t.Errorf("slowest tests = %v, want %v", got, tc.tests)
			}
		})
	}
}

// TestSlowestKeepsN checks that the lists stop at their length.
func TestSlowestKeepsN(t *testing.T) {
	var times []timing
	for i := range 12 {
		times = append(times, timing{pkg: "p", test: fmt.Sprintf("Test%02d", i), secs: float64(i)})
	}
	got := slowest(times, nil, slowTests)
	if len(got) != slowTests || got[0].secs != 11 || got[len(got)-1].secs != 2 {
		t.Errorf("slowest of 12 = %v, want the 10 longest, longest first", got)
	}
}

func TestParseCompile(t *testing.T) {
	for _, tc := range []struct {
		line string
		want compile
		ok   bool
	}{
		{"nvrtc-compile 1.500 a_kernel.cu ok variants", compile{1.5, true, "variants"}, true},
		{"nvrtc-compile 0.250 b.cu error properties", compile{0.25, false, "properties"}, true},
		{"nvrtc-compile 0.250 b.cu error properties\r", compile{0.25, false, "properties"}, true},
		{"# commit abc, gpu: H100", compile{}, false},
		{"nvrtc-compile 0.204 direct.cu ok", compile{}, false}, // before programs were logged
		{"nvrtc-compile fast k.cu ok variants", compile{}, false},
		{"nvrtc-compile -1 k.cu ok variants", compile{}, false},
		{"nvrtc-compile 0.3 k.cu maybe variants", compile{}, false},
		{"nvrtc-compile 0.3 k.cu ok variants extra", compile{}, false},
		{"compile 0.3 k.cu ok variants", compile{}, false},
		{"", compile{}, false},
	} {
		got, ok := parseCompile(tc.line)
		if got != tc.want || ok != tc.ok {
			t.Errorf("parseCompile(%q) = %+v, %v; want %+v, %v", tc.line, got, ok, tc.want, tc.ok)
		}
	}
}

// TestCompilesPrinted checks the kernels line: none, and totals with the
// programs that compiled longest, failed compiles counted.
func TestCompilesPrinted(t *testing.T) {
	for _, tc := range []struct {
		name, log string
		want      []string
		not       []string
	}{{
		name: "none",
		log:  "# commit abc\n",
		want: []string{"kernels compiled: none (no NVRTC on this host, or every kernel came from the cache)\n"},
	}, {
		name: "totals and programs",
		log: "nvrtc-compile 1.000 a.cu ok variants\nnvrtc-compile 2.500 b.cu error variants\n" +
			"nvrtc-compile 0.250 c.cu ok nvrtc\n",
		want: []string{"kernels compiled: 3 in 3.75s (1 failed)\n", "  variants  2 in 3.50s (1 failed)\n", "  nvrtc     1 in 0.25s\n"},
	}, {
		name: "top five programs",
		log: "nvrtc-compile 6 k.cu ok p6\nnvrtc-compile 1 k.cu ok p1\nnvrtc-compile 5 k.cu ok p5\n" +
			"nvrtc-compile 2 k.cu ok p2\nnvrtc-compile 4 k.cu ok p4\nnvrtc-compile 3 k.cu ok p3\n",
		want: []string{"kernels compiled: 6 in 21.00s\n  p6  1 in 6.00s\n  p5  1 in 5.00s\n  p4  1 in 4.00s\n  p3  1 in 3.00s\n  p2  1 in 2.00s\n"},
		not:  []string{"p1"},
	}} {
		t.Run(tc.name, func(t *testing.T) {
			s := New(io.Discard)
			if err := s.ReadCompiles(strings.NewReader(tc.log)); err != nil {
				t.Fatal(err)
			}
			var out bytes.Buffer
			s.compiles.print(&out)
			for _, want := range tc.want {
				if !strings.Contains(out.String(), want) {
					t.Errorf("output lacks %q:\n%s", want, out.String())
				}
			}
			for _, not := range tc.not {
				if strings.Contains(out.String(), not) {
					t.Errorf("output has %q:\n%s", not, out.String())
				}
			}
		})
	}
}
