//go:build darwin || freebsd || linux

package starter

import (
	"cmp"
	"errors"
	"fmt"
	"os"
	"runtime"
	"slices"
	"sync"
	"syscall"
	"time"

	"github.com/rs/zerolog"

	"github.com/session-starter/session-starter/gate"
	"github.com/session-starter/session-starter/guard"
	"github.com/session-starter/session-starter/internal/end"
	"github.com/session-starter/session-starter/internal/mark"
	"github.com/session-starter/session-starter/internal/proc"
	"github.com/session-starter/session-starter/internal/sys"
	"github.com/session-starter/session-starter/internal/wire"
	"github.com/session-starter/session-starter/starter/launch"
)

// session is the state of one Run.
type session struct {
	o    Options
	log  zerolog.Logger
	mark *mark.ID // the session's id in the mark, unless NoMark

	// prepare
	spec gate.Spec // the Engine's program, argv, environment and descriptors
	// launcher is what the session takes of its launcher, and watches:
	// its PID; its exit descriptor (a pidfd; on macOS and FreeBSD a
	// kqueue), or -1; its descriptors, marked close-on-exec in this
	// process's table while the session runs; the control descriptor; and
	// its end of the Engine's standard input, watched (WatchStdin).
	launcher struct {
		pid, exit int
		inherited []int
		ctl       *control
		stdin     *stdinWatch
	}
	sig signals
	// ending is how the session ends once the Engine was released: the
	// stop signal and the grace first, then the kill budget; a second
	// stop signal hurries the grace, and SIGCHLD tells of adopted
	// children.
	ending end.Plan
	tty    *terminal // the terminal handed to the Engine, or nil
	// adopt is the session's part as the reaper of orphans (a subreaper,
	// or PID 1 of a PID namespace): whether children other than the gate
	// and guard are ours to reap; what puts the previous subreaper
	// setting back, or nil; the children this process had before the
	// gate, which are not the session's; the groups the sweep never
	// signals as a group; and the CPU time the reaps of adopted orphans
	// reported.
	adopt struct {
		on         bool
		restore    func()
		before     map[int]bool
		neverSweep []int
		cpu        time.Duration
	}

	// contain
	mode     string
	layers   []layer // the mechanisms that hold the session besides group E
	gate     *gate.Gate
	gateGone bool // the gate was killed and reaped before it was ready
	guard    *guard.Guard
	armed    bool
	engine   *end.Process
	group    end.Group

	// watch and end
	// exec is the gate's report of its exec: whether it was read, and
	// the exec failure it reported, or nil.
	exec struct {
		read bool
		err  error
	}
	deadline time.Time
	usage    launch.Usage // what the tree used: the cgroup's counters, or the reaps'
}

// prepare checks the request and takes what the session needs of this
// process: the launcher's descriptors (marked close-on-exec), the control
// descriptor, the stop and forwarded signals, the subreaper setting and
// the terminal. Nothing is started. Once it has taken something, it
// returns the session with its error, for run to close.
func prepare(o Options) (*session, error) {
	if err := checkLimits(o.Limits); err != nil {
		return nil, err
	}
	s := &session{o: o, log: o.Logger, sig: takeSignals(o)}
	s.launcher.exit = -1
	stopSig := cmp.Or(o.StopSignal, syscall.SIGTERM)
	s.ending = end.Plan{Stop: stopSig, Grace: o.Grace, Budget: o.KillBudget, Hurry: s.sig.stops, Wake: s.sig.chld}
	// From here on, the session is returned with an error too: run's
	// close undoes what was taken.
	if o.Exe == "" {
		exe, err := defaultExe()
		if err != nil {
			return s, fail(wire.ExitContainment, "find this binary: %w", err)
		}
		s.o.Exe = exe
	}
	s.spec.Exe, s.spec.Argv = s.o.Exe, o.Argv
	env := o.Env
	if env == nil {
		env = os.Environ()
	}
	var err error
	if s.spec.Env, s.mark, err = engineEnv(env, o.NoMark); err != nil {
		return s, err
	}

	if o.ReleaseOnExit {
		if !sys.CanAdoptOrphans {
			// What the Engine left would be re-parented to init when it
			// and this process exit, outside every session.
			return s, fail(wire.ExitUsage, "--release-on-exit: not on this platform: with no subreaper, what it released would leave every session")
		}
		if v, ok := sys.LookupEnv(env, mark.Var); !ok || v == "" {
			return s, fail(wire.ExitUsage, "--release-on-exit needs an enclosing session (%s in the environment): what it releases must have a session to end it", mark.Var)
		}
	}
	if o.WatchParent && o.ParentPID == 0 && os.Getpid() == 1 {
		return s, fail(wire.ExitUsage, "--watch-parent without --parent-pid as PID 1: a namespace's init has no parent to watch")
	}
	// The launcher: recorded first, so that a parent gone already is seen.
	s.launcher.pid = os.Getppid()
	if o.ParentPID != 0 && s.launcher.pid != o.ParentPID {
		return s, stop{reason: ReasonParentGone,
			why: fmt.Sprintf("its parent at start is PID %d, not %d, the launcher's PID given", s.launcher.pid, o.ParentPID)}
	}
	s.spec.Path = o.Path
	if s.spec.Path == "" {
		if s.spec.Path, err = sys.Resolve(o.Argv[0], s.spec.Env); err != nil {
			// An empty PROGRAM is named "", so that the message does
			// not start with ": ".
			return s, fail(wire.ExitStatusFor(err), "%s: %w", cmp.Or(o.Argv[0], `""`), err)
		}
	} else if err := sys.Executable(s.spec.Path); err != nil {
		return s, fail(wire.ExitStatusFor(err), "%s: %w", s.spec.Path, err)
	}
	if o.Containers {
		if err := s.holdContainers(); err != nil {
			return s, err
		}
	}
	if err := proc.SameNamespace(); err != nil {
		return s, fail(wire.ExitContainment, "%w", err)
	}
	inherited, err := inheritedFDs()
	if err != nil {
		return s, fail(wire.ExitContainment, "list inherited descriptors: %w", err)
	}
	if o.ControlFD != 0 {
		if s.launcher.ctl, err = openControl(o.ControlFD, inherited); err != nil {
			return s, fail(wire.ExitUsage, "%w", err)
		}
	}
	if o.WatchStdin || o.Stdio {
		s.launcher.stdin, err = openStdinWatch(inherited)
		if !o.WatchStdin && errors.Is(err, errNeverHangsUp) {
			s.log.Debug().Err(err).Msg("--stdio: standard input is not watched")
		} else if err != nil {
			return s, fail(wire.ExitUsage, "%w", err)
		}
	}
	// No helper of ours may inherit the launcher's descriptors: mark them
	// close-on-exec in our table (the flag is per table, so the launcher's
	// own descriptors are untouched); close puts them back. The Engine
	// gets them all, but the control and status descriptors.
	s.spec.Files = []int{0, 1, 2}
	for _, fd := range inherited {
		if err := sys.SetCloseOnExec(fd); err != nil {
			return s, fail(wire.ExitContainment, "%w", err)
		}
		s.launcher.inherited = append(s.launcher.inherited, fd)
		if fd != o.ControlFD && fd != o.StatusFD {
			s.spec.Files = append(s.spec.Files, fd)
		}
	}

	s.adopt.on = o.Subreaper || os.Getpid() == 1
	if o.Subreaper {
		if s.adopt.restore, err = subreaper(); err != nil {
			return s, fail(wire.ExitContainment, "become a subreaper: %w", err)
		}
	}
	if o.Terminal {
		s.tty = openTerminal()
	}
	if s.adopt.on {
		// Children this process has already (a wrapper's background job
		// that exec'd us, say) are not the session's: reaped when they
		// exit, never signalled.
		if s.adopt.before, err = beforeSession(everyChild); err != nil {
			return s, fail(wire.ExitContainment, "%w", err)
		}
	}
	s.adopt.neverSweep = neverSweep(s.launcher.pid)
	return s, nil
}

// contain makes the session's holders: the session cgroup (in cgroup
// mode), the gate leading group E, and the guard armed on it. The gate
// and the guard start side by side, so that their start-up overlaps; the
// guard needs only the gate's pidfd, which exists from the fork on.
// Neither watches or runs anything until it says so.
func (s *session) contain(res *Result) error {
	if s.o.WatchParent || s.o.ParentPID != 0 || s.o.Stdio {
		if s.launcher.pid <= 1 {
			// PID 1 is taken as a container init and not watched; a
			// launcher that died before we started cannot be told apart.
			s.log.Debug().Int("ppid", s.launcher.pid).Msg("parent not watched")
		} else {
			// An exit descriptor of the launcher (sys.WatchExit: a pidfd,
			// or on macOS and FreeBSD a kqueue with EVFILT_PROC/NOTE_EXIT),
			// then getppid() again: a parent that died before the
			// descriptor was opened has re-parented us by then. Either
			// watches the parent process, not the thread that forked us,
			// unlike PR_SET_PDEATHSIG (golang/go#27505).
			fd, err := sys.WatchExit(s.launcher.pid)
			switch {
			case errors.Is(err, sys.ErrGone):
				return errParentGone
			case err != nil:
				return fail(wire.ExitContainment, "watch parent: %w", err)
			}
			s.launcher.exit = fd
			if os.Getppid() != s.launcher.pid {
				return errParentGone
			}
		}
	}
	mode, err := s.hold(s.o.Containment)
	if err != nil {
		return err
	}
	s.mode, res.Mode = mode, mode
	err = s.startGateAndGuard(res)
	if errors.Is(err, gate.ErrKilledAtBirth) {
		// Nothing was executed, and the gate is reaped; its guard was
		// armed on nothing yet. Once more, now joining by cgroup.procs.
		s.log.Info().Err(err).Msg("the gate joins the session cgroup by cgroup.procs")
		s.guard.Abandon()
		s.guard, s.gateGone = nil, false
		err = s.startGateAndGuard(res)
		if errors.Is(err, gate.ErrKilledAtBirth) {
			return fail(wire.ExitContainment, "%w", err)
		}
	}
	if err != nil {
		return err
	}
	s.log.Debug().Int("pid", s.gate.PID).Msg("gate ready")
	for _, l := range s.layers {
		if err := l.ready(s); err != nil {
			return fail(wire.ExitContainment, "%w", err)
		}
	}
	if err := s.guard.AwaitArmed(); err != nil {
		s.guard = nil // AwaitArmed killed and reaped it
		return fail(wire.ExitContainment, "%w", err)
	}
	s.armed = true
	s.log.Debug().Int("pid", s.guard.PID).Msg("guard armed")
	<-s.sig.ready // the forwarded signals and SIGCHLD are caught from here, before the ack
	return nil
}

// startGateAndGuard starts the gate and the guard side by side and waits
// until the gate is ready. An error wrapping gate.ErrKilledAtBirth leaves
// the guard spawned and unarmed, for the caller to abandon.
func (s *session) startGateAndGuard(res *Result) error {
	gs := s.spec
	gs.ListenPID, gs.ListenPIDFDID = listenFor(gs.Env)
	for _, l := range s.layers {
		if err := l.born(&gs); err != nil {
			return fail(wire.ExitContainment, "%w", err)
		}
	}
	var err error
	s.gate, err = gate.Spawn(gs)
	if gs.CgroupProcs > 0 {
		sys.Close(gs.CgroupProcs)
	}
	if err != nil {
		return fail(wire.ExitContainment, "%w", err)
	}
	res.PID = s.gate.PID
	// The Engine is reaped early (its status kept) only where the group
	// is signalled through a pidfd; by number, its zombie pins E.
	s.engine = &end.Process{PID: s.gate.PID, Pidfd: s.gate.Pidfd, Child: true, ReapEarly: sys.CanSignalGroup()}
	s.group = end.Group{PGID: s.gate.PID, Send: s.signalGroup, Forbidden: s.forbidden()}

	gds := guard.Spec{Exe: s.o.Exe, GatePidfd: s.gate.Pidfd, PGID: s.gate.PID, Budget: s.ending.Total(), Release: s.o.ReleaseOnExit}
	if s.tty != nil {
		gds.TTY, gds.TTYGroup = s.tty.fd, s.tty.own
	}
	for _, l := range s.layers {
		l.hand(s, &gds)
	}
	s.guard, err = guard.Spawn(gds)
	if err != nil {
		s.guard = nil
		return fail(wire.ExitContainment, "%w", err)
	}
	s.group.Forbidden = s.forbidden()
	s.group.Helper = s.guard.PID // its pin, where it pins E, is no member of the session
	if err := s.gate.AwaitReady(); err != nil {
		s.gateGone = true // AwaitReady killed and reaped the gate
		if errors.Is(err, gate.ErrKilledAtBirth) {
			return err
		}
		return fail(wire.ExitContainment, "%w", err)
	}
	return nil
}

// goAhead gives the Engine the terminal, if a direct launch would have,
// and the go-ahead. It returns the guard's PID, and the Engine's command
// line when the session changed it (Containers), for the started record.
func (s *session) goAhead() (guard int, argv []string, err error) {
	if s.tty != nil {
		if err := s.tty.handOverTo(s.gate.PID); err != nil {
			s.log.Warn().Err(err).Msg("the terminal stays with the starter's group")
			s.tty.close()
			s.tty = nil
		} else {
			s.tty.released = true
		}
	}
	reserveThreads(reservedThreads)
	if s.o.Containers {
		argv = s.spec.Argv
	}
	return s.guard.PID, argv, s.gate.Release()
}

// reservedThreads is how many threads the Go runtime of this process
// should have before the go-ahead: the most a session was seen to use
// (7-8 on Linux, with the watch's poll, the signal relay and the end).
// Each is a PID: where PIDs are few (a small pid_max), more reserved
// threads are more starts refused.
const reservedThreads = 8

// reserveThreads makes the runtime start threads until this process has
// n, parked for later use, before the Engine is executed. Under a process
// limit (RLIMIT_NPROC, a pids cgroup) the runtime cannot fail to make a
// thread and die gracefully: it crashes (exit 2). Making the threads the
// session will need before the go-ahead moves that crash, if it comes, to
// where nothing was executed yet — the gate exits without executing once
// its starter is gone, and the guard ends what there is. A thread a
// goroutine locks while it blocks is one the scheduler must replace to
// go on; unlocked, they stay as idle threads the runtime reuses.
func reserveThreads(n int) {
	st, err := proc.ReadStat(os.Getpid())
	if err != nil || st.NumThreads >= n {
		return
	}
	var locked, unlocked sync.WaitGroup
	release := make(chan struct{})
	for range n - st.NumThreads {
		locked.Add(1)
		unlocked.Add(1)
		go func() {
			defer unlocked.Done()
			runtime.LockOSThread()
			locked.Done()
			<-release
			runtime.UnlockOSThread()
		}()
	}
	locked.Wait()
	close(release)
	// Every one unlocked and done before the go-ahead: the threads are
	// idle then, not still being handed back.
	unlocked.Wait()
}

// abort ends a session whose Engine was never executed, after contain or
// release failed or a stop came first: the gate exits when its go-ahead
// pipe closes, and the holders are ended all the same; then the guard is
// finished (or reaped, if it is what was lost). A stop signal that is
// already pending explains a setup failure (Ctrl-C at a terminal reaches a
// gate still in our group, between its fork and its setpgid): then it is
// a stop before the go-ahead, and the starter dies of that signal.
func (s *session) abort(res Result, err error) (Result, error) {
	var st stop
	if !errors.As(err, &st) {
		select {
		case sig := <-s.sig.stops:
			st = stop{reason: ReasonSignal, signal: sig.(syscall.Signal)}
			err = st
		default:
		}
	}
	if s.gate != nil && !s.gateGone {
		s.gate.Abort()
		res.End = s.endHolders(end.Plan{Budget: s.ending.Budget})
		s.gateGone = true
	}
	switch {
	case s.guard == nil:
	case !s.armed:
		s.guard.Abandon()
	case st.reason == ReasonGuardLost:
		s.guard.Lost()
	default:
		if gerr := s.guard.Finish(s.untilDeadline()); gerr != nil {
			s.log.Warn().Err(gerr).Msg("guard")
		}
	}
	s.guard = nil
	return res, err
}

// holders lists what holds the session, in the order the end looks at
// them: the Engine's own process first (it may have left group E, and its
// reap shows E's end sooner), then the adopted escapees (their reaps
// too: each look at them reaps the adopted children that exited, right
// before group E's, so that a group whose members were all the starter's
// descendants shows as gone without a /proc scan), then group E, then the
// session cgroup.
func (s *session) holders() []end.Holder {
	hs := []end.Holder{s.engine}
	if s.adopt.on {
		hs = append(hs, &end.Adopted{
			List:      s.adopted,
			Forbidden: append(slices.Clone(s.adopt.neverSweep), s.forbidden()...),
			Held:      s.gate.PID,
			Sent: func(pid, pgrp int, sig syscall.Signal, err error) {
				s.log.Debug().Int("pid", pid).Int("pgid", pgrp).Str("signal", sys.SignalName(sig)).Err(err).Msg("escapee signalled")
			},
		})
	}
	hs = append(hs, s.group)
	for _, l := range s.layers {
		hs = append(hs, l.holders()...)
	}
	return hs
}

// endHolders ends every holder under one deadline (package end), and
// removes the session cgroup once it is empty.
func (s *session) endHolders(plan end.Plan) End {
	var errs []error
	for _, l := range s.layers {
		if err := l.before(plan); err != nil {
			errs = append(errs, err)
		}
	}
	s.deadline = plan.Deadline(time.Now())
	e := endOf(end.End(s.holders(), plan))
	if err := errors.Join(errs...); err != nil {
		// What a layer left is the session's, though no process shows it.
		e.Err = errors.Join(e.Err, err)
		if e.Outcome == launch.Empty || e.Outcome == launch.Unconfirmed {
			e.Outcome = launch.Survivors
		}
	}
	for _, l := range s.layers {
		l.ended(e, &s.usage)
	}
	// The session's holders are empty (or the end is over): the
	// launcher's writes to the Engine's input may fail now.
	s.launcher.stdin.close()
	return e
}

// releaseLeft is the end of a session whose Engine exited on its own
// under ReleaseOnExit: nothing is signalled, and what the Engine left
// running — group E's live members, the adopted escapees, the session
// cgroup's processes — is listed and stays, inside the enclosing session.
// The session cgroup is not removed (it still holds them); the guard,
// told that the starter may release, obeys the finish once the Engine has
// exited. The deadline bounds what follows, as an end's does.
func (s *session) releaseLeft() End {
	start := time.Now()
	s.deadline = end.Plan{Budget: s.ending.Budget}.Deadline(start)
	e := End{Outcome: launch.Released, Released: end.LivePIDs(s.holders())}
	for _, l := range s.layers {
		l.ended(e, &s.usage)
	}
	s.launcher.stdin.close()
	e.Elapsed = time.Since(start)
	return e
}

// untilDeadline is the time left for what follows the end: until the
// deadline, plus [launch.EndSlack]. The guard's exit after finish and the
// Engine's reap are immediate once the holders are empty; nothing after
// the end waits longer.
func (s *session) untilDeadline() time.Duration {
	return max(time.Until(s.deadline.Add(launch.EndSlack)), 0)
}

// collect finishes the guard and takes the Engine's status, both within
// the end's deadline. The guard exits once it has seen the holders empty;
// after Survivors it keeps guarding, and ends them itself once this
// process is gone. The Engine is reaped here, or was by the end: it is
// the one owner of that reap, and never waits past the deadline.
func (s *session) collect(res Result) (Result, error) {
	execErr := s.execResult()
	var failure error
	// After survivors the guard keeps guarding, and a surviving Engine
	// does not exit: no wait for either.
	survived := res.End.Outcome == launch.Survivors || res.End.Outcome == launch.Refused
	wait := func() time.Duration {
		if survived {
			return 0
		}
		return s.untilDeadline()
	}
	if res.Reason == ReasonGuardLost {
		s.guard.Lost()
	} else if err := s.guard.Finish(wait()); err != nil {
		switch {
		case errors.Is(err, guard.ErrNotFinished) && res.End.Outcome == launch.Empty:
			failure = fail(wire.ExitContainment, "the session ended, but the guard cannot be relied on: %w", err)
		case errors.Is(err, guard.ErrNotFinished):
			s.log.Debug().Err(err).Msg("the guard keeps guarding the survivors")
		default:
			s.log.Warn().Err(err).Msg("guard")
		}
	}
	s.guard = nil
	st, err := s.engine.Reap(wait())
	res.Usage = s.usage
	switch {
	case err == nil:
		if res.Reason != ReasonEngineExit {
			res.Engine = statusOf(st)
		}
		if res.Usage.CPUMS == nil {
			// No session cgroup: the reaps' rusage, the Engine's (with
			// what it reaped itself) and the adopted orphans'.
			res.Usage.SetCPU(st.CPU+s.adopt.cpu, "rusage")
		}
	case res.End.Outcome == launch.Empty || res.End.Outcome == launch.Unconfirmed || res.End.Outcome == launch.Released:
		return res, fail(wire.ExitContainment, "the Engine could not be reaped: %w", err)
	}
	if failure != nil {
		return res, failure
	}
	if execErr != nil {
		res.Executed = false
		return res, fail(wire.ExitStatusFor(execErr), "%w", execErr)
	}
	return res, nil
}

// close undoes what the session took, in one order: the terminal, the
// launcher's exit descriptor, the gate's descriptors, the layers (the
// last made first), the adopted children that exited, the signal
// handling, the subreaper setting, the launcher's descriptor flags
// (unless Exits) and the control descriptor.
// It waits for nothing: a gate or guard that has not exited is not reaped
// here.
func (s *session) close() {
	s.launcher.stdin.close()
	if s.tty != nil {
		if s.tty.released {
			s.returnTerminal()
		}
		s.tty.close()
	}
	if s.launcher.exit >= 0 {
		sys.Close(s.launcher.exit)
	}
	if s.guard != nil {
		// Reached only on a failure between the arming and the end.
		s.guard.Abandon()
	}
	if s.engine != nil && !s.gateGone {
		_, _ = s.engine.Reap(0)
	}
	if s.gate != nil {
		s.gate.Close()
	}
	for _, l := range slices.Backward(s.layers) {
		l.close()
	}
	if s.adopt.on {
		_, _, _ = s.reapAdopted()
	}
	s.sig.release(s.o.Exits)
	if s.adopt.restore != nil {
		s.adopt.restore()
	}
	if !s.o.Exits {
		// A process that exits right after has no later exec to pass
		// them to, and its end may have closed them (package
		// internal/exit): their numbers may name descriptors of ours.
		for _, fd := range s.launcher.inherited {
			_ = sys.ClearCloseOnExec(fd)
		}
	}
	if s.launcher.ctl != nil {
		s.launcher.ctl.close()
	}
}

// forbidden lists the groups the starter must never signal: its own and
// the guard's.
func (s *session) forbidden() []int {
	own, _ := sys.Getpgid(0)
	out := []int{own}
	if s.guard != nil {
		out = append(out, s.guard.PID)
	}
	return out
}

// signalGroup signals group E through the gate's pidfd with
// PIDFD_SIGNAL_PROCESS_GROUP (Linux 6.9), which names E's pid object and
// never its number. Before Linux 6.9 it sends kill(-E), and that is safe
// only while the Engine is this process's unreaped child: the Engine —
// running or a zombie — keeps its PID and the number E allocated, so -E
// cannot name a newer group. The Engine is not reaped early on such a
// kernel (see contain), and after its reap nothing is signalled by
// number.
func (s *session) signalGroup(sig syscall.Signal) error {
	err := sys.GroupSignal(s.gate.Pidfd, sig)
	if !errors.Is(err, sys.ErrNoGroupSignal) {
		return err
	}
	if s.engine.Reaped() {
		return fmt.Errorf("%w: the Engine was reaped; group %d is no longer pinned", end.ErrRefused, s.gate.PID)
	}
	return sys.KillGroup(s.gate.PID, sig)
}
