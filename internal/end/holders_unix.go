//go:build darwin || freebsd || linux

package end

import (
	"errors"
	"fmt"
	"os"
	"slices"
	"syscall"
	"time"

	"github.com/session-starter/session-starter/internal/proc"
	"github.com/session-starter/session-starter/internal/sys"
)

// Process is one process held through its exit descriptor: the Engine.
// On Linux that is a pidfd, which names one process for its whole life,
// so a signal through it can never reach a process that reused the
// number; once the process is reaped the kernel answers ESRCH
// ([sys.ErrGone]). Where there are no pidfds (sys.Pidless) it is signalled
// by number, only while the number is pinned: Child (unreaped) or Pinned.
//
// In the starter the Engine is a child (Child): it is the one owner of
// the Engine's reap, through [Process.Reap], and with ReapEarly its Live
// reaps the exited Engine at once, keeping its status, so that the
// group's signal 0 can show the group gone without a /proc scan. Set
// ReapEarly only when nothing signals the group by number: before Linux
// 6.9 the Engine's zombie is what keeps the number E allocated.
//
// In the guard the Engine is not a child: Live tells its exit by the
// exit descriptor alone.
type Process struct {
	PID, Pidfd int
	Child      bool
	ReapEarly  bool
	// Pinned says the caller keeps the number PID from being handed out
	// again although the process is not its child: a pin of its own is a
	// member of the group PID leads, and no process is given a number
	// that is a live group's. Then, where signals go by number
	// (sys.Pidless), the process is signalled by its number.
	Pinned bool

	reaped bool
	status sys.WaitStatus
}

// Traits implements [Holder].
func (p *Process) Traits() Traits { return Traits{Kind: KindEngine} }

// Signal implements [Holder].
func (p *Process) Signal(sig syscall.Signal) error {
	if p.reaped {
		return sys.ErrGone
	}
	if p.Child || p.Pinned {
		return sys.SignalChild(p.PID, p.Pidfd, sig)
	}
	return sys.SignalWatched(p.PID, p.Pidfd, sig)
}

// SignalOnce implements [OnceHolder]: the process is left out when r has
// it, as itself or as a member of a group signalled as a whole (the
// Engine leads group E). Its group is read from /proc by number; a wrong
// read (the process gone, its number reused) can only leave it out of a
// signal it had no use for, as the signal itself goes through the pidfd.
func (p *Process) SignalOnce(sig syscall.Signal, r *Reached) error {
	if p.reaped {
		return sys.ErrGone
	}
	pgrp := 0
	if st, err := proc.ReadStat(p.PID); err == nil {
		pgrp = st.Pgrp
	}
	if r.Has(p.PID, pgrp) {
		return nil
	}
	err := p.Signal(sig)
	if err == nil {
		r.Process(p.PID)
	}
	return err
}

// Notify implements [Holder]: a pidfd is readable once its process has
// exited.
func (p *Process) Notify() (int, int16) { return p.Pidfd, sys.POLLIN }

// Live implements [Holder].
func (p *Process) Live() ([]Member, error) {
	if p.reaped || p.exited() {
		return nil, nil
	}
	st, err := proc.ReadStat(p.PID)
	switch {
	case p.reaped || p.exited():
		// Exited between the two looks, or /proc cannot say: the pidfd,
		// not the number, decides (once: a look may reap it).
		return nil, nil
	case err != nil:
		return nil, fmt.Errorf("engine pid %d: %w", p.PID, err)
	}
	return []Member{MemberOf(st)}, nil
}

// exited reports whether the process has exited, reaping it if it is a
// child that may be reaped early.
func (p *Process) exited() bool {
	if p.Child {
		_, exited, err := sys.PeekChild(p.PID, p.Pidfd)
		if err != nil || !exited {
			return false
		}
		if p.ReapEarly {
			_, _ = p.Reap(0)
		}
		return true
	}
	fds := []sys.PollFd{{Fd: int32(p.Pidfd), Events: sys.POLLIN}}
	n, err := sys.Poll(fds, 0)
	return err == nil && n > 0
}

// Reap reaps the child once it has exited, waiting for that up to
// within, and returns its status; a child reaped already returns the
// status it had. It never waits longer: a child still running then (one
// that cannot be killed) is left unreaped, with [sys.ErrRunning].
func (p *Process) Reap(within time.Duration) (sys.WaitStatus, error) {
	if p.reaped {
		return p.status, nil
	}
	st, err := sys.ReapChildWithin(p.PID, p.Pidfd, within)
	if errors.Is(err, sys.ErrRunning) {
		return st, fmt.Errorf("pid %d: %w after %v", p.PID, err, within)
	}
	if err != nil {
		return st, err
	}
	p.reaped, p.status = true, st
	return st, nil
}

// Reaped reports whether the process has been reaped, by Live or Reap.
func (p *Process) Reaped() bool { return p.reaped }

// Group is a process group: the Engine's group E. Send is how it is
// signalled, and must be a way that cannot reach a reused number:
// [PidfdGroupSend] (Linux 6.9), or kill(-E) only where the caller keeps
// the number allocated by an unreaped member of its own. A Send that
// answers [sys.ErrNoGroupSignal] (no safe way on this kernel) makes the
// group refused.
//
// Its live members are found by a /proc scan, which counts only when a
// signal 0 to the group before it and one after it both showed the group
// present (success, or EPERM: see present): while
// the group has a member its number cannot be handed out again, so every
// PID the scan found with that group number was in this group. A PID
// found by a scan is never signalled.
type Group struct {
	PGID int
	Send func(sig syscall.Signal) error
	// Forbidden lists groups that must never be signalled: the caller's
	// own and its helpers'. Group refuses them.
	Forbidden []int
	// Helper, when > 0, is a helper of the caller's whose children are
	// not counted as live members: the guard, whose pin joins the group
	// to hold its number. No process of the session has the guard as its
	// parent (the guard adopts no orphans).
	Helper int
	// Exclude lists PIDs that are not counted as live members: a pin of
	// the caller's own that holds the number.
	Exclude []int
	// Unwatched says another holder's emptiness shows the group's (a
	// cgroup that holds it, told by the kernel): the group is signalled
	// and never scanned ([Traits.Unwatched]).
	Unwatched bool
}

// PidfdGroupSend signals the group led by the process of pidfd with
// PIDFD_SIGNAL_PROCESS_GROUP (Linux 6.9): the kernel finds the group
// through the leader's pid object, never through its number, whether or
// not the leader was reaped, and answers ESRCH ([sys.ErrGone]) once the
// group has no member.
func PidfdGroupSend(pidfd int) func(syscall.Signal) error {
	return func(sig syscall.Signal) error { return sys.GroupSignal(pidfd, sig) }
}

// Traits implements [Holder]: a group's look is a /proc scan.
func (g Group) Traits() Traits {
	return Traits{Kind: KindGroup, Together: true, Scans: true, Whole: true, Unwatched: g.Unwatched}
}

// Notify implements [Holder]: nothing announces a group's last exit.
func (g Group) Notify() (int, int16) { return -1, 0 }

// Signal implements [Holder].
func (g Group) Signal(sig syscall.Signal) error {
	if g.PGID <= 1 || slices.Contains(g.Forbidden, g.PGID) {
		return fmt.Errorf("%w: group %d is not the Engine's alone", ErrRefused, g.PGID)
	}
	err := g.Send(sig)
	if errors.Is(err, sys.ErrNoGroupSignal) {
		return fmt.Errorf("%w: %w", ErrRefused, err)
	}
	return err
}

// SignalOnce implements [OnceHolder]: the group is signalled as a whole
// unless r has it already, and then r has it.
func (g Group) SignalOnce(sig syscall.Signal, r *Reached) error {
	if r.HasGroup(g.PGID) {
		return nil
	}
	err := g.Signal(sig)
	if err == nil {
		r.Group(g.PGID)
	}
	return err
}

// Live implements [Holder].
func (g Group) Live() ([]Member, error) {
	if ok, err := g.present(); !ok {
		return nil, err
	}
	stats, err := proc.LiveMembers(g.PGID)
	if err != nil {
		return nil, err
	}
	if ok, err := g.present(); !ok {
		return nil, err
	}
	var out []Member
	for _, st := range stats {
		if !slices.Contains(g.Exclude, st.PID) && (g.Helper <= 0 || st.PPID != g.Helper) {
			out = append(out, MemberOf(st))
		}
	}
	return out, nil
}

// present checks with signal 0 that the group still has a member. EPERM
// counts as yes: the group exists with members, only none the kernel let
// us signal — another user's process that joined the group, or, on macOS,
// only zombies (which it skips, answering EPERM rather than ESRCH) — so
// the number is still the group's. ESRCH ([sys.ErrGone]) is no, with
// no error; any other error is no with that error.
func (g Group) present() (bool, error) {
	switch err := g.Signal(0); {
	case err == nil, errors.Is(err, syscall.EPERM):
		return true, nil
	case errors.Is(err, sys.ErrGone):
		return false, nil
	default:
		return false, err
	}
}

// MemberOf returns the report entry of a live process: its stat, uid and
// whether this process may signal it.
func MemberOf(st proc.Stat) Member {
	uid := proc.UID(st.PID)
	euid := os.Geteuid()
	return Member{Stat: st, UID: uid, Denied: euid != 0 && uid >= 0 && uid != euid}
}
