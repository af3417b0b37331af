package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/session-starter/session-starter/internal/sys"
	"github.com/session-starter/session-starter/internal/testproc"
)

// innerCall is the outer Engine's script: it runs one call as an inner
// session with --release-on-exit (flags before it), whose Engine leaves a
// sleep and prints its PID, then says how the inner session exited and
// waits for the test. The inner ended record goes to $REC.
func innerCall(flags, engine string) string {
	return fmt.Sprintf(`"$BIN" --release-on-exit %s --status-fd 3 -- sh -c '%s' 3>"$REC"; echo "inner $?"; read _; exit 0`, flags, engine)
}

// heldPID opens a pidfd of pid, a live process of the test's session
// (its session holds it: the number is its own), and closes it at the
// end of the test.
func heldPID(t *testing.T, line string) (int, int) {
	t.Helper()
	pid, err := strconv.Atoi(line)
	if err != nil {
		t.Fatalf("not a pid: %q", line)
	}
	fd, err := sys.PidfdOpen(pid)
	if err != nil {
		t.Fatalf("pidfd_open(%d): %v", pid, err)
	}
	t.Cleanup(func() { sys.Close(fd) })
	return pid, fd
}

// exitedWithin reports whether the process of pidfd fd exits within d.
func exitedWithin(fd int, d time.Duration) bool {
	n, err := sys.Poll([]sys.PollFd{{Fd: int32(fd), Events: sys.POLLIN}}, d)
	return err == nil && n > 0
}

// endedIn returns the ended record in the status file path.
func endedIn(t *testing.T, path string) map[string]any {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	return endedRecord(t, f)
}

// TestReleaseOnExitLeavesWhatTheEngineLeftToTheEnclosingSession: one
// call as a session nested in the Engine's: its Engine exits on its own,
// and what it left runs on (listed in the record, outcome released) until
// the enclosing session ends it.
func TestReleaseOnExitLeavesWhatTheEngineLeftToTheEnclosingSession(t *testing.T) {
	if portable {
		t.Skip("the portable build, as macOS, has no subreaper: --release-on-exit is refused (TestReleaseOnExitIsRefusedWithoutASubreaper)")
	}
	for _, mode := range []string{"group", "cgroup"} {
		t.Run(mode, func(t *testing.T) {
			mark := newMark(t)
			rec := filepath.Join(t.TempDir(), "rec")
			cmd := exec.Command(binary, "--", "sh", "-c", innerCall("--containment "+mode, `sleep 300 >/dev/null & echo $!; exit 7`))
			cmd.Env = append(os.Environ(), markVar+"="+mark, "BIN="+binary, "REC="+rec)
			s := startCmd(t, mark, cmd)
			pid, fd := heldPID(t, s.line())
			if l := s.line(); l != "inner 7" {
				t.Fatalf("outer Engine said %q, want the inner status 7 mirrored; stderr: %s", l, s.stderr)
			}
			if exitedWithin(fd, 0) {
				t.Fatal("the inner session ended what its Engine left")
			}
			ended := endedIn(t, rec)
			released, _ := ended["released"].([]any)
			if ended["outcome"] != "released" || !slices.Contains(released, any(float64(pid))) {
				t.Fatalf("inner ended record %v: want outcome released listing %d", ended, pid)
			}
			s.in.Close() // the outer Engine exits: its session ends the leftover
			wantExit(t, s.wait(), 0, s.stderr)
			if !exitedWithin(fd, testproc.TooLong) {
				t.Fatal("the enclosing session left the released process")
			}
			noSurvivors(t, mark)
		})
	}
}

// TestEndReleasedEndsWhatAReleasedCallLeftAndWhatItStartedSince: the call
// leaves a loop that keeps starting processes. --end-released with the
// call's session id ends the loop and its children, gives them the grace
// (the loop's trap says so), and leaves the enclosing session's Engine.
func TestEndReleasedEndsWhatAReleasedCallLeftAndWhatItStartedSince(t *testing.T) {
	if portable {
		t.Skip("refused in the portable build (TestReleaseOnExitIsRefusedWithoutASubreaper)")
	}
	mark := newMark(t)
	dir := t.TempDir()
	rec, termed, loop := filepath.Join(dir, "rec"), filepath.Join(dir, "termed"), filepath.Join(dir, "loop")
	script := fmt.Sprintf("trap 'echo > %s; exit 0' TERM\nsleep 600 &\nwhile :; do sleep 0.05; done\n", termed)
	if err := os.WriteFile(loop, []byte(script), 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(binary, "--", "sh", "-c", innerCall("", `sh `+loop+` >/dev/null & echo $!; exit 7`))
	cmd.Env = append(os.Environ(), markVar+"="+mark, "BIN="+binary, "REC="+rec)
	s := startCmd(t, mark, cmd)
	_, fd := heldPID(t, s.line())
	if l := s.line(); l != "inner 7" {
		t.Fatalf("outer Engine said %q, want the inner status 7 mirrored; stderr: %s", l, s.stderr)
	}
	if exitedWithin(fd, 0) {
		t.Fatal("the released loop is gone before --end-released")
	}
	f, err := os.Open(rec)
	if err != nil {
		t.Fatal(err)
	}
	recs := statusRecords(t, f)
	f.Close()
	id, _ := recs[0]["session"].(string)
	if recs[0]["event"] != "started" || id == "" {
		t.Fatalf("inner records %v, want a started record with the session id", recs)
	}

	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	end := exec.Command(binary, "--end-released", id, "--grace", "1m", "--status-fd", "3")
	end.ExtraFiles = []*os.File{w}
	out, err := end.CombinedOutput()
	w.Close()
	if err != nil {
		t.Fatalf("--end-released: %v; output: %s", err, out)
	}
	if !exitedWithin(fd, 0) {
		t.Fatal("--end-released returned 0 and the released loop lives")
	}
	if _, err := os.Stat(termed); err != nil {
		t.Errorf("the released loop did not get the stop signal first: %v", err)
	}
	var got struct { // the record as the launchers read it
		Event, Session string
		Found          int
		Left           []int
	}
	if err := json.NewDecoder(r).Decode(&got); err != nil {
		t.Fatal(err)
	}
	if got.Event != "ended-released" || got.Session != id || got.Found < 2 || len(got.Left) != 0 {
		t.Errorf("record %+v, want ended-released of %s, the loop and its sleeps found, none left", got, id)
	}
	t.Logf("%s", out)
	// The enclosing session's Engine, which carries the outer mark only, lives.
	s.in.Close()
	wantExit(t, s.wait(), 0, s.stderr)
	noSurvivors(t, mark)
}

// TestEndReleasedOfAMalformedIDIsAUsageError: an id is 32 lower-case
// hexadecimal digits, as the started record writes it.
func TestEndReleasedOfAMalformedIDIsAUsageError(t *testing.T) {
	out, err := exec.Command(binary, "--end-released", "not-an-id").CombinedOutput()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 2 || !strings.Contains(string(out), "--end-released") {
		t.Fatalf("--end-released not-an-id: %v, %s; want exit 2 naming the flag", err, out)
	}
}

// TestReleaseOnExitEndsEverythingOnAStopAndAfterASIGKILL: only the
// Engine's own exit releases: a stop signal to the inner starter ends its
// whole session, and so does its guard after a SIGKILL of it.
func TestReleaseOnExitEndsEverythingOnAStopAndAfterASIGKILL(t *testing.T) {
	if portable {
		t.Skip("refused in the portable build (TestReleaseOnExitIsRefusedWithoutASubreaper)")
	}
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGKILL} {
		t.Run(sys.SignalName(sig), func(t *testing.T) {
			mark := newMark(t)
			rec := filepath.Join(t.TempDir(), "rec")
			script := `"$BIN" --release-on-exit --containment group --status-fd 3 -- sh -c 'sleep 300 >/dev/null & echo $!; exec sleep 300' 3>"$REC" & echo $!; wait; echo inner $?; read _`
			cmd := exec.Command(binary, "--", "sh", "-c", script)
			cmd.Env = append(os.Environ(), markVar+"="+mark, "BIN="+binary, "REC="+rec)
			s := startCmd(t, mark, cmd)
			_, starterFD := heldPID(t, s.line())
			_, leftFD := heldPID(t, s.line())
			if err := sys.PidfdSignal(starterFD, sig); err != nil {
				t.Fatal(err)
			}
			if !exitedWithin(leftFD, testproc.TooLong) {
				t.Fatalf("after %v of the inner starter, what its Engine left lives", sig)
			}
			if l := s.line(); !strings.HasPrefix(l, "inner ") {
				t.Fatalf("outer Engine said %q, want the inner status", l)
			}
			if sig == syscall.SIGTERM {
				if ended := endedIn(t, rec); ended["outcome"] != "empty" || ended["released"] != nil {
					t.Fatalf("inner ended record %v: want the whole session ended", ended)
				}
			}
			s.in.Close()
			_ = s.wait()
			noSurvivors(t, mark)
		})
	}
}

// TestReleaseOnExitNeedsAnEnclosingSession: without the session mark in
// its environment there is no session to end what it would release: a
// usage error, and nothing runs.
func TestReleaseOnExitNeedsAnEnclosingSession(t *testing.T) {
	if portable {
		t.Skip("refused in the portable build whatever the environment (TestReleaseOnExitIsRefusedWithoutASubreaper)")
	}
	dir := t.TempDir()
	cmd := exec.Command(binary, "--release-on-exit", "--", "touch", filepath.Join(dir, "ran"))
	cmd.Env = slices.DeleteFunc(os.Environ(), func(kv string) bool { return strings.HasPrefix(kv, "SESSION_STARTER_SESSION=") })
	out, _ := cmd.CombinedOutput()
	if cmd.ProcessState.ExitCode() != 2 || !strings.Contains(string(out), "needs an enclosing session") {
		t.Fatalf("exit %d, %q; want a usage error naming the enclosing session", cmd.ProcessState.ExitCode(), out)
	}
	if _, err := os.Stat(filepath.Join(dir, "ran")); err == nil {
		t.Fatal("the Engine ran")
	}
}

// TestReleaseOnExitIsRefusedWithoutASubreaper: where orphans cannot be
// adopted (macOS, the portable build), what a release left would be
// re-parented to init, outside every session: a usage error, nothing runs.
func TestReleaseOnExitIsRefusedWithoutASubreaper(t *testing.T) {
	if !portable {
		t.Skip("this build has the subreaper")
	}
	dir := t.TempDir()
	cmd := exec.Command(binary, "--release-on-exit", "--", "touch", filepath.Join(dir, "ran"))
	cmd.Env = append(os.Environ(), "SESSION_STARTER_SESSION=0123456789abcdef0123456789abcdef")
	out, _ := cmd.CombinedOutput()
	if cmd.ProcessState.ExitCode() != 2 || !strings.Contains(string(out), "no subreaper") {
		t.Fatalf("exit %d, %q; want a usage error naming the missing subreaper", cmd.ProcessState.ExitCode(), out)
	}
	if _, err := os.Stat(filepath.Join(dir, "ran")); err == nil {
		t.Fatal("the Engine ran")
	}
}
