//go:build darwin || freebsd || linux

package starter

import (
	"os"
	"os/signal"
	"syscall"

	"github.com/session-starter/session-starter/internal/sys"
)

// signals are the signals a session takes, each on its channel.
type signals struct {
	stops chan os.Signal // the stop signals
	own   bool           // stops was notified by Run, not by the caller (Options.Stops)
	fwd   chan os.Signal // signals forwarded to the group
	job   chan os.Signal // job-control stops (TSTP, TTIN, TTOU): the group is stopped too
	chld  chan os.Signal // SIGCHLD, when adopted orphans are reaped or job control followed; else nil
	ready chan struct{}  // closed once the channels above are notified
}

// takeSignals takes the stop signals, then starts catching the forwarded
// ones and SIGCHLD. The stop signals are caught before anything is started:
// on Options.Stops, caught by the caller before Run, or notified here and
// now, so that from the gate's start on no stop signal meets the Go
// runtime's default (a traceback and exit status 2 for SIGQUIT, exit
// status 2 for any as PID 1). The others are each a round trip to the
// runtime's signal thread (tens of microseconds each); they go on while
// prepare and contain do the rest of the setup, and contain waits for
// them (ready) at its end, before the ack and the go-ahead: until then the
// Engine does not run, and a forwarded signal has no one to reach.
func takeSignals(o Options) signals {
	var g signals
	if g.stops = o.Stops; g.stops == nil {
		g.stops, g.own = sys.CatchStops(), true
	}
	// Buffered: signal.Notify drops a signal when the channel is full.
	g.fwd = make(chan os.Signal, 16)
	g.job = make(chan os.Signal, 4)
	var caught []os.Signal
	for _, sig := range jobStops {
		// Left ignored by the launcher, it stays ignored, here and in
		// the Engine. Read from the kernel: signal.Ignored never sees
		// an inherited ignore of these three, which the Go runtime
		// leaves alone at start.
		if !sys.SignalIgnored(sig.(syscall.Signal)) {
			caught = append(caught, sig)
		}
	}
	if o.Subreaper || o.Terminal || os.Getpid() == 1 {
		// Orphans re-parented to us (as a subreaper, or as PID 1 of a PID
		// namespace, as tini and dumb-init are) are reaped as they exit:
		// on each SIGCHLD, by PID. At a terminal SIGCHLD also tells of the
		// Engine's job-control stops.
		g.chld = make(chan os.Signal, 1)
	}
	g.ready = make(chan struct{})
	go func() {
		defer close(g.ready)
		signal.Notify(g.fwd, forwarded...)
		if len(caught) > 0 {
			signal.Notify(g.job, caught...)
		}
		if g.chld != nil {
			signal.Notify(g.chld, syscall.SIGCHLD)
		}
	}()
	return g
}

// release waits until the signals are notified, then stops them, unless
// this process exits right after the session: then they stay caught.
func (g signals) release(exits bool) {
	<-g.ready
	if exits {
		return
	}
	for _, ch := range []chan os.Signal{g.chld, g.fwd, g.job} {
		if ch != nil {
			signal.Stop(ch)
		}
	}
	if g.own {
		signal.Stop(g.stops)
	}
}

// jobStops lists the job-control stop signals. Sent to the starter, each
// is passed on to the Engine's group, and then the starter stops itself
// (SIGSTOP), so that the launcher or the shell sees its job stopped and
// the Engine stopped with it; continued, the starter continues the group
// (SIGCONT), as dumb-init does. The guard is never stopped by them.
var jobStops = []os.Signal{syscall.SIGTSTP, syscall.SIGTTIN, syscall.SIGTTOU}

// forwarded lists the signals the starter passes on to the Engine's
// group, as tini and dumb-init do; they do not end the session.
var forwarded = []os.Signal{syscall.SIGUSR1, syscall.SIGUSR2, syscall.SIGWINCH, syscall.SIGCONT, syscall.SIGALRM}
