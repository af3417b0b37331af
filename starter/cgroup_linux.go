package starter

import (
	"errors"
	"fmt"

	"github.com/session-starter/session-starter/guard"
	"github.com/session-starter/session-starter/internal/cgroup"
	"github.com/session-starter/session-starter/internal/end"
	"github.com/session-starter/session-starter/internal/sys"
)

// cgroupHold is the session cgroup and its holder, in cgroup mode.
type cgroupHold struct {
	cg       *cgroup.Session // the session cgroup in cgroup mode, else nil
	cgHolder *cgroup.Holder
}

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
	if sys.Pidless {
		// The portable build takes macOS's path: no cgroup.
		if c == ContainCgroup {
			return "", fail(ExitContainment, "--containment cgroup: not in the portable build: %w", errors.ErrUnsupported)
		}
		return ModeGroup, nil
	}
	cg, err := s.newSessionCgroup(c != ContainCgroup)
	if err != nil {
		if c == ContainCgroup {
			return "", fail(ExitContainment, "--containment cgroup: %w", err)
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
	if err := sys.Faccessat(cg.DirFD, "cgroup.kill", sys.W_OK, 0); err != nil {
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

// cgroupDir is the session cgroup's directory descriptor, or 0.
func (s *session) cgroupDir() int {
	if s.cg == nil {
		return 0
	}
	return s.cg.DirFD
}

// guardCgroup hands the session cgroup to the guard.
func (s *session) guardCgroup(gs *guard.Spec) {
	if s.cg != nil {
		gs.Cgroup, gs.CgroupParent, gs.CgroupName = s.cg.DirFD, s.cg.ParentFD, s.cg.Name
	}
}

// cgroupJoined checks that the gate joined the session cgroup before it
// said ready, from outside, before the guard is relied on; then the
// cgroup becomes a holder.
func (s *session) cgroupJoined() error {
	if s.cg == nil {
		return nil
	}
	if err := s.gateJoined(); err != nil {
		return err
	}
	h, err := cgroup.NewHolder(s.cg.DirFD)
	if err != nil {
		return err
	}
	s.cgHolder = h
	return nil
}

// cgroupHolders is the session cgroup as a holder, if there is one.
func (s *session) cgroupHolders() []end.Holder {
	if s.cgHolder == nil {
		return nil
	}
	return []end.Holder{s.cgHolder}
}

// closeCgroup removes the session cgroup if it can and releases its
// descriptors.
func (s *session) closeCgroup() {
	if s.cgHolder != nil {
		s.cgHolder.Close()
	}
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
