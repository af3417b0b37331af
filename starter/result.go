package starter

import (
	"fmt"
	"syscall"
	"time"

	"github.com/session-starter/session-starter/internal/end"
	"github.com/session-starter/session-starter/internal/sys"
	"github.com/session-starter/session-starter/starter/launch"
)

// Status is how a process ended: it exited with a code, or a signal ended
// it.
type Status struct {
	// Exited is true when the process called exit; Code is then its exit
	// status (on Windows, its exit code: any 32-bit value).
	Exited bool
	Code   int
	// Signal is the signal that ended the process when Exited is false.
	Signal syscall.Signal
	// CoreDumped is set when it dumped core.
	CoreDumped bool
}

// String says it as a shell would: "exit status 3", "signal KILL",
// "signal SEGV (core dumped)".
func (s Status) String() string {
	if s.Exited {
		return fmt.Sprintf("exit status %d", s.Code)
	}
	if s.CoreDumped {
		return fmt.Sprintf("signal %s (core dumped)", sys.SignalName(s.Signal))
	}
	return "signal " + sys.SignalName(s.Signal)
}

// End is the report of a session's end: every holder of the session under
// one deadline (grace + kill budget).
type End struct {
	Outcome launch.Outcome
	// Rounds counts the rounds of SIGKILL that reached a holder (on
	// Windows, of TerminateJobObject).
	Rounds int
	// MembersSeen is the largest number of live processes one look at
	// the Engine's group, the session cgroup or the job found after the
	// first signal: a lower bound of what was ended.
	MembersSeen int
	// EscapeesSeen is the largest number of adopted processes that had
	// left the group, alive at one look: a lower bound.
	EscapeesSeen int
	// Graceful is set when every holder emptied within the grace, after
	// the stop signal, without SIGKILL.
	Graceful bool
	// Survivors names the processes still live at the deadline, each
	// once, when Outcome is Survivors.
	Survivors []launch.Survivor
	// Err says why the outcome is not Empty: a holder's error, or the
	// reason for a refusal.
	Err error
	// Elapsed is the time the end took.
	Elapsed time.Duration
	// Released lists, when Outcome is Released, the live processes the
	// Engine left (group E's members, the adopted escapees, the session
	// cgroup's), found as it exited; they stay.
	Released []int
}

// Describe is a one-line account of an end that is not Empty, for
// session-starter's stderr: the outcome, its reason, and the survivors
// with PID, uid, state and command name.
func (e End) Describe() string { return end.Describe(e.Outcome, e.Err, e.Survivors) }

// statusOf is the public form of a wait status.
func statusOf(ws sys.WaitStatus) Status {
	return Status{Exited: ws.Exited, Code: ws.Code, Signal: ws.Signal, CoreDumped: ws.CoreDumped}
}

// endOf is the public form of the end's report. An outcome the end does
// not return (Released, or one past it) is reported as Refused, which
// exits 125: never taken for an empty end.
func endOf(r end.Report) End {
	e := End{
		Outcome:      r.Outcome,
		Rounds:       r.Rounds,
		MembersSeen:  r.Members,
		EscapeesSeen: r.Seen[end.KindEscapees],
		Graceful:     r.Graceful,
		Err:          r.Err,
		Elapsed:      r.Elapsed,
		Survivors:    end.Survivors(r.Survivors),
	}
	if r.Outcome < 0 || r.Outcome > launch.Refused {
		e.Outcome = launch.Refused
		e.Err = fmt.Errorf("the end's outcome %v is not one an end returns (%v)", r.Outcome, r.Err)
	}
	return e
}
