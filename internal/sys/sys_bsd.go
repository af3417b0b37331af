//go:build darwin || freebsd

package sys

import (
	"errors"
	"fmt"
	"os/signal"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// poll is one poll(2) on fds, its timeout (< 0: without limit) rounded up
// to whole milliseconds ([Poll]).
func poll(fds []PollFd, timeout time.Duration) (int, error) {
	ms := -1
	if timeout >= 0 {
		ms = int((timeout + time.Millisecond - 1) / time.Millisecond)
	}
	n, err := unix.Poll(fds, ms)
	return n, named("poll", err)
}

// fionread is FIONREAD ([Buffered]): _IOR('f', 127, int).
const fionread = 0x4004667f

// Pipe returns a close-on-exec pipe: read end, write end. macOS has no
// pipe2: the flags are set under syscall.ForkLock, so that no fork in
// between inherits the pipe.
func Pipe() (r, w int, err error) {
	var p [2]int
	syscall.ForkLock.RLock()
	defer syscall.ForkLock.RUnlock()
	if err := unix.Pipe(p[:]); err != nil {
		return -1, -1, named("pipe", err)
	}
	unix.CloseOnExec(p[0])
	unix.CloseOnExec(p[1])
	return p[0], p[1], nil
}

// Dup2 makes newfd a copy of oldfd.
func Dup2(oldfd, newfd int) error {
	_, err := ignoringEINTR(func() (struct{}, error) { return struct{}{}, unix.Dup2(oldfd, newfd) })
	return named("dup2", err)
}

// noCore switches core dumps off for [Die] (RLIMIT_CORE 0): the BSDs
// have no core handler that ignores the limit.
func noCore() { _ = unix.Setrlimit(unix.RLIMIT_CORE, &unix.Rlimit{}) }

// deadlyHere are the signals besides those of every platform whose
// default action ends a process on macOS and FreeBSD ([DeadlySignals]).
var deadlyHere = []syscall.Signal{syscall.SIGEMT}

// fatalHere are the signals of fatalStops that only macOS and FreeBSD
// have: the Go runtime throws on SIGEMT.
var fatalHere = []syscall.Signal{syscall.SIGEMT}

// sigUnblock is SIG_UNBLOCK of <signal.h>, the same on macOS and FreeBSD
// (golang.org/x/sys/unix does not name it there).
const sigUnblock = 2

// SignalSelf sends sig to this process (kill(getpid())).
func SignalSelf(sig syscall.Signal) error {
	return named("kill", unix.Kill(unix.Getpid(), sig))
}

// OpenFilesLimit returns the soft RLIMIT_NOFILE (getrlimit), as it is
// now: the Go runtime raised it at start-up.
func OpenFilesLimit() (uint64, error) {
	var rl unix.Rlimit
	if err := unix.Getrlimit(unix.RLIMIT_NOFILE, &rl); err != nil {
		return 0, named("getrlimit", err)
	}
	return uint64(rl.Cur), nil // rl.Cur is int64 on FreeBSD, uint64 on macOS
}

// SetName would name the process for ps; macOS and FreeBSD have no call
// for that without cgo.
func SetName(string) error {
	return fmt.Errorf("set the process name: %w", errors.ErrUnsupported)
}

// POLLRDHUP is no event here, and SocketHangups false: a stream socket's
// peer gone is not told by poll alone on macOS and FreeBSD (it reads as
// readable end of file), so no socket is watched for its hang-up.
const (
	POLLRDHUP     = 0
	SocketHangups = false
)

// getTermios is the ioctl of [IsTerminal], which macOS and FreeBSD name
// TIOCGETA.
const getTermios = unix.TIOCGETA

// SignalIgnored reports whether sig is ignored in this process. Here it
// is signal.Ignored, which sees an inherited ignore of SIGHUP and SIGINT
// but never of SIGTSTP, SIGTTIN and SIGTTOU: the Go runtime does not read
// their disposition at start.
func SignalIgnored(sig syscall.Signal) bool { return signal.Ignored(sig) }
