package starter

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/rs/zerolog"

	"github.com/session-starter/session-starter/guard"
	"github.com/session-starter/session-starter/internal/cgroup"
	"github.com/session-starter/session-starter/internal/end"
	"github.com/session-starter/session-starter/internal/ledger"
	"github.com/session-starter/session-starter/internal/sys"
)

// cgroupHold is the session cgroup and its holder, in cgroup mode.
type cgroupHold struct {
	cg       *cgroup.Session // the session cgroup in cgroup mode, else nil
	cgHolder *cgroup.Holder
	// sup is the leaf this process moved itself into for the limits'
	// controllers, or nil.
	sup *cgroup.Supervisor
}

// cgroupLimits is l as package cgroup takes it.
func cgroupLimits(l Limits) cgroup.Limits {
	return cgroup.Limits{Tasks: int64(l.MaxTasks), Memory: l.MaxMemory, Swap: l.MaxSwap, CPU: l.MaxCPU}
}

// controllers lists the controllers the session cgroup needs for l: its
// bounds', and those of the kinds of limit its calls may set.
func controllers(l Limits) []string {
	need := cgroupLimits(l).Controllers()
	for _, k := range l.Calls {
		c := map[string]string{CallTasks: "pids", CallMemory: "memory", CallCPU: "cpu"}[k]
		if !slices.Contains(need, c) {
			need = append(need, c)
		}
	}
	return need
}

// holdInCgroup sets up the cgroup of the session as c asks, before
// anything is started: for ContainCgroup, and for ContainAuto where it is
// possible, a fresh session cgroup below the starter's own (leftovers of
// dead starters removed first). It returns the mode in effect; auto's
// choice, and why, is said at log level info. Where ContainCgroup is impossible it fails
// with ExitContainment, naming the fix; auto falls back to the process
// group.
func (s *session) holdInCgroup(c Containment) (string, error) {
	mode, cg, sup, why, err := chooseContainment(c, s.o.Limits, s.o.CgroupParent, s.log)
	if err != nil {
		return "", err
	}
	s.cg, s.sup = cg, sup
	if sup != nil {
		s.log.Info().Str("cgroup", sup.Path).Msg("moved into a supervisor cgroup of its own, so that its cgroup can give the session cgroup the limits' controllers")
	}
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
// made for it (cgroup mode) in parent (or below this process's own
// cgroup) and the supervisor leaf this process moved into for lim's
// controllers, or why auto fell back to the process group, or the error
// Run fails with. Limits and a parent make cgroup mode required.
func chooseContainment(c Containment, lim Limits, parent string, log zerolog.Logger) (mode string, cg *cgroup.Session, sup *cgroup.Supervisor, why, err error) {
	required := c == ContainCgroup || lim.needsCgroup() || parent != ""
	switch c {
	case ContainGroup:
		if required {
			return "", nil, nil, nil, fail(ExitUsage, "%s needs cgroup mode, and --containment group was asked for", limitsFlags(lim, parent))
		}
		return ModeGroup, nil, nil, nil, nil
	case "", ContainAuto, ContainCgroup:
	default:
		return "", nil, nil, nil, fail(ExitUsage, "containment %q: want auto, group or cgroup", c)
	}
	if sys.Pidless {
		// The portable build takes macOS's path: no cgroup.
		why := fmt.Errorf("not in the portable build: %w", errors.ErrUnsupported)
		if required {
			return "", nil, nil, nil, fail(ExitContainment, "%s: %w", cgroupAsk(c, lim, parent), why)
		}
		return ModeGroup, nil, nil, why, nil
	}
	cg, sup, why = newSessionCgroup(!required, lim, parent, log)
	if why != nil {
		if required {
			return "", nil, nil, nil, fail(ExitContainment, "%s: %w; %s", cgroupAsk(c, lim, parent), why, CgroupFix(why))
		}
		return ModeGroup, nil, nil, why, nil
	}
	return ModeCgroup, cg, sup, nil, nil
}

// cgroupAsk names what made cgroup mode required, for an error.
func cgroupAsk(c Containment, lim Limits, parent string) string {
	if c == ContainCgroup && !lim.needsCgroup() && parent == "" {
		return "--containment cgroup"
	}
	return limitsFlags(lim, parent)
}

// limitsFlags names the flags of lim and parent that were given.
func limitsFlags(lim Limits, parent string) string {
	var f []string
	for _, x := range []struct {
		name string
		set  bool
	}{{"--max-tasks", lim.MaxTasks > 0}, {"--max-memory", lim.MaxMemory > 0}, {"--max-cpu", lim.MaxCPU > 0},
		{"--call-limits", len(lim.Calls) > 0}, {"--cgroup-parent", parent != ""}} {
		if x.set {
			f = append(f, x.name)
		}
	}
	return strings.Join(f, ", ")
}

// ExplainContainment says which mode a session held as c asks would get
// here, deciding as Run does, with nothing started: a session cgroup it
// can make is made and removed again. why is what made auto fall back to
// the process group; err is what Run would fail with.
func ExplainContainment(c Containment) (mode string, why, err error) {
	mode, cg, _, why, err := chooseContainment(c, Limits{}, "", zerolog.Nop())
	if cg != nil {
		_ = cg.Remove()
		cg.Close()
	}
	return mode, why, err
}

// ExplainLimits says what a session with lim and parent (as
// [Options.CgroupParent]) would do here to enforce the limits, doing none
// of it: whether this process would move into a supervisor leaf first,
// or the error Run would fail with.
func ExplainLimits(lim Limits, parent string) (move bool, err error) {
	if err := lim.Check(); err != nil {
		return false, err
	}
	need := controllers(lim)
	if len(need) == 0 {
		return false, nil
	}
	if sys.Pidless {
		return false, fail(ExitContainment, "%s: not in the portable build: %w", limitsFlags(lim, parent), errors.ErrUnsupported)
	}
	p, err := placeIn(parent)
	if err == nil {
		_, move, err = cgroup.CheckEnable(p, need, parent == "")
	}
	if err != nil {
		return false, fail(ExitContainment, "%s: %w; %s", limitsFlags(lim, parent), err, CgroupFix(err))
	}
	return move, nil
}

// placeIn is where session cgroups are made: in parent
// ([Options.CgroupParent]), or below this process's own cgroup.
func placeIn(parent string) (cgroup.Place, error) {
	if parent != "" {
		return cgroup.PlaceAt(parent)
	}
	return cgroup.Locate()
}

// newSessionCgroup makes the session cgroup, in parent or below this
// process's own cgroup, with lim's controllers available to it; or says
// why it cannot be made (auto: not where systemd manages the starter's
// cgroup).
func newSessionCgroup(auto bool, lim Limits, parent string, log zerolog.Logger) (*cgroup.Session, *cgroup.Supervisor, error) {
	p, err := placeIn(parent)
	if err != nil {
		return nil, nil, err
	}
	if auto && p.ManagedBySystemd() {
		return nil, nil, fmt.Errorf("cgroup: %s is managed by systemd and was not delegated", p.Own)
	}
	var sup *cgroup.Supervisor
	if need := controllers(lim); len(need) > 0 {
		if sup, err = cgroup.Enable(p, need, parent == ""); err != nil {
			return nil, nil, err
		}
	}
	if removed, err := cgroup.CleanLeftovers(p); err != nil {
		log.Debug().Err(err).Msg("leftover session cgroups")
	} else if len(removed) > 0 {
		log.Debug().Strs("removed", removed).Msg("leftover session cgroups of dead starters")
	}
	cg, err := cgroup.Create(p)
	if err == nil {
		if err = sys.Faccessat(cg.DirFD, "cgroup.kill", sys.W_OK, 0); err != nil {
			_ = cg.Remove()
			cg.Close()
			err = fmt.Errorf("cgroup: %s has %w: %w", cg.Path, errNoCgroupKill, err)
		}
	}
	if err != nil {
		return nil, nil, errors.Join(err, sup.Restore())
	}
	return cg, sup, nil
}

// gateJoined checks, from outside, that the gate is in the Engine's leaf
// of the session cgroup. The gate is our unreaped child, so its PID
// names it alone.
func (s *session) gateJoined() error {
	in, err := s.cg.HoldsEngine(s.gate.PID)
	if err != nil {
		return err
	}
	if !in {
		return fmt.Errorf("cgroup: the gate (pid %d) is not in %s", s.gate.PID, s.cg.EnginePath)
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

// cgroupDir is the directory descriptor of the Engine's leaf of the
// session cgroup, where the gate is born, or 0.
func (s *session) cgroupDir() int {
	if s.cg == nil {
		return 0
	}
	return s.cg.EngineFD
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
	// The limits, now that the gate is ready: its Go runtime's threads
	// count against pids.max, and a small one written before it started
	// them would refuse them. Until the go-ahead nothing of the Engine
	// runs.
	if lim := cgroupLimits(s.o.Limits); lim.Any() {
		if err := s.cg.SetLimits(lim); err != nil {
			return err
		}
		s.log.Debug().Str("cgroup", s.cg.Path).Msg("limits set")
	}
	return nil
}

// readUsage reads the session cgroup's counters into s.usage, before it
// is removed.
func (s *session) readUsage() {
	if s.cg == nil {
		return
	}
	u := s.cg.ReadUsage()
	s.usage = Usage{MemoryPeak: u.MemoryPeak, TasksPeak: u.TasksPeak, OOMKills: u.OOMKills, ForksRefused: u.ForksRefused}
	if u.MemoryPeak != nil {
		s.usage.MemoryPeakSource = "memory.peak"
	}
	if u.CPU != nil {
		d := time.Duration(*u.CPU) * time.Microsecond
		s.usage.CPU, s.usage.CPUSource = &d, "cpu.stat"
	}
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
	removed := s.cg.Removed()
	s.cg.Close()
	s.cg = nil
	// The controllers stay on while a session cgroup left behind still
	// holds processes: turned off, its limits would go.
	if s.sup != nil && removed {
		if err := s.sup.Restore(); err != nil {
			s.log.Debug().Err(err).Msg("the supervisor cgroup stays")
		}
	} else if s.sup != nil {
		s.log.Debug().Str("cgroup", s.sup.Path).Msg("the supervisor cgroup stays with the session cgroup")
	}
	s.sup = nil
}

// procsFD opens the cgroup.procs of the Engine's leaf for the gate, or
// returns 0.
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

// recordCgroup is the session cgroup as the ledger records it, or nil in
// group mode.
func (s *session) recordCgroup() *ledger.Cgroup {
	if s.cg == nil {
		return nil
	}
	return &ledger.Cgroup{Dir: s.cg.Dir, ID: s.cg.ID}
}
