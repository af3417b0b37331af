package starter

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/rs/zerolog"
	"golang.org/x/sys/unix"

	"github.com/session-starter/session-starter/gate"
	"github.com/session-starter/session-starter/guard"
	"github.com/session-starter/session-starter/internal/cgroup"
	"github.com/session-starter/session-starter/internal/groupend"
	"github.com/session-starter/session-starter/internal/proc"
	"github.com/session-starter/session-starter/internal/sys"
)

// Waits at the end of a session. Both are for processes that have been
// SIGKILLed or told to exit, so they are not expected to be reached.
const (
	// reapWait bounds the wait for the Engine to become reapable after
	// the group end (a member in uninterruptible sleep keeps dying).
	reapWait = 2 * time.Second
	// guardWait bounds the wait for the guard to exit after "finish".
	guardWait = 5 * time.Second
)

// Run holds one session; see the package doc for what it guarantees.
func Run(ctx context.Context, o Options) (Result, error) {
	start := time.Now()
	status := statusFD(-1)
	if o.StatusFD != 0 {
		if err := checkStatusFD(o.StatusFD, o.ControlFD); err != nil {
			return Result{}, fail(ExitUsage, "%v", err)
		}
		status = statusFD(o.StatusFD)
	}
	o.started = func(pid, guard int, mode string) {
		status.write(StatusStarted{Event: "started", PID: pid, PGID: pid, Mode: mode, GuardPID: guard, Time: now()})
	}
	res, err := run(ctx, o)
	res.Duration = time.Since(start)
	status.write(ended(res, err))
	ev := o.Logger.Info().Str("reason", res.Why()).Int("pid", res.PID).
		Bool("executed", res.Executed).Str("mode", res.Mode).
		Int("kill_rounds", res.End.Rounds).Int("survivors", len(res.End.Survivors)+len(res.Escapees.Survivors)).
		Int("escapees", res.Escapees.Seen).
		Dur("group_end", res.End.Elapsed).Dur("duration", res.Duration)
	if res.Executed {
		ev = ev.Str("status", res.Engine.String())
	}
	if res.End.Outcome != 0 {
		ev = ev.Str("group", res.End.Outcome.String())
	}
	if err != nil {
		ev = ev.Err(err)
	}
	ev.Msg("session end")
	return res, err
}

func run(ctx context.Context, o Options) (Result, error) {
	log := o.Logger
	if len(o.Argv) == 0 {
		return Result{}, fail(ExitUsage, "no PROGRAM given")
	}
	budget := o.KillBudget
	if budget <= 0 {
		budget = DefaultKillBudget
	}
	exe := o.Exe
	if exe == "" {
		exe = "/proc/self/exe"
	}
	env := o.Env
	if env == nil {
		env = os.Environ()
	}
	env = slices.DeleteFunc(slices.Clone(env), func(kv string) bool { return strings.HasPrefix(kv, RequestEnv+"=") })

	if o.WatchParent && o.ParentPID == 0 && os.Getpid() == 1 {
		return Result{}, fail(ExitUsage, "--watch-parent without --parent-pid as PID 1: a namespace's init has no parent to watch")
	}
	// The launcher: recorded first, so that a parent gone already is seen.
	parent := os.Getppid()
	watchParent := o.WatchParent || o.ParentPID != 0
	if o.ParentPID != 0 && parent != o.ParentPID {
		return Result{Reason: ReasonParentGone}, nil
	}
	if watchParent && parent <= 1 {
		// PID 1 is taken as a container init and not watched; a launcher
		// that died before we started cannot be told apart.
		log.Debug().Int("ppid", parent).Msg("parent not watched")
		watchParent = false
	}

	program := o.Path
	if program == "" {
		path, pathSet := lookupEnv(env, "PATH")
		var err error
		if program, err = Resolve(o.Argv[0], path, pathSet); err != nil {
			return Result{}, fail(gate.ExitStatusFor(err), "%s: %v", o.Argv[0], err)
		}
	} else if err := executable(program); err != nil {
		return Result{}, fail(gate.ExitStatusFor(err), "%s: %v", program, err)
	}
	if err := proc.SameNamespace(); err != nil {
		return Result{}, fail(ExitContainment, "%v", err)
	}

	inherited, err := inheritedFDs()
	if err != nil {
		return Result{}, fail(ExitContainment, "list inherited descriptors: %v", err)
	}
	var ctl *control
	if o.ControlFD != 0 {
		if ctl, err = openControl(o.ControlFD, inherited); err != nil {
			return Result{}, fail(ExitUsage, "%v", err)
		}
		defer ctl.close()
	}
	// No helper of ours may inherit the launcher's descriptors: mark them
	// close-on-exec in our table (the flag is per table, so the launcher's
	// own descriptors are untouched), and put them back on return.
	for _, fd := range inherited {
		if err := sys.SetCloseOnExec(fd); err != nil {
			return Result{}, fail(ExitContainment, "%v", err)
		}
	}
	defer func() {
		for _, fd := range inherited {
			_, _ = unix.FcntlInt(uintptr(fd), unix.F_SETFD, 0)
		}
	}()
	engineFiles := []int{0, 1, 2}
	for _, fd := range inherited {
		if fd != o.ControlFD && fd != o.StatusFD {
			engineFiles = append(engineFiles, fd)
		}
	}

	// Stop signals. SIGHUP and SIGINT left ignored by the launcher stay
	// ignored: notifying them would replace the ignore, here and in the
	// Engine.
	stops := []os.Signal{syscall.SIGTERM, syscall.SIGQUIT}
	for _, s := range []os.Signal{syscall.SIGHUP, syscall.SIGINT} {
		if !signal.Ignored(s) {
			stops = append(stops, s)
		}
	}
	// Buffered: signal.Notify drops a signal when the channel is full.
	sigCh := make(chan os.Signal, 8)
	signal.Notify(sigCh, stops...)
	defer signal.Stop(sigCh)
	fwdCh := make(chan os.Signal, 16)
	signal.Notify(fwdCh, Forwarded...)
	defer signal.Stop(fwdCh)

	s := &session{log: log, sigCh: sigCh, fwdCh: fwdCh, ctx: ctx, ctl: ctl, budget: budget, timeout: o.Timeout}
	adopting := o.Subreaper || os.Getpid() == 1
	if o.Subreaper {
		restore, err := subreaper()
		if err != nil {
			return Result{}, fail(ExitContainment, "become a subreaper: %v", err)
		}
		defer restore()
	}
	if o.Terminal {
		if s.tty = openTerminal(); s.tty != nil {
			defer s.tty.close()
		}
	}
	s.adopting = adopting
	if adopting || s.tty != nil {
		// Orphans re-parented to us (as a subreaper, or as PID 1 of a PID
		// namespace, as tini and dumb-init are) are reaped as they exit:
		// on each SIGCHLD, by PID. At a terminal SIGCHLD also tells of the
		// Engine's job-control stops.
		s.chldCh = make(chan os.Signal, 1)
		signal.Notify(s.chldCh, syscall.SIGCHLD)
		defer signal.Stop(s.chldCh)
	}
	if adopting {
		defer reapAdopted()
	}
	sweepForbidden := neverSweep(parent)
	stopSig := o.StopSignal
	if stopSig == 0 {
		stopSig = syscall.SIGTERM
	}
	defer s.close()
	if watchParent {
		if err := s.watchParent(parent); err != nil {
			if errors.Is(err, errParentGone) {
				return Result{Reason: ReasonParentGone}, nil
			}
			return Result{}, fail(ExitContainment, "%v", err)
		}
	}

	// The session cgroup, in cgroup mode: made before anything is
	// started, removed by s.close() on every return.
	mode, err := s.holdInCgroup(o.Containment)
	if err != nil {
		return Result{}, err
	}
	procs, err := s.procsFD()
	if err != nil {
		return Result{Mode: mode}, fail(ExitContainment, "%v", err)
	}

	// The gate and the guard start side by side, so that their start-up
	// overlaps; the guard needs only the gate's pidfd, which exists from
	// the fork on. Neither watches or runs anything until it says so.
	s.gate, err = gate.Spawn(gate.Spec{Exe: exe, Path: program, Argv: o.Argv, Env: env, Files: engineFiles, CgroupProcs: procs})
	if procs > 0 {
		sys.Close(procs)
	}
	if err != nil {
		return Result{Mode: mode}, fail(ExitContainment, "%v", err)
	}
	res := Result{PID: s.gate.PID, Timeout: o.Timeout, Mode: mode}
	s.eng = &engine{pid: s.gate.PID, adopting: adopting}
	s.group = engineGroup{groupend.PidfdGroup{Pidfd: s.gate.Pidfd, PGID: s.gate.PID}, s.eng}
	gs := guard.Spec{Exe: exe, GatePidfd: s.gate.Pidfd, PGID: s.gate.PID, Budget: budget}
	if s.tty != nil {
		gs.TTY, gs.TTYGroup = s.tty.fd, s.tty.own
	}
	if s.cg != nil {
		gs.Cgroup, gs.CgroupParent, gs.CgroupName = s.cg.DirFD, s.cg.ParentFD, s.cg.Name
	}
	s.guard, err = guard.Spawn(gs)
	if err == nil {
		s.eng.guard = s.guard.PID
	}
	if err != nil {
		s.guard = nil
		if rerr := s.gate.AwaitReady(); rerr == nil {
			s.endBeforeRelease(false)
		}
		return s.setupFailed(res, err)
	}
	if err := s.gate.AwaitReady(); err != nil {
		s.guard.Abandon()
		s.guard = nil
		s.reaped = true // AwaitReady killed and reaped the gate
		return s.setupFailed(res, err)
	}
	log.Debug().Int("pid", s.gate.PID).Msg("gate ready")
	if s.cg != nil {
		// The gate joined the session cgroup before it said ready; check
		// it from outside before the guard is relied on.
		if err := s.gateJoined(); err != nil {
			s.guard.Abandon()
			s.guard = nil
			s.endBeforeRelease(false)
			return s.setupFailed(res, err)
		}
	}
	if err := s.guard.AwaitArmed(); err != nil {
		s.guard = nil
		s.endBeforeRelease(false)
		return s.setupFailed(res, err)
	}
	log.Debug().Int("pid", s.guard.PID).Msg("guard armed")

	if o.Ack != nil {
		if err := o.Ack(s.gate.PID, mode); err != nil {
			s.endBeforeRelease(false)
			return res, fail(ExitContainment, "write ack: %v", err)
		}
	}
	// A stop that came during setup ends the session with nothing
	// executed.
	if reason, sig := s.pending(); reason != "" {
		res.Reason, res.Signal = reason, sig
		res.End = s.endBeforeRelease(reason == ReasonGuardLost)
		return res, nil
	}
	if s.tty != nil {
		if err := s.tty.handOverTo(s.gate.PID); err != nil {
			log.Warn().Err(err).Msg("the terminal stays with the starter's group")
			s.tty.close()
			s.tty = nil
		} else {
			defer s.returnTerminal()
		}
	}
	if err := s.gate.Release(); err != nil {
		res.End = s.endBeforeRelease(false)
		return res, fail(ExitContainment, "%v", err)
	}
	res.Executed = true
	if o.Released != nil {
		o.Released()
	}
	o.started(s.gate.PID, s.guard.PID, mode)
	log.Debug().Int("pid", s.gate.PID).Msg("engine released")

	res.Reason, res.Signal, res.Engine = s.watch()
	log.Debug().Str("reason", res.Why()).Msg("ending the group")
	hurried, stopHurry := hurry(sigCh)
	stop := groupend.Stop{Signal: stopSig, Grace: o.Grace, Hurry: hurried}
	if s.cg != nil {
		// cgroup.kill first: it reaches the processes that left group E
		// too. Then the group end and the sweep as in group mode: they
		// find only zombies to reap, or a member that left the cgroup.
		res.End = s.endCgroup(stop, budget)
		if r := groupend.End(s.group, budget, s.forbidden()...); r.Outcome != groupend.Empty {
			res.End = r
		}
	} else {
		res.End = groupend.EndAfter(s.group, stop, budget, s.forbidden()...)
	}
	if adopting {
		res.Escapees = s.sweep(stop, budget, append(sweepForbidden, s.forbidden()...))
	}
	stopHurry()
	s.removeCgroup()
	execErr := s.execResult()
	if res.Reason == ReasonGuardLost {
		s.guard.Lost()
	} else if err := s.guard.Finish(guardWait); err != nil {
		log.Warn().Err(err).Msg("guard")
	}
	switch {
	case s.eng.reaped:
		// Reaped during the group end, its status kept.
		res.Engine = s.eng.status
	default:
		if res.Reason != ReasonEngineExit {
			st, err := s.awaitEngine()
			if err != nil {
				return res, fail(ExitContainment, "the Engine could not be reaped: %v", err)
			}
			res.Engine = st
		}
		if _, err := sys.Reap(s.gate.Pidfd); err != nil {
			return res, fail(ExitContainment, "reap the Engine: %v", err)
		}
	}
	s.reaped = true
	if execErr != nil {
		res.Executed = false
		return res, fail(gate.ExitStatusFor(execErr), "%v", execErr)
	}
	return res, nil
}

var errParentGone = errors.New("parent gone")

// Forwarded lists the signals the starter passes on to the Engine's
// group, as tini and dumb-init do; they do not end the session.
var Forwarded = []os.Signal{syscall.SIGUSR1, syscall.SIGUSR2, syscall.SIGWINCH, syscall.SIGCONT, syscall.SIGALRM}

// hurry returns a channel that is closed when a stop signal arrives on
// sigCh during the grace (a second stop goes straight to SIGKILL), and a
// function that ends the goroutine watching sigCh.
func hurry(sigCh <-chan os.Signal) (<-chan struct{}, func()) {
	ch, done, exited := make(chan struct{}), make(chan struct{}), make(chan struct{})
	go func() {
		defer close(exited)
		select {
		case <-sigCh:
			close(ch)
		case <-done:
		}
	}()
	return ch, func() { close(done); <-exited }
}

// session is the state of one Run once the watching starts.
type session struct {
	log      zerolog.Logger
	ctx      context.Context
	sigCh    chan os.Signal  // stop signals
	fwdCh    chan os.Signal  // signals forwarded to the group
	chldCh   chan os.Signal  // SIGCHLD, when adopted orphans are reaped or job control followed
	adopting bool            // children other than the gate and guard are ours to reap
	cg       *cgroup.Session // the session cgroup in cgroup mode, else nil
	tty      *terminal       // the terminal handed to the Engine, or nil
	ctl      *control
	budget   time.Duration
	timeout  time.Duration

	parentFD int // pidfd of the launcher, or -1
	gate     *gate.Gate
	guard    *guard.Guard
	group    engineGroup
	eng      *engine
	execRead bool  // the gate's exec report has been read
	execErr  error // what it said
	reaped   bool
}

func (s *session) close() {
	if s.parentFD > 0 {
		sys.Close(s.parentFD)
	}
	if s.gate != nil {
		if !s.reaped && (s.eng == nil || !s.eng.reaped) {
			// Only reached on a path that ended the group already; the
			// gate is dead or dying and must not stay a zombie.
			_, _ = sys.Reap(s.gate.Pidfd)
		}
		s.gate.Close()
	}
	s.closeCgroup()
}

// watchParent opens a pidfd of the launcher, then checks getppid() again:
// a parent that died before the pidfd was opened has re-parented us by
// then (invariant 8). A pidfd watches the parent process, not the thread
// that forked us, unlike PR_SET_PDEATHSIG (golang/go#27505).
func (s *session) watchParent(parent int) error {
	fd, err := sys.PidfdOpen(parent)
	if errors.Is(err, sys.ErrGone) {
		return errParentGone
	}
	if err != nil {
		return fmt.Errorf("watch parent: %w", err)
	}
	s.parentFD = fd
	if os.Getppid() != parent {
		return errParentGone
	}
	return nil
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

// endBeforeRelease ends a session whose Engine was never executed: the
// gate exits when its go-ahead pipe closes, and its group is ended all the
// same, then the guard is finished.
func (s *session) endBeforeRelease(lost bool) groupend.Report {
	s.gate.Abort()
	if s.cg != nil {
		_, _ = cgroup.KillUntilEmpty(s.cg.DirFD, s.budget, func() { _ = s.group.Signal(syscall.SIGKILL) })
	}
	r := groupend.End(s.group, s.budget, s.forbidden()...)
	s.removeCgroup()
	switch {
	case s.guard == nil:
	case lost:
		s.guard.Lost()
	default:
		if err := s.guard.Finish(guardWait); err != nil {
			s.log.Warn().Err(err).Msg("guard")
		}
	}
	return r
}

// pending reports a stop that is already due, without waiting.
func (s *session) pending() (Reason, syscall.Signal) {
	select {
	case sig := <-s.sigCh:
		return ReasonSignal, sig.(syscall.Signal)
	default:
	}
	if s.ctx.Err() != nil {
		return ReasonCanceled, 0
	}
	// The guard first: an Engine must never be released behind a guard
	// that is gone.
	fds := []unix.PollFd{{Fd: int32(s.guard.Pidfd), Events: unix.POLLIN}}
	if s.parentFD > 0 {
		fds = append(fds, unix.PollFd{Fd: int32(s.parentFD), Events: unix.POLLIN})
	}
	if s.ctl != nil {
		fds = append(fds, unix.PollFd{Fd: int32(s.ctl.fd), Events: s.ctl.events()})
	}
	if _, err := sys.Poll(fds, 0); err != nil {
		return ReasonWatchFailed, 0
	}
	if fds[0].Revents != 0 {
		return ReasonGuardLost, 0
	}
	if s.parentFD > 0 && fds[1].Revents != 0 {
		return ReasonParentGone, 0
	}
	if s.ctl != nil && fds[len(fds)-1].Revents != 0 && s.ctl.ended() {
		return ReasonControlClosed, 0
	}
	return "", 0
}

// Slots of the watch set.
const (
	slotWake = iota
	slotEngine
	slotGuard
	slotReport
	slotParent
	slotControl
	slots
)

// watch waits for the first end condition. It polls the pidfds of the
// Engine, the guard and the launcher, the gate's exec report and the
// control descriptor in one poll call, run by a goroutine so that signals,
// the timeout and ctx can be selected on too; a wake pipe stops that poll.
// Forwarded signals are passed to the group while the poll goes on.
func (s *session) watch() (Reason, syscall.Signal, sys.WaitStatus) {
	wakeR, wakeW, err := sys.Pipe()
	if err != nil {
		// Without a wake pipe the poll cannot be interrupted, and
		// polling with a timeout instead would be a tick: end the session.
		s.log.Error().Err(err).Msg("wake pipe")
		return ReasonWatchFailed, 0, sys.WaitStatus{}
	}
	defer sys.Close(wakeR)
	defer sys.Close(wakeW)

	fds := make([]unix.PollFd, slots)
	for i := range fds {
		fds[i].Fd = -1 // poll ignores negative descriptors
	}
	fds[slotWake] = unix.PollFd{Fd: int32(wakeR), Events: unix.POLLIN}
	fds[slotEngine] = unix.PollFd{Fd: int32(s.gate.Pidfd), Events: unix.POLLIN}
	fds[slotGuard] = unix.PollFd{Fd: int32(s.guard.Pidfd), Events: unix.POLLIN}
	fds[slotReport] = unix.PollFd{Fd: int32(s.gate.ReportFD()), Events: unix.POLLIN}
	if s.parentFD > 0 {
		fds[slotParent] = unix.PollFd{Fd: int32(s.parentFD), Events: unix.POLLIN}
	}
	if s.ctl != nil {
		fds[slotControl] = unix.PollFd{Fd: int32(s.ctl.fd), Events: s.ctl.events()}
	}
	var timeout <-chan time.Time
	if s.timeout > 0 {
		t := time.NewTimer(s.timeout)
		defer t.Stop()
		timeout = t.C
	}

	polled := make(chan error, 1)
	polling := false
	stop := func() {
		if polling {
			_ = sys.WriteAll(wakeW, []byte{0})
			<-polled
			var b [8]byte
			_, _ = sys.Read(wakeR, b[:])
			polling = false
		}
	}
	defer stop()
	for {
		if !polling {
			for i := range fds {
				fds[i].Revents = 0
			}
			go func() {
				_, err := sys.Poll(fds, -1)
				polled <- err
			}()
			polling = true
		}
		var perr error
		select {
		case sig := <-s.sigCh:
			return ReasonSignal, sig.(syscall.Signal), sys.WaitStatus{}
		case sig := <-s.fwdCh:
			s.forward(sig.(syscall.Signal))
			continue
		case <-s.chldCh:
			// Without adopting, any other child of this process is the
			// caller's to reap.
			if s.adopting {
				if n := reapAdopted(s.gate.PID, s.guard.PID); n > 0 {
					s.log.Debug().Int("reaped", n).Msg("adopted children")
				}
			}
			if s.tty != nil && engineStopped(s.gate.Pidfd) {
				s.followStop()
			}
			continue
		case <-timeout:
			return ReasonTimeout, 0, sys.WaitStatus{}
		case <-s.ctx.Done():
			return ReasonCanceled, 0, sys.WaitStatus{}
		case perr = <-polled:
			polling = false
		}
		if perr != nil {
			s.log.Error().Err(perr).Msg("watch")
			return ReasonWatchFailed, 0, sys.WaitStatus{}
		}
		if fds[slotReport].Revents != 0 {
			s.readExecResult()
			fds[slotReport].Fd = -1
		}
		if fds[slotEngine].Revents != 0 {
			st, exited, err := sys.Peek(s.gate.Pidfd)
			if err != nil {
				s.log.Error().Err(err).Msg("peek at the Engine")
			}
			if exited {
				return ReasonEngineExit, 0, st
			}
		}
		if fds[slotGuard].Revents != 0 {
			return ReasonGuardLost, 0, sys.WaitStatus{}
		}
		if fds[slotParent].Revents != 0 {
			return ReasonParentGone, 0, sys.WaitStatus{}
		}
		if fds[slotControl].Revents != 0 && s.ctl.ended() {
			return ReasonControlClosed, 0, sys.WaitStatus{}
		}
	}
}

// followStop follows a job-control stop of the Engine (Ctrl-Z): it takes
// the terminal back and stops this process too, so that the shell sees its
// job stopped; when continued (fg), it gives the terminal back to the
// Engine's group if it got it, and continues that group.
func (s *session) followStop() {
	s.log.Debug().Msg("the Engine stopped; stopping too")
	if err := s.tty.takeBack(); err != nil {
		s.log.Warn().Err(err).Msg("take the terminal back")
	}
	stopSelf()
	// Continued. With fg the shell gave us the terminal: pass it on.
	if s.tty.foreground() {
		if err := s.tty.give(s.gate.PID); err != nil {
			s.log.Warn().Err(err).Msg("give the terminal to the Engine")
		}
	}
	s.forward(syscall.SIGCONT)
}

// returnTerminal takes the terminal back at the end of the session if
// the Engine's group still has it.
func (s *session) returnTerminal() {
	if fg, err := unix.IoctlGetInt(s.tty.fd, unix.TIOCGPGRP); err == nil && fg == s.gate.PID {
		if err := s.tty.takeBack(); err != nil {
			s.log.Warn().Err(err).Msg("take the terminal back")
		}
	}
}

// forward passes sig to the Engine's group. The group is pinned by the
// Engine, still the starter's unreaped child (see engineGroup).
func (s *session) forward(sig syscall.Signal) {
	err := s.group.Signal(sig)
	s.log.Debug().Str("signal", sys.SignalName(sig)).Err(err).Msg("forwarded")
}

// setupFailed ends Run after the gate or the guard failed before the
// go-ahead. A stop signal that is already pending explains the failure
// (Ctrl-C at a terminal reaches a gate still in our group, between its
// fork and its setpgid): then it is a stop before the go-ahead, and the
// starter dies of that signal; else a containment failure.
func (s *session) setupFailed(res Result, err error) (Result, error) {
	select {
	case sig := <-s.sigCh:
		res.Reason, res.Signal = ReasonSignal, sig.(syscall.Signal)
		return res, nil
	default:
		return res, fail(ExitContainment, "%v", err)
	}
}

// readExecResult reads the gate's exec report once it is readable.
func (s *session) readExecResult() {
	if !s.execRead {
		s.execRead = true
		s.execErr = s.gate.ExecResult()
	}
}

// execResult returns the exec report after the group end, when the gate
// has executed the Engine or exited: its report is readable (a message or
// end of file) and reading it cannot block. If it is somehow not readable
// yet, no exec failure was seen.
func (s *session) execResult() error {
	if !s.execRead {
		fds := []unix.PollFd{{Fd: int32(s.gate.ReportFD()), Events: unix.POLLIN}}
		if n, err := sys.Poll(fds, 0); err == nil && n > 0 {
			s.readExecResult()
		}
	}
	return s.execErr
}

// awaitEngine waits, bounded, for the SIGKILLed Engine to become a zombie
// and returns its status without reaping it.
func (s *session) awaitEngine() (sys.WaitStatus, error) {
	fds := []unix.PollFd{{Fd: int32(s.gate.Pidfd), Events: unix.POLLIN}}
	if _, err := sys.Poll(fds, reapWait); err != nil {
		return sys.WaitStatus{}, err
	}
	st, exited, err := sys.Peek(s.gate.Pidfd)
	if err != nil {
		return st, err
	}
	if !exited {
		return st, fmt.Errorf("pid %d still running %v after the group end", s.gate.PID, reapWait)
	}
	return st, nil
}
