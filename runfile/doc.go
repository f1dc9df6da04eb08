// Package runfile reads and writes the run file: benchmark output as the sweep stores it.
//
// A run file is standard Go benchmark output. This package owns what the
// benchmarks write into it beyond benchstat's format and what the report,
// the comparison, the fleet and the GPU-host runner read back: the keys
// of its configuration and measured lines, the keys of a case's name and
// the rule that pairs names stored at different times, its comment lines,
// and the statistics shared by the readers of runs. It imports nothing
// that needs a GPU, so that the benchmarks and package results share it.
package runfile
