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

// Signal implements [end.Holder]. End signals group E just before the
// escapees: a child still in E got that signal (group E's members at the
// moment of the group signal all get it), and is not signalled again
// one by one in the same round.
func (e *escapees) Signal(sig syscall.Signal) error {
	inE := 0
	if e.s.groupSent == sig {
		inE = e.s.group.PGID
	}
	e.s.groupSent = 0
	pids, err := e.s.adopted()
	for _, pid := range pids {
		e.s.signalAdopted(pid, sig, e.forbidden, inE)
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

// signalAdopted sends sig to the adopted child pid, or to the group it
// leads, unless it is a member of group signalled (0: none), which got
// sig already.
func (s *session) signalAdopted(pid int, sig syscall.Signal, forbidden []int, signalled int) {
	if signalled > 0 {
		// The child's group from /proc before the pidfd: a child in the
		// signalled group is skipped, and no other is signalled here
		// without the check below.
		if st, err := proc.ReadStat(pid); err == nil && st.Pgrp == signalled {
			return
		}
	}
	fd, err := sys.WatchExit(pid)
	if err != nil {
		return
	}
	defer sys.Close(fd)
	st, err := proc.ReadStat(pid)
	if err != nil || st.PPID != os.Getpid() {
		return // not our child: nothing is signalled on a guess
	}
	send := func(sig syscall.Signal) error { return sys.SignalChild(pid, fd, sig) }
	if st.Pgrp == pid && !slices.Contains(forbidden, pid) {
		send = func(sig syscall.Signal) error { return sys.GroupSignal(fd, sig) }
	}
	err = send(sig)
	if errors.Is(err, sys.ErrNoGroupSignal) {
		err = sys.SignalChild(pid, fd, sig)
	}
	s.log.Debug().Int("pid", pid).Int("pgid", st.Pgrp).Str("signal", sys.SignalName(sig)).Err(err).Msg("adopted child signalled")
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
