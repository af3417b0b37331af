package ledger

import (
	"context"
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

// reclaimPasses bounds the scans for one session's marked processes: each
// pass ends what it found, and the next finds what forked meanwhile; a
// tree that still forks after this many is left to the next reclaim
// (and reported by it).
const reclaimPasses = 64

// cgroupWait bounds the wait for a left cgroup to empty after cgroup.kill.
const cgroupWait = 10 * time.Second

// Reclaim ends what the dead sessions of this user's ledger left, as the
// package doc says; dry, it only reports what it would end. It never
// touches a session whose starter or guard lives. ctx is looked at before
// each session: once it is done, Reclaim returns what it did so far with
// ctx's error; a session begun is finished first (its passes and its
// cgroup's wait are bounded).
func Reclaim(ctx context.Context, dry bool) (Report, error) {
	dir, err := Dir()
	if err != nil {
		return Report{}, err
	}
	rep := Report{Event: "reclaimed", Dir: dir, DryRun: dry, Sessions: []Session{}, Problems: []Problem{}}
	boot, err := BootID()
	if err != nil {
		return rep, err
	}
	recs, probs, err := Read(dir)
	if err != nil {
		return rep, err
	}
	rep.Problems = append(rep.Problems, probs...)
	for _, r := range recs {
		if err := ctx.Err(); err != nil {
			return rep, err
		}
		s := Session{Session: r.Session, Ended: []Ended{}, Left: []LeftProcess{}, GuardEnd: r.GuardEnd}
		switch {
		case r.BootID != boot:
			// Of another boot: no process of it lives; nothing is read
			// of it but the boot id.
			s.Action = "other-boot"
			if !dry {
				_ = Remove(dir, r.Session)
			}
		case !shownGone(&s, r.Starter, r.Guard):
			// Live, or unverified: left alone either way.
		default:
			reclaim(&s, r, dry)
			if dry {
				s.Action = "would-reclaim"
			} else {
				s.Action = "reclaimed"
				if err := Remove(dir, r.Session); err != nil {
					rep.Problems = append(rep.Problems, Problem{File: FileName(r.Session), Reason: err.Error()})
				}
			}
		}
		rep.Sessions = append(rep.Sessions, s)
	}
	return rep, nil
}

// shownGone reports whether every one of ps (the starter and the guard)
// is shown gone; otherwise it sets the session's action: "live", or
// "unverified" with the reason in Left where one could not be told. A
// PID now held by a stranger counts as gone and is reported in Left as
// token-mismatch: the reclaim never signals it.
func shownGone(s *Session, ps ...Process) bool {
	var reused []LeftProcess
	for _, p := range ps {
		gone, other, err := Gone(p.PID, p.Token)
		switch {
		case err != nil:
			s.Action = "unverified"
			s.Left = append(s.Left, LeftProcess{PID: p.PID, Reason: "unverifiable: " + err.Error()})
			return false
		case !gone:
			s.Action = "live"
			return false
		case other:
			reused = append(reused, LeftProcess{PID: p.PID, Reason: "token-mismatch"})
		}
	}
	s.Left = append(s.Left, reused...)
	return true
}

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
	for range reclaimPasses {
		found, unverified, err := mark.Scan(id, r.Engine.Token.Start, os.Getuid(), func(pid int) bool { return pid == self })
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
	if r.Cgroup != nil && !dry {
		held, err := cgroup.EndLeft(r.Cgroup.Dir, r.Cgroup.ID, cgroupWait)
		switch {
		case errors.Is(err, cgroup.ErrNotTheSession):
			s.Left = append(s.Left, LeftProcess{Reason: "token-mismatch: " + err.Error()})
		case err != nil:
			s.Left = append(s.Left, LeftProcess{Reason: "cgroup: " + err.Error()})
		}
		s.Cgroup = held != nil
		for _, pid := range held {
			if !seen[pid] {
				seen[pid] = true
				s.Ended = append(s.Ended, Ended{PID: pid})
			}
		}
	}
	for pid, why := range left {
		s.Left = append(s.Left, LeftProcess{PID: pid, Reason: why})
	}
}
