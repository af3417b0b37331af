package launch

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// Bounds of a session: session-starter's defaults, and what Start waits
// for.
const (
	// DefaultKillBudget is how long the starter and the guard keep ending
	// the group before they report survivors. Ten seconds covers a group
	// of ten thousand processes on a loaded two-core machine (measured:
	// 1.6 s) several times over, while still ending a session that cannot
	// be ended in a time a launcher would wait for.
	DefaultKillBudget = 10 * time.Second
	// EndSlack is what the end of a session may take past its deadline
	// (the grace + the kill budget): the last look at what holds the
	// session, the guard's exit and the Engine's reap.
	EndSlack = 250 * time.Millisecond
	// DefaultStdinGrace is how long an Engine whose standard input hung
	// up is given to exit by itself before the session is ended
	// ([Options.WatchStdin], --stdin-grace): the 2 s an MCP client waits
	// after closing the server's input before it sends SIGTERM.
	DefaultStdinGrace = 2 * time.Second
	// DefaultAckTimeout bounds how long [Start] waits for the ack line. A
	// session-starter acknowledges within milliseconds; its gate and its
	// guard each give up after 30 s (a stuck fork, a machine out of
	// memory), so one that has said nothing after both is not going to.
	// At the limit the session-starter is killed and Start returns
	// [ErrAckTimeout].
	DefaultAckTimeout = time.Minute
	// DefaultWaitDelay is the [exec.Cmd.WaitDelay] of a launched session
	// with the default grace (none) and kill budget. It bounds two waits:
	// from a stop ([Session.Stop] or the end of the context) to
	// session-starter's exit, after which it is SIGKILLed and its guard
	// ends the Engine's group; and from session-starter's exit to the end
	// of its stderr, which only a process that escaped the group (setsid)
	// can hold open. It is the bound of the end ([Ending.EndBound]) plus five
	// seconds, so a session-starter still ending a large group is not
	// interrupted. With [Ending.Grace] or [Ending.KillBudget], Start
	// derives the wait from them the same way.
	DefaultWaitDelay = DefaultKillBudget + EndSlack + 5*time.Second
	// MaxDuration bounds every duration session-starter reads. A hundred
	// years is longer than any session, and keeps deadlines computed from
	// it (now plus grace plus kill budget) far from time.Duration's
	// overflow at about 292 years. session-starter refuses a longer one,
	// and so does [Start].
	MaxDuration = 100 * 365 * 24 * time.Hour
)

// The environment variables of a session.
const (
	// RequestEnv is the environment variable by which a launcher asks a
	// Go Engine to become its own starter (the requested form). It is
	// removed from the Engine's environment.
	RequestEnv = "SESSION_STARTER_CONTAIN"
	// SessionVar is the environment variable of the session mark: the
	// ids of the sessions a process belongs to, outermost first,
	// separated by ":". session-starter adds its session's id to the
	// Engine's (unless --no-mark); a process carries a session's mark
	// when one element equals that session's id.
	SessionVar = "SESSION_STARTER_SESSION"
)

// Ending is how an end goes: the stop signal and its grace, then SIGKILL
// rounds within the kill budget. A session's options and a call's Cmd
// embed it. The zero Ending sends SIGKILL at once, within
// [DefaultKillBudget].
type Ending struct {
	// StopSignal is the signal an end begins with when Grace is
	// positive, followed by SIGCONT so that stopped processes can act on
	// it. 0 means SIGTERM. Windows has no signals to send: there a
	// session's grace begins with CTRL_BREAK_EVENT, and a call's grace is
	// not used (its job is terminated at once).
	StopSignal syscall.Signal
	// Grace bounds how long the end waits for the tree to empty, from
	// the stop signal to the first SIGKILL. 0 means no stop signal:
	// SIGKILL at once.
	Grace time.Duration
	// KillBudget bounds the SIGKILL rounds, from the grace's end (or the
	// end's start, without one) to the report of survivors. 0 means
	// [DefaultKillBudget].
	KillBudget time.Duration
}

// EndBound is the longest a session's end takes, from the stop to
// session-starter's exit, with e's grace and kill budget (0: the
// default): grace + kill budget + [EndSlack].
func (e Ending) EndBound() time.Duration {
	return max(e.Grace, 0) + cmp.Or(max(e.KillBudget, 0), DefaultKillBudget) + EndSlack
}

// stderrTail is how much of session-starter's stderr a [Session] keeps
// for error reports: its own reports are one line each, and the Engine's
// last words before an early exit fit too.
const stderrTail = 4 << 10

// maxAckLine bounds the first line read as the ack. The ack is about 60
// bytes; a longer first line is not an ack.
const maxAckLine = 1 << 10

// Errors of a session. Start's are wrapped in an [*Error].
var (
	// ErrNoAck: session-starter's stdout ended before a whole first line,
	// normally because it exited before containment existed (a usage
	// error, PROGRAM not found, containment refused). Nothing was
	// executed; the exit status and stderr say why.
	ErrNoAck = errors.New("no ack line")
	// ErrMalformedAck: the first line of stdout is not the ack, so the
	// binary is not a (compatible) session-starter. It was killed.
	ErrMalformedAck = errors.New("first line is not an ack")
	// ErrAckTimeout: no line came within [Options.AckTimeout].
	// session-starter was killed; its guard ends anything it started.
	ErrAckTimeout = errors.New("no ack line in time")
	// ErrDurationRange is wrapped by the error of Start, as by
	// session-starter's, for a duration longer than [MaxDuration].
	ErrDurationRange = errors.New("out of range (at most 100 years)")
	// ErrStopTimedOut is the error of [Session.Wait] when the end of
	// Start's context stopped the session and session-starter had not
	// exited within the wait delay, so it was SIGKILLed: its guard ends
	// the Engine's group, and the status Wait returns is
	// session-starter's own death by SIGKILL, not the Engine's.
	ErrStopTimedOut = errors.New("session-starter did not exit within the wait delay of the stop and was killed")
	// ErrNoEnded is the error of [ReadEnded] when the records end without
	// an "ended" record: session-starter was killed (SIGKILL) before it
	// could write one, or the reader was not its status descriptor.
	ErrNoEnded = errors.New("the status records end without an ended record")
)

// Containment is how session-starter holds a session on Linux: the
// value of --containment, and of starter.Options.Containment.
type Containment string

// The containment modes a launcher may ask for.
const (
	// ContainAuto (also the zero value) takes a cgroup where a fresh
	// session cgroup can be made below the starter's own cgroup, in a
	// writable cgroup2 hierarchy that systemd does not manage (or has
	// delegated). Else it takes the process group. It is
	// session-starter's default.
	ContainAuto Containment = "auto"
	// ContainGroup holds the session by the Engine's process group and,
	// with a subreaper, the sweep of the processes that left it (on
	// macOS, and on FreeBSD without a reaper, the sweep by lineage).
	ContainGroup Containment = "group"
	// ContainCgroup holds the session by a cgroup v2 of its own as well:
	// nothing that stays in it escapes, even when the starter is
	// SIGKILLed. Where one cannot be made, session-starter exits 125 and
	// nothing runs.
	ContainCgroup Containment = "cgroup"
)

// Options describe an Engine to start under session-starter. Ending and
// the fields from Timeout to Containment are session-starter's flags; a
// zero value leaves a flag out, so that session-starter's default
// applies.
type Options struct {
	// Argv is the Engine's command line, passed after "--" byte for
	// byte; Argv[0] is looked up in PATH by session-starter.
	Argv []string
	// Binary is the session-starter binary. Empty means
	// "session-starter", looked up in PATH as [exec.Command] does.
	Binary string
	// Env is the environment of session-starter and so of the Engine;
	// nil means this process's own. [RequestEnv] is removed from it.
	Env []string
	// Dir is the working directory; empty means this process's own.
	Dir string
	// Stderr receives session-starter's stderr, which is also the
	// Engine's, copied until its end by a goroutine; nil discards it. The
	// last 4 KiB are kept for [Session.StderrTail] and error reports
	// either way.
	Stderr io.Writer
	// ExtraFiles are passed to the Engine at descriptors 3, 4, … as in
	// [exec.Cmd.ExtraFiles]; session-starter hands them on at the same
	// numbers. On Windows their handles are made inheritable and passed
	// at their own values.
	ExtraFiles []*os.File
	// ControlPipe, when set, gives session-starter the read end of a pipe
	// as its control descriptor ("--control-fd", after ExtraFiles); the
	// launcher keeps the write end as [Session.Control]. Closing it — or
	// this process's death, which closes it too — ends the session.
	ControlPipe bool
	// StatusPipe, when set, gives session-starter the write end of a pipe
	// as its status descriptor ("--status-fd", after ExtraFiles and the
	// control pipe); the launcher reads the JSON records ([StatusStarted],
	// then [StatusEnded]; see [ReadEnded]) from [Session.Status].
	StatusPipe bool

	// Ending is how every end of the session goes: its Grace, when
	// positive, is "--grace"; its StopSignal, when nonzero,
	// "--stop-signal"; its KillBudget, when positive, "--kill-budget".
	Ending
	// Timeout, when positive, is "--timeout": the session is ended that
	// long after the Engine was released, and session-starter exits 124.
	Timeout time.Duration
	// Containment, when set, is "--containment".
	Containment Containment
	// NoMark is "--no-mark": the Engine's environment gets no session
	// mark ([SessionVar]).
	NoMark bool
	// WatchStdin is "--watch-stdin": the session also ends when this
	// process's end of the Engine's stdin (Stdin) is closed, after the
	// Engine's own time to exit (StdinGrace, "--stdin-grace", when set;
	// Start refuses StdinGrace without WatchStdin or Stdio, as the flag
	// does).
	WatchStdin bool
	StdinGrace time.Duration
	// Stdio is "--stdio", for an Engine that serves over its stdin and
	// stdout: WatchStdin where the Engine's stdin is a pipe or a stream
	// socket (not on Windows), and the parent watch Start asks for
	// anyway.
	Stdio bool
	// ExtraFlags are more flags for session-starter, placed after those of
	// the fields above and before "--": flags this package has no field
	// for. "--grace" and "--kill-budget" are refused: their fields bound
	// Start's wait for the end. Start always passes "--ack", "--parent-pid" with this process's
	// PID, and "--control-fd" and "--status-fd" for ControlPipe and
	// StatusPipe.
	ExtraFlags []string

	// AckTimeout bounds the wait for the ack line; 0 means
	// [DefaultAckTimeout].
	AckTimeout time.Duration
	// WaitDelay is as in [exec.Cmd.WaitDelay]; 0 means the bound of the
	// end ([Ending.EndBound]) with the grace and kill budget asked for, plus
	// five seconds: [DefaultWaitDelay] without them.
	WaitDelay time.Duration
}

// flags are the session-starter flags of o's fields and ExtraFlags.
func (o *Options) flags() ([]string, error) {
	var args []string
	for _, d := range []struct {
		flag string
		d    time.Duration
	}{{"--grace", o.Grace}, {"--timeout", o.Timeout}, {"--kill-budget", o.KillBudget}} {
		switch {
		case d.d < 0:
			return nil, fmt.Errorf("%s %v: must not be negative", d.flag, d.d)
		case d.d > MaxDuration:
			return nil, fmt.Errorf("%s %v: %w", d.flag, d.d, ErrDurationRange)
		case d.d > 0:
			args = append(args, d.flag, d.d.String())
		}
	}
	if o.StopSignal != 0 {
		args = append(args, "--stop-signal", strconv.Itoa(int(o.StopSignal)))
	}
	if o.Containment != "" {
		args = append(args, "--containment", string(o.Containment))
	}
	if o.NoMark {
		args = append(args, "--no-mark")
	}
	if o.Stdio {
		args = append(args, "--stdio")
	}
	if o.WatchStdin {
		args = append(args, "--watch-stdin")
	}
	for _, f := range o.ExtraFlags {
		if name, _, _ := strings.Cut(f, "="); name == "--grace" || name == "-k" || name == "--kill-budget" {
			return nil, fmt.Errorf("launch: ExtraFlags: %s: set Options.Grace or Options.KillBudget, by which Start bounds its wait for the end", name)
		}
	}
	if o.StdinGrace != 0 {
		if o.StdinGrace < 0 || o.StdinGrace > MaxDuration {
			return nil, fmt.Errorf("launch: StdinGrace %v: out of range", o.StdinGrace)
		}
		if !o.WatchStdin && !o.Stdio {
			return nil, errors.New("launch: StdinGrace needs WatchStdin or Stdio")
		}
		args = append(args, "--stdin-grace", o.StdinGrace.String())
	}
	return append(args, o.ExtraFlags...), nil
}

// Session is an Engine running under session-starter, with containment
// acknowledged.
//
// The caller owns Stdout and closes it when done reading; [Session.Wait]
// closes Stdin and Control once session-starter has exited.
type Session struct {
	// Stdin is the write end of the Engine's standard input.
	Stdin *os.File
	// Stdout is the read end of the Engine's standard output, positioned
	// just after the ack line: nothing the Engine wrote was read by
	// Start. It reaches end of file when the Engine's processes have all
	// closed it (session-starter points its own stdout at /dev/null once
	// the Engine runs). It supports [os.File.SetReadDeadline].
	Stdout *os.File
	// Control is the write end of the control pipe with
	// [Options.ControlPipe], else nil. Closing it ends the session.
	Control *os.File
	// Status is the read end of the status pipe with
	// [Options.StatusPipe], else nil: one JSON record per line, the
	// "ended" record last, then end of file once session-starter has
	// exited. The caller owns it.
	Status *os.File
	// PID is the Engine's PID, which is also its process group, from the
	// ack line.
	PID int
	// Mode is the containment mode from the ack line ("group").
	Mode string
	// Process is the session-starter process. Signal it only through
	// [Session.Stop] or before [Session.Wait] returns: once reaped, its
	// PID may name another process.
	Process *os.Process

	cmd       *exec.Cmd
	tail      *tailBuffer
	stderr    *os.File      // read end of session-starter's stderr
	stderrEnd chan struct{} // closed once stderr is copied to its end
	waitDelay time.Duration
	stopCtx   func() bool // stops the watch of the context

	mu     sync.Mutex
	killer *time.Timer // kills session-starter a wait delay after the stop
	killed bool        // it did

	waitOnce sync.Once
	state    *os.ProcessState
	waitErr  error
}

// Start starts opts.Argv under session-starter with "--ack" and
// "--parent-pid", and returns once session-starter has acknowledged
// containment: the Engine leads its own process group and the guard is
// armed on it.
//
// ctx governs the whole session, as in [exec.CommandContext]: when it is
// done, session-starter gets SIGTERM (a stop: the session is ended and
// the Engine's status is mirrored — death by SIGKILL, or what the Engine
// did with the stop signal within a grace), and SIGKILL if it has not
// exited after [Options.WaitDelay], in which case its guard ends the
// group and [Session.Wait] returns [ErrStopTimedOut]. A stop through ctx
// is not an error of Wait: its status says how the Engine ended. On Windows, which has no SIGTERM to send,
// the stop is the closing of the control pipe ([Options.ControlPipe]);
// without one session-starter is terminated, and its kill-on-close job
// ends the Engine's tree, but the Engine's status is lost.
//
// # Errors
//
// Every error is an [*Error] and means there is no session: nothing
// Start started is left running, and session-starter was reaped (its
// status is in the error). The error wraps one of
//   - the error starting the binary ([exec.ErrNotFound] and the like), or
//     a bad option (a negative duration), when session-starter did not
//     start;
//   - [ErrNoAck], when it exited (or closed stdout) before acknowledging —
//     the exit status and the last of its stderr say why;
//   - [ErrMalformedAck], when its first line is not an ack;
//   - [ErrAckTimeout], when no line came within the ack timeout;
//   - ctx.Err(), when ctx ended first.
func Start(ctx context.Context, opts Options) (*Session, error) {
	if len(opts.Argv) == 0 {
		return nil, &Error{Err: errors.New("no Engine command line (Options.Argv is empty)")}
	}
	flags, err := opts.flags()
	if err != nil {
		return nil, &Error{Err: err}
	}
	binary := cmp.Or(opts.Binary, "session-starter")
	// The pipes, each a read end and a write end: the control pipe and
	// the status pipe (each only where asked for), then stdin, stdout and
	// stderr. Ours rather than exec's: Wait would close a StdoutPipe while
	// the caller may still be reading, and an *os.File read end takes
	// deadlines. Stderr is copied by a goroutine of ours, which Wait
	// bounds by the wait delay, as exec.Cmd.WaitDelay would.
	var p [10]*os.File
	for i, name := range []string{"control", "status", "stdin", "stdout", "stderr"} {
		if (i == 0 && !opts.ControlPipe) || (i == 1 && !opts.StatusPipe) {
			continue
		}
		if p[2*i], p[2*i+1], err = os.Pipe(); err != nil {
			closeAll(p[:2*i]...)
			return nil, &Error{Err: fmt.Errorf("%s pipe: %w", name, err)}
		}
	}
	ctlR, ctlW, statR, statW, inR, inW, outR, outW, errR, errW := p[0], p[1], p[2], p[3], p[4], p[5], p[6], p[7], p[8], p[9]
	args := []string{"--ack", "--parent-pid", strconv.Itoa(os.Getpid())}
	files := append([]*os.File(nil), opts.ExtraFiles...)
	if ctlR != nil {
		args = append(args, "--control-fd", passedFD(ctlR, len(files)))
		files = append(files, ctlR)
	}
	if statW != nil {
		args = append(args, "--status-fd", passedFD(statW, len(files)))
		files = append(files, statW)
	}
	args = slices.Concat(args, flags, []string{"--"}, opts.Argv)

	// No CommandContext: its Wait reports the end of ctx as an error even
	// when the stop it asked for ended the session cleanly, and cannot
	// say whether it had to kill. The context is watched below.
	cmd := exec.Command(binary, args...)
	cmd.Dir = opts.Dir
	env := opts.Env
	if env == nil {
		env = os.Environ()
	}
	cmd.Env = withoutRequest(env)
	waitDelay := cmp.Or(max(opts.WaitDelay, 0), opts.EndBound()+5*time.Second)
	tail := &tailBuffer{}
	out := cmp.Or(opts.Stderr, io.Discard)
	if err := passFiles(cmd, files); err != nil {
		closeAll(p[:]...)
		return nil, &Error{Err: err}
	}
	cmd.Stdin, cmd.Stdout, cmd.Stderr = inR, outW, errW
	err = cmd.Start()
	// The child holds its ends now; ours would keep EOF from coming.
	closeAll(inR, outW, errW, ctlR, statW)
	if err != nil {
		closeAll(inW, outR, errR, ctlW, statR)
		return nil, &Error{Err: err}
	}
	s := &Session{
		Stdin: inW, Stdout: outR, Control: ctlW, Status: statR, Process: cmd.Process,
		cmd: cmd, tail: tail, stderr: errR, stderrEnd: make(chan struct{}), waitDelay: waitDelay,
	}
	go func() {
		_, _ = io.Copy(io.MultiWriter(tail, out), errR)
		close(s.stderrEnd)
	}()
	s.stopCtx = context.AfterFunc(ctx, func() { s.stopForContext(ctlW) })

	timeout := cmp.Or(max(opts.AckTimeout, 0), DefaultAckTimeout)
	line, err := readAckLine(ctx, outR, time.Now().Add(timeout))
	if err == nil {
		s.PID, s.Mode, err = ParseAck(line)
		if err != nil {
			err = fmt.Errorf("%w: %v", ErrMalformedAck, err)
		}
	}
	if err != nil {
		return nil, s.abandon(cmp.Or(ctx.Err(), err), line, timeout)
	}
	return s, nil
}

// abandon ends a session that was never acknowledged and returns the
// error for it. A session-starter that ended its stdout is left to exit
// by itself within the ack timeout, so its own status is reported; any
// other is killed at once (its guard ends whatever it started).
func (s *Session) abandon(err error, line []byte, timeout time.Duration) error {
	closeAll(s.Stdin, s.Control)
	s.Stdin, s.Control = nil, nil
	done := make(chan struct{})
	go func() {
		s.waitOnce.Do(s.wait)
		close(done)
	}()
	if !errors.Is(err, ErrNoAck) {
		_ = s.Process.Kill()
	}
	select {
	case <-done:
	case <-time.After(timeout):
		_ = s.Process.Kill()
		<-done
	}
	closeAll(s.Stdout, s.Status)
	return &Error{Err: err, Line: string(line), State: s.state, Stderr: s.tail.String()}
}

// readAckLine reads the first line of r, one byte at a time so that not a
// byte after the newline is taken from the Engine. The line is returned
// without its newline.
func readAckLine(ctx context.Context, r *os.File, deadline time.Time) ([]byte, error) {
	// Where pipes take no deadline (not on Unix), the ack timeout cannot
	// apply; the end of ctx still does, through the SIGTERM.
	if r.SetReadDeadline(deadline) == nil {
		defer r.SetReadDeadline(time.Time{})
		stop := context.AfterFunc(ctx, func() { _ = r.SetReadDeadline(time.Unix(1, 0)) })
		defer stop()
	}
	var line []byte
	var b [1]byte
	for len(line) < maxAckLine {
		n, err := r.Read(b[:])
		if n == 1 {
			if b[0] == '\n' {
				return line, nil
			}
			line = append(line, b[0])
			continue
		}
		switch {
		case errors.Is(err, os.ErrDeadlineExceeded):
			return line, ErrAckTimeout
		case errors.Is(err, io.EOF):
			return line, ErrNoAck
		case err != nil:
			return line, fmt.Errorf("read the ack line: %w", err)
		}
	}
	return line, fmt.Errorf("%w: longer than %d bytes", ErrMalformedAck, maxAckLine)
}

// truncate shortens a line quoted in an error.
func truncate(b []byte) []byte {
	const limit = 120
	if len(b) > limit {
		return append(b[:limit:limit], "…"...)
	}
	return b
}

// Wait waits for session-starter to exit and returns its status, which is
// the Engine's as session-starter mirrored it: the Engine's exit code, or
// death by the Engine's signal — or one of session-starter's own codes
// (125: containment failed or members survived; see the README's exit
// status table, and [Session.StderrTail] for the report). A non-zero
// status is not an error, and neither is the end of Start's context,
// whose stop the status shows. The error is non-nil only when waiting
// failed; when stderr did not end within the wait delay after
// session-starter's exit ([exec.ErrWaitDelay]: a process that escaped the
// session holds it; it is closed then); or when the stop at the end of
// the context had to kill session-starter ([ErrStopTimedOut]). Wait may be
// called more than once. It closes Stdin and Control.
func (s *Session) Wait() (*os.ProcessState, error) {
	s.waitOnce.Do(s.wait)
	return s.state, s.waitErr
}

func (s *Session) wait() {
	err := s.cmd.Wait()
	s.stopCtx()
	s.mu.Lock()
	if s.killer != nil {
		s.killer.Stop()
	}
	killed := s.killed
	s.mu.Unlock()
	s.state = s.cmd.ProcessState
	var exitErr *exec.ExitError
	if errors.As(err, &exitErr) {
		err = nil
	}
	// Only a process that escaped the session (setsid) can hold stderr
	// open past session-starter's exit: it is read for the wait delay
	// more, then closed.
	select {
	case <-s.stderrEnd:
	case <-time.After(s.waitDelay):
		_ = s.stderr.Close()
		<-s.stderrEnd
		err = cmp.Or(err, exec.ErrWaitDelay)
	}
	_ = s.stderr.Close()
	if killed && err == nil {
		err = ErrStopTimedOut
	}
	s.waitErr = err
	closeAll(s.Stdin, s.Control)
}

// stopForContext is the stop at the end of Start's context: SIGTERM (or,
// on Windows, the closing of control, the control pipe's write end), and
// SIGKILL a wait delay later if session-starter is still there.
func (s *Session) stopForContext(control *os.File) {
	if err := stopStarter(s.Process, control); err != nil {
		return // gone already, or cannot be signalled: Wait tells
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.killer = time.AfterFunc(s.waitDelay, func() {
		s.mu.Lock()
		defer s.mu.Unlock()
		// After the reap Kill fails (os.ErrProcessDone): it never
		// reaches a process that took the number.
		if s.Process.Kill() == nil {
			s.killed = true
		}
	})
}

// Stop asks session-starter to end the session (SIGTERM): it kills the
// Engine's group and exits with the Engine's status, normally death by
// SIGKILL. It returns [os.ErrProcessDone] once session-starter has exited.
// On Windows Stop closes the control pipe, or without one terminates
// session-starter (see [Start]).
func (s *Session) Stop() error {
	return stopStarter(s.Process, s.Control)
}

// StderrTail returns the last 4 KiB of session-starter's stderr so far.
func (s *Session) StderrTail() string { return s.tail.String() }

// Error is the error of [Start]: no session exists.
type Error struct {
	// Err is what went wrong; see [Start] for the values it wraps.
	Err error
	// Line is what was read in the ack's place (without its newline), at
	// most 1 KiB; empty when nothing was read.
	Line string
	// State is how session-starter ended; nil if it never started.
	State *os.ProcessState
	// Stderr is the last 4 KiB of session-starter's stderr.
	Stderr string
}

func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString("launch session-starter: ")
	b.WriteString(e.Err.Error())
	if e.Line != "" && !errors.Is(e.Err, ErrMalformedAck) {
		fmt.Fprintf(&b, " (read %q)", truncate([]byte(e.Line)))
	}
	if e.State != nil {
		b.WriteString("; session-starter: " + e.State.String())
	}
	if msg := strings.TrimSpace(e.Stderr); msg != "" {
		b.WriteString("; stderr: " + msg)
	}
	return b.String()
}

func (e *Error) Unwrap() error { return e.Err }

// ExitCode returns session-starter's exit code, or -1 if it did not exit
// normally or never started.
func (e *Error) ExitCode() int {
	if e.State == nil {
		return -1
	}
	return e.State.ExitCode()
}

// withoutRequest removes RequestEnv from env: a Go Engine that got it
// would become a starter of its own and write a second ack.
func withoutRequest(env []string) []string {
	return slices.DeleteFunc(slices.Clone(env), func(kv string) bool { return strings.HasPrefix(kv, RequestEnv+"=") })
}

func closeAll(files ...*os.File) {
	for _, f := range files {
		if f != nil {
			_ = f.Close()
		}
	}
}

// tailBuffer keeps the last stderrTail bytes written to it.
type tailBuffer struct {
	mu  sync.Mutex
	buf []byte
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, p...)
	// Trim only past twice the size, so a stream of small writes copies
	// each byte a bounded number of times.
	if len(t.buf) > 2*stderrTail {
		t.buf = append(t.buf[:0], t.buf[len(t.buf)-stderrTail:]...)
	}
	return len(p), nil
}

func (t *tailBuffer) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(t.buf[max(0, len(t.buf)-stderrTail):])
}
