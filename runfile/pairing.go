package runfile

import "strings"

// PairingName returns the case name, its prefix and suffix kept, in the
// form the benchmarks write today, so that benchstat pairs the cases of
// runs stored at different times: opts is left out of CPU cases and
// written into GPU cases, and tune and gpus are left out where they hold
// their implied value.
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
