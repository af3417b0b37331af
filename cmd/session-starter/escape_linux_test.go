package main

import (
	"os"
	"os/exec"
	"strconv"
	"syscall"
	"testing"

	"github.com/session-starter/session-starter/internal/testproc"
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

// TestEscapeesOutliveAStarterKilledWithSIGKILL pins the documented limit of
// group mode: the guard ends group E, but the processes that left it were
// adopted by the starter, which is gone. If this fails because nothing
// survived, the limit is gone: update README.
func TestEscapeesOutliveAStarterKilledWithSIGKILL(t *testing.T) {
	mark := newMark(t)
	s := start(t, mark, []string{"--containment", "group", "--ack", "--", "sh", "-c", setsidEscape + ` read x`})
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
