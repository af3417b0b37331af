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

// maxWalk bounds the processes one signal of the escapees opens at once:
// the adopted children and, below them, their descendants. A tree wider
// than that (the 2,047 of a 10-level binary fork tree fit) is reached
// further at the next look or round, as its adopted part dies.
const maxWalk = 4096

// SignalOnce implements [end.OnceHolder]. End signals group E before the
// escapees: a child still in E got that signal (group E's members at the
// moment of the group signal all get it), and is not signalled again one
// by one; nor is any other process r has. The leaders of their own groups
// are signalled first, each group as a whole, so that a member adopted
// too is left out after.
//
// The signal goes to the descendants of the adopted children too, found
// in /proc/PID/task/*/children top-down, each opened as a pidfd and
// checked to be its parent's child (Linux; elsewhere a descendant is
// reached once it is adopted). SIGKILL stops the tree first: each process
// is sent SIGSTOP before its children are listed, so that it can neither
// fork (a fork with a signal pending is restarted) nor reap while the walk
// goes on, and a storm's number stays pinned; then every process of the
// tree gets SIGKILL, and SIGCONT (what SIGKILL did not end is not left
// stopped).
func (e *escapees) SignalOnce(sig syscall.Signal, r *end.Reached) error {
	pids, err := e.s.adopted()
	var tree []adoptedChild
	for _, pid := range pids {
		if c, ok := e.s.openAdopted(pid, e.forbidden); ok {
			tree = append(tree, c)
		}
	}
	defer func() {
		for _, c := range tree {
			sys.Close(c.fd)
		}
	}()
	slices.SortStableFunc(tree, func(a, b adoptedChild) int {
		if a.leads == b.leads {
			return 0
		}
		if a.leads {
			return -1
		}
		return 1
	})
	first := sig
	if sig == syscall.SIGKILL {
		first = syscall.SIGSTOP
	}
	stopped := map[int]bool{}
	for i := 0; i < len(tree); i++ {
		c := tree[i]
		if !r.Has(c.pid, c.pgrp) {
			if first == syscall.SIGSTOP {
				if _, err := c.send(first); err == nil {
					stopped[c.pid] = true
				}
			} else {
				e.sent(c, sig, r)
			}
		}
		if len(tree) >= maxWalk {
			continue
		}
		kids, err := childrenOfProcess(c.pid)
		if err != nil {
			continue
		}
		for _, kid := range kids {
			if len(tree) >= maxWalk {
				break
			}
			if d, ok := openDescendant(kid, c.pid, e.forbidden); ok {
				tree = append(tree, d)
			}
		}
	}
	if first == syscall.SIGSTOP {
		for _, c := range tree {
			if !r.Has(c.pid, c.pgrp) {
				e.sent(c, sig, r)
			}
		}
		for _, c := range tree {
			if stopped[c.pid] {
				_, _ = c.send(syscall.SIGCONT)
			}
		}
	}
	return err
}

// sent sends sig to c, and records in r what it reached.
func (e *escapees) sent(c adoptedChild, sig syscall.Signal, r *end.Reached) {
	group, err := c.send(sig)
	switch {
	case err == nil && group:
		r.Group(c.pid)
	case err == nil:
		r.Process(c.pid)
	}
	e.s.log.Debug().Int("pid", c.pid).Int("pgid", c.pgrp).Str("signal", sys.SignalName(sig)).Err(err).Msg("escapee signalled")
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

// adoptedChild is an adopted child, or one of its descendants, opened
// for signalling: its pidfd (for an adopted child, opened while it is
// this process's unreaped child: nobody else reaps the starter's
// children, so the PID names it alone), its group, whether it leads that
// group and the group may be signalled as a whole, and whether it is this
// process's child.
type adoptedChild struct {
	pid, fd, pgrp int
	leads, child  bool
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
	return adoptedChild{pid: pid, fd: fd, pgrp: st.Pgrp, leads: st.Pgrp == pid && !slices.Contains(forbidden, pid), child: true}, true
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
	if c.child {
		return false, sys.SignalChild(c.pid, c.fd, sig)
	}
	return false, signalDescendant(c.fd, sig)
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
