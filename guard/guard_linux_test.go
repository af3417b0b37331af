package guard

import (
	"errors"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/session-starter/session-starter/internal/proc"
	"github.com/session-starter/session-starter/internal/sys"
	"github.com/session-starter/session-starter/internal/testproc"
	"github.com/session-starter/session-starter/internal/wire"
)

// The test binary plays the guard: Arm starts it with arg first.
func TestMain(m *testing.M) {
	wire.RunHidden(os.Args)
	// Hidden modes first: they never return. Then the tests, which
	// must leave no goroutine behind.
	os.Exit(testproc.CheckGoroutinesEnded(m.Run()))
}

// group starts a stand-in for the gate: a shell leading a new group, with
// one background member, both sleeping. It returns the leader and the
// member's PID.
func group(t *testing.T) (*testproc.Child, int) {
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	leader := testproc.StartLeader(t, w, "/bin/sh", "-c", `sleep 600 & echo $!; exec sleep 600`)
	w.Close()
	var member int
	if _, err := fmt.Fscan(r, &member); err != nil {
		t.Fatal(err)
	}
	return leader, member
}

// kind is one of the two guards: the raw child of this process, and the
// re-executed binary.
type kind struct {
	name   string
	reExec bool
}

// kinds runs test once for each guard this kernel can have: the raw one
// (Linux 6.9, close_range) and the re-executed one.
func kinds(t *testing.T, test func(t *testing.T, k kind)) {
	t.Helper()
	ks := []kind{{"re-executed", true}}
	if rawSupported() {
		ks = append(ks, kind{"raw", false})
	}
	for _, k := range ks {
		t.Run(k.name, func(t *testing.T) { test(t, k) })
	}
}

func arm(t *testing.T, leader *testproc.Child, k kind) *Guard {
	t.Helper()
	return armReleasing(t, leader, k, false)
}

// armReleasing is arm with Spec.Release.
func armReleasing(t *testing.T, leader *testproc.Child, k kind, release bool) *Guard {
	t.Helper()
	t.Setenv("GORACE", "atexit_sleep_ms=0")
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	g, err := armSpec(Spec{Exe: exe, GatePidfd: leader.Pidfd, PGID: leader.PID, Budget: 10 * time.Second, ReExec: k.reExec, Release: release})
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
	return g
}

func live(pid int) bool {
	st, err := proc.ReadStat(pid)
	return err == nil && st.Live()
}

// awaitGuardExit waits for the guard to exit and reaps it.
func awaitGuardExit(t *testing.T, g *Guard) sys.WaitStatus {
	t.Helper()
	fds := []unix.PollFd{{Fd: int32(g.Pidfd), Events: unix.POLLIN}}
	if n, err := sys.Poll(fds, testproc.TooLong); err != nil || n == 0 {
		t.Fatalf("guard still running after %v (%v)", testproc.TooLong, err)
	}
	st, err := sys.ReapWithin(g.Pidfd, testproc.TooLong)
	if err != nil {
		t.Fatal(err)
	}
	g.close()
	return st
}

// armedOnAnEndedGroup arms a guard of kind k on a group, then plays the
// starter: it ends the group, and keeps the leader's zombie unreaped as
// the starter may (a zombie is no live member).
func armedOnAnEndedGroup(t *testing.T, k kind) (*testproc.Child, *Guard) {
	t.Helper()
	leader, member := group(t)
	g := arm(t, leader, k)
	if err := leader.KillGroup(); err != nil {
		t.Fatal(err)
	}
	testproc.Eventually(t, "the group must be dead", func() bool { return !live(member) && leader.Exited(0) })
	return leader, g
}

// Once the group has no live member (the starter ended it), a valid
// finish makes the guard exit 0 at once: with the pipe still open and
// the starter still there, so that it is the finish it obeyed, not an
// end of the pipe or a gone starter it acted on (which also ends in exit
// 0, once the guard has ended what there is).
func TestFinishAfterTheGroupEndedMakesTheGuardExit(t *testing.T) {
	kinds(t, func(t *testing.T, k kind) {
		leader, g := armedOnAnEndedGroup(t, k)
		if err := sys.WriteAll(g.finW, wire.Encode(wire.Finish, leader.PID)); err != nil {
			t.Fatal(err)
		}
		if st := awaitGuardExit(t, g); !st.Exited || st.Code != exitDone {
			t.Fatalf("guard ended with %v after a finish, want exit %d", st, exitDone)
		}
	})
}

// A guard stopped at the end of the session (SIGSTOP, a terminal's stop
// signals) is continued by Finish, obeys the finish and is reaped; Finish
// says it was stopped. (The starter continues a stopped guard as soon as
// SIGCHLD tells it; this is for a caller that watches no SIGCHLD.)
func TestFinishContinuesAStoppedGuard(t *testing.T) {
	kinds(t, func(t *testing.T, k kind) {
		_, g := armedOnAnEndedGroup(t, k)
		if err := sys.PidfdSignal(g.Pidfd, syscall.SIGSTOP); err != nil {
			t.Fatal(err)
		}
		testproc.Eventually(t, "the guard must be stopped", func() bool {
			st, err := proc.ReadStat(g.PID)
			return err == nil && st.State == 'T'
		})
		err := g.Finish(testproc.TooLong)
		if err == nil || errors.Is(err, ErrNotFinished) || !strings.Contains(err.Error(), "was stopped") {
			t.Fatalf("Finish of a stopped guard: %v; want it continued, reaped and the stop reported", err)
		}
	})
}

// A finish while the group still has live members — the starter reported
// survivors, or a same-user Engine wrote it into the guard's pipe through
// /proc — is not obeyed: the guard keeps guarding, and ends the group
// once the starter is gone.
func TestFinishWhileTheGroupLivesKeepsTheGuardGuarding(t *testing.T) {
	kinds(t, func(t *testing.T, k kind) {
		leader, member := group(t)
		g := arm(t, leader, k)
		if err := sys.WriteAll(g.finW, wire.Encode(wire.Finish, leader.PID)); err != nil {
			t.Fatal(err)
		}
		if err := sys.WriteAll(g.finW, wire.Encode(wire.Finish, leader.PID)); err != nil {
			t.Fatal(err)
		}
		if !live(member) || leader.Exited(0) {
			t.Fatal("the group was signalled while the starter lives")
		}
		starterGone(t, g, leader, member)
	})
}

// TestAnythingButAValidFinishEndsTheGroup: the guard fails closed.
func TestAnythingButAValidFinishEndsTheGroup(t *testing.T) {
	kinds(t, func(t *testing.T, k kind) {
		for _, tt := range []struct {
			name string
			msg  func(pgid int) string
		}{
			{"starter gone without a word", func(int) string { return "" }},
			{"finish without a group", func(int) string { return "finish\n" }},
			{"finish for another group", func(p int) string { return "finish " + strconv.Itoa(p+1) + "\n" }},
			{"finish without newline", func(p int) string { return "finish " + strconv.Itoa(p) }},
			{"finish then more", func(p int) string { return "finish " + strconv.Itoa(p) + "\nfinish " + strconv.Itoa(p) + "\nx\n" }},
			{"finish with leading zero", func(p int) string { return "finish 0" + strconv.Itoa(p) + "\n" }},
			{"upper case", func(p int) string { return "FINISH " + strconv.Itoa(p) + "\n" }},
			{"armed echoed back", func(p int) string { return "armed " + strconv.Itoa(p) + "\n" }},
			{"a long line", func(int) string { return string(make([]byte, 500)) }},
		} {
			t.Run(tt.name, func(t *testing.T) {
				leader, member := group(t)
				g := arm(t, leader, k)
				if msg := tt.msg(leader.PID); msg != "" {
					if err := sys.WriteAll(g.finW, []byte(msg)); err != nil && !errors.Is(err, unix.EPIPE) {
						t.Fatal(err)
					}
				}
				starterGone(t, g, leader, member)
			})
		}
	})
}

// TestGuardKeepsGuardingThroughHangupAndTerminalSignals: only SIGKILL
// ends it.
func TestGuardKeepsGuardingThroughHangupAndTerminalSignals(t *testing.T) {
	kinds(t, func(t *testing.T, k kind) {
		leader, member := group(t)
		g := arm(t, leader, k)
		for _, sig := range []syscall.Signal{syscall.SIGHUP, syscall.SIGINT, syscall.SIGTERM, syscall.SIGQUIT, syscall.SIGTSTP} {
			if err := sys.PidfdSignal(g.Pidfd, sig); err != nil {
				t.Fatal(err)
			}
		}
		// The signals are ignored at delivery; the guard still answers the
		// end of its pipe by ending the group.
		starterGone(t, g, leader, member)
	})
}

// starterGone closes the finish pipe as a dead starter would, and checks
// that the guard SIGKILLs the leader and the member and then exits 0.
func starterGone(t *testing.T, g *Guard, leader *testproc.Child, member int) {
	t.Helper()
	sys.Close(g.finW)
	g.finW = -1
	if ws := leader.Wait(t); !ws.Signaled() || ws.Signal() != syscall.SIGKILL {
		t.Fatalf("leader ended with %v, want SIGKILL from the guard", ws)
	}
	testproc.Eventually(t, "the member must be dead", func() bool { return !live(member) })
	if st := awaitGuardExit(t, g); !st.Exited || st.Code != 0 {
		t.Fatalf("guard ended with %v, want exit 0 after ending the group", st)
	}
}

// TestGuardEndsTheGroupAfterTheLeaderWasReaped: after the starter's death
// the Engine is re-parented and may be reaped before the guard acts; the
// pidfd still names the group.
func TestGuardEndsTheGroupAfterTheLeaderWasReaped(t *testing.T) {
	kinds(t, func(t *testing.T, k kind) {
		leader, member := group(t)
		g := arm(t, leader, k)
		if err := sys.PidfdSignal(leader.Pidfd, syscall.SIGKILL); err != nil {
			t.Fatal(err)
		}
		leader.Wait(t) // reaped: the number now lives on through the member only
		if !live(member) {
			t.Fatal("member died with its leader")
		}
		sys.Close(g.finW)
		g.finW = -1
		awaitGuardExit(t, g)
		testproc.Eventually(t, "the member must be dead", func() bool { return !live(member) })
	})
}

func TestArmRefusesAGroupThatIsGone(t *testing.T) {
	kinds(t, func(t *testing.T, k kind) {
		leader, _ := group(t)
		if err := leader.KillGroup(); err != nil {
			t.Fatal(err)
		}
		leader.Wait(t)
		testproc.Eventually(t, "the group must be gone", func() bool {
			return sys.PidfdSignalGroup(leader.Pidfd, 0) != nil
		})
		exe, _ := os.Executable()
		t.Setenv("GORACE", "atexit_sleep_ms=0")
		g, err := armSpec(Spec{Exe: exe, GatePidfd: leader.Pidfd, PGID: leader.PID, Budget: time.Second, ReExec: k.reExec})
		if !errors.Is(err, errRefused) {
			if g != nil {
				g.Abandon()
			}
			t.Fatalf("Arm = %v, want errRefused", err)
		}
	})
}

// TestTheRawGuardKeepsNoCopyOfTheStartersMemory: the raw guard is a fork
// of the starter, and would keep its copy of every page the starter wrote
// before and writes after the fork; it gives back all but its stack and its
// own state. Here the starter (this test process) holds 32 MiB of written
// memory when it arms the guard.
func TestTheRawGuardKeepsNoCopyOfTheStartersMemory(t *testing.T) {
	if !rawSupported() {
		t.Skip("no raw guard on this kernel (it needs Linux 6.9)")
	}
	ballast := make([]byte, 32<<20)
	for i := range ballast {
		ballast[i] = byte(i)
	}
	leader, member := group(t)
	g := arm(t, leader, kind{"raw", false})
	own, guard := anonymousKiB(t, os.Getpid()), anonymousKiB(t, g.PID)
	if own < 32<<10 {
		t.Fatalf("this process has %d KiB of anonymous memory, want the 32 MiB ballast at least", own)
	}
	if guard > 1<<10 {
		t.Errorf("the raw guard holds %d KiB of anonymous memory (this process: %d KiB), want under 1 MiB", guard, own)
	}
	t.Logf("anonymous memory: this process %d KiB, the raw guard %d KiB", own, guard)
	runtime.KeepAlive(ballast)
	starterGone(t, g, leader, member)
}

// anonymousKiB reads the Anonymous line of /proc/PID/smaps_rollup.
func anonymousKiB(t *testing.T, pid int) int {
	t.Helper()
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/smaps_rollup", pid))
	if err != nil {
		t.Fatal(err)
	}
	for line := range strings.SplitSeq(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, "Anonymous:"); ok {
			kib, err := strconv.Atoi(strings.TrimSuffix(strings.TrimSpace(rest), " kB"))
			if err != nil {
				t.Fatal(err)
			}
			return kib
		}
	}
	t.Fatalf("no Anonymous line in smaps_rollup of %d", pid)
	return 0
}

// TestUnderReleaseAFinishAfterTheEnginesExitLeavesTheGroup: a guard
// armed for a session that may be released (--release-on-exit) obeys the
// finish once the Engine (the leader) has exited, though a member of its
// group lives: what the Engine left is the enclosing session's.
func TestUnderReleaseAFinishAfterTheEnginesExitLeavesTheGroup(t *testing.T) {
	kinds(t, func(t *testing.T, k kind) {
		leader, member := group(t)
		g := armReleasing(t, leader, k, true)
		if err := sys.PidfdSignal(leader.Pidfd, syscall.SIGKILL); err != nil {
			t.Fatal(err)
		}
		testproc.Eventually(t, "the leader must have exited", func() bool { return leader.Exited(0) })
		if err := sys.WriteAll(g.finW, wire.Encode(wire.Finish, leader.PID)); err != nil {
			t.Fatal(err)
		}
		if st := awaitGuardExit(t, g); !st.Exited || st.Code != exitDone {
			t.Fatalf("guard ended with %v after a finish, want exit %d", st, exitDone)
		}
		if !live(member) {
			t.Fatal("the guard ended what a released session left")
		}
		_ = syscall.Kill(member, syscall.SIGKILL) // our group's member, live: the number is its own
	})
}

// TestUnderReleaseAFinishWhileTheEngineLivesIsNotObeyed: the release is
// for the Engine's own exit only; a finish before it (a same-user Engine
// writing into the pipe) keeps the guard guarding, and the starter's loss
// ends the whole group.
func TestUnderReleaseAFinishWhileTheEngineLivesIsNotObeyed(t *testing.T) {
	kinds(t, func(t *testing.T, k kind) {
		leader, member := group(t)
		g := armReleasing(t, leader, k, true)
		if err := sys.WriteAll(g.finW, wire.Encode(wire.Finish, leader.PID)); err != nil {
			t.Fatal(err)
		}
		if !live(member) || leader.Exited(0) {
			t.Fatal("the group was signalled while the starter lives")
		}
		starterGone(t, g, leader, member)
	})
}
