//go:build linux && !portable

package contain

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"reflect"
	"slices"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/session-starter/session-starter/internal/mark"
	"github.com/session-starter/session-starter/internal/wire"
)

// The Engine's side of the spawn helper: one helper process per Engine,
// started on the first call that needs it, and the calls it parents.

// link is the connection to one helper process.
type link struct {
	// sock is used through control by sends and the shutdown (each send
	// is bounded): its number stays the socket's until the reader's
	// Close, once none uses it.
	sock   *os.File
	helper *os.Process
	mu     sync.Mutex
	calls  map[uint64]chan reply
	gone   atomic.Bool // the helper is gone, or is not used any more
	hello  chan struct{}
	ended  chan struct{} // the reader ended
	next   atomic.Uint64
}

// reply is one answer of the helper about a call.
type reply struct {
	kind byte
	answer
}

var (
	linkMu  sync.Mutex
	current *link
	// probed is the installed session-starter that plays the helper,
	// looked for once per process.
	probed = sync.OnceValue(installedStarter)
)

// helpersStarted counts the helper processes this process started.
var helpersStarted atomic.Int64

// errNoHelperBinary: there is no binary to start a helper from.
var errNoHelperBinary = errors.New("contain: no binary plays the spawn helper")

// liveLink is this process's helper, started (once more) when there is
// none or it is gone: then it is waited for until its hello.
func liveLink() (*link, error) {
	linkMu.Lock()
	defer linkMu.Unlock()
	if current != nil && !current.gone.Load() {
		return current, nil
	}
	// A helper is started from this very binary (even if its file was
	// replaced since) when IfRequested ran first in main: it dispatches
	// the helper mode, and any other binary run with the helper's argument
	// would run a second copy of the Engine. Else from an installed
	// session-starter of this protocol, else from none.
	exe := "/proc/self/exe"
	if !dispatched.Load() {
		exe = probed()
	}
	if exe == "" {
		return nil, errNoHelperBinary
	}
	// Close-on-exec, so that no other child of either process holds an
	// end: the helper must see the Engine's end close when the Engine dies.
	pair, err := syscall.Socketpair(syscall.AF_UNIX, syscall.SOCK_SEQPACKET|syscall.SOCK_CLOEXEC, 0)
	if err != nil {
		return nil, err
	}
	ours, theirs := pair[0], pair[1]
	end := os.NewFile(uintptr(theirs), "spawn-helper")
	cmd := exec.Command(exe, wire.HiddenArg(helperMode))
	cmd.ExtraFiles = []*os.File{end}
	err = cmd.Start()
	_ = end.Close()
	if err != nil {
		_ = syscall.Close(ours)
		return nil, err
	}
	helpersStarted.Add(1)
	l := &link{sock: os.NewFile(uintptr(ours), "spawn-helper"), helper: cmd.Process, calls: map[uint64]chan reply{}, hello: make(chan struct{}), ended: make(chan struct{})}
	go l.read()
	select {
	case <-l.hello:
		current = l
		return l, nil
	case <-l.ended:
		return nil, errors.New("contain: the spawn helper ended before its hello")
	case <-time.After(helperAnswerBudget):
		l.abandon(true)
		return nil, errors.New("contain: the spawn helper did not say hello in time")
	}
}

// read routes the helper's answers to their calls until the connection
// ends, then reaps the helper. The first message must be the hello of
// this protocol; anything that does not decode ends the connection.
func (l *link) read() {
	defer close(l.ended)
	buf := make([]byte, maxPacket+1)
	sock := int(l.sock.Fd()) // closed only here, once the loop ends
	for {
		// No room for descriptors: a packet that carries any is
		// truncated (MSG_CTRUNC), malformed, and its descriptors dropped.
		data, _, err := recvPacket(sock, buf, nil)
		if err != nil || len(data) == 0 {
			break
		}
		if !closed(l.hello) {
			var hello struct{ Protocol uint64 }
			if data[0] != msgHello || decode(data[1:], &hello) != nil || hello.Protocol != wire.Protocol {
				break
			}
			close(l.hello)
			continue
		}
		a, err := decodeAnswer(data)
		if err != nil || !l.route(a.Call, reply{kind: data[0], answer: a}) {
			break
		}
	}
	l.gone.Store(true)
	_ = l.sock.Close()
	l.mu.Lock()
	for _, ch := range l.calls {
		close(ch)
	}
	clear(l.calls)
	l.mu.Unlock()
	// A helper whose connection ended ends what it holds and exits.
	_, _ = l.helper.Wait()
}

// route hands rep to its call; false: a call's answers overflowed (a
// helper that says more than it may is not used).
func (l *link) route(call uint64, rep reply) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	ch, ok := l.calls[call]
	if !ok {
		return true // a call that let go of its answers
	}
	select {
	case ch <- rep:
		return true
	default:
		return false
	}
}

// control runs f on the socket unless it is closed.
func (l *link) control(f func(sock int)) {
	if rc, err := l.sock.SyscallConn(); err == nil {
		_ = rc.Control(func(fd uintptr) { f(int(fd)) })
	}
}

// send sends one message by deadline; an error means it was not sent at
// all. Sends do not wait for each other: each packet is queued whole or
// not at all.
func (l *link) send(m []byte, fds []int, deadline time.Time) error {
	err := error(errUnsent{syscall.EPIPE}) // unless the socket is open
	l.control(func(sock int) {
		if failNextSend.Load() && failNextSend.Swap(false) {
			err = errUnsent{errTestSend}
			return
		}
		err = sendPacket(sock, m, fds, deadline)
	})
	return err
}

// failNextSend makes the next send fail before a byte leaves, as a broken
// connection's does (errTestSend): tests only.
var failNextSend atomic.Bool

var errTestSend = errors.New("test: the send failed")

// brokenLink reports whether a send's error means the connection itself
// is gone (the helper died, or closed its end), not that this one message
// could not go (too large, too many descriptors for the socket's
// buffer): only then is the helper, and every call it holds, let go.
func brokenLink(err error) bool {
	return errors.Is(err, syscall.EPIPE) || errors.Is(err, syscall.ECONNRESET) ||
		errors.Is(err, syscall.ENOTCONN) || errors.Is(err, errTestSend)
}

// abandon stops using the helper: its end of input comes (it then ends
// what it holds and exits), and with kill — a helper that does not
// answer — it is SIGKILLed too, through its handle (its pidfd: it is this
// process's unreaped child until the reader reaps it). The leaders it
// parents then get their parent-death signal.
func (l *link) abandon(kill bool) {
	l.gone.Store(true)
	if kill {
		_ = l.helper.Kill()
	}
	l.control(func(sock int) { _ = syscall.Shutdown(sock, syscall.SHUT_RDWR) })
}

func (l *link) unregister(call uint64) {
	l.mu.Lock()
	delete(l.calls, call)
	l.mu.Unlock()
}

// helped is a call whose leader the helper parents, seen from the
// Engine.
type helped struct {
	l      *link
	call   uint64
	ch     chan reply
	err    error // Wait's error for the leader's end, once known
	killed bool  // a kill was sent
}

var noticed sync.Map

// notice puts n in the call's result, and on stderr once per process.
func (c *Cmd) notice(n string) {
	c.result.Notice = n
	if _, seen := noticed.LoadOrStore(n, true); !seen {
		fmt.Fprintln(os.Stderr, n)
	}
}

// startViaHelper starts the call through the spawn helper when this
// process is under no session (no session mark: under one, the session
// ends every call when the Engine dies). handled false: the call is to
// be started directly. Its error is the call's: NotStarted, or Unclear
// with c.result.Executed set.
//
// THE DECISION whether a call may be started a second time. The helper
// starts the leader before it answers, and a command can do all it does
// and end without a trace, so once a request may have reached a helper
// nothing seen here proves that it did not run. Exactly three things
// prove that it did NOT: the helper was known gone before sending (its
// end of the socket had closed); the send failed, and a seqpacket send
// that fails queued not one byte (one that ran out of time, too: the
// stuck helper is killed and the call runs directly); the helper answered
// "spawn failed" (its Start failed before the program was executed).
// Only the first two let the request go to a second helper, or run
// directly; the third is the call's error (NotStarted). Everything else
// is Unclear: the call is not started again, here or by the caller.
func (c *Cmd) startViaHelper() (handled bool, err error) {
	if _, inSession := os.LookupEnv(mark.Var); inSession || inHelper || c.Limits.Any() {
		// Under a session, or in the helper itself: the parent that
		// ends the call with the Engine is there already. Limits need a
		// session's cgroup, which the direct start says is not there.
		return false, nil
	}
	if c.SysProcAttr != nil || (c.Cancel != nil && c.ctx == nil) || slices.Contains(c.ExtraFiles, nil) || innerPipes(c.Cmd) {
		// What the helper does not carry: attributes of the fork, a
		// context this package was not given (Wrap of a CommandContext),
		// a closed extra descriptor, pipes of the wrapped exec.Cmd's own
		// (only its Start closes their ends for the call).
		c.notice(NoticeDirect)
		return false, nil
	}
	if c.ctx != nil && c.ctx.Err() != nil {
		return true, c.ctx.Err() // as exec: nothing is started
	}
	req, fds, cleanup, err := c.request()
	defer cleanup()
	// The size is checked with the call's id at 0, one byte: the id spawn
	// gives it takes up to binary.MaxVarintLen64.
	if err != nil || len(encode(msgSpawn, req)) > maxPacket-binary.MaxVarintLen64 {
		// A request the helper cannot be given (no working directory
		// to name, too many descriptors, too large): directly.
		c.notice(NoticeDirect)
		return false, nil
	}
	for range 2 {
		l, err := liveLink()
		if errors.Is(err, errNoHelperBinary) {
			break
		}
		if l == nil {
			continue // could not be started: once more, then directly
		}
		h, pid, sent, err := l.spawn(&req, fds)
		if !sent && errors.Is(err, errSendTimeout) {
			break // proof 2, from a helper that was stuck and is killed
		}
		if !sent {
			continue // proof 1 or 2: not a byte reached it
		}
		if err != nil {
			return true, err
		}
		if h == nil {
			c.result.Executed = Unclear
			c.notice(NoticeUnclear)
			return true, fmt.Errorf("%w: the spawn helper did not answer", ErrUnclear)
		}
		c.via = h
		c.Process, _ = os.FindProcess(pid)
		c.result.Group = pid
		return true, nil
	}
	c.notice(NoticeDirect)
	return false, nil
}

// innerPipes reports whether c holds call ends of pipes that its own
// Start would close (StdinPipe, StdoutPipe or StderrPipe of the exec.Cmd
// before Wrap): through the helper they would stay open here, and a
// reader of the pipe would never see end of file.
func innerPipes(c *exec.Cmd) bool {
	// exec keeps them in an unexported field. A Go release that renames
	// or retypes it fails TestAWrappedCmdWithPipesOfItsOwnRunsDirectly;
	// a field of another kind is never read (Len would panic).
	f := reflect.ValueOf(c).Elem().FieldByName("childIOFiles")
	return f.IsValid() && f.Kind() == reflect.Slice && f.Len() > 0
}

// request is the spawn request for c, with the descriptors it passes:
// /dev/null for a nil stdio, as exec gives. cleanup, never nil, closes
// what request opened.
func (c *Cmd) request() (req spawnReq, fds []int, cleanup func(), err error) {
	var opened []*os.File
	cleanup = func() {
		for _, f := range opened {
			_ = f.Close()
		}
	}
	dir := c.Dir
	if dir == "" {
		if dir, err = os.Getwd(); err != nil {
			return spawnReq{}, nil, cleanup, err
		}
	}
	// The call's own mark: the helper finds by it the orphans it adopts.
	env, _ := newCallMark(c.Environ())
	plan := c.plan()
	req = spawnReq{Path: c.Path, Argv: c.Args, Env: env, Dir: dir, Stop: plan.Stop, Grace: plan.Grace, Budget: plan.Budget}
	for i, s := range []any{c.Stdin, c.Stdout, c.Stderr} {
		f, _ := s.(*os.File)
		if f == nil {
			flag := os.O_WRONLY
			if i == 0 {
				flag = os.O_RDONLY
			}
			if f, err = os.OpenFile(os.DevNull, flag, 0); err != nil {
				return spawnReq{}, nil, cleanup, err
			}
			opened = append(opened, f)
		}
		fds = append(fds, int(f.Fd()))
	}
	for _, f := range c.ExtraFiles {
		fds = append(fds, int(f.Fd()))
	}
	if len(fds) > maxFDs {
		return spawnReq{}, nil, cleanup, fmt.Errorf("contain: %d descriptors for the call, over %d", len(fds), maxFDs)
	}
	return req, fds, cleanup, nil
}

// spawn asks the helper to start req, within helperAnswerBudget from
// now for the send and the answer together. sent false: provably nothing
// reached it (the helper was gone, or not a byte was sent), and it is
// not used again; err is errSendTimeout when the send ran out of time
// (the helper is SIGKILLed). Else h is the call, with its leader's pid,
// or err the helper's "spawn failed" (NotStarted), or both nil: Unclear.
func (l *link) spawn(req *spawnReq, fds []int) (h *helped, pid int, sent bool, err error) {
	deadline := time.Now().Add(helperAnswerBudget)
	call, ch := l.next.Add(1), make(chan reply, 8)
	l.mu.Lock()
	l.calls[call] = ch
	l.mu.Unlock()
	req.Call = call
	if l.gone.Load() {
		l.unregister(call)
		return nil, 0, false, nil
	}
	if err := l.send(encode(msgSpawn, *req), fds, deadline); err != nil {
		l.unregister(call)
		if errors.Is(err, errSendTimeout) {
			// A helper that does not take its requests is not waited for.
			l.abandon(true)
			return nil, 0, false, err
		}
		if brokenLink(err) {
			l.abandon(false)
		}
		return nil, 0, false, nil
	}
	select {
	case rep, ok := <-ch:
		switch {
		case ok && rep.kind == msgStarted:
			return &helped{l: l, call: call, ch: ch}, rep.PID, true, nil
		case ok && rep.kind == msgFailed:
			l.unregister(call)
			return nil, 0, true, rep.Fail.err()
		}
		l.abandon(true)
	case <-time.After(time.Until(deadline)):
		// A helper that does not answer is not waited for.
		l.abandon(true)
	}
	l.unregister(call)
	return nil, 0, true, nil
}

// watch follows a helped call until the helper reports its end: a kill
// goes to the helper as it comes; at the leader's exit (held unreaped by
// the helper) the choice is sent — a kill if one was asked for or
// EndOnExit, else a release.
func (h *helped) watch(c *Cmd) {
	killc := c.killc
	if c.ctx != nil {
		defer context.AfterFunc(c.ctx, c.requestKill)()
	}
	// Once a kill or release is sent, the end's report is due within the
	// end's whole time (the plan's Total) and helperAnswerBudget more.
	var due <-chan time.Time
	expect := func() {
		if due == nil {
			due = time.After(c.plan().Total() + helperAnswerBudget)
		}
	}
	for {
		select {
		case <-due:
			// A helper that does not report the end is not waited for:
			// killed, its connection ends, and the call is lost.
			due = nil
			h.l.abandon(true)
		case <-killc:
			killc = nil // sent once
			if !h.killed {
				h.killed = true
				h.sendOrAbandon(msgKill)
				expect()
			}
		case rep, ok := <-h.ch:
			if !ok {
				h.err = errors.New("contain: the spawn helper went away before it reported the call's end")
				if c.result.Notice == "" {
					c.notice(NoticeLost)
				}
				return
			}
			switch rep.kind {
			case msgExited:
				kind := byte(msgRelease)
				if h.killed || c.EndOnExit || closed(c.killc) {
					kind, h.killed = msgKill, true
				}
				if !h.sendOrAbandon(kind) && !h.killed {
					c.notice(NoticeReleaseUnsent)
				}
				expect()
			case msgDone:
				h.err = rep.Done.err()
				r := &c.result
				r.Tree, r.Elapsed = rep.Done.Tree, rep.Done.Elapsed
				r.Left, r.Escaped, r.Survivors = rep.Done.Left, rep.Done.Escaped, rep.Done.Survivors
				if rep.Err != "" {
					c.endErr = fmt.Errorf("%w: in the spawn helper: %s", ErrSurvivors, rep.Err)
				}
				if r.Tree != Released {
					h.l.unregister(h.call)
				}
				return
			}
		}
	}
}

// sendOrAbandon sends a kill or release; one that cannot be sent lets
// the helper go (it is gone, or its connection is broken): its end of
// input comes, and it ends what it holds — this call's tree included.
func (h *helped) sendOrAbandon(kind byte) bool {
	if err := h.send(kind); err != nil {
		h.l.abandon(false)
		return false
	}
	return true
}

// send sends a message of kind about the call, within
// helperAnswerBudget. One that cannot be sent by then (the helper does
// not read) SIGKILLs the helper: its calls' leaders get their
// parent-death signal.
func (h *helped) send(kind byte) error {
	err := h.l.send(encode(kind, spawnReq{Call: h.call}), nil, time.Now().Add(helperAnswerBudget))
	if errors.Is(err, errSendTimeout) {
		h.l.abandon(true)
	}
	return err
}

// err is Wait's error for the leader's end, as the helper reported it.
func (d doneMsg) err() error {
	switch {
	case !d.Reaped:
		return fmt.Errorf("%w: its leader did not exit; the spawn helper holds it", ErrSurvivors)
	case d.Status.Exited() && d.Status.ExitStatus() == 0:
		return nil
	}
	return &ExitError{Status: d.Status}
}

// endReleased asks the helper to end what the released call c left, and
// waits for its answer for at most the end's whole time (the plan's
// Total) and helperAnswerBudget more; a helper that does not answer by
// then is SIGKILLed.
func (h *helped) endReleased(c *Cmd) error {
	if err := h.send(msgEndLeft); err != nil {
		return fmt.Errorf("contain: EndReleased: %w (the spawn helper ends what it holds when it goes)", err)
	}
	timeout := time.After(c.plan().Total() + helperAnswerBudget)
	for {
		select {
		case rep, ok := <-h.ch:
			switch {
			case !ok:
				return errors.New("contain: EndReleased: the spawn helper went away (it ends what it holds when it goes)")
			case rep.kind != msgLeftDone:
				continue
			case rep.Err != "":
				return fmt.Errorf("%w: in the spawn helper: %s", ErrSurvivors, rep.Err)
			}
			return nil
		case <-timeout:
			h.l.abandon(true)
			return errors.New("contain: EndReleased: the spawn helper did not answer; it was killed")
		}
	}
}

// forget lets the helper close what it keeps for EndReleased.
func (h *helped) forget() {
	_ = h.send(msgForget)
	h.l.unregister(h.call)
}
