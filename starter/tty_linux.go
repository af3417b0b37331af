package starter

import (
	"errors"
	"os"
	"runtime"
	"syscall"

	"golang.org/x/sys/unix"

	"github.com/session-starter/session-starter/internal/sys"
)

// terminal is the controlling terminal the starter hands to the Engine's
// group, when there is one to hand: stdin and stdout are the same
// terminal, and the starter's group is its foreground group (so not for
// `session-starter -- git log | less`, nor for a job started with &).
type terminal struct {
	fd  int // close-on-exec copy of stdin, for tcsetpgrp
	own int // the starter's process group, the foreground one at start
}

// openTerminal returns the terminal to hand over, or nil.
func openTerminal() *terminal {
	in, err1 := sys.Fstat(0)
	out, err2 := sys.Fstat(1)
	if err1 != nil || err2 != nil || in.Mode&unix.S_IFMT != unix.S_IFCHR || in.Rdev != out.Rdev {
		return nil
	}
	if _, err := unix.IoctlGetTermios(0, unix.TCGETS); err != nil {
		return nil
	}
	// TIOCGPGRP fails with ENOTTY unless this is our controlling terminal.
	fg, err := unix.IoctlGetInt(0, unix.TIOCGPGRP)
	if err != nil || fg != unix.Getpgrp() {
		return nil
	}
	fd, err := unix.FcntlInt(0, unix.F_DUPFD_CLOEXEC, 3)
	if err != nil {
		return nil
	}
	return &terminal{fd: fd, own: fg}
}

// give makes pgid the terminal's foreground group. It runs with SIGTTOU
// blocked on its thread, so that the starter, in the background once the
// Engine has the terminal, is never stopped by it (a process that blocks
// SIGTTOU may set the foreground group from the background).
func (t *terminal) give(pgid int) error {
	var err error
	withTTOUBlocked(func() { err = unix.IoctlSetPointerInt(t.fd, unix.TIOCSPGRP, pgid) })
	if err != nil {
		return os.NewSyscallError("tcsetpgrp", err)
	}
	return nil
}

// foreground reports whether the starter's group has the terminal.
func (t *terminal) foreground() bool {
	fg, err := unix.IoctlGetInt(t.fd, unix.TIOCGPGRP)
	return err == nil && fg == t.own
}

// takeBack gives the terminal back to the starter's group.
func (t *terminal) takeBack() error { return t.give(t.own) }

func (t *terminal) close() { sys.Close(t.fd) }

// withTTOUBlocked runs f on a locked thread with SIGTTOU blocked. Blocking
// it, rather than signal.Ignore, leaves nothing for a child to inherit:
// the mask is that thread's alone and is put back before it is unlocked.
func withTTOUBlocked(f func()) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	var set, old unix.Sigset_t
	set.Val[(syscall.SIGTTOU-1)/64] |= 1 << ((syscall.SIGTTOU - 1) % 64)
	if err := unix.PthreadSigmask(unix.SIG_BLOCK, &set, &old); err != nil {
		f()
		return
	}
	f()
	_ = unix.PthreadSigmask(unix.SIG_SETMASK, &old, nil)
}

// engineStopped consumes a stop of the Engine (Ctrl-Z: SIGTSTP to its
// group) and reports it; the Engine is not reaped.
func engineStopped(pidfd int) bool {
	var info unix.Siginfo
	for {
		err := unix.Waitid(unix.P_PIDFD, pidfd, &info, unix.WSTOPPED|unix.WNOHANG, nil)
		if errors.Is(err, unix.EINTR) {
			continue
		}
		return err == nil && info.Signo != 0
	}
}
