package dl

import (
	"errors"
	"runtime"
	"strings"
	"testing"
	"unsafe"
)

// libc opens the C library, which every Linux host has; elsewhere the
// tests that call into C skip.
func libc(t testing.TB) *Library {
	t.Helper()
	if runtime.GOOS != "linux" {
		t.Skipf("no libc.so.6 to bind against on %s", runtime.GOOS)
	}
	l, err := Open([]string{"/nonexistent/libc.so.6", "libc.so.6"})
	if err != nil {
		t.Fatalf("Open(libc.so.6): %v", err)
	}
	if l.Name != "libc.so.6" {
		t.Errorf("Open opened %q, want the first name that loads, libc.so.6", l.Name)
	}
	return l
}

func TestOpenNamesEveryLibraryTried(t *testing.T) {
	names := []string{"/nonexistent/libcuda.so.1", "/nonexistent/libcuda.so"}
	l, err := Open(names)
	var oe *OpenError
	if l != nil || !errors.As(err, &oe) {
		t.Fatalf("Open(%q) = %v, %v; want nil and an *OpenError", names, l, err)
	}
	for _, n := range names {
		if !strings.Contains(err.Error(), n) {
			t.Errorf("error %q does not name %s", err, n)
		}
	}
	if _, err := Open(nil); err == nil {
		t.Error("Open(nil) succeeded")
	}
}

func TestBindTable(t *testing.T) {
	l := libc(t)
	var (
		strlen  func(s string) uintptr
		labs    func(v int64) int64
		missing func() int32
		opt     func() int32
	)
	err := l.Bind([]Symbol{
		Func(&strlen, "strlen_v99", "strlen"), // versioned name first, absent here
		Func(&labs, "labs"),
		OptionalFunc(&opt, "convbench_no_such_symbol"),
	})
	if err != nil {
		t.Fatalf("Bind: %v", err)
	}
	if got := strlen("convbench"); got != 9 {
		t.Errorf("bound strlen(\"convbench\") = %d, want 9", got)
	}
	if got := labs(-42); got != 42 {
		t.Errorf("bound labs(-42) = %d, want 42", got)
	}
	if opt != nil {
		t.Error("a missing optional symbol was bound")
	}

	err = l.Bind([]Symbol{Func(&missing, "convbench_missing_v2", "convbench_missing")})
	var me *MissingSymbolError
	if !errors.As(err, &me) || me.Library != "libc.so.6" || len(me.Names) != 2 {
		t.Fatalf("Bind of a missing required symbol: %v, want a *MissingSymbolError naming both names", err)
	}
	if !strings.Contains(err.Error(), "convbench_missing_v2 or convbench_missing") {
		t.Errorf("message %q does not list the names tried", err)
	}
}

func TestBindRefusesBadFunctionTypes(t *testing.T) {
	l := libc(t)
	var notFunc int
	var twoResults func() (int32, int32)
	for _, s := range []Symbol{
		Func(&notFunc, "strlen"),
		Func(&twoResults, "strlen"),
		Func(nil, "strlen"),
	} {
		if err := l.Bind([]Symbol{s}); err == nil || !strings.Contains(err.Error(), "strlen") {
			t.Errorf("Bind(%T) = %v, want an error naming strlen", s.Fn, err)
		}
	}
}

func TestAddressAndCall(t *testing.T) {
	l := libc(t)
	var labs uintptr
	var registered func(v int64) int64
	if err := l.Bind([]Symbol{Address(&labs, "labs_v2", "labs"), Func(&registered, "labs")}); err != nil {
		t.Fatal(err)
	}
	if labs == 0 {
		t.Fatal("Address entry left the address 0")
	}
	for _, v := range []int64{-7, 0, 1 << 20, -(1 << 30)} {
		if got, want := Call(labs, uintptr(v)), int32(registered(v)); got != want {
			t.Errorf("Call(labs, %d) = %d, the registered function gives %d", v, got, want)
		}
	}
	// Pointer arguments: memset through Call writes Go memory.
	var memset uintptr
	if err := l.Bind([]Symbol{Address(&memset, "memset")}); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 16)
	Call(memset, uintptr(unsafe.Pointer(&buf[0])), 0xab, 8)
	if buf[0] != 0xab || buf[7] != 0xab || buf[8] != 0 {
		t.Errorf("memset through Call wrote %x", buf)
	}
	var nilAddr *uintptr
	if err := l.Bind([]Symbol{Address(nilAddr, "labs")}); err == nil {
		t.Error("Bind into a nil *uintptr succeeded")
	}
}

func TestLookup(t *testing.T) {
	l := libc(t)
	if _, name, ok := l.Lookup("convbench_nope", "strlen"); !ok || name != "strlen" {
		t.Errorf("Lookup = %q, %v; want strlen, true", name, ok)
	}
	if _, _, ok := l.Lookup("convbench_nope"); ok {
		t.Error("Lookup found a symbol that does not exist")
	}
	var nilLib *Library
	if _, _, ok := nilLib.Lookup("strlen"); ok {
		t.Error("Lookup on a nil *Library succeeded")
	}
	if err := nilLib.Bind(nil); err == nil {
		t.Error("Bind on a nil *Library succeeded")
	}
}

func TestCStrings(t *testing.T) {
	b := CString("sm_90")
	if len(b) != 6 || b[5] != 0 {
		t.Fatalf("CString(sm_90) = %v, want 5 bytes and a NUL", b)
	}
	if got := GoString(&b[0]); got != "sm_90" {
		t.Errorf("GoString = %q", got)
	}
	if got := GoString(nil); got != "" {
		t.Errorf("GoString(nil) = %q", got)
	}
}

// The error of a library that does not open names it once, and Why,
// for the caller's own error that names it already, not at all.
func TestOpenErrorNamesLibraryOnce(t *testing.T) {
	const name = "/nonexistent/libcuda.so.1"
	_, err := Open([]string{name})
	var oe *OpenError
	if !errors.As(err, &oe) {
		t.Fatalf("Open(%s) = %v, want an *OpenError", name, err)
	}
	if n := strings.Count(err.Error(), name); n != 1 {
		t.Errorf("error %q names %s %d times, want once", err, name, n)
	}
	if why := oe.Why(name); strings.Contains(why, name) || why == "" {
		t.Errorf("Why(%s) = %q, want the loader's reason without the name", name, why)
	}
	if why := oe.Why("libcuda"); why != err.Error() {
		t.Errorf("Why of another name = %q, want the whole error %q", why, err)
	}
}

type testEnum uint32

// String would recurse if Name formatted an unknown value as the enum
// type rather than as an integer.
func (e testEnum) String() string { return Name(map[testEnum]string{1: "ONE"}, e, "testEnum(%#x)") }

func TestName(t *testing.T) {
	for _, c := range []struct {
		v    testEnum
		want string
	}{
		{1, "ONE"},
		{0x2c, "testEnum(0x2c)"},
		{0, "testEnum(0x0)"},
	} {
		if got := c.v.String(); got != c.want {
			t.Errorf("Name(%d) = %q, want %q", uint32(c.v), got, c.want)
		}
	}
	if got := Name(map[int32]string{-2: "MINUS_TWO"}, -3, "code %d"); got != "code -3" {
		t.Errorf("Name(-3) = %q, want code -3", got)
	}
}
