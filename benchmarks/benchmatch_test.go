package benchmarks

import (
	"flag"
	"regexp"
	"strings"
)

// A benchMatch is a -test.bench or -test.skip pattern split as the testing
// package splits it: alternatives at the top-level '|', each a list of
// regular expressions, one a '/'-separated level of a benchmark's name
// ('/' and '|' inside brackets or parentheses, or escaped, do not split).
type benchMatch [][]*regexp.Regexp

// parseBenchMatch splits and compiles pattern. An empty pattern is a nil
// benchMatch, which matches nothing.
func parseBenchMatch(pattern string) (benchMatch, error) {
	if pattern == "" {
		return nil, nil
	}
	var m benchMatch
	for _, alt := range splitTopLevel(pattern, '|') {
		var levels []*regexp.Regexp
		for _, p := range splitTopLevel(alt, '/') {
			re, err := regexp.Compile(p)
			if err != nil {
				return nil, err
			}
			levels = append(levels, re)
		}
		m = append(m, levels)
	}
	return m, nil
}

// splitTopLevel splits s at each sep outside brackets and parentheses and
// not escaped by a backslash.
func splitTopLevel(s string, sep byte) []string {
	var parts []string
	brackets, parens, from := 0, 0, 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '\\':
			i++
		case '[':
			brackets++
		case ']':
			if brackets > 0 {
				brackets--
			}
		case '(':
			if brackets == 0 {
				parens++
			}
		case ')':
			if brackets == 0 {
				parens--
			}
		case sep:
			if brackets == 0 && parens == 0 {
				parts = append(parts, s[from:i])
				from = i + 1
			}
		}
	}
	return append(parts, s[from:])
}

// matches reports whether the name, split into its levels, matches one of
// m's alternatives: each level that the alternative has an expression for
// matches it. partial is true where the name has fewer levels than that
// alternative, so that a deeper name may match it fully.
func (m benchMatch) matches(levels []string) (ok, partial bool) {
	for _, alt := range m {
		ok, partial := matchLevels(alt, levels)
		if ok {
			return true, partial
		}
	}
	return false, false
}

func matchLevels(alt []*regexp.Regexp, levels []string) (ok, partial bool) {
	for i, l := range levels {
		if i >= len(alt) {
			break
		}
		if !alt[i].MatchString(l) {
			return false, false
		}
	}
	return true, len(levels) < len(alt)
}

// benchRuns reports whether the testing package runs the benchmark whose
// full name is name under the patterns run (-test.bench) and skip
// (-test.skip): run matches it, and skip does not match it fully.
func benchRuns(run, skip benchMatch, name string) bool {
	levels := strings.Split(name, "/")
	if ok, _ := run.matches(levels); !ok {
		return false
	}
	s, partial := skip.matches(levels)
	return !s || partial
}

// selectsBenchmark reports whether the -test.bench pattern runs the
// top-level benchmark called name. A pattern that runs no benchmark (""
// or "^$", as convtest's shrinking children are given) sets nothing up,
// so a child process checks its one case and no more. An invalid pattern
// selects nothing here; the testing package reports it.
func selectsBenchmark(pattern, name string) bool {
	m, err := parseBenchMatch(pattern)
	if err != nil {
		return false
	}
	ok, _ := m.matches([]string{name})
	return ok
}

// selectedCases are the cases of BenchmarkConv that this run's
// -test.bench and -test.skip patterns let run, in their order: those the
// sweep times, compiles ahead and counts in its progress. Where a pattern
// does not compile, every case is kept and the testing package reports
// the pattern.
func selectedCases(cases []Case) []Case {
	run, err1 := parseBenchMatch(flagValue("test.bench"))
	skip, err2 := parseBenchMatch(flagValue("test.skip"))
	if err1 != nil || err2 != nil {
		return cases
	}
	var sel []Case
	for _, c := range cases {
		if benchRuns(run, skip, "BenchmarkConv/"+c.Name()) {
			sel = append(sel, c)
		}
	}
	return sel
}

// flagValue is the value of the flag called name, or "" where no such
// flag is defined.
func flagValue(name string) string {
	if f := flag.Lookup(name); f != nil {
		return f.Value.String()
	}
	return ""
}
