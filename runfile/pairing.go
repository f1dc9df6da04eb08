package runfile

import "strings"

// PairingName returns the case name, with or without the leading
// "BenchmarkConv/" and the "-N" GOMAXPROCS suffix (both kept), in the
// form the benchmarks write today: opts is left out of CPU cases
// (timing=cpu) and written as "opts=default" into GPU cases stored
// before the key existed, and tune is left out where it holds the value
// its absence implies, as is gpus. Runs stored at different times then
// name the same case alike, so that benchstat pairs them.
func PairingName(name string) (string, error) {
	prefix, _, suffix := splitName(name)
	kv, err := Parse(name)
	if err != nil {
		return "", err
	}
	implied := Implied(kv["timing"])
	var sb strings.Builder
	sb.WriteString(prefix)
	for _, key := range Keys() {
		v := kv[key]
		if key == "opts" && kv["timing"] == CPUTiming && v == implied || (key == "tune" || key == "gpus") && v == implied {
			continue
		}
		if sb.Len() > len(prefix) {
			sb.WriteByte('/')
		}
		sb.WriteString(key + "=" + v)
	}
	return sb.String() + suffix, nil
}
