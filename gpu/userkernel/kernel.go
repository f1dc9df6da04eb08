package userkernel

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"github.com/convbench/convbench/convolve"
	"github.com/convbench/convbench/cudabind"
	"github.com/convbench/convbench/gpu/kernels"
	"github.com/convbench/convbench/gpu/variants"
)

// MaxSourceBytes bounds a kernel file and each header it includes.
const MaxSourceBytes = 4 << 20

// Kernel is a user's kernel: its description and its source with the
// headers it includes, read once by Load.
type Kernel struct {
	// Path is the .cu file as given to Load; DescribedIn is the file
	// holding the description (Path itself, or the sidecar).
	Path, DescribedIn string
	Spec              Spec
	// Source is what NVRTC compiles: the file's text under its base name,
	// with the built-in headers (border.cuh, unroll.cuh) and the quoted
	// includes found beside the file.
	Source cudabind.Source
}

// stemOf is the base name of file without its extension.
func stemOf(file string) string {
	b := filepath.Base(file)
	return strings.TrimSuffix(b, filepath.Ext(b))
}

// SidecarPath is the sidecar description file of the kernel file path:
// the same name with SidecarExt in place of its extension.
func SidecarPath(path string) string {
	return strings.TrimSuffix(path, filepath.Ext(path)) + SidecarExt
}

// readLimited reads a regular file of at most MaxSourceBytes.
func readLimited(path string) (string, error) {
	st, err := os.Stat(path)
	if err != nil {
		return "", err
	}
	if !st.Mode().IsRegular() {
		return "", fmt.Errorf("%s: not a regular file", path)
	}
	if st.Size() > MaxSourceBytes {
		return "", fmt.Errorf("%s: %d bytes, more than the %d a kernel source may have", path, st.Size(), MaxSourceBytes)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return "", err
	}
	if strings.ContainsRune(string(b), 0) {
		return "", fmt.Errorf("%s: contains a NUL byte: not CUDA source text", path)
	}
	return string(b), nil
}

// Load reads the CUDA source at path and its description: the header
// opened by Marker in the file, or else the sidecar file SidecarPath(path).
// A description in both places, or in neither, is an error, as is any
// field the description gets wrong (a *SpecError naming file, line, field
// and the valid values).
func Load(path string) (*Kernel, error) {
	if filepath.Ext(path) == SidecarExt {
		return nil, &SpecError{File: path, Msg: "is a sidecar description: give the CUDA source file it describes"}
	}
	code, err := readLimited(path)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			wd, _ := os.Getwd()
			return nil, fmt.Errorf("userkernel: %w (relative paths are taken from the working directory %s)", err, wd)
		}
		return nil, fmt.Errorf("userkernel: %w", err)
	}
	if strings.TrimSpace(code) == "" {
		return nil, &SpecError{File: path, Msg: "empty kernel file"}
	}
	side := SidecarPath(path)
	sideText, sideErr := readLimited(side)
	spec, inHeader, err := ParseHeader(path, code)
	if err != nil {
		return nil, err
	}
	k := &Kernel{Path: path, DescribedIn: path}
	switch {
	case inHeader && sideErr == nil:
		return nil, &SpecError{File: path, Msg: fmt.Sprintf("described both by its header and by the sidecar file %s: keep one", side)}
	case inHeader:
	case sideErr == nil:
		if spec, err = ParseSidecar(side, path, sideText); err != nil {
			return nil, err
		}
		k.DescribedIn = side
	case errors.Is(sideErr, fs.ErrNotExist):
		return nil, &SpecError{File: path, Msg: fmt.Sprintf("no kernel description: start a comment header with the line %q, or write the sidecar file %s", Marker, side),
			Valid: "fields " + strings.Join(FieldNames(), ", ")}
	default:
		return nil, fmt.Errorf("userkernel: sidecar of %s: %w", path, sideErr)
	}
	k.Spec = spec
	headers, err := includes(path, code)
	if err != nil {
		return nil, err
	}
	k.Source = cudabind.Source{Name: filepath.Base(path), Code: code, Headers: headers}
	return k, nil
}

var includePattern = regexp.MustCompile(`(?m)^[ \t]*#[ \t]*include[ \t]*"([^"]+)"`)

// includes returns the headers NVRTC gets with the source of path: the
// built-in ones (kernels.Headers), then every quoted #include of the
// source, and of those headers in turn, found as a file relative to the
// source's directory. A built-in name is never looked up on disk; an
// include found nowhere is left to NVRTC, which reports it.
func includes(path, code string) (map[string]string, error) {
	h := kernels.Headers()
	builtin := map[string]bool{}
	for n := range h {
		builtin[n] = true
	}
	dir := filepath.Dir(path)
	var walk func(text string, depth int) error
	walk = func(text string, depth int) error {
		if depth > 16 {
			return fmt.Errorf("userkernel: %s: includes nested more than 16 deep", path)
		}
		for _, m := range includePattern.FindAllStringSubmatch(text, -1) {
			name := m[1]
			if _, done := h[name]; done || builtin[name] {
				continue
			}
			file := filepath.Join(dir, filepath.FromSlash(name))
			body, err := readLimited(file)
			if errors.Is(err, fs.ErrNotExist) {
				continue
			}
			if err != nil {
				return fmt.Errorf("userkernel: include %q of %s: %w", name, path, err)
			}
			h[name] = body
			if err := walk(body, depth+1); err != nil {
				return err
			}
		}
		return nil
	}
	if err := walk(code, 0); err != nil {
		return nil, err
	}
	return h, nil
}

// Description is the variant's description: its name, a summary naming
// the file, and the capabilities the kernel's description declares.
func (k *Kernel) Description() convolve.Description {
	return convolve.Description{
		Name:    k.Spec.Name,
		Summary: fmt.Sprintf("%s (%s)", k.Spec.Summary, k.Path),
		Caps:    k.Spec.Capabilities(),
	}
}

// Variant is the kernel as a GPU variant: Plan checks the declared
// capabilities, compiles the source with NVRTC for the device at hand
// with the defines of the plan (see the package documentation), uploads
// the filter and launches Entry by the description's geometry.
func (k *Kernel) Variant() *variants.Variant {
	return &variants.Variant{Desc: k.Description(), Block: k.Spec.Block, Setup: k.setup}
}

// Register registers k's variant with convolve, or returns a *SpecError
// when its name is the reference's or a registered variant's.
func Register(k *Kernel) error {
	if k.Spec.Name == "reference" {
		return &SpecError{File: k.DescribedIn, Field: "name", Value: k.Spec.Name, Msg: "is the float64 reference's name"}
	}
	if v, err := convolve.Lookup(k.Spec.Name); err == nil {
		return &SpecError{File: k.DescribedIn, Field: "name", Value: k.Spec.Name,
			Msg: fmt.Sprintf("is taken by the registered variant %q (%s): set another name", v.Describe().Name, v.Describe().Summary)}
	}
	convolve.Register(k.Variant())
	return nil
}

// Extra are the macros a kernel gets besides variants.Defines: RX and RY,
// the output patch of one thread.
func (k *Kernel) Extra() map[string]string {
	return map[string]string{"RX": strconv.Itoa(k.Spec.Geometry.RX), "RY": strconv.Itoa(k.Spec.Geometry.RY)}
}

// SharedBytes is the dynamic shared memory of a launch with block b and
// a kw x kh filter.
func (k *Kernel) SharedBytes(b convolve.Block, kw, kh int) int {
	if k.Spec.Shared != TileShared {
		return 0
	}
	g := k.Spec.Geometry
	return (b.X*g.RX + kw - 1) * (b.Y*g.RY + kh - 1) * 4
}

// CompileOptions are the NVRTC options of a plan of p under cfg with
// block b: variants.CompileOptions with Extra, for arch ("" leaves it to
// the device).
func (k *Kernel) CompileOptions(arch string, p convolve.Problem, cfg convolve.Config, b convolve.Block, index64 bool) cudabind.CompileOptions {
	o := variants.CompileOptions(p, cfg, b, index64, k.Extra())
	o.Arch = arch
	return o
}

// Compile compiles the kernel for arch (sm_XY or compute_XY) and the
// specialization of p, cfg and block b with NVRTC alone, no driver
// needed, and checks that the image holds Entry. Without NVRTC it
// returns a *cudabind.UnavailableError.
func (k *Kernel) Compile(arch string, p convolve.Problem, cfg convolve.Config, b convolve.Block) (*cudabind.Compiled, error) {
	if b == (convolve.Block{}) {
		b = k.Spec.Block
	}
	c, err := cudabind.CompileOnly(k.Source, k.CompileOptions(arch, p, cfg, b, false))
	if err != nil {
		return nil, fmt.Errorf("userkernel: %s: compile %s for %v: %w", k.Spec.Name, k.Path, p, err)
	}
	if !hasEntry(c, k.Spec.Entry) {
		return nil, fmt.Errorf("userkernel: %s: %s compiled, but holds no kernel named %q: declare it extern \"C\" __global__", k.Spec.Name, k.Path, k.Spec.Entry)
	}
	return c, nil
}

// hasEntry reports whether the compiled image defines the kernel entry
// under its unmangled name: ".entry NAME(" in PTX; in a cubin, NAME as a
// whole string of the ELF string tables, or the end of its section name
// ".text.NAME". A kernel without extern "C" has only a mangled name.
func hasEntry(c *cudabind.Compiled, entry string) bool {
	img := string(c.Image)
	if c.Kind == cudabind.ImagePTX {
		return regexp.MustCompile(`\.entry\s+` + regexp.QuoteMeta(entry) + `\s*\(`).MatchString(img)
	}
	return strings.Contains(img, "\x00"+entry+"\x00") || strings.Contains(img, "."+entry+"\x00")
}

// grid is the launch grid of the description's geometry for a plan.
func (k *Kernel) grid(b *variants.Base) (grid, block cudabind.Dim3, err error) {
	in := b.Problem.Input
	g := k.Spec.Geometry
	return variants.Grid((in.Width+g.RX-1)/g.RX, (in.Height+g.RY-1)/g.RY, in.Channels, b.Block)
}

// setup is the variant's Setup: compile, look up Entry, upload the
// filter and set the launch.
func (k *Kernel) setup(b *variants.Base) error {
	name := k.Spec.Name
	grid, block, err := k.grid(b)
	if err != nil {
		return convolve.NameVariant(name, err)
	}
	shared := k.SharedBytes(b.Block, b.Filter.Width, b.Filter.Height)
	if err := b.CheckShared(shared); err != nil {
		return err
	}
	if k.Spec.Constant != "" {
		if err := b.CheckConstant(b.Filter.Taps()); err != nil {
			return err
		}
	}
	mod, err := b.Dev.Compile(k.Source, k.CompileOptions("", b.Problem, b.Config, b.Block, b.Index64))
	if err != nil {
		return fmt.Errorf("userkernel: %s: compile %s for %v: %w", name, k.Path, b.Problem, err)
	}
	// The module is the plan's own: its __constant__ array holds this
	// plan's weights.
	b.OnClose(func(*cudabind.Exec) error { return mod.Close() })
	fn, err := b.Function(mod, k.Spec.Entry, shared)
	if err != nil {
		return fmt.Errorf("%w (entry %q must be an extern \"C\" __global__ function of %s)", err, k.Spec.Entry, k.Path)
	}
	filter, err := b.UploadFloats(b.Filter.Weights)
	if err != nil {
		return err
	}
	if k.Spec.Constant != "" {
		if err := b.SetConstant(mod, k.Spec.Constant, b.Filter.Weights); err != nil {
			return fmt.Errorf("%w (filter: constant %s needs __constant__ float %s[KW * KH] in %s)", err, k.Spec.Constant, k.Spec.Constant, k.Path)
		}
	}
	w, h := b.Dims()
	b.Enqueue = func(x *cudabind.Exec, s cudabind.Stream) error {
		return x.Launch(fn, grid, block, shared, s, b.In, filter, b.Out, w, h, b.Stride())
	}
	return nil
}
