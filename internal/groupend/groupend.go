// Package groupend ends a process group: SIGKILL, repeated until no live
// member is left or a budget runs out, with one of four outcomes.
//
// The group is reached only through a [Group], whose Signal must be one
// that cannot reach a reused number (DESIGN.md invariant 3). Live members
// are counted by a /proc scan, and a scan counts only when a signal-0 call
// before it and one after it both succeeded: while the group has a member
// its number cannot be handed out again, so every PID the scan found with
// that group number was in this group. A PID found by a scan is never
// signalled.
//
// The outcomes are those of the seeds: [Empty] (no live member, shown),
// [Unconfirmed] (signalled, but the end could not be observed within the
// budget), [Survivors] (live members after the budget, each named) and
// [Refused] (it was not safe to signal, so nothing was signalled).
package groupend

import (
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/session-starter/session-starter/internal/proc"
	"github.com/session-starter/session-starter/internal/sys"
)

// Group is a process group that can be signalled safely.
type Group interface {
	// Pgid is the group's number.
	Pgid() int
	// Signal sends sig to every member. It returns [sys.ErrGone] once the
	// group has no member at all, zombies included.
	Signal(sig syscall.Signal) error
}

// Outcome is how an attempt to end a group came out.
type Outcome int

const (
	// Empty: no live member is left, and that was shown.
	Empty Outcome = iota + 1
	// Unconfirmed: the group was signalled, but its end could not be
	// observed within the budget.
	Unconfirmed
	// Survivors: live members were left when the budget ran out.
	Survivors
	// Refused: signalling the group was not safe, so nothing was sent.
	Refused
)

func (o Outcome) String() string {
	switch o {
	case Empty:
		return "empty"
	case Unconfirmed:
		return "unconfirmed"
	case Survivors:
		return "survivors"
	case Refused:
		return "refused"
	}
	return fmt.Sprintf("outcome(%d)", int(o))
}

// Member is a live process found in the group.
type Member struct {
	proc.Stat
	// UID is the member's real user ID, or -1 when it could not be read.
	UID int
	// Denied is set when this process may not signal the member: it is
	// not root and the member belongs to another user.
	Denied bool
}

// Report is what End found.
type Report struct {
	Outcome Outcome
	// Rounds counts the SIGKILLs sent to the group.
	Rounds int
	// Seen is the largest number of live members one scan found: a
	// lower bound of the members the group had.
	Seen int
	// Graceful is set when the group emptied within the grace, after the
	// stop signal, without SIGKILL.
	Graceful bool
	// Survivors names the live members of the last trusted scan when
	// Outcome is Survivors.
	Survivors []Member
	// Err holds why the outcome is not Empty: the scan or signal error,
	// or the reason for a refusal.
	Err     error
	Elapsed time.Duration
}

// Describe is a one-line account of a report that is not Empty, for the
// starter's stderr: survivors with PID, uid, state and command name.
func (r Report) Describe() string {
	var b strings.Builder
	fmt.Fprintf(&b, "process group %s", r.Outcome)
	if r.Err != nil {
		fmt.Fprintf(&b, " (%v)", r.Err)
	}
	if len(r.Survivors) > 0 {
		b.WriteString(": still live:")
		for i, m := range r.Survivors {
			if i == 20 {
				fmt.Fprintf(&b, " and %d more", len(r.Survivors)-i)
				break
			}
			fmt.Fprintf(&b, " pid %d uid %d state %c comm %q", m.PID, m.UID, m.State, m.Comm)
			if m.Denied {
				b.WriteString(" (permission denied: another user's process)")
			}
			b.WriteString(";")
		}
	}
	return strings.TrimSuffix(b.String(), ";")
}

// Pacing of the wait for members to exit. A SIGKILLed process needs tens
// to hundreds of milliseconds to finish exiting on a loaded machine
// (LINUX-FACTS.md §5), and nothing in the kernel wakes a waiter when the
// last member of a process group exits, so this one wait polls /proc: it
// starts at firstWait and doubles up to maxWait, which bounds the delay
// added after the last member is gone. SIGKILL is sent again every
// resendAfter, for members forked while the first one was on its way.
const (
	firstWait   = 250 * time.Microsecond
	maxWait     = 20 * time.Millisecond
	resendAfter = 500 * time.Millisecond
)

func refused(g Group, forbidden []int) bool {
	return g.Pgid() <= 1 || slices.Contains(forbidden, g.Pgid())
}

// End sends SIGKILL to g until it has no live member or budget has passed.
// It refuses, sending nothing, when g's number is in forbidden: the groups
// of the caller itself and of its helpers.
func End(g Group, budget time.Duration, forbidden ...int) Report {
	start := time.Now()
	r := end(g, start.Add(budget), forbidden)
	r.Elapsed = time.Since(start)
	return r
}

func end(g Group, deadline time.Time, forbidden []int) Report {
	var r Report
	if refused(g, forbidden) {
		r.Outcome = Refused
		r.Err = fmt.Errorf("group %d is not the Engine's alone", g.Pgid())
		return r
	}
	wait := firstWait
	var lastSend time.Time
	var last []proc.Stat // live members of the last trusted scan
	for {
		if lastSend.IsZero() || time.Since(lastSend) >= resendAfter {
			err := g.Signal(syscall.SIGKILL)
			lastSend = time.Now()
			if errors.Is(err, sys.ErrGone) {
				r.Outcome, r.Err, r.Survivors = Empty, nil, nil
				return r
			}
			if err != nil {
				r.Err = err
			} else {
				r.Rounds++
			}
		}
		live, err := scan(g)
		switch {
		case errors.Is(err, sys.ErrGone):
			r.Outcome, r.Err = Empty, nil
			return r
		case err != nil:
			r.Err = err
			last = nil
		case len(live) == 0:
			r.Outcome, r.Err = Empty, nil
			return r
		default:
			r.Seen = max(r.Seen, len(live))
			last = live
		}
		if time.Now().After(deadline) {
			if last == nil && r.Rounds > 0 {
				r.Outcome = Unconfirmed
				return r
			}
			r.Outcome = Survivors
			euid := os.Geteuid()
			for _, st := range last {
				uid := proc.UID(st.PID)
				r.Survivors = append(r.Survivors, Member{Stat: st, UID: uid, Denied: euid != 0 && uid >= 0 && uid != euid})
			}
			return r
		}
		time.Sleep(min(wait, time.Until(deadline)+time.Microsecond))
		wait = min(2*wait, maxWait)
	}
}

// Settler is a [Group] that can reap the members it is the parent of.
// Settle is called before each look at the group: a group whose members
// were all reaped answers signal 0 with ESRCH, and no /proc scan is
// needed.
type Settler interface {
	Settle()
}

// scan lists the live members of g, trusted only between two successful
// signal-0 calls (see the package doc).
func scan(g Group) ([]proc.Stat, error) {
	if st, ok := g.(Settler); ok {
		st.Settle()
	}
	if err := present(g); err != nil {
		return nil, err
	}
	stats, err := proc.LiveMembers(g.Pgid())
	if err != nil {
		return nil, err
	}
	if err := present(g); err != nil {
		return nil, err
	}
	return stats, nil
}

// present checks with signal 0 that g still has a member. EPERM counts as
// yes: the kernel found members, only none it lets us signal (another
// user's process that joined the group), so the number is still the
// group's.
func present(g Group) error {
	err := g.Signal(0)
	if errors.Is(err, syscall.EPERM) {
		return nil
	}
	return err
}
