package starter

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/session-starter/session-starter/internal/ledger"
	"github.com/session-starter/session-starter/internal/mark"
	"github.com/session-starter/session-starter/internal/proc"
	"github.com/session-starter/session-starter/internal/sys"
	"github.com/session-starter/session-starter/internal/testproc"
)

// asStarterVar makes the test binary a starter of its own: Run with
// os.Args[1:] as the Engine's command line, then exit. A test can then
// SIGKILL the starter and its guard, as an OOM kill of the tree would.
const asStarterVar = "SESSION_STARTER_TEST_AS_STARTER"

// runAsStarter is the test binary as a starter, when asStarterVar asks.
func runAsStarter() {
	if os.Getenv(asStarterVar) == "" {
		return
	}
	_, err := Run(context.Background(), Options{Argv: os.Args[1:], Env: os.Environ()})
	if err != nil {
		os.Exit(125)
	}
	os.Exit(0)
}

// deadSession starts a session in a starter of its own with a setsid
// escapee and a member of group E, then SIGKILLs its guard and its
// starter, stopped first so that it cannot end the session when it loses
// its guard (both PIDs are the ledger record's). It returns the ledger's
// directory and the PIDs of the two processes the session leaves.
func deadSession(t *testing.T) (dir string, left []int) {
	t.Helper()
	dir = t.TempDir()
	if err := os.Chmod(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	t.Setenv(ledger.EnvDir, dir)
	pids := filepath.Join(t.TempDir(), "pids")
	script := `setsid sh -c 'echo $$ >> "$0"; exec sleep 600' "$0" & sh -c 'echo $$ >> "$0"; exec sleep 600' "$0" & exec sleep 600`
	cmd := exec.Command(os.Args[0], "sh", "-c", script, pids)
	cmd.Env = append(os.Environ(), asStarterVar+"=1", "GORACE=atexit_sleep_ms=0")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	var recs []ledger.Record
	testproc.Eventually(t, "the session must have its ledger record and start its two processes", func() bool {
		recs, _, _ = ledger.Read(dir)
		b, _ := os.ReadFile(pids)
		left = nil
		for _, f := range strings.Fields(string(b)) {
			pid, _ := strconv.Atoi(f)
			// Its exec done: while it execs, its environment, and so its
			// mark, reads empty.
			if st, err := proc.ReadStat(pid); err == nil && st.Comm == "sleep" {
				left = append(left, pid)
			}
		}
		return len(recs) == 1 && len(left) == 2
	})
	tokens := processes(left)
	engine := recs[0].Engine
	t.Cleanup(func() {
		// What a failed or cancelled test left: the session's processes,
		// the Engine among them, found as a reclaim finds them.
		_, _ = ledger.Reclaim(context.Background(), false)
		for _, p := range append([]ledger.Process{engine}, tokens...) {
			if ledger.Alive(p.PID, p.Token) {
				_ = syscall.Kill(p.PID, syscall.SIGKILL)
			}
		}
	})
	if recs[0].Starter.PID != cmd.Process.Pid {
		t.Fatalf("the record names starter %d, want %d", recs[0].Starter.PID, cmd.Process.Pid)
	}
	if err := cmd.Process.Signal(syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	// The guard is the stopped starter's child: until the starter is
	// killed and reaped, nobody reaps the guard, and its PID is its own.
	guard, err := sys.PidfdOpen(recs[0].Guard.PID)
	if err != nil {
		t.Fatal(err)
	}
	defer sys.Close(guard)
	if err := sys.PidfdSignal(guard, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Process.Kill()
	_ = cmd.Wait()
	// A SIGKILLed process takes a moment to exit; until it has, it is
	// live, and a reclaim rightly leaves its session alone.
	if n, err := sys.Poll([]sys.PollFd{{Fd: int32(guard), Events: sys.POLLIN}}, testproc.TooLong); err != nil || n == 0 {
		t.Fatalf("the SIGKILLed guard did not exit: %v", err)
	}
	for _, pid := range left {
		if st, err := proc.ReadStat(pid); err != nil || !st.Live() {
			t.Fatalf("process %d of the session: %v, %v; want it left running", pid, st, err)
		}
	}
	return dir, left
}

// TestReclaimEndsWhatADeadSessionLeftAndReportsIt: the starter and the
// guard SIGKILLed together leave a setsid escapee and a member of group
// E; a dry reclaim (ledger.Reclaim, as --reclaim) lists them and ends nothing; Reclaim ends them and
// says so; a second one finds nothing.
func TestReclaimEndsWhatADeadSessionLeftAndReportsIt(t *testing.T) {
	if !mark.Supported {
		t.Skip("the escapees are found by the mark scan, which the portable build has not (its reclaim reports them, reason platform)")
	}
	dir, left := deadSession(t)
	alive := func() (n int) {
		for _, pid := range left {
			if st, err := proc.ReadStat(pid); err == nil && st.Live() {
				n++
			}
		}
		return n
	}
	rep, err := ledger.Reclaim(context.Background(), true)
	if err != nil || len(rep.Sessions) != 1 || rep.Sessions[0].Action != "would-reclaim" || !rep.DryRun || rep.Dir != dir {
		t.Fatalf("Reclaim(dry) = %+v, %v; want one session it would reclaim in %s", rep, err, dir)
	}
	if ended := len(rep.Sessions[0].Ended); ended < len(left) || alive() != len(left) {
		t.Fatalf("Reclaim(dry) listed %d to end and %d of %d are alive; want them all listed and none ended", ended, alive(), len(left))
	}
	rep, err = ledger.Reclaim(context.Background(), false)
	if err != nil || len(rep.Sessions) != 1 || rep.Sessions[0].Action != "reclaimed" || len(rep.Sessions[0].Left) != 0 {
		t.Fatalf("Reclaim = %+v, %v; want one session reclaimed, nothing left", rep, err)
	}
	var pids []int
	for _, e := range rep.Sessions[0].Ended {
		pids = append(pids, e.PID)
	}
	for _, pid := range left {
		if !slices.Contains(pids, pid) {
			t.Errorf("Reclaim ended %v, want %d among them", pids, pid)
		}
	}
	testproc.Eventually(t, "what the session left must be gone", func() bool { return alive() == 0 })
	if rep, err := ledger.Reclaim(context.Background(), false); err != nil || len(rep.Sessions) != 0 || len(rep.Problems) != 0 {
		t.Fatalf("a second Reclaim = %+v, %v; want nothing found", rep, err)
	}
}

// TestReclaimStopsBeforeASessionOnceItsContextIsDone: a cancelled context
// reclaims nothing and says why.
func TestReclaimStopsBeforeASessionOnceItsContextIsDone(t *testing.T) {
	_, left := deadSession(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if rep, err := ledger.Reclaim(ctx, false); err != context.Canceled || len(rep.Sessions) != 0 {
		t.Fatalf("Reclaim(cancelled) = %+v, %v; want nothing done and context.Canceled", rep, err)
	}
	for _, pid := range left {
		if st, err := proc.ReadStat(pid); err != nil || !st.Live() {
			t.Fatalf("process %d: %v, %v; want it alive", pid, st, err)
		}
	}
}

// processes names pids with their identity tokens, while they are the
// processes the test started.
func processes(pids []int) []ledger.Process {
	var ps []ledger.Process
	for _, pid := range pids {
		if tok, err := ledger.TokenOf(pid); err == nil {
			ps = append(ps, ledger.Process{PID: pid, Token: tok})
		}
	}
	return ps
}
