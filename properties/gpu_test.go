package properties

import (
	"errors"

	"github.com/convbench/convbench/cudabind"
)

// liveAllocations is the default device's count of live allocations, or
// false when there is no device.
func liveAllocations() (int, bool) {
	dev, err := cudabind.Default()
	if err != nil {
		return 0, false
	}
	return dev.LiveAllocations(), true
}

// unavailable returns the reason CUDA cannot run here, when err says so.
func unavailable(err error) (string, bool) {
	var ua *cudabind.UnavailableError
	if errors.As(err, &ua) {
		return ua.Error(), true
	}
	return "", false
}
