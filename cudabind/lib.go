package cudabind

import (
	"os"
	"strings"
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
