package contain

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync/atomic"

	"github.com/session-starter/session-starter/guard"
	"github.com/session-starter/session-starter/internal/exit"
	"github.com/session-starter/session-starter/internal/wire"
	"github.com/session-starter/session-starter/starter"
	"github.com/session-starter/session-starter/starter/launch"
)

// requestValue is the value of [launch.RequestEnv] that asks for containment.
const requestValue = "1"

// IfRequested is the requested form: a Go Engine calls it first thing in
// main, and becomes its own session starter when a launcher asks for it
// with [launch.RequestEnv]=1 (SESSION_STARTER_CONTAIN=1) in its
// environment.
//
//	func main() {
//		contain.IfRequested()
//		// The Engine's own main, contained or not.
//	}
//
// # Requested
//
// With RequestEnv=1 the call never returns. This process becomes the
// starter (as "session-starter --ack --watch-parent -- <this command
// line>"): the same command line — the same binary, arguments and argv[0]
// — runs as the Engine behind the gate and the guard, with RequestEnv
// removed from its environment (so there the call returns at once), after
// the ack line is written to stdout. This process exits with the Engine's
// status, or dies of its signal, once the Engine's process group is empty;
// if containment cannot be established it exits 125 with a report on
// stderr and the Engine never runs. A launcher reads the ack line exactly
// as from session-starter.
//
// The Engine runs the user's binary as is, by its path
// ([os.Executable], given as [starter.Options.Path]), with the same arguments and
// the same argv[0].
//
// # Gate and guard
//
// The gate and the guard are helper processes started from a binary. An
// installed session-starter found in PATH plays them, so that this
// program's init functions run in no process but the starter and the
// Engine — provided it speaks the protocol of the hidden modes of this
// package: it is asked first (it runs once, in a hidden mode that only
// answers), and one of another version, or one that does not answer, is
// passed over as if there were none. Without one, this
// binary plays them itself (/proc/self/exe): its init functions then run
// in the gate (which then executes the Engine) and in the guard (which
// lives as long as the session) too, and must not do anything there that
// matters — open listeners, write files, start goroutines that act. That
// is why IfRequested must be the first call in main: it dispatches
// those hidden modes ([starter.RunHidden]) before main does anything else.
//
// # Not requested
//
// Either way the call first records that this binary dispatches the
// hidden modes, so that the spawn helper of contained calls may be
// started from it (see the package doc), and runs the one asked for.
//
// Without RequestEnv, the call returns at once (a look at os.Args and one
// environment lookup; BenchmarkIfRequestedWithoutTheVariable).
// Another value of RequestEnv than "1" is removed from the environment and
// the call returns, so that it reaches no child of this program.
func IfRequested() {
	dispatched.Store(true)
	starter.RunHidden(os.Args)
	v, ok := os.LookupEnv(launch.RequestEnv)
	if !ok {
		return
	}
	_ = os.Unsetenv(launch.RequestEnv)
	if v != requestValue {
		return
	}
	// From here this process is a session starter: a stop signal is the
	// session's, even one that comes while the installed starter is
	// asked its protocol, and none meets the Go runtime's default (exit 2).
	exit.CatchStops()
	o, err := requestedOptions(os.Args)
	if err != nil {
		exit.Uncatch()
		// Through report: a closed stderr costs the report, not a death
		// by SIGPIPE.
		exit.Apply(exit.Write(starter.Verdict{Code: wire.ExitContainment, Report: err.Error()}))
	}
	exit.Apply(exit.Main(context.Background(), o, true))
}

// helperMode names the spawn helper's hidden mode.
const helperMode = "helper"

// dispatched records that IfRequested ran: this binary plays the hidden
// modes, the spawn helper's included, so a helper may be started from it.
var dispatched atomic.Bool

// requestedOptions are the options of the requested form for a process
// started as args.
func requestedOptions(args []string) (starter.Options, error) {
	self, err := os.Executable()
	if err != nil {
		return starter.Options{}, fmt.Errorf("requested form: name this binary: %w", err)
	}
	argv := append([]string(nil), args...)
	if len(argv) == 0 {
		argv = []string{self}
	}
	// The Engine is this same binary, by path; argv[0] stays as it was.
	// As PID 1 (a container's ENTRYPOINT) there is no parent to watch: a
	// namespace's init has none.
	return starter.Options{
		Argv:        argv,
		Path:        self,
		WatchParent: os.Getpid() != 1,
		Exe:         installedStarter(),
	}, nil
}

// installedStarter returns the absolute path of the session-starter found
// in PATH, if it plays the gate and the guard of this protocol, or ""
// (this binary plays them: it dispatched the hidden modes first thing).
// An installed binary of another version is passed over rather than
// failing every session.
func installedStarter() string {
	p, err := exec.LookPath("session-starter")
	if err != nil {
		return ""
	}
	if p, err = filepath.Abs(p); err != nil {
		return ""
	}
	if guard.Probe(p) != nil {
		return ""
	}
	return p
}
