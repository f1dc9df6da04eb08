// Package runfile reads and writes the run file: benchmark output as the sweep stores it.
//
// A run file is standard Go benchmark output. This package owns what the
// benchmarks write into it beyond benchstat's own format and what the
// report, the comparison, the fleet and the GPU-host runner read back: the
// keys of its configuration lines and the measured lines of the values a
// run measures on its host, which benchstat must not group by; the
// keys of a case's name and their values when a stored name lacks one,
// the rule that pairs names stored at different times, the directory name
// of a host's results, and the comment line of a case its variant refused
// as unsupported. It reads a run's cases under their pairing names
// (ReadCases) and tallies how two runs' shared cases compare (Tally), for
// the comparison of runs, the fleet's and the report's across GPUs. It
// imports nothing that needs a GPU, so that the
// benchmarks, which write runs, and package results, which reads them
// from stored files, share one definition without importing each other.
package runfile
