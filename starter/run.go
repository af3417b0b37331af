//go:build darwin || freebsd || linux || windows

package starter

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/session-starter/session-starter/internal/mark"
	"github.com/session-starter/session-starter/internal/sys"
	"github.com/session-starter/session-starter/internal/wire"
	"github.com/session-starter/session-starter/starter/launch"
)

// Run holds one session; see the package doc for what it guarantees.
func Run(ctx context.Context, o Options) (Result, error) {
	start := time.Now()
	status, err := openStatus(o)
	if err != nil {
		return Result{}, fail(wire.ExitUsage, "%w", err)
	}
	// The records are built only for a status descriptor: their time
	// stamps load the local time zone. Where the guard is the job
	// (Windows), guard is 0.
	o.started = func(pid, guard int, mode, session string, argv []string) {
		if status.on() {
			status.write(launch.StatusStarted{Event: "started", PID: pid, PGID: pid, Mode: mode, GuardPID: guard, Time: now(), Session: session, Argv: argv})
		}
	}
	res, err := run(ctx, o)
	var st stop
	if errors.As(err, &st) {
		res.Reason, res.Signal, res.why, err = st.reason, st.signal, st.why, nil
	}
	res.Duration = time.Since(start)
	if status.on() {
		status.write(ended(res, err))
	}
	ev := o.Logger.Info().Str("reason", res.Why()).Int("pid", res.PID).
		Bool("executed", res.Executed).Str("mode", res.Mode).
		Int("kill_rounds", res.End.Rounds).Int("survivors", len(res.End.Survivors))
	ev = ev.Int("escapees", res.End.EscapeesSeen).Dur("end", res.End.Elapsed).Dur("duration", res.Duration)
	if res.Executed {
		ev = ev.Str("status", res.Engine.String())
	}
	if res.End.Outcome != 0 {
		ev = ev.Str("outcome", res.End.Outcome.String())
	}
	if err != nil {
		ev = ev.Err(err)
	}
	ev.Msg("session end")
	return res, err
}

// run refuses a request without PROGRAM, then holds one session in six
// steps: prepare (check the request, take the launcher's descriptors or
// handles and the signals), contain (what holds the session and the
// Engine, not yet executing), release (the ack, then the go-ahead), watch
// (until the first end condition), end (every holder, one deadline) and
// collect (what the end left to read, and the Engine's status). A step
// that fails before the release ends what contain started, through
// abort; close undoes prepare, in one fixed order, on every return, a
// failed prepare's too. A step ended by a stop returns it as its error,
// and Run makes it the result's reason. Each platform implements the
// steps.
func run(ctx context.Context, o Options) (Result, error) {
	if len(o.Argv) == 0 {
		return Result{}, fail(wire.ExitUsage, "no PROGRAM given")
	}
	s, err := prepare(o)
	if s != nil {
		defer s.close()
	}
	if err != nil {
		return Result{}, err
	}
	res := Result{Timeout: o.Timeout}
	if err := s.contain(&res); err != nil {
		return s.abort(res, err)
	}
	if err := s.release(ctx, &res); err != nil {
		return s.abort(res, err)
	}
	reason, sig, st := s.watch(ctx)
	res.Reason, res.Signal, res.Engine = reason, sig, statusOf(st)
	res.End = s.end(res)
	return s.collect(res)
}

// release writes the ack and gives the go-ahead (goAhead), unless a stop
// came during setup: then the session ends with nothing executed.
func (s *session) release(ctx context.Context, res *Result) error {
	if s.o.Ack != nil {
		if err := s.o.Ack(res.PID, res.Mode); err != nil {
			return fail(wire.ExitContainment, "write ack: %w", err)
		}
	}
	if reason, sig := s.pending(ctx); reason != "" {
		return stop{reason: reason, signal: sig}
	}
	guard, argv, err := s.goAhead()
	if err != nil {
		return fail(wire.ExitContainment, "%w", err)
	}
	res.Executed = true
	if s.o.Released != nil {
		s.o.Released()
	}
	s.o.started(res.PID, guard, res.Mode, s.markString(), argv)
	s.log.Debug().Int("pid", res.PID).Msg("engine released")
	return nil
}

// end is the step that ends the session once the Engine was released,
// for the reason in res: every holder under the session's plan, the stop
// signal and the grace first; or, when the Engine exited under
// ReleaseOnExit (not on Windows), a release of what it left.
func (s *session) end(res Result) End {
	if res.Reason == ReasonEngineExit && s.o.ReleaseOnExit {
		s.log.Debug().Msg("releasing what the Engine left")
		return s.releaseLeft()
	}
	s.log.Debug().Str("reason", res.Why()).Msg("ending the session")
	plan := s.ending
	plan.Stopped = res.Reason == ReasonSignal
	return s.endHolders(plan)
}

// pending reports a stop that is already due, without waiting: a stop
// signal, ctx's end, or an end condition of the platform's (due).
func (s *session) pending(ctx context.Context) (Reason, syscall.Signal) {
	select {
	case sig := <-s.sig.stops:
		return ReasonSignal, sig.(syscall.Signal)
	default:
	}
	if ctx.Err() != nil {
		return ReasonCanceled, 0
	}
	return s.due(), 0
}

// stop is a session ended before the go-ahead by one of its end
// conditions: nothing was executed, and that is no failure of Run.
type stop struct {
	reason Reason
	signal syscall.Signal
	// why, if set, says more than the reason (Result.why).
	why string
}

func (s stop) Error() string { return "stopped before the go-ahead: " + string(s.reason) }

var errParentGone = stop{reason: ReasonParentGone}

// engineEnv is the Engine's environment: env, the launcher's, without
// launch.RequestEnv, and with the session's mark unless noMark.
func engineEnv(env []string, noMark bool) ([]string, *mark.ID, error) {
	env = slices.DeleteFunc(slices.Clone(env), func(kv string) bool {
		k, _, _ := strings.Cut(kv, "=")
		return sys.SameEnvKey(k, launch.RequestEnv)
	})
	if noMark {
		return env, nil, nil
	}
	id, err := mark.New()
	if err != nil {
		return nil, nil, fail(wire.ExitContainment, "%w", err)
	}
	return mark.Extend(env, id), &id, nil
}

// markString is the session's id, or "" without the mark.
func (s *session) markString() string {
	if s.mark == nil {
		return ""
	}
	return s.mark.String()
}

// statusOut is the descriptor (on Windows, the handle) the launcher
// passed for the status records, or 0 for none.
type statusOut int

// openStatus is the status descriptor o names, checked, or 0 for none.
func openStatus(o Options) (statusOut, error) {
	if o.StatusFD == 0 {
		return 0, nil
	}
	if err := checkStatusFD(o.StatusFD, o.ControlFD); err != nil {
		return 0, err
	}
	return statusOut(o.StatusFD), nil
}

// on reports whether out is a status descriptor, not none.
func (out statusOut) on() bool { return out != 0 }

// write writes v as one line of JSON; Run calls it only when on.
func (out statusOut) write(v any) {
	if b, err := json.Marshal(v); err == nil {
		writeStatus(int(out), append(b, '\n'))
	}
}
