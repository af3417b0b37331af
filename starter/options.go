package starter

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"syscall"
	"time"

	"github.com/rs/zerolog"

	"github.com/session-starter/session-starter/internal/sys"
	"github.com/session-starter/session-starter/internal/wire"
	"github.com/session-starter/session-starter/starter/launch"
)

// Options describe one session.
type Options struct {
	// Argv is the Engine's command line; Argv[0] is PROGRAM, resolved
	// with execvp semantics against PATH of Env, unless Path is set.
	Argv []string
	// Path, when set, is the Engine's program, used as it is; Argv[0] is
	// then only the Engine's argv[0] (a login shell's "-sh", say).
	Path string
	// Env is the Engine's environment; nil means this process's own.
	// [launch.RequestEnv] is removed from it either way, and the session
	// mark is added (see NoMark). On Linux, a LISTEN_PID that names this
	// process (socket activation) is set to the Engine's PID by the raw
	// gate, and LISTEN_PIDFDID, if present, to the inode number of the
	// Engine's pidfd.
	Env []string
	// NoMark leaves the session mark out of the Engine's environment.
	// Without it every session adds its id, 32 hexadecimal digits, to
	// [launch.SessionVar] (SESSION_STARTER_SESSION) — the variable is set
	// to the id, or the inherited value is extended with ":" and the id —
	// and that is the one change to the environment a direct launch would
	// give. Every descendant inherits it unless it scrubs its environment;
	// it is how the guard finds, after a SIGKILL of the starter, the
	// processes that left group E (verified through a pidfd, never by
	// number alone), and how a nested session or a contained call knows it
	// runs under a session. With NoMark those are off.
	NoMark bool
	// Containers makes a `docker run` or `podman run` Engine's container
	// the session's: the container gets a label with the session's id,
	// and every end stops it through the same engine, with the grace,
	// before anything is signalled (package internal/dockercli says
	// which command lines it takes; others are a usage error). It needs
	// the mark. Not on Windows.
	Containers bool
	// ReleaseOnExit ends nothing when the Engine exits on its own: what
	// it left running stays, listed in [End.Released] (Outcome
	// [launch.Released]), for the enclosing session to end, and the guard
	// is told to let it be. Every other end (a stop signal, the parent's
	// loss, the control descriptor, the timeout) ends the whole session
	// as always. It needs an enclosing session — the session mark
	// inherited in the Engine's environment — so that nothing released
	// outlives every session; without one, Run refuses (a usage error),
	// and so it does where orphans cannot be adopted (macOS, and the
	// Linux build tagged portable).
	// This is the form of a contained call for an Engine in any language:
	// one session per call, nested in the Engine's. Not on Windows.
	ReleaseOnExit bool
	// WatchParent ends the session when the parent process is gone.
	WatchParent bool
	// ParentPID is the launcher's PID; nonzero implies WatchParent, and a
	// parent other than ParentPID at start means it is gone already.
	ParentPID int
	// WatchStdin ends the session when the launcher's end of the
	// Engine's standard input is gone: its last writer closed a pipe, or
	// the peer of a stream socket shut down — what an MCP client's exit
	// always does, through wrapper shells and npx chains that
	// WatchParent cannot see past. Standard input must then be a pipe or
	// FIFO that no descriptor passed writes to, or a connected stream
	// socket (Linux), else Run fails with wire.ExitUsage. Run keeps a
	// duplicate of it, never reads it and never changes its flags, and
	// polls it for the hang-up only: data the Engine has not read wakes
	// nothing. On the hang-up the Engine, which sees the same end of
	// input, gets StdinGrace to exit by itself (its own status is then
	// mirrored, and nothing is signalled); then the session ends as on
	// any stop (Grace, SIGKILL rounds), ReasonStdinClosed. A hang-up
	// before the go-ahead is one like any other: the Engine runs, and
	// reads what was written before it, within StdinGrace. While Run
	// holds the duplicate, a launcher writing to a dead Engine gets EPIPE
	// only once the session's holders are empty and Run has closed it.
	WatchStdin bool
	// StdinGrace is the Engine's own time after the hang-up of its
	// standard input; 0 means [launch.DefaultStdinGrace].
	StdinGrace time.Duration
	// Stdio is for an Engine that serves its launcher over its standard
	// input and output: an MCP or ACP server, a language server. It
	// implies WatchParent, and WatchStdin where standard input can tell
	// the launcher's end. Where it cannot (a terminal, /dev/null, a
	// file, a listening or datagram socket; on Windows any), standard
	// input is not watched, and that is no error. Nor is a parent that
	// cannot be watched: as PID 1 there is none.
	Stdio bool
	// ControlFD, when nonzero, is a descriptor whose end of input ends
	// the session. It must be a pipe or stream socket the launcher passed open
	// and not close-on-exec, > 2, and not the same pipe or socket as fd 0;
	// and no descriptor the launcher passed may write to the same pipe or
	// FIFO (ControlFD itself included) or be the other end of its socket
	// pair, since it could then never reach end of input. The Engine does
	// not inherit it.
	ControlFD int
	// StatusFD, when nonzero, is a descriptor the launcher passed open
	// for writing, > 2, on which Run writes one JSON record per line: a
	// [launch.StatusStarted] when the Engine is released and a [launch.StatusEnded]
	// last. The Engine does not inherit it.
	StatusFD int
	// Ending is how every end of the session goes. The session's second
	// stop signal during the grace goes straight to SIGKILL. When the end
	// was begun by something else (stdin, a timeout), the first stop
	// signal joins it and keeps the grace.
	launch.Ending
	// Timeout, when positive, ends the session that long after the
	// Engine was released (exit status 124).
	Timeout time.Duration
	// Subreaper makes Run a child subreaper for the session, so that
	// processes that leave the Engine's group (setsid, a double fork)
	// are re-parented to this process: Run reaps them as they exit and,
	// at the end, ends every one still running, and the groups they lead.
	// Run then takes every child of this process other than its gate and
	// guard as adopted: ask for it only in a process that starts no other
	// children, as session-starter itself. Without it on FreeBSD, and on
	// macOS (which has no subreaper), the end looks for those processes by
	// lineage instead: by identity, from the Engine down (package doc).
	Subreaper bool
	// Terminal hands the controlling terminal to the Engine's group when
	// stdin is that terminal, this process's group is its foreground group
	// and stdout is not a pipe or socket (the terminal, a file): an
	// interactive Engine can read it, and Ctrl-C and Ctrl-Z reach the
	// Engine. Run follows job control whenever stdin, stdout or stderr is
	// the controlling terminal (an Engine stopped by Ctrl-Z, or by SIGTTIN
	// or SIGTTOU in the background, stops this process too, and continuing
	// it in the foreground gives the terminal to the Engine) and takes the
	// terminal back before it returns.
	Terminal bool
	// Exits says that the process exits as soon as Run returns, as
	// session-starter does: Run then leaves its signal handling in place
	// instead of undoing it (each signal it stops notifying is a round
	// trip to the runtime's signal thread), and the launcher's
	// descriptors close-on-exec (the process's end may have closed them
	// at the release: package internal/exit).
	Exits bool
	// Stops, when set (on Linux, macOS and FreeBSD), is a channel the
	// caller notified of every stop signal before calling Run (package
	// internal/exit's CatchStops): Run
	// takes the signals on it as its stop signals, a signal that came
	// before Run included, instead of notifying its own, and leaves that
	// notification as it is. Without it Run notifies the stop signals
	// itself as it starts, before it starts anything, and undoes that at
	// the end (unless Exits).
	Stops chan os.Signal
	// Containment is how the session is held on Linux:
	// [launch.ContainAuto] (the zero value), [launch.ContainGroup] or
	// [launch.ContainCgroup].
	Containment launch.Containment
	// Limits bound the session's whole tree through its session cgroup
	// (Linux, cgroup mode) or its job (Windows); [launch.ContainAuto]
	// does not fall back to the process group when limits are asked for.
	//
	// They are written after the gate is ready and before the go-ahead,
	// and read back: a limit the kernel refuses, one read back other than
	// asked, or one whose controller (pids, memory, cpu) is not available
	// fails Run with exit status 125 and nothing executed. Asked for where
	// they cannot be enforced — group mode, macOS, FreeBSD, the portable
	// build — Run fails the same way.
	//
	// Where the session cgroup is made matters: cgroup v2 lets a cgroup
	// that holds processes enable the threaded controllers (pids, cpu)
	// for the cgroups below it, but not the memory controller (the "no
	// internal processes" rule; the root cgroup is exempt). So with
	// MaxMemory, or Calls naming "memory", when the cgroup where session
	// cgroups are made is this process's own, and it holds no other
	// process (systemd-run --scope -p Delegate=yes, a container's init),
	// this process first moves itself into a leaf cgroup of its own
	// beside the session cgroup (session-starter-….supervisor), where its
	// guard is born too, and then enables the controller; at the end it
	// moves back and removes the leaf. If other processes share its
	// cgroup (the launcher's shell, say), Run fails naming them;
	// CgroupParent names a cgroup with no process to make the session
	// cgroups in instead. Only one session of a process at a time can
	// move it: a library caller running sessions with MaxMemory side by
	// side gives them a CgroupParent.
	Limits launch.Limits
	// CgroupParent, when set, is the directory of a cgroup v2 where the
	// session cgroup is made, instead of below this process's own cgroup
	// (Linux, cgroup mode): a delegated cgroup that holds no process, as
	// limits need (see Limits). A launcher that starts many sessions
	// from one cgroup names one such cgroup for all of them.
	CgroupParent string
	// Exe is the binary that implements the hidden gate and guard modes;
	// empty means this process's own binary (/proc/self/exe on Linux).
	Exe string
	// Ack, when set, is called once containment exists — the gate leads
	// group E and the guard is armed — and before the Engine's program is
	// executed. An error ends the session with nothing executed.
	Ack func(pid int, mode string) error
	// Released, when set, is called right after the go-ahead.
	Released func()
	// Logger receives diagnostics; the zero value logs nothing.
	Logger zerolog.Logger

	// started writes the started record; argv is the Engine's command
	// line when the session changed it (Containers), else nil.
	started func(pid, guard int, mode, session string, argv []string)
}

// Reason says what ended a session.
type Reason string

// Reasons, as they appear in logs and in the status record.
const (
	ReasonEngineExit    Reason = "engine-exit"
	ReasonSignal        Reason = "signal"
	ReasonParentGone    Reason = "parent-gone"
	ReasonControlClosed Reason = "control-closed"
	ReasonStdinClosed   Reason = "stdin-closed"
	ReasonGuardLost     Reason = "guard-lost"
	ReasonCanceled      Reason = "canceled"
	ReasonTimeout       Reason = "timeout"
	// ReasonWatchFailed: the starter could not watch its end conditions
	// (poll failed); the session is ended and reported as a failure.
	ReasonWatchFailed Reason = "watch-failed"
)

// Result is how a session ended.
type Result struct {
	Reason Reason
	// Signal is the stop signal when Reason is ReasonSignal.
	Signal syscall.Signal
	// PID is the Engine's PID and the number of its group; 0 if the gate
	// never started.
	PID int
	// Executed reports whether the Engine's program was executed.
	Executed bool
	// Engine is how the Engine ended, when Executed.
	Engine Status
	// End is the report of the session's end: every holder — the
	// Engine, its group, the adopted escapees (with Options.Subreaper, or
	// as PID 1; on macOS those found by lineage), the session cgroup —
	// under one deadline.
	End End
	// Mode is the containment mode in effect, as the ack line names it:
	// "group", "cgroup", "reaper" (FreeBSD) or "job" (Windows).
	Mode string
	// Duration is the time from Run's start to its return.
	Duration time.Duration
	// Timeout is the session's timeout, for the report when it fired.
	Timeout time.Duration
	// Usage is what the session's tree used (see [launch.Usage]), read
	// at its end.
	Usage launch.Usage
	// why, if set, says more than Reason for a session that ended before
	// the Engine started: which parent a ParentPID mismatch found.
	why string
}

// Why names the reason as logs and the status record do: the reason, or
// "signal NAME" for a stop signal.
func (r Result) Why() string {
	if r.Reason == ReasonSignal {
		return "signal " + sys.SignalName(r.Signal)
	}
	return string(r.Reason)
}

// runError is a failure of Run, with the exit status it maps to
// ([Result.Verdict] reads it).
type runError struct {
	code int
	err  error
}

func (e *runError) Error() string { return e.err.Error() }
func (e *runError) Unwrap() error { return e.err }

func fail(code int, format string, args ...any) error {
	return &runError{code: code, err: fmt.Errorf(format, args...)}
}

// Verdict is what the session-starter process does at the end: report,
// then exit with Code or die of Signal.
type Verdict struct {
	// Report is a line for stderr, empty when there is nothing to say.
	Report string
	// Signal, when nonzero, is the signal to die of; Code is then the
	// status to exit with if dying of it is impossible (128+Signal).
	Signal syscall.Signal
	Code   int
}

// Verdict is the verdict of a session that [Run] returned as r and err.
// A failure of Run exits with the status it maps to (wire.ExitContainment
// when it names none), its error the report. Otherwise it applies the
// exit-status table (see the package doc) to r, with its precedence: 125
// over the mirrored status.
func (r Result) Verdict(err error) Verdict {
	if err != nil {
		v := Verdict{Code: wire.ExitContainment, Report: err.Error()}
		var f *runError
		if errors.As(err, &f) {
			v.Code = f.code
		}
		return v
	}
	var notes []string
	switch r.End.Outcome {
	case launch.Survivors, launch.Refused:
		return Verdict{Code: wire.ExitContainment, Report: r.End.Describe()}
	case launch.Unconfirmed:
		notes = append(notes, "the session was signalled; its end could not be observed: "+r.End.Describe())
	}
	// What a limit did is told, never left an unexplained SIGKILL.
	if n := r.Usage.OOMKills; n != nil && *n > 0 {
		notes = append(notes, fmt.Sprintf("out of memory: the kernel's OOM killer ended %d process(es) of the session", *n))
	}
	if n := r.Usage.ForksRefused; n != nil && *n > 0 {
		notes = append(notes, fmt.Sprintf("the task limit refused %d fork(s)", *n))
	}
	switch r.Reason {
	case ReasonGuardLost:
		return Verdict{Code: wire.ExitContainment, Report: "the guard was lost; the session was ended"}
	case ReasonWatchFailed:
		return Verdict{Code: wire.ExitContainment, Report: "the end conditions could not be watched; the session was ended"}
	}
	if !r.Executed {
		if r.Reason == ReasonSignal {
			return Verdict{Signal: r.Signal, Code: 128 + int(r.Signal)}
		}
		why := r.Why()
		if r.why != "" {
			why += ": " + r.why
		}
		return Verdict{Code: wire.ExitContainment, Report: fmt.Sprintf("session ended before the Engine started (%s); nothing was executed", why)}
	}
	if r.Reason == ReasonSignal && sys.DiesOfStop(r.Signal) {
		// A signal the Go runtime would have crashed on: the session
		// was ended as on any stop, and now this process dies of it.
		return Verdict{Signal: r.Signal, Code: 128 + int(r.Signal), Report: strings.Join(notes, "; ")}
	}
	if r.Reason == ReasonTimeout {
		notes = append(notes, fmt.Sprintf("timed out after %v; the session was ended", r.Timeout))
		return Verdict{Code: wire.ExitTimeout, Report: strings.Join(notes, "; ")}
	}
	v := Verdict{Report: strings.Join(notes, "; ")}
	if r.Engine.Exited {
		v.Code = r.Engine.Code
	} else {
		v.Signal, v.Code = r.Engine.Signal, 128+int(r.Engine.Signal)
	}
	return v
}
