//go:build linux && !portable && !amd64

package rawfork

import "unsafe"

// CanCloneVM reports whether [CloneVM] exists on this architecture: its
// clone3 trampoline is written for amd64 only; elsewhere the children are
// forked ([Fork], [ForkInto]).
const CanCloneVM = false

// cloneVM is never called where CanCloneVM is false.
func cloneVM(unsafe.Pointer, uintptr, func(unsafe.Pointer), unsafe.Pointer) (uintptr, uintptr) {
	panic("rawfork: no CloneVM on this architecture")
}
