package cudabind

import (
	"fmt"
	"strings"
	"testing"
)

// TestMemInfoOutsideDo: MemInfo needs the executor, like every driver
// call; this holds without a GPU.
func TestMemInfoOutsideDo(t *testing.T) {
	var x *Exec
	if _, _, err := x.MemInfo(); err == nil || !strings.Contains(err.Error(), "MemInfo") {
		t.Errorf("MemInfo on a nil *Exec: %v", err)
	}
}

// TestMemInfo: the driver's free memory is positive, at most the total,
// the total at most the device's, and a 256 MiB allocation takes at least that
// much from the free memory until it is freed. Free memory is the
// device's, shared with every other process on it (the test stage runs
// packages side by side), so one of up to five tries must see the drop.
func TestMemInfo(t *testing.T) {
	d := gpu(t)
	const n = 256 << 20
	const tries = 5
	var seen []string
	err := d.Do(func(x *Exec) error {
		for range tries {
			free, total, err := x.MemInfo()
			if err != nil {
				return err
			}
			if free <= 0 || free > total || total > d.Info().TotalMemBytes {
				t.Errorf("MemInfo = %d free of %d; device total %d", free, total, d.Info().TotalMemBytes)
				return nil
			}
			p, err := x.Alloc(n)
			if err != nil {
				return err
			}
			after, _, err := x.MemInfo()
			if ferr := x.Free(p); err == nil {
				err = ferr
			}
			if err != nil {
				return err
			}
			if free-after >= n {
				return nil
			}
			seen = append(seen, fmt.Sprintf("%d before, %d after", free, after))
		}
		t.Errorf("a %d-byte allocation took less than its size from the free memory in each of %d tries: %s", n, tries, strings.Join(seen, "; "))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
