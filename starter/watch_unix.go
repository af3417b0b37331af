//go:build darwin || freebsd || linux

package starter

import (
	"context"
	"syscall"
	"time"

	"github.com/session-starter/session-starter/internal/sys"
	"github.com/session-starter/session-starter/starter/launch"
)

// Slots of the watch set.
const (
	slotWake = iota
	slotEngine
	slotGuard
	slotReport
	slotParent
	slotControl
	slotStdin
	slots
)

// watch waits for the first end condition. It polls the exit descriptors
// (pidfds; on macOS and FreeBSD kqueues) of the Engine, the guard and the
// launcher, the gate's exec report and the
// control descriptor in one poll call, run by a goroutine so that signals,
// the timeout and ctx can be selected on too; a wake pipe stops that poll.
// Forwarded signals are passed to the group while the poll goes on.
func (s *session) watch(ctx context.Context) (Reason, syscall.Signal, sys.WaitStatus) {
	wakeR, wakeW, err := sys.Pipe()
	if err != nil {
		// Without a wake pipe the poll cannot be interrupted, and
		// polling with a timeout instead would be a tick: end the session.
		s.log.Error().Err(err).Msg("wake pipe")
		return ReasonWatchFailed, 0, sys.WaitStatus{}
	}
	defer sys.Close(wakeR)
	defer sys.Close(wakeW)

	fds := s.pollSet()
	fds[slotWake] = sys.PollFd{Fd: int32(wakeR), Events: sys.POLLIN}
	fds[slotEngine] = sys.PollFd{Fd: int32(s.gate.Pidfd), Events: sys.POLLIN}
	fds[slotReport] = sys.PollFd{Fd: int32(s.gate.ReportFD()), Events: sys.POLLIN}
	if s.launcher.stdin != nil {
		fds[slotStdin] = sys.PollFd{Fd: int32(s.launcher.stdin.fd), Events: s.launcher.stdin.events}
	}
	var timeout <-chan time.Time
	if s.o.Timeout > 0 {
		t := time.NewTimer(s.o.Timeout)
		defer t.Stop()
		timeout = t.C
	}
	// After the hang-up of its standard input, the Engine's own time to
	// exit: then the session is ended.
	var stdinGrace <-chan time.Time

	polled := make(chan error, 1)
	polling := false
	stop := func() {
		if polling {
			_ = sys.WriteAll(wakeW, []byte{0})
			<-polled
			var b [8]byte
			_, _ = sys.Read(wakeR, b[:])
			polling = false
		}
	}
	defer stop()
	for {
		if !polling {
			for i := range fds {
				fds[i].Revents = 0
			}
			go func() {
				_, err := sys.Poll(fds, -1)
				polled <- err
			}()
			polling = true
		}
		var perr error
		select {
		case sig := <-s.sig.stops:
			return ReasonSignal, sig.(syscall.Signal), sys.WaitStatus{}
		case sig := <-s.sig.fwd:
			s.forward(sig.(syscall.Signal))
			continue
		case sig := <-s.sig.job:
			// Sent to this process (by kill, or by Ctrl-Z where this
			// process's group has the terminal): the Engine's group stops
			// with it.
			s.forward(sig.(syscall.Signal))
			s.followStop()
			continue
		case <-s.sig.chld:
			// Without adopting, any other child of this process is the
			// caller's to reap.
			if s.adopt.on {
				if n, _, _ := s.reapAdopted(); n > 0 {
					s.log.Debug().Int("reaped", n).Msg("adopted children")
				}
			}
			if s.tty != nil && engineStopped(s.gate.PID) {
				s.followStop()
			}
			// A stopped guard would end nothing if this process were
			// killed now: it is continued at once.
			if s.guard.ContinueIfStopped() {
				s.log.Warn().Int("pid", s.guard.PID).Msg("the guard was stopped; continued")
			}
			continue
		case <-timeout:
			return ReasonTimeout, 0, sys.WaitStatus{}
		case <-stdinGrace:
			return ReasonStdinClosed, 0, sys.WaitStatus{}
		case <-ctx.Done():
			return ReasonCanceled, 0, sys.WaitStatus{}
		case perr = <-polled:
			polling = false
		}
		if perr != nil {
			s.log.Error().Err(perr).Msg("watch")
			return ReasonWatchFailed, 0, sys.WaitStatus{}
		}
		if fds[slotReport].Revents != 0 {
			s.execResult()
			fds[slotReport].Fd = -1
		}
		if fds[slotEngine].Revents != 0 {
			st, exited, err := sys.PeekChild(s.gate.PID, s.gate.Pidfd)
			if err != nil {
				s.log.Error().Err(err).Msg("peek at the Engine")
			}
			if exited {
				return ReasonEngineExit, 0, st
			}
		}
		if reason := s.told(fds); reason != "" {
			return reason, 0, sys.WaitStatus{}
		}
		// POLLHUP (a pipe), POLLRDHUP (a stream socket) or POLLERR: the
		// launcher's end is gone.
		if fds[slotStdin].Revents&(sys.POLLHUP|sys.POLLRDHUP|sys.POLLERR) != 0 {
			// The Engine reads the same end of input: it may exit by
			// itself (an MCP server does). No more to watch on it.
			fds[slotStdin].Fd = -1
			d := s.o.StdinGrace
			if d <= 0 {
				d = launch.DefaultStdinGrace
			}
			t := time.NewTimer(d)
			defer t.Stop()
			stdinGrace = t.C
			s.log.Debug().Dur("within", d).Msg("standard input hung up; the Engine may exit by itself")
		}
	}
}

// pollSet is the watch's poll set with the guard's exit descriptor, the
// launcher's and the control descriptor in their slots; every other slot
// is -1, which poll ignores.
func (s *session) pollSet() []sys.PollFd {
	fds := make([]sys.PollFd, slots)
	for i := range fds {
		fds[i].Fd = -1
	}
	fds[slotGuard] = sys.PollFd{Fd: int32(s.guard.Pidfd), Events: sys.POLLIN}
	if s.launcher.exit > 0 {
		fds[slotParent] = sys.PollFd{Fd: int32(s.launcher.exit), Events: sys.POLLIN}
	}
	if s.launcher.ctl != nil {
		fds[slotControl] = sys.PollFd{Fd: int32(s.launcher.ctl.fd), Events: s.launcher.ctl.events()}
	}
	return fds
}

// due is the end condition of pending that is no stop signal: the
// guard's loss, the launcher's exit or the control descriptor's end of
// input, or "". A hung-up standard input is not a stop here: the writer
// may have written all and closed (printf x | …). The watch sees the
// hang-up after the go-ahead and gives the Engine StdinGrace.
func (s *session) due() Reason {
	fds := s.pollSet()
	if _, err := sys.Poll(fds, 0); err != nil {
		return ReasonWatchFailed
	}
	return s.told(fds)
}

// told is the end condition a poll of the pollSet slots shows: the
// guard's loss, the launcher's exit or the control descriptor's end of
// input, or "". The guard first: an Engine must never be released behind
// a guard that is gone.
func (s *session) told(fds []sys.PollFd) Reason {
	switch {
	case fds[slotGuard].Revents != 0:
		return ReasonGuardLost
	case fds[slotParent].Revents != 0:
		return ReasonParentGone
	case fds[slotControl].Revents != 0 && s.launcher.ctl.ended():
		return ReasonControlClosed
	}
	return ""
}

// followStop follows a job-control stop of the Engine (Ctrl-Z) or of this
// process: it takes the terminal back, if it has one, and stops this
// process too, so that the shell sees its job stopped; when continued
// (fg), it gives the terminal back to the Engine's group if it got it, and
// continues that group. The group is continued before anything else, so
// that its stop, once continued, is no longer reported (engineStopped):
// one stop is followed once.
func (s *session) followStop() {
	s.log.Debug().Msg("stopping with the Engine")
	if s.tty != nil {
		if err := s.tty.takeBack(); err != nil {
			s.log.Warn().Err(err).Msg("take the terminal back")
		}
	}
	stopSelf()
	// Continued. With fg the shell gave us the terminal: pass it on.
	if s.tty != nil && s.tty.foreground() {
		if err := s.tty.give(s.gate.PID); err != nil {
			s.log.Warn().Err(err).Msg("give the terminal to the Engine")
		}
	}
	s.forward(syscall.SIGCONT)
}

// returnTerminal takes the terminal back at the end of the session if
// the Engine's group still has it.
func (s *session) returnTerminal() {
	if fg, err := sys.Tcgetpgrp(s.tty.fd); err == nil && fg == s.gate.PID {
		if err := s.tty.takeBack(); err != nil {
			s.log.Warn().Err(err).Msg("take the terminal back")
		}
	}
}

// forward passes sig to the Engine's group. The group is pinned by the
// Engine, still the starter's unreaped child (see engineGroup).
func (s *session) forward(sig syscall.Signal) {
	err := s.group.Signal(sig)
	s.log.Debug().Str("signal", sys.SignalName(sig)).Err(err).Msg("forwarded")
}

// execResult reads the gate's exec report, once, when it is readable: the
// watch calls it when the poll shows the report, collect after the group
// end, when the gate has executed the Engine or exited. Then the report
// is a message or end of file, and reading it cannot block. If it is
// somehow not readable yet, no exec failure was seen.
func (s *session) execResult() error {
	if !s.exec.read {
		fds := []sys.PollFd{{Fd: int32(s.gate.ReportFD()), Events: sys.POLLIN}}
		if n, err := sys.Poll(fds, 0); err == nil && n > 0 {
			s.exec.read = true
			s.exec.err = s.gate.ExecResult()
		}
	}
	return s.exec.err
}
