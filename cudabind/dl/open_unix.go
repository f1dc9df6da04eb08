//go:build unix

package dl

import "github.com/ebitengine/purego"

// open loads the shared library name with dlopen (RTLD_NOW | RTLD_GLOBAL).
func open(name string) (uintptr, error) {
	return purego.Dlopen(name, purego.RTLD_NOW|purego.RTLD_GLOBAL)
}

// sym is dlsym.
func sym(handle uintptr, name string) (uintptr, error) { return purego.Dlsym(handle, name) }
