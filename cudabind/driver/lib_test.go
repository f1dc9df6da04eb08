package driver

import (
	"errors"
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
