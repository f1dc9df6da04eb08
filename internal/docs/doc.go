// Package docs checks the module's documentation: README.md at the
// repository root and the pages under docs/. Its test holds the README to
// its length limit and checks that every relative link and anchor in them
// resolves and that every page under docs/ is reached from the README,
// and that docs/variants.md names exactly the flags, beyond testing's,
// that the test binary of a module importing convtest and benchmarks
// takes.
package docs
