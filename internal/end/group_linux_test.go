//go:build linux

package end

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/session-starter/session-starter/internal/proc"
	"github.com/session-starter/session-starter/internal/sys"
	"github.com/session-starter/session-starter/internal/testproc"
	"github.com/session-starter/session-starter/starter/launch"
)

// fakeGroup is a Group whose Send answers with signal(sig) and records
// every call.
type fakeGroup struct {
	pgid      int
	forbidden []int
	signal    func(sig syscall.Signal) error
	sent      []syscall.Signal
}

func (g *fakeGroup) holders() []Holder {
	return []Holder{Group{PGID: g.pgid, Forbidden: g.forbidden, Send: func(sig syscall.Signal) error {
		g.sent = append(g.sent, sig)
		return g.signal(sig)
	}}}
}

// endGroup ends the fake group alone within budget.
func endGroup(g *fakeGroup, budget time.Duration) Report {
	return End(g.holders(), Plan{Budget: budget})
}

func (g *fakeGroup) count(sig syscall.Signal) int {
	n := 0
	for _, s := range g.sent {
		if s == sig {
			n++
		}
	}
	return n
}

// unusedPgid is a group number no process can have: PIDs stay below
// pid_max.
func unusedPgid(t *testing.T) int {
	t.Helper()
	b, err := os.ReadFile("/proc/sys/kernel/pid_max")
	if err != nil {
		t.Fatal(err)
	}
	n, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// leader is a process started by ForkExec with a pidfd as the leader of
// its own process group, as the starter starts the gate.
type leader struct {
	pid, pidfd int
	reaped     bool
}

// startLeader starts argv as a group leader with stdout to w (if not nil).
// Cleanup kills the group through the pidfd, reaps the leader unless the
// test did, and closes the pidfd.
func startLeader(t *testing.T, w *os.File, argv ...string) *leader {
	t.Helper()
	null, err := os.OpenFile(os.DevNull, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer null.Close()
	out := null.Fd()
	if w != nil {
		out = w.Fd()
	}
	pidfd := -1
	pid, err := syscall.ForkExec(argv[0], argv, &syscall.ProcAttr{
		Env:   []string{"PATH=/usr/bin:/bin"},
		Files: []uintptr{null.Fd(), out, null.Fd()},
		Sys:   &syscall.SysProcAttr{Setpgid: true, PidFD: &pidfd},
	})
	if err != nil {
		t.Fatalf("ForkExec(%v) = %v", argv, err)
	}
	l := &leader{pid: pid, pidfd: pidfd}
	t.Cleanup(func() {
		// SAFETY: the pidfd names the group this leader led and no other,
		// whatever became of its number; before Linux 6.9 the number
		// does, while the leader is unreaped.
		err := sys.PidfdSignalGroup(l.pidfd, syscall.SIGKILL)
		if errors.Is(err, sys.ErrNoGroupSignal) && !l.reaped {
			_ = syscall.Kill(-l.pid, syscall.SIGKILL)
		}
		if !l.reaped {
			_, _ = sys.ReapWithin(l.pidfd, testproc.TooLong)
		}
		_ = sys.Close(l.pidfd)
	})
	return l
}

func (l *leader) reap(t *testing.T) sys.WaitStatus {
	t.Helper()
	ws, err := sys.ReapWithin(l.pidfd, testproc.TooLong)
	l.reaped = true
	if err != nil {
		t.Fatalf("Reap(%d) = %v", l.pid, err)
	}
	ws.CPU = 0 // how it ended is what the tests compare
	return ws
}

func TestEndRefusesForbiddenAndLowGroupsWithoutSignalling(t *testing.T) {
	tests := []struct {
		name      string
		pgid      int
		forbidden []int
	}{
		{"zero", 0, nil},
		{"one", 1, nil},
		{"negative", -42, nil},
		{"the only forbidden", 500, []int{500}},
		{"among forbidden", 500, []int{3, 500, 7}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := &fakeGroup{pgid: tt.pgid, forbidden: tt.forbidden, signal: func(syscall.Signal) error { return nil }}
			r := endGroup(g, time.Second)
			if r.Outcome != launch.Refused || r.Err == nil {
				t.Fatalf("End(pgid %d, forbidden %v) = %v, %v; want refused with a reason", tt.pgid, tt.forbidden, r.Outcome, r.Err)
			}
			if len(g.sent) != 0 || r.Rounds != 0 {
				t.Fatalf("End(pgid %d) sent %v (Rounds %d), want nothing sent", tt.pgid, g.sent, r.Rounds)
			}
		})
	}
}

func TestEndAllowsAGroupThatIsNotForbidden(t *testing.T) {
	g := &fakeGroup{pgid: 500, forbidden: []int{3, 499, 501}, signal: func(syscall.Signal) error { return sys.ErrGone }}
	if r := endGroup(g, time.Second); r.Outcome != launch.Empty {
		t.Fatalf("End(pgid 500, forbidden 3 499 501) = %v, %v; want empty", r.Outcome, r.Err)
	}
}

func TestEndReportsEmptyWhenTheGroupIsGone(t *testing.T) {
	tests := []struct {
		name       string
		signal     func(syscall.Signal) error
		wantRounds int
	}{
		{"gone before the kill", func(syscall.Signal) error { return sys.ErrGone }, 0},
		{"gone after the kill", func(sig syscall.Signal) error {
			if sig == 0 {
				return sys.ErrGone
			}
			return nil
		}, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := &fakeGroup{pgid: unusedPgid(t), signal: tt.signal}
			r := endGroup(g, time.Second)
			if r.Outcome != launch.Empty || r.Err != nil || r.Rounds != tt.wantRounds || len(r.Survivors) != 0 {
				t.Fatalf("End() = %+v, want empty with %d rounds and no error", r, tt.wantRounds)
			}
		})
	}
}

// A group whose signals succeed but which a trusted scan shows without a
// live member (here: a number no process has) is empty.
func TestEndReportsEmptyWhenAScanFindsNoLiveMember(t *testing.T) {
	g := &fakeGroup{pgid: unusedPgid(t), signal: func(syscall.Signal) error { return nil }}
	r := endGroup(g, testproc.TooLong)
	if r.Outcome != launch.Empty || r.Err != nil || r.Rounds != 1 {
		t.Fatalf("End() = %+v, want empty after 1 round", r)
	}
	if g.count(0) != 2 || g.count(syscall.SIGKILL) != 1 {
		t.Fatalf("End() sent %v, want one SIGKILL and a scan between two signal-0 calls", g.sent)
	}
}

// errProbe is a signal-0 failure that says nothing about the group.
var errProbe = errors.New("probe failed")

// A scan counts only between two successful signal-0 calls: when those
// fail, a group that was signalled ends Unconfirmed, never Empty.
func TestEndReportsUnconfirmedWhenNoScanCanBeTrusted(t *testing.T) {
	g := &fakeGroup{pgid: unusedPgid(t), signal: func(sig syscall.Signal) error {
		if sig == 0 {
			return errProbe
		}
		return nil
	}}
	r := endGroup(g, 50*time.Millisecond)
	if r.Outcome != launch.Unconfirmed || !errors.Is(r.Err, errProbe) || r.Rounds < 1 {
		t.Fatalf("End() = %+v, want unconfirmed after a round with the probe's error", r)
	}
}

// When no signal could be sent and no scan trusted, End must not claim the
// group ended.
func TestEndNeverReportsEmptyWhenNothingWorked(t *testing.T) {
	g := &fakeGroup{pgid: unusedPgid(t), signal: func(syscall.Signal) error { return errProbe }}
	r := endGroup(g, 50*time.Millisecond)
	if r.Outcome == launch.Empty || r.Outcome == launch.Unconfirmed || !errors.Is(r.Err, errProbe) || r.Rounds != 0 {
		t.Fatalf("End() = %+v, want neither empty nor unconfirmed, with the error and 0 rounds", r)
	}
}

// EPERM to signal 0 means the group has members, none of which we may
// signal: the scan between two such answers is trusted, and its live
// members are survivors (TestMembersThatCannotBeKilledAreReportedAsSurvivors
// shows it on a real group).
func TestEndTrustsAScanBetweenTwoEPERMAnswers(t *testing.T) {
	g := &fakeGroup{pgid: unusedPgid(t), signal: func(syscall.Signal) error { return syscall.EPERM }}
	r := endGroup(g, 50*time.Millisecond)
	if r.Outcome != launch.Empty || r.Rounds != 0 {
		t.Fatalf("End() = %+v, want empty: the trusted scan found no live member", r)
	}
}

// A member that survives SIGKILL cannot be made, so the fake drops the
// kill: its Signal succeeds and does nothing, while the scans look at a
// real group whose member stays alive.
func TestEndNamesSurvivorsWhenTheBudgetRunsOut(t *testing.T) {
	l := startLeader(t, nil, "/bin/sleep", "600")
	g := &fakeGroup{pgid: l.pid, signal: func(syscall.Signal) error { return nil }}
	const budget = 800 * time.Millisecond // more than the first round: a second one
	r := endGroup(g, budget)
	if r.Outcome != launch.Survivors || r.Err != nil {
		t.Fatalf("End() = %v, %v; want survivors and no error", r.Outcome, r.Err)
	}
	// Two rounds are expected; a scan stalled by a loaded machine can
	// make it one, so only the count is checked against what was sent.
	if r.Rounds < 1 || r.Rounds != g.count(syscall.SIGKILL) {
		t.Errorf("End() Rounds = %d, SIGKILLs sent = %d; want the same, at least 1", r.Rounds, g.count(syscall.SIGKILL))
	}
	t.Logf("%d rounds in %v", r.Rounds, r.Elapsed)
	if r.Seen[KindGroup] != 1 || len(r.Survivors) != 1 {
		t.Fatalf("End() Seen = %d, Survivors = %+v; want the one member", r.Seen[KindGroup], r.Survivors)
	}
	m := r.Survivors[0]
	// Our own process: signalling it is never denied.
	if m.PID != l.pid || m.Pgrp != l.pid || m.Comm != "sleep" || m.UID != os.Getuid() || m.Denied || !m.Live() {
		t.Fatalf("survivor = %+v, want live pid %d, comm sleep, uid %d", m, l.pid, os.Getuid())
	}
	if r.Elapsed < budget || r.Elapsed > budget+testproc.TooLong {
		t.Errorf("End() Elapsed = %v, want about %v", r.Elapsed, budget)
	}
	want := fmt.Sprintf("pid %d uid %d state %c comm %q", l.pid, os.Getuid(), m.State, "sleep")
	if d := r.Describe(); !strings.Contains(d, want) || !strings.HasPrefix(d, "session end survivors") {
		t.Fatalf("Describe() = %q, want it to name %q", d, want)
	}
}

func TestDescribeListsEachSurvivor(t *testing.T) {
	r := Report{
		Outcome: launch.Survivors,
		Err:     errors.New("boom"),
		Survivors: []Member{
			{Stat: proc.Stat{PID: 101, State: 'S', Comm: "sleep"}, UID: 0},
			{Stat: proc.Stat{PID: 102, State: 'D', Comm: `we"ird) name`}, UID: 1000},
			{Stat: proc.Stat{PID: 103, State: 'R', Comm: "x"}, UID: -1},
			{Stat: proc.Stat{PID: 104, State: 'S', Comm: "y"}, UID: 1001, Denied: true},
		},
	}
	want := `session end survivors (boom): still live: pid 101 uid 0 state S comm "sleep";` +
		` pid 102 uid 1000 state D comm "we\"ird) name"; pid 103 uid -1 state R comm "x";` +
		` pid 104 uid 1001 state S comm "y" (permission denied: another user's process)`
	if got := r.Describe(); got != want {
		t.Fatalf("Describe() =\n%s\nwant\n%s", got, want)
	}
}

func TestDescribeCutsALongListAtTwenty(t *testing.T) {
	r := Report{Outcome: launch.Survivors}
	for i := range 25 {
		r.Survivors = append(r.Survivors, Member{Stat: proc.Stat{PID: 1000 + i, State: 'S', Comm: "sleep"}})
	}
	d := r.Describe()
	if n := strings.Count(d, "pid "); n != 20 {
		t.Errorf("Describe() names %d pids, want 20: %q", n, d)
	}
	if !strings.Contains(d, "pid 1019 ") || strings.Contains(d, "pid 1020 ") || !strings.HasSuffix(d, "and 5 more") {
		t.Errorf("Describe() = %q, want pids 1000..1019 and %q", d, "and 5 more")
	}
}

func TestDescribeOfOtherOutcomes(t *testing.T) {
	tests := []struct {
		r    Report
		want string
	}{
		{Report{Outcome: launch.Empty}, "session end empty"},
		{Report{Outcome: launch.Unconfirmed, Err: errors.New("scan failed")}, "session end unconfirmed (scan failed)"},
		{Report{Outcome: launch.Refused, Err: errors.New("group 1 is not the Engine's alone")}, "session end refused (group 1 is not the Engine's alone)"},
		{Report{Outcome: launch.Outcome(9)}, "session end outcome(9)"},
	}
	for _, tt := range tests {
		if got := tt.r.Describe(); got != tt.want {
			t.Errorf("Describe() = %q, want %q", got, tt.want)
		}
	}
}

func TestEndEmptiesARealGroupOfFiftyOne(t *testing.T) {
	const members = 50
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close(); w.Close() })
	script := fmt.Sprintf(`i=0; while [ $i -lt %d ]; do sleep 600 & i=$((i+1)); done; echo ready; wait`, members)
	l := startLeader(t, w, "/bin/sh", "-c", script)
	w.Close()
	// Every fork has returned once the shell prints: all members exist.
	if line, err := bufio.NewReader(r).ReadString('\n'); err != nil || line != "ready\n" {
		t.Fatalf("read from leader = %q, %v; want %q", line, err, "ready\n")
	}
	live, err := proc.LiveMembers(l.pid)
	if err != nil || len(live) != members+1 {
		t.Fatalf("LiveMembers(%d) before End = %d members, %v; want %d", l.pid, len(live), err, members+1)
	}

	send := PidfdGroupSend(l.pidfd)
	if !sys.CanSignalGroup() {
		// By number, as the portable build (and a kernel before 6.9)
		// does: the leader is this test's unreaped child, so its number
		// names its group.
		send = func(sig syscall.Signal) error { return sys.KillGroup(l.pid, sig) }
	}
	rep := End([]Holder{Group{PGID: l.pid, Send: send, Forbidden: []int{syscall.Getpgrp()}}}, Plan{Budget: testproc.TooLong})
	if rep.Outcome != launch.Empty || rep.Err != nil || rep.Rounds < 1 {
		t.Fatalf("End() = %+v, want empty after at least one round", rep)
	}
	// The leader is still unreaped, so the number still names this group.
	live, err = proc.LiveMembers(l.pid)
	if err != nil || len(live) != 0 {
		t.Fatalf("LiveMembers(%d) after End = %+v, %v; want none", l.pid, live, err)
	}
	if ws := l.reap(t); ws != (sys.WaitStatus{Signal: syscall.SIGKILL}) {
		t.Fatalf("leader ended with %v, want signal KILL", ws)
	}
	t.Logf("End: %d rounds, %d seen, %v", rep.Rounds, rep.Seen[KindGroup], rep.Elapsed)
}

// A group whose leader was reaped and which has no member left is empty at
// once: the group signal says ESRCH.
func TestEndOfAGroupThatNoLongerExistsIsEmpty(t *testing.T) {
	l := startLeader(t, nil, "/bin/true")
	l.reap(t)
	rep := End([]Holder{Group{PGID: l.pid, Send: PidfdGroupSend(l.pidfd), Forbidden: []int{syscall.Getpgrp()}}}, Plan{Budget: testproc.TooLong})
	if errors.Is(rep.Err, sys.ErrNoGroupSignal) {
		t.Skipf("End: %v", rep.Err)
	}
	if rep.Outcome != launch.Empty || rep.Rounds != 0 {
		t.Fatalf("End() = %+v, want empty with 0 rounds", rep)
	}
}

func TestGroupRefusesTheCallersOwnGroup(t *testing.T) {
	self := Group{PGID: syscall.Getpgrp(), Send: PidfdGroupSend(-1), Forbidden: []int{syscall.Getpgrp()}}
	if rep := End([]Holder{self}, Plan{Budget: time.Second}); rep.Outcome != launch.Refused {
		t.Fatalf("End(own group) = %+v, want refused", rep)
	}
}
