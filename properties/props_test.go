package properties

import (
	"cmp"
	"flag"
	"fmt"
	"os"
	"regexp"
	"sync"
	"testing"
	"time"

	"github.com/convbench/convbench/convolve"
	"github.com/convbench/convbench/convtest"
	_ "github.com/convbench/convbench/gpu/auto"
	_ "github.com/convbench/convbench/gpu/gpuslab"
	_ "github.com/convbench/convbench/gpu/variants"
	_ "github.com/convbench/convbench/refimpl"
)

var (
	seedFlag    = flag.Int64("props.seed", convtest.DefaultSeed, "seed of the random cases; 0 picks one from the clock")
	nFlag       = flag.Int("props.n", 0, "random cases per variant and property (0: 250, or 40 with -short)")
	timeFlag    = flag.Duration("props.time", convtest.TimeBound(), "longest the random cases of one property of one variant run once convtest.MinCases passed; 0 checks all -props.n")
	poolFlag    = flag.Int("props.pool", convtest.DefaultPool, "GPU specializations a seed draws for each variant")
	variantFlag = flag.String("props.variant", "", "regular expression (or substring) selecting the variants to test")
	caseFlag    = flag.String("props.case", "", "check only this case, as a failure prints it (no random cases, no shrinking)")
	listFlag    = flag.Bool("props.list", false, "print the names of the variants -props.variant selects, one a line, and run no test")
)

// TestMain prints the selected variants' names and exits under
// -props.list, and runs the tests otherwise.
func TestMain(m *testing.M) {
	flag.Parse()
	if *listFlag {
		vs, err := selected(*variantFlag)
		if err == nil && len(vs) == 0 {
			err = fmt.Errorf("-props.variant=%q matches none of the registered variants", *variantFlag)
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		for _, v := range vs {
			fmt.Println(v.Describe().Name)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// selected returns the registered variants whose name pattern matches,
// in the registry's order (by name).
func selected(pattern string) ([]convolve.Variant, error) {
	re, err := regexp.Compile(pattern)
	if err != nil {
		return nil, fmt.Errorf("-props.variant=%q: %v", pattern, err)
	}
	var vs []convolve.Variant
	for _, v := range convolve.Variants() {
		if re.MatchString(v.Describe().Name) {
			vs = append(vs, v)
		}
	}
	return vs, nil
}

var (
	seedOnce sync.Once
	theSeed  int64
)

// suiteSeed is the seed of this run: -props.seed, or the clock when it is 0.
func suiteSeed() int64 {
	seedOnce.Do(func() {
		theSeed = *seedFlag
		if theSeed == 0 {
			theSeed = time.Now().UnixNano() & (1<<62 - 1)
		}
	})
	return theSeed
}

// options are the convtest options of variant name under the -props.*
// flags: a failure prints a command that reruns it through this package.
func options(name string, seed int64, n int, c string) convtest.Options {
	return convtest.Options{
		Seed:       seed,
		N:          n,
		Case:       c,
		Time:       cmp.Or(*timeFlag, -1),
		Pool:       *poolFlag,
		Rerun:      fmt.Sprintf("go test ./properties -props.variant='^%s$'", regexp.QuoteMeta(name)),
		FlagPrefix: "props",
	}
}

// TestProperties runs convtest.TestVariant on every registered variant that
// -props.variant selects, all in parallel (up to -test.parallel at once):
// the reference and the comparisons of one variant's cases run on the CPU
// while other variants use the GPU, and convtest lets a check that counts
// the device's live allocations run alone.
func TestProperties(t *testing.T) {
	vs, err := selected(*variantFlag)
	if err != nil {
		t.Fatal(err)
	}
	seed := suiteSeed()
	t.Logf("props.seed=%d (rerun with -props.seed=%d)", seed, seed)
	for _, v := range vs {
		d := v.Describe()
		t.Run(d.Name, func(t *testing.T) {
			t.Parallel()
			convtest.TestVariantOptions(t, v, options(d.Name, seed, *nFlag, *caseFlag))
		})
	}
	if len(vs) == 0 {
		t.Errorf("-props.variant=%q matches none of the registered variants", *variantFlag)
	}
}
