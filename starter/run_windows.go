package starter

// On Windows the session is held by a kill-on-close job object (package
// winjob): the job is the gate and the guard at once. The Engine is
// created suspended inside it, the ack is written, and only then is its
// first thread resumed; if this process ends in any way, the system
// closes the job's last handle and ends every process in it.

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/signal"
	"slices"
	"syscall"
	"time"

	"github.com/rs/zerolog"

	"github.com/session-starter/session-starter/internal/end"
	"github.com/session-starter/session-starter/internal/mark"
	"github.com/session-starter/session-starter/internal/sys"
	"github.com/session-starter/session-starter/internal/winjob"
	"github.com/session-starter/session-starter/internal/wire"
	"github.com/session-starter/session-starter/starter/launch"
)

// terminateCode is the exit code TerminateJobObject gives the processes
// it ends, the Engine included when the session ends for another reason
// than its exit: 1, as a program that failed.
const terminateCode = 1

// Waits at the end of a session, for processes that were terminated, so
// they are not expected to be reached.
const (
	// reapWait bounds the wait for the terminated Engine's handle to be
	// signalled.
	reapWait = 2 * time.Second
	// readerWait bounds the wait for the control reader to leave its
	// cancelled read.
	readerWait = time.Second
)

// ExplainContainment says which mode a session held as c asks would get
// here, deciding as Run does: a job, for auto; any other mode is a usage
// error. why is always nil: there is no fallback.
func ExplainContainment(c launch.Containment) (mode string, why, err error) {
	if c != "" && c != launch.ContainAuto {
		return "", nil, fail(wire.ExitUsage, "--containment %s: Linux only; Windows holds the session in a job", c)
	}
	return wire.ModeJob, nil, nil
}

// ExplainLimits says whether Run would enforce lim here, through the
// session's job: MaxTasks as its ActiveProcessLimit (processes, not
// threads), MaxMemory as its JobMemoryLimit (memory committed), MaxCPU
// as a hard cap of its CPU rate. There is no swap bound and no cgroup;
// and under Wine, which enforces no job limit, every limit is refused
// rather than set for show.
func ExplainLimits(lim launch.Limits, parent string) (move bool, err error) {
	if err := checkLimits(lim); err != nil {
		return false, err
	}
	switch {
	case parent != "":
		return false, fail(wire.ExitContainment, "--cgroup-parent: cgroups are Linux's; a Windows session is held by its job")
	case lim.MaxSwap > 0:
		return false, fail(wire.ExitContainment, "--max-swap: a Windows job has no swap bound (--max-memory bounds committed memory, page file included)")
	case needsCgroup(lim) && sys.UnderWine():
		return false, fail(wire.ExitContainment, "limits: Wine enforces no job limit (ActiveProcessLimit, JobMemoryLimit, CPU rate control), so none is set for show")
	}
	return false, nil
}

// prepare checks the request and takes what the session needs of this
// process: the Engine's program, command line and environment (with the
// mark), the control handle, the stop signals and the launcher's handle.
// Nothing is started. Once it has taken something, it returns the
// session with its error, for run to close.
func prepare(o Options) (*session, error) {
	if _, _, err := ExplainContainment(o.Containment); err != nil {
		return nil, err
	}
	s := &session{o: o, log: o.Logger, ending: end.Plan{Stop: winjob.Stop, Grace: o.Grace, Budget: o.KillBudget}}
	if o.ReleaseOnExit {
		return nil, fail(wire.ExitUsage, "--release-on-exit: not supported on Windows")
	}
	if o.Containers {
		return nil, fail(wire.ExitUsage, "--containers: not supported on Windows")
	}
	if _, err := ExplainLimits(o.Limits, o.CgroupParent); err != nil {
		return nil, err
	}
	env := o.Env
	if env == nil {
		env = os.Environ()
	}
	var err error
	if s.spec.Env, s.mark, err = engineEnv(env, o.NoMark); err != nil {
		return nil, err
	}

	if o.WatchStdin {
		return nil, fail(wire.ExitUsage, "--watch-stdin: not on Windows yet: %w", errors.ErrUnsupported)
	}
	parent := os.Getppid()
	watchParent := o.WatchParent || o.ParentPID != 0 || o.Stdio // Stdio: no stdin watch here yet
	if o.ParentPID != 0 && parent != o.ParentPID {
		return nil, errParentGone
	}
	if watchParent && parent == 0 {
		// No parent ID was recorded for this process (a parent that is
		// not a Windows process, under Wine say): nothing to watch, as a
		// launcher that died before we started cannot be told apart.
		s.log.Debug().Msg("parent not watched: no parent process ID")
		watchParent = false
	}

	s.program = o.Path
	if s.program == "" {
		if s.program, err = sys.Resolve(o.Argv[0], s.spec.Env); err != nil {
			return nil, fail(wire.ExitNotFound, "%s: %w", o.Argv[0], err)
		}
	} else if err := sys.Executable(s.program); err != nil {
		return nil, fail(wire.ExitNotFound, "%s: %w", s.program, err)
	}
	if s.spec.App, s.spec.CmdLine, err = commandLine(s.program, o.Argv); err != nil {
		return nil, fail(wire.ExitCannotExecute, "%s: %w", o.Argv[0], err)
	}

	// From here on, the session is returned with an error too: run's
	// close undoes what was taken.
	if o.ControlFD != 0 {
		if s.ctl, err = openControl(o.ControlFD); err != nil {
			return s, fail(wire.ExitUsage, "%w", err)
		}
	}
	// Go's runtime turns the console's control events into signals:
	// Ctrl-C and Ctrl-Break into os.Interrupt, closing the console,
	// logoff and shutdown into SIGTERM (and then holds the event until
	// this process exits, within the few seconds Windows grants).
	// Buffered: signal.Notify drops a signal when the channel is full.
	s.sig.stops = make(chan os.Signal, 8)
	signal.Notify(s.sig.stops, os.Interrupt, syscall.SIGTERM)
	s.ending.Hurry = s.sig.stops

	if watchParent {
		// Checked once more once the handle is open, as on Linux.
		s.parent, err = openParent(parent)
		if err == nil && (signalled(s.parent) || os.Getppid() != parent) {
			err = errParentGone
		}
		if errors.Is(err, errParentGone) {
			return s, err
		}
		if err != nil {
			return s, fail(wire.ExitContainment, "%w", err)
		}
	}
	return s, nil
}

// contain makes the session's job, with its limits, and creates the
// Engine suspended in it. The job is the gate and the guard at once.
func (s *session) contain(res *Result) error {
	var err error
	if s.job, err = winjob.New(); err != nil {
		return fail(wire.ExitContainment, "%w", err)
	}
	res.Mode = wire.ModeJob
	if s.o.Limits.Any() {
		// Before the Engine joins: the job holds nothing yet.
		if err := s.job.Limit(s.o.Limits); err != nil {
			return fail(wire.ExitContainment, "limits: %w", err)
		}
	}

	// The control and status handles are not the Engine's: it inherits
	// every other inheritable handle, as without session-starter.
	for _, h := range []int{s.o.ControlFD, s.o.StatusFD} {
		if h != 0 {
			restore, err := noInherit(sys.Handle(h))
			if err != nil {
				return fail(wire.ExitContainment, "%w", err)
			}
			s.restore = append(s.restore, restore)
		}
	}
	stdio, closeStdio := inheritableStdio()
	spec := s.spec
	spec.Stdin, spec.Stdout, spec.Stderr = stdio[0], stdio[1], stdio[2]
	// CREATE_NEW_PROCESS_GROUP: the Engine leads a console process group
	// that CTRL_BREAK_EVENT can be sent to (--grace); the system then
	// disables Ctrl-C in the Engine until it enables it itself. Without a
	// console of ours, CREATE_NO_WINDOW keeps a console Engine from
	// opening a window; it then has a console of its own, which no
	// control event of ours reaches.
	spec.Flags = uint32(sys.CREATE_NEW_PROCESS_GROUP)
	if !sys.HasConsoleWindow() {
		spec.Flags |= sys.CREATE_NO_WINDOW
	}
	s.eng, err = s.job.StartSuspended(spec)
	closeStdio()
	if err != nil {
		return fail(startStatus(err), "%s: %w", s.program, err)
	}
	res.PID = s.eng.PID
	s.log.Debug().Int("pid", s.eng.PID).Bool("job_list_attribute", s.eng.ViaAttribute).Msg("engine created suspended in the job")
	return nil
}

// goAhead resumes the Engine's first thread. The job is the guard: the
// started record names none.
func (s *session) goAhead() (guard int, argv []string, err error) {
	return 0, nil, s.eng.Resume()
}

// abort ends a session whose Engine was never resumed, after contain or
// release failed or a stop came first: the job, with nothing executed in
// it, is ended without grace.
func (s *session) abort(res Result, err error) (Result, error) {
	if s.eng != nil {
		res.End = s.endHolders(end.Plan{Budget: s.ending.Budget})
	}
	return res, err
}

// releaseLeft is never reached here: prepare refuses ReleaseOnExit. If
// it were, Refused would fail the session rather than pass for an end.
func (s *session) releaseLeft() End { return End{Outcome: launch.Refused} }

// collect reads the job's accounting and the Engine's exit code once its
// handle is signalled, waiting up to reapWait for a terminated Engine.
func (s *session) collect(res Result) (Result, error) {
	res.Usage, _ = s.job.Usage()
	ev, err := sys.WaitForSingleObject(s.eng.Handle, uint32(reapWait/time.Millisecond))
	if err == nil && ev != sys.WAIT_OBJECT_0 {
		err = fmt.Errorf("pid %d still running %v after the job was terminated", s.eng.PID, reapWait)
	}
	var code uint32
	if err == nil {
		code, err = s.eng.ExitCode()
	}
	if err != nil {
		return res, fail(wire.ExitContainment, "%w", err)
	}
	res.Engine = statusOf(sys.WaitStatus{Exited: true, Code: int(code)})
	return res, nil
}

// startStatus is the exit status for a failed start of the Engine: 125
// when it could not be put into the job, 127 when the program is gone,
// else 126.
func startStatus(err error) int {
	switch {
	case errors.Is(err, winjob.ErrNotInJob):
		return wire.ExitContainment
	case errors.Is(err, fs.ErrNotExist):
		return wire.ExitNotFound
	}
	return wire.ExitCannotExecute
}

// session is the state of one Run.
type session struct {
	o      Options
	log    zerolog.Logger
	mark   *mark.ID // the session's id in the mark, unless NoMark
	ending end.Plan // CTRL_BREAK_EVENT and the grace, then the kill budget

	// prepare
	program string      // the Engine's program, as messages name it
	spec    winjob.Spec // its command line and environment
	sig     signals
	ctl     *control
	parent  sys.Handle // SYNCHRONIZE handle of the launcher, or 0

	// contain
	job     *winjob.Job
	eng     *winjob.Process
	restore []func() // put back the inherit flags noInherit cleared
}

// close undoes what the session took, in one order: the inherit flags,
// the signals, the control handle, the launcher's handle, the Engine's
// handles and the job. It waits for nothing.
func (s *session) close() {
	for _, restore := range slices.Backward(s.restore) {
		restore()
	}
	if s.sig.stops != nil {
		signal.Stop(s.sig.stops)
	}
	if s.ctl != nil {
		s.ctl.close()
	}
	sys.CloseHandles(&s.parent)
	if s.eng != nil {
		s.eng.Close()
	}
	if s.job != nil {
		// Reached after the end, with the job empty; if it is not, its
		// last handle closing ends what is left.
		s.job.Close()
	}
}

// openParent opens a SYNCHRONIZE handle to process pid, the launcher.
// Windows hands out process IDs again quickly, and keeps naming a parent
// that exited in its children's records: the process opened must have
// been created before this one, else it got a reused ID and the launcher
// is gone (errParentGone).
func openParent(pid int) (sys.Handle, error) {
	h, err := sys.OpenProcess(sys.SYNCHRONIZE|sys.PROCESS_QUERY_LIMITED_INFORMATION, pid)
	if errors.Is(err, sys.ErrGone) {
		return 0, errParentGone // no process with that ID
	}
	if err != nil {
		return 0, fmt.Errorf("watch parent: %w", err)
	}
	born, err := sys.ProcessCreationTime(h)
	var self int64
	if err == nil {
		self, err = sys.ProcessCreationTime(sys.CurrentProcess())
	}
	switch {
	case err != nil:
		err = fmt.Errorf("watch parent: %w", err)
	case born > self:
		err = errParentGone
	}
	if err != nil {
		_ = sys.CloseHandle(h)
		return 0, err
	}
	return h, nil
}

// signalled reports whether h is signalled now, without waiting.
func signalled(h sys.Handle) bool {
	ev, err := sys.WaitForSingleObject(h, 0)
	return err == nil && ev == sys.WAIT_OBJECT_0
}

// signals are the signals a session takes here: the stop signals.
type signals struct{ stops chan os.Signal }

// due is the end condition of pending that is no stop signal: the
// launcher's exit or the control handle's end of input, or "".
func (s *session) due() Reason {
	if s.parent != 0 && signalled(s.parent) {
		return ReasonParentGone
	}
	if s.ctl != nil {
		select {
		case <-s.ctl.done:
			return ReasonControlClosed
		default:
		}
	}
	return ""
}

// watch waits for the first end condition: the Engine's or the
// launcher's handle signalled (one WaitForMultipleObjects in a goroutine,
// stopped by an event of its own), the control handle at end of input, a
// stop signal, the timeout or ctx. The Engine's exit code is read by
// collect, once the job has ended: the status returned is zero.
func (s *session) watch(ctx context.Context) (Reason, syscall.Signal, sys.WaitStatus) {
	wake, err := sys.CreateEvent()
	if err != nil {
		s.log.Error().Err(err).Msg("wake event")
		return ReasonWatchFailed, 0, sys.WaitStatus{}
	}
	defer sys.CloseHandle(wake)
	handles := []sys.Handle{wake, s.eng.Handle}
	if s.parent != 0 {
		handles = append(handles, s.parent)
	}
	waited := make(chan Reason, 1)
	go func() {
		ev, err := sys.WaitForMultipleObjects(handles, false, sys.INFINITE)
		switch {
		case err != nil:
			s.log.Error().Err(err).Msg("watch")
			waited <- ReasonWatchFailed
		case ev == sys.WAIT_OBJECT_0+1:
			waited <- ReasonEngineExit
		case ev == sys.WAIT_OBJECT_0+2:
			waited <- ReasonParentGone
		default:
			waited <- "" // woken
		}
	}()
	var why Reason
	var sig syscall.Signal
	var timeout <-chan time.Time
	if s.o.Timeout > 0 {
		t := time.NewTimer(s.o.Timeout)
		defer t.Stop()
		timeout = t.C
	}
	var ctlDone <-chan struct{}
	if s.ctl != nil {
		ctlDone = s.ctl.done
	}
	select {
	case why = <-waited:
		return why, 0, sys.WaitStatus{}
	case v := <-s.sig.stops:
		why, sig = ReasonSignal, v.(syscall.Signal)
	case <-ctlDone:
		why = ReasonControlClosed
	case <-timeout:
		why = ReasonTimeout
	case <-ctx.Done():
		why = ReasonCanceled
	}
	_ = sys.SetEvent(wake)
	<-waited
	return why, sig, sys.WaitStatus{}
}

// endHolders ends every process of the job, the Engine included, as
// package end ends any holder, within one deadline of grace + budget. With a grace it
// first sends CTRL_BREAK_EVENT to the Engine's process group; that needs
// a console shared with the Engine, and where the event cannot be sent
// the grace is skipped. Then TerminateJobObject, again each round, until
// the job's completion port tells it is empty or the deadline passes.
// The session's stop signals hurry it (plan.Stopped: one began the end).
func (s *session) endHolders(plan end.Plan) End {
	r := end.End([]end.Holder{&winjob.Holder{Job: s.job, Group: s.eng.PID, Code: terminateCode}}, plan)
	if r.Unsent != nil {
		s.log.Info().Err(r.Unsent).Msg("no CTRL_BREAK_EVENT could be sent (no shared console); terminating without grace")
	}
	return endOf(r)
}
