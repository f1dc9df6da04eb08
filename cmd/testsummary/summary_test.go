package main

import (
	"bytes"
	"strings"
	"testing"
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
	s := newSummary(&echo)
	if err := s.read(strings.NewReader(events)); err != nil {
		t.Fatal(err)
	}
	s.print(&sum)
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
	s := newSummary(&bytes.Buffer{})
	if err := s.read(strings.NewReader(events)); err != nil {
		t.Fatal(err)
	}
	s.print(&sum)
	if !strings.Contains(sum.String(), "NVRTC kernel compile checks: ran") {
		t.Errorf("summary:\n%s", sum.String())
	}
}
