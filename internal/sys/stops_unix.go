//go:build darwin || freebsd || linux

package sys

import (
	"os"
	"os/signal"
	"slices"
	"syscall"
)

// fatalStops are the stop signals that the Go runtime would crash on
// (a traceback and exit status 2) when another process sends them with
// kill: SIGQUIT and SIGABRT, which it throws on, and SIGILL, SIGTRAP,
// SIGBUS, SIGFPE, SIGSEGV, SIGSYS (and fatalHere), which it turns into a
// panic or a throw only when the kernel raised them for a fault. Sent
// with kill (si_code SI_USER), each can be notified as any other signal.
// They end the session as SIGTERM does, and then this process dies of
// the signal ([DiesOfStop]), as it would have without the session:
// coreutils timeout too passes every terminating signal on.
var fatalStops = slices.Concat([]syscall.Signal{
	syscall.SIGQUIT, syscall.SIGILL, syscall.SIGTRAP, syscall.SIGABRT,
	syscall.SIGBUS, syscall.SIGFPE, syscall.SIGSEGV, syscall.SIGSYS,
}, fatalHere)

// DiesOfStop reports whether a session ended by the stop signal sig ends
// with this process dying of sig (one of fatalStops), rather than with the
// Engine's status mirrored.
func DiesOfStop(sig syscall.Signal) bool { return slices.Contains(fatalStops, sig) }

// endingSignals lists the signals that end a session: SIGHUP, SIGINT and
// SIGTERM, and fatalStops. SIGHUP and SIGINT that the launcher left
// ignored are left out: notifying them would replace the ignore, here
// and in the Engine.
func endingSignals() []os.Signal {
	var out []os.Signal
	for _, sig := range []syscall.Signal{syscall.SIGHUP, syscall.SIGINT} {
		if !SignalIgnored(sig) {
			out = append(out, sig)
		}
	}
	out = append(out, syscall.SIGTERM)
	for _, sig := range fatalStops {
		out = append(out, sig)
	}
	return out
}

// CatchStops notifies a new channel of every signal that ends a session
// and returns it, for a session's Options.Stops (package starter). From its return on, none of them
// meets the Go runtime's own handling in this process (a traceback and
// exit status 2 for SIGQUIT; for any of them, exit status 2 as PID 1 of a
// PID namespace): each waits on the channel until a session takes it.
// It is synchronous, a round trip to the runtime's signal thread for
// each signal the runtime does not handle already (about 0.25 ms in
// all). SIGHUP and SIGINT left ignored by the launcher stay ignored.
func CatchStops() chan os.Signal {
	// Buffered: signal.Notify drops a signal when the channel is full.
	ch := make(chan os.Signal, 8)
	signal.Notify(ch, endingSignals()...)
	return ch
}
