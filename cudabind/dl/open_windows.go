//go:build windows

package dl

import "syscall"

// open loads the DLL name with LoadLibrary. The module's library names
// are Linux sonames, so on Windows they fail to load and every binding
// reports its library unavailable: the module builds and its GPU tests
// skip.
func open(name string) (uintptr, error) {
	h, err := syscall.LoadLibrary(name)
	return uintptr(h), err
}

// sym is GetProcAddress.
func sym(handle uintptr, name string) (uintptr, error) {
	return syscall.GetProcAddress(syscall.Handle(handle), name)
}
