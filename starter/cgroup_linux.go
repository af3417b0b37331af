package starter

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/rs/zerolog"

	"github.com/session-starter/session-starter/gate"
	"github.com/session-starter/session-starter/guard"
	"github.com/session-starter/session-starter/internal/cgroup"
	"github.com/session-starter/session-starter/internal/end"
	"github.com/session-starter/session-starter/internal/ledger"
	"github.com/session-starter/session-starter/internal/mark"
	"github.com/session-starter/session-starter/internal/sys"
	"github.com/session-starter/session-starter/internal/wire"
	"github.com/session-starter/session-starter/starter/launch"
)

// cgroupLayer is the session cgroup, in cgroup mode: the gate is born
// into its Engine's leaf, the guard and the ledger get its directory, and
// the end kills what it holds.
type cgroupLayer struct {
	noLayer
	cg     *cgroup.Session
	holder *cgroup.Holder // made once the gate has joined
	// sup is the leaf this process moved itself into for the limits'
	// controllers, or nil.
	sup    *cgroup.Supervisor
	limits launch.Limits
	log    zerolog.Logger
}

// controllers lists the controllers the session cgroup needs for l: its
// bounds', and those of the kinds of limit its calls may set.
func controllers(l launch.Limits) []string {
	need := cgroup.Controllers(l)
	for _, k := range l.Calls {
		c := cgroup.CallControllers[k]
		if !slices.Contains(need, c) {
			need = append(need, c)
		}
	}
	return need
}

// hold makes the layers of a session as c asks, before anything is
// started. For launch.ContainCgroup, and for launch.ContainAuto where it is possible,
// that is a fresh session cgroup below the starter's own (leftovers of
// dead starters removed first). Then the mark, and the ledger record. It
// returns the mode in effect; auto's choice, and why, is said at log level
// info. Where launch.ContainCgroup is impossible it fails with wire.ExitContainment,
// naming the fix; auto falls back to the process group.
func (s *session) hold(c launch.Containment) (string, error) {
	mode, cg, sup, why, err := chooseContainment(c, s.o.Limits, s.o.CgroupParent, s.log)
	if err != nil {
		return "", err
	}
	if sup != nil {
		s.log.Info().Str("cgroup", sup.Path).Msg("moved into a supervisor cgroup of its own, so that its cgroup can give the session cgroup the limits' controllers")
	}
	// Auto's choice is said at info; a mode asked for, at debug.
	ev := s.log.Debug()
	if c == launch.ContainAuto || c == "" {
		ev = s.log.Info()
	}
	ev = ev.Str("mode", mode).Str("containment", string(c))
	var rec *ledger.Cgroup
	switch {
	case cg != nil:
		ev.Str("cgroup", cg.Path).Msg("containment by a session cgroup")
		s.layers = append(s.layers, &cgroupLayer{cg: cg, sup: sup, limits: s.o.Limits, log: s.log})
		rec = &ledger.Cgroup{Dir: cg.Dir, ID: cg.ID}
	case why != nil:
		ev.Err(why).Msg("no session cgroup; containment by the process group")
	default:
		ev.Msg("containment by the process group, as asked")
	}
	if s.mark != nil && mark.Supported {
		s.layers = append(s.layers, markLayer{})
	}
	s.holdLedger(rec)
	return mode, nil
}

// chooseContainment is the decision of hold, and of
// [ExplainContainment]: the mode c gives here, with the session cgroup
// made for it (cgroup mode) in parent (or below this process's own
// cgroup) and the supervisor leaf this process moved into for lim's
// controllers, or why auto fell back to the process group, or the error
// Run fails with. Limits and a parent make cgroup mode required.
func chooseContainment(c launch.Containment, lim launch.Limits, parent string, log zerolog.Logger) (mode string, cg *cgroup.Session, sup *cgroup.Supervisor, why, err error) {
	required := c == launch.ContainCgroup || needsCgroup(lim) || parent != ""
	switch c {
	case launch.ContainGroup:
		if required {
			return "", nil, nil, nil, fail(wire.ExitUsage, "%s needs cgroup mode, and --containment group was asked for", limitsFlags(lim, parent))
		}
		return wire.ModeGroup, nil, nil, nil, nil
	case "", launch.ContainAuto, launch.ContainCgroup:
	default:
		return "", nil, nil, nil, fail(wire.ExitUsage, "containment %q: want auto, group or cgroup", c)
	}
	if sys.Pidless {
		// The portable build takes macOS's path: no cgroup.
		why := fmt.Errorf("not in the portable build: %w", errors.ErrUnsupported)
		if required {
			return "", nil, nil, nil, fail(wire.ExitContainment, "%s: %w", cgroupAsk(c, lim, parent), why)
		}
		return wire.ModeGroup, nil, nil, why, nil
	}
	cg, sup, why = newSessionCgroup(!required, lim, parent, log)
	if why != nil {
		if required {
			return "", nil, nil, nil, fail(wire.ExitContainment, "%s: %w; %s", cgroupAsk(c, lim, parent), why, cgroup.Fix(why))
		}
		return wire.ModeGroup, nil, nil, why, nil
	}
	return wire.ModeCgroup, cg, sup, nil, nil
}

// cgroupAsk names what made cgroup mode required, for an error.
func cgroupAsk(c launch.Containment, lim launch.Limits, parent string) string {
	if c == launch.ContainCgroup && !needsCgroup(lim) && parent == "" {
		return "--containment cgroup"
	}
	return limitsFlags(lim, parent)
}

// limitsFlags names the flags of lim and parent that were given.
func limitsFlags(lim launch.Limits, parent string) string {
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
func ExplainContainment(c launch.Containment) (mode string, why, err error) {
	mode, cg, _, why, err := chooseContainment(c, launch.Limits{}, "", zerolog.Nop())
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
func ExplainLimits(lim launch.Limits, parent string) (move bool, err error) {
	if err := checkLimits(lim); err != nil {
		return false, err
	}
	need := controllers(lim)
	if len(need) == 0 {
		return false, nil
	}
	if sys.Pidless {
		return false, fail(wire.ExitContainment, "%s: not in the portable build: %w", limitsFlags(lim, parent), errors.ErrUnsupported)
	}
	p, err := placeIn(parent)
	if err == nil {
		_, move, err = cgroup.CheckEnable(p, need, parent == "")
	}
	if err != nil {
		return false, fail(wire.ExitContainment, "%s: %w; %s", limitsFlags(lim, parent), err, cgroup.Fix(err))
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
func newSessionCgroup(auto bool, lim launch.Limits, parent string, log zerolog.Logger) (*cgroup.Session, *cgroup.Supervisor, error) {
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
			err = fmt.Errorf("cgroup: %s has %w: %w", cg.Path, cgroup.ErrNoKill, err)
		}
	}
	if err != nil {
		return nil, nil, errors.Join(err, sup.Restore())
	}
	return cg, sup, nil
}

// born has the gate join the Engine's leaf of the session cgroup: at its
// birth, through the leaf's directory descriptor (clone3), or else by
// writing itself into the leaf's cgroup.procs.
func (l *cgroupLayer) born(gs *gate.Spec) error {
	fd, err := l.cg.OpenProcs()
	if err != nil {
		return err
	}
	gs.CgroupProcs, gs.CgroupDir = fd, l.cg.EngineFD
	return nil
}

// hand hands the session cgroup to the guard.
func (l *cgroupLayer) hand(_ *session, gs *guard.Spec) {
	gs.Cgroup, gs.CgroupParent, gs.CgroupName = l.cg.DirFD, l.cg.ParentFD, l.cg.Name
}

// ready checks, from outside, that the gate joined the Engine's leaf
// before it said ready; then the cgroup becomes a holder, and the limits
// are set.
func (l *cgroupLayer) ready(s *session) error {
	in, err := l.cg.HoldsEngine(s.gate.PID)
	if err != nil {
		return err
	}
	if !in {
		return fmt.Errorf("cgroup: the gate (pid %d) is not in %s", s.gate.PID, l.cg.EnginePath)
	}
	if l.holder, err = cgroup.NewHolder(l.cg.DirFD); err != nil {
		return err
	}
	// The limits, now that the gate is ready: its Go runtime's threads
	// count against pids.max, and a small one written before it started
	// them would refuse them. Until the go-ahead nothing of the Engine
	// runs.
	if l.limits.Any() {
		if err := l.cg.SetLimits(l.limits); err != nil {
			return err
		}
		l.log.Debug().Str("cgroup", l.cg.Path).Msg("limits set")
	}
	return nil
}

// holders is the session cgroup, once the gate has joined it.
func (l *cgroupLayer) holders() []end.Holder {
	if l.holder == nil {
		return nil
	}
	return []end.Holder{l.holder}
}

// ended reads the session cgroup's counters into u, and after an end
// removes the cgroup once it is empty (zombies do not count, so this
// works before the Engine is reaped). A released session's cgroup stays:
// it holds what the Engine left.
func (l *cgroupLayer) ended(e End, u *launch.Usage) {
	*u = cgroup.UsageOf(l.cg.DirFD)
	if e.Outcome != launch.Released {
		l.remove()
	}
}

// remove removes the session cgroup. A failure is logged: the next start
// removes the leftover.
func (l *cgroupLayer) remove() {
	if err := l.cg.Remove(); err != nil {
		l.log.Warn().Err(err).Str("cgroup", l.cg.Path).Msg("session cgroup left behind")
	}
}

// close removes the session cgroup if it is empty, and releases its
// descriptors.
func (l *cgroupLayer) close() {
	if l.holder != nil {
		l.holder.Close()
	}
	if populated, err := cgroup.Populated(l.cg.DirFD); err == nil && !populated {
		l.remove()
	}
	removed := l.cg.Removed()
	l.cg.Close()
	// The controllers stay on while a session cgroup left behind still
	// holds processes: turned off, its limits would go.
	if l.sup != nil && removed {
		if err := l.sup.Restore(); err != nil {
			l.log.Debug().Err(err).Msg("the supervisor cgroup stays")
		}
	} else if l.sup != nil {
		l.log.Debug().Str("cgroup", l.sup.Path).Msg("the supervisor cgroup stays with the session cgroup")
	}
}
