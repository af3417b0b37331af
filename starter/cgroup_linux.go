package starter

import (
	"errors"
	"fmt"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/session-starter/session-starter/internal/cgroup"
	"github.com/session-starter/session-starter/internal/groupend"
	"github.com/session-starter/session-starter/internal/proc"
	"github.com/session-starter/session-starter/internal/sys"
)

// holdInCgroup sets up the cgroup of the session as c asks, before
// anything is started: for ContainCgroup, and for ContainAuto where it is
// possible, a fresh session cgroup below the starter's own (leftovers of
// dead starters removed first). It returns the mode in effect. Where
// ContainCgroup is impossible it fails with ExitContainment; auto falls
// back to the process group and logs why.
func (s *session) holdInCgroup(c Containment) (string, error) {
	switch c {
	case ContainGroup:
		return ModeGroup, nil
	case "", ContainAuto, ContainCgroup:
	default:
		return "", fail(ExitUsage, "containment %q: want auto, group or cgroup", c)
	}
	cg, err := s.newSessionCgroup(c != ContainCgroup)
	if err != nil {
		if c == ContainCgroup {
			return "", fail(ExitContainment, "--containment cgroup: %v", err)
		}
		s.log.Info().Err(err).Msg("no session cgroup; containment by the process group")
		return ModeGroup, nil
	}
	s.cg = cg
	s.log.Debug().Str("cgroup", cg.Path).Msg("session cgroup")
	return ModeCgroup, nil
}

func (s *session) newSessionCgroup(auto bool) (*cgroup.Session, error) {
	p, err := cgroup.Locate()
	if err != nil {
		return nil, err
	}
	if auto && p.ManagedBySystemd() {
		return nil, fmt.Errorf("cgroup: %s is managed by systemd and was not delegated", p.Own)
	}
	if removed, err := cgroup.CleanLeftovers(p); err != nil {
		s.log.Debug().Err(err).Msg("leftover session cgroups")
	} else if len(removed) > 0 {
		s.log.Debug().Strs("removed", removed).Msg("leftover session cgroups of dead starters")
	}
	cg, err := cgroup.Create(p)
	if err != nil {
		return nil, err
	}
	if err := unix.Faccessat(cg.DirFD, "cgroup.kill", unix.W_OK, 0); err != nil {
		_ = cg.Remove()
		cg.Close()
		return nil, fmt.Errorf("cgroup: %s has no writable cgroup.kill (Linux 5.14): %w", cg.Path, err)
	}
	return cg, nil
}

// gateJoined checks, from outside, that the gate is in the session
// cgroup. The gate is our unreaped child, so its PID names it alone.
func (s *session) gateJoined() error {
	in, err := s.cg.Contains(s.gate.PID)
	if err != nil {
		return err
	}
	if !in {
		return fmt.Errorf("cgroup: the gate (pid %d) is not in %s", s.gate.PID, s.cg.Path)
	}
	return nil
}

// endCgroup ends every process of the session cgroup: with a grace, the
// stop signal to each member (checked to be in the cgroup through its
// pidfd) and SIGCONT, and a wait of up to the grace for "populated 0";
// then cgroup.kill and a wait of up to budget. The process group and the
// adopted children are ended after it by the caller, as in group mode.
func (s *session) endCgroup(stop groupend.Stop, budget time.Duration) groupend.Report {
	start := time.Now()
	var r groupend.Report
	if stop.Grace > 0 && stop.Signal != 0 && stop.Signal != syscall.SIGKILL {
		n, err := s.cg.Signal(stop.Signal)
		if errors.Is(err, cgroup.ErrNoPidfdInfo) {
			// Before Linux 6.13 a member's cgroup cannot be shown through
			// its pidfd: the stop signal reaches group E only.
			err = s.group.Signal(stop.Signal)
			_ = s.group.Signal(syscall.SIGCONT)
		}
		s.log.Debug().Int("signalled", n).Str("signal", sys.SignalName(stop.Signal)).Err(err).Msg("cgroup members")
		r.Seen = n
		empty, err := waitHurried(s.cg.DirFD, stop.Grace, stop.Hurry)
		if err == nil && empty {
			r.Outcome, r.Graceful, r.Elapsed = groupend.Empty, true, time.Since(start)
			return r
		}
	}
	if n, err := cgroup.Procs(s.cg.DirFD); err == nil {
		r.Seen = max(r.Seen, len(n))
	}
	// cgroup.kill, and SIGKILL to group E through the gate's pidfd with
	// it, round after round until the cgroup is empty.
	empty, err := cgroup.KillUntilEmpty(s.cg.DirFD, budget, func() {
		r.Rounds++
		_ = s.group.Signal(syscall.SIGKILL)
	})
	r.Elapsed = time.Since(start)
	switch {
	case empty:
		r.Outcome = groupend.Empty
	case err != nil:
		r.Outcome, r.Err = groupend.Unconfirmed, err
	default:
		r.Outcome = groupend.Survivors
		pids, _ := cgroup.Procs(s.cg.DirFD)
		for _, pid := range pids {
			if st, err := proc.ReadStat(pid); err == nil && st.Live() {
				r.Survivors = append(r.Survivors, groupend.Member{Stat: st, UID: proc.UID(pid)})
			}
		}
	}
	return r
}

// waitHurried waits as [cgroup.WaitEmpty] does, ended early when hurry
// yields (a second stop signal during the grace).
func waitHurried(dirfd int, d time.Duration, hurry <-chan struct{}) (bool, error) {
	if hurry == nil {
		return cgroup.WaitEmpty(dirfd, d, -1)
	}
	r, w, err := sys.Pipe()
	if err != nil {
		return false, err
	}
	defer sys.Close(r)
	done, exited := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(exited)
		select {
		case <-hurry:
			_ = sys.WriteAll(w, []byte{0})
		case <-done:
		}
	}()
	empty, err := cgroup.WaitEmpty(dirfd, d, r)
	close(done)
	<-exited
	sys.Close(w)
	return empty, err
}

// removeCgroup removes the session cgroup once it is empty; zombies do
// not count, so this works before the Engine is reaped. A failure is
// logged: the next start removes the leftover.
func (s *session) removeCgroup() {
	if s.cg == nil {
		return
	}
	if err := s.cg.Remove(); err != nil {
		s.log.Warn().Err(err).Str("cgroup", s.cg.Path).Msg("session cgroup left behind")
	}
}

// closeCgroup removes the session cgroup if it can and releases its
// descriptors.
func (s *session) closeCgroup() {
	if s.cg == nil {
		return
	}
	if populated, err := cgroup.Populated(s.cg.DirFD); err == nil && !populated {
		s.removeCgroup()
	}
	s.cg.Close()
	s.cg = nil
}

// procsFD opens the session's cgroup.procs for the gate, or returns 0.
func (s *session) procsFD() (int, error) {
	if s.cg == nil {
		return 0, nil
	}
	fd, err := s.cg.OpenProcs()
	if err != nil {
		return 0, err
	}
	return fd, nil
}
