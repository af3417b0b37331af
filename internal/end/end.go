package end

import (
	"cmp"
	"errors"
	"os"
	"slices"
	"syscall"
	"time"

	"github.com/session-starter/session-starter/internal/sys"
	"github.com/session-starter/session-starter/starter/launch"
)

// Holder holds some of a session's processes.
//
// Signal sends sig to every process the holder holds, through a handle
// that cannot name another process. It returns [sys.ErrGone] once the
// holder holds no process at all, zombies included, and an error
// wrapping [ErrRefused] when signalling it is not safe: the holder is
// then never signalled again.
//
// Live lists the holder's live processes now: none and a nil error
// means it has shown it is empty; an error means it could not be
// observed this time.
//
// Notify tells what the kernel makes ready when the holder may have
// emptied, in the terms of this platform's waiter (see notifier), or that
// nothing is announced: [End] then looks again after a backoff.
//
// Traits says what End must know of the holder's processes.
type Holder interface {
	Traits() Traits
	Signal(sig syscall.Signal) error
	Live() ([]Member, error)
	notifier
}

// ErrRefused is wrapped by a holder's Signal error when signalling it is
// not safe.
var ErrRefused = errors.New("refused to signal")

// ErrUnsendable is wrapped by a holder's Signal error when the holder has
// no way to send that signal: a Windows job's stop signal, without a
// console shared with the Engine. A grace whose stop signal reached no
// holder, and that some holder could not send, is skipped.
var ErrUnsendable = errors.New("no way to send the signal")

// Plan says how to end.
type Plan struct {
	// Stop is sent first, followed by SIGCONT (where there is one) so
	// that stopped processes can act on it, when Grace is positive. Zero
	// or SIGKILL means no grace.
	Stop  syscall.Signal
	Grace time.Duration
	// Budget is how long SIGKILL rounds go on after the grace; 0 or
	// less means [launch.DefaultKillBudget].
	Budget time.Duration
	// Hurry yields the stop signals that arrive during the end. The
	// session's second stop signal ends the grace. With Stopped, the end
	// was begun by a stop signal, so the first on Hurry is that second.
	// Without it the end was begun by something else (the Engine's exit,
	// stdin, the parent, a timeout). Then the first on Hurry only joins
	// the end under way, and the next one ends the grace.
	Hurry   <-chan os.Signal
	Stopped bool
	// Wake makes End look at the holders again when it yields (SIGCHLD:
	// an adopted child exited, or one more was adopted).
	Wake <-chan os.Signal
}

func (p Plan) graceful() bool {
	return p.Grace > 0 && p.Stop != 0 && p.Stop != syscall.SIGKILL
}

// Total is how long an end may take, whatever its holders do: the grace
// (if there is one) + the budget.
func (p Plan) Total() time.Duration {
	budget := cmp.Or(max(p.Budget, 0), launch.DefaultKillBudget)
	if p.graceful() {
		return p.Grace + budget
	}
	return budget
}

// Deadline is when an end that starts at start is over.
func (p Plan) Deadline(start time.Time) time.Time { return start.Add(p.Total()) }

// Pacing, the one for every end (the guard's porch strikes by it too).
// SIGKILL is sent again after FirstRound, then after intervals doubling
// up to MaxRound: a process forked while the first SIGKILL was on its
// way, or a member that a cgroup.kill was seen to leave alive under load,
// gets the next one, and a group of thousands is not flooded. A holder
// the kernel announces nothing for is looked at again after FirstLook,
// doubling up to MaxLook after each SIGKILL round, which bounds the delay
// added after its last process is gone.
const (
	FirstRound = 50 * time.Millisecond
	MaxRound   = 500 * time.Millisecond
	FirstLook  = 250 * time.Microsecond
	MaxLook    = 20 * time.Millisecond
)

// held is End's view of one holder.
type held struct {
	Holder
	empty, refused bool
	deaf           bool  // its descriptor or port failed: looked at after a backoff
	unsendable     error // why it could not send the grace's stop signal
	signalled      bool  // a SIGKILL reached it
	last           []Member
	eagerly        map[int]bool // the members eager sent to: only a new one is sent to again
	err            error
}

// End ends every holder under one deadline, as the package doc says, and
// reports how it came out. Holders are looked at in the order given: put
// those whose look reaps children (the Engine, adopted escapees) before
// the group they were members of. Each signal goes to them in the reverse
// order, the broadest first: one group or cgroup signal reaches every
// member at once, before the Engine's death makes its children orphans
// that the narrower holders would otherwise signal one by one. A signal
// other than SIGKILL goes to the process groups first, and a holder that
// is an [OnceHolder] leaves out what it reached already: each live process
// gets the grace's stop signal once. The adopted escapees are looked at
// at every look, and one found since the last is signalled then, not at
// the next round.
func End(holders []Holder, p Plan) Report {
	start := time.Now()
	deadline := p.Deadline(start)
	r := Report{Seen: map[Kind]int{}}
	hs := make([]*held, len(holders))
	for i, h := range holders {
		hs[i] = &held{Holder: h}
	}
	w := newWaker(hs, p.Hurry, p.Wake, p.Stopped)
	defer w.close()
	done := func(o launch.Outcome) Report {
		r.Outcome = o
		if o == launch.Empty && slices.ContainsFunc(hs, func(h *held) bool { return h.refused }) {
			r.Outcome = launch.Refused
		}
		r.Elapsed = time.Since(start)
		return r
	}

	if p.graceful() {
		// One record per signal for the whole grace: each live process
		// gets the stop signal once, however many holders hold it.
		sends := []send{{p.Stop, NewReached()}}
		if resume != 0 {
			sends = append(sends, send{resume, NewReached()})
		}
		reached := signalAll(hs, sends[0], &r)
		for _, s := range sends[1:] {
			signalAll(hs, s, &r)
		}
		// No holder got the stop signal, and one had no way to send it:
		// there is nothing to wait for.
		if i := slices.IndexFunc(hs, func(h *held) bool { return h.unsendable != nil }); !reached && i >= 0 {
			r.Unsent = hs[i].unsendable
		}
		graceUntil := start.Add(p.Grace)
		look := FirstLook
		for {
			if settled(hs, &r, false, sends...) {
				r.Graceful = true
				return done(launch.Empty)
			}
			eager(hs, &r, sends...)
			now := time.Now()
			if r.Unsent != nil || w.hurried() || !now.Before(graceUntil) {
				break
			}
			w.wait(hs, earliest(graceUntil, now.Add(look), told(hs)))
			look = min(2*look, MaxLook)
		}
	}

	round := FirstRound
	var nextRound time.Time
	look := FirstLook
	var kill send
	for {
		now := time.Now()
		if !now.Before(nextRound) {
			// A fresh record each round: SIGKILL is sent again each round.
			kill = send{syscall.SIGKILL, NewReached()}
			if signalAll(hs, kill, &r) {
				r.Rounds++
			}
			nextRound, round = now.Add(round), min(2*round, MaxRound)
			look = FirstLook
		}
		if settled(hs, &r, false, kill) {
			return done(launch.Empty)
		}
		eager(hs, &r, kill)
		now = time.Now()
		if !now.Before(deadline) {
			// Every holder is looked at for the report, scanners too.
			if settled(hs, &r, true, kill) {
				return done(launch.Empty)
			}
			return done(r.atDeadline(hs))
		}
		until := deadline
		if nextRound.Before(until) {
			until = nextRound
		}
		w.wait(hs, earliest(until, now.Add(look), told(hs)))
		look = min(2*look, MaxLook)
	}
}

// atDeadline sets the survivors and says the outcome of holders that are
// not all empty when the deadline has passed.
func (r *Report) atDeadline(hs []*held) launch.Outcome {
	seen := map[int]bool{}
	unobserved := false
	for _, h := range hs {
		if h.empty || h.refused {
			continue
		}
		if h.last == nil {
			// Not observed: unconfirmed only if SIGKILL reached it.
			unobserved = unobserved || h.signalled
			if !h.signalled && h.err != nil {
				r.Err = h.err
				return launch.Survivors
			}
			if h.err != nil {
				r.Err = h.err
			}
			continue
		}
		for _, m := range h.last {
			if !seen[m.PID] {
				seen[m.PID] = true
				r.Survivors = append(r.Survivors, m)
			}
		}
	}
	if len(r.Survivors) > 0 || !unobserved {
		return launch.Survivors
	}
	return launch.Unconfirmed
}

// send is one signal of a phase of the end, with what it has reached in
// that phase.
type send struct {
	sig     syscall.Signal
	reached *Reached
}

// signalAll sends s to every holder not yet empty or refused, and reports
// whether it reached at least one. SIGKILL goes to them last to first,
// the broadest first (cgroup.kill reaches the whole cgroup at once).
// Another signal goes to the process groups first, then to the others last
// to first: a group signal reaches every member at the same moment, and
// the holders after it leave those members out ([OnceHolder]), so that no
// process gets it twice.
func signalAll(hs []*held, s send, r *Report) bool {
	order := slices.Clone(hs)
	slices.Reverse(order)
	if s.sig != syscall.SIGKILL {
		slices.SortStableFunc(order, func(a, b *held) int {
			return cmp.Compare(rank(a), rank(b))
		})
	}
	reached := false
	for _, h := range order {
		if h.empty || h.refused {
			continue
		}
		if signalOne(h, s, r) {
			reached = true
		}
	}
	return reached
}

// rank puts the holders signalled together before the others.
func rank(h *held) int {
	if h.Traits().Together {
		return 0
	}
	return 1
}

// signalOne sends s to h, leaving out what s reached already where h can,
// and reports whether it reached h.
func signalOne(h *held, s send, r *Report) bool {
	var err error
	if o, ok := h.Holder.(OnceHolder); ok && s.reached != nil {
		err = o.SignalOnce(s.sig, s.reached)
	} else {
		err = h.Signal(s.sig)
	}
	switch {
	case err == nil:
		if s.sig == syscall.SIGKILL {
			h.signalled = true
		}
		return true
	case errors.Is(err, sys.ErrGone):
		h.empty = true
	case errors.Is(err, ErrRefused):
		h.refused, r.Err = true, err
	case errors.Is(err, ErrUnsendable):
		h.unsendable = err
	default:
		h.err = err
	}
	return false
}

// relooked reports whether h is looked at again after it was seen empty:
// a holder that gains processes as others die and whose look is cheap
// (the adopted escapees: one read of this process's children), so that
// an orphan adopted while the rest of the session dies is found at the
// next look, and signalled then (eager).
func relooked(h *held) bool {
	t := h.Traits()
	return t.Gains && !t.Scans
}

// eager sends the phase's signals at once to each holder that gains
// processes as others die (adopted escapees) and whose last look found
// live ones: an orphan adopted between two rounds is signalled at the
// look that finds it — after each SIGCHLD, and at every backoff — not a
// round later, so that a chain of escapees, each adopted when the one
// above it dies, ends at the pace of its deaths. Only a holder that
// leaves out what the phase reached already ([OnceHolder]) is signalled
// so, and only when the look found a member it had not found before (a
// long grace over an escapee that ignores the stop signal does not walk
// its tree at every look); a holder that scans is left to the rounds.
func eager(hs []*held, r *Report, sends ...send) {
	for _, h := range hs {
		if t := h.Traits(); h.empty || h.refused || len(h.last) == 0 || !t.Gains || t.Scans {
			continue
		}
		if _, ok := h.Holder.(OnceHolder); !ok {
			continue
		}
		if h.eagerly == nil {
			h.eagerly = map[int]bool{}
		}
		fresh := false
		for _, m := range h.last {
			if !h.eagerly[m.PID] {
				fresh, h.eagerly[m.PID] = true, true
			}
		}
		if !fresh {
			continue // nothing adopted since: the rounds go on
		}
		for _, s := range sends {
			signalOne(h, s, r)
		}
	}
}

// lookAll looks at every holder not yet shown empty (and again at those
// relooked), and reports whether all are now empty (or refused). Unless full, a holder that scans
// ([Traits.Scans]) behind one that is not empty is not looked at, and
// counts as not empty.
func lookAll(hs []*held, r *Report, full bool) bool {
	all := true
	for _, h := range hs {
		if h.refused || (h.empty && !relooked(h)) {
			continue
		}
		if h.Traits().Unwatched {
			h.empty = true
			continue
		}
		if h.Traits().Scans && !all && !full {
			continue
		}
		live, err := h.Live()
		switch {
		case err != nil:
			h.empty, h.last, h.err = false, nil, err
			all = false
		case len(live) == 0:
			h.empty, h.last = true, nil
		default:
			h.empty, h.last = false, live
			t := h.Traits()
			r.Seen[t.Kind] = max(r.Seen[t.Kind], len(live))
			if t.Whole {
				r.Members = max(r.Members, len(live))
			}
			all = false
		}
	}
	return all
}

// settled looks at every holder and reports whether all are empty. When
// they are, it looks once more at the holders that gain processes as
// others die: adopted escapees (an orphan is adopted by the starter when
// it loses its parent) and the marked processes (a member that forked a
// daemon before its SIGKILL), so one seen empty before the rest of the
// session ended may hold a new process now; once every other holder is
// empty no more can come. Such a holder is sent the phase's signals at once (it got
// none since it gained the orphan; what they reached already is left out), and the end goes on. The other
// holders cannot gain a live process once empty, and are not looked at
// again.
func settled(hs []*held, r *Report, full bool, sends ...send) bool {
	if !lookAll(hs, r, full) {
		return false
	}
	var again []*held
	for _, h := range hs {
		if h.Traits().Gains && !h.refused {
			h.empty = false
			again = append(again, h)
		}
	}
	if lookAll(hs, r, full) {
		return true
	}
	for _, s := range sends {
		signalAll(slices.DeleteFunc(again, func(h *held) bool { return h.empty }), s, r)
	}
	return false
}

// told reports whether the waiter is told of the end of every holder that
// is not empty yet, so that End need not look again without being told:
// each has a descriptor or port that works (notifies, not deaf), and
// they are no more than the waiter waits on at once (waitsOn).
func told(hs []*held) bool {
	n := 0
	for _, h := range hs {
		if h.empty || h.refused {
			continue
		}
		if n++; n > waitsOn || !h.notifies() || h.deaf {
			return false
		}
	}
	return true
}

// earliest is until, or backoff if some holder must be looked at again
// without being told.
func earliest(until, backoff time.Time, told bool) time.Time {
	if told || until.Before(backoff) {
		return until
	}
	return backoff
}

// waker turns the Hurry and Wake channels into a hurry flag and a
// wake-up of this platform's waiter.
type waker struct {
	waiter
	hurry      chan struct{}
	stop, gone chan struct{}
}

func newWaker(hs []*held, hurry, wake <-chan os.Signal, stopped bool) *waker {
	w := &waker{hurry: make(chan struct{})}
	if hurry == nil && wake == nil || !w.open(hs) {
		// Without a wake-up End is not woken early; its waits stay bounded.
		return w
	}
	w.stop, w.gone = make(chan struct{}), make(chan struct{})
	go func() {
		defer close(w.gone)
		for {
			select {
			case <-hurry:
				if !stopped {
					stopped = true // this one joins the end
					continue
				}
				hurry = nil // once
				close(w.hurry)
			case <-wake:
			case <-w.stop:
				return
			}
			w.poke()
		}
	}()
	return w
}

func (w *waker) hurried() bool {
	select {
	case <-w.hurry:
		return true
	default:
		return false
	}
}

func (w *waker) close() {
	if w.stop == nil {
		return
	}
	close(w.stop)
	<-w.gone
	w.shut()
}

// LivePIDs lists, once each and in order, the live processes the holders
// show now; a holder that cannot be observed this time adds none, nor
// one [Traits.Unwatched]. It signals nothing: for a report of what the holders hold.
func LivePIDs(holders []Holder) []int {
	var out []int
	for _, h := range holders {
		if h.Traits().Unwatched {
			continue
		}
		ms, err := h.Live()
		if err != nil {
			continue
		}
		for _, m := range ms {
			out = append(out, m.PID)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}
