package end

import (
	"errors"
	"math"
	"sync/atomic"
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

// told reports whether the waiter is told of the end of every holder that
// is not empty yet: it waits on one port, so there must be one such
// holder at most, and it must have a port.
func told(hs []*held) bool {
	n := 0
	for _, h := range hs {
		if h.empty || h.refused {
			continue
		}
		if n++; n > 1 || h.Notify() == 0 || h.deaf {
			return false
		}
	}
	return true
}

// waiter waits on the completion port of the first holder not yet empty
// that has one; the waker wakes it by posting a packet to that port, or
// through woke when no wait is on a port.
type waiter struct {
	port atomic.Uintptr // the port a wait is on, or 0
	woke chan struct{}
}

func (w *waiter) open() bool {
	w.woke = make(chan struct{}, 1)
	return true
}

// poke wakes the wait under way, or the next one. It is sent on woke
// before it reads port, and a wait sets port before it reads woke: one
// of the two sees the other's.
func (w *waiter) poke() {
	select {
	case w.woke <- struct{}{}:
	default:
	}
	if p := w.port.Load(); p != 0 {
		_ = sys.PostQueuedCompletionStatus(sys.Handle(p), 0)
	}
}

func (w *waiter) shut() {}

// wait waits until the port gets a packet, the waker pokes, or the given
// time. A port that fails is not waited on again: its holder is then
// looked at after a backoff.
func (w *waiter) wait(hs []*held, until time.Time) {
	var on *held
	for _, h := range hs {
		if !h.empty && !h.refused && !h.deaf && h.Notify() != 0 {
			on = h
			break
		}
	}
	d := max(time.Until(until), 0)
	if on == nil {
		t := time.NewTimer(d)
		defer t.Stop()
		select {
		case <-w.woke:
		case <-t.C:
		}
		return
	}
	port := on.Notify()
	w.port.Store(uintptr(port))
	defer w.port.Store(0)
	select {
	case <-w.woke:
		return
	default:
	}
	ms := uint32(min((d+time.Millisecond-1)/time.Millisecond, math.MaxUint32-1))
	if _, err := sys.GetQueuedCompletionStatus(port, ms); err != nil && !errors.Is(err, sys.WAIT_TIMEOUT) {
		on.deaf = true
	}
}
