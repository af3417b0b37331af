package main

// The end of a session: every holder — the Engine itself, group E, the
// adopted escapees, the session cgroup with its child cgroups — at once,
// under one deadline, in the starter and in the guard.

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/session-starter/session-starter/internal/proc"
	"github.com/session-starter/session-starter/internal/testproc"
	"github.com/session-starter/session-starter/internal/wire"
)

// modes runs f once per containment mode, skipping cgroup mode where this
// machine has none.
func modes(t *testing.T, f func(t *testing.T, mode string)) {
	for _, mode := range []string{"group", "cgroup"} {
		t.Run(mode, func(t *testing.T) {
			if mode == "cgroup" {
				cgroupPlace(t)
			}
			f(t, mode)
		})
	}
}

// leaveGroup is an Engine that moves itself into its parent's (the
// starter's, the launcher's) process group, says "left", and sleeps.
const leaveGroup = `import os, time; os.setpgid(0, os.getpgid(os.getppid())); print("left", flush=True); time.sleep(600)`

func TestAnEngineThatLeftItsGroupIsEndedWithTheSession(t *testing.T) {
	modes(t, func(t *testing.T, mode string) {
		mark := newMark(t)
		s := start(t, mark, []string{"--containment", mode, "--ack", "--kill-budget", "2s", "--", "python3", "-c", leaveGroup})
		pid := s.ack()
		if l := s.line(); l != "left" {
			t.Fatalf("Engine said %q, want left", l)
		}
		if pg, err := syscall.Getpgid(pid); err != nil || pg == pid {
			t.Fatalf("Engine's group = %d, %v; want it gone from its own", pg, err)
		}
		s.signal(syscall.SIGTERM)
		wantSignal(t, s.wait(), syscall.SIGKILL, s.stderr)
		noSurvivors(t, mark)
	})
}

func TestAnEngineThatLeftItsGroupIsEndedByTheGuardWhenTheStarterIsKilled(t *testing.T) {
	modes(t, func(t *testing.T, mode string) {
		mark := newMark(t)
		s := start(t, mark, []string{"--containment", mode, "--ack", "--", "python3", "-c", leaveGroup})
		s.ack()
		if l := s.line(); l != "left" {
			t.Fatalf("Engine said %q, want left", l)
		}
		s.signal(syscall.SIGKILL)
		wantSignal(t, s.wait(), syscall.SIGKILL, s.stderr)
		noSurvivors(t, mark)
	})
}

// freezerRoot is where a cgroup v1 freezer is mounted, where there is one.
const freezerRoot = "/sys/fs/cgroup/freezer"

// needFreezer skips a test where no cgroup v1 freezer can be written:
// called before the test starts a session, so that no session is left to
// end at the skip (a cgroup2-only machine, scripts/vm/run's guests).
func needFreezer(t *testing.T) {
	t.Helper()
	if syscall.Access(freezerRoot, 2) != nil {
		t.Skip("no writable cgroup v1 freezer")
	}
}

// freeze puts pid into a fresh cgroup v1 freezer cgroup and freezes it:
// a frozen process stays alive, in uninterruptible sleep, with SIGKILL
// pending, until it is thawed. Cleanup thaws it (the pending SIGKILL then
// ends it) and removes the freezer cgroup.
func freeze(t *testing.T, pid int) (thaw func()) {
	t.Helper()
	const root = freezerRoot
	needFreezer(t)
	dir := path.Join(root, fmt.Sprintf("session-starter-test-%d-%d", os.Getpid(), pid))
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Skipf("no cgroup v1 freezer: %v", err)
	}
	thawed := false
	thaw = func() {
		if thawed {
			return
		}
		thawed = true
		_ = os.WriteFile(path.Join(dir, "freezer.state"), []byte("THAWED"), 0)
		testproc.Eventually(t, "the frozen process must end once thawed", func() bool {
			b, err := os.ReadFile(path.Join(dir, "cgroup.procs"))
			return err != nil || strings.TrimSpace(string(b)) == ""
		})
		if err := os.Remove(dir); err != nil {
			t.Errorf("remove %s: %v", dir, err)
		}
	}
	t.Cleanup(thaw)
	if err := os.WriteFile(path.Join(dir, "cgroup.procs"), []byte(strconv.Itoa(pid)), 0); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path.Join(dir, "freezer.state"), []byte("FROZEN"), 0); err != nil {
		t.Fatal(err)
	}
	testproc.Eventually(t, "the Engine must be frozen", func() bool {
		b, err := os.ReadFile(path.Join(dir, "freezer.state"))
		return err == nil && strings.TrimSpace(string(b)) == "FROZEN"
	})
	return thaw
}

// An Engine that cannot be killed (frozen) makes the end last the grace
// plus the kill budget, and no more: then 125, naming it.
func TestAnUnkillableEngineEndsTheSessionAfterTheGracePlusTheKillBudget(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root to freeze a process")
	}
	needFreezer(t)
	modes(t, func(t *testing.T, mode string) {
		const grace, budget = time.Second, 2 * time.Second
		mark := newMark(t)
		s := start(t, mark, []string{"--containment", mode, "--ack", "--grace", "1s", "--kill-budget", "2s", "--", "sh", "-c", "echo ready; exec sleep 600"})
		pid := s.ack()
		if l := s.line(); l != "ready" {
			t.Fatalf("Engine said %q, want ready", l)
		}
		guard := guardOf(t, s.cmd.Process.Pid)
		thaw := freeze(t, pid)
		// The starter's own exit, seen through a pidfd: the launcher's
		// Wait also waits for the frozen Engine's hold on the pipes.
		pidfd, err := unixPidfdOpen(s.cmd.Process.Pid)
		if err != nil {
			t.Fatal(err)
		}
		defer syscall.Close(pidfd)
		start := time.Now()
		s.signal(syscall.SIGTERM)
		awaitExit(t, pidfd, "the starter must exit")
		took := time.Since(start)
		wantExit(t, s.wait(), 125, s.stderr)
		if want := fmt.Sprintf("pid %d ", pid); !strings.Contains(s.stderr.String(), want) {
			t.Errorf("stderr = %q, want the frozen Engine named (%q)", s.stderr, want)
		}
		// The bound is grace + budget + 250 ms; a loaded machine may add
		// to the start and exit of the process around it, not to the end.
		if took > grace+budget+2*time.Second {
			t.Errorf("the end took %v, want about grace + kill budget = %v", took, grace+budget)
		}
		t.Logf("%s mode: from SIGTERM to exit 125 with a frozen Engine, --grace 1s --kill-budget 2s: %v", mode, took)
		// The guard keeps guarding the survivor: once it can die, its
		// pending SIGKILL ends it, and the guard exits.
		thaw()
		testproc.Eventually(t, "the guard must exit once the survivor is gone", func() bool { return !live(guard) })
	})
}

// termRecorder is an escapee in a session of its own, orphaned at once
// (a double fork: the starter adopts it), that writes "term" to the file
// $F when it gets SIGTERM, and exits; it says "ready" first.
const termRecorder = `( setsid sh -c 'trap "echo term > \"$F\"; exit 0" TERM; echo ready; while :; do sleep 1; done' & );`

// awaitTerm waits, bounded, for file to hold "term".
func awaitTerm(t *testing.T, file string) {
	t.Helper()
	testproc.Eventually(t, "the escapee must get the stop signal during the grace", func() bool {
		b, err := os.ReadFile(file)
		return err == nil && strings.TrimSpace(string(b)) == "term"
	})
}

// The stop signal reaches every holder at once: an escapee gets it while
// group E, which ignores it, still has its whole grace to go.
func TestAnEscapeeGetsTheStopSignalAtTheSameMomentAsTheEnginesGroup(t *testing.T) {
	modes(t, func(t *testing.T, mode string) {
		needsSubreaper(t)
		mark := newMark(t)
		file := path.Join(t.TempDir(), "got")
		// The Engine says so once it ignores TERM (not before its fork:
		// a shell cannot trap what it was started ignoring).
		s := start(t, mark, []string{"--containment", mode, "--ack", "--grace", "10m", "--", "sh", "-c", termRecorder + ` trap "" TERM; echo engine-ready; exec sleep 600`},
			func(c *exec.Cmd) { c.Env = append(c.Env, "F="+file) })
		s.ack()
		got := []string{s.line(), s.line()}
		slices.Sort(got)
		if !slices.Equal(got, []string{"engine-ready", "ready"}) {
			t.Fatalf("the Engine and the escapee said %q, want engine-ready and ready", got)
		}
		s.signal(syscall.SIGTERM)
		awaitTerm(t, file)
		s.signal(syscall.SIGTERM) // a second stop signal ends the grace
		wantSignal(t, s.wait(), syscall.SIGKILL, s.stderr)
		noSurvivors(t, mark)
	})
}

// In cgroup mode the stop signal reaches the processes of the cgroups
// below the session cgroup too: here one that also left group E and is
// the Engine's child (so neither group E nor the sweep reaches it). Before
// Linux 6.13, where no pidfd shows a process's cgroup, it does not (the
// limit the README states): that process gets only the SIGKILL.
func TestTheStopSignalReachesACgroupBelowTheSessionCgroup(t *testing.T) {
	mount, _ := cgroupPlace(t)
	mark := newMark(t)
	file := path.Join(t.TempDir(), "got")
	engine := `cg=$(sed -n 's/^0:://p' /proc/self/cgroup); mkdir "$M$cg/sub" && ` +
		`setsid sh -c 'echo $$ > "$0/cgroup.procs"; trap "echo term > \"$F\"; exit 0" TERM; echo ready; while :; do sleep 1; done' "$M$cg/sub" & ` +
		`trap "" TERM; exec sleep 600`
	// Before 6.13 a short grace ends it: a second stop signal sent at
	// once could merge with the first, and nothing there shows that the
	// first was handled.
	each, grace := pidfdShowsCgroup(t), "10m"
	if !each {
		grace = "1s"
	}
	s := start(t, mark, []string{"--containment", "cgroup", "--ack", "--grace", grace, "--", "sh", "-c", engine},
		func(c *exec.Cmd) { c.Env = append(c.Env, "F="+file, "M="+mount) })
	s.ack()
	if l := s.line(); l != "ready" {
		t.Fatalf("the process in the child cgroup said %q, want ready; stderr: %s", l, s.stderr)
	}
	s.signal(syscall.SIGTERM)
	if each {
		awaitTerm(t, file)
		s.signal(syscall.SIGTERM) // a second stop signal ends the grace
	}
	wantSignal(t, s.wait(), syscall.SIGKILL, s.stderr)
	noSurvivors(t, mark)
	if _, err := os.Stat(file); !each && !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("before Linux 6.13 the process below the session cgroup got the stop signal (%v), want only the SIGKILL", err)
	}
}

// A same-user Engine can open the guard's end of its pipe through /proc
// and write to it. Neither a forged finish nor a partial message kept
// open disarms or stalls the guard: when the starter is SIGKILLed it ends
// the session all the same.
func TestWhatTheEngineWritesIntoTheGuardsPipeCannotDisarmIt(t *testing.T) {
	for _, tt := range []struct{ name, write string }{
		{"a forged finish", `printf 'finish %s\n' $$ > "/proc/$g/fd/4"`},
		{"a partial message kept open", `exec 5> "/proc/$g/fd/4"; printf fini >&5`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if portable && tt.name == "a partial message kept open" {
				t.Skip("the portable build's guard watches the starter by its pipe alone, as on macOS, where no other process can open that pipe; on Linux /proc/PID/fd lets the Engine hold it open")
			}
			mark := newMark(t)
			s := start(t, mark, []string{"--containment", "group", "--ack", "--", "sh", "-c", `read g; ` + tt.write + `; echo done; exec sleep 600`})
			s.ack()
			g := guardOf(t, s.cmd.Process.Pid)
			if _, err := fmt.Fprintln(s.in, g); err != nil {
				t.Fatal(err)
			}
			if l := s.line(); l != "done" {
				t.Fatalf("Engine said %q, want done; stderr: %s", l, s.stderr)
			}
			s.signal(syscall.SIGKILL)
			wantSignal(t, s.wait(), syscall.SIGKILL, s.stderr)
			noSurvivors(t, mark)
		})
	}
}

// TestAStoppedGuardIsContinuedAtOnce: the starter is told of its
// children's stops (SIGCHLD), and a guard stopped while the session runs
// is continued then, with a warning, not at the end: a stopped guard would
// end nothing if the starter were killed meanwhile.
func TestAStoppedGuardIsContinuedAtOnce(t *testing.T) {
	mark := newMark(t)
	s := start(t, mark, []string{"--log-level", "warn", "--ack", "--", "sh", "-c", "read x; exit 3"})
	s.ack()
	g := guardOf(t, s.cmd.Process.Pid)
	if err := syscall.Kill(g, syscall.SIGSTOP); err != nil { // our grandchild, alive: the PID is the guard
		t.Fatal(err)
	}
	testproc.Eventually(t, "the stopped guard must be continued while the session runs", func() bool {
		st, err := proc.ReadStat(g)
		return err == nil && st.State != 'T' && strings.Contains(s.stderr.String(), "the guard was stopped; continued")
	})
	if _, err := fmt.Fprintln(s.in, "go"); err != nil {
		t.Fatal(err)
	}
	wantExit(t, s.wait(), 3, s.stderr)
	if strings.Contains(s.stderr.String(), "at the end of the session") {
		t.Errorf("stderr = %q, want the guard running at the end", s.stderr)
	}
	noSurvivors(t, mark)
}

// A wrapper that started a background job and then exec'd session-starter
// hands that child to it: it is not the session's, and is left running.
func TestAChildTheLauncherLeftBehindIsNotEndedWithTheSession(t *testing.T) {
	mark := newMark(t)
	cmd := exec.Command("sh", "-c", `sleep 600 & echo $!; exec "$0" --ack -- sh -c 'exit 3'`, binary)
	cmd.Env = append(os.Environ(), markVar+"="+mark)
	s := startCmd(t, mark, cmd)
	bg, err := strconv.Atoi(s.line())
	if err != nil {
		t.Fatal(err)
	}
	s.ack()
	wantExit(t, s.wait(), 3, s.stderr)
	if st, err := proc.ReadStat(bg); err != nil || !st.Live() {
		t.Fatalf("the wrapper's background child %d: %+v, %v; want it left running", bg, st, err)
	}
	_ = syscall.Kill(bg, syscall.SIGKILL) // alive, so the PID is still the child's
	noSurvivors(t, mark)
}

// reuseEngine writes its PID to $D/engine, leaves an escapee behind and
// exits once the escapee runs. The escapee (its own session, orphaned at
// once, ignoring SIGTERM) waits until the Engine's number is free — the
// starter reaped it — then forks until a child gets that number back,
// keeps it (the child sleeps), marks $D/got and exits: the child, with
// the Engine's old number, is adopted by the starter.
const reuseEngine = `echo $$ > "$D/engine"
( ( setsid sh -c '
trap "" TERM; E=$1; echo ready
i=0; while kill -0 "$E" 2>/dev/null; do i=$((i+1)); [ "$i" -gt 100000 ] && exit 1; done
n=0; while [ "$n" -lt 1000 ]; do
  sh -c "[ \$\$ = $E ] && exec sleep 600; exit 0" & p=$!
  if [ "$p" = "$E" ]; then touch "$D/got"; exit 0; fi
  wait "$p"; n=$((n+1))
done' sh $$ & ) ) | head -n1 >/dev/null
exit 0`

// reuseInit is PID 1 of a new PID namespace with pid_max 400, where
// numbers from 300 on come back within milliseconds (the first 300 are
// used up first, so that the Engine's is one of those): it runs one
// session of $BIN with
// reuseEngine, then says whether the process that got the Engine's
// number back outlived the session.
const reuseInit = `echo 400 > /proc/sys/kernel/pid_max || exit 3
i=0; while [ "$i" -lt 300 ]; do /bin/true; i=$((i+1)); done
"$BIN" --containment group --grace 3s --kill-budget 2s -- sh -c "$ENGINE"
E=$(cat "$D/engine")
if [ ! -f "$D/got" ]; then echo "no reuse"
elif kill -0 "$E" 2>/dev/null; then echo "alive"
else echo "gone"; fi`

// After the Engine was reaped, a process that got its number back is no
// longer spared: the sweep ends it with the session.
func TestAProcessThatGotTheEnginesNumberBackIsEndedWithTheSession(t *testing.T) {
	needsSubreaper(t)
	needsPidMaxPerNamespace(t)
	skipUnderEmulator(t, "a reused number within three tries of 1,000 forks cannot be counted on")
	unshare, err := exec.LookPath("unshare")
	if err != nil {
		skipUnlessCI(t, "unshare is not installed")
	}
	for try := 1; ; try++ {
		mark := newMark(t)
		dir := t.TempDir()
		cmd := exec.Command(unshare, "--pid", "--fork", "--mount-proc", "--kill-child", "sh", "-c", reuseInit)
		cmd.Env = append(os.Environ(), markVar+"="+mark, "BIN="+binary, "ENGINE="+reuseEngine, "D="+dir)
		out, err := cmd.Output()
		if ee, ok := err.(*exec.ExitError); ok && ee.ExitCode() == 3 {
			skipUnlessCI(t, "pid_max cannot be set in a new PID namespace (per namespace since Linux 6.14)")
		}
		got := strings.TrimSpace(string(out))
		if err != nil {
			t.Fatalf("namespace init: %v; said %q", err, got)
		}
		switch {
		case got == "gone":
			t.Logf("try %d: the process with the Engine's old number was ended", try)
			return
		case got == "alive":
			t.Fatal("the process that got the reaped Engine's number back outlived the session")
		case try == 3:
			t.Fatalf("in %d tries no process got the Engine's number back (%q)", try, got)
		}
		t.Logf("try %d: %s", try, got)
	}
}

// A hidden mode started for another protocol (a starter of another
// version) refuses: exit 125, the gate's report naming both protocols.
func TestAHiddenModeOfAnotherVersionRefusesNamingBothProtocols(t *testing.T) {
	for arg, other := range map[string]string{"__session-starter-gate__": "protocol 1", "__session-starter-guard__": "", "__session-starter-gate__99": "protocol 99"} {
		cmd := exec.Command(binary, arg, "3", "4", "-", "5")
		out, err := cmd.CombinedOutput()
		ee, ok := err.(*exec.ExitError)
		if !ok || ee.ExitCode() != 125 {
			t.Fatalf("%s: %v (%q), want exit 125", arg, err, out)
		}
		// The guard's stderr is /dev/null in a session: it says nothing.
		this := fmt.Sprintf("protocol %d", wire.Protocol)
		if other != "" && (!strings.Contains(string(out), other) || !strings.Contains(string(out), this)) {
			t.Errorf("%s: said %q, want %s and %s named", arg, out, other, this)
		}
	}
}
