//go:build unix

package groupend

import (
	"errors"
	"syscall"
	"time"

	"github.com/session-starter/session-starter/internal/sys"
)

// Stop asks the members of a group to stop before they are killed.
type Stop struct {
	// Signal is sent to the group first, followed by SIGCONT so that
	// stopped members can act on it. Zero or SIGKILL means no grace.
	Signal syscall.Signal
	// Grace is how long to wait for the group to empty after Signal.
	Grace time.Duration
	// Hurry, when it yields or is closed, ends the grace at once.
	Hurry <-chan struct{}
}

// EndAfter asks g to stop (stop.Signal, then SIGCONT), waits up to
// stop.Grace for it to have no live member, and then ends it as [End]
// does, with its own budget. It refuses, sending nothing, as End does.
func EndAfter(g Group, stop Stop, budget time.Duration, forbidden ...int) Report {
	start := time.Now()
	if stop.Grace <= 0 || stop.Signal == 0 || stop.Signal == syscall.SIGKILL || refused(g, forbidden) {
		r := End(g, budget, forbidden...)
		r.Elapsed = time.Since(start)
		return r
	}
	r, done := grace(g, stop)
	if !done {
		kill := End(g, budget, forbidden...)
		kill.Seen = max(kill.Seen, r.Seen)
		r = kill
	}
	r.Elapsed = time.Since(start)
	return r
}

// grace sends the stop signal and SIGCONT and waits, polling /proc with
// the same backoff as End (see above), for the group to empty. It reports
// done when no live member is left.
func grace(g Group, stop Stop) (Report, bool) {
	r := Report{Outcome: Empty, Graceful: true}
	if errors.Is(g.Signal(stop.Signal), sys.ErrGone) {
		return r, true
	}
	_ = g.Signal(syscall.SIGCONT)
	deadline := time.Now().Add(stop.Grace)
	wait := firstWait
	for {
		live, err := scan(g)
		if errors.Is(err, sys.ErrGone) || (err == nil && len(live) == 0) {
			return r, true
		}
		if err == nil {
			r.Seen = max(r.Seen, len(live))
		}
		left := time.Until(deadline)
		if left <= 0 {
			return r, false
		}
		pause := time.NewTimer(min(wait, left))
		select {
		case <-stop.Hurry:
			pause.Stop()
			return r, false
		case <-pause.C:
		}
		wait = min(2*wait, maxWait)
	}
}
