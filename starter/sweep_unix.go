//go:build darwin || freebsd || linux

package starter

import (
	"errors"
	"fmt"
	"os"
	"slices"
	"syscall"

	"github.com/session-starter/session-starter/internal/end"
	"github.com/session-starter/session-starter/internal/proc"
	"github.com/session-starter/session-starter/internal/sys"
)

// escapees holds the children the starter adopted as a subreaper:
// processes that left group E (setsid, setpgid, a double fork) and
// orphans of the Engine's tree. Every child of this process is one,
// except the guard, the Engine while it is unreaped, and the children it
// had before the gate (see [session.adopted]). Each is signalled through a
// pidfd opened while it is the starter's unreaped child (on FreeBSD, by
// number, while it is) — nobody else reaps the starter's children, so the
// PID cannot name anyone else — and
// a child that leads its own process group has the whole group signalled
// through that pidfd, unless the group is one that must never be
// signalled (the starter's, the guard's, the launcher's, the terminal's
// foreground). Orphans of the killed are adopted in turn, and SIGCHLD
// (the plan's Wake) makes the end look again.
type escapees struct {
	s         *session
	forbidden []int
}

// Kind implements [end.Holder].
func (e *escapees) Kind() end.Kind { return end.KindEscapees }

// Notify implements [end.Holder]: the children's exits are told by
// SIGCHLD, through the plan.
func (e *escapees) Notify() (int, int16) { return -1, 0 }

// Signal implements [end.Holder].
func (e *escapees) Signal(sig syscall.Signal) error {
	return e.SignalOnce(sig, end.NewReached())
}

// SignalOnce implements [end.OnceHolder]. End signals group E before the
// escapees: a child still in E got that signal (group E's members at the
// moment of the group signal all get it), and is not signalled again one
// by one; nor is any other child r has. The leaders of their own groups
// are signalled first, each group as a whole, so that a member adopted
// too is left out after.
func (e *escapees) SignalOnce(sig syscall.Signal, r *end.Reached) error {
	pids, err := e.s.adopted()
	var kids []adoptedChild
	for _, pid := range pids {
		if c, ok := e.s.openAdopted(pid, e.forbidden); ok {
			kids = append(kids, c)
		}
	}
	defer func() {
		for _, c := range kids {
			sys.Close(c.fd)
		}
	}()
	slices.SortStableFunc(kids, func(a, b adoptedChild) int {
		if a.leads == b.leads {
			return 0
		}
		if a.leads {
			return -1
		}
		return 1
	})
	for _, c := range kids {
		if r.Has(c.pid, c.pgrp) {
			continue
		}
		group, err := c.send(sig)
		switch {
		case err == nil && group:
			r.Group(c.pid)
		case err == nil:
			r.Process(c.pid)
		}
		e.s.log.Debug().Int("pid", c.pid).Int("pgid", c.pgrp).Str("signal", sys.SignalName(sig)).Err(err).Msg("adopted child signalled")
	}
	return err
}

// Live implements [end.Holder]. A failed listing of the children is an
// error: the holder is then not shown empty.
func (e *escapees) Live() ([]end.Member, error) {
	pids, err := e.s.adopted()
	if err != nil {
		return nil, fmt.Errorf("adopted children: %w", err)
	}
	var out []end.Member
	for _, pid := range pids {
		// An orphan still in group E (`sleep 300 &` of a shell that
		// exited) has not escaped: the group holds it, and it is not
		// counted here.
		if st, err := proc.ReadStat(pid); err == nil && st.Live() && st.Pgrp != e.s.gate.PID {
			out = append(out, end.MemberOf(st))
		}
	}
	return out, nil
}

// adoptedChild is an adopted child opened for signalling: its pidfd,
// opened while it is this process's unreaped child (nobody else reaps
// the starter's children, so the PID names it alone), its group, and
// whether it leads that group and the group may be signalled as a whole.
type adoptedChild struct {
	pid, fd, pgrp int
	leads         bool
}

// openAdopted opens the adopted child pid, checking that it is still this
// process's child; ok is false when it is not (nothing is signalled on a
// guess) or cannot be opened. A child leading a group that must never be
// signalled (forbidden) is signalled alone.
func (s *session) openAdopted(pid int, forbidden []int) (c adoptedChild, ok bool) {
	fd, err := sys.WatchExit(pid)
	if err != nil {
		return c, false
	}
	st, err := proc.ReadStat(pid)
	if err != nil || st.PPID != os.Getpid() {
		sys.Close(fd)
		return c, false
	}
	return adoptedChild{pid: pid, fd: fd, pgrp: st.Pgrp, leads: st.Pgrp == pid && !slices.Contains(forbidden, pid)}, true
}

// send sends sig to the group the child leads, or where that cannot be
// (no group signal on this kernel, or not a group to signal) to the child
// alone; group says which.
func (c adoptedChild) send(sig syscall.Signal) (group bool, err error) {
	if c.leads {
		err := sys.GroupSignal(c.fd, sig)
		if !errors.Is(err, sys.ErrNoGroupSignal) {
			return true, err
		}
	}
	return false, sys.SignalChild(c.pid, c.fd, sig)
}

// neverSweep lists the process groups the sweep must never signal as a
// group, found at start: the launcher's (parent's) and the terminal's
// foreground group on any of descriptors 0-2. The starter's and the
// guard's are added by the caller.
func neverSweep(parent int) []int {
	var out []int
	if pg, err := sys.Getpgid(parent); err == nil {
		out = append(out, pg)
	}
	for fd := range 3 {
		if pg, err := sys.Tcgetpgrp(fd); err == nil && pg > 0 {
			out = append(out, pg)
		}
	}
	return out
}
