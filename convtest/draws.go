package convtest

import (
	"fmt"

	"github.com/convbench/convbench/convolve"
	"github.com/leanovate/gopter"
	"github.com/leanovate/gopter/prop"
)

// CheckDraws draws the cases TestVariant with each of seeds and n random
// cases a property would check of v were v's plans to run on a device with limits
// lim: the GPU specialization pool, every applicable property's cases, the
// edge-case table and the bad-input checks' base cases. Nothing is planned
// and no device is used. It checks every case drawn against v's validity
// rule on that device (convolve.Supports) and returns how many were drawn
// and an error for each problem found: a case the rule refuses (TestVariant
// on that device would plan it and fail), a property or operation for
// which no case could be drawn, or a variant with no specialization. It
// lets a variant's author check the suite's draws against the limits of
// GPUs the machine does not have, over many seeds, in seconds.
func CheckDraws(v convolve.Variant, lim convolve.DeviceLimits, seeds []int64, n int) (drawn int, problems []error) {
	if v == nil {
		return 0, []error{fmt.Errorf("convtest: CheckDraws of a nil variant")}
	}
	d := v.Describe()
	r := &rule{v: v, lim: lim}
	var seed int64
	check := func(what string, c testCase) {
		drawn++
		p, err := c.Problem()
		if err == nil {
			err = convolve.Supports(v, p, c.Config(), lim)
		}
		if err != nil {
			problems = append(problems, fmt.Errorf("%s seed %d on %s: %s drew %v, which the validity rule refuses: %w", d.Name, seed, deviceName(lim), what, c, err))
		}
	}
	cases, _ := edgeCasesFor(d.Caps, r)
	for _, c := range cases {
		check("the edge-case table", c)
	}
	for _, seed = range seeds {
		problems = append(problems, checkSeedDraws(&env{name: d.Name, variant: v, desc: d, rule: r}, seed, n, check)...)
	}
	return drawn, problems
}

// checkSeedDraws is CheckDraws's part for one seed: the pool, the
// properties' cases and the bad-input base cases, each given to check.
func checkSeedDraws(e *env, seed int64, n int, check func(what string, c testCase)) (problems []error) {
	d, lim := e.desc, e.rule.lim
	if d.Caps.GPU {
		e.pool = variantPool(e, derivedSeed(seed, d.Name, "pool"))
		if len(e.pool) == 0 {
			return []error{fmt.Errorf("%s seed %d on %s: no specialization within its capabilities and validity rule (%s)", d.Name, seed, deviceName(lim), e.rule.summary())}
		}
		for _, c := range e.pool {
			check("the specialization pool", c)
		}
	}
	for _, pr := range properties {
		if pr.applies != nil && pr.applies(e) != "" {
			continue
		}
		dom := propertyDomain(e, pr)
		if len(dom.ops) == 0 {
			continue
		}
		params := gopter.DefaultTestParametersWithSeed(derivedSeed(seed, d.Name, pr.name))
		params.MinSuccessfulTests = n
		res := prop.ForAll(func(c testCase) bool {
			check("property "+pr.name, c)
			return true
		}, dom.gen()).Check(params)
		if !res.Passed() {
			problems = append(problems, fmt.Errorf("%s seed %d on %s: property %s drew %d cases of %d (%v)", d.Name, seed, deviceName(lim), pr.name, res.Succeeded, n, res.Status))
		}
	}
	bases, missing := badInputBases(e, seed)
	for _, c := range bases {
		check("the bad-input checks", c)
	}
	for _, op := range missing {
		problems = append(problems, fmt.Errorf("%s seed %d on %s: no valid %v case for the bad-input checks to start from", d.Name, seed, deviceName(lim), op))
	}
	return problems
}
