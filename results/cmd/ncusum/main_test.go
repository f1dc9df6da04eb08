package main

import (
	"bytes"
	"errors"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/convbench/convbench/internal/golden"
)

// TestMain runs the command itself when the tests start their own
// binary with NCUSUM_RUN_MAIN=1, so that TestExit sees its exit status.
func TestMain(m *testing.M) {
	if os.Getenv("NCUSUM_RUN_MAIN") == "1" {
		main()
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// testdata/details.csv is written by hand after ncu's CSV details page of
// the SpeedOfLight section, 20 columns (rule columns included), as the
// ncu stage of scripts/gpu-run.sh keeps it: its two comment lines, ncu's
// "==PROF==" and "==WARNING==" lines and the benchmark's own output
// before the header, and more of that output between rows. It holds two
// launches of a template kernel whose name has commas (durations in
// msecond and usecond, one with a thousands separator), a memory-bound
// kernel whose DRAM Throughput row is missing and whose L2 share is
// "n/a", and a compute-bound kernel; each launch has its rule row.
//
// testdata/h200.csv is the ncu stage's CSV of one run on an H200, as
// ncu 2025 wrote it: its metric rows end at the Metric Value with a
// trailing comma (16 fields against the header's 20), and only its rule
// rows fill the rule columns. It profiled three launches of cuFFT's
// kernels, the first three the benchmark binary launched after the two
// skipped.
func TestGolden(t *testing.T) {
	for _, tt := range []struct {
		golden string
		args   []string
	}{
		{"details", []string{"testdata/details.csv"}},
		{"details-tsv", []string{"-tsv", "testdata/details.csv"}},
		{"h200", []string{"testdata/h200.csv"}},
	} {
		t.Run(tt.golden, func(t *testing.T) {
			var out, stderr bytes.Buffer
			if err := run(tt.args, strings.NewReader(""), &out, &stderr); err != nil {
				t.Fatal(err)
			}
			if stderr.Len() > 0 {
				t.Errorf("stderr: %s", stderr.String())
			}
			checkGolden(t, tt.golden, out.Bytes())
		})
	}
}

// checkGolden compares got with testdata/NAME.golden (golden.Check).
func checkGolden(t *testing.T, name string, got []byte) {
	t.Helper()
	golden.Check(t, filepath.Join("testdata", name+".golden"), got)
}

// The fixture's figures, read back through -tsv: the template kernel's
// two launches are one row, its median duration the mean of 1230us and
// 1234.56us.
func TestDetailsTSV(t *testing.T) {
	var out bytes.Buffer
	if err := run([]string{"-tsv", "testdata/details.csv"}, nil, &out, &out); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	want := []string{
		strings.Join(header, "\t"),
		"void conv<float, 3>(const float *, float *, int)\t(16, 16, 1)\t(256, 256, 1)\t2\t1232.28\t2464.56\t41.11\t88.23\t88.23\t45.21\t60.13\tmemory (DRAM)\t88.23",
		"regtile_conv_k11(const float *, float *, int, int)\t(32, 8, 1)\t(128, 512, 1)\t1\t412.35\t412.35\t78.52\t52.3\t12.04\t52.3\t30.11\tcompute (SM)\t78.52",
		"flush_l2(int *, unsigned long)\t(256, 1, 1)\t(1024, 1, 1)\t1\t5.12\t5.12\t3.11\t52.77\t\t9.84\t\tmemory (L1/TEX)\t52.77",
	}
	if len(lines) != len(want) {
		t.Fatalf("got %d lines, want %d:\n%s", len(lines), len(want), out.String())
	}
	for i := range want {
		if lines[i] != want[i] {
			t.Errorf("line %d:\n got %q\nwant %q", i+1, lines[i], want[i])
		}
	}
}

// Standard input is read when no file is named, and named "stdin".
func TestStdin(t *testing.T) {
	in, err := os.ReadFile("testdata/details.csv")
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := run(nil, bytes.NewReader(in), &out, &out); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "\nstdin: 4 launches of 3 kernels.\n") {
		t.Errorf("output:\n%s", out.String())
	}
}

func TestDurationUnits(t *testing.T) {
	for _, tt := range []struct {
		unit, value string
		want        float64 // microseconds
	}{
		{"ns", "4,640", 4.64},
		{"nsecond", "850.5", 0.8505},
		{"us", "12.5", 12.5},
		{"usecond", "1,234.56", 1234.56},
		{"ms", "1.23", 1230},
		{"msecond", "2", 2000},
		{"s", "0.5", 500000},
		{"second", "1", 1e6},
	} {
		v, has, err := metricValue(duration, tt.unit, tt.value)
		if err != nil || !has || math.Abs(v-tt.want) > 1e-9*tt.want {
			t.Errorf("Duration %s %s = %v, %v, %v; want %v us", tt.value, tt.unit, v, has, err, tt.want)
		}
	}
	for _, unit := range []string{"", "cycle", "%", "msec"} {
		if _, _, err := metricValue(duration, unit, "1"); err == nil || !strings.Contains(err.Error(), `"`+unit+`"`) {
			t.Errorf("Duration 1 %q: error %v, want one naming the unit", unit, err)
		}
	}
}

func TestNumbers(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want float64
		ok   bool
	}{
		{"88.12", 88.12, true},
		{"1,234.56", 1234.56, true},
		{"2,160,514", 2160514, true},
		{"-1,000", -1000, true},
		{"0", 0, true},
		{"12,34", 0, false},
		{"1,2345.6", 0, false},
		{"27.595.520", 0, false},
		{"NaN", 0, false},
		{"inf", 0, false},
		{"fast", 0, false},
		{"", 0, false},
	} {
		v, err := parseNumber(tt.in)
		if (err == nil) != tt.ok || (tt.ok && v != tt.want) {
			t.Errorf("parseNumber(%q) = %v, %v; want %v, ok %v", tt.in, v, err, tt.want, tt.ok)
		}
	}
}

// fig returns figures with the values given for the figures named, the
// others unknown.
func fig(vals map[figure]float64) figures {
	var f figures
	for k, v := range vals {
		f.val[k], f.has[k] = v, true
	}
	return f
}

func TestLimiter(t *testing.T) {
	for _, tt := range []struct {
		name  string
		f     figures
		want  string
		share float64
	}{
		{"compute", fig(map[figure]float64{sm: 78.5, memory: 52.3, dram: 12, l1: 52.3, l2: 30}), "compute (SM)", 78.5},
		{"DRAM", fig(map[figure]float64{sm: 41.2, memory: 88.1, dram: 88.1, l1: 45.3, l2: 60.2}), "memory (DRAM)", 88.1},
		{"L2", fig(map[figure]float64{sm: 20, memory: 70, dram: 40, l1: 50, l2: 70}), "memory (L2)", 70},
		{"L1/TEX", fig(map[figure]float64{sm: 20, memory: 90, dram: 10, l1: 90, l2: 30}), "memory (L1/TEX)", 90},
		{"a tie goes to compute", fig(map[figure]float64{sm: 60, memory: 60, dram: 60}), "compute (SM)", 60},
		{"a tie of units goes to DRAM", fig(map[figure]float64{sm: 10, memory: 60, dram: 60, l2: 60}), "memory (DRAM)", 60},
		{"no unit known", fig(map[figure]float64{sm: 10, memory: 60}), "memory", 60},
		{"DRAM missing", fig(map[figure]float64{sm: 10, memory: 60, l2: 20, l1: 60}), "memory (L1/TEX)", 60},
		{"memory missing", fig(map[figure]float64{sm: 10, dram: 60}), "memory (DRAM)", 60},
		{"L1/TEX above memory", fig(map[figure]float64{sm: 0.04, memory: 0.49, dram: 0.08, l1: 23.3, l2: 0.49}), "memory (L1/TEX)", 23.3},
		{"a unit above memory beats SM", fig(map[figure]float64{sm: 30, memory: 20, l1: 40}), "memory (L1/TEX)", 40},
		{"SM missing", fig(map[figure]float64{memory: 30, l2: 30}), "memory (L2)", 30},
		{"no share", fig(map[figure]float64{duration: 5}), "", 0},
		{"DRAM alone", fig(map[figure]float64{dram: 60, duration: 5}), "memory (DRAM)", 60},
	} {
		name, share := limiter(tt.f)
		if name != tt.want || share != tt.share {
			t.Errorf("%s: limiter = %q %v, want %q %v", tt.name, name, share, tt.want, tt.share)
		}
	}
}

// csvHeader is the header row of ncu 2023's details page.
const csvHeader = `"ID","Process ID","Process Name","Host Name","Kernel Name","Context","Stream","Block Size","Grid Size","Device","CC","Section Name","Metric Name","Metric Unit","Metric Value"` + "\n"

// row is a row of csvHeader's columns for launch id of kernel k.
func row(id, k, section, metric, unit, value string) string {
	return `"` + id + `","7","p","h","` + k + `","1","7","(128, 1, 1)","(64, 1, 1)","0","9.0","` + section + `","` + metric + `","` + unit + `","` + value + `"` + "\n"
}

// A metric a launch lacks is left empty, as is one ncu gives as "n/a";
// the median of a figure is over the launches that have it; rows of other
// sections are not read.
func TestMissingMetric(t *testing.T) {
	in := csvHeader +
		row("0", "k", solSection, "Duration", "usecond", "10") +
		row("0", "k", solSection, "Memory Throughput", "%", "n/a") +
		row("0", "k", solSection, "DRAM Throughput", "%", "30") +
		row("0", "k", "Memory Workload Analysis", "Memory Throughput", "Gbyte/second", "1,200.5") +
		row("1", "k", solSection, "Duration", "usecond", "20") +
		row("1", "k", solSection, "Compute (SM) Throughput", "%", "") +
		row("1", "k", solSection, "DRAM Throughput", "%", "50") +
		row("2", "k", solSection, "DRAM Throughput", "%", "70")
	var out bytes.Buffer
	if err := run([]string{"-tsv"}, strings.NewReader(in), &out, &out); err != nil {
		t.Fatal(err)
	}
	want := strings.Join(header, "\t") + "\n" + "k\t(128, 1, 1)\t(64, 1, 1)\t3\t15\t30\t\t\t50\t\t\tmemory (DRAM)\t50\n"
	if out.String() != want {
		t.Errorf("got\n%q\nwant\n%q", out.String(), want)
	}
}

// Errors name the file and line, and the value or unit at fault.
func TestMalformed(t *testing.T) {
	dir := t.TempDir()
	for _, tt := range []struct {
		name, in string
		want     []string
	}{
		{"a value that does not parse", csvHeader + row("0", "k", solSection, "Duration", "usecond", "10") +
			"noise\n" + row("0", "k", solSection, "DRAM Throughput", "%", "12.3.4"),
			[]string{"in.csv:4:", "launch ID 0", "DRAM Throughput", `"12.3.4"`}},
		{"a unit of time unknown", "# comment\n" + csvHeader + row("3", "k", solSection, "Duration", "fortnight", "1"),
			[]string{"in.csv:3:", "launch ID 3", "Duration", `"fortnight"`}},
		{"a share not in percent", csvHeader + row("0", "k", solSection, "L2 Cache Throughput", "byte/second", "1"),
			[]string{"in.csv:2:", "L2 Cache Throughput", `"byte/second"`}},
		{"a metric twice", csvHeader + row("0", "k", solSection, "Duration", "us", "1") + row("0", "k", solSection, "Duration", "us", "1"),
			[]string{"in.csv:3:", "launch ID 0", "second Duration"}},
		{"an ID of two kernels", csvHeader + row("0", "k", solSection, "Duration", "us", "1") + row("0", "j", solSection, "DRAM Throughput", "%", "1"),
			[]string{"in.csv:3:", "launch ID 0", "j", "k"}},
		{"a header without the metric columns", `"ID","Kernel Name","Metric Name"` + "\n",
			[]string{"in.csv:1:", `"Metric Unit"`, `"Metric Value"`}},
		{"no header", "==PROF== Connected to process 1\n==WARNING== No kernels were profiled.\n",
			[]string{"in.csv", "no kernel launch found", `"ID"`}},
		{"no row as wide as the header", csvHeader + `"0","k","Duration"` + "\n==PROF== Disconnected\n",
			[]string{"in.csv", "no kernel launch found", "to 16 columns", "2 lines skipped"}},
		{"rows wider than the header by two", csvHeader + strings.TrimSuffix(row("0", "k", solSection, "Duration", "us", "1"), "\n") + `,"",""` + "\n",
			[]string{"in.csv", "no kernel launch found", "1 lines skipped"}},
		{"no row of the section", csvHeader + row("0", "k", "Occupancy", "Achieved Occupancy", "%", "50"),
			[]string{"in.csv", "no kernel launch found", solSection}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(dir, "in.csv")
			if err := os.WriteFile(path, []byte(tt.in), 0o644); err != nil {
				t.Fatal(err)
			}
			var out bytes.Buffer
			err := run([]string{path}, nil, &out, &out)
			if err == nil {
				t.Fatalf("no error; output:\n%s", out.String())
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q lacks %q", err, w)
				}
			}
			if strings.Contains(err.Error(), "\n") {
				t.Errorf("error %q: want one line", err)
			}
		})
	}
}

// The command exits with status 1 and one line on standard error where
// no launch is found.
func TestExit(t *testing.T) {
	path := filepath.Join(t.TempDir(), "empty.csv")
	if err := os.WriteFile(path, []byte("==PROF== Connected to process 1\n==WARNING== No kernels were profiled.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(os.Args[0], path)
	cmd.Env = append(os.Environ(), "NCUSUM_RUN_MAIN=1")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 1 {
		t.Fatalf("exit: %v, want status 1", err)
	}
	if s := stderr.String(); !strings.HasPrefix(s, "ncusum: "+path+": no kernel launch found") || strings.Count(s, "\n") != 1 {
		t.Errorf("stderr %q: want one line saying no launch was found in %s", s, path)
	}
	if stdout.Len() > 0 {
		t.Errorf("stdout %q, want nothing", stdout.String())
	}
}

// With -tsv, a header line and a line a kernel, tab-separated; numbers
// have up to six decimal places and an unknown one is empty.
func Example_tsv() {
	in := csvHeader +
		row("0", "void f<float, 3>(const float *)", solSection, "Duration", "usecond", "1,234.5678901") +
		row("0", "void f<float, 3>(const float *)", solSection, "Compute (SM) Throughput", "%", "21.5") +
		row("0", "void f<float, 3>(const float *)", solSection, "Memory Throughput", "%", "91.25") +
		row("0", "void f<float, 3>(const float *)", solSection, "DRAM Throughput", "%", "91.25") +
		row("0", "void f<float, 3>(const float *)", solSection, "L2 Cache Throughput", "%", "40")
	if err := run([]string{"-tsv"}, strings.NewReader(in), os.Stdout, os.Stderr); err != nil {
		panic(err)
	}
	// Output:
	// kernel	block	grid	launches	duration (us)	total (us)	SM %	memory %	DRAM %	L1/TEX %	L2 %	limiter	share of roof %
	// void f<float, 3>(const float *)	(128, 1, 1)	(64, 1, 1)	1	1234.56789	1234.56789	21.5	91.25	91.25		40	memory (DRAM)	91.25
}
