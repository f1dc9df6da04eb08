package nvrtc

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/convbench/convbench/cudabind/cudaerr"
	"github.com/convbench/convbench/cudabind/dl"
)

// Environment variables read by the package.
const (
	// EnvCacheDir overrides the on-disk compile cache directory.
	EnvCacheDir = "CONVBENCH_CACHE_DIR"
	// EnvCompileLog names a file to which every NVRTC compilation that
	// missed the caches appends one line: "nvrtc-compile <seconds> <source
	// name> ok|error <program>", the program being the base name of the
	// running executable without ".test". Test summaries read it to say how
	// many kernels a run (and each package's tests) compiled and how long
	// compiling took.
	EnvCompileLog = "CONVBENCH_COMPILE_LOG"
)

// result is an nvrtcResult.
type result int32

// Compiler is a loaded NVRTC library: its entry points bound as typed Go
// function values.
type Compiler struct {
	name         string
	major, minor int

	nvrtcVersion           func(major, minor *int32) result
	nvrtcGetErrorString    func(r result) string
	nvrtcCreateProgram     func(prog *uintptr, src, name string, numHeaders int32, headers, includeNames *uintptr) result
	nvrtcDestroyProgram    func(prog *uintptr) result
	nvrtcCompileProgram    func(prog uintptr, numOptions int32, options *uintptr) result
	nvrtcGetPTXSize        func(prog uintptr, n *uint64) result
	nvrtcGetPTX            func(prog uintptr, out *byte) result
	nvrtcGetCUBINSize      func(prog uintptr, n *uint64) result
	nvrtcGetCUBIN          func(prog uintptr, out *byte) result
	nvrtcGetProgramLogSize func(prog uintptr, n *uint64) result
	nvrtcGetProgramLog     func(prog uintptr, out *byte) result
	nvrtcAddNameExpression func(prog uintptr, expr string) result
	nvrtcGetLoweredName    func(prog uintptr, expr string, lowered **byte) result
}

// Load opens the first of names that loads, binds NVRTC's entry points and
// reads its version. Every failure is a *cudaerr.UnavailableError naming
// what was tried.
func Load(names []string) (*Compiler, error) {
	lib, err := dl.Open(names)
	if err != nil {
		return nil, &cudaerr.UnavailableError{Lib: "nvrtc", Reason: "no library could be opened (" + err.Error() + ")"}
	}
	c := &Compiler{name: lib.Name}
	f, opt := dl.Func, dl.OptionalFunc
	err = lib.Bind([]dl.Symbol{
		f(&c.nvrtcVersion, "nvrtcVersion"),
		f(&c.nvrtcGetErrorString, "nvrtcGetErrorString"),
		f(&c.nvrtcCreateProgram, "nvrtcCreateProgram"),
		f(&c.nvrtcDestroyProgram, "nvrtcDestroyProgram"),
		f(&c.nvrtcCompileProgram, "nvrtcCompileProgram"),
		f(&c.nvrtcGetPTXSize, "nvrtcGetPTXSize"),
		f(&c.nvrtcGetPTX, "nvrtcGetPTX"),
		opt(&c.nvrtcGetCUBINSize, "nvrtcGetCUBINSize"),
		opt(&c.nvrtcGetCUBIN, "nvrtcGetCUBIN"),
		f(&c.nvrtcGetProgramLogSize, "nvrtcGetProgramLogSize"),
		f(&c.nvrtcGetProgramLog, "nvrtcGetProgramLog"),
		opt(&c.nvrtcAddNameExpression, "nvrtcAddNameExpression"),
		opt(&c.nvrtcGetLoweredName, "nvrtcGetLoweredName"),
	})
	if err != nil {
		return nil, &cudaerr.UnavailableError{Lib: "nvrtc", Reason: err.Error()}
	}
	var major, minor int32
	if r := c.nvrtcVersion(&major, &minor); r != 0 {
		return nil, &cudaerr.UnavailableError{Lib: "nvrtc", Reason: lib.Name + ": nvrtcVersion failed with " + cudaerr.NVRTCErrorName(int(r))}
	}
	c.major, c.minor = int(major), int(minor)
	return c, nil
}

// Name returns the library the compiler was loaded from.
func (c *Compiler) Name() string { return c.name }

// Version returns NVRTC's version.
func (c *Compiler) Version() (major, minor int) { return c.major, c.minor }

// defaultCompiler is the process's NVRTC, loaded once from dl.NVRTC.
var defaultCompiler struct {
	once sync.Once
	c    *Compiler
	err  error
}

// loaded is the default compiler once loaded, for naming errors.
var loaded atomic.Pointer[Compiler]

// Default loads NVRTC from dl.NVRTC on first use and returns it, or the
// cached error (an *cudaerr.UnavailableError).
func Default() (*Compiler, error) {
	defaultCompiler.once.Do(func() {
		defaultCompiler.c, defaultCompiler.err = Load(dl.NVRTC.List())
		if defaultCompiler.err == nil {
			loaded.Store(defaultCompiler.c)
		}
	})
	return defaultCompiler.c, defaultCompiler.err
}

// Version loads NVRTC if needed and returns its version.
func Version() (major, minor int, err error) {
	c, err := Default()
	if err != nil {
		return 0, 0, err
	}
	return c.major, c.minor, nil
}

// Library returns the name of the NVRTC library that was opened.
func Library() (string, error) {
	c, err := Default()
	if err != nil {
		return "", err
	}
	return c.name, nil
}

// newError builds the *cudaerr.Error of a failed NVRTC call, with
// NVRTC's own name for the code when c has one.
func (c *Compiler) newError(api string, r result) *cudaerr.Error {
	name := cudaerr.NVRTCErrorName(int(r))
	if c != nil && c.nvrtcGetErrorString != nil {
		if n := c.nvrtcGetErrorString(r); n != "" {
			name = n
		}
	}
	return &cudaerr.Error{API: api, Code: int(r), Name: name, Library: cudaerr.LibNVRTC}
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
	// fills it from the device when empty; Compile requires it.
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
		return fmt.Errorf("nvrtc: CompileOptions.Arch is empty (want sm_XY or compute_XY)")
	}
	if !archPattern.MatchString(o.Arch) {
		return fmt.Errorf("nvrtc: CompileOptions.Arch %q is not sm_XY or compute_XY", o.Arch)
	}
	for k, v := range o.Defines {
		if !definePattern.MatchString(k) {
			return fmt.Errorf("nvrtc: define name %q is not a C identifier", k)
		}
		if strings.ContainsAny(v, "\x00\n") {
			return fmt.Errorf("nvrtc: define %s has a value with a NUL or newline: %q", k, v)
		}
	}
	for i, e := range o.Extra {
		if e == "" || strings.ContainsRune(e, 0) {
			return fmt.Errorf("nvrtc: CompileOptions.Extra[%d] = %q is empty or contains NUL", i, e)
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

var imageKindNames = map[ImageKind]string{ImageCUBIN: "cubin", ImagePTX: "ptx"}

func (k ImageKind) String() string { return dl.Name(imageKindNames, k, "ImageKind(%d)") }

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

// Compile compiles src with the default NVRTC (Default), using the
// compile caches unless they are bypassed (BypassCache), without the
// driver. Compilation failures return a *CompileError with the log.
func Compile(src Source, opts CompileOptions) (*Compiled, error) {
	if err := checkSource(src); err != nil {
		return nil, err
	}
	if err := opts.Validate(); err != nil {
		return nil, err
	}
	l, err := Default()
	if err != nil {
		return nil, err
	}
	key := cacheKey(src, opts, l.major, l.minor)
	return compileCached(key, src.Name, func() (*Compiled, error) { return l.Compile(src, opts) })
}

// compileCached returns the compilation of key: from the caches, or by
// compile, whose result it stores. Plans made on several goroutines may
// ask for the same module at once: the first compiles, the others wait
// for its result; so do processes sharing the disk cache (compileOnHost).
// While the caches are bypassed (BypassCache) every call
// compiles, and nothing is read from or written to the caches.
func compileCached(key, name string, compile func() (*Compiled, error)) (*Compiled, error) {
	if bypass.Load() > 0 {
		statBypassed.Add(1)
		return compileMiss(key, name, compile)
	}
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
		c, err := compileOnHost(key, name, compile)
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

// compileOnHost compiles key, which no goroutine of this process is
// compiling, once on the host: under the disk cache's lock on key
// (lockKey), so that a process sharing the cache directory that compiles
// key at the same time finishes first and this one reads its result from
// disk (a disk hit, no compilation).
func compileOnHost(key, name string, compile func() (*Compiled, error)) (*Compiled, error) {
	if dir := cacheDir(); dir != "" {
		if unlock := lockKey(dir, key); unlock != nil {
			defer unlock()
			if c := lookupCache(key); c != nil {
				return c, nil
			}
		}
	}
	c, err := compileMiss(key, name, compile)
	if err == nil {
		storeCache(c)
	}
	return c, err
}

// compileMiss runs compile for key, a cache miss: it counts the miss,
// logs the compilation (logCompile) and names the result by key.
func compileMiss(key, name string, compile func() (*Compiled, error)) (*Compiled, error) {
	statMisses.Add(1)
	start := time.Now()
	c, err := compile()
	logCompile(name, time.Since(start), err)
	if err != nil {
		return nil, err
	}
	c.Key = key
	return c, nil
}

// logCompile appends the line of one compilation to $CONVBENCH_COMPILE_LOG
// when it is set; a file that cannot be written is ignored. Each line is
// one write to a file opened for appending, so processes sharing the file
// do not interleave their lines.
func logCompile(name string, d time.Duration, err error) {
	path := os.Getenv(EnvCompileLog)
	if path == "" {
		return
	}
	f, ferr := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if ferr != nil {
		return
	}
	defer f.Close()
	outcome := "ok"
	if err != nil {
		outcome = "error"
	}
	fmt.Fprintf(f, "nvrtc-compile %.3f %s %s %s\n", d.Seconds(), strings.ReplaceAll(name, " ", "_"), outcome, programName)
}

// programName is the running executable's base name without ".test", with
// spaces replaced: the field that tells which package's tests compiled.
var programName = func() string {
	n := strings.TrimSuffix(filepath.Base(os.Args[0]), ".test")
	if n == "" || n == "." {
		return "unknown"
	}
	return strings.ReplaceAll(n, " ", "_")
}()

// compiling holds, per cache key, a channel closed when the compile of
// that key in progress ends.
var (
	compilingMu sync.Mutex
	compiling   = map[string]chan struct{}{}
)

func checkSource(src Source) error {
	if src.Name == "" {
		return fmt.Errorf("nvrtc: Source.Name is empty")
	}
	if strings.TrimSpace(src.Code) == "" {
		return fmt.Errorf("nvrtc: Source %s has no code", src.Name)
	}
	if strings.ContainsRune(src.Code, 0) || strings.ContainsRune(src.Name, 0) {
		return fmt.Errorf("nvrtc: Source %s contains a NUL byte", src.Name)
	}
	for n, h := range src.Headers {
		if n == "" || strings.ContainsRune(n, 0) || strings.ContainsRune(h, 0) {
			return fmt.Errorf("nvrtc: Source %s has a header with an empty name or a NUL byte (%q)", src.Name, n)
		}
	}
	for i, e := range src.NameExpressions {
		if strings.TrimSpace(e) == "" || strings.ContainsRune(e, 0) {
			return fmt.Errorf("nvrtc: Source %s NameExpressions[%d] = %q is empty or contains NUL", src.Name, i, e)
		}
	}
	return nil
}

// Compile runs one NVRTC compilation of src under opts, without the
// caches. Compilation failures return a *CompileError with the log.
func (l *Compiler) Compile(src Source, opts CompileOptions) (*Compiled, error) {
	if err := checkSource(src); err != nil {
		return nil, err
	}
	if err := opts.Validate(); err != nil {
		return nil, err
	}
	hnames := make([]string, 0, len(src.Headers))
	for n := range src.Headers {
		hnames = append(hnames, n)
	}
	sort.Strings(hnames)
	// Arrays of C strings: the strings are Go memory pinned for the call.
	var pin runtime.Pinner
	defer pin.Unpin()
	cstrings := func(ss []string) []uintptr {
		ptrs := make([]uintptr, len(ss)+1)
		for i, s := range ss {
			b := dl.CString(s)
			pin.Pin(&b[0])
			ptrs[i] = uintptr(unsafe.Pointer(&b[0]))
		}
		return ptrs
	}
	hdrs := make([]string, len(hnames))
	for i, n := range hnames {
		hdrs[i] = src.Headers[n]
	}
	hdrPtrs, incPtrs := cstrings(hdrs), cstrings(hnames)
	// NUL-terminated strings are passed without a copy; keeping them
	// alive until Compile returns keeps every pointer NVRTC holds valid.
	code, name := src.Code+"\x00", src.Name+"\x00"
	exprs := make([]string, len(src.NameExpressions))
	for i, e := range src.NameExpressions {
		exprs[i] = e + "\x00"
	}
	defer runtime.KeepAlive(exprs)
	defer runtime.KeepAlive(name)
	defer runtime.KeepAlive(code)
	var prog uintptr
	if r := l.nvrtcCreateProgram(&prog, code, name, int32(len(hnames)), &hdrPtrs[0], &incPtrs[0]); r != 0 {
		return nil, l.newError("nvrtcCreateProgram", r)
	}
	defer l.nvrtcDestroyProgram(&prog)

	if len(src.NameExpressions) > 0 {
		if l.nvrtcAddNameExpression == nil || l.nvrtcGetLoweredName == nil {
			return nil, fmt.Errorf("nvrtc: %s lacks nvrtcAddNameExpression; name expressions need NVRTC 10 or later", l.name)
		}
		for _, e := range exprs {
			if r := l.nvrtcAddNameExpression(prog, e); r != 0 {
				return nil, l.newError("nvrtcAddNameExpression", r)
			}
		}
	}

	rendered := opts.Options()
	optPtrs := cstrings(rendered)
	r := l.nvrtcCompileProgram(prog, int32(len(rendered)), &optPtrs[0])
	log := l.programLog(prog)
	if r != 0 {
		e := l.newError("nvrtcCompileProgram", r)
		return nil, &CompileError{Source: src.Name, Result: e.Name, Log: log, Options: rendered, Err: e}
	}

	c := &Compiled{Name: src.Name, Arch: opts.Arch, Log: log, Options: rendered, NVRTC: [2]int{l.major, l.minor}}
	var err error
	if opts.wantsCUBIN() {
		if l.nvrtcGetCUBIN == nil || l.nvrtcGetCUBINSize == nil {
			return nil, fmt.Errorf("nvrtc: %s (NVRTC %d.%d) cannot emit a cubin for %s; use compute_XY for PTX", l.name, l.major, l.minor, opts.Arch)
		}
		c.Kind = ImageCUBIN
		c.Image, err = l.output(prog, l.nvrtcGetCUBINSize, l.nvrtcGetCUBIN, "nvrtcGetCUBIN")
	} else {
		c.Kind = ImagePTX
		c.Image, err = l.output(prog, l.nvrtcGetPTXSize, l.nvrtcGetPTX, "nvrtcGetPTX")
	}
	if err != nil {
		return nil, err
	}
	if len(src.NameExpressions) > 0 {
		c.Lowered = make(map[string]string, len(src.NameExpressions))
		for i, e := range src.NameExpressions {
			var lowered *byte
			if r := l.nvrtcGetLoweredName(prog, exprs[i], &lowered); r != 0 {
				return nil, l.newError("nvrtcGetLoweredName", r)
			}
			c.Lowered[e] = dl.GoString(lowered)
		}
	}
	return c, nil
}

// output fetches the PTX or cubin of prog.
func (l *Compiler) output(prog uintptr, size func(uintptr, *uint64) result, get func(uintptr, *byte) result, api string) ([]byte, error) {
	var n uint64
	if r := size(prog, &n); r != 0 {
		return nil, l.newError(api+"Size", r)
	}
	if n == 0 {
		return nil, fmt.Errorf("nvrtc: %sSize returned 0 bytes", api)
	}
	buf := make([]byte, n)
	if r := get(prog, &buf[0]); r != 0 {
		return nil, l.newError(api, r)
	}
	return buf, nil
}

// programLog returns the compiler log of prog, without its trailing NUL.
func (l *Compiler) programLog(prog uintptr) string {
	var n uint64
	if r := l.nvrtcGetProgramLogSize(prog, &n); r != 0 || n <= 1 {
		return ""
	}
	buf := make([]byte, n)
	if r := l.nvrtcGetProgramLog(prog, &buf[0]); r != 0 {
		return ""
	}
	return strings.TrimRight(string(buf), "\x00")
}

// CompileError is a failed NVRTC compilation. It carries the full compiler
// log, the NVRTC result name and the options used.
type CompileError struct {
	Source  string         // Source.Name
	Result  string         // "NVRTC_ERROR_COMPILATION"
	Log     string         // the full program log
	Options []string       // the rendered options
	Err     *cudaerr.Error // the failing call
}

func (e *CompileError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "cudabind: compiling %s failed: %s", e.Source, e.Result)
	if len(e.Options) > 0 {
		fmt.Fprintf(&b, " (options: %s)", strings.Join(e.Options, " "))
	}
	if log := strings.TrimSpace(e.Log); log != "" {
		b.WriteString("\n")
		b.WriteString(log)
	}
	return b.String()
}

func (e *CompileError) Unwrap() error {
	if e.Err == nil {
		return nil
	}
	return e.Err
}
