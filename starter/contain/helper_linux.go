//go:build linux && !portable

package contain

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"runtime"
	"slices"
	"sync"
	"syscall"
	"time"

	"github.com/session-starter/session-starter/internal/end"
	"github.com/session-starter/session-starter/internal/proc"
	"github.com/session-starter/session-starter/internal/sys"
	"github.com/session-starter/session-starter/internal/wire"
	"github.com/session-starter/session-starter/starter/launch"
)

// helperFD is the helper's end of its connection to the Engine.
const helperFD = 3

// faultAt is where a test makes the helper fail at one step of its
// handshake: phase is hello (before the hello), request (a spawn request
// was read, nothing started), spawned (the leader was started, "started"
// not sent) or started ("started" was sent). It does nothing but in tests.
var faultAt = func(phase string) {}

func init() { wire.Play(playHelper, helperMode) }

// playHelper runs the spawn helper and exits.
func playHelper(args []string) {
	if err := wire.CheckProtocol(args); err != nil {
		fmt.Fprintln(os.Stderr, "session-starter:", err)
		os.Exit(wire.ExitProtocol)
	}
	os.Exit(helperMain(helperFD))
}

// inHelper is set in the spawn helper: its calls are its own children.
var inHelper bool

// helper is the spawn helper process: the parent of an Engine's calls.
type helper struct {
	sock int
	// mu is held while a leader is started and registered, and while
	// adopted children are reaped: a leader is reaped only by its call
	// (kill before reap), never by the reaper.
	mu      sync.Mutex
	calls   map[uint64]*helperCall
	leaders map[int]*helperCall // by leader PID, until its call reaped it
	spawns  chan func()
	closed  chan struct{} // the connection to the Engine ended
	running sync.WaitGroup
}

// helperCall is one call the helper parents.
type helperCall struct {
	c        *Cmd
	started  chan struct{} // "started" was sent (or could not be)
	released chan struct{} // the Engine sent a release
	relOnce  sync.Once
}

// helperMain serves the Engine on sock until the connection ends, then
// ends everything it holds and returns the exit status.
func helperMain(sock int) int {
	inHelper = true
	// The helper keeps only its socket: a descriptor the Engine left
	// inheritable, held here for the helper's life, would keep a pipe
	// the Engine closed from reaching end of file.
	for _, fd := range proc.Inheritable() {
		if fd != sock {
			_ = syscall.Close(fd)
		}
	}
	// The terminal's and the Engine's group's signals are the Engine's:
	// the helper ends its calls when the Engine's end closes the socket.
	// Caught and dropped, not ignored: an ignored signal would stay
	// ignored in every call (execve keeps SIG_IGN), a caught one does not.
	// A full channel drops what comes.
	signal.Notify(make(chan os.Signal, 1), syscall.SIGINT, syscall.SIGQUIT, syscall.SIGHUP)
	// Without the subreaper the calls' orphans would escape it.
	if sys.SetChildSubreaper(true) != nil || sys.SetCloseOnExec(sock) != nil {
		return wire.ExitContainment
	}
	h := &helper{
		sock:    sock,
		calls:   map[uint64]*helperCall{},
		leaders: map[int]*helperCall{},
		spawns:  make(chan func()),
		closed:  make(chan struct{}),
	}
	go h.spawner()
	term := make(chan os.Signal, 1)
	signal.Notify(term, syscall.SIGTERM)
	go func() {
		// SIGTERM ends the helper as the Engine's end does.
		<-term
		_ = syscall.Shutdown(sock, syscall.SHUT_RD)
	}()
	chld := make(chan os.Signal, 1)
	signal.Notify(chld, syscall.SIGCHLD)
	go func() {
		for range chld {
			h.reapAdopted()
		}
	}()
	faultAt("hello")
	if h.send(msgHello, struct{ Protocol uint64 }{wire.Protocol}) != nil {
		return 0
	}
	h.serve()
	close(h.closed)
	h.endAll()
	return 0
}

// spawner is the one thread that forks the calls' leaders, locked for
// the helper's life: a leader's parent-death signal (PR_SET_PDEATHSIG)
// fires when the thread that forked it exits, and this one exits only
// with the process.
func (h *helper) spawner() {
	runtime.LockOSThread()
	for f := range h.spawns {
		f()
	}
}

// send sends the message of kind that carries v. Sends need no lock:
// each packet is queued whole. The Engine reads all the time: no deadline.
func (h *helper) send(kind byte, v any) error {
	return sendPacket(h.sock, encode(kind, v), nil, time.Time{})
}

// serve reads the Engine's requests until the connection ends, or a
// request does not decode (taken for the Engine's end).
func (h *helper) serve() {
	buf := make([]byte, maxPacket+1)
	oob := make([]byte, syscall.CmsgSpace(maxFDs*4))
	for {
		data, fds, err := recvPacket(h.sock, buf, oob)
		if err != nil || len(data) == 0 {
			closeFDs(fds)
			return
		}
		s, err := decodeRequest(data)
		if err != nil || (data[0] == msgSpawn && len(fds) < 3) {
			closeFDs(fds)
			return
		}
		if data[0] == msgSpawn {
			faultAt("request")
			h.spawn(s, fds)
			continue
		}
		closeFDs(fds)
		h.mu.Lock()
		hc := h.calls[s.Call]
		h.mu.Unlock()
		if hc == nil {
			continue // ended already: nothing to do
		}
		switch data[0] {
		case msgKill:
			hc.c.requestKill()
		case msgRelease:
			hc.relOnce.Do(func() { close(hc.released) })
		case msgEndLeft:
			h.running.Go(func() {
				a := answer{Call: s.Call}
				if err := hc.c.EndReleased(); err != nil {
					a.Err = err.Error()
				}
				_ = h.send(msgLeftDone, a)
			})
		case msgForget:
			_ = hc.c.Close()
			h.mu.Lock()
			delete(h.calls, s.Call)
			h.mu.Unlock()
		}
	}
}

// spawn starts the call s on the spawner thread, answers "started" or
// "spawn failed", and reports its end.
func (h *helper) spawn(s spawnReq, fds []int) {
	files := make([]*os.File, len(fds))
	for i, fd := range fds {
		files[i] = os.NewFile(uintptr(fd), "call-fd")
	}
	cmd := &exec.Cmd{
		Path: s.Path, Args: s.Argv, Env: s.Env, Dir: s.Dir,
		Stdin: files[0], Stdout: files[1], Stderr: files[2], ExtraFiles: files[3:],
		// The helper's death ends the leader: see spawner.
		SysProcAttr: &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL},
	}
	hc := &helperCall{c: Wrap(cmd), started: make(chan struct{}), released: make(chan struct{})}
	c := hc.c
	c.StopSignal, c.Grace, c.KillBudget = s.Stop, s.Grace, s.Budget
	c.decide = func() bool { return h.decide(s.Call, hc) }
	var err error
	done := make(chan struct{})
	h.spawns <- func() {
		defer close(done)
		h.mu.Lock()
		defer h.mu.Unlock()
		err = c.Start()
		if err == nil {
			h.leaders[c.Process.Pid] = hc
			h.calls[s.Call] = hc
		}
	}
	<-done
	// The leader has its copies; the Engine keeps its own.
	for _, f := range files {
		_ = f.Close()
	}
	if err != nil {
		// Start fails only before the program was executed (the leader
		// is held by its pidfd from the fork: there is no later step to
		// fail on this build).
		_ = h.send(msgFailed, answer{Call: s.Call, Fail: failureOf(err)})
		return
	}
	pid := c.Process.Pid
	faultAt("spawned")
	_ = h.send(msgStarted, answer{Call: s.Call, PID: pid})
	close(hc.started)
	faultAt("started")
	h.running.Go(func() {
		werr := c.Wait()
		r := c.Result()
		a := answer{Call: s.Call, Done: doneMsg{Tree: r.Tree, Elapsed: r.Elapsed, Left: r.Left, Escaped: r.Escaped, Survivors: r.Survivors}}
		d := &a.Done
		if c.ProcessState != nil {
			d.Reaped, d.Status = true, c.ProcessState.Sys().(syscall.WaitStatus)
		}
		// The leader's status is in Done; any other error is sent as text.
		if _, exited := errors.AsType[*exec.ExitError](werr); werr != nil && !exited {
			a.Err = werr.Error()
		}
		h.mu.Lock()
		// Only this call's entry: once reaped, its PID may be a new
		// leader's already.
		if d.Reaped && h.leaders[pid] == hc {
			delete(h.leaders, pid)
		}
		if r.Tree != Released {
			delete(h.calls, s.Call)
		}
		h.mu.Unlock()
		_ = h.send(msgDone, a)
	})
}

// decide is the call's choice at its leader's exit, made by the Engine:
// the helper says the leader exited (it stays unreaped) and waits for a
// release or a kill. The connection's end is a kill.
func (h *helper) decide(call uint64, hc *helperCall) (kill bool) {
	<-hc.started
	if h.send(msgExited, answer{Call: call}) != nil {
		return true
	}
	select {
	case <-hc.c.killc:
		return true
	case <-hc.released:
		return false
	case <-h.closed:
		return true
	}
}

// reapAdopted reaps the helper's children that exited, but the calls'
// leaders (each reaped by its call, after its tree was ended or
// released): orphans of the calls' trees, adopted by this subreaper.
// Each is reaped by its PID, never by -1 (which could take a leader's
// status).
func (h *helper) reapAdopted() {
	h.mu.Lock()
	defer h.mu.Unlock()
	kids, _ := adopted()
	for _, pid := range kids {
		if h.leaders[pid] == nil {
			_, _ = sys.Waitid(pid, sys.WEXITED|sys.WNOHANG)
		}
	}
}

// adopted lists the children of the helper's main thread: an orphan is
// re-parented to the first live thread of its subreaper, which is the
// main thread (the thread-group leader) while it lives, and the Go
// runtime never ends it. So the adopted orphans are all there, in one
// read (not one per thread on every SIGCHLD); the calls' leaders, which
// any thread may have forked, are known by their PIDs.
func adopted() ([]int, error) { return proc.ThreadChildren(os.Getpid(), os.Getpid()) }

// endAll ends everything the helper holds, once the Engine's end of the
// connection closed: every running call's tree (a kill of each), then
// every process adopted from the calls' trees — which is what released
// calls left too: their leaders were reaped, so every process they left
// is an orphan of this subreaper's.
func (h *helper) endAll() {
	h.mu.Lock()
	for _, hc := range h.calls {
		hc.c.requestKill() // it only closes a channel
	}
	h.mu.Unlock()
	h.running.Wait()
	h.endAdopted()
}

// endAdopted ends the helper's adopted children, their descendants and
// the groups they lead, with the one end routine and the starter's holder
// of adopted children (end.Adopted: each opened while it is this
// process's child, the tree stopped, then killed, its orphans adopted in
// turn and found at the next look, which SIGCHLD hastens). The calls'
// leaders are not among them: each is its call's, reaped by it.
func (h *helper) endAdopted() {
	wake := make(chan os.Signal, 1)
	signal.Notify(wake, syscall.SIGCHLD)
	defer signal.Stop(wake)
	list := func() ([]int, error) {
		h.reapAdopted()
		kids, err := adopted()
		h.mu.Lock()
		defer h.mu.Unlock()
		return slices.DeleteFunc(kids, func(pid int) bool { return h.leaders[pid] != nil }), err
	}
	end.End([]end.Holder{&end.Adopted{List: list, Forbidden: []int{sys.Getpgrp()}}},
		end.Plan{Stop: syscall.SIGKILL, Budget: launch.DefaultKillBudget, Wake: wake})
}

// helperAnswerBudget bounds how long the Engine waits for a started
// helper's hello and for the answer to a spawn request.
var helperAnswerBudget = 10 * time.Second
