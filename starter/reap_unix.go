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
	s.reapAdopted()
	return slices.DeleteFunc(children(), func(pid int) bool { return s.notAdopted(pid) })
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
	n := 0
	for _, pid := range children() {
		if (s.guard != nil && pid == s.guard.PID) || (s.engine != nil && pid == s.engine.PID && !s.engine.Reaped()) {
			continue
		}
		if reapExited(pid) {
			n++
			delete(s.before, pid)
		}
	}
	return n
}
