package devfacts

import "github.com/convbench/convbench/cudabind"

// Known holds the device attributes of the GPUs the project supports, as
// cuDeviceGetAttribute and cuDeviceTotalMem report them, so that the
// variants' validity rules can be checked against every supported device
// on a machine without one. The H100 and H200 entries were read off those
// devices by cudabind's device test (results/logs); the A100, L4 and RTX
// 4090 entries follow the compute-capability tables of the CUDA
// programming guide (shared memory, threads, registers) and the cards'
// data sheets (SMs, clocks, memory). On a GPU host the rules read the
// device itself (cudabind.Device.Info); Known stands in for devices the
// host does not have.
var Known = knownDevices([]knownRow{
	// name, compute capability, SMs, SM and memory clocks (kHz), bus bits,
	// L2 bytes, shared memory per SM, memory bytes, threads per SM
	{"NVIDIA H100 80GB HBM3", 9, 0, 132, 1980000, 2619000, 5120, 52428800, 233472, 85017493504, 2048},
	{"NVIDIA H200", 9, 0, 132, 1980000, 3201000, 6016, 62914560, 233472, 150109880320, 2048},
	{"NVIDIA A100-SXM4-80GB", 8, 0, 108, 1410000, 1593000, 5120, 41943040, 167936, 85097971712, 2048},
	{"NVIDIA L4", 8, 9, 58, 2040000, 6251000, 192, 50331648, 102400, 23580639232, 1536},
	{"NVIDIA GeForce RTX 4090", 8, 9, 128, 2520000, 10501000, 384, 75497472, 102400, 25393692672, 1536},
})

// knownRow is what sets one GPU of Known apart from the others.
type knownRow struct {
	name                  string
	major, minor          int // compute capability
	sms                   int
	clockKHz, memClockKHz int
	busBits, l2Bytes      int
	sharedPerSM           int
	totalMem              int64
	threadsPerSM          int
}

// knownDevices turns rows into device attributes: each row's own numbers,
// the peak bandwidth its memory clock and bus give, a block's shared-memory
// opt-in 1 KiB under the SM's (the driver reserves 1 KiB per block), and
// the limits every supported GPU shares.
func knownDevices(rows []knownRow) []cudabind.DeviceInfo {
	out := make([]cudabind.DeviceInfo, len(rows))
	for i, r := range rows {
		out[i] = cudabind.DeviceInfo{
			Name: r.name, Major: r.major, Minor: r.minor, SMs: r.sms,
			ClockKHz: r.clockKHz, MemClockKHz: r.memClockKHz, BusWidthBits: r.busBits, PeakBandwidthGBps: cudabind.PeakBandwidthGBps(r.memClockKHz, r.busBits),
			L2Bytes: r.l2Bytes, SharedPerBlock: 49152, SharedPerBlockOptin: r.sharedPerSM - 1024, SharedPerSM: r.sharedPerSM,
			ConstantBytes: 65536, TotalMemBytes: r.totalMem,
			MaxThreadsPerBlock: 1024, MaxThreadsPerSM: r.threadsPerSM, MaxBlockDimX: 1024, MaxGridDimX: 2147483647,
			WarpSize: 32, RegistersPerBlock: 65536, TextureAlignment: 512, TexturePitchAlignment: 32,
			MaxTex1DLinearWidth: 268435456, MaxTex2DLinearWidth: 131072, MaxTex2DLinearHeight: 65000, MaxTex2DLinearPitch: 2097120,
		}
	}
	return out
}
