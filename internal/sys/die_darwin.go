package sys

import (
	"runtime"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
)

// The calls of Die on macOS go through libSystem, as every macOS system
// call must: sigaction, pthread_sigmask, pthread_self and pthread_kill,
// which golang.org/x/sys/unix does not wrap there. Each is reached by a
// trampoline of die_darwin.s and called with the syscall package's
// rawSyscall, as golang.org/x/sys/unix calls its own: that C call
// returns -1 and sets errno for sigaction, and returns the error number
// itself for the pthread functions.

// syscall_rawSyscall calls the C function at fn with three arguments on
// the system stack (package syscall, which golang.org/x/sys/unix calls
// the same way). err is errno when the function returned -1.
//
//go:linkname syscall_rawSyscall syscall.rawSyscall
func syscall_rawSyscall(fn, a1, a2, a3 uintptr) (r1, r2 uintptr, err syscall.Errno)

var (
	libc_sigaction_trampoline_addr       uintptr
	libc_pthread_sigmask_trampoline_addr uintptr
	libc_pthread_self_trampoline_addr    uintptr
	libc_pthread_kill_trampoline_addr    uintptr
)

//go:cgo_import_dynamic libc_sigaction sigaction "/usr/lib/libSystem.B.dylib"
//go:cgo_import_dynamic libc_pthread_sigmask pthread_sigmask "/usr/lib/libSystem.B.dylib"
//go:cgo_import_dynamic libc_pthread_self pthread_self "/usr/lib/libSystem.B.dylib"
//go:cgo_import_dynamic libc_pthread_kill pthread_kill "/usr/lib/libSystem.B.dylib"

// sigactiont is libSystem's struct sigaction: the handler (SIG_DFL is
// 0), sa_mask (a sigset_t of 32 bits), then sa_flags. All zero is SIG_DFL
// with no flags and an empty mask. (libSystem adds its trampoline and
// passes the kernel a struct __sigaction.)
type sigactiont struct {
	handler uintptr
	mask    uint32
	flags   int32
}

// The sizes of the C structures of libSystem and the kernel that are
// passed by pointer on macOS (64-bit only): struct sigaction 16 bytes (a
// pointer, a 32-bit sigset_t and an int), struct kevent 32. (The
// kinfo_proc records of kern.proc, 648 bytes each, are read as bytes and
// decoded by package proc.) A layout of
// other size does not compile: the index is out of range, or the
// difference overflows.
var (
	_ = [1]int{}[unsafe.Sizeof(sigactiont{})-16]
	_ = [1]int{}[unsafe.Sizeof(unix.Kevent_t{})-32]
)

// death is macOS's calls of [Die]: libSystem's sigaction;
// pthread_sigmask, which sets the calling thread's mask; pthread_kill of
// pthread_self(), which sends the signal to the calling thread (every
// thread of a Go program is a pthread).
var death = deathSteps{
	noCore: noCore,
	reset: func(sig syscall.Signal) error {
		var sa sigactiont
		// Sound: sa outlives the call, which only reads it.
		_, _, errno := syscall_rawSyscall(libc_sigaction_trampoline_addr, uintptr(sig), uintptr(unsafe.Pointer(&sa)), 0)
		runtime.KeepAlive(&sa)
		return namedErrno("sigaction", errno)
	},
	unblock: func(sig syscall.Signal) error {
		set := uint32(1) << (uint(sig) - 1)
		// Sound: set outlives the call, which only reads it.
		r, _, _ := syscall_rawSyscall(libc_pthread_sigmask_trampoline_addr, sigUnblock, uintptr(unsafe.Pointer(&set)), 0)
		runtime.KeepAlive(&set)
		return namedErrno("pthread_sigmask", syscall.Errno(uint32(r)))
	},
	raise: func(sig syscall.Signal) error {
		self, _, _ := syscall_rawSyscall(libc_pthread_self_trampoline_addr, 0, 0, 0)
		r, _, _ := syscall_rawSyscall(libc_pthread_kill_trampoline_addr, self, uintptr(sig), 0)
		return namedErrno("pthread_kill", syscall.Errno(uint32(r)))
	},
}
