package cudabind

import (
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
// much from the free memory until it is freed.
func TestMemInfo(t *testing.T) {
	d := gpu(t)
	const n = 256 << 20
	err := d.Do(func(x *Exec) error {
		free, total, err := x.MemInfo()
		if err != nil {
			return err
		}
		if free <= 0 || free > total || total > d.Info().TotalMemBytes {
			t.Errorf("MemInfo = %d free of %d; device total %d", free, total, d.Info().TotalMemBytes)
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
		if free-after < n {
			t.Errorf("free memory %d before and %d after a %d-byte allocation", free, after, n)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
