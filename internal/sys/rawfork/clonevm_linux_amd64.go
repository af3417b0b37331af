//go:build linux && !portable

package rawfork

import "unsafe"

// CanCloneVM reports whether [CloneVM] exists on this architecture: its
// clone3 trampoline is written for amd64 only.
const CanCloneVM = true

// cloneVM calls clone3(args, size); the child starts on the stack args
// names and calls fn(arg), which never returns. In the parent it returns
// the child's PID or the errno. Nothing it is given escapes: args stays on
// the caller's stack, which cannot move between beforeFork and afterFork.
//
//go:noescape
func cloneVM(args unsafe.Pointer, size uintptr, fn func(unsafe.Pointer), arg unsafe.Pointer) (pid, errno uintptr)
