package starter

import (
	"errors"
	"strings"
	"testing"

	"github.com/session-starter/session-starter/internal/end"
	"github.com/session-starter/session-starter/internal/proc"
	"github.com/session-starter/session-starter/starter/launch"
)

// TestEndOfKeepsTheOutcomeAndFailsClosed: each outcome of the end keeps
// its meaning, and one the end does not return is Refused (exit 125),
// never taken for an empty end.
func TestEndOfKeepsTheOutcomeAndFailsClosed(t *testing.T) {
	for _, tt := range []struct {
		in   launch.Outcome
		want launch.Outcome
	}{
		{0, 0},
		{launch.Empty, launch.Empty},
		{launch.Unconfirmed, launch.Unconfirmed},
		{launch.Survivors, launch.Survivors},
		{launch.Refused, launch.Refused},
		{launch.Released, launch.Refused},
		{launch.Outcome(99), launch.Refused},
	} {
		got := endOf(end.Report{Outcome: tt.in})
		if got.Outcome != tt.want {
			t.Errorf("endOf(%v).Outcome = %v, want %v", tt.in, got.Outcome, tt.want)
		}
		if tt.want != tt.in && got.Err == nil {
			t.Errorf("endOf(%v).Err = nil, want the unknown outcome named", tt.in)
		}
	}
	r := end.Report{
		Outcome:   launch.Survivors,
		Rounds:    4,
		Seen:      map[end.Kind]int{end.KindGroup: 3, "cgroup": 7, end.KindEscapees: 2},
		Members:   7,
		Survivors: []end.Member{{Stat: proc.Stat{PID: 42, Comm: "sleep", State: 'D'}, UID: 1000, Denied: true}},
		Err:       errors.New("x"),
	}
	got := endOf(r)
	want := launch.Survivor{PID: 42, UID: 1000, State: "D", Comm: "sleep", Denied: true}
	if got.Rounds != 4 || got.MembersSeen != 7 || got.EscapeesSeen != 2 || len(got.Survivors) != 1 || got.Survivors[0] != want || got.Err == nil {
		t.Fatalf("endOf(%+v) = %+v; want its rounds, the most members seen (7), the escapees (2) and %+v", r, got, want)
	}
}

func TestDescribeNamesTwentySurvivorsAndCountsTheRest(t *testing.T) {
	e := End{Outcome: launch.Survivors, Err: errors.New("budget spent")}
	for i := range 25 {
		e.Survivors = append(e.Survivors, launch.Survivor{PID: 100 + i, UID: 0, State: "R", Comm: "spin"})
	}
	e.Survivors[0].Denied = true
	d := e.Describe()
	for _, want := range []string{"session end survivors (budget spent): still live:", `pid 100 uid 0 state R comm "spin" (permission denied`, "pid 119 ", "and 5 more"} {
		if !strings.Contains(d, want) {
			t.Errorf("Describe() = %q, want %q in it", d, want)
		}
	}
	if strings.Contains(d, "pid 120 ") || strings.HasSuffix(d, ";") {
		t.Errorf("Describe() = %q: names a 21st survivor or ends in ;", d)
	}
}
