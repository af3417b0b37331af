package ledger

import (
	"errors"
	"fmt"
	"os"
	"syscall"
	"time"

	"github.com/session-starter/session-starter/internal/cgroup"
	"github.com/session-starter/session-starter/internal/mark"
	"github.com/session-starter/session-starter/internal/proc"
	"github.com/session-starter/session-starter/internal/sys"
)

// cgroupWait bounds the wait for a left cgroup to empty after cgroup.kill.
const cgroupWait = 10 * time.Second

// reclaim ends the session of r: its Engine, where the live process at
// the recorded PID has its token, then its cgroup where it had one, else
// its marked processes, in passes until one finds nothing new. The cgroup
// holds everything the Engine started, whatever its environment; the mark
// is the evidence only where there is nothing stronger, since a copy of
// its value can reach a stranger (an environment importer).
func reclaim(s *Session, r Record, dry bool) {
	id, err := mark.Parse(r.Session)
	if err != nil {
		s.Left = append(s.Left, LeftProcess{Reason: "token-mismatch"})
		return
	}
	seen := map[int]bool{}
	left := map[int]string{}
	// The Engine as the record names it, by its token: ended through a
	// pidfd of it also when it scrubbed the mark from its environment. A
	// PID that names another process now is reported, never signalled.
	switch fd, err := open(r.Engine.PID, r.Engine.Token); {
	case err == nil:
		seen[r.Engine.PID] = true
		comm := ""
		if st, err := proc.ReadStat(r.Engine.PID); err == nil {
			comm = st.Comm
		}
		s.Ended = append(s.Ended, Ended{PID: r.Engine.PID, Comm: comm})
		if !dry {
			if err := sys.PidfdSignal(fd, syscall.SIGKILL); err != nil && !errors.Is(err, sys.ErrGone) {
				left[r.Engine.PID] = fmt.Sprintf("signal: %v", err)
			}
		}
		sys.Close(fd)
	case errors.Is(err, errMismatch):
		left[r.Engine.PID] = "token-mismatch"
	case !errors.Is(err, sys.ErrGone):
		left[r.Engine.PID] = "unverifiable: " + err.Error()
	}
	if r.Cgroup != nil {
		reclaimCgroup(s, *r.Cgroup, dry, seen)
	} else {
		reclaimMarked(s, id, r.Engine.Token.Start, dry, seen, left)
	}
	for pid, why := range left {
		s.Left = append(s.Left, LeftProcess{PID: pid, Reason: why})
	}
}

// reclaimMarked ends the live processes that carry the session's id, in
// passes until one finds nothing new, and notes what it cannot verify.
func reclaimMarked(s *Session, id mark.ID, since uint64, dry bool, seen map[int]bool, left map[int]string) {
	self := os.Getpid()
	for range reclaimPasses {
		found, unverified, err := mark.Scan(id, since, os.Getuid(), func(pid int) bool { return pid == self })
		if err != nil {
			s.Left = append(s.Left, LeftProcess{Reason: "platform: " + err.Error()})
			break
		}
		for _, l := range unverified {
			left[l.PID] = l.Reason
		}
		fresh := 0
		for _, f := range found {
			if !seen[f.PID] {
				seen[f.PID] = true
				fresh++
				s.Ended = append(s.Ended, Ended{PID: f.PID, Comm: f.Comm})
			}
			if !dry {
				if err := sys.PidfdSignal(f.Pidfd, syscall.SIGKILL); err != nil && !errors.Is(err, sys.ErrGone) {
					left[f.PID] = fmt.Sprintf("signal: %v", err)
				}
			}
			sys.Close(f.Pidfd)
		}
		if fresh == 0 || dry {
			break
		}
	}
}

// reclaimCgroup ends the session cgroup c names: cgroup.kill on the
// directory whose id the record names, no PID guessed. A dry run lists
// what it holds.
func reclaimCgroup(s *Session, c Cgroup, dry bool, seen map[int]bool) {
	pids, err := cgroup.Left(c.Dir, c.ID)
	for _, pid := range pids {
		if !seen[pid] {
			seen[pid] = true
			comm := ""
			if st, err := proc.ReadStat(pid); err == nil {
				comm = st.Comm
			}
			s.Ended = append(s.Ended, Ended{PID: pid, Comm: comm})
		}
	}
	if err == nil && !dry {
		pids, err = cgroup.EndLeft(c.Dir, c.ID, cgroupWait)
		s.Cgroup = pids != nil
		for _, pid := range pids {
			if !seen[pid] {
				seen[pid] = true
				s.Ended = append(s.Ended, Ended{PID: pid})
			}
		}
	}
	switch {
	case errors.Is(err, cgroup.ErrNotTheSession):
		s.Left = append(s.Left, LeftProcess{Reason: "token-mismatch: " + err.Error()})
	case err != nil:
		s.Left = append(s.Left, LeftProcess{Reason: "cgroup: " + err.Error()})
	}
}
