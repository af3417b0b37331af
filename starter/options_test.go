package starter

import (
	"syscall"
	"testing"

	"github.com/session-starter/session-starter/internal/mark"
	"github.com/session-starter/session-starter/starter/launch"
)

// TestVerdictFollowsTheExitStatusTable checks each row of the exit-status table (README, "Exit status")
// and the precedence of 125 over the mirrored status.
func TestVerdictFollowsTheExitStatusTable(t *testing.T) {
	empty := End{Outcome: launch.Empty}
	tests := []struct {
		name       string
		res        Result
		wantCode   int
		wantSignal syscall.Signal
		wantReport bool
	}{
		{"exit code mirrored", Result{Executed: true, Engine: Status{Exited: true, Code: 42}, End: empty}, 42, 0, false},
		{"exit 0 mirrored", Result{Executed: true, Engine: Status{Exited: true}, End: empty}, 0, 0, false},
		{"signal mirrored", Result{Executed: true, Engine: Status{Signal: syscall.SIGSEGV, CoreDumped: true}, End: empty}, 128 + 11, syscall.SIGSEGV, false},
		{"unconfirmed mirrors and reports", Result{Executed: true, Engine: Status{Exited: true, Code: 3}, End: End{Outcome: launch.Unconfirmed}}, 3, 0, true},
		{"survivors over mirrored", Result{Executed: true, Engine: Status{Exited: true, Code: 3}, End: End{Outcome: launch.Survivors}}, 125, 0, true},
		{"refused over mirrored", Result{Executed: true, Engine: Status{Exited: true}, End: End{Outcome: launch.Refused}}, 125, 0, true},
		{"guard lost", Result{Reason: ReasonGuardLost, Executed: true, Engine: Status{Signal: syscall.SIGKILL}, End: empty}, 125, 0, true},
		{"signal before go-ahead dies of it", Result{Reason: ReasonSignal, Signal: syscall.SIGTERM, End: empty}, 128 + 15, syscall.SIGTERM, false},
		{"parent gone before go-ahead", Result{Reason: ReasonParentGone}, 125, 0, true},
		{"control closed before go-ahead", Result{Reason: ReasonControlClosed, End: empty}, 125, 0, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v := tt.res.Verdict(nil)
			if v.Code != tt.wantCode || v.Signal != tt.wantSignal || (v.Report != "") != tt.wantReport {
				t.Fatalf("Verdict(nil) = %+v, want code %d, signal %v, report %v", v, tt.wantCode, tt.wantSignal, tt.wantReport)
			}
		})
	}
}

// TestTheSessionMarkHasOneName: the variable launchers are told of is the
// one the starter writes and the guard reads.
func TestTheSessionMarkHasOneName(t *testing.T) {
	if launch.SessionVar != mark.Var {
		t.Fatalf("launch.SessionVar = %q, mark.Var = %q", launch.SessionVar, mark.Var)
	}
}
