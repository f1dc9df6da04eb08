package driver

import (
	"errors"
	"reflect"
	"runtime"
	"strings"
	"testing"

	"github.com/convbench/convbench/cudabind/dl"
)

func TestLoadMissingLibrary(t *testing.T) {
	l, err := Load([]string{"/nonexistent/libcuda.so.1"})
	var oe *dl.OpenError
	if l != nil || !errors.As(err, &oe) || !strings.Contains(err.Error(), "/nonexistent/libcuda.so.1") {
		t.Fatalf("Load = %v, %v; want an *dl.OpenError naming the library", l, err)
	}
}

func TestLoadLibraryWithoutTheDriverAPI(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skipf("no libc.so.6 on %s", runtime.GOOS)
	}
	_, err := Load([]string{"libc.so.6"})
	var me *dl.MissingSymbolError
	if !errors.As(err, &me) || me.Names[0] != "cuInit" {
		t.Fatalf("Load(libc.so.6) = %v, want a *dl.MissingSymbolError for cuInit", err)
	}
}

func TestFeatureString(t *testing.T) {
	for f, want := range map[Feature]string{Graphs: "stream capture and graphs", ParamInfo: "cuFuncGetParamInfo", Peer: "peer access", Feature(9): "unknown feature"} {
		if got := f.String(); got != want {
			t.Errorf("Feature(%d).String() = %q, want %q", int(f), got, want)
		}
	}
}

// TestOptionalEntryPointsMissing: a library without an optional entry
// point answers its method with ErrorNotFound and a zero value, calling
// nothing.
func TestOptionalEntryPointsMissing(t *testing.T) {
	l := &Lib{}
	for _, c := range []struct {
		name string
		call func() (any, Result)
	}{
		{"DeviceCanAccessPeer", func() (any, Result) { return l.DeviceCanAccessPeer(0, 1) }},
		{"CtxEnablePeerAccess", func() (any, Result) { return nil, l.CtxEnablePeerAccess(1, 0) }},
		{"FuncGetParamInfo", func() (any, Result) { o, s, r := l.FuncGetParamInfo(1, 0); return o + s, r }},
		{"FuncGetParamCount", func() (any, Result) { return l.FuncGetParamCount(1) }},
		{"StreamBeginCapture", func() (any, Result) { return nil, l.StreamBeginCapture(1, 0) }},
		{"StreamEndCapture", func() (any, Result) { return l.StreamEndCapture(1) }},
		{"GraphInstantiate", func() (any, Result) { return l.GraphInstantiate(1, 0) }},
		{"GraphUpload", func() (any, Result) { return nil, l.GraphUpload(1, 1) }},
		{"GraphLaunch", func() (any, Result) { return nil, l.GraphLaunch(1, 1) }},
		{"GraphExecDestroy", func() (any, Result) { return nil, l.GraphExecDestroy(1) }},
		{"GraphDestroy", func() (any, Result) { return nil, l.GraphDestroy(1) }},
	} {
		v, r := c.call()
		if r != ErrorNotFound {
			t.Errorf("%s without its entry point: result %d, want ErrorNotFound (%d)", c.name, r, ErrorNotFound)
		}
		if v != nil && !reflect.ValueOf(v).IsZero() {
			t.Errorf("%s without its entry point: value %v, want zero", c.name, v)
		}
	}
}
