package cudabind

import "github.com/convbench/convbench/cudabind/nvml"

// NVML lives in package nvml; these names keep it reachable from package
// cudabind.

// NVMLDevice is a GPU as NVML sees it: clocks, power, temperature and,
// from Volta on, the energy counter (EnergyMJ, millijoules since the
// driver loaded).
type NVMLDevice = nvml.Device

// OpenNVML loads NVML on first use and returns the device whose UUID is
// uuid, as DeviceInfo.UUID gives it (nvml.Open).
func OpenNVML(uuid string) (*NVMLDevice, error) { return nvml.Open(uuid) }
