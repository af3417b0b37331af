package contain

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/session-starter/session-starter/internal/cgroup"
	"github.com/session-starter/session-starter/internal/end"
	"github.com/session-starter/session-starter/starter/launch"
)

// Executed says whether a call's program was executed, for a caller that
// would retry: only [NotStarted] may be retried.
type Executed int

const (
	// NotStarted: provably nothing was executed (the start failed before
	// the program ran). Only a NotStarted call may be started again.
	NotStarted Executed = iota
	// Started: the program was executed.
	Started
	// Unclear: whether the program ran cannot be known. Never retried.
	Unclear
)

func (o Executed) String() string {
	return nameOf(int(o), []string{"not started", "started", "unclear"}, "executed")
}

// nameOf is names[i], or kind(i) for an i out of its range.
func nameOf(i int, names []string, kind string) string {
	if i >= 0 && i < len(names) {
		return names[i]
	}
	return kind + "(" + strconv.Itoa(i) + ")"
}

// TreeState is how a started call's tree ended.
type TreeState int

const (
	// Running: not ended yet (or never started).
	Running TreeState = iota
	// Killed: the whole tree was ended — a cancelled context, [Cmd.Kill],
	// or the leader's exit with [Cmd.EndOnExit].
	Killed
	// Released: the leader exited on its own and what it left running
	// stays, listed in [Result.Left]; it is still inside the session and
	// ends with it.
	Released
)

func (e TreeState) String() string {
	return nameOf(int(e), []string{"running", "killed", "released"}, "tree")
}

// Result is what a call came to; [Cmd.Result] returns it after Wait.
type Result struct {
	Executed Executed
	Tree     TreeState
	// ID names the call within this process: a model can be given it
	// (with Group or Cgroup) to ask for this call's tree to be ended.
	ID string
	// Group is the call's own process group (its leader's PID), 0 when
	// it has none.
	Group int
	// Cgroup is the call's own cgroup as /proc/PID/cgroup shows it, ""
	// when it has none (group mode).
	Cgroup string
	// Left lists the processes a Released call left running, found while
	// the leader's unreaped exit still held the group's number (or in the
	// call's cgroup), and on Linux its orphans, found by the call's mark.
	Left []int
	// Escaped lists, in group mode, the processes of the call found
	// outside its group when it was ended (a setsid grandchild) — ended
	// with it, where exit descriptors are pidfds (Linux). On Linux one
	// whose parent had exited already (an orphan) is found by the call's
	// own mark (see the package doc); elsewhere the session ends it.
	Escaped []int
	// PipeHolders lists the processes that still held an output pipe
	// when the drain bound ran out and the pipe was closed.
	PipeHolders []int
	// Survivors lists the processes still live when a Kill's budget ran
	// out.
	Survivors []int
	// Elapsed is how long the end took, for a Killed call.
	Elapsed time.Duration
	// Usage is what the call's tree used, once Wait returned, each
	// figure with where it was read, as a session's (see launch.Usage):
	// the CPU time from its own cgroup's "cpu.stat" in a cgroup-mode
	// session (the whole tree, exited processes included), else the
	// leader's "rusage" (with what the leader reaped itself — a lower
	// bound), or the "job" on Windows; the peak memory and tasks, the
	// OOM kills and the forks refused from its cgroup where the session
	// cgroup has the memory and pids controllers, and the peak memory of
	// its job on Windows. A figure that cannot be told is nil: all of
	// them for a call through the spawn helper, and under Wine.
	Usage launch.Usage
	// Notice is the fixed notice of a call that ran without the spawn
	// helper although it was wanted, or that the helper failed (see the
	// package doc), "" otherwise; it is also written to stderr once per
	// process.
	Notice string
}

// ExitError is Wait's error for a call through the spawn helper whose
// leader did not exit with status 0: the leader was the helper's child,
// so there is no [os.ProcessState] (Cmd.ProcessState stays nil), only
// the status the helper reported.
type ExitError struct {
	Status syscall.WaitStatus
	// Stderr is filled by [Cmd.Output], as exec.ExitError's.
	Stderr []byte
}

func (e *ExitError) Error() string {
	if e.Status.Signaled() {
		return "signal: " + e.Status.Signal().String()
	}
	return "exit status " + strconv.Itoa(e.Status.ExitStatus())
}

// ExitCode is the leader's exit status, or -1 when a signal ended it.
func (e *ExitError) ExitCode() int {
	if e.Status.Signaled() {
		return -1
	}
	return e.Status.ExitStatus()
}

// DefaultDrain is how long output is still read after the leader exited
// (and its tree was ended or released) before the pipes are closed.
const DefaultDrain = 500 * time.Millisecond

// Errors a call reports.
var (
	// ErrNotSupported: contained calls are not built for this platform;
	// the call is NotStarted.
	ErrNotSupported = errors.New("contain: contained calls are not supported on this platform")
	// ErrSurvivors is wrapped when a Kill left live processes
	// ([Result.Survivors]) or could not be observed to finish.
	ErrSurvivors = errors.New("contain: the call's tree did not end")
	// ErrUnclear is wrapped by Start's error when the call's outcome is
	// [Unclear]: it may have run, and must not be started again.
	ErrUnclear = errors.New("contain: whether the call ran is not known")
)

// Cmd is an [exec.Cmd] whose whole tree is the call's: see the package
// doc. Its fields are set before Start, as exec.Cmd's are; the embedded
// exec.Cmd's own Start, Wait, Run, Output and CombinedOutput must not be
// called (they would reap the leader before its tree is ended): call
// those of Cmd, which shadow them. Everything else of the embedded
// exec.Cmd is used as usual (Path, Args, Env, Dir, Stdin, Stdout, Stderr,
// ExtraFiles, SysProcAttr, Process, ProcessState). StdinPipe, StdoutPipe
// and StderrPipe are Cmd's own, as exec's: the call's end of each pipe
// is closed here once the call has it (in its leader, or in the spawn
// helper), and Wait closes this end after the drain.
type Cmd struct {
	*exec.Cmd

	// Ending is how a Kill ends the call: the stop signal goes to the
	// whole tree at once, as a session's.
	launch.Ending
	// Drain bounds how long output is read after the leader's exit
	// ([DefaultDrain] if 0, or the WaitDelay of a wrapped exec.Cmd).
	Drain time.Duration
	// EndOnExit makes the leader's own exit end its whole tree (Killed)
	// instead of releasing what it left (Released).
	EndOnExit bool
	// Limits bound the call's whole tree as a session's bound the
	// session's (Calls is a session's and refused here):
	// on Linux through the call's own cgroup, in a cgroup-mode session
	// whose cgroup has the controllers (see session-starter
	// --call-limits); on Windows through the call's own job. They are set
	// before the leader is born into it, so not one instruction of the
	// call runs without them, and read back. They hold within the
	// session's own limits, never beyond them. Asked for where they
	// cannot be enforced — no session, group mode, a session cgroup
	// without the controller, macOS, FreeBSD, the portable build, Wine —
	// Start fails naming why, and nothing runs: a limit is never silently
	// not applied.
	Limits launch.Limits

	err      error           // refused by Wrap or Command: Start returns it
	ctx      context.Context // Command's, for a call through the helper
	decide   func() bool     // in the spawn helper: the Engine's choice at the leader's exit (kill?)
	via      *helped         // the call's leader is the spawn helper's child
	called   bool            // Start was called
	killc    chan struct{}
	killOnce sync.Once
	done     chan struct{} // closed when the tree has ended or been released
	waited   atomic.Bool
	result   Result
	endErr   error
	tree     tree // the platform's handle of the started tree
	held     bool // the leader exited and its exit descriptor is idle
	relMu    sync.Mutex
	pipes    []*drain
	closers  []io.Closer // child's ends of our pipes, closed after Start
	parents  []io.Closer // this end of StdinPipe, StdoutPipe and StderrPipe, closed by Wait
}

// StdinPipe is [exec.Cmd.StdinPipe] for the call: a pipe connected to
// its standard input, closed by Wait once the call has ended (or by the
// caller, to send end of input).
func (c *Cmd) StdinPipe() (io.WriteCloser, error) { return c.pipe(0) }

// StdoutPipe is [exec.Cmd.StdoutPipe] for the call: a pipe connected to
// its standard output, which reaches end of file once every process
// holding the call's end has closed it. Wait closes it after the drain:
// read to the end before calling Wait, as with exec.
func (c *Cmd) StdoutPipe() (io.ReadCloser, error) { return c.pipe(1) }

// StderrPipe is [exec.Cmd.StderrPipe] for the call, as StdoutPipe.
func (c *Cmd) StderrPipe() (io.ReadCloser, error) { return c.pipe(2) }

// pipe makes the pipe of StdinPipe (fd 0), StdoutPipe (1) or StderrPipe
// (2); the call's end is closed here once the call has its copy (Start).
func (c *Cmd) pipe(fd int) (io.ReadWriteCloser, error) {
	if c.Cmd == nil {
		return nil, c.err
	}
	set := [...]bool{c.Stdin != nil, c.Stdout != nil, c.Stderr != nil}
	if set[fd] {
		return nil, fmt.Errorf("exec: %s already set", [...]string{"Stdin", "Stdout", "Stderr"}[fd])
	}
	if c.called || c.Process != nil {
		return nil, errors.New("exec: pipe after process started")
	}
	r, w, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	parent, child := r, w
	switch fd {
	case 0:
		parent, child = w, r
		c.Stdin = child
	case 1:
		c.Stdout = child
	case 2:
		c.Stderr = child
	}
	c.closers = append(c.closers, child)
	p := &closeOnce{File: parent, once: sync.OnceValue(parent.Close)}
	c.parents = append(c.parents, p)
	return p, nil
}

// closeOnce is a pipe end that Wait and the caller may both close: the
// first Close closes it, and each returns that Close's error.
type closeOnce struct {
	*os.File
	once func() error // the file's Close, run once
}

func (c *closeOnce) Close() error { return c.once() }

// checkLimits refuses a call's limits that no kernel could take, and a
// session's field, before anything runs.
func checkLimits(l launch.Limits) error {
	if len(l.Calls) > 0 {
		return errors.New("contain: Limits.Calls is a session's (--call-limits), not a call's")
	}
	if err := cgroup.CheckLimits(l); err != nil {
		return fmt.Errorf("contain: the call's limits: %w", err)
	}
	return nil
}

// errNoLimits says why a call's limits cannot be enforced here.
func errNoLimits(why string) error {
	return fmt.Errorf("contain: the call's limits cannot be enforced: %s; nothing was started", why)
}

// errInner: the embedded exec.Cmd was started through its own methods.
var errInner = errors.New("contain: the inner exec.Cmd was started directly: its tree is not contained")

// The fixed notices of calls that ran without a helper, or whose helper
// failed them. Each is in the call's [Result.Notice], and written once
// per process to stderr.
const (
	// NoticeDirect: the call runs as this process's own child.
	NoticeDirect = "contain: no spawn helper could be started: the call runs as this process's child, and a SIGKILL of this process leaves its tree running"
	// NoticeUnclear: the request may have reached a helper that went away
	// before it answered.
	NoticeUnclear = "contain: the spawn helper went away before it said whether it started the command: it may or may not have run, and it was not started again"
	// NoticeLost: the helper went away while the call ran.
	NoticeLost = "contain: the spawn helper went away while the call ran: its leader got the parent-death signal (SIGKILL); how it ended is not known"
	// NoticeReleaseUnsent: the release could not be sent.
	NoticeReleaseUnsent = "contain: the release could not be sent to the spawn helper: what the call left running is ended with the helper"
)

// calls numbers the calls of this process.
var calls atomic.Uint64

// Command is [exec.CommandContext] for a contained call: cancelling ctx
// ends the call's whole tree (Killed). A nil ctx is a Command without a
// context.
func Command(ctx context.Context, name string, arg ...string) *Cmd {
	if ctx == nil {
		return Wrap(exec.Command(name, arg...))
	}
	c := Wrap(exec.CommandContext(ctx, name, arg...))
	c.ctx = ctx
	return c
}

// Wrap contains an existing, not yet started [exec.Cmd]: it takes over
// its Cancel (a context's cancellation then ends the whole tree) and its
// WaitDelay (which becomes the Drain bound), and the caller must not call
// the inner Cmd's Start, Wait, Run, Output or CombinedOutput afterwards.
// A nil or started Cmd, or a SysProcAttr that asks for a group, session,
// terminal, cgroup or pidfd of its own, is refused by Start before
// anything runs.
func Wrap(c *exec.Cmd) *Cmd {
	w := &Cmd{Cmd: c, killc: make(chan struct{}), done: make(chan struct{})}
	w.result.ID = "call-" + strconv.Itoa(os.Getpid()) + "-" + strconv.FormatUint(calls.Add(1), 10)
	switch {
	case c == nil:
		w.err = errors.New("contain: Wrap of a nil *exec.Cmd")
		return w
	case c.Process != nil:
		w.err = errors.New("contain: Wrap of an *exec.Cmd that was started already")
		return w
	}
	if msg := conflict(c.SysProcAttr); msg != "" {
		w.err = errors.New("contain: SysProcAttr." + msg + ": the call's group and tree are the package's")
		return w
	}
	if c.WaitDelay > 0 {
		w.Drain = c.WaitDelay
	}
	c.WaitDelay = 0
	if c.Cancel != nil {
		// Only a Cmd made with a context has a Cancel (exec refuses one
		// without): its cancellation now ends the tree. exec then reports
		// the context's error from Wait, as it does for its own Cancel.
		c.Cancel = func() error {
			w.requestKill()
			return nil
		}
	}
	return w
}

// ID names the call (also [Result.ID]).
func (c *Cmd) ID() string { return c.result.ID }

// Start starts the call's leader in a tree of its own (see the package
// doc). A Start error means NotStarted — nothing was executed — unless
// it wraps [ErrUnclear]: through the spawn helper, a request that may
// have reached a helper that then said nothing is Unclear, and is never
// started again.
func (c *Cmd) Start() error {
	if c.err != nil {
		return c.err
	}
	if c.called {
		return errors.New("contain: Start called twice")
	}
	if c.Process != nil {
		return errInner
	}
	c.called = true
	if err := c.Cmd.Err; err != nil {
		return err
	}
	if err := checkLimits(c.Limits); err != nil {
		return err
	}
	if err := c.pipeStdio(); err != nil {
		c.closePipes()
		return err
	}
	handled, err := c.startViaHelper()
	if !handled {
		err = c.startTree()
	}
	if err != nil {
		c.closePipes()
		return err
	}
	closeEach(c.closers)
	c.closers = nil
	c.result.Executed = Started
	for _, d := range c.pipes {
		go d.run()
	}
	go c.watch()
	return nil
}

// Kill ends the call's whole tree now and returns once it has ended (or
// the budget ran out: [ErrSurvivors]); Wait then reaps the leader. After
// a Release it ends nothing: what was released is the session's.
func (c *Cmd) Kill() error {
	if !c.called || c.result.Executed != Started {
		return errors.New("contain: Kill of a call that was not started")
	}
	c.requestKill()
	<-c.done
	return c.endErr
}

func (c *Cmd) requestKill() { c.killOnce.Do(func() { close(c.killc) }) }

// watch waits for the leader's exit or a kill, whichever comes first, and
// ends or releases the tree while the leader's exit is unreaped.
func (c *Cmd) watch() {
	defer close(c.done)
	if c.via != nil {
		c.via.watch(c)
		return
	}
	exited := make(chan struct{})
	go func() {
		c.tree.waitExit()
		close(exited)
	}()
	select {
	case <-c.killc:
	case <-exited:
	}
	if closed(c.killc) || c.EndOnExit || !c.canRelease() || (c.decide != nil && c.decide()) {
		c.result.Tree = Killed
		c.endErr = c.tree.kill(c, &c.result)
	} else {
		c.result.Tree = Released
		c.result.Left, c.endErr = c.tree.release()
	}
	// The exit descriptor is closed only once nothing polls it: the
	// leader has exited (a Kill's SIGKILL reached it), so the poll ends.
	if c.tree.exited() {
		<-exited
		c.held = true
	}
}

// closed reports whether ch is closed.
func closed(ch <-chan struct{}) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
}

// endAll ends what hs hold with the one end routine, and puts in r how
// long it took and what survived it.
func endAll(hs []end.Holder, plan end.Plan, r *Result) error {
	rep := end.End(hs, plan)
	r.Elapsed = rep.Elapsed
	if rep.Outcome == launch.Empty || (rep.Outcome == launch.Unconfirmed && unconfirmedEnds) {
		return nil
	}
	for _, m := range rep.Survivors {
		r.Survivors = append(r.Survivors, m.PID)
	}
	return fmt.Errorf("%w: %s", ErrSurvivors, rep.Describe())
}

// Wait waits for the call to end, as [exec.Cmd.Wait] does, but kills
// before it reaps: the leader's exit is seen without reaping it, its tree
// is ended (or released) while the leader's number is still held, and
// only then is the leader reaped. Output is read for at most the Drain
// bound after that; a pipe still held then is closed, and the error wraps
// [exec.ErrWaitDelay] naming its holders ([Result.PipeHolders]). A Kill
// that left survivors wraps [ErrSurvivors].
func (c *Cmd) Wait() error {
	if c.Cmd != nil && c.Process != nil && !c.called {
		return errInner
	}
	if !c.called || c.result.Executed != Started {
		return errors.New("contain: Wait of a call that was not started")
	}
	if c.waited.Swap(true) {
		return errors.New("contain: Wait was already called")
	}
	<-c.done
	var err error
	switch {
	case c.via != nil:
		err = c.via.err
	case c.held:
		err = c.Cmd.Wait()
		c.result.Usage = c.tree.usage(c.ProcessState)
		c.tree.close()
	case c.ProcessState != nil:
		// Reaped by a Start that could not hold it: endErr says so.
	default:
		err = fmt.Errorf("%w: its leader %d did not exit; it is not reaped", ErrSurvivors, c.Process.Pid)
	}
	if perr := c.drainPipes(); perr != nil && err == nil {
		err = perr
	}
	closeEach(c.parents)
	if c.endErr != nil && err == nil {
		err = c.endErr
	}
	return err
}

// EndReleased ends what a Released call left running — the model's
// "stop my dev server" — and returns once it has ended (or the budget ran
// out: [ErrSurvivors]). It acts through handles kept since the release:
// the call's cgroup in cgroup mode, and in group mode a pidfd of each
// process listed in [Result.Left] (on macOS and FreeBSD none can be kept:
// it returns [ErrNotSupported] there, and the session ends them). It is
// called after Wait; a call that was not released has nothing to end.
func (c *Cmd) EndReleased() error {
	if !c.waited.Load() || c.result.Tree != Released {
		return errors.New("contain: EndReleased of a call that was not released (after Wait)")
	}
	c.relMu.Lock()
	defer c.relMu.Unlock()
	if c.via != nil {
		return c.via.endReleased(c)
	}
	return c.tree.endReleased(c)
}

// Close releases the handles a Released call keeps for [Cmd.EndReleased]
// (descriptors: one a process it left, or the call's cgroup), ending
// nothing: what it left stays the session's. Calls after the first do
// nothing. A call that left nothing keeps nothing: on Unix, Wait already
// released its handles and removed its cgroup.
func (c *Cmd) Close() error {
	if c.waited.Load() && c.result.Tree == Released {
		c.relMu.Lock()
		defer c.relMu.Unlock()
		if c.via != nil {
			c.via.forget()
			return nil
		}
		c.tree.forget(false)
	}
	return nil
}

// Result is what the call came to; complete after Wait.
func (c *Cmd) Result() Result { return c.result }

// Run starts the call and waits for it.
func (c *Cmd) Run() error {
	if err := c.Start(); err != nil {
		return err
	}
	return c.Wait()
}

// Output runs the call and returns its standard output, as
// [exec.Cmd.Output] does (a nil Stderr is kept in the ExitError).
func (c *Cmd) Output() ([]byte, error) {
	if c.Cmd != nil && c.Stdout != nil {
		return nil, errors.New("exec: Stdout already set")
	}
	var out bytes.Buffer
	var stderr *bytes.Buffer
	if c.Cmd != nil {
		c.Stdout = &out
		if c.Stderr == nil {
			stderr = &bytes.Buffer{}
			c.Stderr = &capped{b: stderr, n: 64 << 10}
		}
	}
	err := c.Run()
	var ee *exec.ExitError
	var he *ExitError
	switch {
	case stderr == nil:
	case errors.As(err, &ee):
		ee.Stderr = stderr.Bytes()
	case errors.As(err, &he):
		he.Stderr = stderr.Bytes()
	}
	return out.Bytes(), err
}

// CombinedOutput runs the call and returns its standard output and
// standard error together.
func (c *Cmd) CombinedOutput() ([]byte, error) {
	if c.Cmd != nil && (c.Stdout != nil || c.Stderr != nil) {
		return nil, errors.New("exec: Stdout or Stderr already set")
	}
	var b bytes.Buffer
	if c.Cmd != nil {
		c.Stdout, c.Stderr = &b, &b
	}
	err := c.Run()
	return b.Bytes(), err
}

// capped keeps the first n bytes written to it and discards the rest.
type capped struct {
	b *bytes.Buffer
	n int
}

func (w *capped) Write(p []byte) (int, error) {
	if room := w.n - w.b.Len(); room > 0 {
		w.b.Write(p[:min(room, len(p))])
	}
	return len(p), nil
}

// drain copies one pipe between the call and a caller's reader or writer
// that is not an *os.File.
type drain struct {
	parent *os.File // our end
	copy   func() error
	out    bool // an output pipe: read by us, drained after the exit
	done   chan struct{}
	err    error
}

func (d *drain) run() {
	defer close(d.done)
	d.err = d.copy()
}

// pipeStdio gives each of Stdin, Stdout and Stderr that is not an
// *os.File a pipe of this package's, so that the drain bound is ours and
// exec starts no copying of its own (which its Wait would wait for
// without a bound).
func (c *Cmd) pipeStdio() error {
	r := c.Stdin
	if _, ok := r.(*os.File); !ok && r != nil {
		pr, pw, err := os.Pipe()
		if err != nil {
			return err
		}
		c.Stdin = pr
		c.closers = append(c.closers, pr)
		c.pipes = append(c.pipes, &drain{parent: pw, done: make(chan struct{}), copy: func() error {
			_, err := io.Copy(pw, r)
			_ = pw.Close()
			if errors.Is(err, syscall.EPIPE) || errors.Is(err, os.ErrClosed) {
				err = nil // the call stopped reading, as exec ignores it too
			}
			return err
		}})
	}
	var shared *os.File
	origOut := c.Stdout
	for i, wp := range []*io.Writer{&c.Stdout, &c.Stderr} {
		w := *wp
		if _, ok := w.(*os.File); ok || w == nil {
			continue
		}
		if i == 1 && shared != nil && sameWriter(origOut, w) {
			*wp = shared
			continue
		}
		pr, pw, err := os.Pipe()
		if err != nil {
			return err
		}
		*wp = pw
		if i == 0 {
			shared = pw
		}
		c.closers = append(c.closers, pw)
		c.pipes = append(c.pipes, &drain{parent: pr, out: true, done: make(chan struct{}), copy: func() error {
			_, err := io.Copy(w, pr)
			if errors.Is(err, os.ErrClosed) {
				err = nil // closed at the drain bound: reported by Wait
			}
			return err
		}})
	}
	return nil
}

// sameWriter reports whether a and b are the same writer, as exec
// decides whether Stdout and Stderr share one pipe: an uncomparable
// dynamic type is not the same.
func sameWriter(a, b io.Writer) (same bool) {
	defer func() {
		if recover() != nil {
			same = false
		}
	}()
	return a == b
}

// closePipes closes every pipe end of a call that did not start.
func (c *Cmd) closePipes() {
	closeEach(c.closers)
	for _, d := range c.pipes {
		_ = d.parent.Close()
	}
	closeEach(c.parents)
	c.closers, c.pipes, c.parents = nil, nil, nil
}

// closeEach closes each of cs; their errors are of no use here.
func closeEach(cs []io.Closer) {
	for _, cl := range cs {
		_ = cl.Close()
	}
}

// drainPipes reads the output pipes for at most the Drain bound, then
// closes those still open, naming who held them. The stdin pipe is
// closed: the call is over.
func (c *Cmd) drainPipes() error {
	bound := c.Drain
	if bound <= 0 {
		bound = DefaultDrain
	}
	expired := make(chan struct{})
	defer time.AfterFunc(bound, func() { close(expired) }).Stop()
	var holders []int
	var held bool
	var copyErr error
	for _, d := range c.pipes {
		if !d.out {
			// The copy into stdin may be blocked in the caller's Read: it
			// is not waited for, as exec does not wait past its WaitDelay.
			_ = d.parent.Close()
			continue
		}
		select {
		case <-d.done:
		case <-expired:
			if !closed(d.done) {
				holders, held = append(holders, pipeHolders(d.parent)...), true
			}
		}
		_ = d.parent.Close()
		<-d.done
		if copyErr == nil && d.err != nil {
			copyErr = d.err
		}
	}
	if held {
		c.result.PipeHolders = holders
		return fmt.Errorf("%w: output still held after %v by pids %v; the pipes were closed", exec.ErrWaitDelay, bound, holders)
	}
	return copyErr
}
