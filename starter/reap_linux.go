package starter

import (
	"errors"
	"os"
	"slices"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// children lists this process's children from
// /proc/self/task/*/children (every thread's, since a child belongs to the
// thread that forked it, and adopted orphans to the main thread). It reads
// with raw calls into one buffer: it runs on every SIGCHLD and in every
// sweep round.
func children() []int {
	tasks, err := os.Open("/proc/self/task")
	if err != nil {
		return nil
	}
	names, _ := tasks.Readdirnames(-1)
	tasks.Close()
	var out []int
	buf := make([]byte, 4096)
	for _, tid := range names {
		fd, err := unix.Open("/proc/self/task/"+tid+"/children", unix.O_RDONLY|unix.O_CLOEXEC, 0)
		if err != nil {
			continue
		}
		n := 0
		for {
			if n == len(buf) {
				buf = append(buf, make([]byte, len(buf))...)
			}
			m, err := unix.Read(fd, buf[n:])
			if errors.Is(err, unix.EINTR) {
				continue
			}
			if err != nil || m == 0 {
				break
			}
			n += m
		}
		unix.Close(fd)
		for field := range strings.FieldsSeq(string(buf[:n])) {
			if pid, err := strconv.Atoi(field); err == nil {
				out = append(out, pid)
			}
		}
	}
	return out
}

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
// returns the children it did not reap.
func (s *session) reap() (n int, left []int) {
	for _, pid := range children() {
		if (s.guard != nil && pid == s.guard.PID) || (s.engine != nil && pid == s.engine.PID && !s.engine.Reaped()) {
			left = append(left, pid)
			continue
		}
		var info unix.Siginfo
		for {
			err := unix.Waitid(unix.P_PID, pid, &info, unix.WEXITED|unix.WNOHANG, nil)
			if errors.Is(err, unix.EINTR) {
				continue
			}
			if err == nil && info.Signo != 0 {
				n++
				delete(s.before, pid)
			} else {
				left = append(left, pid)
			}
			break
		}
	}
	return n, left
}
