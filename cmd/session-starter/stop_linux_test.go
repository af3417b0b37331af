package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/session-starter/session-starter/internal/testproc"
)

// The background sleep is started before the trap: a child forked after
// it would run the shell's handler until its exec, swallow the stop signal,
// and live on through the grace.
func TestGraceSendsTheStopSignalFirstAndTheEnginesStatusIsMirrored(t *testing.T) {
	mark := newMark(t)
	s := start(t, mark, []string{"--grace", "1h", "--", "sh", "-c", `sleep 600 & trap 'echo got TERM; exit 7' TERM; echo ready; wait`})
	if got := s.line(); got != "ready" {
		t.Fatalf("Engine said %q, want ready", got)
	}
	s.signal(syscall.SIGTERM)
	if got := s.line(); got != "got TERM" {
		t.Fatalf("Engine said %q, want got TERM", got)
	}
	wantExit(t, s.wait(), 7, s.stderr)
	noSurvivors(t, mark)
}

func TestStopSignalIsChosenByStopSignal(t *testing.T) {
	mark := newMark(t)
	s := start(t, mark, []string{"--grace", "1h", "--stop-signal", "SIGUSR2", "--", "sh", "-c", `trap 'echo got USR2; exit 4' USR2; echo ready; while :; do sleep 1; done`})
	if got := s.line(); got != "ready" {
		t.Fatalf("Engine said %q, want ready", got)
	}
	s.signal(syscall.SIGTERM)
	if got := s.line(); got != "got USR2" {
		t.Fatalf("Engine said %q, want got USR2", got)
	}
	wantExit(t, s.wait(), 4, s.stderr)
	noSurvivors(t, mark)
}

func TestMembersIgnoringTheStopSignalAreKilledAfterTheGrace(t *testing.T) {
	mark := newMark(t)
	s := start(t, mark, []string{"--grace", "200ms", "--", "sh", "-c", `trap '' TERM; sleep 600 & echo ready; wait`})
	if got := s.line(); got != "ready" {
		t.Fatalf("Engine said %q, want ready", got)
	}
	s.signal(syscall.SIGTERM)
	wantSignal(t, s.wait(), syscall.SIGKILL, s.stderr)
	noSurvivors(t, mark)
}

// TestSecondStopSignalDuringTheGraceGoesStraightToSIGKILL uses a grace of
// an hour: only the second signal can end the session in time.
func TestSecondStopSignalDuringTheGraceGoesStraightToSIGKILL(t *testing.T) {
	mark := newMark(t)
	s := start(t, mark, []string{"--grace", "1h", "--", "sh", "-c", `trap '' TERM INT; sleep 600 & echo ready; wait`})
	if got := s.line(); got != "ready" {
		t.Fatalf("Engine said %q, want ready", got)
	}
	s.signal(syscall.SIGTERM)
	s.signal(syscall.SIGINT)
	wantSignal(t, s.wait(), syscall.SIGKILL, s.stderr)
	noSurvivors(t, mark)
}

// TestStoppedMembersGetSIGCONTAfterTheStopSignal: an Engine stopped by
// SIGSTOP can only act on SIGTERM once continued.
func TestStoppedMembersGetSIGCONTAfterTheStopSignal(t *testing.T) {
	mark := newMark(t)
	s := start(t, mark, []string{"--ack", "--grace", "1h", "--", "sh", "-c", `trap 'echo got TERM; exit 3' TERM; echo ready; kill -STOP $$; echo continued without TERM`})
	pid := s.ack()
	if got := s.line(); got != "ready" {
		t.Fatalf("Engine said %q, want ready", got)
	}
	testproc.Eventually(t, "the Engine must stop itself", func() bool {
		b, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
		i := bytes.LastIndexByte(b, ')')
		return i > 0 && len(b) > i+2 && b[i+2] == 'T'
	})
	s.signal(syscall.SIGTERM)
	if got := s.line(); got != "got TERM" {
		t.Fatalf("Engine said %q, want got TERM", got)
	}
	wantExit(t, s.wait(), 3, s.stderr)
	noSurvivors(t, mark)
}

func TestTimeoutEndsTheSessionWith124(t *testing.T) {
	mark := newMark(t)
	s := start(t, mark, []string{"--timeout", "100ms", "--", "sh", "-c", `sleep 600 & wait`})
	wantExit(t, s.wait(), 124, s.stderr)
	if !strings.Contains(s.stderr.String(), "session-starter: timed out after 100ms") {
		t.Fatalf("stderr = %q, want a timeout report", s.stderr)
	}
	noSurvivors(t, mark)
}

// TestTimeoutTakesPrecedenceOverTheMirroredStatus: the Engine exits 0 on
// the stop signal, and still the launcher learns of the timeout.
func TestTimeoutTakesPrecedenceOverTheMirroredStatus(t *testing.T) {
	mark := newMark(t)
	s := start(t, mark, []string{"--timeout", "100ms", "--grace", "1h", "--", "sh", "-c", `trap 'exit 0' TERM; sleep 600 & wait`})
	wantExit(t, s.wait(), 124, s.stderr)
	noSurvivors(t, mark)
}

func TestForwardedSignalsReachTheGroupAndDoNotEndTheSession(t *testing.T) {
	mark := newMark(t)
	s := start(t, mark, []string{"--", "sh", "-c", `for s in USR1 USR2 WINCH ALRM; do trap "echo got $s" $s; done; echo ready; i=0; while ! read x && [ $i -lt 100 ]; do i=$((i+1)); done; echo done`})
	if got := s.line(); got != "ready" {
		t.Fatalf("Engine said %q, want ready", got)
	}
	for _, sig := range []syscall.Signal{syscall.SIGUSR1, syscall.SIGUSR2, syscall.SIGWINCH, syscall.SIGALRM} {
		s.signal(sig)
		name := strings.TrimPrefix(unix.SignalName(sig), "SIG")
		if got := s.line(); got != "got "+name {
			t.Fatalf("after %v the Engine said %q, want got %s", sig, got, name)
		}
	}
	if _, err := s.in.Write([]byte("x\n")); err != nil {
		t.Fatal(err)
	}
	if got := s.line(); got != "done" {
		t.Fatalf("Engine said %q, want done", got)
	}
	wantExit(t, s.wait(), 0, s.stderr)
}

// TestAsPID1OrphansAreReapedAndASignalDeathExits128PlusS runs the starter
// as the init of a new PID namespace, where tini and dumb-init live.
func TestAsPID1OrphansAreReapedAndASignalDeathExits128PlusS(t *testing.T) {
	if _, err := exec.LookPath("unshare"); err != nil {
		t.Skip("unshare not installed")
	}
	mark := newMark(t)
	dir := t.TempDir()
	// An orphan exits; its zombie must go (we are its reaper now), then
	// the Engine dies of SIGTERM.
	engine := `( sh -c 'echo $$ > orphan; exit 0' & )
i=0; while [ $i -lt 3000 ]; do
  if [ -s orphan ] && ! [ -e /proc/$(cat orphan) ]; then echo orphan reaped; break; fi
  sleep 0.01; i=$((i+1))
done
kill -TERM $$`
	cmd := exec.Command("unshare", "--pid", "--fork", "--mount-proc", binary, "--", "sh", "-c", engine)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), markVar+"="+mark)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, _ := cmd.Output()
	if got := string(out); got != "orphan reaped\n" {
		t.Fatalf("Engine said %q, want the orphan reaped; stderr: %s", got, &stderr)
	}
	if code := cmd.ProcessState.ExitCode(); code != 128+int(syscall.SIGTERM) {
		t.Fatalf("exit status %d, want %d; stderr: %s", code, 128+int(syscall.SIGTERM), &stderr)
	}
	noSurvivors(t, mark)
}

func TestAsPID1WatchParentWithoutParentPIDIsAUsageError(t *testing.T) {
	if _, err := exec.LookPath("unshare"); err != nil {
		t.Skip("unshare not installed")
	}
	dir := t.TempDir()
	cmd := exec.Command("unshare", "--pid", "--fork", "--mount-proc", binary, "--watch-parent", "--", "touch", "ran")
	cmd.Dir = dir
	out, _ := cmd.CombinedOutput()
	if cmd.ProcessState.ExitCode() != 2 || !strings.Contains(string(out), "--parent-pid") {
		t.Fatalf("exit %d, output %q; want 2 and a report naming --parent-pid", cmd.ProcessState.ExitCode(), out)
	}
	if _, err := os.Stat(dir + "/ran"); err == nil {
		t.Fatal("the Engine ran, want nothing executed")
	}
}

// TestAsPID1StdioRunsWithoutAParentToWatch: --stdio as the init of a PID
// namespace (a container's entrypoint) watches no parent, as there is
// none, and that is no error.
func TestAsPID1StdioRunsWithoutAParentToWatch(t *testing.T) {
	if _, err := exec.LookPath("unshare"); err != nil {
		t.Skip("unshare not installed")
	}
	dir := t.TempDir()
	cmd := exec.Command("unshare", "--pid", "--fork", "--mount-proc", binary, "--stdio", "--", "sh", "-c", "touch ran; exit 3")
	cmd.Dir = dir
	out, _ := cmd.CombinedOutput()
	if cmd.ProcessState.ExitCode() != 3 {
		t.Fatalf("exit %d, output %q; want the Engine's 3", cmd.ProcessState.ExitCode(), out)
	}
	if _, err := os.Stat(dir + "/ran"); err != nil {
		t.Fatal("the Engine did not run")
	}
}

// TestSessionEndIsOneStructuredEventAtInfo checks the JSON event and that
// failure reports stay plain lines in any format.
func TestSessionEndIsOneStructuredEventAtInfo(t *testing.T) {
	mark := newMark(t)
	s := start(t, mark, []string{"--containment", "group", "--log-level", "info", "--log-format", "json", "--", "sh", "-c", "exit 3"})
	wantExit(t, s.wait(), 3, s.stderr)
	var ev map[string]any
	if err := json.Unmarshal(s.stderr.Bytes(), &ev); err != nil {
		t.Fatalf("stderr %q is not one JSON event: %v", s.stderr, err)
	}
	for key, want := range map[string]any{"message": "session end", "reason": "engine-exit", "status": "exit status 3", "mode": "group", "outcome": "empty", "level": "info"} {
		if ev[key] != want {
			t.Errorf("event[%q] = %v, want %v (event %v)", key, ev[key], want, ev)
		}
	}
	for _, key := range []string{"kill_rounds", "survivors", "duration", "end", "escapees", "pid"} {
		if _, ok := ev[key]; !ok {
			t.Errorf("event lacks %q: %v", key, ev)
		}
	}

	cmd := exec.Command(binary, "--log-format", "json", "--", "no-such-program-anywhere")
	out, _ := cmd.CombinedOutput()
	if got := string(out); got != "session-starter: no-such-program-anywhere: no such file or directory\n" {
		t.Fatalf("failure report = %q, want one plain line", got)
	}
}
