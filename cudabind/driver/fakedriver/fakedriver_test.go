package fakedriver

import (
	"testing"
	"unsafe"

	"github.com/convbench/convbench/cudabind/driver"
)

func TestFailAndSticky(t *testing.T) {
	d := &Driver{Kernels: map[string][]int{"k": {4}, "bad": nil},
		Fail:   map[string]driver.Result{"cuMemsetD8": driver.ErrorInvalidValue},
		Faults: map[string]driver.Result{"bad": driver.ErrorIllegalAddress}}
	p, r := d.MemAlloc(64)
	if r != driver.Success {
		t.Fatalf("MemAlloc = %d", r)
	}
	if r := d.MemsetD8(p, 1, 64); r != driver.ErrorInvalidValue {
		t.Errorf("injected failure: MemsetD8 = %d", r)
	}
	if r := d.MemsetD32(p, 1, 16); r != driver.Success {
		t.Errorf("an injected failure of another call leaked into MemsetD32: %d", r)
	}
	if r := d.MemsetD32(p+60, 1, 2); r != driver.ErrorInvalidValue {
		t.Errorf("memset past the allocation = %d, want invalid value", r)
	}
	m, _ := d.ModuleLoadData(unsafe.Pointer(&p))
	f, r := d.ModuleGetFunction(m, "bad")
	if r != driver.Success {
		t.Fatalf("ModuleGetFunction = %d", r)
	}
	if r := d.LaunchKernel(f, 1, 1, 1, 1, 1, 1, 0, 0, nil); r != driver.Success {
		t.Fatalf("the faulting launch returned %d", r)
	}
	if d.Sticky() != driver.ErrorIllegalAddress {
		t.Errorf("Sticky() = %d after the fault", d.Sticky())
	}
	if r := d.MemFree(p); r != driver.ErrorIllegalAddress {
		t.Errorf("MemFree after the fault = %d, want the sticky error", r)
	}
	if _, r := d.MemAlloc(64); r != driver.ErrorIllegalAddress {
		t.Errorf("MemAlloc after the fault = %d, want the sticky error", r)
	}
	calls := d.Calls()
	if len(calls) == 0 || calls[len(calls)-1] != "cuMemAlloc" {
		t.Errorf("Calls() = %v", calls)
	}
}

func TestLiveCounts(t *testing.T) {
	d := &Driver{}
	p, _ := d.MemAlloc(16)
	h, _ := d.MemHostAlloc(16, 0)
	s, _ := d.StreamCreate(0)
	e, _ := d.EventCreate(0)
	want := map[string]int{"device buffers": 1, "host buffers": 1, "streams": 1, "events": 1}
	got := d.Live()
	for k, n := range want {
		if got[k] != n {
			t.Errorf("Live()[%q] = %d, want %d (%v)", k, got[k], n, got)
		}
	}
	d.MemFree(p)
	d.MemFreeHost(h)
	d.StreamDestroy(s)
	d.EventDestroy(e)
	if got := d.Live(); len(got) != 0 {
		t.Errorf("Live() = %v after freeing everything", got)
	}
	if r := d.MemFree(p); r != driver.ErrorInvalidValue {
		t.Errorf("double free = %d, want invalid value", r)
	}
}
