package benchmarks

// OpenHost looks for a usable CUDA device and describes it.
func OpenHost() Host {
	return Host{NoGPUReason: "this build has no CUDA device support yet"}
}
