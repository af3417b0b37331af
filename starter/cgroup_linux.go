package starter

import (
	"errors"
	"fmt"

	"github.com/rs/zerolog"

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
// dead starters removed first). It returns the mode in effect; auto's
// choice, and why, is said at log level info. Where ContainCgroup is impossible it fails
// with ExitContainment, naming the fix; auto falls back to the process
// group.
func (s *session) holdInCgroup(c Containment) (string, error) {
	mode, cg, why, err := chooseContainment(c, s.log)
	if err != nil {
		return "", err
	}
	s.cg = cg
	// Auto's choice is said at info; a mode asked for, at debug.
	ev := s.log.Debug()
	if c == ContainAuto || c == "" {
		ev = s.log.Info()
	}
	ev = ev.Str("mode", mode).Str("containment", string(c))
	switch {
	case cg != nil:
		ev.Str("cgroup", cg.Path).Msg("containment by a session cgroup")
	case why != nil:
		ev.Err(why).Msg("no session cgroup; containment by the process group")
	default:
		ev.Msg("containment by the process group, as asked")
	}
	return mode, nil
}

// chooseContainment is the decision of holdInCgroup, and of
// [ExplainContainment]: the mode c gives here, with the session cgroup
// made for it (cgroup mode), or why auto fell back to the process group,
// or the error Run fails with.
func chooseContainment(c Containment, log zerolog.Logger) (mode string, cg *cgroup.Session, why, err error) {
	switch c {
	case ContainGroup:
		return ModeGroup, nil, nil, nil
	case "", ContainAuto, ContainCgroup:
	default:
		return "", nil, nil, fail(ExitUsage, "containment %q: want auto, group or cgroup", c)
	}
	if sys.Pidless {
		// The portable build takes macOS's path: no cgroup.
		why := fmt.Errorf("not in the portable build: %w", errors.ErrUnsupported)
		if c == ContainCgroup {
			return "", nil, nil, fail(ExitContainment, "--containment cgroup: %w", why)
		}
		return ModeGroup, nil, why, nil
	}
	cg, why = newSessionCgroup(c != ContainCgroup, log)
	if why != nil {
		if c == ContainCgroup {
			return "", nil, nil, fail(ExitContainment, "--containment cgroup: %w; %s", why, CgroupFix(why))
		}
		return ModeGroup, nil, why, nil
	}
	return ModeCgroup, cg, nil, nil
}

// ExplainContainment says which mode a session held as c asks would get
// here, deciding as Run does, with nothing started: a session cgroup it
// can make is made and removed again. why is what made auto fall back to
// the process group; err is what Run would fail with.
func ExplainContainment(c Containment) (mode string, why, err error) {
	mode, cg, why, err := chooseContainment(c, zerolog.Nop())
	if cg != nil {
		_ = cg.Remove()
		cg.Close()
	}
	return mode, why, err
}

// newSessionCgroup makes the session cgroup, or says why it cannot be
// made (auto: not where systemd manages the starter's cgroup).
func newSessionCgroup(auto bool, log zerolog.Logger) (*cgroup.Session, error) {
	p, err := cgroup.Locate()
	if err != nil {
		return nil, err
	}
	if auto && p.ManagedBySystemd() {
		return nil, fmt.Errorf("cgroup: %s is managed by systemd and was not delegated", p.Own)
	}
	if removed, err := cgroup.CleanLeftovers(p); err != nil {
		log.Debug().Err(err).Msg("leftover session cgroups")
	} else if len(removed) > 0 {
		log.Debug().Strs("removed", removed).Msg("leftover session cgroups of dead starters")
	}
	cg, err := cgroup.Create(p)
	if err != nil {
		return nil, err
	}
	if err := sys.Faccessat(cg.DirFD, "cgroup.kill", sys.W_OK, 0); err != nil {
		_ = cg.Remove()
		cg.Close()
		return nil, fmt.Errorf("cgroup: %s has %w: %w", cg.Path, errNoCgroupKill, err)
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
