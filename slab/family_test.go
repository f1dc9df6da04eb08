package slab

import (
	"fmt"
	"regexp"
	"strconv"

	"github.com/convbench/convbench/convolve"
)

// familyName matches the names of the family: "slab<n>-<inner>" and
// "stream<limit>-<inner>" with the limit in bytes, or in KiB, MiB or GiB
// as Describe writes it.
var familyName = regexp.MustCompile(`^(?:slab([0-9]+)|stream([0-9]+)(B|KiB|MiB|GiB))-(.+)$`)

// Lookup returns the slab variant a name describes: "slab<n>-<inner>" is
// Wrap of the registered variant inner in n slabs, "stream<limit>-<inner>"
// (limit such as 4096B, 64KiB, 2MiB or 1GiB) is Stream of it under that
// limit. The inner variant must be registered with convolve; it may itself
// be a name of the family.
func Lookup(name string) (convolve.Variant, error) {
	m := familyName.FindStringSubmatch(name)
	if m == nil {
		return nil, fmt.Errorf("slab: %q is not slab<n>-<variant> or stream<limit>-<variant> (limit such as 64KiB)", name)
	}
	inner, err := lookupInner(m[4])
	if err != nil {
		return nil, fmt.Errorf("slab: %s: %w", name, err)
	}
	if m[1] != "" {
		n, err := strconv.Atoi(m[1])
		if err != nil {
			return nil, fmt.Errorf("slab: %s: slab count %q: %w", name, m[1], err)
		}
		return Wrap(inner, n)
	}
	n, err := strconv.ParseInt(m[2], 10, 64)
	shift := map[string]uint{"B": 0, "KiB": 10, "MiB": 20, "GiB": 30}[m[3]]
	if err != nil || n > (1<<62)>>shift {
		return nil, fmt.Errorf("slab: %s: limit %s%s is out of range", name, m[2], m[3])
	}
	return Stream(inner, n<<shift)
}

// lookupInner finds a registered variant, or a name of the family.
func lookupInner(name string) (convolve.Variant, error) {
	v, err := convolve.Lookup(name)
	if err == nil {
		return v, nil
	}
	if familyName.MatchString(name) {
		return Lookup(name)
	}
	return nil, err
}

// Register looks each name up (Lookup) and registers the variant with
// convolve under it, so that benchmarks and presets find it by name. It
// returns the first error and registers nothing after it; a name already
// registered is an error, not a panic.
func Register(names ...string) error {
	for _, name := range names {
		if _, err := convolve.Lookup(name); err == nil {
			return fmt.Errorf("slab: Register: %s is registered already", name)
		}
		v, err := Lookup(name)
		if err != nil {
			return err
		}
		if got := v.Describe().Name; got != name {
			return fmt.Errorf("slab: Register: %s describes itself as %s; write the name as %s", name, got, got)
		}
		convolve.Register(v)
	}
	return nil
}
