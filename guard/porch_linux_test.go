//go:build linux && !portable

package guard

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/session-starter/session-starter/internal/mark"
	"github.com/session-starter/session-starter/internal/proc"
	"github.com/session-starter/session-starter/internal/sys"
	"github.com/session-starter/session-starter/internal/testproc"
)

// withoutVerifier makes the raw guard's porch unable to execute the guard
// proper, for the rest of the test.
func withoutVerifier(t *testing.T) {
	t.Helper()
	if !rawSupported() {
		t.Skip("no raw guard on this kernel (it needs Linux 6.9)")
	}
	testOnlyUnexecutableVerifier = true
	t.Cleanup(func() { testOnlyUnexecutableVerifier = false })
}

// TestAFinishWithAZombieLeftInTheGroupIsDecidedByTheGuardProper: the
// porch's cheap test counts a zombie as a member (the group signal 0
// succeeds), so a finish while group E holds only the Engine's unreaped
// zombie is handed to the guard proper, which looks in /proc, finds no
// live member and exits 0. Where the porch cannot execute it, the porch
// cannot tell, and keeps guarding (the control).
func TestAFinishWithAZombieLeftInTheGroupIsDecidedByTheGuardProper(t *testing.T) {
	for _, verifier := range []bool{true, false} {
		t.Run(fmt.Sprintf("verifier=%v", verifier), func(t *testing.T) {
			if !verifier {
				withoutVerifier(t)
			} else if !rawSupported() {
				t.Skip("no raw guard on this kernel (it needs Linux 6.9)")
			}
			leader, g := armedOnAnEndedGroup(t, kind{"raw", false})
			if err := sys.PidfdSignalGroup(leader.Pidfd, 0); err != nil {
				t.Fatalf("the group holds the leader's zombie: %v", err)
			}
			err := g.Finish(2 * time.Second)
			switch {
			case verifier && err != nil:
				t.Fatalf("Finish with only a zombie left: %v, want the guard proper to see the group empty", err)
			case !verifier && !errors.Is(err, ErrNotFinished):
				t.Fatalf("Finish with only a zombie left and no guard proper: %v, want %v", err, ErrNotFinished)
			}
		})
	}
}

// TestWithoutTheGuardProperThePorchStillEndsTheGroup: once the starter is
// gone the porch strikes every holder, and where the guard proper cannot
// be executed (a seccomp profile, a runtime that cannot start under
// RLIMIT_NPROC) it goes on striking until the group is empty, then exits.
func TestWithoutTheGuardProperThePorchStillEndsTheGroup(t *testing.T) {
	withoutVerifier(t)
	leader, member := group(t)
	g := arm(t, leader, kind{"raw", false})
	starterGone(t, g, leader, member)
}

// TestWithoutTheGuardProperThePorchEndsTheMarkedAlone: a storm outside
// group E can hold every slot of the user's process limit, so that the
// guard proper's runtime cannot start; the porch then must end the
// marked itself. Here the guard proper cannot be executed at all: the
// porch SIGKILLs the processes in their own groups that carry the
// session's id as an element of the mark and started after the session,
// and none that carries it only as part of an element or in another
// variable, nor one that started before the session.
func TestWithoutTheGuardProperThePorchEndsTheMarkedAlone(t *testing.T) {
	withoutVerifier(t)
	id, err := mark.New()
	if err != nil {
		t.Fatal(err)
	}
	// apart starts a process in a group of its own with the entry kv
	// (none if "") in its environment, and no other mark.
	apart := func(kv string) *testproc.Child {
		t.Helper()
		t.Setenv(mark.Var, "")
		os.Unsetenv(mark.Var)
		if k, v, ok := strings.Cut(kv, "="); ok {
			t.Setenv(k, v)
		}
		return testproc.StartLeader(t, os.Stdout, "/bin/sleep", "600")
	}
	before := apart(mark.Var + "=" + id.String())
	// The session starts after before: its start is the leader's, in
	// clock ticks, so wait for the next tick.
	st, err := proc.ReadStat(before.PID)
	if err != nil {
		t.Fatal(err)
	}
	var leader *testproc.Child
	var member int
	for {
		leader, member = group(t)
		ls, err := proc.ReadStat(leader.PID)
		if err != nil {
			t.Fatal(err)
		}
		if ls.StartTime > st.StartTime {
			st = ls
			break
		}
		_ = leader.KillGroup()
		leader.Wait(t)
	}
	marked := []*testproc.Child{
		apart(mark.Var + "=" + id.String()),
		apart(mark.Var + "=0123456789abcdef0123456789abcdef:" + id.String() + ":fedcba9876543210fedcba9876543210"),
	}
	spared := []*testproc.Child{
		before,
		apart(mark.Var + "=" + id.String() + "0"),
		apart(mark.Var + "=" + id.String()[1:]),
		apart("SESSION_STARTER_OTHER=" + id.String()),
		apart(""),
	}
	t.Setenv("GORACE", "atexit_sleep_ms=0")
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	g, err := armSpec(Spec{Exe: exe, GatePidfd: leader.Pidfd, PGID: leader.PID, Budget: 10 * time.Second, Mark: id.String(), MarkSince: st.StartTime})
	if err != nil {
		t.Fatalf("Arm: %v", err)
	}
	t.Cleanup(func() {
		if g.Pidfd >= 0 {
			_ = sys.PidfdSignal(g.Pidfd, syscall.SIGKILL)
			_, _ = sys.ReapWithin(g.Pidfd, testproc.TooLong)
			g.close()
		}
	})
	starterGone(t, g, leader, member)
	// Struck by SIGKILL before the porch's end; a process may still be on
	// its way out then (its memory released, so no longer found marked).
	for _, c := range marked {
		if !c.Exited(testproc.TooLong) {
			t.Errorf("marked process %d (its own group) lives after the porch's end", c.PID)
		} else if ws := c.Wait(t); !ws.Signaled() || ws.Signal() != syscall.SIGKILL {
			t.Errorf("marked process %d ended with %v, want SIGKILL", c.PID, ws)
		}
	}
	for i, c := range spared {
		if c.Exited(0) {
			t.Errorf("process %d (case %d), not the session's, was ended", c.PID, i)
		}
	}
}
