package extmod

import (
	"testing"

	"github.com/convbench/convbench/benchmarks"
	"github.com/convbench/convbench/convtest"
)

func TestDirect(t *testing.T) { convtest.TestVariant(t, Direct{}) }

func TestDirectOffByOne(t *testing.T) { convtest.TestVariant(t, Direct{OffByOne: true}) }

func BenchmarkDirect(b *testing.B) { benchmarks.BenchmarkVariant(b, Direct{}) }
