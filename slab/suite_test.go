package slab

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"regexp"
	"testing"

	"github.com/convbench/convbench/convolve"
	"github.com/convbench/convbench/convtest"
)

// suiteCases is the number of random cases per property of the suites
// below; the properties package runs more.
const suiteCases = 40

// TestSuiteSlab2Naive runs the conformance suite over slab2-cpu-naive.
func TestSuiteSlab2Naive(t *testing.T) {
	t.Parallel()
	v, err := Wrap(lookup(t, "cpu-naive"), 2)
	if err != nil {
		t.Fatal(err)
	}
	convtest.TestVariantOptions(t, v, convtest.Options{N: suiteCases})
}

// tightStream is cpu-fast streamed under a limit made for each problem
// so that a slab holds rows output rows: the property suite's images, of
// every size, go through many slabs.
type tightStream struct {
	inner convolve.Variant
	rows  int
}

func (ts tightStream) Describe() convolve.Description {
	v, _ := Stream(ts.inner, 1)
	d := v.Describe()
	d.Name = fmt.Sprintf("stream-rows%d-%s", ts.rows, ts.inner.Describe().Name)
	return d
}

func (ts tightStream) Plan(p convolve.Problem, cfg convolve.Config) (convolve.Plan, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	v, err := Stream(ts.inner, streamLimit(p, ts.rows))
	if err != nil {
		return nil, err
	}
	return v.Plan(p, cfg)
}

// TestSuiteStreamFast runs the conformance suite over cpu-fast streamed
// under a limit that leaves room for 3 output rows a slab.
func TestSuiteStreamFast(t *testing.T) {
	t.Parallel()
	convtest.TestVariantOptions(t, tightStream{inner: lookup(t, "cpu-fast"), rows: 3}, convtest.Options{N: suiteCases})
}

// wrongHaloEnv names the environment variable under which
// TestSuiteWrongHalo runs; TestWrongHaloFailsSuite sets it in a child
// process.
const wrongHaloEnv = "SLAB_TEST_WRONG_HALO"

// TestSuiteWrongHalo runs the conformance suite over three slabs of
// cpu-naive whose halos below are one row short. It must fail; it runs
// only in the child process TestWrongHaloFailsSuite starts.
func TestSuiteWrongHalo(t *testing.T) {
	if os.Getenv(wrongHaloEnv) == "" {
		t.Skip("runs only in the child process of TestWrongHaloFailsSuite, where it must fail")
	}
	convtest.TestVariant(t, &variant{inner: lookup(t, "cpu-naive"), slabs: 3, shortBelow: 1})
}

// TestWrongHaloFailsSuite runs TestSuiteWrongHalo in a child process and
// checks that the suite's agreement property fails on it.
func TestWrongHaloFailsSuite(t *testing.T) {
	if os.Getenv(wrongHaloEnv) != "" {
		t.Skip("child process")
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestSuiteWrongHalo$/^agreement$", "-test.v", "-convtest.n=60")
	cmd.Env = append(os.Environ(), wrongHaloEnv+"=1")
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	if _, failed := err.(*exec.ExitError); !failed {
		t.Fatalf("suite over a one-row-short halo: want a failing run, got error %v; output:\n%s", err, out.Bytes())
	}
	if !regexp.MustCompile(`--- FAIL: TestSuiteWrongHalo/agreement`).Match(out.Bytes()) {
		t.Fatalf("suite over a one-row-short halo did not fail its agreement property; output:\n%s", out.Bytes())
	}
}

// TestWrongHaloCaught: a halo one row short below makes the slab variant
// differ from the wrapped one under every border, for both wrapped
// variants.
func TestWrongHaloCaught(t *testing.T) {
	for _, name := range []string{"cpu-naive", "cpu-fast"} {
		inner := lookup(t, name)
		wrong := &variant{inner: inner, slabs: 3, shortBelow: 1}
		caught := map[convolve.Border]int{}
		r := rand.New(rand.NewPCG(5, 0))
		for _, p := range problems(r) {
			if err := equalsInner(t, r, inner, wrong, p); err != nil {
				caught[p.Border]++
			}
		}
		for _, b := range convolve.Borders {
			if caught[b] == 0 {
				t.Errorf("%s: a one-row-short halo went unnoticed under border %v", name, b)
			}
		}
	}
}
