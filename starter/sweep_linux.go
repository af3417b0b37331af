package starter

import (
	"errors"
	"os"
	"slices"
	"syscall"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/session-starter/session-starter/internal/groupend"
	"github.com/session-starter/session-starter/internal/proc"
	"github.com/session-starter/session-starter/internal/sys"
)

// Pacing of the sweep's wait for adopted children to exit: it wakes on
// SIGCHLD, and at the latest after the pause, which starts at firstPause
// and doubles up to maxPause (a SIGKILLed child's exit always raises
// SIGCHLD, so the pause only bounds a lost wake-up).
const (
	firstPause = time.Millisecond
	maxPause   = 50 * time.Millisecond
)

// subreaper makes this process a child subreaper (PR_SET_CHILD_SUBREAPER):
// orphans of its subtree — also processes that left the Engine's group
// with setsid or setpgid — are re-parented to it instead of to init. It
// returns a function that puts the previous setting back.
func subreaper() (func(), error) {
	var was int32
	// Sound: the kernel writes one int to was, which outlives the call.
	if _, _, errno := unix.RawSyscall6(unix.SYS_PRCTL, unix.PR_GET_CHILD_SUBREAPER, uintptr(unsafe.Pointer(&was)), 0, 0, 0, 0); errno != 0 {
		return nil, os.NewSyscallError("prctl", errno)
	}
	if err := unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0); err != nil {
		return nil, os.NewSyscallError("prctl", err)
	}
	return func() { _ = unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, uintptr(was), 0, 0, 0) }, nil
}

// sweep ends the children the starter adopted as a subreaper: everything
// but the Engine (its zombie pins group E) and the guard. Each is
// signalled through a pidfd opened while it is the starter's unreaped
// child — nobody else reaps the starter's children, so the PID cannot name
// anyone else — and a child that leads its own process group has the
// whole group signalled through that pidfd, unless the group is one that
// must never be signalled (the starter's, the guard's, the launcher's,
// the terminal's foreground). With a grace, stop.Signal and SIGCONT go
// first and the sweep waits up to stop.Grace; then SIGKILL, again each
// round, until no adopted child is left or the budget has passed. Orphans
// of the killed are adopted in turn and swept in the next round.
func (s *session) sweep(stop groupend.Stop, budget time.Duration, forbidden []int) groupend.Report {
	start := time.Now()
	managed := []int{s.gate.PID, s.guard.PID}
	var r groupend.Report
	sig := syscall.SIGKILL
	graceUntil := start
	if stop.Grace > 0 && stop.Signal != 0 && stop.Signal != syscall.SIGKILL {
		sig, graceUntil = stop.Signal, start.Add(stop.Grace)
	}
	deadline := graceUntil.Add(budget)
	stopped := map[int]bool{} // children sent the stop signal already
	pause := firstPause
	for {
		reapAdopted(managed...)
		kids := slices.DeleteFunc(children(), func(pid int) bool { return slices.Contains(managed, pid) })
		if len(kids) == 0 {
			r.Outcome, r.Elapsed = groupend.Empty, time.Since(start)
			return r
		}
		r.Seen = max(r.Seen, len(kids))
		now := time.Now()
		if sig != syscall.SIGKILL && (now.After(graceUntil) || hurried(stop.Hurry)) {
			sig = syscall.SIGKILL
		}
		if sig == syscall.SIGKILL && now.After(deadline) {
			r.Outcome, r.Elapsed = groupend.Survivors, time.Since(start)
			euid := os.Geteuid()
			for _, pid := range kids {
				if st, err := proc.ReadStat(pid); err == nil && st.Live() {
					uid := proc.UID(pid)
					r.Survivors = append(r.Survivors, groupend.Member{Stat: st, UID: uid, Denied: euid != 0 && uid != euid})
				}
			}
			if len(r.Survivors) == 0 {
				r.Outcome = groupend.Empty
			}
			return r
		}
		for _, pid := range kids {
			if sig == syscall.SIGKILL || !stopped[pid] {
				s.signalAdopted(pid, sig, forbidden)
				stopped[pid] = true
			}
		}
		if sig == syscall.SIGKILL {
			r.Rounds++
		}
		wait := pause
		if sig != syscall.SIGKILL {
			wait = min(wait, time.Until(graceUntil))
		}
		s.awaitChild(max(wait, 0), stop.Hurry)
		pause = min(2*pause, maxPause)
	}
}

// signalAdopted sends sig (and SIGCONT after a stop signal) to the
// adopted child pid, or to the group it leads.
func (s *session) signalAdopted(pid int, sig syscall.Signal, forbidden []int) {
	fd, err := sys.PidfdOpen(pid)
	if err != nil {
		return
	}
	defer sys.Close(fd)
	st, err := proc.ReadStat(pid)
	if err != nil || st.PPID != os.Getpid() {
		return // not our child: nothing is signalled on a guess
	}
	send := func(sig syscall.Signal) error { return sys.PidfdSignal(fd, sig) }
	if st.Pgrp == pid && !slices.Contains(forbidden, pid) {
		send = func(sig syscall.Signal) error { return sys.PidfdSignalGroup(fd, sig) }
	}
	err = send(sig)
	if errors.Is(err, sys.ErrNoGroupSignal) {
		err = sys.PidfdSignal(fd, sig)
	}
	if sig != syscall.SIGKILL {
		_ = send(syscall.SIGCONT)
	}
	s.log.Debug().Int("pid", pid).Int("pgid", st.Pgrp).Str("signal", sys.SignalName(sig)).Err(err).Msg("adopted child signalled")
}

// awaitChild waits for a SIGCHLD, the hurry channel, or d.
func (s *session) awaitChild(d time.Duration, hurry <-chan struct{}) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-s.chldCh:
	case <-hurry:
	case <-t.C:
	}
}

func hurried(ch <-chan struct{}) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
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
		if pg, err := unix.IoctlGetInt(fd, unix.TIOCGPGRP); err == nil && pg > 0 {
			out = append(out, pg)
		}
	}
	return out
}
