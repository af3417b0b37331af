//go:build darwin || freebsd

package starter

import (
	"errors"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/session-starter/session-starter/guard"
	"github.com/session-starter/session-starter/internal/end"
	"github.com/session-starter/session-starter/internal/ledger"
	"github.com/session-starter/session-starter/internal/lineage"
	"github.com/session-starter/session-starter/internal/proc"
	"github.com/session-starter/session-starter/internal/sys"
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

// cgroupHold holds no cgroup: there are none here. Its methods are the
// cgroup steps of a session, which have nothing to do; it keeps instead
// the Engine's identity, the root of the escapee sweep by lineage
// (package internal/lineage), read once the gate is ready.
type cgroupHold struct {
	root    lineage.Identity
	rootErr error
}

// holdInCgroup says how the session is held: by the process group (a
// reaper on FreeBSD, with Options.Subreaper). --containment cgroup
// cannot be had here.
func (s *session) holdInCgroup(c Containment) (string, error) {
	if _, err := ExplainLimits(s.o.Limits, s.o.CgroupParent); err != nil {
		return "", err
	}
	mode, _, err := chooseContainment(c, s.subreaper != nil)
	return mode, err
}

// chooseContainment is the decision of holdInCgroup and of
// [ExplainContainment]; reaper says the starter is the reaper of the
// Engine's tree.
func chooseContainment(c Containment, reaper bool) (mode string, why, err error) {
	switch c {
	case "", ContainAuto, ContainGroup:
	case ContainCgroup:
		return "", nil, fail(ExitContainment, "--containment cgroup: cgroups are Linux's: %w", errors.ErrUnsupported)
	default:
		return "", nil, fail(ExitUsage, "containment %q: want auto, group or cgroup", c)
	}
	if reaper {
		return ModeReaper, nil, nil
	}
	return ModeGroup, nil, nil
}

// ExplainContainment says which mode a session held as c asks would get
// here, deciding as Run does (a reaper where the starter can be one),
// with nothing started. why is always nil: there is no fallback.
func ExplainContainment(c Containment) (mode string, why, err error) {
	return chooseContainment(c, CanAdoptOrphans)
}

// ExplainLimits fails as Run does here: limits need a session cgroup.
func ExplainLimits(lim Limits, parent string) (move bool, err error) {
	if !lim.needsCgroup() && parent == "" {
		return false, nil
	}
	return false, fail(ExitContainment, "limits, --call-limits and --cgroup-parent need a session cgroup: cgroups are Linux's: %w", errors.ErrUnsupported)
}

// procsFD returns 0: the gate joins no cgroup.
func (cgroupHold) procsFD() (int, error) { return 0, nil }

// guardCgroup hands the guard no cgroup.
func (cgroupHold) guardCgroup(*guard.Spec) {}

// cgroupDir is 0: there are no cgroups.
func (cgroupHold) cgroupDir() int { return 0 }

// cgroupJoined has no cgroup to check: the gate joins none.
func (s *session) cgroupJoined() error { return nil }

// guardMark reads the gate, started and not yet the Engine, for the
// Engine's identity (exec keeps it), the root of the escapee sweep by
// lineage: it is this process's unreaped child, so its PID names it
// alone. With the mark, the guard gets the identity's token
// (guard.Spec.Mark), to sweep by lineage itself once this process is
// gone. A failed read leaves the session without the sweep, and the end
// says so.
func (s *session) guardMark(gs *guard.Spec) {
	s.root, s.rootErr = lineage.Root(s.gate.PID)
	if s.mark != nil && s.rootErr == nil {
		gs.Mark, gs.MarkSince = s.mark.String(), lineage.Token(s.root)
	}
}

// lineageHolders is the escapee sweep by lineage: the Engine's
// descendants found by identity, of this process's user (package
// internal/lineage), with the session mark as a second source unless the
// mark is off.
func (s *session) lineageHolders() []end.Holder {
	if s.rootErr != nil {
		s.log.Warn().Err(s.rootErr).Msg("no identity of the Engine: its escapees are not looked for")
		return nil
	}
	return []end.Holder{lineage.NewSweep(s.root, os.Getuid(), lineage.System(s.mark))}
}

// cgroupHolders is empty, there being no cgroup, but for the Engine's
// subtree on FreeBSD, where the starter is its reaper (reaperHolders).
func (s *session) cgroupHolders() []end.Holder { return s.reaperHolders() }

// recordCgroup is nil: the ledger records no cgroup here.
func (*session) recordCgroup() *ledger.Cgroup { return nil }

// readUsage has no counters to read: the usage is the reaps'.
func (*session) readUsage() {}

// removeCgroup has nothing to remove.
func (cgroupHold) removeCgroup() {}

// closeCgroup has nothing to close.
func (cgroupHold) closeCgroup() {}

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

// reapExited reaps the child pid if it has exited, by number
// (wait4(WNOHANG)), and reports whether it did.
func reapExited(pid int) (time.Duration, bool) {
	cpu, exited, err := sys.ReapIfExited(pid)
	return cpu, err == nil && exited
}

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
