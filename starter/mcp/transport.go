package mcp

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/session-starter/session-starter/starter/launch"
)

// DefaultStdinGrace is the server's time to exit by itself once Close has
// closed its stdin, before session-starter ends the session: 2 s, as the
// SDKs wait after closing stdin before their SIGTERM (session-starter's
// own default, [launch.DefaultStdinGrace]).
const DefaultStdinGrace = launch.DefaultStdinGrace

// closeMargin is what Close waits past the longest end session-starter
// itself can take before it stops, then kills, session-starter.
const closeMargin = 5 * time.Second

// CarriedEnv names the variables that Connect copies from this process's
// environment into an explicit Options.Env that does not name them. The
// first two place the session's record where the user's "--reclaim"
// looks for it; the session mark nests the session in the client's own.
var CarriedEnv = []string{"XDG_RUNTIME_DIR", "SESSION_STARTER_LEDGER_DIR", launch.SessionVar}

// Transport is an [mcp.Transport] that starts a stdio server under
// session-starter. Set its fields before Connect; Connect is called once,
// by [mcp.Client.Connect].
//
// The connection's Close (the SDK's ClientSession.Close) closes the
// server's stdin and returns once the session has ended. session-starter
// gives the server the stdin grace to exit by itself, then ends the
// session with the grace and the kill budget. Should the session not have
// ended within the stdin grace, the whole end's bound ([launch.Ending.EndBound])
// and 5 s more, session-starter is stopped (SIGTERM), and killed the same
// bound later, so that its guard ends the session. Close's error is
// non-nil when the ended record is missing, when a member of the session
// survived (outcome "survivors"), or when session-starter had to be
// stopped. A server's non-zero exit is not an error: [Transport.Wait]
// tells it. On Windows, where no stdin is watched, Close itself stops the
// session once the stdin grace has passed.
type Transport struct {
	// Options are the session's, as [launch.Start] reads them: Argv is the
	// server's command line; Grace, KillBudget, Containment, StopSignal and
	// the others are session-starter's flags. Connect sets Stdio and
	// StatusPipe (on Windows, where "--stdio" watches no stdin yet,
	// ControlPipe too), and StdinGrace to [DefaultStdinGrace] when it is
	// 0. An explicit Env gets the variables of [CarriedEnv] it lacks.
	// Stderr nil discards the server's stderr.
	Options launch.Options
	// MaxLineLength bounds one inbound JSON-RPC message, as in
	// [mcp.IOTransport]: 0 means [mcp.DefaultMaxLineLength], a negative
	// value no bound.
	MaxLineLength int

	mu      sync.Mutex
	session *launch.Session
	done    chan struct{} // closed once the session has ended and was reaped
	// ended and endErr are set before done is closed, and read after.
	ended  launch.StatusEnded
	endErr error
}

// Command returns a Transport for the server name with the arguments
// arg, as [os/exec.Command] names a program: session-starter looks name up
// in PATH. Its other Options may be set before Connect.
func Command(name string, arg ...string) *Transport {
	return &Transport{Options: launch.Options{Argv: append([]string{name}, arg...)}}
}

// Connect starts the server under session-starter and returns once
// session-starter has acknowledged containment. ctx bounds only the
// start: the session lives on after it ends, until Close. The error of a
// start that failed is a [*launch.Error], and nothing is left running.
func (t *Transport) Connect(ctx context.Context) (sdk.Connection, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.done != nil {
		return nil, errors.New("session-starter mcp: Connect called twice on one Transport")
	}
	opts := t.Options
	opts.StatusPipe, opts.Stdio = true, true
	opts.StdinGrace = cmp.Or(opts.StdinGrace, DefaultStdinGrace)
	opts.ControlPipe = opts.ControlPipe || !watchStdin
	if opts.Env != nil {
		opts.Env = carryEnv(opts.Env, os.Environ())
	}
	// The session outlives ctx, which the SDK's Connect also uses for the
	// handshake; only the start is cancelled with it.
	sessCtx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	stopStart := context.AfterFunc(ctx, cancel)
	s, err := launch.Start(sessCtx, opts)
	if !stopStart() && err == nil {
		// ctx ended during the start: a session that came up is being
		// stopped by the cancel; it is not handed out.
		_ = s.Stdout.Close()
		state, _ := s.Wait()
		_ = s.Status.Close()
		err = &launch.Error{Err: ctx.Err(), State: state, Stderr: s.StderrTail()}
	}
	if err != nil {
		cancel()
		return nil, err
	}
	t.session = s
	t.done = make(chan struct{})
	go t.watch(s, cancel)
	// The SDK's own framing. The connection ends by the server's stdin,
	// as the SDK's CommandTransport's does; its stdout is closed once the
	// session has ended.
	return (&sdk.IOTransport{
		Reader:        io.NopCloser(s.Stdout),
		Writer:        stdinCloser{File: s.Stdin, close: t.close},
		MaxLineLength: t.MaxLineLength,
	}).Connect(ctx)
}

// watch reads the ended record and reaps session-starter, whatever ends
// the session.
func (t *Transport) watch(s *launch.Session, cancel context.CancelFunc) {
	ended, err := launch.ReadEnded(s.Status)
	state, waitErr := s.Wait()
	cancel()
	_ = s.Status.Close()
	// The server's stdout has reached its end with the session's: closing
	// it ends the SDK's reader.
	_ = s.Stdout.Close()
	if err = cmp.Or(err, waitErr); err != nil {
		err = fmt.Errorf("session-starter mcp: %w (session-starter: %v; stderr: %s)",
			err, state, strings.TrimSpace(s.StderrTail()))
	}
	t.ended, t.endErr = ended, err
	close(t.done)
}

// PID returns the Engine's PID, the server's own, which is also its
// process group; 0 before Connect has returned a connection.
func (t *Transport) PID() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.session == nil {
		return 0
	}
	return t.session.PID
}

// Done returns a channel that is closed once the session has ended and
// session-starter was reaped, whatever ended it; nil before Connect.
func (t *Transport) Done() <-chan struct{} {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.done
}

// Wait waits for the session's end and returns its ended record: the
// reason, the server's exit code or signal, what was ended. The error is
// non-nil when the record is missing ([launch.ErrNoEnded]: session-starter
// was killed) or the wait failed. Wait before Connect returns an error.
func (t *Transport) Wait() (launch.StatusEnded, error) {
	done := t.Done()
	if done == nil {
		return launch.StatusEnded{}, errors.New("session-starter mcp: Wait before Connect")
	}
	<-done
	return t.ended, t.endErr
}

// close is the connection's Close (see [Transport]), run once.
func (t *Transport) close() error {
	t.mu.Lock()
	s, done := t.session, t.done
	t.mu.Unlock()
	if err := s.Stdin.Close(); err != nil && !errors.Is(err, os.ErrClosed) {
		return fmt.Errorf("session-starter mcp: close the server's stdin: %w", err)
	}
	o := t.Options
	stdinGrace := cmp.Or(o.StdinGrace, DefaultStdinGrace)
	endBound := o.EndBound() + closeMargin
	first := stdinGrace + endBound
	if !watchStdin {
		// Nothing watches the stdin: the stop comes from here.
		first = stdinGrace
	}
	var stopped error
	select {
	case <-done:
	case <-time.After(first):
		_ = s.Stop()
		if watchStdin {
			stopped = fmt.Errorf("session-starter mcp: the session had not ended %v after the server's stdin was closed; session-starter was stopped", first)
		}
		select {
		case <-done:
		case <-time.After(endBound):
			_ = s.Process.Kill()
			stopped = fmt.Errorf("session-starter mcp: the session had not ended %v after the stop; session-starter was killed and its guard ends the session", endBound)
			<-done
		}
	}
	ended, err := t.Wait()
	switch {
	case stopped != nil:
		return stopped
	case err != nil:
		return err
	case ended.Outcome == "survivors":
		return fmt.Errorf("session-starter mcp: members of the session survived: %s", ended.Report)
	}
	return nil
}

// stdinCloser is the server's stdin, whose Close ends the session. The
// SDK's connection closes it once, however often the connection's own
// Close is called, and returns that first result every time (as with
// the SDK's CommandTransport, whose Close is no more guarded).
type stdinCloser struct {
	*os.File
	close func() error
}

func (w stdinCloser) Close() error { return w.close() }

// watchStdin: "--stdio" watches the server's stdin here.
const watchStdin = runtime.GOOS != "windows"

// carryEnv returns env with each variable of [CarriedEnv] that env does
// not name and from has, at from's value.
func carryEnv(env, from []string) []string {
	out := append([]string(nil), env...)
	for _, name := range CarriedEnv {
		named := func(kv string) bool { return strings.HasPrefix(kv, name+"=") }
		if i := slices.IndexFunc(from, named); i >= 0 && !slices.ContainsFunc(env, named) {
			out = append(out, from[i])
		}
	}
	return out
}
