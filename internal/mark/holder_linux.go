//go:build linux && !portable

package mark

import (
	"errors"
	"syscall"

	"github.com/session-starter/session-starter/internal/end"
	"github.com/session-starter/session-starter/internal/proc"
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
	// Session is the number of the session group E belongs to. A
	// candidate that cannot be verified is tied to the session by more
	// than its mark when it is in it ([Holder.Unverified]). 0 ties none:
	// it is also what a session reads whose leader is outside this PID
	// namespace, shared by every such session.
	Session int
	// Active, when set, says whether the holder acts at all: while it
	// reports false, Signal and Live see no process (a contained call's
	// marked processes are its other holders' until one is adopted).
	Active func() bool
}

// Unverified lists the live candidates the holder cannot verify, and so
// never signals, that something besides the mark ties to the session:
// this user's processes started after the session whose environment
// cannot be read (mark-unreadable: not dumpable, as ssh-agent makes
// itself) and that are in E's session. Any other such process is as
// likely a same-user process started later (an agent, a sandboxed
// browser) as one of the session's. (One in group E is no candidate:
// the group's signal reaches it.)
func (h *Holder) Unverified() ([]Left, error) {
	found, left, err := Scan(h.ID, h.Since, h.UID, h.Skip)
	closeAll(found)
	if err != nil {
		return nil, err
	}
	var tied []Left
	for _, l := range left {
		if l.Reason != LeftUnreadable {
			continue
		}
		if st, err := proc.ReadStat(l.PID); err == nil && st.Live() && h.Session > 0 && st.Session == h.Session {
			tied = append(tied, l)
		}
	}
	return tied, nil
}

// Kind names the marked processes in an end's report.
const Kind end.Kind = "marked"

// Traits implements end.Holder: a member that forks a daemon before its
// SIGKILL gains one, and each look walks /proc.
func (h *Holder) Traits() end.Traits { return end.Traits{Kind: Kind, Gains: true, Scans: true} }

// Notify implements end.Holder: nothing announces that no marked process
// is left; the end looks again after a backoff.
func (h *Holder) Notify() (int, int16) { return -1, 0 }

// Signal implements end.Holder: sig to every verified marked process, each
// through its own pidfd. sys.ErrGone when none is left.
func (h *Holder) Signal(sig syscall.Signal) error {
	if h.Active != nil && !h.Active() {
		return nil
	}
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
	if h.Active != nil && !h.Active() {
		return nil, nil
	}
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
