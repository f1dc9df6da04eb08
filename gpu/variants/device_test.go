package variants

import (
	"errors"
	"strings"
	"testing"

	"github.com/convbench/convbench/convolve"
	"github.com/convbench/convbench/cudabind"
	"github.com/convbench/convbench/cudabind/driver/fakedriver"
)

// TestConfigDevices checks the device choice of a single-device plan
// without a GPU: two devices are a capability error before any device is
// opened, and PlanOn refuses variants not built on Variant and a nil
// device.
func TestConfigDevices(t *testing.T) {
	v, err := convolve.Lookup("gpu-tiled")
	if err != nil {
		t.Fatal(err)
	}
	f, err := convolve.Gaussian(5, 1)
	if err != nil {
		t.Fatal(err)
	}
	p := convolve.Problem{Op: convolve.Filter2D, Input: convolve.Geometry{Width: 16, Height: 16, Channels: 1}, Filter: f}
	_, err = v.Plan(p, convolve.Config{Devices: []int{0, 1}})
	var ce *convolve.CapabilityError
	if !errors.As(err, &ce) || ce.What != "devices" || !strings.HasPrefix(ce.Value, "0,1") {
		t.Errorf("Plan with two devices = %v, want a capability error naming devices 0,1", err)
	}
	loop, err := convolve.Lookup("gpu-ch-loop")
	if err != nil {
		t.Fatal(err)
	}
	fd := &fakedriver.Driver{}
	d, err := cudabind.OpenDriver(fd, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	if _, err := PlanOn(loop, d, p, convolve.Config{}); err == nil || !strings.Contains(err.Error(), "gpu-ch-loop") {
		t.Errorf("PlanOn(gpu-ch-loop) = %v, want an error naming it", err)
	}
	if _, err := PlanOn(v, nil, p, convolve.Config{}); err == nil || !strings.Contains(err.Error(), "nil device") {
		t.Errorf("PlanOn(nil device) = %v, want an error", err)
	}
}
