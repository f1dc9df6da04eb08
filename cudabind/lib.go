package cudabind

import (
	"os"
	"strings"
	"sync"
)

// EnvLibCUDA names the driver library tried instead of libcuda.so.1.
const EnvLibCUDA = "CONVBENCH_LIBCUDA"

// DriverSearchList returns the names tried for the driver library: the
// value of CONVBENCH_LIBCUDA when set, otherwise libcuda.so.1.
func DriverSearchList() []string {
	if p := strings.TrimSpace(os.Getenv(EnvLibCUDA)); p != "" {
		return []string{p}
	}
	return []string{"libcuda.so.1"}
}

// onceValue caches the first result of a loader, success or failure.
type onceValue[T any] struct {
	once sync.Once
	v    T
	err  error
}

func (o *onceValue[T]) get(load func() (T, error)) (T, error) {
	o.once.Do(func() { o.v, o.err = load() })
	return o.v, o.err
}
