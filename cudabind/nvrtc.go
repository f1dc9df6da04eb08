package cudabind

import (
	"fmt"
	"regexp"
	"runtime"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"unsafe"
)

// nvrtcLib holds the NVRTC entry points.
type nvrtcLib struct {
	name         string
	major, minor int

	version, getErrorString                       uintptr
	createProgram, destroyProgram, compileProgram uintptr
	getPTXSize, getPTX, getCUBINSize, getCUBIN    uintptr
	getProgramLogSize, getProgramLog              uintptr
	addNameExpression, getLoweredName             uintptr
}

var (
	nvrtcOnce   onceValue[*nvrtcLib]
	nvrtcLoaded atomic.Pointer[nvrtcLib]
)

// loadedNVRTC returns the NVRTC library if it was loaded, without loading.
func loadedNVRTC() *nvrtcLib { return nvrtcLoaded.Load() }

// loadNVRTC opens NVRTC once, trying NVRTCSearchList in order.
func loadNVRTC() (*nvrtcLib, error) {
	return nvrtcOnce.get(func() (*nvrtcLib, error) {
		names := NVRTCSearchList()
		h, name, err := openFirst(names)
		if err != nil {
			return nil, &UnavailableError{Lib: "nvrtc", Reason: "no library could be opened (" + err.Error() + ")"}
		}
		l := &nvrtcLib{name: name}
		syms := []symbol{
			{dst: &l.version, names: []string{"nvrtcVersion"}},
			{dst: &l.getErrorString, names: []string{"nvrtcGetErrorString"}},
			{dst: &l.createProgram, names: []string{"nvrtcCreateProgram"}},
			{dst: &l.destroyProgram, names: []string{"nvrtcDestroyProgram"}},
			{dst: &l.compileProgram, names: []string{"nvrtcCompileProgram"}},
			{dst: &l.getPTXSize, names: []string{"nvrtcGetPTXSize"}},
			{dst: &l.getPTX, names: []string{"nvrtcGetPTX"}},
			{dst: &l.getCUBINSize, names: []string{"nvrtcGetCUBINSize"}, optional: true},
			{dst: &l.getCUBIN, names: []string{"nvrtcGetCUBIN"}, optional: true},
			{dst: &l.getProgramLogSize, names: []string{"nvrtcGetProgramLogSize"}},
			{dst: &l.getProgramLog, names: []string{"nvrtcGetProgramLog"}},
			{dst: &l.addNameExpression, names: []string{"nvrtcAddNameExpression"}, optional: true},
			{dst: &l.getLoweredName, names: []string{"nvrtcGetLoweredName"}, optional: true},
		}
		if err := resolve(h, syms); err != nil {
			return nil, &UnavailableError{Lib: "nvrtc", Reason: name + ": " + err.Error()}
		}
		var major, minor int32
		if r := ccall(l.version, uintptr(unsafe.Pointer(&major)), uintptr(unsafe.Pointer(&minor))); r != 0 {
			return nil, &UnavailableError{Lib: "nvrtc", Reason: name + ": nvrtcVersion failed with " + NVRTCErrorName(r)}
		}
		l.major, l.minor = int(major), int(minor)
		nvrtcLoaded.Store(l)
		return l, nil
	})
}

func (l *nvrtcLib) errorString(code int) string {
	if l == nil || l.getErrorString == 0 {
		return ""
	}
	return goString(cRet(l.getErrorString, uintptr(code)))
}

// NVRTCVersion loads NVRTC if needed and returns its version.
func NVRTCVersion() (major, minor int, err error) {
	l, err := loadNVRTC()
	if err != nil {
		return 0, 0, err
	}
	return l.major, l.minor, nil
}

// NVRTCLibrary returns the name of the NVRTC library that was opened.
func NVRTCLibrary() (string, error) {
	l, err := loadNVRTC()
	if err != nil {
		return "", err
	}
	return l.name, nil
}

// Source is a CUDA C++ translation unit to compile.
type Source struct {
	Name    string            // file name used in diagnostics: "conv2d.cu"
	Code    string            // the source text
	Headers map[string]string // include name -> contents, for #include "name"
	// NameExpressions are C++ names (for example "conv<5,5>") whose
	// mangled names are looked up after compilation, so that templated
	// kernels can be found with Module.Function(expression).
	NameExpressions []string
}

// CompileOptions are the NVRTC options of a compilation.
type CompileOptions struct {
	// Arch is "sm_XY" for a cubin or "compute_XY" for PTX. Device.Compile
	// fills it from the device when empty; CompileOnly requires it.
	Arch string
	// Defines become -DNAME=VALUE (or -DNAME for an empty value), sorted
	// by name.
	Defines map[string]string
	// FMAD selects --fmad=true (NVRTC's default) when true and
	// --fmad=false when false, so the zero value contracts no
	// multiply-adds. The option is always written out.
	FMAD bool
	// FastMath adds --use_fast_math, which implies --fmad=true,
	// --ftz=true and approximate division and square root; --fmad=true is
	// then written whatever FMAD says.
	FastMath bool
	// LineInfo adds -lineinfo, for profilers and compute-sanitizer.
	LineInfo bool
	// Extra options are appended verbatim after the rendered ones.
	Extra []string
}

var (
	archPattern   = regexp.MustCompile(`^(sm|compute)_[0-9]{2,3}[a-z]?$`)
	definePattern = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)
)

// Options renders the NVRTC option list: --gpu-architecture, --std=c++17,
// --fmad, then the optional flags, the sorted defines and Extra. It never
// adds -ftz on its own.
func (o CompileOptions) Options() []string {
	opts := []string{"--gpu-architecture=" + o.Arch, "--std=c++17"}
	if o.FMAD || o.FastMath {
		opts = append(opts, "--fmad=true")
	} else {
		opts = append(opts, "--fmad=false")
	}
	if o.FastMath {
		opts = append(opts, "--use_fast_math")
	}
	if o.LineInfo {
		opts = append(opts, "-lineinfo")
	}
	keys := make([]string, 0, len(o.Defines))
	for k := range o.Defines {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if v := o.Defines[k]; v != "" {
			opts = append(opts, "-D"+k+"="+v)
		} else {
			opts = append(opts, "-D"+k)
		}
	}
	return append(opts, o.Extra...)
}

// Validate checks the architecture and define names.
func (o CompileOptions) Validate() error {
	if o.Arch == "" {
		return fmt.Errorf("cudabind: CompileOptions.Arch is empty (want sm_XY or compute_XY)")
	}
	if !archPattern.MatchString(o.Arch) {
		return fmt.Errorf("cudabind: CompileOptions.Arch %q is not sm_XY or compute_XY", o.Arch)
	}
	for k, v := range o.Defines {
		if !definePattern.MatchString(k) {
			return fmt.Errorf("cudabind: define name %q is not a C identifier", k)
		}
		if strings.ContainsAny(v, "\x00\n") {
			return fmt.Errorf("cudabind: define %s has a value with a NUL or newline: %q", k, v)
		}
	}
	for i, e := range o.Extra {
		if e == "" || strings.ContainsRune(e, 0) {
			return fmt.Errorf("cudabind: CompileOptions.Extra[%d] = %q is empty or contains NUL", i, e)
		}
	}
	return nil
}

// wantsCUBIN reports whether the arch asks for machine code.
func (o CompileOptions) wantsCUBIN() bool { return strings.HasPrefix(o.Arch, "sm_") }

// ImageKind says what a compiled image holds.
type ImageKind int

const (
	ImageCUBIN ImageKind = iota + 1 // machine code for one architecture
	ImagePTX                        // PTX text, NUL-terminated, JIT-compiled at load
)

func (k ImageKind) String() string {
	switch k {
	case ImageCUBIN:
		return "cubin"
	case ImagePTX:
		return "ptx"
	}
	return fmt.Sprintf("ImageKind(%d)", int(k))
}

// Compiled is the output of an NVRTC compilation.
type Compiled struct {
	Key     string            // cache key (hex sha256)
	Name    string            // Source.Name
	Arch    string            // the target architecture
	Kind    ImageKind         // cubin for sm_XY, PTX for compute_XY
	Image   []byte            // what cuModuleLoadData takes
	Log     string            // the compiler log (warnings), may be empty
	Options []string          // the rendered options
	Lowered map[string]string // name expression -> mangled name
	NVRTC   [2]int            // NVRTC major, minor
	Cached  bool              // true when served from a cache
}

// CUBIN returns the machine code, or nil when the image is PTX.
func (c *Compiled) CUBIN() []byte {
	if c.Kind != ImageCUBIN {
		return nil
	}
	return c.Image
}

// CompileOnly compiles src with NVRTC, using the compile caches, without
// the driver. Compilation failures return a *CompileError with the log.
func CompileOnly(src Source, opts CompileOptions) (*Compiled, error) {
	if err := checkSource(src); err != nil {
		return nil, err
	}
	if err := opts.Validate(); err != nil {
		return nil, err
	}
	l, err := loadNVRTC()
	if err != nil {
		return nil, err
	}
	key := cacheKey(src, opts, l.major, l.minor)
	// Plans made on several goroutines may ask for the same module at
	// once: the first compiles, the others wait for its result.
	for {
		if c := lookupCache(key); c != nil {
			return c, nil
		}
		compilingMu.Lock()
		if done, busy := compiling[key]; busy {
			compilingMu.Unlock()
			<-done
			continue
		}
		done := make(chan struct{})
		compiling[key] = done
		compilingMu.Unlock()
		statMisses.Add(1)
		c, err := l.compile(src, opts)
		if err == nil {
			c.Key = key
			storeCache(c)
		}
		compilingMu.Lock()
		delete(compiling, key)
		compilingMu.Unlock()
		close(done)
		if err != nil {
			return nil, err
		}
		return c, nil
	}
}

// compiling holds, per cache key, a channel closed when the compile of
// that key in progress ends.
var (
	compilingMu sync.Mutex
	compiling   = map[string]chan struct{}{}
)

func checkSource(src Source) error {
	if src.Name == "" {
		return fmt.Errorf("cudabind: Source.Name is empty")
	}
	if strings.TrimSpace(src.Code) == "" {
		return fmt.Errorf("cudabind: Source %s has no code", src.Name)
	}
	if strings.ContainsRune(src.Code, 0) || strings.ContainsRune(src.Name, 0) {
		return fmt.Errorf("cudabind: Source %s contains a NUL byte", src.Name)
	}
	for n, h := range src.Headers {
		if n == "" || strings.ContainsRune(n, 0) || strings.ContainsRune(h, 0) {
			return fmt.Errorf("cudabind: Source %s has a header with an empty name or a NUL byte (%q)", src.Name, n)
		}
	}
	for i, e := range src.NameExpressions {
		if strings.TrimSpace(e) == "" || strings.ContainsRune(e, 0) {
			return fmt.Errorf("cudabind: Source %s NameExpressions[%d] = %q is empty or contains NUL", src.Name, i, e)
		}
	}
	return nil
}

// compile runs one NVRTC compilation (no caching).
func (l *nvrtcLib) compile(src Source, opts CompileOptions) (*Compiled, error) {
	// C strings, kept alive by these slices until the function returns.
	code := cstr(src.Code)
	name := cstr(src.Name)
	hnames := make([]string, 0, len(src.Headers))
	for n := range src.Headers {
		hnames = append(hnames, n)
	}
	sort.Strings(hnames)
	var keep [][]byte
	hdrPtrs := make([]uintptr, len(hnames)+1)
	incPtrs := make([]uintptr, len(hnames)+1)
	for i, n := range hnames {
		hb, nb := cstr(src.Headers[n]), cstr(n)
		keep = append(keep, hb, nb)
		hdrPtrs[i] = uintptr(unsafe.Pointer(&hb[0]))
		incPtrs[i] = uintptr(unsafe.Pointer(&nb[0]))
	}
	var prog uintptr
	if r := ccall(l.createProgram, uintptr(unsafe.Pointer(&prog)),
		uintptr(unsafe.Pointer(&code[0])), uintptr(unsafe.Pointer(&name[0])),
		uintptr(len(hnames)), uintptr(unsafe.Pointer(&hdrPtrs[0])), uintptr(unsafe.Pointer(&incPtrs[0]))); r != 0 {
		return nil, newNVRTCError("nvrtcCreateProgram", r)
	}
	defer ccall(l.destroyProgram, uintptr(unsafe.Pointer(&prog)))

	var exprs [][]byte
	if len(src.NameExpressions) > 0 {
		if l.addNameExpression == 0 || l.getLoweredName == 0 {
			return nil, fmt.Errorf("cudabind: %s lacks nvrtcAddNameExpression; name expressions need NVRTC 10 or later", l.name)
		}
		for _, e := range src.NameExpressions {
			eb := cstr(e)
			exprs = append(exprs, eb)
			if r := ccall(l.addNameExpression, prog, uintptr(unsafe.Pointer(&eb[0]))); r != 0 {
				return nil, newNVRTCError("nvrtcAddNameExpression", r)
			}
		}
	}

	rendered := opts.Options()
	optBytes := make([][]byte, len(rendered))
	optPtrs := make([]uintptr, len(rendered)+1)
	for i, o := range rendered {
		optBytes[i] = cstr(o)
		optPtrs[i] = uintptr(unsafe.Pointer(&optBytes[i][0]))
	}
	r := ccall(l.compileProgram, prog, uintptr(len(rendered)), uintptr(unsafe.Pointer(&optPtrs[0])))
	log := l.programLog(prog)
	runtime.KeepAlive(keep)
	runtime.KeepAlive(optBytes)
	runtime.KeepAlive(code)
	runtime.KeepAlive(name)
	if r != 0 {
		return nil, &CompileError{Source: src.Name, Result: newNVRTCError("nvrtcCompileProgram", r).Name,
			Log: log, Options: rendered, Err: newNVRTCError("nvrtcCompileProgram", r)}
	}

	c := &Compiled{Name: src.Name, Arch: opts.Arch, Log: log, Options: rendered, NVRTC: [2]int{l.major, l.minor}}
	var err error
	if opts.wantsCUBIN() {
		if l.getCUBIN == 0 || l.getCUBINSize == 0 {
			return nil, fmt.Errorf("cudabind: %s (NVRTC %d.%d) cannot emit a cubin for %s; use compute_XY for PTX", l.name, l.major, l.minor, opts.Arch)
		}
		c.Kind = ImageCUBIN
		c.Image, err = l.output(prog, l.getCUBINSize, l.getCUBIN, "nvrtcGetCUBIN")
	} else {
		c.Kind = ImagePTX
		c.Image, err = l.output(prog, l.getPTXSize, l.getPTX, "nvrtcGetPTX")
	}
	if err != nil {
		return nil, err
	}
	if len(src.NameExpressions) > 0 {
		c.Lowered = make(map[string]string, len(src.NameExpressions))
		for i, e := range src.NameExpressions {
			var lowered uintptr
			if r := ccall(l.getLoweredName, prog, uintptr(unsafe.Pointer(&exprs[i][0])), uintptr(unsafe.Pointer(&lowered))); r != 0 {
				return nil, newNVRTCError("nvrtcGetLoweredName", r)
			}
			c.Lowered[e] = goString(lowered)
		}
	}
	return c, nil
}

// output fetches the PTX or cubin of prog.
func (l *nvrtcLib) output(prog, sizeFn, getFn uintptr, api string) ([]byte, error) {
	var n uintptr
	if r := ccall(sizeFn, prog, uintptr(unsafe.Pointer(&n))); r != 0 {
		return nil, newNVRTCError(api+"Size", r)
	}
	if n == 0 {
		return nil, fmt.Errorf("cudabind: %sSize returned 0 bytes", api)
	}
	buf := make([]byte, n)
	if r := ccall(getFn, prog, uintptr(unsafe.Pointer(&buf[0]))); r != 0 {
		return nil, newNVRTCError(api, r)
	}
	return buf, nil
}

// programLog returns the compiler log of prog, without its trailing NUL.
func (l *nvrtcLib) programLog(prog uintptr) string {
	var n uintptr
	if r := ccall(l.getProgramLogSize, prog, uintptr(unsafe.Pointer(&n))); r != 0 || n <= 1 {
		return ""
	}
	buf := make([]byte, n)
	if r := ccall(l.getProgramLog, prog, uintptr(unsafe.Pointer(&buf[0]))); r != 0 {
		return ""
	}
	return strings.TrimRight(string(buf), "\x00")
}
