package end

import (
	"errors"
	"fmt"
	"os"
	"slices"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/session-starter/session-starter/internal/proc"
	"github.com/session-starter/session-starter/internal/sys"
	"github.com/session-starter/session-starter/internal/testproc"
	"github.com/session-starter/session-starter/starter/launch"
)

// script is a fake Holder: it records each signal in a log shared by the
// holders of one test, and answers Live with live().
type script struct {
	name   string
	kind   Kind
	log    *[]string
	live   func() ([]Member, error)
	signal func(sig syscall.Signal) error
}

func (h *script) Traits() Traits          { return traitsOf[h.kind] }
func (h *script) Notify() (int, int16)    { return -1, 0 }
func (h *script) Live() ([]Member, error) { return h.live() }
func (h *script) Signal(sig syscall.Signal) error {
	*h.log = append(*h.log, h.name+":"+sys.SignalName(sig))
	if h.signal != nil {
		return h.signal(sig)
	}
	return nil
}

// kindCgroup stands for a session cgroup's holder.
const kindCgroup Kind = "cgroup"

// traitsOf is the traits of the holders the scripts stand for.
var traitsOf = map[Kind]Traits{
	KindEngine:   {Kind: KindEngine},
	KindGroup:    {Kind: KindGroup, Together: true, Whole: true},
	KindEscapees: {Kind: KindEscapees, Gains: true},
	kindCgroup:   {Kind: kindCgroup, Whole: true},
}

// untilKilled is live (one member, pid) until it has been sent SIGKILL.
func untilKilled(name string, kind Kind, pid int, log *[]string) *script {
	h := &script{name: name, kind: kind, log: log}
	h.live = func() ([]Member, error) {
		if slices.Contains(*log, name+":KILL") {
			return nil, nil
		}
		return []Member{{Stat: proc.Stat{PID: pid, State: 'S', Comm: name}}}, nil
	}
	return h
}

// never is live (one member, pid) whatever it is sent.
func never(name string, pid int, log *[]string) *script {
	return &script{name: name, kind: KindGroup, log: log, live: func() ([]Member, error) {
		return []Member{{Stat: proc.Stat{PID: pid, State: 'D', Comm: name}}}, nil
	}}
}

// TestEveryHolderGetsTheStopSignalThenSIGCONTBeforeAnyGetsSIGKILL: SIGKILL
// reaches the broadest holders first (the cgroup, the group), then the
// escapees and the Engine; the other signals reach the group first, whose
// members the holders after it can then leave out.
func TestEveryHolderGetsTheStopSignalThenSIGCONTBeforeAnyGetsSIGKILL(t *testing.T) {
	var log []string
	hs := []Holder{
		untilKilled("engine", KindEngine, 10, &log),
		untilKilled("escapees", KindEscapees, 11, &log),
		untilKilled("group", KindGroup, 12, &log),
		untilKilled("cgroup", kindCgroup, 13, &log),
	}
	r := End(hs, Plan{Stop: syscall.SIGTERM, Grace: 50 * time.Millisecond, Budget: testproc.TooLong})
	want := []string{
		"group:TERM", "cgroup:TERM", "escapees:TERM", "engine:TERM",
		"group:CONT", "cgroup:CONT", "escapees:CONT", "engine:CONT",
		"cgroup:KILL", "group:KILL", "escapees:KILL", "engine:KILL",
	}
	if !slices.Equal(log, want) {
		t.Fatalf("signals sent:\n%v\nwant\n%v", log, want)
	}
	if r.Outcome != launch.Empty || r.Graceful || r.Rounds != 1 {
		t.Fatalf("End() = %+v, want empty after one round, not graceful", r)
	}
	for _, k := range []Kind{KindEngine, KindEscapees, KindGroup, kindCgroup} {
		if r.Seen[k] != 1 {
			t.Errorf("Seen[%s] = %d, want 1", k, r.Seen[k])
		}
	}
}

func TestAHolderEmptyWithinTheGraceIsNeverSentSIGKILL(t *testing.T) {
	var log []string
	h := &script{name: "group", kind: KindGroup, log: &log}
	h.live = func() ([]Member, error) {
		if slices.Contains(log, "group:TERM") {
			return nil, nil
		}
		return []Member{{Stat: proc.Stat{PID: 5}}}, nil
	}
	r := End([]Holder{h}, Plan{Stop: syscall.SIGTERM, Grace: testproc.TooLong, Budget: testproc.TooLong})
	if r.Outcome != launch.Empty || !r.Graceful || r.Rounds != 0 || slices.Contains(log, "group:KILL") {
		t.Fatalf("End() = %+v after %v, want graceful and empty with no SIGKILL", r, log)
	}
}

// TestAGraceWhoseStopSignalNoHolderCouldSendIsSkipped: nothing was asked
// to stop, so nothing is waited for: SIGKILL follows at once. A holder
// that could be sent the stop signal keeps the grace for all.
func TestAGraceWhoseStopSignalNoHolderCouldSendIsSkipped(t *testing.T) {
	unsendable := func(sig syscall.Signal) error {
		if sig == syscall.SIGKILL {
			return nil
		}
		return fmt.Errorf("%w: no console", ErrUnsendable)
	}
	var log []string
	job := untilKilled("job", kindCgroup, 5, &log)
	job.signal = unsendable
	r := End([]Holder{job}, Plan{Stop: syscall.SIGTERM, Grace: testproc.TooLong, Budget: testproc.TooLong})
	if r.Outcome != launch.Empty || r.Graceful || r.Rounds < 1 || r.Err != nil {
		t.Fatalf("End() = %+v after %v, want SIGKILL at once, and empty", r, log)
	}
	if r.Elapsed > testproc.TooLong/2 {
		t.Fatalf("End() took %v, want the grace skipped", r.Elapsed)
	}
	if !errors.Is(r.Unsent, ErrUnsendable) {
		t.Fatalf("End().Unsent = %v, want why the grace was skipped", r.Unsent)
	}

	log = nil
	job = untilKilled("job", kindCgroup, 5, &log)
	job.signal = unsendable
	group := &script{name: "group", kind: KindGroup, log: &log}
	group.live = func() ([]Member, error) {
		if slices.Contains(log, "group:TERM") {
			return nil, nil
		}
		return []Member{{Stat: proc.Stat{PID: 6}}}, nil
	}
	r = End([]Holder{job, group}, Plan{Stop: syscall.SIGTERM, Grace: 300 * time.Millisecond, Budget: testproc.TooLong})
	if r.Outcome != launch.Empty || r.Elapsed < 300*time.Millisecond {
		t.Fatalf("End() = %+v after %v, want the grace of 300ms kept for the group", r, log)
	}
	if r.Unsent != nil {
		t.Fatalf("End().Unsent = %v, want none: the group got the stop signal", r.Unsent)
	}
}

// The whole end — grace and kill budget — is one deadline: a holder that
// never empties makes End return at grace + budget, not later, and name
// what is live.
func TestTheWholeEndIsBoundedByTheGracePlusTheKillBudget(t *testing.T) {
	var log []string
	const grace, budget = 300 * time.Millisecond, 400 * time.Millisecond
	hs := []Holder{untilKilled("engine", KindEngine, 10, &log), never("frozen", 42, &log)}
	r := End(hs, Plan{Stop: syscall.SIGTERM, Grace: grace, Budget: budget})
	if r.Outcome != launch.Survivors || len(r.Survivors) != 1 || r.Survivors[0].PID != 42 {
		t.Fatalf("End() = %+v, want survivors naming pid 42 alone", r)
	}
	if r.Elapsed < grace+budget || r.Elapsed > grace+budget+time.Second {
		t.Errorf("End() took %v, want grace + budget = %v (and little more)", r.Elapsed, grace+budget)
	}
	// Rounds of SIGKILL at 0, 50, 150 and 350 ms of the budget.
	if r.Rounds < 2 {
		t.Errorf("End() sent %d rounds of SIGKILL in %v, want the rounds repeated", r.Rounds, budget)
	}
	t.Logf("%d rounds in %v", r.Rounds, r.Elapsed)
}

func TestASecondStopSignalEndsTheGraceAtOnce(t *testing.T) {
	var log []string
	hurry := make(chan os.Signal, 1)
	hurry <- syscall.SIGTERM
	start := time.Now()
	r := End([]Holder{untilKilled("group", KindGroup, 7, &log)}, Plan{Stop: syscall.SIGTERM, Grace: testproc.TooLong, Budget: testproc.TooLong, Hurry: hurry, Stopped: true})
	if r.Outcome != launch.Empty || r.Graceful || !slices.Contains(log, "group:KILL") {
		t.Fatalf("End() = %+v after %v, want SIGKILL and empty", r, log)
	}
	if d := time.Since(start); d > testproc.TooLong/2 {
		t.Fatalf("End() took %v with a hurry pending, want the grace cut short", d)
	}
}

// TestTheFirstStopSignalOfAnEndBegunElsewhereJoinsIt: an end begun by
// something else than a stop signal (stdin, a timeout) keeps its grace
// through the session's first stop signal. The second ends the grace.
func TestTheFirstStopSignalOfAnEndBegunElsewhereJoinsIt(t *testing.T) {
	var looks atomic.Int32
	var killed, secondSent atomic.Bool
	var killedEarly atomic.Bool
	h := &script{name: "group", kind: KindGroup, log: new([]string)}
	h.live = func() ([]Member, error) {
		looks.Add(1)
		if killed.Load() {
			return nil, nil
		}
		return []Member{{Stat: proc.Stat{PID: 7, State: 'S', Comm: "group"}}}, nil
	}
	h.signal = func(sig syscall.Signal) error {
		if sig == syscall.SIGKILL {
			killedEarly.Store(!secondSent.Load())
			killed.Store(true)
		}
		return nil
	}
	hurry := make(chan os.Signal) // unbuffered: a send returns once End took it
	ended := make(chan Report, 1)
	go func() {
		ended <- End([]Holder{h}, Plan{Stop: syscall.SIGTERM, Grace: testproc.TooLong, Budget: testproc.TooLong, Hurry: hurry})
	}()
	hurry <- syscall.SIGTERM
	// Two more looks at the holder, and it was not killed: the first stop
	// signal did not end the grace.
	seen := looks.Load()
	testproc.Eventually(t, "End to look twice after the first stop signal, or to kill", func() bool {
		return killed.Load() || looks.Load() >= seen+2
	})
	if killed.Load() {
		t.Fatalf("End() sent SIGKILL after the first stop signal (%v), want the grace kept until the second", <-ended)
	}
	secondSent.Store(true)
	hurry <- syscall.SIGTERM
	r := <-ended
	if killedEarly.Load() || r.Outcome != launch.Empty || r.Graceful || !killed.Load() {
		t.Fatalf("End() = %+v, want SIGKILL after the second stop signal, and empty", r)
	}
}

func TestARefusedHolderIsNotSignalledAndTheOthersAreStillEnded(t *testing.T) {
	var log []string
	refuse := &script{name: "own", kind: KindGroup, log: &log, live: func() ([]Member, error) {
		t.Error("Live of a refused holder was called")
		return nil, nil
	}, signal: func(syscall.Signal) error { return fmt.Errorf("%w: our own group", ErrRefused) }}
	r := End([]Holder{refuse, untilKilled("engine", KindEngine, 3, &log)}, Plan{Budget: testproc.TooLong})
	if r.Outcome != launch.Refused || !errors.Is(r.Err, ErrRefused) {
		t.Fatalf("End() = %+v, want refused with the reason", r)
	}
	if !slices.Equal(log, []string{"engine:KILL", "own:KILL"}) {
		t.Fatalf("signals = %v, want one attempt at the refused holder and SIGKILL to the other", log)
	}
}

// Escapees are adopted as the rest of the session dies: a holder of them
// seen empty early is looked at again once every other holder is empty,
// and what it gained in between is ended.
func TestEscapeesAdoptedAfterTheirHolderWasSeenEmptyAreEnded(t *testing.T) {
	var log []string
	orphanAt := -1 // where the log stood when the orphan was adopted
	esc := &script{name: "escapees", kind: KindEscapees, log: &log}
	esc.live = func() ([]Member, error) {
		if orphanAt >= 0 && !slices.Contains(log[orphanAt:], "escapees:KILL") {
			return []Member{{Stat: proc.Stat{PID: 77}}}, nil
		}
		return nil, nil
	}
	grp := &script{name: "group", kind: KindGroup, log: &log}
	grp.live = func() ([]Member, error) {
		if slices.Contains(log, "group:KILL") {
			if orphanAt < 0 {
				orphanAt = len(log) // the group's death orphans one
			}
			return nil, nil
		}
		return []Member{{Stat: proc.Stat{PID: 5}}}, nil
	}
	r := End([]Holder{esc, grp}, Plan{Budget: testproc.TooLong})
	want := []string{"group:KILL", "escapees:KILL", "escapees:KILL"}
	if r.Outcome != launch.Empty || !slices.Equal(log, want) {
		t.Fatalf("End() = %+v after %v, want %v: the late orphan sent SIGKILL at once, then empty", r, log, want)
	}
}

// scanning is a script that is a scanner, like a group's /proc scan.
type scanning struct{ *script }

func (s scanning) Traits() Traits {
	t := s.script.Traits()
	t.Scans = true
	return t
}

// unwatched is a script whose emptiness another holder shows.
type unwatched struct{ *script }

func (u unwatched) Traits() Traits {
	t := u.script.Traits()
	t.Unwatched = true
	return t
}

// TestAnUnwatchedHolderIsSignalledButNeverLookedAt: a group inside a
// cgroup gets the grace's stop signal, while the cgroup's emptiness
// alone ends the end, and LivePIDs does not list it.
func TestAnUnwatchedHolderIsSignalledButNeverLookedAt(t *testing.T) {
	var log []string
	looked := false
	group := unwatched{&script{name: "group", kind: KindGroup, log: &log, live: func() ([]Member, error) {
		looked = true
		return []Member{{Stat: proc.Stat{PID: 12, State: 'S', Comm: "group"}}}, nil
	}}}
	cg := &script{name: "cgroup", kind: kindCgroup, log: &log}
	cg.live = func() ([]Member, error) {
		if slices.Contains(log, "cgroup:TERM") {
			return nil, nil
		}
		return []Member{{Stat: proc.Stat{PID: 12, State: 'S', Comm: "group"}}}, nil
	}
	r := End([]Holder{group, cg}, Plan{Stop: syscall.SIGTERM, Grace: testproc.TooLong, Budget: testproc.TooLong})
	if r.Outcome != launch.Empty || !r.Graceful || !slices.Contains(log, "group:TERM") {
		t.Fatalf("End() = %+v after %v, want empty within the grace, the group sent SIGTERM", r, log)
	}
	if pids := LivePIDs([]Holder{group}); looked || len(pids) != 0 {
		t.Fatalf("the unwatched group was looked at (LivePIDs = %v); want never", pids)
	}
}

// TestAScanIsNotRepeatedWhileAHolderBeforeItIsLive: while the Engine's
// holder is live the session is not over, so the group's costly scan
// waits; it is made once the Engine is seen empty (and once more to
// confirm), not at every look.
func TestAScanIsNotRepeatedWhileAHolderBeforeItIsLive(t *testing.T) {
	var log []string
	looks := 0
	engine := &script{name: "engine", kind: KindEngine, log: &log}
	engine.live = func() ([]Member, error) {
		looks++
		if looks < 20 {
			return []Member{{Stat: proc.Stat{PID: 10, State: 'R', Comm: "engine"}}}, nil
		}
		return nil, nil
	}
	scans := 0
	// The Engine is a member of the group: live while it is.
	group := scanning{&script{name: "group", kind: KindGroup, log: &log, live: func() ([]Member, error) {
		scans++
		if looks < 20 {
			return []Member{{Stat: proc.Stat{PID: 10, State: 'R', Comm: "engine"}}}, nil
		}
		return nil, nil
	}}}
	r := End([]Holder{engine, group}, Plan{Budget: testproc.TooLong})
	if r.Outcome != launch.Empty {
		t.Fatalf("End() = %+v, want empty", r)
	}
	if scans > 2 {
		t.Fatalf("the group was scanned %d times during %d looks at a live Engine; want only after it emptied (at most 2)", scans, looks)
	}
}

// TestAScannerIsLookedAtForTheReportAtTheDeadline: a holder that never
// empties before a scanner still has the scanner looked at once the
// budget is over, so that its survivors are named.
func TestAScannerIsLookedAtForTheReportAtTheDeadline(t *testing.T) {
	var log []string
	engine := never("engine", 10, &log)
	engine.kind = KindEngine
	group := scanning{never("group", 12, &log)}
	r := End([]Holder{engine, group}, Plan{Budget: 100 * time.Millisecond})
	if r.Outcome != launch.Survivors || len(r.Survivors) != 2 || r.Seen[KindGroup] != 1 || r.Members != 1 {
		t.Fatalf("End() = %+v, want both holders' members as survivors", r)
	}
}

// once is a script that is an OnceHolder for the process pid of group
// pgrp (a group holder when pid is 0): it leaves itself out when r has it.
type once struct {
	*script
	pid, pgrp int
}

func (o once) SignalOnce(sig syscall.Signal, r *Reached) error {
	if (o.pid == 0 && r.HasGroup(o.pgrp)) || (o.pid != 0 && r.Has(o.pid, o.pgrp)) {
		return nil
	}
	err := o.Signal(sig)
	if o.pid == 0 {
		r.Group(o.pgrp)
	} else {
		r.Process(o.pid)
	}
	return err
}

// TestTheStopSignalLeavesOutWhatAGroupSignalReached: the group is
// signalled first, and a holder of one of its members then leaves it out,
// SIGKILL too within a round; a holder of a process outside it does not.
func TestTheStopSignalLeavesOutWhatAGroupSignalReached(t *testing.T) {
	var log []string
	group := once{untilKilled("group", KindGroup, 7, &log), 0, 7}
	engine := once{&script{name: "engine", kind: KindEngine, log: &log, live: group.live}, 7, 7} // a member
	stray := once{untilKilled("stray", KindEscapees, 8, &log), 8, 8}
	r := End([]Holder{engine, stray, group}, Plan{Stop: syscall.SIGTERM, Grace: 50 * time.Millisecond, Budget: testproc.TooLong})
	want := []string{"group:TERM", "stray:TERM", "group:CONT", "stray:CONT", "group:KILL", "stray:KILL"}
	if r.Outcome != launch.Empty || !slices.Equal(log, want) {
		t.Fatalf("End() = %+v after %v, want %v", r, log, want)
	}
}

// adopting is a script of escapees that is an OnceHolder: SignalOnce
// signals (logs) only when one of its live members is not in r yet.
type adopting struct{ *script }

func (a adopting) SignalOnce(sig syscall.Signal, r *Reached) error {
	live, _ := a.live()
	for _, m := range live {
		if !r.Has(m.PID, m.PID) {
			r.Process(m.PID)
			return a.Signal(sig)
		}
	}
	return nil
}

// TestAnOrphanAdoptedBetweenRoundsIsKilledAtTheLookThatFindsIt: an escapee
// adopted after the first round of SIGKILL is sent SIGKILL as soon as a
// look finds it, before the second round.
func TestAnOrphanAdoptedBetweenRoundsIsKilledAtTheLookThatFindsIt(t *testing.T) {
	var log []string
	looks := 0
	esc := adopting{&script{name: "escapees", kind: KindEscapees, log: &log}}
	esc.live = func() ([]Member, error) {
		looks++
		if looks > 3 && !slices.Contains(log, "escapees:KILL") {
			return []Member{{Stat: proc.Stat{PID: 77}}}, nil
		}
		return nil, nil
	}
	group := untilKilled("group", KindGroup, 5, &log)
	group.live = func() ([]Member, error) {
		if slices.Contains(log, "escapees:KILL") {
			return nil, nil
		}
		return []Member{{Stat: proc.Stat{PID: 5}}}, nil // holds the end open
	}
	r := End([]Holder{esc, group}, Plan{Budget: 2 * time.Second})
	want := []string{"group:KILL", "escapees:KILL"}
	if r.Outcome != launch.Empty || !slices.Equal(log, want) {
		t.Fatalf("End() = %+v after %v, want %v: the orphan killed before the second round", r, log, want)
	}
}

// TestLivePIDsListsEachLiveProcessOnceAndSignalsNothing: a process two
// holders hold is listed once, and stays running.
func TestLivePIDsListsEachLiveProcessOnceAndSignalsNothing(t *testing.T) {
	leader := testproc.StartLeader(t, os.Stdout, "/bin/sleep", "600")
	p := &Process{PID: leader.PID, Pidfd: leader.Pidfd, Child: true}
	g := Group{PGID: leader.PID, Send: PidfdGroupSend(leader.Pidfd)}
	if got := LivePIDs([]Holder{p, g}); !slices.Equal(got, []int{leader.PID}) {
		t.Fatalf("LivePIDs = %v, want [%d]", got, leader.PID)
	}
	if leader.Exited(0) {
		t.Fatal("LivePIDs signalled the process")
	}
}

// TestAPlanWithoutABudgetTakesTheDefaultKillBudget: a budget of 0 or less
// is launch.DefaultKillBudget, after the grace when there is one.
func TestAPlanWithoutABudgetTakesTheDefaultKillBudget(t *testing.T) {
	for _, tt := range []struct {
		p    Plan
		want time.Duration
	}{
		{Plan{}, launch.DefaultKillBudget},
		{Plan{Budget: -time.Second}, launch.DefaultKillBudget},
		{Plan{Stop: syscall.SIGTERM, Grace: time.Second}, time.Second + launch.DefaultKillBudget},
		{Plan{Budget: time.Second}, time.Second},
	} {
		if got := tt.p.Total(); got != tt.want {
			t.Errorf("%+v.Total() = %v, want %v", tt.p, got, tt.want)
		}
	}
}
