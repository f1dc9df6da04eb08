package convtest

// The self-tests that read the capabilities of every registered variant
// (TestSpecPoolsCoverEveryTunable, TestExtremeDomainsDraw) cover the GPU
// variants too: their packages register them in this test binary only.
// Those tests draw descriptors and need no GPU; the package itself
// imports none of them (TestImportsNoGPUPackage).
import (
	_ "github.com/convbench/convbench/gpu/auto"
	_ "github.com/convbench/convbench/gpu/variants"
)
