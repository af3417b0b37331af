//go:build !portable

package sys

import (
	"syscall"
	"time"
)

// This file is the Linux build's way to act on a process: through a pidfd,
// which names one process for its whole life. The portable build (and
// macOS and FreeBSD) act by number under the pinning rules instead
// (child_portable.go).

// Pidless reports whether this build acts on processes by number only
// (macOS, FreeBSD, and the Linux build with the portable tag).
const Pidless = false

// SignalChild sends sig to the caller's child pid, whose exit descriptor
// (from [WatchExit] or the fork) is fd: through the pidfd, which cannot
// name another process. [ErrGone] once the child was reaped.
func SignalChild(pid, fd int, sig syscall.Signal) error { return PidfdSignal(fd, sig) }

// SignalWatched sends sig to the process of the exit descriptor fd,
// which need not be the caller's child: through the pidfd.
func SignalWatched(pid, fd int, sig syscall.Signal) error { return PidfdSignal(fd, sig) }

// PeekChild reports whether the caller's child pid (exit descriptor fd)
// has ended, and how, without reaping it.
func PeekChild(pid, fd int) (WaitStatus, bool, error) { return Peek(fd) }

// ReapChildWithin waits up to d for the caller's child pid (exit
// descriptor fd) to exit, then reaps it; [ErrRunning] if it has not
// exited by then.
func ReapChildWithin(pid, fd int, d time.Duration) (WaitStatus, error) {
	return ReapWithin(fd, d)
}

// CanSignalGroup reports whether a group can be signalled through its
// leader's handle ([GroupSignal]): Linux 6.9.
func CanSignalGroup() bool { return GroupSignalSupported() }

// GroupSignal sends sig to the group led by the process of the exit
// descriptor fd, through the pidfd (Linux 6.9, see [PidfdSignalGroup]);
// [ErrNoGroupSignal] where the kernel cannot.
func GroupSignal(fd int, sig syscall.Signal) error { return PidfdSignalGroup(fd, sig) }
