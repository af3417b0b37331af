//go:build darwin || freebsd || linux

package end

import (
	"errors"
	"fmt"
	"os"
	"slices"
	"syscall"

	"github.com/session-starter/session-starter/internal/proc"
	"github.com/session-starter/session-starter/internal/sys"
)

// Adopted holds the children a subreaper adopted: processes that left
// the group of what it runs (setsid, setpgid, a double fork) and orphans
// of its tree — the starter's escapees, the spawn helper's orphans of its
// calls. List names them (the caller's children that are its to end,
// those that exited reaped first). Each is signalled through a pidfd
// opened while it is this process's unreaped child, checked to be its
// child after the open (on FreeBSD, by number, while it is) — nobody else
// reaps a subreaper's children, so the PID cannot name anyone else — and
// a child that leads its own process group has the whole group signalled
// through that pidfd, unless the group is one that must never be
// signalled (Forbidden: the caller's own, a launcher's, a terminal's
// foreground). Orphans of the killed are adopted in turn, and SIGCHLD
// (the plan's Wake) makes the end look again.
type Adopted struct {
	// List lists the adopted children to end, after reaping those that
	// exited. An error leaves the holder not shown empty.
	List func() ([]int, error)
	// Forbidden are the groups never signalled as a whole.
	Forbidden []int
	// Held, when not 0, is a group whose members Live does not count:
	// an orphan still in the Engine's group has not escaped, the group
	// holds it.
	Held int
	// Sent, when set, is told of each signal sent (for a debug log).
	Sent func(pid, pgrp int, sig syscall.Signal, err error)
}

// Traits implements [Holder]: orphans are adopted as the session dies,
// and a look is one read of this process's children.
func (a *Adopted) Traits() Traits { return Traits{Kind: KindEscapees, Gains: true} }

// Notify implements [Holder]: the children's exits are told by SIGCHLD,
// through the plan.
func (a *Adopted) Notify() (int, int16) { return -1, 0 }

// Signal implements [Holder].
func (a *Adopted) Signal(sig syscall.Signal) error {
	return a.SignalOnce(sig, NewReached())
}

// maxWalk bounds the processes one signal of the escapees opens at once:
// the adopted children and, below them, their descendants. A tree wider
// than that (the 2,047 of a 10-level binary fork tree fit) is reached
// further at the next look or round, as its adopted part dies.
const maxWalk = 4096

// SignalOnce implements [OnceHolder]. End signals group E before the
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
func (a *Adopted) SignalOnce(sig syscall.Signal, r *Reached) error {
	pids, err := a.List()
	// The leaders of their own groups first, in the listing's order.
	var tree, led []adoptedChild
	for _, pid := range pids {
		c, ok := openChild(pid, os.Getpid(), a.Forbidden)
		switch {
		case ok && c.leads:
			tree = append(tree, c)
		case ok:
			led = append(led, c)
		}
	}
	tree = append(tree, led...)
	defer func() {
		for _, c := range tree {
			sys.Close(c.fd)
		}
	}()
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
				a.sent(c, sig, r)
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
			if d, ok := openDescendant(kid, c.pid, a.Forbidden); ok {
				tree = append(tree, d)
			}
		}
	}
	if first == syscall.SIGSTOP {
		for _, c := range tree {
			if !r.Has(c.pid, c.pgrp) {
				a.sent(c, sig, r)
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
func (a *Adopted) sent(c adoptedChild, sig syscall.Signal, r *Reached) {
	group, err := c.send(sig)
	switch {
	case err == nil && group:
		r.Group(c.pid)
	case err == nil:
		r.Process(c.pid)
	}
	if a.Sent != nil {
		a.Sent(c.pid, c.pgrp, sig, err)
	}
}

// Live implements [Holder]. A failed listing of the children is an
// error: the holder is then not shown empty.
func (a *Adopted) Live() ([]Member, error) {
	pids, err := a.List()
	if err != nil {
		return nil, fmt.Errorf("adopted children: %w", err)
	}
	var out []Member
	for _, pid := range pids {
		// An orphan still in the held group (`sleep 300 &` of a shell
		// that exited) has not escaped: the group holds it, and it is
		// not counted here.
		if st, err := proc.ReadStat(pid); err == nil && st.Live() && (a.Held == 0 || st.Pgrp != a.Held) {
			out = append(out, MemberOf(st))
		}
	}
	return out, nil
}

// adoptedChild is an adopted child, or one of its descendants, opened
// for signalling: its pidfd (for an adopted child, opened while it is
// this process's unreaped child: nobody else reaps the starter's
// children, so the PID names it alone), its group, whether it leads that
// group and the group may be signalled as a whole. A descendant is
// opened only where its descriptor is a pidfd (Linux): signalled through
// it as a child is, it can never be another process.
type adoptedChild struct {
	pid, fd, pgrp int
	leads         bool
}

// openChild opens pid, checking that it is still parent's child: an
// adopted child's parent is this process. ok is false when it is not
// (nothing is signalled on a guess) or cannot be opened. A child leading
// a group that must never be signalled (forbidden) is signalled alone.
func openChild(pid, parent int, forbidden []int) (c adoptedChild, ok bool) {
	fd, err := sys.WatchExit(pid)
	if err != nil {
		return c, false
	}
	st, err := proc.ReadStat(pid)
	if err != nil || st.PPID != parent {
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
