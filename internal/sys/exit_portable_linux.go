//go:build portable

package sys

import (
	"time"

	"golang.org/x/sys/unix"
)

// The portable build's exit descriptor is a pidfd, polled and never used
// for anything else: it stands in for kqueue's EVFILT_PROC/NOTE_EXIT.
// Waits go by number, as on macOS and FreeBSD.

// PeekChild reports whether the caller's child pid has ended, and how,
// without reaping it: waitid(P_PID, WEXITED|WNOHANG|WNOWAIT).
func PeekChild(pid, _ int) (WaitStatus, bool, error) { return peek(unix.P_PID, pid) }

// ReapChildWithin waits up to d for the exit descriptor fd to tell that
// the caller's child pid exited, then reaps it by number;
// [ErrRunning] if it has not exited by then. A traced child is waitable
// only after its tracer has waited for it: until d, waitid is tried
// again after pauses of 100 µs doubling to 10 ms.
func ReapChildWithin(pid, fd int, d time.Duration) (WaitStatus, error) {
	return reapWithin(fd, d, unix.P_PID, pid)
}
