package benchmarks

import (
	"crypto/sha256"
	"flag"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/convbench/convbench/gpu/userkernel"
)

// KernelFlagName is the name of the repeatable flag that adds a user's
// CUDA source file as a variant (loadKernel).
const KernelFlagName = "kernel"

// kernelFlagUsage is the -kernel flag's usage line.
const kernelFlagUsage = "a CUDA source file with a description header or sidecar (package gpu/userkernel), added as the variant user-<file name> or the name its description gives; repeatable. Its cases are timed only after the property suite proves it"

var userKernels struct {
	sync.Mutex
	byPath map[string]*userkernel.Kernel // absolute path -> kernel
}

// loadKernel reads the user kernel at path (userkernel.Load) and registers
// its variant with convolve. Loading the same file again, by any path,
// returns the kernel registered first; a description error is a *userkernel.SpecError,
// and a name already registered is an error too.
func loadKernel(path string) (*userkernel.Kernel, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, fmt.Errorf("-kernel %s: %w", path, err)
	}
	userKernels.Lock()
	defer userKernels.Unlock()
	if k, ok := userKernels.byPath[abs]; ok {
		return k, nil
	}
	k, err := userkernel.Load(abs)
	if err != nil {
		return nil, fmt.Errorf("-kernel %s: %w", path, err)
	}
	if err := userkernel.Register(k); err != nil {
		return nil, fmt.Errorf("-kernel %s: %w", path, err)
	}
	if userKernels.byPath == nil {
		userKernels.byPath = map[string]*userkernel.Kernel{}
	}
	userKernels.byPath[abs] = k
	return k, nil
}

// KernelFlag is the value of the repeatable -kernel flag: the user
// kernels its values loaded (loadKernel), each once, in the order given.
type KernelFlag struct {
	kernels []*userkernel.Kernel
}

// String lists the files loaded, comma-separated.
func (f *KernelFlag) String() string {
	if f == nil {
		return ""
	}
	var paths []string
	for _, k := range f.kernels {
		paths = append(paths, k.Path)
	}
	return strings.Join(paths, ",")
}

// Set loads the kernel at path and registers its variant (loadKernel).
func (f *KernelFlag) Set(path string) error {
	k, err := loadKernel(path)
	if err != nil {
		return err
	}
	if !slices.Contains(f.kernels, k) {
		f.kernels = append(f.kernels, k)
	}
	return nil
}

// Kernels returns the kernels the flag loaded.
func (f *KernelFlag) Kernels() []*userkernel.Kernel { return slices.Clone(f.kernels) }

// Args are the -kernel flags that load the same kernels in another
// process: one "-kernel=<absolute path>" each.
func (f *KernelFlag) Args() []string {
	var args []string
	for _, k := range f.kernels {
		args = append(args, "-"+KernelFlagName+"="+k.Path)
	}
	return args
}

// Lines describe each kernel for the output: its variant name, file and
// the start of the SHA-256 of its source, so that a result names the
// exact code it timed.
func (f *KernelFlag) Lines() []string {
	var lines []string
	for _, k := range f.kernels {
		sum := sha256.Sum256([]byte(k.Source.Code))
		lines = append(lines, fmt.Sprintf("user kernel %s: %s (sha256 %x), described in %s", k.Spec.Name, k.Path, sum[:8], k.DescribedIn))
	}
	return lines
}

// RegisterKernelFlag defines the repeatable -kernel flag on fs and
// returns its value.
func RegisterKernelFlag(fs *flag.FlagSet) *KernelFlag {
	f := new(KernelFlag)
	fs.Var(f, KernelFlagName, kernelFlagUsage)
	return f
}

// ParseKernelFlags applies every -kernel flag of args, as fs would parse
// them, before fs parses the rest, so that -variants can name the
// variants they add wherever the flags stand. It returns the first
// -kernel error; other flags are left to fs.Parse, which reports their
// errors (and finds the kernels loaded already).
func ParseKernelFlags(fs *flag.FlagSet, args []string) error {
	shadow := flag.NewFlagSet(fs.Name(), flag.ContinueOnError)
	shadow.SetOutput(io.Discard)
	var kernelErr error
	fs.VisitAll(func(f *flag.Flag) {
		if f.Name == KernelFlagName {
			shadow.Func(f.Name, f.Usage, func(s string) error {
				err := f.Value.Set(s)
				if err != nil && kernelErr == nil {
					kernelErr = err
				}
				return err
			})
			return
		}
		bf, isBool := f.Value.(interface{ IsBoolFlag() bool })
		shadow.Var(ignoredValue{isBool && bf.IsBoolFlag()}, f.Name, f.Usage)
	})
	// An error of another flag stops the scan; fs.Parse reports it.
	_ = shadow.Parse(args)
	return kernelErr
}

// ignoredValue accepts any value of a flag during ParseKernelFlags.
type ignoredValue struct{ isBool bool }

func (ignoredValue) String() string     { return "" }
func (ignoredValue) Set(string) error   { return nil }
func (v ignoredValue) IsBoolFlag() bool { return v.isBool }
