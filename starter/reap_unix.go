//go:build darwin || freebsd || linux

package starter

import (
	"slices"
)

// adopted lists the session's adopted children: every child of this
// process but the guard, the Engine while it is unreaped (once reaped, a
// new child with its old number is an escapee like any other), and the
// children it had before the gate, after reaping those that exited.
func (s *session) adopted() []int {
	_, left := s.reap()
	return slices.DeleteFunc(left, func(pid int) bool { return s.notAdopted(pid) })
}

// notAdopted reports whether the child pid is not the session's to end.
func (s *session) notAdopted(pid int) bool {
	switch {
	case s.before[pid]:
		return true
	case s.guard != nil && pid == s.guard.PID:
		return true
	case s.engine != nil && pid == s.engine.PID && !s.engine.Reaped():
		return true
	}
	return false
}

// reapAdopted reaps every child that has exited, except the guard and the
// Engine (its reap is the Engine holder's: its zombie may pin group E),
// each by its PID; a child it had before the gate is forgotten once
// reaped, so that its number names nobody special afterwards. It never
// waits on P_ALL or -1: that could take the Engine's status, and with
// WNOWAIT the kernel would report the Engine's zombie again and again and
// never the others. It returns how many it reaped.
func (s *session) reapAdopted() int {
	n, _ := s.reap()
	return n
}

// reap is reapAdopted, from one reading of the children files: it also
// returns the children it did not reap. The children this process had
// before the gate are looked at by their PIDs: a library caller's may
// belong to any of its threads, and children lists the main thread's.
func (s *session) reap() (n int, left []int) {
	pids := children()
	for pid := range s.before {
		if !slices.Contains(pids, pid) {
			pids = append(pids, pid)
		}
	}
	for _, pid := range pids {
		if (s.guard != nil && pid == s.guard.PID) || (s.engine != nil && pid == s.engine.PID && !s.engine.Reaped()) {
			left = append(left, pid)
			continue
		}
		if reapExited(pid) {
			n++
			delete(s.before, pid)
		} else {
			left = append(left, pid)
		}
	}
	return n, left
}
