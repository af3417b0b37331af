//go:build darwin || freebsd || linux

package lineage

import (
	"errors"
	"io"
	"os"
	"slices"
	"syscall"
	"testing"

	"github.com/session-starter/session-starter/internal/end"
	"github.com/session-starter/session-starter/internal/mark"
	"github.com/session-starter/session-starter/internal/proc"
	"github.com/session-starter/session-starter/internal/sys"
	"github.com/session-starter/session-starter/internal/testproc"
)

// The tables here are fabricated: macOS-like ones name processes by
// unique id, with the parent's unique id kept after the parent died;
// FreeBSD-like ones by PID and start time.

const me = 501

// fake is one process of a fabricated machine.
type fake struct {
	p       Proc
	alive   bool
	stopped bool
	signals []syscall.Signal
	// survives is set for a process SIGKILL does not end (one in the
	// kernel's uninterruptible wait): the signal is taken, the process
	// stays.
	survives bool
	// reread, when set, is what a fresh read of the process gives (Open)
	// where it differs from the snapshot's record: it changed since.
	reread *Proc
}

// machine is a fabricated process table: pids maps each number to the
// process that holds it now.
type machine struct {
	pids   map[int]*fake
	snaps  int
	before func(snap int) // runs before each snapshot is read
}

func newMachine(ps ...Proc) *machine {
	m := &machine{pids: map[int]*fake{}}
	for _, p := range ps {
		m.add(p)
	}
	return m
}

func (m *machine) add(p Proc) *fake {
	f := &fake{p: p, alive: true}
	f.p.Stat.PID, f.p.Stat.State = p.ID.PID, 'S'
	m.pids[p.ID.PID] = f
	return f
}

func (m *machine) table() Table {
	return Table{
		Snapshot: func() ([]Proc, error) {
			m.snaps++
			if m.before != nil {
				m.before(m.snaps)
			}
			var out []Proc
			for _, f := range m.pids {
				if f.alive {
					out = append(out, f.p)
				}
			}
			return out, nil
		},
		Open: func(pid int) (Handle, Proc, error) {
			f := m.pids[pid]
			if f == nil || !f.alive {
				return nil, Proc{}, sys.ErrGone
			}
			if f.reread != nil {
				return handle{f}, *f.reread, nil
			}
			return handle{f}, f.p, nil
		},
	}
}

type handle struct{ f *fake }

func (h handle) Signal(sig syscall.Signal) error {
	if !h.f.alive {
		return sys.ErrGone
	}
	h.f.signals = append(h.f.signals, sig)
	switch sig {
	case syscall.SIGKILL, syscall.SIGTERM:
		h.f.alive = h.f.survives
	case syscall.SIGSTOP:
		h.f.stopped = true
	case syscall.SIGCONT:
		h.f.stopped = false
	}
	return nil
}

func (handle) Close() {}

// mac is a macOS-like process: pid, unique id, the parent's unique id.
func mac(pid int, unique, parent uint64) Proc {
	return Proc{ID: Identity{PID: pid, Unique: unique}, Parent: Identity{Unique: parent}, UID: me}
}

// newTracker is a sweep over an empty table, whose passes the test
// takes itself over the snapshots it makes.
func newTracker(root Identity, uid int) *Sweep {
	return NewSweep(root, uid, Table{Snapshot: func() ([]Proc, error) { return nil, nil }})
}

func signalled(f *fake) bool { return len(f.signals) > 0 }

var engine = Identity{PID: 100, Unique: 1000}

func TestMain(m *testing.M) {
	testproc.RunHelper()
	os.Exit(testproc.CheckHelpersUsed(m.Run()))
}

func init() {
	// idle: wait for the end of input.
	testproc.Register("idle", func([]string) int {
		_, _ = io.Copy(io.Discard, os.Stdin)
		return 0
	})
}

// TestAnOrphanAdoptedByLaunchdIsFoundByItsParentsUniqueID: the Engine and
// the middle of a double fork are gone; the daemon's PPID is 1, its
// parent unique id the middle's, seen while it lived.
func TestAnOrphanAdoptedByLaunchdIsFoundByItsParentsUniqueID(t *testing.T) {
	m := newMachine(mac(200, 1001, 1000), mac(300, 1002, 1001))
	m.pids[200].p.Stat.PPID, m.pids[300].p.Stat.PPID = 100, 200
	s := NewSweep(engine, me, m.table())
	m.pids[200].alive = false
	m.pids[300].p.Stat.PPID = 1
	if err := s.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(m.pids[300].signals, []syscall.Signal{syscall.SIGTERM}) {
		t.Fatalf("the adopted daemon got %v, want SIGTERM", m.pids[300].signals)
	}
	if err := s.Signal(syscall.SIGTERM); !errors.Is(err, sys.ErrGone) {
		t.Fatalf("Signal with nothing left = %v, want ErrGone", err)
	}
}

// TestAChildOfTheEngineIsFoundAfterTheEngineIsGone: the Engine's own
// unique id is the root, whether it lives or not.
func TestAChildOfTheEngineIsFoundAfterTheEngineIsGone(t *testing.T) {
	m := newMachine(mac(200, 1001, 1000))
	s := newTracker(engine, me)
	snap, _ := m.table().Snapshot()
	if s.Pass(snap) != 1 {
		t.Fatalf("found %v, want the setsid child", s.Found())
	}
}

// TestPPIDOneIsNoPredicate: processes adopted by launchd that the session
// never started are strangers, whatever their PPID.
func TestPPIDOneIsNoPredicate(t *testing.T) {
	stranger := mac(400, 5000, 77)
	stranger.Stat.PPID = 1
	m := newMachine(stranger, mac(401, 5001, 0))
	s := NewSweep(engine, me, m.table())
	if err := s.Signal(syscall.SIGKILL); !errors.Is(err, sys.ErrGone) {
		t.Fatalf("Signal = %v, want ErrGone: nothing of the session", err)
	}
	for pid, f := range m.pids {
		if signalled(f) {
			t.Errorf("stranger %d got %v", pid, f.signals)
		}
	}
}

// TestAStrangerThatTookAFoundPIDIsNotSignalled: the escapee found died,
// and its number went to a stranger before the signal: the fresh read's
// unique id is not the one found.
func TestAStrangerThatTookAFoundPIDIsNotSignalled(t *testing.T) {
	m := newMachine(mac(200, 1001, 1000))
	s := NewSweep(engine, me, m.table())
	m.pids[200].alive = false
	stranger := m.add(mac(200, 9999, 42))
	if err := s.Signal(syscall.SIGKILL); !errors.Is(err, sys.ErrGone) {
		t.Fatalf("Signal = %v, want ErrGone", err)
	}
	if signalled(stranger) {
		t.Fatalf("the stranger holding pid 200 got %v", stranger.signals)
	}
	if live, err := s.Live(); err != nil || len(live) != 0 {
		t.Fatalf("Live = %v, %v; want nothing: the stranger is not the escapee", live, err)
	}
}

// TestAProcessOfAnotherUserIsReportedNeverSignalled: a descendant that
// changed its user (a setuid program) is found, listed as a survivor
// this process may not signal, and never signalled.
func TestAProcessOfAnotherUserIsReportedNeverSignalled(t *testing.T) {
	other := mac(200, 1001, 1000)
	other.UID = 0
	m := newMachine(other, mac(201, 1002, 1000))
	s := NewSweep(engine, me, m.table())
	for range 3 {
		if err := s.Signal(syscall.SIGKILL); err != nil && !errors.Is(err, sys.ErrGone) {
			t.Fatal(err)
		}
	}
	if signalled(m.pids[200]) {
		t.Fatalf("another user's process got %v", m.pids[200].signals)
	}
	if !signalled(m.pids[201]) {
		t.Fatal("the session's own escapee beside it was not signalled")
	}
	live, err := s.Live()
	if err != nil || len(live) != 1 || live[0].PID != 200 || !live[0].Denied || live[0].UID != 0 {
		t.Fatalf("Live = %+v, %v; want pid 200 of uid 0, denied", live, err)
	}
}

// TestAForkDuringThePassIsFoundByTheNext: a process the escapee forks
// after the first snapshot was read shows in the second, and is found.
func TestAForkDuringThePassIsFoundByTheNext(t *testing.T) {
	m := newMachine(mac(200, 1001, 1000))
	m.before = func(n int) {
		if n == 2 {
			m.add(mac(201, 1002, 1001))
		}
	}
	s := NewSweep(engine, me, m.table())
	if got := len(s.Found()); got != 2 {
		t.Fatalf("after the first passes, found %v; want the escapee and its fork", s.Found())
	}
	if m.snaps < 3 {
		t.Fatalf("%d snapshots: the passes did not go on until one found nothing new", m.snaps)
	}
}

// TestAForkOfAStoppedTreeIsKilledToo: SIGKILL stops what it found, looks
// again, and kills what was forked meanwhile, then continues the rest.
func TestAForkOfAStoppedTreeIsKilledToo(t *testing.T) {
	m := newMachine(mac(200, 1001, 1000))
	s := NewSweep(engine, me, m.table())
	m.before = func(int) {
		if m.pids[200].stopped && m.pids[201] == nil {
			m.add(mac(201, 1002, 1001)) // forked while the SIGSTOP was on its way
		}
	}
	if err := s.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	if got := m.pids[200].signals; !slices.Equal(got, []syscall.Signal{syscall.SIGSTOP, syscall.SIGKILL}) {
		t.Errorf("the escapee got %v, want SIGSTOP then SIGKILL", got)
	}
	if got := m.pids[201].signals; !slices.Contains(got, syscall.SIGKILL) {
		t.Errorf("its fork got %v, want SIGKILL", got)
	}
}

// TestTheMarkFindsOnlyTheSessionsUsersProcessesStartedAfterTheEngine.
func TestTheMarkFindsOnlyTheSessionsUsersProcessesStartedAfterTheEngine(t *testing.T) {
	yes := func() (bool, bool) { return true, true }
	lost := mac(300, 2000, 0) // its parent never seen: found by its mark
	lost.Marked = yes
	early := mac(301, 900, 0) // carries the mark, started before the Engine
	early.Marked = yes
	foreign := mac(302, 2001, 0)
	foreign.UID, foreign.Marked = 0, yes
	unmarked := mac(303, 2002, 0)
	unmarked.Marked = func() (bool, bool) { return false, true }
	asked := false
	child := mac(304, 2003, 1000)
	child.Marked = func() (bool, bool) { asked = true; return false, true }
	m := newMachine(lost, early, foreign, unmarked, child)
	tr := newTracker(engine, me)
	snap, _ := m.table().Snapshot()
	tr.Pass(snap)
	var got []int
	for _, p := range tr.Found() {
		got = append(got, p.ID.PID)
	}
	if !slices.Equal(got, []int{300, 304}) {
		t.Fatalf("found %v, want 300 (marked) and 304 (the Engine's child)", got)
	}
	if asked {
		t.Error("the environment of a process found by its parent was read")
	}
}

// TestAFreeBSDChainIsFollowedByPIDAndStartTime: parents are named by
// (PID, start) from the same listing; a PPID whose number names a process
// younger than the child is not its parent.
func TestAFreeBSDChainIsFollowedByPIDAndStartTime(t *testing.T) {
	root := Identity{PID: 100, Start: 10}
	bsd := func(pid int, start uint64, ppid int) Proc {
		return Proc{ID: Identity{PID: pid, Start: start}, UID: me, Stat: proc.Stat{PID: pid, PPID: ppid}}
	}
	tr := newTracker(root, me)
	// 400 started before the listing's 100 did: that 100 cannot be its
	// parent (its parent, gone, had the number before).
	snap := byPID([]Proc{bsd(300, 30, 200), bsd(200, 20, 100), bsd(100, 10, 1), bsd(400, 5, 100)})
	if p := snap[3].Parent; p.known() {
		t.Fatalf("400, started before the listing's 100, has parent %+v", p)
	}
	tr.Pass(snap)
	var got []int
	for _, p := range tr.Found() {
		got = append(got, p.ID.PID)
	}
	if !slices.Equal(got, []int{200, 300}) {
		t.Fatalf("found %v, want 200 and its child 300 (listed first)", got)
	}
	if tr.Verify(bsd(200, 21, 1)) {
		t.Error("pid 200 with another start time verified")
	}
	if !tr.Verify(bsd(200, 20, 1)) {
		t.Error("pid 200, adopted by init since, did not verify")
	}
}

// TestAChildsMarkIsReadBackOffTheLiveProcess: the mark in a real child's
// environment is found, another session's is not, and neither once the
// start time read again is not the one listed.
func TestAChildsMarkIsReadBackOffTheLiveProcess(t *testing.T) {
	ours, err := mark.New()
	if err != nil {
		t.Fatal(err)
	}
	theirs, err := mark.New()
	if err != nil {
		t.Fatal(err)
	}
	// This test binary, not a platform binary: macOS leaves the
	// environment of a restricted process out of kern.procargs2.
	cmd := testproc.HelperCommand(t, "idle")
	cmd.Env = mark.Extend(cmd.Env, theirs)
	cmd.Env = mark.Extend(cmd.Env, ours)
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		in.Close()
		_ = cmd.Wait()
	})
	pid := cmd.Process.Pid
	st, err := proc.ReadStat(pid)
	if err != nil {
		t.Fatal(err)
	}
	other, err := mark.New()
	if err != nil {
		t.Fatal(err)
	}
	is := func(id mark.ID, start uint64) bool {
		marked, _ := markedByStart(pid, start, id)()
		return marked
	}
	testproc.Eventually(t, "the child's mark read back", func() bool { return is(ours, st.StartTime) })
	if !is(theirs, st.StartTime) {
		t.Error("the outer session's id, the first element, is not found")
	}
	if marked, settled := markedByStart(pid, st.StartTime, other)(); marked || !settled {
		t.Errorf("an id the child does not carry: marked %v, settled %v; want false, true", marked, settled)
	}
	if is(ours, st.StartTime+1) {
		t.Error("the mark is taken of a process whose start time is not the one listed")
	}
}

// TestAFoundProcessWhoseIdentityCannotBeReadIsReportedNotSignalled.
func TestAFoundProcessWhoseIdentityCannotBeReadIsReportedNotSignalled(t *testing.T) {
	m := newMachine(mac(200, 1001, 1000))
	tab := m.table()
	s := NewSweep(engine, me, tab)
	s.tab.Open = func(int) (Handle, Proc, error) { return nil, Proc{}, errors.New("proc_pidinfo refused") }
	if err := s.Signal(syscall.SIGKILL); err != nil {
		t.Fatalf("Signal = %v, want nil: a process is left, unverified", err)
	}
	if signalled(m.pids[200]) {
		t.Fatalf("an unverified process got %v", m.pids[200].signals)
	}
	live, err := s.Live()
	if err != nil || len(live) != 1 || live[0].PID != 200 {
		t.Fatalf("Live = %+v, %v; want pid 200 reported", live, err)
	}
}

func TestTheSweepIsAScanningEscapeesHolder(t *testing.T) {
	var h end.Holder = NewSweep(engine, me, newMachine().table())
	if tr := h.Traits(); tr != (end.Traits{Kind: end.KindEscapees, Gains: true, Scans: true}) {
		t.Fatalf("the sweep's traits are %+v; want escapees that gain orphans and scan", tr)
	}
	if fd, _ := h.Notify(); fd != -1 {
		t.Fatalf("Notify = %d, want -1", fd)
	}
}

// TestAProcessTheGroupSignalReachedIsNotSignalledAgain: group E's
// members are the Engine's descendants too; the grace's stop signal,
// sent to the group first, is not sent to them a second time.
func TestAProcessTheGroupSignalReachedIsNotSignalledAgain(t *testing.T) {
	inGroup := mac(200, 1001, 1000)
	inGroup.Stat.Pgrp = 100
	m := newMachine(inGroup, mac(201, 1002, 1000))
	m.pids[200].p.Stat.Pgrp, m.pids[201].p.Stat.Pgrp = 100, 201
	s := NewSweep(engine, me, m.table())
	r := end.NewReached()
	r.Group(100)
	if err := s.SignalOnce(syscall.SIGTERM, r); err != nil {
		t.Fatal(err)
	}
	if signalled(m.pids[200]) || !slices.Equal(m.pids[201].signals, []syscall.Signal{syscall.SIGTERM}) {
		t.Fatalf("group member got %v, escapee %v; want nothing and SIGTERM", m.pids[200].signals, m.pids[201].signals)
	}
	if !r.Has(201, 201) {
		t.Fatal("the escapee signalled is not recorded as reached")
	}
}

// TestAnEnvironmentWithoutTheMarkIsReadOnce: a process of this user that
// started after the Engine and is not the session's is asked once, not at
// every pass.
func TestAnEnvironmentWithoutTheMarkIsReadOnce(t *testing.T) {
	reads := 0
	other := mac(300, 2000, 77)
	other.Marked = func() (bool, bool) { reads++; return false, true }
	tr := newTracker(engine, me)
	for range 3 {
		tr.Pass([]Proc{other})
	}
	if reads != 1 {
		t.Fatalf("the environment was read %d times, want once", reads)
	}
}

// TestAnExcludedProcessIsNeitherFoundNorSignalled: the guard's own
// number, left out of the table, is never found even where it would
// match — here it carries the mark and started after the Engine — while
// a marked process beside it is found and ended.
func TestAnExcludedProcessIsNeitherFoundNorSignalled(t *testing.T) {
	yes := func() (bool, bool) { return true, true }
	guard, escapee := mac(500, 1500, 0), mac(501, 1501, 0)
	guard.Marked, escapee.Marked = yes, yes
	m := newMachine(guard, escapee)
	s := NewSweep(engine, me, Excluding(m.table(), 500))
	if err := s.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	if signalled(m.pids[500]) {
		t.Fatalf("the excluded process got %v", m.pids[500].signals)
	}
	if !signalled(m.pids[501]) {
		t.Fatal("the marked escapee beside it was not signalled")
	}
	for _, f := range s.Found() {
		if f.ID.PID == 500 {
			t.Fatalf("found %v: the excluded process is among them", s.Found())
		}
	}
}

// TestAnIdentityIsItsUniqueIDElseItsPIDAndStart: by unique id where there
// is one (the PID and start then do not matter), else by PID and start;
// an identity that names nothing is no process's.
func TestAnIdentityIsItsUniqueIDElseItsPIDAndStart(t *testing.T) {
	for _, c := range []struct {
		a, b Identity
		is   bool
	}{
		{Identity{PID: 5, Start: 7, Unique: 9}, Identity{Unique: 9}, true},
		{Identity{PID: 5, Unique: 9}, Identity{PID: 5, Unique: 10}, false},
		{Identity{PID: 5, Start: 7}, Identity{PID: 5, Start: 7}, true},
		{Identity{PID: 5, Start: 7}, Identity{PID: 5, Start: 8}, false},
		{Identity{PID: 5, Start: 7}, Identity{PID: 6, Start: 7}, false},
		{Identity{}, Identity{}, false},
	} {
		if got := c.a.Is(c.b); got != c.is {
			t.Errorf("%+v.Is(%+v) = %v, want %v", c.a, c.b, got, c.is)
		}
	}
}

// TestSIGCONTGoesOnlyToWhatTheSweepStopped: a SIGKILL that did not end a
// stopped escapee is followed by SIGCONT, so that it is not left
// stopped; a group member the group signal reached was never stopped by
// the sweep, and gets nothing from it, SIGCONT included.
func TestSIGCONTGoesOnlyToWhatTheSweepStopped(t *testing.T) {
	m := newMachine(mac(200, 1001, 1000), mac(201, 1002, 1000))
	m.pids[200].p.Stat.Pgrp, m.pids[201].p.Stat.Pgrp = 100, 201
	m.pids[201].survives = true
	s := NewSweep(engine, me, m.table())
	r := end.NewReached()
	r.Group(100)
	if err := s.SignalOnce(syscall.SIGKILL, r); err != nil {
		t.Fatal(err)
	}
	if signalled(m.pids[200]) {
		t.Errorf("the group member got %v, want nothing: the group signal reached it", m.pids[200].signals)
	}
	if got := m.pids[201].signals; !slices.Equal(got, []syscall.Signal{syscall.SIGSTOP, syscall.SIGKILL, syscall.SIGCONT}) {
		t.Errorf("the escapee SIGKILL did not end got %v, want SIGSTOP, SIGKILL, SIGCONT", got)
	}
	if m.pids[201].stopped {
		t.Error("the escapee SIGKILL did not end is left stopped")
	}
}

// TestAProcessThatTookAnotherUserSinceItWasFoundIsNotSignalled: the
// snapshot showed the session's user, the fresh read right before the
// signal shows root (it executed a setuid program): the user of that read
// decides, and the process is reported, never signalled.
func TestAProcessThatTookAnotherUserSinceItWasFoundIsNotSignalled(t *testing.T) {
	m := newMachine(mac(200, 1001, 1000))
	s := NewSweep(engine, me, m.table())
	now := m.pids[200].p
	now.UID = 0
	m.pids[200].reread = &now
	for range 3 {
		if err := s.Signal(syscall.SIGKILL); err != nil && !errors.Is(err, sys.ErrGone) {
			t.Fatal(err)
		}
	}
	if signalled(m.pids[200]) {
		t.Fatalf("the process that is root's now got %v", m.pids[200].signals)
	}
	live, err := s.Live()
	if err != nil || len(live) != 1 || live[0].PID != 200 || !live[0].Denied || live[0].UID != 0 {
		t.Fatalf("Live = %+v, %v; want pid 200 of uid 0, denied", live, err)
	}
}

// TestAnEnvironmentReadEmptyIsReadAgain: a process caught in the middle
// of an exec reads with an empty environment; that is no answer, and the
// next pass reads it again and finds the mark.
func TestAnEnvironmentReadEmptyIsReadAgain(t *testing.T) {
	reads := 0
	execing := mac(300, 2000, 77)
	execing.Marked = func() (bool, bool) {
		reads++
		if reads == 1 {
			return false, false // the environment's bounds not set yet
		}
		return true, true
	}
	tr := newTracker(engine, me)
	if n := tr.Pass([]Proc{execing}); n != 0 {
		t.Fatalf("the first pass found %d, want none: the environment read empty", n)
	}
	if n := tr.Pass([]Proc{execing}); n != 1 {
		t.Fatalf("the second pass found %d, want the process, its mark read again", n)
	}
}
