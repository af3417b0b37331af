package end

import (
	"errors"
	"math"
	"syscall"
	"time"

	"github.com/session-starter/session-starter/internal/sys"
)

// notifier is what the Windows waiter waits on for a holder: Notify
// returns an I/O completion port that gets a packet when the holder may
// have emptied (a job's: a process joined or exited, or none is left),
// or 0 when nothing is announced.
type notifier interface {
	Notify() (port sys.Handle)
}

// resume is none: no Windows process is stopped by a signal.
const resume syscall.Signal = 0

// waitsOn is how many holders the waiter can be told of at once: it
// waits on one port.
const waitsOn = 1

// notifies reports whether h has a port that gets a packet at its end.
func (h *held) notifies() bool { return h.Notify() != 0 }

// waiter waits on the completion port of the first holder not yet empty
// that has one. The waker wakes it with a packet on every holder's port:
// a packet waits in the port for the next wait, so no wake is lost, and a
// stale one only makes End look once more.
type waiter struct{ ports []sys.Handle }

func (w *waiter) open(hs []*held) bool {
	for _, h := range hs {
		if port := h.Notify(); port != 0 {
			w.ports = append(w.ports, port)
		}
	}
	return true
}

func (w *waiter) poke() {
	for _, port := range w.ports {
		_ = sys.PostQueuedCompletionStatus(port, 0)
	}
}

func (w *waiter) shut() {}

// wait waits until the port gets a packet or until the given time. A port
// that fails is not waited on again: its holder is then looked at after a
// backoff. Without a port to wait on, told is false and until is a backoff
// away at most.
func (w *waiter) wait(hs []*held, until time.Time) {
	d := max(time.Until(until), 0)
	for _, h := range hs {
		if h.empty || h.refused || h.deaf || !h.notifies() {
			continue
		}
		ms := uint32(min((d+time.Millisecond-1)/time.Millisecond, math.MaxUint32-1))
		if err := sys.GetQueuedCompletionStatus(h.Notify(), ms); err != nil && !errors.Is(err, sys.WAIT_TIMEOUT) {
			h.deaf = true
		}
		return
	}
	time.Sleep(d)
}
