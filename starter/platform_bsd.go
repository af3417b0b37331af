//go:build darwin || freebsd

package starter

import (
	"errors"
	"os"
	"os/signal"
	"syscall"

	"github.com/rs/zerolog"

	"github.com/session-starter/session-starter/guard"
	"github.com/session-starter/session-starter/internal/end"
	"github.com/session-starter/session-starter/internal/lineage"
	"github.com/session-starter/session-starter/internal/mark"
	"github.com/session-starter/session-starter/internal/proc"
	"github.com/session-starter/session-starter/internal/sys"
	"github.com/session-starter/session-starter/internal/wire"
	"github.com/session-starter/session-starter/starter/launch"
)

// The macOS and FreeBSD parts of the starter. There are no cgroups: the
// session is held by the Engine's process group (and on FreeBSD by the
// starter as the reaper of the Engine's tree); the gate and the guard
// are started from this binary's path, as the kernel offers no link to it.

// defaultExe is the binary the gate and the guard are started from: this
// process's own, by the path the kernel reports for it. A binary replaced
// at that path between the start and the gate's exec would be the one
// executed: there is no /proc/self/exe here.
func defaultExe() (string, error) { return os.Executable() }

// hold makes the layers of a session as c asks: the sweep by lineage (or
// on FreeBSD, with Options.Subreaper, the starter as the reaper of the
// Engine's tree), and the ledger record. There is no session cgroup:
// --containment cgroup cannot be had here.
func (s *session) hold(c launch.Containment) (string, error) {
	if _, err := ExplainLimits(s.o.Limits, s.o.CgroupParent); err != nil {
		return "", err
	}
	mode, _, err := chooseContainment(c, s.adopt.restore != nil)
	if err != nil {
		return "", err
	}
	reaper := s.reaper()
	s.layers = append(s.layers, &lineageLayer{sweep: reaper == nil})
	if reaper != nil {
		s.layers = append(s.layers, reaper)
	}
	s.holdLedger(nil)
	return mode, nil
}

// chooseContainment is the decision of hold and of
// [ExplainContainment]; reaper says the starter is the reaper of the
// Engine's tree.
func chooseContainment(c launch.Containment, reaper bool) (mode string, why, err error) {
	switch c {
	case "", launch.ContainAuto, launch.ContainGroup:
	case launch.ContainCgroup:
		return "", nil, fail(wire.ExitContainment, "--containment cgroup: cgroups are Linux's: %w", errors.ErrUnsupported)
	default:
		return "", nil, fail(wire.ExitUsage, "containment %q: want auto, group or cgroup", c)
	}
	if reaper {
		return wire.ModeReaper, nil, nil
	}
	return wire.ModeGroup, nil, nil
}

// ExplainContainment says which mode a session held as c asks would get
// here, deciding as Run does (a reaper where the starter can be one),
// with nothing started. why is always nil: there is no fallback.
func ExplainContainment(c launch.Containment) (mode string, why, err error) {
	return chooseContainment(c, sys.CanAdoptOrphans)
}

// ExplainLimits fails as Run does here: limits need a session cgroup.
func ExplainLimits(lim launch.Limits, parent string) (move bool, err error) {
	if !needsCgroup(lim) && parent == "" {
		return false, nil
	}
	return false, fail(wire.ExitContainment, "limits, --call-limits and --cgroup-parent need a session cgroup: cgroups are Linux's: %w", errors.ErrUnsupported)
}

// lineageLayer is the Engine's identity, the root of the escapee sweep
// by lineage (package internal/lineage), read from the gate before it is
// ready. With sweep, the sweep is one of the session's holders: the
// Engine's descendants found by identity, of this process's user, with
// the session mark as a second source unless the mark is off.
type lineageLayer struct {
	noLayer
	sweep   bool
	root    lineage.Identity
	rootErr error
	mark    *mark.ID
	log     zerolog.Logger
}

// hand reads the gate, started and not yet the Engine, for the Engine's
// identity (exec keeps it): it is this process's unreaped child, so its
// PID names it alone. With the mark, the guard gets the identity's token
// (guard.Spec.Mark), to sweep by lineage itself once this process is
// gone. A failed read leaves the session without the sweep, and the end
// says so.
func (l *lineageLayer) hand(s *session, gs *guard.Spec) {
	l.mark, l.log = s.mark, s.log
	l.root, l.rootErr = lineage.Root(s.gate.PID)
	if s.mark != nil && l.rootErr == nil {
		gs.Mark, gs.MarkSince = s.mark.String(), lineage.Token(l.root)
	}
}

func (l *lineageLayer) holders() []end.Holder {
	if !l.sweep {
		return nil
	}
	if l.rootErr != nil {
		l.log.Warn().Err(l.rootErr).Msg("no identity of the Engine: its escapees are not looked for")
		return nil
	}
	return []end.Holder{lineage.NewSweep(l.root, os.Getuid(), lineage.System(l.mark))}
}

// pollRDHUP is 0: poll reports a socket whose peer is gone as POLLHUP,
// which is always reported.
const pollRDHUP = 0

// unixPeer cannot name a Unix socket's peer here (no sock_diag): the
// check that the peer was not passed too is skipped, as on a Linux
// kernel without unix_diag.
func unixPeer(int) (uint64, bool, error) { return 0, false, nil }

// controlPipe reads the control pipe n itself (see controlPipeShared):
// /dev/fd/N duplicates the descriptor on macOS instead of reopening the
// pipe.
func controlPipe(n int) (*control, error) { return controlPipeShared(n) }

// everyChild is children: a process's children are its own, not a
// thread's, here.
func everyChild() ([]int, error) { return children() }

// children lists this process's children from the kernel's process table.
// A listing that fails is an error: a missed child would be a missed
// escapee, or, at the start, a child from before the session taken later
// for one.
func children() ([]int, error) { return proc.Children(os.Getpid()) }

// withTTOUBlocked runs f with SIGTTOU ignored, then puts its handling
// back: x/sys/unix offers no per-thread signal mask here. Nothing is
// forked meanwhile, so no child inherits the ignore.
func withTTOUBlocked(f func()) {
	signal.Ignore(syscall.SIGTTOU)
	defer signal.Reset(syscall.SIGTTOU)
	f()
}

// engineStopped reports whether the Engine (this process's unreaped
// child, so its number is its own) is stopped, from the kernel's process
// table: a wait for stops here would report and reap its exit too.
func engineStopped(pid int) bool {
	st, err := proc.ReadStat(pid)
	return err == nil && st.State == 'T'
}

// stopSelf stops this process until it is continued.
func stopSelf() { _ = sys.SignalSelf(syscall.SIGSTOP) }
