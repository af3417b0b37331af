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
// the recorded PID has its token, its marked processes, in passes until
// one finds nothing new, then its cgroup (what is in it and lost the mark,
// an environment scrubbed).
func reclaim(s *Session, r Record, dry bool) {
	id, err := mark.Parse(r.Session)
	if err != nil {
		s.Left = append(s.Left, LeftProcess{Reason: "token-mismatch"})
		return
	}
	self := os.Getpid()
	seen := map[int]bool{}
	left := map[int]LeftProcess{}
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
				left[r.Engine.PID] = LeftProcess{Reason: fmt.Sprintf("signal: %v", err), Survivor: true}
			}
		}
		sys.Close(fd)
	case errors.Is(err, errMismatch):
		left[r.Engine.PID] = LeftProcess{Reason: "token-mismatch"}
	case !errors.Is(err, sys.ErrGone):
		left[r.Engine.PID] = LeftProcess{Reason: "unverifiable: " + err.Error()}
	}
	for range reclaimPasses {
		found, unverified, err := mark.Scan(id, r.Engine.Token.Start, os.Getuid(), func(pid int) bool { return pid == self })
		if err != nil {
			s.Left = append(s.Left, LeftProcess{Reason: "platform: " + err.Error()})
			break
		}
		for _, l := range unverified {
			left[l.PID] = LeftProcess{Reason: l.Reason}
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
					left[f.PID] = LeftProcess{Reason: fmt.Sprintf("signal: %v", err), Survivor: true}
				}
			}
			sys.Close(f.Pidfd)
		}
		if fresh == 0 || dry {
			break
		}
	}
	if r.Cgroup != nil && !dry {
		held, err := cgroup.EndLeft(r.Cgroup.Dir, r.Cgroup.ID, cgroupWait)
		switch {
		case errors.Is(err, cgroup.ErrNotTheSession):
			s.Left = append(s.Left, LeftProcess{Reason: "token-mismatch: " + err.Error()})
		case err != nil:
			// Listed in the cgroup of the recorded id, then not ended.
			s.Left = append(s.Left, LeftProcess{Reason: "cgroup: " + err.Error(), Survivor: len(held) > 0})
		}
		s.Cgroup = held != nil
		for _, pid := range held {
			if !seen[pid] {
				seen[pid] = true
				s.Ended = append(s.Ended, Ended{PID: pid})
			}
		}
	}
	for pid, l := range left {
		l.PID = pid
		s.Left = append(s.Left, l)
	}
}
