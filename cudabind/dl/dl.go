// Package dl opens shared libraries at run time and binds their C
// functions to typed Go function values, with purego and without cgo; the
// CUDA driver, NVRTC, NVML, NPP, cuFFT and cuDNN bindings all use it, and
// find their libraries through its [Search] values ([CUDA], [NVRTC], ...).
//
// A binding is a table of [Symbol] entries, each a pointer to a Go
// function variable whose signature mirrors the C prototype and the C
// names to try, versioned names first. [Library.Bind] registers the first
// name found with purego.RegisterFunc; a required symbol that no name
// resolves is a [*MissingSymbolError], an optional one leaves its variable
// nil. A registered function is called through reflection, a few hundred
// nanoseconds a call (BenchmarkBoundCall); entry points called inside
// timed loops hold their address alone ([Address]) and are called with
// [Call]: integer and pointer arguments, an int result, no reflection.
package dl

import (
	"fmt"
	"strings"
	"unsafe"

	"github.com/ebitengine/purego"
)

// Library is an opened shared library.
type Library struct {
	// Name is the name that opened, one of those given to Open.
	Name   string
	handle uintptr
}

// OpenError reports that none of the names given to Open could be opened.
type OpenError struct {
	Tried   []string // the names tried, in order
	Reasons []string // the loader's message for each
}

func (e *OpenError) Error() string {
	if len(e.Tried) == 0 {
		return "dl: no library names to try"
	}
	parts := make([]string, len(e.Tried))
	for i, n := range e.Tried {
		parts[i] = n + ": " + e.reason(i)
	}
	return strings.Join(parts, "; ")
}

// Why says why lib, the library a caller's error names, could not be
// opened: the loader's message alone where lib is the one name tried,
// else every name tried with its message (Error).
func (e *OpenError) Why(lib string) string {
	if len(e.Tried) == 1 && e.Tried[0] == lib {
		return e.reason(0)
	}
	return e.Error()
}

// reason is the loader's message for the ith name, without the name
// where the message opens with it, as dlerror's does.
func (e *OpenError) reason(i int) string {
	return strings.TrimPrefix(e.Reasons[i], e.Tried[i]+": ")
}

// Open dlopens the first of names that loads (RTLD_NOW | RTLD_GLOBAL). When
// none does it returns an *OpenError naming each and why it failed.
func Open(names []string) (*Library, error) {
	e := &OpenError{}
	for _, n := range names {
		h, err := open(n)
		if err == nil {
			return &Library{Name: n, handle: h}, nil
		}
		e.Tried = append(e.Tried, n)
		e.Reasons = append(e.Reasons, err.Error())
	}
	return nil, e
}

// Symbol is one entry of a binding table.
type Symbol struct {
	// Fn points to a Go function variable (for example
	// *func(*uint64, uintptr) int32) that Bind sets, or to a uintptr that
	// Bind sets to the symbol's address (see Address).
	Fn any
	// Names are the C names tried in order; the first one found is bound.
	Names []string
	// Optional symbols may be missing: Fn is then left nil.
	Optional bool
}

// Func is a required table entry.
func Func(fn any, names ...string) Symbol { return Symbol{Fn: fn, Names: names} }

// OptionalFunc is a table entry that may be missing from the library.
func OptionalFunc(fn any, names ...string) Symbol {
	return Symbol{Fn: fn, Names: names, Optional: true}
}

// Address is a required table entry whose address Bind stores in *addr,
// for a typed method that calls it with Call.
func Address(addr *uintptr, names ...string) Symbol { return Symbol{Fn: addr, Names: names} }

// OptionalAddress is an Address entry that may be missing: *addr stays 0.
func OptionalAddress(addr *uintptr, names ...string) Symbol {
	return Symbol{Fn: addr, Names: names, Optional: true}
}

// Call calls the C function at addr with integer or pointer arguments and
// returns the low 32 bits of its result as a signed integer (C int and
// enum results). Pointers converted to uintptr in the call's argument list
// stay alive and in place for the call.
//
//go:uintptrescapes
func Call(addr uintptr, args ...uintptr) int32 {
	r, _, _ := purego.SyscallN(addr, args...)
	return int32(uint32(r))
}

// MissingSymbolError reports a required symbol that the library lacks.
type MissingSymbolError struct {
	Library string
	Names   []string // every name tried
}

func (e *MissingSymbolError) Error() string {
	return fmt.Sprintf("%s: missing symbol %s", e.Library, strings.Join(e.Names, " or "))
}

// Lookup returns the address of the first of names the library exports,
// and that name; ok is false when it has none of them.
func (l *Library) Lookup(names ...string) (addr uintptr, name string, ok bool) {
	if l == nil {
		return 0, "", false
	}
	for _, n := range names {
		if p, err := sym(l.handle, n); err == nil && p != 0 {
			return p, n, true
		}
	}
	return 0, "", false
}

// Bind resolves every symbol of the table and registers it. It returns a
// *MissingSymbolError for the first required symbol not found, or an
// error naming the symbol whose Go function type purego cannot call.
func (l *Library) Bind(table []Symbol) error {
	if l == nil {
		return fmt.Errorf("dl: Bind on a nil *Library")
	}
	for _, s := range table {
		addr, name, ok := l.Lookup(s.Names...)
		if !ok {
			if s.Optional {
				continue
			}
			return &MissingSymbolError{Library: l.Name, Names: s.Names}
		}
		if err := register(s.Fn, addr); err != nil {
			return fmt.Errorf("dl: %s: binding %s: %v", l.Name, name, err)
		}
	}
	return nil
}

// register stores addr in a *uintptr, or registers a function value with
// purego.RegisterFunc, its panics (a bad function type) returned as
// errors.
func register(fn any, addr uintptr) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("%v", p)
		}
	}()
	if fn == nil {
		return fmt.Errorf("nil function pointer")
	}
	if p, ok := fn.(*uintptr); ok {
		if p == nil {
			return fmt.Errorf("nil address pointer")
		}
		*p = addr
		return nil
	}
	purego.RegisterFunc(fn, addr)
	return nil
}

// GoString copies the NUL-terminated C string at p; nil gives "".
func GoString(p *byte) string {
	if p == nil {
		return ""
	}
	n := 0
	for *(*byte)(unsafe.Add(unsafe.Pointer(p), n)) != 0 {
		n++
	}
	return string(unsafe.Slice(p, n))
}

// CString returns s as a NUL-terminated byte slice for C; the caller keeps
// it alive for as long as C reads it.
func CString(s string) []byte {
	b := make([]byte, len(s)+1)
	copy(b, s)
	return b
}

// Name returns the name names gives the C enum value v, or v written with
// unknown (a format with one integer verb, "cufftType(%#x)") when names
// has none: the String of the bindings' enum types.
func Name[V ~int | ~int32 | ~uint32](names map[V]string, v V, unknown string) string {
	if n, ok := names[v]; ok {
		return n
	}
	return fmt.Sprintf(unknown, int64(v))
}
