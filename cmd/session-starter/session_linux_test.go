package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/session-starter/session-starter/internal/ledger"
	"github.com/session-starter/session-starter/internal/sys"
)

// treeEngine starts two background sleeps — one a plain child, one a
// grandchild in a subshell — then says ready and waits.
const treeEngine = `sleep 600 & (sleep 600 &) ; echo ready; wait`

func TestGrandchildrenAndBackgroundChildrenEndWhenTheEngineExits(t *testing.T) {
	mark := newMark(t)
	s := start(t, mark, []string{"--", "sh", "-c", `sleep 600 & (sleep 600 &) ; sleep 600 </dev/null >/dev/null 2>&1 & echo ready; exit 0`})
	if got := s.line(); got != "ready" {
		t.Fatalf("Engine said %q, want ready", got)
	}
	wantExit(t, s.wait(), 0, s.stderr)
	noSurvivors(t, mark)
}

func TestStopSignalsEndTheWholeTree(t *testing.T) {
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP} {
		t.Run(sig.String(), func(t *testing.T) {
			mark := newMark(t)
			s := start(t, mark, []string{"--ack", "--", "sh", "-c", treeEngine})
			s.ack()
			if got := s.line(); got != "ready" {
				t.Fatalf("Engine said %q, want ready", got)
			}
			s.signal(sig)
			// The Engine was SIGKILLed with its group; its status is
			// mirrored.
			wantSignal(t, s.wait(), syscall.SIGKILL, s.stderr)
			noSurvivors(t, mark)
		})
	}
}

func TestControlDescriptorClosedByTheLauncherEndsTheSession(t *testing.T) {
	mark := newMark(t)
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	s := start(t, mark, []string{"--control-fd", "3", "--", "sh", "-c", treeEngine}, withExtraFiles(r))
	if got := s.line(); got != "ready" {
		t.Fatalf("Engine said %q, want ready", got)
	}
	// The starter shares r's open file; it must not have changed its
	// status flags (it reads a private reopening instead).
	if fl, err := unix.FcntlInt(r.Fd(), unix.F_GETFL, 0); err != nil || fl&unix.O_NONBLOCK != 0 {
		t.Fatalf("launcher's control pipe flags = %#x, %v; want them unchanged (blocking)", fl, err)
	}
	r.Close()
	if _, err := w.Write([]byte("data on the control pipe is ignored\n")); err != nil {
		t.Fatal(err)
	}
	w.Close()
	wantSignal(t, s.wait(), syscall.SIGKILL, s.stderr)
	noSurvivors(t, mark)
}

func TestControlDescriptorMayBeASocket(t *testing.T) {
	mark := newMark(t)
	fds, err := syscall.Socketpair(syscall.AF_UNIX, syscall.SOCK_STREAM|syscall.SOCK_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	ours, theirs := os.NewFile(uintptr(fds[0]), "ours"), os.NewFile(uintptr(fds[1]), "theirs")
	s := start(t, mark, []string{"--control-fd", "3", "--", "sh", "-c", treeEngine}, withExtraFiles(theirs))
	theirs.Close()
	if got := s.line(); got != "ready" {
		t.Fatalf("Engine said %q, want ready", got)
	}
	ours.Close()
	wantSignal(t, s.wait(), syscall.SIGKILL, s.stderr)
	noSurvivors(t, mark)
}

func TestTheEngineNeverInheritsTheControlDescriptor(t *testing.T) {
	mark := newMark(t)
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	s := start(t, mark, []string{"--control-fd", "3", "--", "sh", "-c", `ls /proc/$$/fd; echo end`}, withExtraFiles(r))
	r.Close()
	out := s.rest()
	if strings.Contains(out, "\n3\n") {
		t.Fatalf("Engine's descriptors:\n%s\nwant no descriptor 3", out)
	}
	wantExit(t, s.wait(), 0, s.stderr)
}

// TestLauncherSIGKILLedEndsTheSessionWithWatchParent kills a shell that
// started session-starter in the background; the starter, watching its
// parent through a pidfd, ends the session. --stdio watches the parent
// too; the Engine's stdin is then /dev/null, which it does not watch.
func TestLauncherSIGKILLedEndsTheSessionWithWatchParent(t *testing.T) {
	for _, flag := range []string{"--watch-parent", "--stdio"} {
		t.Run(flag, func(t *testing.T) { launcherSIGKILLed(t, flag) })
	}
}

func launcherSIGKILLed(t *testing.T, flag string) {
	mark := newMark(t)
	launcher := exec.Command("sh", "-c", `"$0" `+flag+` -- sh -c "$1" & echo $!; wait`, binary, treeEngine)
	launcher.Env = append(os.Environ(), markVar+"="+mark)
	out, err := launcher.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := launcher.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = launcher.Process.Kill(); _ = launcher.Wait() })
	var starterPID int
	var ready string
	if _, err := fmt.Fscan(out, &starterPID, &ready); err != nil || ready != "ready" {
		t.Fatalf("launcher said pid %d, %q (%v)", starterPID, ready, err)
	}
	starter := pidfdOf(t, starterPID)
	if err := launcher.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = launcher.Wait()
	awaitExit(t, starter, "the starter must end once its launcher is gone")
	noSurvivors(t, mark)
}

func TestStarterSIGKILLedLeavesTheGuardToEndTheTree(t *testing.T) {
	mark := newMark(t)
	s := start(t, mark, []string{"--ack", "--", "sh", "-c", `setpgid_not_needed=1; ` + treeEngine})
	s.ack()
	if got := s.line(); got != "ready" {
		t.Fatalf("Engine said %q, want ready", got)
	}
	guard := pidfdOf(t, guardOf(t, s.cmd.Process.Pid))
	s.signal(syscall.SIGKILL)
	wantSignal(t, s.wait(), syscall.SIGKILL, s.stderr)
	noSurvivors(t, mark)
	awaitExit(t, guard, "the guard must exit once the group is ended")
}

// TestStarterSIGKILLedAtTheAckRunsNothingOrEndsIt kills the starter right
// after the ack, before or just after the go-ahead: either the Engine never
// ran, or the guard ends its tree.
func TestStarterSIGKILLedAtTheAckRunsNothingOrEndsIt(t *testing.T) {
	ran := 0
	for i := range 10 {
		mark := newMark(t)
		dir := t.TempDir()
		s := start(t, mark, []string{"--ack", "--", "sh", "-c", `touch ran; sleep 600 & sleep 600`}, withDir(dir))
		s.ack()
		s.signal(syscall.SIGKILL)
		s.wait()
		noSurvivors(t, mark)
		if _, err := os.Stat(filepath.Join(dir, "ran")); err == nil {
			ran++
		}
		_ = i
	}
	t.Logf("the Engine had run in %d of 10 trials; no process survived any", ran)
}

func TestExitCodesAreMirrored(t *testing.T) {
	for _, code := range []int{0, 1, 2, 42, 124, 125, 126, 127, 255} {
		t.Run(strconv.Itoa(code), func(t *testing.T) {
			mark := newMark(t)
			s := start(t, mark, []string{"--", "sh", "-c", "exit " + strconv.Itoa(code)})
			wantExit(t, s.wait(), code, s.stderr)
		})
	}
}

// TestSignalDeathsAreMirroredWithoutCore compares the launcher's view of
// the starter with its view of the same Engine run directly, for every
// signal an Engine can die of.
func TestSignalDeathsAreMirroredWithoutCore(t *testing.T) {
	for _, sig := range sys.DeadlySignals() {
		t.Run(sig.String(), func(t *testing.T) {
			mark := newMark(t)
			dir := t.TempDir()
			// The Engine dumps no core itself; the starter must not add one.
			engine := fmt.Sprintf("ulimit -c 0; kill -%d $$", int(sig))
			direct := exec.Command("sh", "-c", engine)
			direct.Dir = dir
			_ = direct.Run()
			want := direct.ProcessState.Sys().(syscall.WaitStatus)

			s := start(t, mark, []string{"--", "sh", "-c", engine}, withDir(dir), withCoreLimit())
			got := s.wait()
			if got != want {
				t.Fatalf("through session-starter: %s; direct: %s; stderr: %s", statusString(got), statusString(want), s.stderr)
			}
			if s.stderr.Len() != 0 {
				t.Fatalf("stderr = %q, want nothing (no traceback)", s.stderr)
			}
			entries, _ := os.ReadDir(dir)
			for _, e := range entries {
				if strings.HasPrefix(e.Name(), "core") {
					t.Fatalf("found %s in the working directory, want no core file", e.Name())
				}
			}
		})
	}
}

// withCoreLimit lets the starter dump core, so that a core file would
// show if dying of the Engine's signal made one.
func withCoreLimit() startOpt {
	return func(c *exec.Cmd) {
		c.Path = "/bin/sh"
		c.Args = append([]string{"sh", "-c", `ulimit -c unlimited && exec "$@"`, "sh", binary}, c.Args[1:]...)
	}
}

func TestAckIsTheFirstLineBeforeAnyEngineOutput(t *testing.T) {
	mark := newMark(t)
	s := start(t, mark, []string{"--ack", "--", "sh", "-c", `echo $$`})
	pid := s.ack()
	if got := s.line(); got != strconv.Itoa(pid) {
		t.Fatalf("Engine printed its pid %s, ack said %d", got, pid)
	}
	wantExit(t, s.wait(), 0, s.stderr)
}

// TestNoAckAndNothingExecutedWhenProcIsAnotherNamespace runs the starter
// as PID 1 of a new PID namespace that still sees the old /proc: it cannot
// name processes, so it refuses before anything runs.
func TestNoAckAndNothingExecutedWhenProcIsAnotherNamespace(t *testing.T) {
	if _, err := exec.LookPath("unshare"); err != nil {
		t.Skip("unshare not installed")
	}
	mark := newMark(t)
	dir := t.TempDir()
	cmd := exec.Command("unshare", "--pid", "--fork", binary, "--ack", "--", "touch", "ran")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), markVar+"="+mark)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 125 {
		t.Fatalf("unshare … session-starter: %v, want exit 125; stderr: %s", err, &stderr)
	}
	if stdout.Len() != 0 {
		t.Fatalf("stdout = %q, want no ack", &stdout)
	}
	if !strings.Contains(stderr.String(), "session-starter: ") || !strings.Contains(stderr.String(), "namespace") {
		t.Fatalf("stderr = %q, want a report naming the namespace", &stderr)
	}
	if _, err := os.Stat(filepath.Join(dir, "ran")); err == nil {
		t.Fatal("the Engine ran, want nothing executed")
	}
}

func TestLauncherReadsEOFWhileTheTreeRunsAfterClosingStdout(t *testing.T) {
	mark := newMark(t)
	s := start(t, mark, []string{"--ack", "--", "sh", "-c", `echo hi; exec >/dev/null; exec sleep 600`})
	s.ack()
	if got := s.rest(); got != "hi\n" {
		t.Fatalf("stdout after the ack = %q, want hi and end of file", got)
	}
	if len(marked(mark)) == 0 {
		t.Fatal("the session ended, want it running after its stdout closed")
	}
	s.signal(syscall.SIGTERM)
	s.wait()
	noSurvivors(t, mark)
}

func TestLauncherReadsEOFWithStderrMergedIntoStdout(t *testing.T) {
	mark := newMark(t)
	s := start(t, mark, []string{"--ack", "--", "sh", "-c", `echo hi; echo err >&2; exec >/dev/null 2>&1; exec sleep 600`},
		func(c *exec.Cmd) { c.Stderr = c.Stdout })
	s.ack()
	if got := s.rest(); got != "hi\nerr\n" {
		t.Fatalf("stdout after the ack = %q, want hi, err and end of file", got)
	}
	if len(marked(mark)) == 0 {
		t.Fatal("the session ended, want it running after its stdout closed")
	}
	s.signal(syscall.SIGTERM)
	s.wait()
	noSurvivors(t, mark)
}

// TestInheritedDescriptorReachesTheEngineAndNothingElse checks the
// Engine's descriptors (0, 1, 2 and the launcher's 3, nothing of ours) and
// the guard's (none of the launcher's).
func TestInheritedDescriptorReachesTheEngineAndNothingElse(t *testing.T) {
	mark := newMark(t)
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	s := start(t, mark, []string{"--containment", "group", "--ack", "--", "sh", "-c", `echo ready; read x`}, withExtraFiles(r))
	r.Close()
	pid := s.ack()
	if got := s.line(); got != "ready" {
		t.Fatalf("Engine said %q, want ready", got)
	}
	var st syscall.Stat_t
	if err := syscall.Fstat(int(w.Fd()), &st); err != nil {
		t.Fatal(err)
	}
	pipeName := fmt.Sprintf("pipe:[%d]", st.Ino)
	// Expected: 0, 1, 2, the pipe at 3, and whatever this process (the
	// launcher) leaves open without close-on-exec, at the same numbers.
	want := inheritable(t)
	want[3] = pipeName
	got := fdTable(t, pid)
	for n := range 3 {
		want[n] = got[n]
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("Engine's descriptors = %v, want %v", got, want)
	}
	guard := guardOf(t, s.cmd.Process.Pid)
	// Where the kernel cannot signal a group through a pidfd (before
	// Linux 6.9, and always in the portable build) the guard pins E: it
	// holds the pin's pidfd and the write end of the pin's standard input
	// too.
	pinFDs := map[string]bool{}
	if guardPins() {
		for _, pin := range childrenOf(guard) {
			pinFDs["anon_inode:[pidfd]"] = true
			pinFDs[fdTable(t, pin)[0]] = true
		}
	}
	for n, target := range fdTable(t, guard) {
		switch {
		case n > 5 && pinFDs[target]:
		case n <= 2 && target != "/dev/null":
			t.Errorf("guard fd %d -> %s, want /dev/null", n, target)
		case n == 3 || n == 5:
			if target != "anon_inode:[pidfd]" {
				t.Errorf("guard fd %d -> %s, want a pidfd", n, target)
			}
		case n == 4:
			if !strings.HasPrefix(target, "pipe:") || target == pipeName {
				t.Errorf("guard fd 4 -> %s, want its own finish pipe", target)
			}
		case n == 10:
			// The ledger's directory, from which it removes the
			// session's record once it has ended the session itself.
			if want := os.Getenv(ledger.EnvDir); target != want {
				t.Errorf("guard fd 10 -> %s, want the ledger's directory %s", target, want)
			}
		case n == 11 && rawGuard():
			// The porch holds the guard binary it executes once the
			// starter is gone, close-on-exec.
			if target != binary {
				t.Errorf("guard fd 11 -> %s, want the guard binary %s", target, binary)
			}
		case n > 5:
			t.Errorf("guard holds fd %d -> %s, want nothing beyond its own 0-5 and 10", n, target)
		}
	}
	if cwd, _ := os.Readlink(fmt.Sprintf("/proc/%d/cwd", guard)); cwd != "/" {
		t.Errorf("guard's working directory = %q, want /", cwd)
	}
	if _, err := s.in.Write([]byte("x\n")); err != nil {
		t.Fatal(err)
	}
	wantExit(t, s.wait(), 0, s.stderr)
}

// inheritable lists this process's descriptors ≥ 3 that a child would
// inherit: open and not close-on-exec.
func inheritable(t *testing.T) map[int]string {
	t.Helper()
	out := map[int]string{}
	for n, target := range fdTable(t, os.Getpid()) {
		if n < 3 {
			continue
		}
		flags, err := unix.FcntlInt(uintptr(n), unix.F_GETFD, 0)
		if err == nil && flags&unix.FD_CLOEXEC == 0 {
			out[n] = target
		}
	}
	return out
}

func fdTable(t *testing.T, pid int) map[int]string {
	t.Helper()
	dir := fmt.Sprintf("/proc/%d/fd", pid)
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	out := map[int]string{}
	for _, e := range entries {
		n, _ := strconv.Atoi(e.Name())
		out[n], _ = os.Readlink(filepath.Join(dir, e.Name()))
	}
	return out
}

// TestNohupStyleLaunchKeepsHUPAndINTIgnored starts the starter with SIGHUP
// and SIGINT ignored, as nohup and `cmd &` in a script do.
func TestNohupStyleLaunchKeepsHUPAndINTIgnored(t *testing.T) {
	mark := newMark(t)
	s := start(t, mark, []string{"--ack", "--", "sh", "-c", `grep SigIgn /proc/$$/status; read x; echo alive`},
		func(c *exec.Cmd) {
			c.Path = "/bin/sh"
			c.Args = append([]string{"sh", "-c", `trap "" HUP INT && exec "$@"`, "sh", binary}, c.Args[1:]...)
		})
	s.ack()
	ign, err := strconv.ParseUint(strings.TrimSpace(strings.TrimPrefix(s.line(), "SigIgn:")), 16, 64)
	if err != nil {
		t.Fatal(err)
	}
	const hupInt = 1<<(syscall.SIGHUP-1) | 1<<(syscall.SIGINT-1)
	if ign&hupInt != hupInt {
		t.Fatalf("Engine's SigIgn = %#x, want HUP and INT ignored", ign)
	}
	s.signal(syscall.SIGHUP)
	s.signal(syscall.SIGINT)
	// Nothing may happen: watch for a while that the session goes on.
	observe(t, func() bool { return s.cmd.ProcessState == nil && len(marked(mark)) >= 2 }, "the session must go on after SIGHUP and SIGINT")
	if _, err := s.in.Write([]byte("x\n")); err != nil {
		t.Fatal(err)
	}
	if got := s.line(); got != "alive" {
		t.Fatalf("Engine said %q, want alive", got)
	}
	wantExit(t, s.wait(), 0, s.stderr)
}

// observe checks that cond keeps holding for a short while. It is for
// proving that something does not happen; nothing waits on it.
func observe(t *testing.T, cond func() bool, what string) {
	t.Helper()
	end := time.Now().Add(300 * time.Millisecond)
	for time.Now().Before(end) {
		if !cond() {
			t.Fatal(what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestTheLaunchersGroupIsNeverSignalled(t *testing.T) {
	mark := newMark(t)
	// The launcher shell, its canary and the starter share one group.
	cmd := exec.Command("sh", "-c", `sleep 600 & c=$!; "$0" -- sh -c 'sleep 600 & exit 3'; s=$?; kill -0 $c && echo canary-alive; kill $c; echo $s`, binary)
	cmd.Env = append(os.Environ(), markVar+"="+mark)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("launcher: %v", err)
	}
	if got := string(out); got != "canary-alive\n3\n" {
		t.Fatalf("launcher printed %q, want the canary alive and status 3", got)
	}
	noSurvivors(t, mark)
}

func pidfdOf(t *testing.T, pid int) int {
	t.Helper()
	fd, err := unixPidfdOpen(pid)
	if err != nil {
		t.Fatalf("pidfd_open(%d): %v", pid, err)
	}
	t.Cleanup(func() { syscall.Close(fd) })
	return fd
}

// TestStopSignalBeforeTheGoAheadDiesOfItAndRunsNothing holds the starter
// in its ack write (stdout is a full pipe), signals it, then lets the ack
// through: the stop is seen before the go-ahead, and the starter dies of
// it with nothing executed.
//
// The Go runtime relays a caught signal to its channel through a goroutine
// of its own, so a signal that reached the handler just before the ack
// write returned may still be seen just after the go-ahead; then the
// Engine is ended like on any stop, and its status mirrored. Each trial
// must end one of those two ways, and the first must happen in at least
// one of the trials (without the check before the go-ahead it never does).
func TestStopSignalBeforeTheGoAheadDiesOfItAndRunsNothing(t *testing.T) {
	// Up to 20 trials, until the first one that sees the stop before the
	// go-ahead (most do; under load the relay window widens).
	const trials = 20
	for i := range trials {
		if stopDuringAck(t) {
			t.Logf("the stop was seen before the go-ahead in trial %d", i+1)
			return
		}
	}
	t.Fatalf("the stop was never seen before the go-ahead in %d trials", trials)
}

// stopDuringAck runs one trial and reports whether the stop was seen
// before the go-ahead.
func stopDuringAck(t *testing.T) bool {
	t.Helper()
	mark := newMark(t)
	dir := t.TempDir()
	cmd, stderr, letAckThrough := holdAtAck(t, mark, dir)
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	letAckThrough()
	_ = cmd.Wait()
	noSurvivors(t, mark)
	ws := cmd.ProcessState.Sys().(syscall.WaitStatus)
	if ws.Signaled() && ws.Signal() == syscall.SIGTERM {
		if _, err := os.Stat(filepath.Join(dir, "ran")); err == nil {
			t.Fatal("the starter died of the stop signal, but the Engine ran")
		}
		return true
	}
	// Seen after the go-ahead: the Engine, released, was SIGKILLed.
	wantSignal(t, ws, syscall.SIGKILL, stderr)
	return false
}

// fill writes to w until the pipe is full.
func fill(t *testing.T, w *os.File) {
	t.Helper()
	fd := int(w.Fd())
	if err := syscall.SetNonblock(fd, true); err != nil {
		t.Fatal(err)
	}
	chunk := make([]byte, 4096)
	for range 1 << 12 { // bounded: a pipe holds far less than 16 MiB
		if _, err := syscall.Write(fd, chunk); err != nil {
			break
		}
	}
	if err := syscall.SetNonblock(fd, false); err != nil {
		t.Fatal(err)
	}
}

func TestControlDescriptorAtEndBeforeTheGoAheadRunsNothing(t *testing.T) {
	mark := newMark(t)
	dir := t.TempDir()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	w.Close()
	s := start(t, mark, []string{"--ack", "--control-fd", "3", "--", "touch", "ran"}, withExtraFiles(r), withDir(dir))
	r.Close()
	s.ack()
	wantExit(t, s.wait(), 125, s.stderr)
	if !strings.Contains(s.stderr.String(), "control-closed") {
		t.Fatalf("stderr = %q, want a report naming the closed control descriptor", s.stderr)
	}
	if _, err := os.Stat(filepath.Join(dir, "ran")); err == nil {
		t.Fatal("the Engine ran, want nothing executed")
	}
}

// TestAckToAClosedStdoutIsAContainmentFailure: the starter must not die of
// SIGPIPE, and must run nothing.
func TestAckToAClosedStdoutIsAContainmentFailure(t *testing.T) {
	mark := newMark(t)
	dir := t.TempDir()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	r.Close()
	cmd := exec.Command(binary, "--ack", "--", "touch", "ran")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), markVar+"="+mark)
	cmd.Stdout = w
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	_ = cmd.Run()
	w.Close()
	wantExit(t, cmd.ProcessState.Sys().(syscall.WaitStatus), 125, &stderr)
	if !strings.Contains(stderr.String(), "write ack") {
		t.Fatalf("stderr = %q, want a report about the ack", &stderr)
	}
	if _, err := os.Stat(filepath.Join(dir, "ran")); err == nil {
		t.Fatal("the Engine ran, want nothing executed")
	}
	noSurvivors(t, mark)
}

// TestGuardSIGKILLedEndsTheSessionAsAFailure: without its backstop the
// session cannot keep its promise, so it ends now, with exit 125.
func TestGuardSIGKILLedEndsTheSessionAsAFailure(t *testing.T) {
	mark := newMark(t)
	s := start(t, mark, []string{"--ack", "--", "sh", "-c", treeEngine})
	s.ack()
	if got := s.line(); got != "ready" {
		t.Fatalf("Engine said %q, want ready", got)
	}
	guard := pidfdOf(t, guardOf(t, s.cmd.Process.Pid))
	if err := unix.PidfdSendSignal(guard, unix.SIGKILL, nil, 0); err != nil {
		t.Fatal(err)
	}
	wantExit(t, s.wait(), 125, s.stderr)
	if got := s.stderr.String(); got != "session-starter: the guard was lost; the session was ended\n" {
		t.Fatalf("stderr = %q, want one line reporting that the guard was lost", got)
	}
	noSurvivors(t, mark)
}

// TestMembersThatCannotBeKilledAreReportedAsSurvivors runs the starter as
// an unprivileged user while a root process of the test has joined the
// Engine's group: the starter cannot end it, and after its kill budget it
// exits 125 naming the survivor, its uid and the permission failure.
func TestMembersThatCannotBeKilledAreReportedAsSurvivors(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root to run the starter as another user")
	}
	const nobody = 65534
	dir, err := os.MkdirTemp("", "session-starter-nobody-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	bin := filepath.Join(dir, "session-starter")
	copyFile(t, binary, bin)
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	mark := newMark(t)
	s := start(t, mark, []string{"--ack", "--kill-budget", "1s", "--", "sh", "-c", "echo ready; exec sleep 600"},
		func(c *exec.Cmd) {
			c.Path = bin
			c.Dir = dir
			c.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: nobody, Gid: nobody}}
		})
	pid := s.ack()
	if got := s.line(); got != "ready" {
		t.Fatalf("Engine said %q, want ready", got)
	}
	// A root process of ours joins group E (same session: the starter did
	// not leave ours).
	root := exec.Command("sleep", "600")
	root.Env = append(os.Environ(), markVar+"="+mark)
	root.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pgid: pid}
	if err := root.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = root.Process.Kill(); _ = root.Wait() })
	s.signal(syscall.SIGTERM)
	wantExit(t, s.wait(), 125, s.stderr)
	want := fmt.Sprintf(`pid %d uid 0 state S comm "sleep" (permission denied`, root.Process.Pid)
	if !strings.Contains(s.stderr.String(), want) {
		t.Fatalf("stderr = %q, want the survivor named: %s", s.stderr, want)
	}
	_ = root.Process.Kill()
	_ = root.Wait()
	noSurvivors(t, mark)
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	if from == binary && productPath(binary) != binary {
		// The portable launcher runs the product next to it.
		copyFile(t, productPath(binary), productPath(to))
	}
	b, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(to, b, 0o755); err != nil {
		t.Fatal(err)
	}
}
