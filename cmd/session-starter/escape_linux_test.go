package main

import (
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/session-starter/session-starter/internal/proc"
	"github.com/session-starter/session-starter/internal/testproc"
	"github.com/session-starter/session-starter/starter/launch"
)

// Escapes: each writes the escaped process's PID on a line, once it has
// left the Engine's group, then the Engine goes on as the test says.
const (
	// A process that starts its own session.
	setsidEscape = `setsid sh -c 'echo $$; exec sleep 600' &`
	// A daemon that double-forks: its parent is gone before the Engine
	// exits, and it leads a new session with a child of its own.
	doubleForkEscape = `( setsid sh -c 'sleep 600 & echo $$; exec sleep 600' & ) ;`
	// A process that moves itself to a new process group in the same
	// session.
	setpgidEscape = `python3 -c 'import os, time; os.setpgid(0, 0); print(os.getpid(), flush=True); time.sleep(600)' &`
	// A new session whose process ignores SIGTERM.
	ignoringEscape = `setsid sh -c 'trap "" TERM; echo $$; exec sleep 600' &`
)

// escaped reads the escapee's PID and checks that it left group pgid.
func escaped(t *testing.T, s *session, pgid int) int {
	t.Helper()
	pid, err := strconv.Atoi(s.line())
	if err != nil {
		t.Fatal(err)
	}
	testproc.Eventually(t, "the escapee must leave the Engine's group", func() bool {
		pg, err := syscall.Getpgid(pid)
		return err == nil && pg != pgid
	})
	return pid
}

func TestProcessesThatLeaveTheGroupEndWhenTheEngineExits(t *testing.T) {
	needsSubreaper(t)
	for _, tt := range []struct{ name, escape string }{
		{"setsid", setsidEscape},
		{"double fork", doubleForkEscape},
		{"setpgid", setpgidEscape},
	} {
		t.Run(tt.name, func(t *testing.T) {
			mark := newMark(t)
			s := start(t, mark, []string{"--containment", "group", "--ack", "--", "sh", "-c", tt.escape + ` read x; exit 5`})
			pid := s.ack()
			escaped(t, s, pid)
			if _, err := s.in.Write([]byte("x\n")); err != nil {
				t.Fatal(err)
			}
			wantExit(t, s.wait(), 5, s.stderr)
			noSurvivors(t, mark)
		})
	}
}

func TestProcessesThatLeaveTheGroupEndOnAStopSignal(t *testing.T) {
	needsSubreaper(t)
	mark := newMark(t)
	s := start(t, mark, []string{"--containment", "group", "--ack", "--", "sh", "-c", doubleForkEscape + ` read x`})
	pid := s.ack()
	escaped(t, s, pid)
	s.signal(syscall.SIGTERM)
	s.wait()
	noSurvivors(t, mark)
}

func TestEscapeesIgnoringTheStopSignalAreKilledAfterTheGrace(t *testing.T) {
	needsSubreaper(t)
	mark := newMark(t)
	s := start(t, mark, []string{"--containment", "group", "--ack", "--grace", "200ms", "--status-fd", "3", "--", "sh", "-c", ignoringEscape + ` read x; exit 0`}, withExtraFiles(statusPipe(t)))
	pid := s.ack()
	escaped(t, s, pid)
	if _, err := s.in.Write([]byte("x\n")); err != nil {
		t.Fatal(err)
	}
	wantExit(t, s.wait(), 0, s.stderr)
	noSurvivors(t, mark)
}

func statusPipe(t *testing.T) *os.File {
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close(); w.Close() })
	go func() {
		b := make([]byte, 4096)
		for {
			if _, err := r.Read(b); err != nil {
				return
			}
		}
	}()
	return w
}

// TestEscapeesEndWhenTheStarterIsKilledWithSIGKILL: in group mode the
// processes that left group E — a setsid one and a double-forked daemon
// with a child of its own — had the starter as their subreaper; once it
// is SIGKILLed the guard finds them by the session mark, verified through
// their pidfds, and ends them too.
func TestEscapeesEndWhenTheStarterIsKilledWithSIGKILL(t *testing.T) {
	if portable {
		t.Skip("the portable build verifies no mark (macOS's paths have no pidfd)")
	}
	mark := newMark(t)
	s := start(t, mark, []string{"--containment", "group", "--ack", "--", "sh", "-c", setsidEscape + doubleForkEscape + ` read x`})
	pid := s.ack()
	escaped(t, s, pid)
	escaped(t, s, pid)
	killed := time.Now()
	s.signal(syscall.SIGKILL)
	s.wait()
	noSurvivors(t, mark)
	t.Logf("every escapee ended %v after the starter's SIGKILL", time.Since(killed).Round(time.Millisecond))
}

// TestWithoutTheMarkEscapeesOutliveAStarterKilledWithSIGKILL pins what
// --no-mark gives up: the guard ends group E, but the processes that left
// it were adopted by the starter, which is gone, and nothing names them.
func TestWithoutTheMarkEscapeesOutliveAStarterKilledWithSIGKILL(t *testing.T) {
	mark := newMark(t)
	s := start(t, mark, []string{"--containment", "group", "--no-mark", "--ack", "--", "sh", "-c", setsidEscape + ` read x`})
	pid := s.ack()
	escapee := escaped(t, s, pid)
	s.signal(syscall.SIGKILL)
	s.wait()
	testproc.Eventually(t, "the guard must end the Engine's group", func() bool {
		left := marked(mark)
		return len(left) == 1 && left[0] == escapee
	})
	// Our cleanup ends the escapee; it is the documented survivor.
	if left := killMarked(mark); len(left) != 1 || left[0] != escapee {
		t.Fatalf("killed %v, want only the escapee %d", left, escapee)
	}
}

// TestAnEscapeeInTheLaunchersGroupIsEndedAloneNotItsGroup: a process that
// joins the launcher's group is ended by itself; the launcher's group is
// never signalled.
func TestAnEscapeeInTheLaunchersGroupIsEndedAloneNotItsGroup(t *testing.T) {
	needsSubreaper(t)
	mark := newMark(t)
	// The launcher shell leads its group, with a canary in it; the
	// Engine's child joins that group, then the Engine exits.
	cmd := exec.Command("sh", "-c", `sleep 600 & c=$!
printf 'x\n' | "$0" --containment group -- python3 -c '
import os, sys, time
pid = os.fork()
if pid == 0:
    os.setpgid(0, int(sys.argv[1]))
    time.sleep(600)
for i in range(3000):
    if os.getpgid(pid) == int(sys.argv[1]):
        break
    time.sleep(0.01)
' $$
s=$?; kill -0 $c && echo canary-alive; kill $c; echo $s`, binary)
	cmd.Env = append(os.Environ(), markVar+"="+mark)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("launcher: %v", err)
	}
	if got := string(out); got != "canary-alive\n0\n" {
		t.Fatalf("launcher printed %q, want the canary alive and status 0", got)
	}
	noSurvivors(t, mark)
}

// TestTheGuardEndsNoStrangerThatLooksMarked: once the starter is
// SIGKILLed the guard ends the processes that carry the session's mark,
// and none of these, though each looks like one: a process that carries
// another session's id, one whose command line (not its environment)
// holds the session's mark, and another user's process that carries it
// in its environment.
func TestTheGuardEndsNoStrangerThatLooksMarked(t *testing.T) {
	if portable {
		t.Skip("the portable build verifies no mark (macOS's paths have no pidfd)")
	}
	mark := newMark(t)
	s := start(t, mark, []string{"--containment", "group", "--ack", "--", "sh", "-c", `echo "$` + launch.SessionVar + `"; ` + setsidEscape + ` read x`})
	pid := s.ack()
	value := s.line()
	escaped(t, s, pid)
	other := strings.Repeat("ab", 16)
	stranger := func(cred *syscall.Credential, env []string, args ...string) *exec.Cmd {
		cmd := exec.Command("/bin/sh", append([]string{"-c", `exec sleep 600`}, args...)...)
		cmd.Env = append(os.Environ(), env...)
		if cred != nil {
			cmd.SysProcAttr = &syscall.SysProcAttr{Credential: cred}
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
		return cmd
	}
	strangers := []*exec.Cmd{
		stranger(nil, []string{launch.SessionVar + "=" + other}),
		stranger(nil, nil, launch.SessionVar+"="+value),
	}
	if os.Getuid() == 0 {
		strangers = append(strangers, stranger(&syscall.Credential{Uid: 65534, Gid: 65534}, []string{launch.SessionVar + "=" + value}))
	}
	guard := pidfdOf(t, guardOf(t, s.cmd.Process.Pid))
	s.signal(syscall.SIGKILL)
	s.wait()
	noSurvivors(t, mark)
	awaitExit(t, guard, "the guard must exit once the session is ended")
	for _, c := range strangers {
		if st, err := proc.ReadStat(c.Process.Pid); err != nil || !st.Live() {
			t.Errorf("stranger %d %q (env %q): %v, %v; want it alive", c.Process.Pid, c.Args, c.Env[len(c.Env)-1], st, err)
		}
	}
}
