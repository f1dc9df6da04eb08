// Package cudabind is the framework's bridge to CUDA, in pure Go.
package cudabind
