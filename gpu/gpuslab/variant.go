package gpuslab

import (
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strconv"

	"github.com/convbench/convbench/convolve"
	"github.com/convbench/convbench/cudabind"
	"github.com/convbench/convbench/slab"
)

// Defaults of the one-shot pipeline: chunks per device and streams per
// device, report 004's four-stream plan.
const (
	defaultChunks  = 4
	defaultStreams = 4
)

// The tunables a slab variant reads besides its wrapped variant's.
const (
	// tuneChunks is the number of chunks each device's slab is cut into in
	// one-shot mode, each with its own upload, kernel and download.
	tuneChunks = "chunks"
	// tuneStreams is the number of streams per device the chunks take in
	// turn.
	tuneStreams = "streams"
	// tuneMemCap caps the device memory of each device's slab buffers, in
	// KiB; an image whose slabs do not fit is streamed. 0 leaves the cap
	// to the device's free memory.
	tuneMemCap = "memcap-kib"
)

var ownTunables = []string{tuneChunks, tuneStreams, tuneMemCap}

// ownTunableValues are values worth trying of ownTunables (0: the
// default chunks and streams, no memory cap; a 64 KiB cap streams any
// image but the smallest). The cap lists 0 twice: a draw that sets it
// (convtest) runs uncapped two times in three, and of the cover cases,
// one per place in these lists, only the third runs capped.
var ownTunableValues = map[string][]int{tuneChunks: {0, 1, 3, 5}, tuneStreams: {0, 1, 2, 4}, tuneMemCap: {0, 0, 64}}

// variant is a slab variant: inner run on row slabs over several devices.
type variant struct {
	inner convolve.Variant
	// n is the device count the name fixes; 0 takes Config.Devices, or
	// every GPU present.
	n int
	// limit is the device-memory cap per device the name fixes (stream
	// variants), in bytes; 0 none.
	limit int64
	// open opens one logical device on an ordinal; gpus counts the GPUs
	// present. Tests replace them with the fake driver's.
	open func(ordinal int) (*cudabind.Device, error)
	gpus func() (int, error)
}

// wrap returns the slab variant of the single-GPU variant inner on n
// devices: "gpu-slab<n>-<inner>", or "gpu-slab-<inner>" for n = 0, whose
// devices are Config.Devices or, when it names none, every GPU present
// once. Its plans open one logical device per entry (an executor, its
// streams and its buffers; a repeated ordinal is another logical device
// on that GPU) and plan inner on each slab there.
func wrap(inner convolve.Variant, n int) (convolve.Variant, error) {
	if err := checkInner(inner); err != nil {
		return nil, err
	}
	if n < 0 {
		return nil, fmt.Errorf("gpuslab: Wrap of %s on %d devices: the count must not be negative", inner.Describe().Name, n)
	}
	return &variant{inner: inner, n: n, open: openLogical, gpus: gpuCount}, nil
}

// stream returns "gpu-stream<limit>-<inner>": Wrap(inner, 0) with every
// device's slab buffers capped at limit bytes, so that the image is
// streamed through the devices in slabs (StreamRows) whenever it does not
// fit under the cap: the mode for images larger than a GPU, forced on
// small ones.
func stream(inner convolve.Variant, limit int64) (convolve.Variant, error) {
	if err := checkInner(inner); err != nil {
		return nil, err
	}
	if limit < 1 {
		return nil, fmt.Errorf("gpuslab: Stream of %s under %d bytes: the cap must be positive", inner.Describe().Name, limit)
	}
	return &variant{inner: inner, limit: limit, open: openLogical, gpus: gpuCount}, nil
}

func checkInner(inner convolve.Variant) error {
	if inner == nil {
		return errors.New("gpuslab: a nil variant")
	}
	if !inner.Describe().Caps.GPU {
		return fmt.Errorf("gpuslab: %s is not a GPU variant", inner.Describe().Name)
	}
	return nil
}

// openLogical opens a logical device on ordinal: a Device of its own (an
// executor) on the GPU's primary context. The shared Device of the ordinal
// (cudabind.Shared) is opened first and stays open, so that the primary
// context, and the modules loaded in it, outlive the plans.
func openLogical(ordinal int) (*cudabind.Device, error) {
	if _, err := cudabind.Shared(ordinal); err != nil {
		return nil, err
	}
	return cudabind.Open(ordinal)
}

func gpuCount() (int, error) {
	infos, err := cudabind.Devices()
	return len(infos), err
}

func (v *variant) Describe() convolve.Description {
	d := v.inner.Describe()
	caps := d.Caps.Clone()
	caps.Tunables = append(caps.Tunables, ownTunables...)
	// The wrapped variant's setting is the whole image's
	// (variants.SettledConfig), so the slab variant declares no tuning
	// space; the values its space lists stay known in TunableValues.
	// caps is a clone: its TunableValues are its own to add to.
	vals := caps.TunableValues
	if vals == nil {
		vals = map[string][]int{}
	}
	if caps.Space != nil {
		for _, tu := range caps.Space.Tunables {
			vals[tu.Name] = slices.Clone(tu.Values)
		}
	}
	for k, v := range ownTunableValues {
		vals[k] = slices.Clone(v)
	}
	caps.Space = nil
	caps.TunableValues = vals
	caps.MultiDevice = true
	caps.NoGraphReplay = true
	switch {
	case v.limit > 0:
		return convolve.Description{
			Name:    fmt.Sprintf("gpu-stream%s-%s", slab.FormatBytes(v.limit), d.Name),
			Summary: fmt.Sprintf("%s on row slabs streamed through each device under %s of slab buffers, double-buffered over two streams", d.Name, slab.FormatBytes(v.limit)),
			Report:  "004", Caps: caps,
		}
	case v.n > 0:
		return convolve.Description{
			Name:    fmt.Sprintf("gpu-slab%d-%s", v.n, d.Name),
			Summary: fmt.Sprintf("%s on %d row slabs with halos, one per logical device, chunked over streams", d.Name, v.n),
			Report:  "004", Caps: caps,
		}
	}
	return convolve.Description{
		Name:    "gpu-slab-" + d.Name,
		Summary: fmt.Sprintf("%s on row slabs with halos, one per device (-gpus), chunked over streams", d.Name),
		Report:  "004", Caps: caps,
	}
}

// familyName matches the family's names.
var familyName = regexp.MustCompile(`^gpu-(?:slab([0-9]*)|stream([0-9]+)(B|KiB|MiB|GiB))-(.+)$`)

// Lookup returns the slab variant a name describes: "gpu-slab-<inner>",
// "gpu-slab<n>-<inner>" or "gpu-stream<limit>-<inner>" (limit such as
// 64KiB or 2GiB) of the registered GPU variant inner.
func Lookup(name string) (convolve.Variant, error) {
	m := familyName.FindStringSubmatch(name)
	if m == nil {
		return nil, fmt.Errorf("gpuslab: %q is not gpu-slab-<variant>, gpu-slab<n>-<variant> or gpu-stream<limit>-<variant>", name)
	}
	inner, err := convolve.Lookup(m[4])
	if err != nil {
		return nil, fmt.Errorf("gpuslab: %s: %w", name, err)
	}
	if m[2] != "" {
		n, err := strconv.ParseInt(m[2], 10, 64)
		shift := map[string]uint{"B": 0, "KiB": 10, "MiB": 20, "GiB": 30}[m[3]]
		if err != nil || n > (1<<62)>>shift {
			return nil, fmt.Errorf("gpuslab: %s: cap %s%s is out of range", name, m[2], m[3])
		}
		return stream(inner, n<<shift)
	}
	n := 0
	if m[1] != "" {
		if n, err = strconv.Atoi(m[1]); err != nil || n < 1 {
			return nil, fmt.Errorf("gpuslab: %s: device count %q must be a positive number", name, m[1])
		}
	}
	return wrap(inner, n)
}

// Register looks each name up and registers the variant with convolve,
// so that benchmarks and the property suite find it by name. It returns
// the first error and registers nothing after it; a name registered
// already is an error, not a panic.
func Register(names ...string) error {
	for _, name := range names {
		if _, err := convolve.Lookup(name); err == nil {
			return fmt.Errorf("gpuslab: Register: %s is registered already", name)
		}
		v, err := Lookup(name)
		if err != nil {
			return err
		}
		if got := v.Describe().Name; got != name {
			return fmt.Errorf("gpuslab: Register: %s describes itself as %s", name, got)
		}
		convolve.Register(v)
	}
	return nil
}
