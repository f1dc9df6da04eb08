// Package layers holds the module's import rules as a test: which
// packages may depend on which, checked over the non-test imports of
// every package.
package layers
