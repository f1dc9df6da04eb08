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
var Known = []cudabind.DeviceInfo{
	{
		Name: "NVIDIA H100 80GB HBM3", Major: 9, Minor: 0, SMs: 132,
		ClockKHz: 1980000, MemClockKHz: 2619000, BusWidthBits: 5120, PeakBandwidthGBps: 3352.32,
		L2Bytes: 52428800, SharedPerBlock: 49152, SharedPerBlockOptin: 232448, SharedPerSM: 233472,
		ConstantBytes: 65536, TotalMemBytes: 85017493504,
		MaxThreadsPerBlock: 1024, MaxThreadsPerSM: 2048, MaxBlockDimX: 1024, MaxGridDimX: 2147483647,
		WarpSize: 32, RegistersPerBlock: 65536, TextureAlignment: 512, TexturePitchAlignment: 32,
		MaxTex1DLinearWidth: 268435456, MaxTex2DLinearWidth: 131072, MaxTex2DLinearHeight: 65000, MaxTex2DLinearPitch: 2097120,
	},
	{
		Name: "NVIDIA H200", Major: 9, Minor: 0, SMs: 132,
		ClockKHz: 1980000, MemClockKHz: 3201000, BusWidthBits: 6016, PeakBandwidthGBps: 4814.304,
		L2Bytes: 62914560, SharedPerBlock: 49152, SharedPerBlockOptin: 232448, SharedPerSM: 233472,
		ConstantBytes: 65536, TotalMemBytes: 150109880320,
		MaxThreadsPerBlock: 1024, MaxThreadsPerSM: 2048, MaxBlockDimX: 1024, MaxGridDimX: 2147483647,
		WarpSize: 32, RegistersPerBlock: 65536, TextureAlignment: 512, TexturePitchAlignment: 32,
		MaxTex1DLinearWidth: 268435456, MaxTex2DLinearWidth: 131072, MaxTex2DLinearHeight: 65000, MaxTex2DLinearPitch: 2097120,
	},
	{
		Name: "NVIDIA A100-SXM4-80GB", Major: 8, Minor: 0, SMs: 108,
		ClockKHz: 1410000, MemClockKHz: 1593000, BusWidthBits: 5120, PeakBandwidthGBps: 2039.04,
		L2Bytes: 41943040, SharedPerBlock: 49152, SharedPerBlockOptin: 166912, SharedPerSM: 167936,
		ConstantBytes: 65536, TotalMemBytes: 85097971712,
		MaxThreadsPerBlock: 1024, MaxThreadsPerSM: 2048, MaxBlockDimX: 1024, MaxGridDimX: 2147483647,
		WarpSize: 32, RegistersPerBlock: 65536, TextureAlignment: 512, TexturePitchAlignment: 32,
		MaxTex1DLinearWidth: 268435456, MaxTex2DLinearWidth: 131072, MaxTex2DLinearHeight: 65000, MaxTex2DLinearPitch: 2097120,
	},
	{
		Name: "NVIDIA L4", Major: 8, Minor: 9, SMs: 58,
		ClockKHz: 2040000, MemClockKHz: 6251000, BusWidthBits: 192, PeakBandwidthGBps: 300.048,
		L2Bytes: 50331648, SharedPerBlock: 49152, SharedPerBlockOptin: 101376, SharedPerSM: 102400,
		ConstantBytes: 65536, TotalMemBytes: 23580639232,
		MaxThreadsPerBlock: 1024, MaxThreadsPerSM: 1536, MaxBlockDimX: 1024, MaxGridDimX: 2147483647,
		WarpSize: 32, RegistersPerBlock: 65536, TextureAlignment: 512, TexturePitchAlignment: 32,
		MaxTex1DLinearWidth: 268435456, MaxTex2DLinearWidth: 131072, MaxTex2DLinearHeight: 65000, MaxTex2DLinearPitch: 2097120,
	},
	{
		Name: "NVIDIA GeForce RTX 4090", Major: 8, Minor: 9, SMs: 128,
		ClockKHz: 2520000, MemClockKHz: 10501000, BusWidthBits: 384, PeakBandwidthGBps: 1008.096,
		L2Bytes: 75497472, SharedPerBlock: 49152, SharedPerBlockOptin: 101376, SharedPerSM: 102400,
		ConstantBytes: 65536, TotalMemBytes: 25393692672,
		MaxThreadsPerBlock: 1024, MaxThreadsPerSM: 1536, MaxBlockDimX: 1024, MaxGridDimX: 2147483647,
		WarpSize: 32, RegistersPerBlock: 65536, TextureAlignment: 512, TexturePitchAlignment: 32,
		MaxTex1DLinearWidth: 268435456, MaxTex2DLinearWidth: 131072, MaxTex2DLinearHeight: 65000, MaxTex2DLinearPitch: 2097120,
	},
}
