//go:build darwin || freebsd || linux

package guard

import (
	"io"
	"os"
	"syscall"

	"github.com/session-starter/session-starter/internal/sys"
	"github.com/session-starter/session-starter/internal/wire"
)

// pin is the guard's child in group E. life is the write end of the
// pin's standard input, which only the guard holds: the pin exits at its
// end of input, so a pin never outlives its guard (a guard SIGKILLed
// before it was armed, say), on any platform.
type pin struct{ pid, pidfd, life int }

// pinGroup starts the pin in group E (setpgid in the child, before its
// exec; the guard is in the starter's session, as E is) and checks, after
// the join, that the gate has not exited: then E was still the gate's
// group when the pin joined it. It returns a refusal code, or 0.
func pinGroup(pgid int) (*pin, int) {
	null, err := sys.Open("/dev/null", sys.O_RDWR)
	if err != nil {
		return nil, refusedNoGroupSignal
	}
	lifeR, lifeW, err := sys.Pipe()
	if err != nil {
		sys.Close(null)
		return nil, refusedNoGroupSignal
	}
	exe, err := selfExe()
	pid, pidfd := 0, -1
	if err == nil {
		// life on 0, null on 1-2.
		pid, pidfd, err = sys.SpawnGroup(exe, []string{"session-starter", pinArg}, guardEnv(), "/",
			[]uintptr{uintptr(lifeR), uintptr(null), uintptr(null)}, pgid)
	}
	// Closed now, not deferred: where the gate's slot starts closed
	// (sys.Pidless), null may hold that very number, and the watch below
	// is put there — a deferred close would close the watch. The watch
	// may get the number itself, as the lowest free one.
	sys.Close(null)
	sys.Close(lifeR)
	if err != nil {
		sys.Close(lifeW)
		// setpgid fails with EPERM once E has no member: the gate is gone.
		return nil, refusedNoGroupSignal
	}
	p := &pin{pid: pid, pidfd: pidfd, life: lifeW}
	if sys.Pidless {
		// No handle of the gate came with the spawn: watch the Engine's
		// exit from here. The pin is in E, so the number E can name no
		// process but the gate (or, once it executed, the Engine); if it
		// is gone, the gate exited before the join counted.
		fd, err := sys.WatchExit(pgid)
		if err == nil && fd != wire.SlotGate {
			err = sys.Dup2(fd, wire.SlotGate)
			sys.Close(fd)
		}
		if err != nil {
			p.end()
			return nil, refusedGroupGone
		}
	}
	gate := []sys.PollFd{{Fd: wire.SlotGate, Events: sys.POLLIN}}
	if n, err := sys.Poll(gate, 0); err != nil || n != 0 {
		p.end()
		return nil, refusedGroupGone
	}
	if pg, err := sys.Getpgid(pid); err != nil || pg != pgid {
		p.end()
		return nil, refusedNoGroupSignal
	}
	return p, 0
}

// end kills the pin (alone, through its pidfd) and reaps it: after this
// the guard signals group E no more. The pin runs nothing but a read of
// its pipe, so it exits at once unless it is frozen; after reapWait it is
// left to be reaped by init when the guard exits.
func (p *pin) end() {
	if p == nil {
		return
	}
	_ = sys.SignalChild(p.pid, p.pidfd, syscall.SIGKILL)
	_, _ = sys.ReapChildWithin(p.pid, p.pidfd, reapWait)
	sys.Close(p.pidfd)
	sys.Close(p.life)
}

// pinMain is the pin: it waits, pinning group E, until it is killed or
// its guard is gone (the end of its standard input). Its environment is
// the guard's (guardEnv): one thread of Go code from the start.
func pinMain() {
	_ = sys.SetName("session-pin")
	_, _ = io.Copy(io.Discard, sys.FD(0))
	os.Exit(0)
}
