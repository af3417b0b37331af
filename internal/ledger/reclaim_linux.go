package ledger

import (
	"errors"
	"fmt"
	"maps"
	"os"
	"slices"
	"syscall"
	"time"

	"github.com/session-starter/session-starter/internal/cgroup"
	"github.com/session-starter/session-starter/internal/mark"
	"github.com/session-starter/session-starter/internal/proc"
	"github.com/session-starter/session-starter/internal/sys"
)

// cgroupWait bounds the wait for a left cgroup to empty after cgroup.kill.
const cgroupWait = 10 * time.Second

// exitWait bounds the wait for the processes a reclaim SIGKILLed to exit,
// from the end of its cgroup's wait: one still live then is a survivor.
const exitWait = 10 * time.Second

// reclaim ends the session of r (id: its mark): its Engine, where the
// live process at the recorded PID has its token, then its cgroup where
// it had one, else its marked processes, in passes until one finds
// nothing new. The cgroup holds everything the Engine started, whatever
// its environment; the mark is the evidence only where there is nothing
// stronger, since a copy of its value can reach a stranger (an
// environment importer). A process it SIGKILLed that has not exited
// within exitWait (one waiting in the kernel on a hung FUSE server, say)
// is left, a survivor, and not counted as ended.
func reclaim(s *Session, r Record, id mark.ID, dry bool) {
	seen := map[int]bool{}
	k := &killing{killed: map[int]int{}, left: map[int]LeftProcess{}}
	// The Engine as the record names it, by its token: ended through a
	// pidfd of it also when it scrubbed the mark from its environment. A
	// PID that names another process now is reported, never signalled.
	switch fd, err := open(r.Engine.PID, r.Engine.Token); {
	case err == nil:
		st, _ := proc.ReadStat(r.Engine.PID) // zero on an error: no command name
		seen[r.Engine.PID] = true
		s.Ended = append(s.Ended, Ended{PID: r.Engine.PID, Comm: st.Comm})
		if dry {
			sys.Close(fd)
		} else {
			k.kill(r.Engine.PID, fd)
		}
	case errors.Is(err, errMismatch):
		k.left[r.Engine.PID] = LeftProcess{Reason: "token-mismatch"}
	case !errors.Is(err, sys.ErrGone):
		k.left[r.Engine.PID] = LeftProcess{Reason: "unverifiable: " + err.Error()}
	}
	if r.Cgroup != nil {
		reclaimCgroup(s, *r.Cgroup, dry, seen)
	} else {
		reclaimMarked(s, id, r.Engine.Token.Start, dry, seen, k)
	}
	for _, pid := range awaitExits(k.killed, exitWait) {
		k.left[pid] = LeftProcess{Reason: fmt.Sprintf("survivor: SIGKILL did not end it within %v", exitWait), Survivor: true}
	}
	for _, fd := range k.killed {
		sys.Close(fd)
	}
	s.Ended = slices.DeleteFunc(s.Ended, func(e Ended) bool { return k.left[e.PID].Survivor })
	for pid, l := range k.left {
		l.PID = pid
		s.Left = append(s.Left, l)
	}
}

// killing is what a reclaim SIGKILLed through pidfds, and what it left,
// by PID.
type killing struct {
	killed map[int]int // a pidfd of each process SIGKILLed, to wait for its exit
	left   map[int]LeftProcess
}

// kill SIGKILLs pid through its pidfd fd, and keeps fd (one a PID) or
// closes it.
func (k *killing) kill(pid, fd int) {
	err := sys.PidfdSignal(fd, syscall.SIGKILL)
	switch _, dup := k.killed[pid]; {
	case err != nil && !errors.Is(err, sys.ErrGone):
		k.left[pid] = LeftProcess{Reason: fmt.Sprintf("signal: %v", err), Survivor: true}
	case err == nil && !dup:
		k.killed[pid] = fd
		return
	}
	sys.Close(fd)
}

// reclaimMarked ends the live processes that carry the session's id, in
// passes until one finds nothing new, and notes what it cannot verify.
func reclaimMarked(s *Session, id mark.ID, since uint64, dry bool, seen map[int]bool, k *killing) {
	self := os.Getpid()
	for range reclaimPasses {
		found, unverified, err := mark.Scan(id, since, os.Getuid(), func(pid int) bool { return pid == self })
		if err != nil {
			s.Left = append(s.Left, LeftProcess{Reason: "platform: " + err.Error()})
			break
		}
		for _, l := range unverified {
			k.left[l.PID] = LeftProcess{Reason: l.Reason}
		}
		fresh := 0
		for _, f := range found {
			if !seen[f.PID] {
				seen[f.PID] = true
				fresh++
				s.Ended = append(s.Ended, Ended{PID: f.PID, Comm: f.Comm})
			}
			if dry {
				sys.Close(f.Pidfd)
			} else {
				k.kill(f.PID, f.Pidfd)
			}
		}
		if fresh == 0 || dry {
			break
		}
	}
}

// reclaimCgroup ends the session cgroup c names: cgroup.kill on the
// directory whose id the record names, no PID guessed. A dry run lists
// what it holds. What the cgroup still held when its wait ended is left,
// survivors.
func reclaimCgroup(s *Session, c Cgroup, dry bool, seen map[int]bool) {
	held, err := cgroup.EndLeft(c.Dir, c.ID, cgroupWait, dry)
	for _, st := range held {
		if !seen[st.PID] {
			seen[st.PID] = true
			s.Ended = append(s.Ended, Ended{PID: st.PID, Comm: st.Comm})
		}
	}
	s.Cgroup = !dry && held != nil
	switch {
	case errors.Is(err, cgroup.ErrNotTheSession):
		s.Left = append(s.Left, LeftProcess{Reason: "token-mismatch: " + err.Error()})
	case err != nil:
		// Listed in the cgroup of the recorded id, then not ended.
		s.Left = append(s.Left, LeftProcess{Reason: "cgroup: " + err.Error(), Survivor: !dry && len(held) > 0})
	}
}

// awaitExits waits up to within for the processes of the pidfds of
// killed (by PID) to exit, and returns those that have not.
func awaitExits(killed map[int]int, within time.Duration) []int {
	deadline := time.Now().Add(within)
	live := maps.Clone(killed)
	for len(live) > 0 {
		pids := slices.Collect(maps.Keys(live))
		fds := make([]sys.PollFd, len(pids))
		for i, pid := range pids {
			fds[i] = sys.PollFd{Fd: int32(live[pid]), Events: sys.POLLIN}
		}
		n, err := sys.Poll(fds, max(time.Until(deadline), 0))
		if err != nil || n == 0 {
			break // the deadline, or not told: what lives is left
		}
		for i, f := range fds {
			if f.Revents != 0 {
				delete(live, pids[i])
			}
		}
	}
	return slices.Collect(maps.Keys(live))
}
