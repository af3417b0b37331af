package sys

import (
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
)

// SignalIgnored reports whether sig is ignored (SIG_IGN) in this process
// now, read with rt_sigaction and no new action. Unlike signal.Ignored,
// it sees an ignore inherited across execve for the signals the Go
// runtime leaves at their disposition at start and never looks at
// (SIGTSTP, SIGTTIN, SIGTTOU): read before any signal.Notify of sig, it
// is the launcher's choice. An error reads as not ignored.
func SignalIgnored(sig syscall.Signal) bool {
	// The kernel's struct sigaction, whose handler comes first (amd64, arm64,
	// 386; not MIPS, which this module does not build for), in room enough for the rest (flags, restorer,
	// the 8-byte sigset).
	var old struct {
		handler uintptr
		_       [6]uint64
	}
	const sigIgn = 1
	_, _, errno := unix.RawSyscall6(unix.SYS_RT_SIGACTION, uintptr(sig), 0, uintptr(unsafe.Pointer(&old)), 8, 0, 0)
	return errno == 0 && old.handler == sigIgn
}
