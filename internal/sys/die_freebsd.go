package sys

import (
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
)

// sigactiont is FreeBSD's struct sigaction: the handler (SIG_DFL is 0),
// sa_flags, then sa_mask, a sigset_t of four 32-bit words. All zero is
// SIG_DFL with no flags and an empty mask.
type sigactiont struct {
	handler uintptr
	flags   int32
	mask    unix.Sigset_t
}

// death is FreeBSD's calls of [Die], raw system calls that take no 64-bit
// argument (so the same on every port): sigaction; sigprocmask, which
// FreeBSD applies to the calling thread alone (the Go runtime sets each
// thread's mask with it); thr_self for the calling thread's ID (a long)
// and thr_kill to send it the signal.
var death = deathSteps{
	noCore: noCore,
	reset: func(sig syscall.Signal) error {
		var sa sigactiont
		// Sound: sa outlives the raw call, which only reads it.
		_, _, errno := unix.RawSyscall(unix.SYS_SIGACTION, uintptr(sig), uintptr(unsafe.Pointer(&sa)), 0)
		return namedErrno("sigaction", errno)
	},
	unblock: func(sig syscall.Signal) error {
		var set unix.Sigset_t
		set.Val[(int(sig)-1)/32] |= 1 << ((uint(sig) - 1) % 32)
		// Sound: set outlives the raw call, which only reads it.
		_, _, errno := unix.RawSyscall(unix.SYS_SIGPROCMASK, sigUnblock, uintptr(unsafe.Pointer(&set)), 0)
		return namedErrno("sigprocmask", errno)
	},
	raise: func(sig syscall.Signal) error {
		var tid int // a C long on every FreeBSD port
		// Sound: the kernel writes one long to tid, which outlives the call.
		if _, _, errno := unix.RawSyscall(unix.SYS_THR_SELF, uintptr(unsafe.Pointer(&tid)), 0, 0); errno != 0 {
			return named("thr_self", errno)
		}
		_, _, errno := unix.RawSyscall(unix.SYS_THR_KILL, uintptr(tid), uintptr(sig), 0)
		return namedErrno("thr_kill", errno)
	},
}
