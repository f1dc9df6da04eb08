package dl

import (
	"testing"
	"unsafe"

	"github.com/ebitengine/purego"
)

// BenchmarkBoundCall and BenchmarkSyscallN compare the cost of a call
// through a bound function value with a raw purego.SyscallN call, on a C
// function of the shape of most driver calls (an out-pointer and two
// integers, an int result).
func BenchmarkBoundCall(b *testing.B) {
	l := libc(b)
	var memset func(p *uint64, c int32, n uintptr) unsafe.Pointer
	if err := l.Bind([]Symbol{Func(&memset, "memset")}); err != nil {
		b.Fatal(err)
	}
	var v uint64
	for b.Loop() {
		memset(&v, 1, 8)
	}
}

func BenchmarkSyscallN(b *testing.B) {
	l := libc(b)
	addr, _, ok := l.Lookup("memset")
	if !ok {
		b.Fatal("no memset")
	}
	var v uint64
	for b.Loop() {
		purego.SyscallN(addr, uintptr(unsafe.Pointer(&v)), 1, 8)
	}
}
