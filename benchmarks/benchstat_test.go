package benchmarks

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// hostValue matches a line of a run that records a value the benchmarks
// measure on the host, either as a configuration line or as a comment,
// and captures the key and the number.
var hostValue = regexp.MustCompile(`^(?:# measured )?(cpu-copy-gbps|cpu-scalar-gflops|cpu-fma-gflops|gpu-copy-gbps|gpu-peak-gbps|gpu-peak-gflops|gpu-max-sm-mhz|gpu-h2d-gbps|gpu-d2h-gbps|gpu-bidir-gbps): ([0-9.]+)$`)

// onAnotherHost returns run as another host of the same hardware would
// have written it: every value the run measured on its host is scaled
// by 1.25 (the result lines are left as they are). It fails t when the
// run records no such value.
func onAnotherHost(t *testing.T, run []byte) []byte {
	t.Helper()
	var out bytes.Buffer
	changed := 0
	sc := bufio.NewScanner(bytes.NewReader(run))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if m := hostValue.FindStringSubmatchIndex(line); m != nil {
			x, err := strconv.ParseFloat(line[m[4]:m[5]], 64)
			if err != nil {
				t.Fatal(err)
			}
			line = line[:m[4]] + strconv.FormatFloat(1.25*x+1, 'f', 1, 64)
			changed++
		}
		out.WriteString(line + "\n")
	}
	if changed == 0 {
		t.Fatalf("the run records no value measured on its host:\n%s", run)
	}
	return out.Bytes()
}

// benchstatCSV runs the benchstat of go.mod's tool directive on files,
// with its default grouping, and returns its CSV output's records.
func benchstatCSV(t *testing.T, files ...string) [][]string {
	t.Helper()
	gocmd, err := exec.LookPath("go")
	if err != nil {
		t.Skipf("no go command to run benchstat: %v", err)
	}
	args := append([]string{"tool", "benchstat", "-format", "csv"}, files...)
	cmd := exec.Command(gocmd, args...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("go %s: %v\n%s", strings.Join(args, " "), err, stderr.String())
	}
	r := csv.NewReader(&stdout)
	r.FieldsPerRecord = -1
	recs, err := r.ReadAll()
	if err != nil {
		t.Fatalf("benchstat's CSV: %v\n%s", err, stdout.String())
	}
	return recs
}

// Two runs of one sweep, on hosts of the same hardware whose measured
// copy bandwidths and compute rates differ, compare in one table under
// benchstat's defaults (plain benchstat old.txt new.txt), every case
// paired: the values a run measures on its host are not configuration.
func TestBenchstatPairsRunsOfTwoHosts(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the benchmark binary and builds benchstat")
	}
	const pattern = "^BenchmarkConv$/^variant=cpu-(fast|naive)$/^size=512x512$/"
	run := freshCPURun(t, pattern)
	dir := t.TempDir()
	old, new := filepath.Join(dir, "old.txt"), filepath.Join(dir, "new.txt")
	if err := os.WriteFile(old, run, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(new, onAnotherHost(t, run), 0o644); err != nil {
		t.Fatal(err)
	}
	// benchstat's CSV has a block per table and unit: a header row
	// naming the runs of the table, then a row per case. Runs it could
	// not pair are in separate tables, each header naming one.
	recs := benchstatCSV(t, old, new)
	headers, cases := 0, 0
	for _, rec := range recs {
		switch {
		case len(rec) > 1 && rec[0] == "" && strings.HasSuffix(rec[1], ".txt"):
			headers++
			if !slices.Contains(rec, old) || !slices.Contains(rec, new) {
				t.Errorf("a table of benchstat holds one run, not both: %q", rec)
			}
		case strings.HasPrefix(rec[0], "Conv/"):
			cases++
			if len(rec) < 4 || rec[1] == "" || rec[3] == "" {
				t.Errorf("case %s is not paired: %q", rec[0], rec)
			}
		}
	}
	if headers == 0 || cases == 0 {
		t.Errorf("benchstat printed %d tables and %d case rows:\n%s", headers, cases, csvText(recs))
	}
	if t.Failed() {
		t.Logf("benchstat -format csv:\n%s", csvText(recs))
	}
}

// csvText is recs as text, for a failure's message.
func csvText(recs [][]string) string {
	var b strings.Builder
	for _, r := range recs {
		fmt.Fprintln(&b, strings.Join(r, ","))
	}
	return b.String()
}
