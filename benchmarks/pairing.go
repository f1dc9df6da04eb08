package benchmarks

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/convbench/convbench/benchmarks/benchname"
	"golang.org/x/perf/benchfmt"
)

// PairingName returns the case name, with or without the leading
// "BenchmarkConv/" and the "-N" GOMAXPROCS suffix (both kept), in the
// form Case.Name writes today: opts is left out of CPU cases
// (timing=cpu) and written as "opts=default" into GPU cases stored
// before the key existed, and tune is left out where it holds the value
// its absence implies, as is gpus. Runs stored at different times then name the same
// case alike, so that benchstat pairs them.
func PairingName(name string) (string, error) {
	prefix := ""
	for _, p := range []string{"BenchmarkConv/", "Conv/"} {
		if strings.HasPrefix(name, p) {
			prefix = p
			break
		}
	}
	suffix := ""
	if i := strings.LastIndexByte(name, '-'); i > strings.LastIndexByte(name, '=') {
		if _, err := strconv.Atoi(name[i+1:]); err == nil {
			suffix = name[i:]
		}
	}
	kv, err := benchname.Parse(name)
	if err != nil {
		return "", err
	}
	implied := benchname.Implied(kv["timing"])
	var sb strings.Builder
	sb.WriteString(prefix)
	for _, key := range benchname.Keys() {
		v := kv[key]
		if key == "opts" && kv["timing"] == string(CPUTiming) && v == implied || (key == "tune" || key == "gpus") && v == implied {
			continue
		}
		if sb.Len() > len(prefix) {
			sb.WriteByte('/')
		}
		sb.WriteString(key + "=" + v)
	}
	return sb.String() + suffix, nil
}

// rewriteForPairing copies the benchmark output in r to w, every
// BenchmarkConv result renamed by PairingName; configuration, unit lines
// and other benchmarks pass unchanged. name labels r in errors.
func rewriteForPairing(w io.Writer, r io.Reader, name string) error {
	rd := benchfmt.NewReader(r, name)
	wr := benchfmt.NewWriter(w)
	for rd.Scan() {
		rec := rd.Result()
		if res, ok := rec.(*benchfmt.Result); ok {
			if base, _ := res.Name.Parts(); string(base) == "Conv" {
				pn, err := PairingName(string(res.Name))
				if err != nil {
					file, line := res.Pos()
					return fmt.Errorf("%s:%d: %w", file, line, err)
				}
				res.Name = benchfmt.Name(pn)
			}
		}
		if err := wr.Write(rec); err != nil {
			return err
		}
	}
	return rd.Err()
}
