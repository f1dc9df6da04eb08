package properties

import (
	"flag"
	"fmt"
	"hash/fnv"
	"regexp"
	"sync"
	"testing"
	"time"
)

// defaultSeed makes runs without -props.seed repeatable; it is logged.
const defaultSeed = 20240601

var (
	seedFlag    = flag.Int64("props.seed", defaultSeed, "seed of the random cases; 0 picks one from the clock")
	nFlag       = flag.Int("props.n", 0, "random cases per variant and property (0: 250, or 40 with -short)")
	variantFlag = flag.String("props.variant", "", "regular expression (or substring) selecting the variants to test")
)

// flagString is flag.String; it keeps every flag of the suite in one list.
func flagString(name, value, usage string) *string { return flag.String(name, value, usage) }

var (
	seedOnce sync.Once
	theSeed  int64
)

// suiteSeed is the seed of this run: the flag, or the clock when it is 0.
func suiteSeed() int64 {
	seedOnce.Do(func() {
		theSeed = *seedFlag
		if theSeed == 0 {
			theSeed = time.Now().UnixNano() & (1<<62 - 1)
		}
	})
	return theSeed
}

// casesPerProperty is the number of random cases each property checks
// per variant.
func casesPerProperty() int {
	switch {
	case *nFlag > 0:
		return *nFlag
	case testing.Short():
		return 40
	}
	return 250
}

// selectVariant reports whether the variant name passes -props.variant.
func selectVariant(t *testing.T, name string) bool {
	if *variantFlag == "" {
		return true
	}
	if _, err := regexp.Compile(*variantFlag); err != nil {
		t.Fatalf("-props.variant=%q: %v", *variantFlag, err)
	}
	return variantSelected(name)
}

// variantSelected reports whether name passes -props.variant; a pattern
// that does not compile selects nothing (selectVariant reports it).
func variantSelected(name string) bool {
	if *variantFlag == "" {
		return true
	}
	re, err := regexp.Compile(*variantFlag)
	return err == nil && re.MatchString(name)
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

// reproduceCommand is the one-line command that reruns exactly the failing
// property of one variant.
func reproduceCommand(test, variant, property string, seed int64, n int) string {
	run := fmt.Sprintf("%s/^%s$", test, regexp.QuoteMeta(variant))
	if property != "" {
		run += fmt.Sprintf("/^%s$", regexp.QuoteMeta(property))
	}
	return fmt.Sprintf("go test ./properties -run '%s' -props.seed=%d -props.variant='^%s$' -props.n=%d -v",
		run, seed, regexp.QuoteMeta(variant), n)
}

// caseCommand reruns one printed case of one property, without shrinking.
func caseCommand(test, variant, property string, c Case) string {
	return fmt.Sprintf("go test ./properties -run '%s/^%s$/^%s$' -props.variant='^%s$' -props.case='%v' -v",
		test, regexp.QuoteMeta(variant), regexp.QuoteMeta(property), regexp.QuoteMeta(variant), c)
}
