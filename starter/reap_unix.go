//go:build darwin || freebsd || linux

package starter

import (
	"fmt"
	"slices"

	"github.com/session-starter/session-starter/internal/sys"
)

// beforeSession records the children this process has when the session
// starts, listed by list: they are not the session's, so they are reaped
// when they exit and never signalled. A listing that fails fails the
// start: a child missing from the record would later be taken for an
// adopted escapee and signalled.
func beforeSession(list func() ([]int, error)) (map[int]bool, error) {
	pids, err := list()
	if err != nil {
		return nil, fmt.Errorf("list the children this process has: %w", err)
	}
	before := make(map[int]bool, len(pids))
	for _, pid := range pids {
		before[pid] = true
	}
	return before, nil
}

// adopted lists the session's adopted children: every child of this
// process but the guard, the Engine while it is unreaped (once reaped, a
// new child with its old number is an escapee like any other), and the
// children it had before the gate, after reaping those that exited. An
// error means the children could not be listed: the list is then not
// known to be complete.
func (s *session) adopted() ([]int, error) {
	_, left, err := s.reapAdopted()
	return slices.DeleteFunc(left, func(pid int) bool { return s.notAdopted(pid) }), err
}

// notAdopted reports whether the child pid is not the session's to end.
func (s *session) notAdopted(pid int) bool { return s.adopt.before[pid] || s.helperChild(pid) }

// helperChild reports whether the child pid is the guard, or the Engine
// while it is unreaped.
func (s *session) helperChild(pid int) bool {
	return (s.guard != nil && pid == s.guard.PID) || (s.engine != nil && pid == s.engine.PID && !s.engine.Reaped())
}

// reapAdopted reaps every child that has exited, except the guard and the
// Engine (its reap is the Engine holder's: its zombie may pin group E),
// each by its PID; a child it had before the gate is forgotten once
// reaped, so that its number names nobody special afterwards. It never
// waits on P_ALL or -1: that could take the Engine's status, and with
// WNOWAIT the kernel would report the Engine's zombie again and again and
// never the others. It returns how many it reaped and, from the same
// reading of the children files, the children it did not reap, and the
// error of the listing; a listing that failed reaps only the children
// from before the gate, and the next SIGCHLD or look tries again. The
// children this process had before the gate are looked at by their PIDs:
// a library caller's may belong to any of its threads, and children lists
// the main thread's (and a failed listing lists none).
func (s *session) reapAdopted() (n int, left []int, err error) {
	pids, err := children()
	for pid := range s.adopt.before {
		if !slices.Contains(pids, pid) {
			pids = append(pids, pid)
		}
	}
	for _, pid := range pids {
		if s.helperChild(pid) {
			left = append(left, pid)
			continue
		}
		// By number (wait4 with WNOHANG): only a child that has exited.
		if cpu, exited, err := sys.ReapIfExited(pid); err == nil && exited {
			n++
			if !s.adopt.before[pid] {
				s.adopt.cpu += cpu // an orphan of the session's
			}
			delete(s.adopt.before, pid)
		} else {
			left = append(left, pid)
		}
	}
	return n, left, err
}
