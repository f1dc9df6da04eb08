package convtest

import (
	"flag"
	"fmt"
	"hash/fnv"
	"os"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"
)

// DefaultSeed is the seed of a run that sets none: runs are repeatable
// unless asked otherwise, and every run logs its seed.
const DefaultSeed = 20240601

var (
	seedFlag   = flag.Int64("convtest.seed", DefaultSeed, "seed of the random cases; 0 picks one from the clock")
	nFlag      = flag.Int("convtest.n", 0, "random cases per property (0: 250, or 40 with -short)")
	caseFlag   = flag.String("convtest.case", "", "check only this case, as a failure prints it (no random cases, no shrinking)")
	shrinkFlag = flag.Duration("convtest.shrink-time", DefaultShrinkTime, "longest a failure is shrunk; the smallest failing case found by then is reported")
	timeFlag   = flag.Duration("convtest.time", TimeBound(), "longest the random cases of one property run once MinCases passed (the count checked is logged); 0 checks every case of -convtest.n")
	poolFlag   = flag.Int("convtest.pool", DefaultPool, "GPU specializations a seed draws for a variant (its pool)")
)

// DefaultPool is the number of GPU specializations a seed draws for a
// variant unless the options or -convtest.pool say otherwise. Every
// specialization compiles its kernels, and the fixes the properties make
// of it compile theirs, so the pool sets how many kernels a seed compiles.
const DefaultPool = 6

// DefaultTime bounds the random cases of one property of one variant
// unless the options or -convtest.time say otherwise: the default run of
// a suite over dozens of GPU variants ends in minutes, every property
// still checked on MinCases cases at least, and -convtest.time=0 checks
// all -convtest.n of them.
const DefaultTime = 3 * time.Second

// EnvLong, set to 1, makes a test run go to full depth: TimeBound is
// then 0, and suites with costly extra parts (the tuned settings of
// package tune) run them. make test-long sets it.
const EnvLong = "CONVBENCH_TEST_LONG"

// TimeBound is the default of -convtest.time: DefaultTime, or 0 (every
// case checked) when $CONVBENCH_TEST_LONG is 1.
func TimeBound() time.Duration {
	if os.Getenv(EnvLong) == "1" {
		return 0
	}
	return DefaultTime
}

// MinCases is the number of random cases of a property checked whatever
// the time bound (or all of them, when fewer are asked for).
const MinCases = 25

// DefaultShrinkTime is how long a failing case is shrunk unless the
// options or -convtest.shrink-time say otherwise: every shrink step of a
// GPU variant may compile a kernel, and a failure should be reported in
// minutes, not hours.
const DefaultShrinkTime = time.Minute

// Options adjust a run of the suite. The zero value takes every setting
// from the command line: -convtest.seed, -convtest.n and -convtest.case.
type Options struct {
	// Seed is the seed of every random draw; 0 takes -convtest.seed
	// (whose 0 picks a seed from the clock, once per process).
	Seed int64
	// N is the number of random cases per property; 0 takes -convtest.n,
	// and 0 there means 250, or 40 with -short.
	N int
	// Case, when not empty, checks only this case (as a failure prints
	// it) under every property, without random cases or shrinking; ""
	// takes -convtest.case.
	Case string
	// ShrinkTime bounds how long a failure is shrunk, from the first
	// failing case: the smallest failing case found by then is reported.
	// 0 takes -convtest.shrink-time (default DefaultShrinkTime); a
	// negative value shrinks without a time limit.
	ShrinkTime time.Duration
	// Time bounds the random cases of one property: once MinCases were
	// checked and Time has passed, the rest are drawn but not checked,
	// and the run logs how many were. 0 takes -convtest.time (default
	// DefaultTime, where 0 means no bound); a negative value checks every
	// case. A failure found is shrunk whatever the bound.
	Time time.Duration
	// Rerun is the start of the command a failure prints to reproduce
	// itself, before its -run pattern and flags: "go test" when empty.
	// A caller whose own flags set the options names them here and in
	// FlagPrefix.
	Rerun string
	// FlagPrefix is the prefix of the seed, count and case flags in that
	// command: "convtest" when empty (-convtest.seed=...).
	FlagPrefix string
	// Pool is the number of GPU specializations the seed draws for the
	// variant (specPool); 0 takes -convtest.pool (default DefaultPool).
	// A pool smaller than a tunable's count of values, or than the
	// element types the variant accepts, forces fewer of them into the
	// pool at one seed. The pool is part of what a seed draws, so a
	// failure's reproduce command names it when it is not DefaultPool.
	Pool int
}

var (
	clockOnce sync.Once
	clockSeed int64
)

// resolve fills the zero fields of o from the flags and defaults.
func (o Options) resolve() Options {
	if o.Seed == 0 {
		o.Seed = *seedFlag
	}
	if o.Seed == 0 {
		clockOnce.Do(func() { clockSeed = time.Now().UnixNano() & (1<<62 - 1) })
		o.Seed = clockSeed
	}
	if o.N <= 0 {
		o.N = *nFlag
	}
	if o.N <= 0 {
		o.N = 250
		if testing.Short() {
			o.N = 40
		}
	}
	if o.Case == "" {
		o.Case = *caseFlag
	}
	if o.Time == 0 {
		o.Time = *timeFlag
		if o.Time == 0 {
			o.Time = -1
		}
	}
	if o.ShrinkTime == 0 {
		o.ShrinkTime = *shrinkFlag
	}
	if o.Rerun == "" {
		o.Rerun = "go test"
	}
	if o.FlagPrefix == "" {
		o.FlagPrefix = "convtest"
	}
	if o.Pool <= 0 {
		o.Pool = *poolFlag
	}
	if o.Pool <= 0 {
		o.Pool = DefaultPool
	}
	return o
}

// derivedSeed gives each (variant, property) pair its own random stream, so
// a failure reproduces whatever other variants or properties run beside it.
func derivedSeed(seed int64, parts ...string) int64 {
	h := fnv.New64a()
	fmt.Fprintf(h, "%d", seed)
	for _, p := range parts {
		h.Write([]byte{0})
		h.Write([]byte(p))
	}
	return int64(h.Sum64() & (1<<63 - 1))
}

// runPattern is the -run pattern that selects exactly the test named
// name (as testing.T.Name gives it) and nothing beside it.
func runPattern(name string) string {
	parts := strings.Split(name, "/")
	for i, p := range parts {
		parts[i] = "^" + regexp.QuoteMeta(p) + "$"
	}
	return strings.Join(parts, "/")
}

// reproduceCommand is the one-line command that reruns exactly the test
// named test with the seed, count and pool of o.
func (o Options) reproduceCommand(test string) string {
	return fmt.Sprintf("%s -run '%s' -%s.seed=%d -%s.n=%d%s -%s.time=0 -v", o.Rerun, runPattern(test), o.FlagPrefix, o.Seed, o.FlagPrefix, o.N, o.poolFlag(), o.FlagPrefix)
}

// poolFlag is " -PREFIX.pool=N" for a pool other than DefaultPool, else "".
func (o Options) poolFlag() string {
	if o.Pool == DefaultPool || o.Pool <= 0 {
		return ""
	}
	return fmt.Sprintf(" -%s.pool=%d", o.FlagPrefix, o.Pool)
}

// caseCommand reruns one printed case of the test named test, without
// shrinking.
func (o Options) caseCommand(test string, c testCase) string {
	return fmt.Sprintf("%s -run '%s' -%s.case='%v' -v", o.Rerun, runPattern(test), o.FlagPrefix, c)
}
