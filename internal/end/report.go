package end

import (
	"fmt"
	"strings"
	"time"

	"github.com/session-starter/session-starter/internal/proc"
	"github.com/session-starter/session-starter/starter/launch"
)

// Member is a live process a holder holds.
type Member struct {
	proc.Stat
	// UID is the member's real user ID, or -1 when it could not be read.
	UID int
	// Denied is set when this process may not signal the member: it is
	// not root and the member belongs to another user.
	Denied bool
}

// Kind names what a holder is, for reports only: End acts on [Traits].
// Each holder's package declares its own.
type Kind string

// The kinds of this package's holders.
const (
	KindEngine   Kind = "engine"   // the Engine's own process
	KindGroup    Kind = "group"    // the Engine's process group
	KindEscapees Kind = "escapees" // adopted processes that left the group
)

// Traits is what a holder declares of its processes, and End acts on.
type Traits struct {
	// Kind names the holder in the report's counts.
	Kind Kind
	// Together: one signal reaches every member at the same moment (a
	// process group). Any signal but SIGKILL goes to such holders first,
	// so that the holders after them can leave out what it reached.
	Together bool
	// Gains: processes join it as the rest of the session dies (adopted
	// escapees, marked processes). It is looked at once more after every
	// other holder is empty. A cheap one is looked at again after it was
	// seen empty, and what a look finds is signalled at once.
	Gains bool
	// Scans: a look walks every process of the machine: tens of
	// milliseconds with thousands of processes, and hundreds of ends at
	// once each repeating theirs would starve the very processes they
	// killed of the CPU to exit. End looks at it only once every holder
	// before it was seen empty, and at the deadline: until then the
	// session is not over anyway.
	Scans bool
	// Whole: it holds the whole session (group E, the session cgroup,
	// the job): its largest count is the report's Members.
	Whole bool
	// Unwatched: it is signalled but never looked at, because another
	// holder's emptiness shows its (a call's group inside the call's
	// cgroup). End counts it empty at its first look, as LivePIDs does.
	Unwatched bool
}

// Report is what End found.
type Report struct {
	Outcome launch.Outcome
	// Rounds counts the rounds of SIGKILL that reached a holder.
	Rounds int
	// Seen is, per kind of holder, the largest number of live processes
	// one look found: a lower bound of what it held.
	Seen map[Kind]int
	// Members is the largest number of live processes one look found in
	// a holder of the whole session ([Traits.Whole]).
	Members int
	// Graceful is set when every holder emptied within the grace, after
	// the stop signal, without SIGKILL.
	Graceful bool
	// Unsent, when set, is why the grace was skipped: no holder got its
	// stop signal, and this one had no way to send it ([ErrUnsendable]).
	Unsent error
	// Survivors names the live processes of the last look at each holder
	// that was not empty, once each, when Outcome is Survivors.
	Survivors []Member
	// Err holds why the outcome is not Empty: a holder's error, or the
	// reason for a refusal.
	Err error
	// Elapsed is the time End took.
	Elapsed time.Duration
}

// Describe is a one-line account of a report that is not Empty, for the
// starter's stderr (see [Describe]).
func (r Report) Describe() string { return Describe(r.Outcome, r.Err, Survivors(r.Survivors)) }

// Survivors is the public form of members: their entries of the status
// record.
func Survivors(ms []Member) []launch.Survivor {
	var out []launch.Survivor
	for _, m := range ms {
		out = append(out, launch.Survivor{PID: m.PID, UID: m.UID, State: string(m.State), Comm: m.Comm, Denied: m.Denied})
	}
	return out
}

// maxDescribed bounds the survivors a description names one by one; the
// rest are counted. Twenty fit a terminal's screen and name enough to
// find what escaped; the status record lists them all.
const maxDescribed = 20

// Describe is a one-line account of an end that is not Empty, for
// session-starter's stderr: the outcome, its reason err, and the
// survivors with PID, uid, state and command name.
func Describe(o launch.Outcome, err error, survivors []launch.Survivor) string {
	var b strings.Builder
	fmt.Fprintf(&b, "session end %s", o)
	if err != nil {
		fmt.Fprintf(&b, " (%v)", err)
	}
	if len(survivors) > 0 {
		b.WriteString(": still live:")
		for i, m := range survivors {
			if i == maxDescribed {
				fmt.Fprintf(&b, " and %d more", len(survivors)-i)
				break
			}
			fmt.Fprintf(&b, " pid %d uid %d state %s comm %q", m.PID, m.UID, m.State, m.Comm)
			if m.Denied {
				b.WriteString(" (permission denied: another user's process)")
			}
			b.WriteString(";")
		}
	}
	return strings.TrimSuffix(b.String(), ";")
}
