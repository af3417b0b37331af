//go:build darwin || freebsd || linux

package end

import (
	"errors"
	"math"
	"syscall"
	"time"

	"github.com/session-starter/session-starter/internal/sys"
)

// notifier is what the Unix waiter polls for a holder: Notify returns a
// descriptor and the poll events that make it ready when the holder may
// have emptied (a pidfd, cgroup.events), or fd -1 when the kernel
// announces nothing.
type notifier interface {
	Notify() (fd int, events int16)
}

// resume follows the grace's stop signal, so that stopped processes can
// act on it.
const resume = syscall.SIGCONT

// waitsOn is how many holders the waiter can be told of at once: all.
const waitsOn = math.MaxInt

// notifies reports whether the kernel announces h's end: it has a
// descriptor to poll.
func (h *held) notifies() bool {
	fd, _ := h.Notify()
	return fd >= 0
}

// waiter sleeps in poll on the holders' descriptors and on a pipe the
// waker writes to.
type waiter struct {
	piped bool
	r, w  int
}

// open makes the pipe, and reports whether it could.
func (w *waiter) open([]*held) bool {
	r, wr, err := sys.Pipe()
	if err != nil {
		return false
	}
	if err := errors.Join(sys.SetNonblock(r, true), sys.SetNonblock(wr, true)); err != nil {
		sys.Close(r)
		sys.Close(wr)
		return false
	}
	w.piped, w.r, w.w = true, r, wr
	return true
}

// poke wakes the poll; a full pipe already wakes it.
func (w *waiter) poke() { _ = sys.WriteAll(w.w, []byte{0}) }

func (w *waiter) shut() {
	sys.Close(w.r)
	sys.Close(w.w)
}

// wait sleeps in poll until a holder's descriptor or the pipe is ready,
// or until the given time.
func (w *waiter) wait(hs []*held, until time.Time) {
	fds := make([]sys.PollFd, 0, len(hs)+1)
	if w.piped {
		fds = append(fds, sys.PollFd{Fd: int32(w.r), Events: sys.POLLIN})
	}
	var polled []*held
	for _, h := range hs {
		if h.empty || h.refused || h.deaf {
			continue
		}
		if fd, ev := h.Notify(); fd >= 0 {
			fds = append(fds, sys.PollFd{Fd: int32(fd), Events: ev})
			polled = append(polled, h)
		}
	}
	defer func() {
		// A closed descriptor is ready for ever: never poll it again.
		for i, h := range polled {
			if fds[len(fds)-len(polled)+i].Revents&sys.POLLNVAL != 0 {
				h.deaf = true
			}
		}
	}()
	d := max(time.Until(until), 0)
	if n, err := sys.Poll(fds, d); err != nil || n < 0 {
		// poll fails only on a bad argument; sleep instead so that the
		// loop stays bounded by the deadline.
		time.Sleep(min(d, MaxLook))
		return
	}
	if w.piped && fds[0].Revents != 0 {
		var b [64]byte
		for {
			if n, err := sys.Read(w.r, b[:]); n <= 0 || err != nil {
				break
			}
		}
	}
}
