//go:build linux && !portable

package mark

import (
	"errors"
	"syscall"

	"github.com/session-starter/session-starter/internal/end"
	"github.com/session-starter/session-starter/internal/sys"
)

// Holder holds the live processes that carry a session's mark, as the
// end routine's holder (package internal/end): the processes a starter's
// subreaper sweep would have ended, had the starter not been SIGKILLed —
// those that left group E, double-forking daemons included. Every look and
// every signal scans /proc again ([Scan]), so what forked since is found;
// it signals only through the pidfds of processes it has just verified.
type Holder struct {
	ID    ID
	Since uint64 // the session's start, in clock ticks since boot
	UID   int
	Skip  func(pid int) bool
}

// Kind implements end.Holder.
func (h *Holder) Kind() end.Kind { return end.KindMarked }

// Scans marks the holder as an end.Scanner: each look walks /proc.
func (h *Holder) Scans() {}

// Notify implements end.Holder: nothing announces that no marked process
// is left; the end looks again after a backoff.
func (h *Holder) Notify() (int, int16) { return -1, 0 }

// Signal implements end.Holder: sig to every verified marked process, each
// through its own pidfd. sys.ErrGone when none is left.
func (h *Holder) Signal(sig syscall.Signal) error {
	found, _, err := Scan(h.ID, h.Since, h.UID, h.Skip)
	if err != nil {
		return err
	}
	defer closeAll(found)
	if len(found) == 0 {
		return sys.ErrGone
	}
	var errs []error
	for _, f := range found {
		if err := sys.PidfdSignal(f.Pidfd, sig); err != nil && !errors.Is(err, sys.ErrGone) {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// Live implements end.Holder: the verified marked processes now.
func (h *Holder) Live() ([]end.Member, error) {
	found, _, err := Scan(h.ID, h.Since, h.UID, h.Skip)
	if err != nil {
		return nil, err
	}
	defer closeAll(found)
	members := make([]end.Member, 0, len(found))
	for _, f := range found {
		members = append(members, end.Member{Stat: f.Stat, UID: f.UID})
	}
	return members, nil
}

func closeAll(found []Found) {
	for _, f := range found {
		sys.Close(f.Pidfd)
	}
}
