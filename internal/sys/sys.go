package sys

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"syscall"
	"time"
)

var (
	// ErrGone means the process, or every member of the group, is gone:
	// the kernel answered ESRCH (pidfd_open: see [PidfdOpen]).
	ErrGone = errors.New("no such process")
	// ErrNoGroupSignal means the kernel does not know
	// PIDFD_SIGNAL_PROCESS_GROUP (added in Linux 6.9).
	ErrNoGroupSignal = fmt.Errorf("pidfd_send_signal: PIDFD_SIGNAL_PROCESS_GROUP needs Linux 6.9: %w", errors.ErrUnsupported)
	// ErrRunning means a child has not exited (yet).
	ErrRunning = errors.New("still running")
	// ErrBadFD means the descriptor is not open.
	ErrBadFD = errors.New("bad file descriptor")
)

// WaitStatus is how a child ended, as waitid reports it.
type WaitStatus struct {
	// Exited is true when the child called exit; Code is then its status.
	Exited bool
	Code   int
	// Signal is the signal that ended the child when Exited is false.
	Signal syscall.Signal
	// CoreDumped is set when the child dumped core.
	CoreDumped bool
	// CPU is the user and system time the reap reported (its rusage):
	// the child's own, and that of the descendants it reaped itself.
	CPU time.Duration
}

func (s WaitStatus) String() string {
	if s.Exited {
		return fmt.Sprintf("exit status %d", s.Code)
	}
	if s.CoreDumped {
		return fmt.Sprintf("signal %s (core dumped)", SignalName(s.Signal))
	}
	return "signal " + SignalName(s.Signal)
}

// SignalName returns the short upper-case name of sig (TERM, KILL, …), or
// its number when it has none.
func SignalName(sig syscall.Signal) string {
	if name, ok := signalNames[sig]; ok {
		return name
	}
	return fmt.Sprintf("%d", int(sig))
}

// SignalByName parses a signal name with or without the SIG prefix, in
// either case, or a number.
func SignalByName(s string) (syscall.Signal, bool) {
	up := []byte(s)
	for i, c := range up {
		if 'a' <= c && c <= 'z' {
			up[i] = c - 'a' + 'A'
		}
	}
	name := strings.TrimPrefix(string(up), "SIG")
	for sig, n := range signalNames {
		if n == name {
			return sig, true
		}
	}
	if n, err := strconv.Atoi(s); err == nil && strconv.Itoa(n) == s && n > 0 && n < 65 {
		return syscall.Signal(n), true
	}
	return 0, false
}
