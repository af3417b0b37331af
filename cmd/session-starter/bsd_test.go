//go:build darwin || freebsd

package main

// Sessions on the kernel of macOS or FreeBSD itself: the product binary,
// built once in TestMain, holds real sessions, with kqueue watching the
// Engine, the launcher and the starter's pipe, and sysctl kern.proc
// listing group E. These run on the CI's macOS and FreeBSD machines; the
// Linux machine only builds them (make cross), and runs the same code
// paths through the portable build (make test-portable).
//
// Every process a test watches end is first read and checked to be the
// live sleep it started (watch): a kern.proc record that does not decode
// fails the test there, rather than passing every later look as "gone".

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/session-starter/session-starter/internal/ledger"
	"github.com/session-starter/session-starter/internal/proc"
	"github.com/session-starter/session-starter/internal/sys"
	"github.com/session-starter/session-starter/internal/testproc"
)

var binary string

func TestMain(m *testing.M) {
	testproc.RunHelper()
	dir, err := os.MkdirTemp("", "session-starter-bsd-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	binary = filepath.Join(dir, "session-starter")
	build := exec.Command("go", "build", "-o", binary, ".")
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "build session-starter:", err)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(testproc.CheckHelpersUsed(testproc.CheckGoroutinesEnded(code)))
}

func init() {
	// escape: an Engine that starts /bin/sleep 600 in a session of its
	// own (an escapee: it leaves group E), says its PID, waits for a line
	// or the end of its input, and exits 0 without reaping it: the sleep
	// is orphaned, re-parented to the starter where it is a reaper.
	testproc.Register("escape", func([]string) int {
		sleep := exec.Command("/bin/sleep", "600")
		sleep.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
		if err := sleep.Start(); err != nil {
			fmt.Fprintln(os.Stderr, "start sleep:", err)
			return 3
		}
		fmt.Println(sleep.Process.Pid)
		_, _ = bufio.NewReader(os.Stdin).ReadString('\n')
		return 0
	})
}

func init() {
	// double-fork MIDDLE DAEMON: an Engine whose child (this binary as
	// the helper MIDDLE names, an environment entry) starts a daemon
	// (DAEMON: this binary again, in a session of its own), says its PID
	// and exits at once, orphaning it; the Engine says the PID, waits for
	// a line or the end of its input, and exits 0. The daemon's parent is
	// gone long before the end, as a double-forking daemon's is; it
	// inherits the session mark.
	testproc.Register("double-fork", func(args []string) int {
		middle := exec.Command(os.Args[0], args[1])
		middle.Env = append(os.Environ(), args[0])
		middle.Stderr = os.Stderr
		out, err := middle.Output()
		if err != nil {
			fmt.Fprintln(os.Stderr, "middle:", err)
			return 3
		}
		fmt.Print(string(out))
		_, _ = bufio.NewReader(os.Stdin).ReadString('\n')
		return 0
	})
	testproc.Register("middle", func(args []string) int {
		daemon := exec.Command(os.Args[0])
		daemon.Env = append(os.Environ(), args[0])
		daemon.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
		if err := daemon.Start(); err != nil {
			fmt.Fprintln(os.Stderr, "start the daemon:", err)
			return 3
		}
		fmt.Println(daemon.Process.Pid)
		return 0
	})
	testproc.Register("daemon", func([]string) int {
		time.Sleep(10 * time.Minute)
		return 0
	})
}

// bsdSession is a started session-starter with its stdin written and its
// stdout read by line.
type bsdSession struct {
	cmd   *exec.Cmd
	stdin io.WriteCloser
	lines *bufio.Reader
}

func startBSD(t *testing.T, files []*os.File, args ...string) *bsdSession {
	t.Helper()
	return startBSDEnv(t, nil, files, args...)
}

// startBSDEnv is startBSD with env added to this process's environment
// (nil: none).
func startBSDEnv(t *testing.T, env []string, files []*os.File, args ...string) *bsdSession {
	t.Helper()
	cmd := exec.Command(binary, args...)
	cmd.Env = append(os.Environ(), env...)
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	cmd.ExtraFiles = files
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		in.Close()
		if cmd.ProcessState == nil {
			// Our unreaped child: its number is its own.
			_ = cmd.Process.Kill()
			_ = cmd.Wait()
		}
	})
	return &bsdSession{cmd: cmd, stdin: in, lines: bufio.NewReader(out)}
}

func (s *bsdSession) line(t *testing.T) string {
	t.Helper()
	l, err := s.lines.ReadString('\n')
	if err != nil {
		t.Fatalf("read a line of stdout: %v (got %q)", err, l)
	}
	return strings.TrimSuffix(l, "\n")
}

// pidLine reads a line holding a PID.
func (s *bsdSession) pidLine(t *testing.T) int {
	t.Helper()
	l := s.line(t)
	pid, err := strconv.Atoi(l)
	if err != nil {
		t.Fatalf("want a PID, got %q", l)
	}
	return pid
}

// wantMode is the ack's mode here: macOS holds the session by the group
// alone, FreeBSD as the reaper too.
func wantMode() string {
	if runtime.GOOS == "freebsd" {
		return "reaper"
	}
	return "group"
}

// ack reads the ack line and checks its mode.
func (s *bsdSession) ack(t *testing.T) int {
	t.Helper()
	l := s.line(t)
	var pid int
	var mode string
	if _, err := fmt.Sscanf(l, `{"session_containment":1,"pid":%d,"mode":%q}`, &pid, &mode); err != nil {
		t.Fatalf("ack line %q: %v", l, err)
	}
	if mode != wantMode() {
		t.Fatalf("ack mode = %q, want %q", mode, wantMode())
	}
	return pid
}

// watched is a sleep of a session whose end a test watches: its PID and
// the start time that, with the PID, names it.
type watched struct {
	pid   int
	start uint64
}

// watch reads the process pid from the kernel's process table, and fails
// the test unless the record names a live sleep: it must decode (its PID,
// command name and state) before any look can count it gone. If the test
// ends with that sleep still there, it is killed by its PID, checked
// against its start time first.
func watch(t *testing.T, pid int) watched {
	t.Helper()
	st, err := proc.ReadStat(pid)
	if err != nil {
		t.Fatalf("ReadStat(%d) = %v, want the session's sleep", pid, err)
	}
	if st.PID != pid || st.Comm != "sleep" || !st.Live() || st.StartTime == 0 {
		t.Fatalf("ReadStat(%d) = %+v, want a live sleep of that PID with a start time", pid, st)
	}
	w := watched{pid: pid, start: st.StartTime}
	t.Cleanup(func() {
		if w.alive() {
			_ = syscall.Kill(w.pid, syscall.SIGKILL)
		}
	})
	return w
}

// alive reports whether w's process is still there and live; reading its
// record is an error only when that fails for another reason than its
// absence.
func (w watched) alive() bool {
	st, err := proc.ReadStat(w.pid)
	return err == nil && st.StartTime == w.start && st.Live()
}

// gone waits until w's process is gone: no record of its PID (reaped), a
// zombie, or a record of another process (another start time: the PID
// was reused). A read that fails for any other reason fails the test, as
// does the process still live after testproc.TooLong.
func (w watched) gone(t *testing.T, what string) {
	t.Helper()
	deadline := time.Now().Add(testproc.TooLong)
	for wait := time.Millisecond; ; wait = min(2*wait, 100*time.Millisecond) {
		st, err := proc.ReadStat(w.pid)
		switch {
		case errors.Is(err, os.ErrNotExist):
			return
		case err != nil:
			t.Fatalf("%s: ReadStat(%d) = %v", what, w.pid, err)
		case st.StartTime != w.start || !st.Live():
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("after %v: %s: pid %d is still a live %s (state %c)", testproc.TooLong, what, w.pid, st.Comm, st.State)
		}
		time.Sleep(wait)
	}
}

func exitCode(t *testing.T, err error) int {
	t.Helper()
	var ee *exec.ExitError
	if err == nil {
		return 0
	}
	if !errors.As(err, &ee) {
		t.Fatal(err)
	}
	return ee.ExitCode()
}

func TestBSDTheEnginesExitStatusIsMirrored(t *testing.T) {
	s := startBSD(t, nil, "--", "sh", "-c", "exit 3")
	if got := exitCode(t, s.cmd.Wait()); got != 3 {
		t.Fatalf("exit status = %d, want 3", got)
	}
}

// TestBSDSignalDeathsAreMirroredWithoutCore compares the launcher's view
// of the starter with its view of the same Engine run directly, for every
// signal an Engine can die of — also those the Go runtime handles itself,
// which must give neither a Go dump nor exit 2.
func TestBSDSignalDeathsAreMirroredWithoutCore(t *testing.T) {
	for _, sig := range sys.DeadlySignals() {
		t.Run(sys.SignalName(sig), func(t *testing.T) {
			// The Engine dumps no core itself; the starter, allowed to, must
			// not add one.
			engine := fmt.Sprintf("ulimit -c 0; kill -%d $$", int(sig))
			direct := exec.Command("sh", "-c", engine)
			_ = direct.Run()
			want := direct.ProcessState.Sys().(syscall.WaitStatus)
			if !want.Signaled() || want.Signal() != sig || want.CoreDump() {
				t.Fatalf("sh killing itself with %d: status %#x, want death by it without core", int(sig), want)
			}
			cmd := exec.Command("sh", "-c", `ulimit -c unlimited 2>/dev/null; exec "$@"`, "sh", binary, "--", "sh", "-c", engine)
			cmd.Dir = t.TempDir()
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			_ = cmd.Run()
			got := cmd.ProcessState.Sys().(syscall.WaitStatus)
			if got != want {
				t.Fatalf("through session-starter: status %#x; direct: %#x; stderr: %s", got, want, stderr.Bytes())
			}
			if stderr.Len() != 0 {
				t.Fatalf("stderr = %q, want nothing (no Go dump)", stderr.Bytes())
			}
		})
	}
}

func TestBSDAGrandchildEndsWithTheEngine(t *testing.T) {
	s := startBSD(t, nil, "--ack", "--", "sh", "-c", "sleep 600 & echo $!; read x; exit 4")
	s.ack(t)
	child := watch(t, s.pidLine(t))
	s.stdin.Close() // the Engine exits 4
	if got := exitCode(t, s.cmd.Wait()); got != 4 {
		t.Fatalf("exit status = %d, want 4", got)
	}
	child.gone(t, "the Engine's child must end with the session")
}

func TestBSDTheGuardEndsTheGroupWhenTheStarterIsKilled(t *testing.T) {
	s := startBSD(t, nil, "--ack", "--", "sh", "-c", "sleep 600 & echo $!; wait")
	s.ack(t)
	child := watch(t, s.pidLine(t))
	if err := s.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = s.cmd.Wait()
	child.gone(t, "the guard must end the Engine's group once the starter is gone")
}

func TestBSDTheEndOfTheControlDescriptorEndsTheSession(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	s := startBSD(t, []*os.File{r}, "--ack", "--control-fd", "3", "--", "sh", "-c", "sleep 600 & echo $!; wait")
	r.Close()
	s.ack(t)
	child := watch(t, s.pidLine(t))
	w.Close()
	_ = s.cmd.Wait()
	child.gone(t, "the session must end at the control descriptor's end of input")
}

func TestBSDAStopSignalEndsTheSession(t *testing.T) {
	s := startBSD(t, nil, "--ack", "--", "sh", "-c", "sleep 600 & echo $!; wait")
	s.ack(t)
	child := watch(t, s.pidLine(t))
	if err := s.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	_ = s.cmd.Wait()
	child.gone(t, "a stop signal must end the session")
}

// startEscape starts a session whose Engine is the helper escape, and
// returns it with the escapee: a sleep in a session of its own, which
// leads its own group, out of group E.
func startEscape(t *testing.T) (*bsdSession, watched) {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	s := startBSDEnv(t, []string{testproc.HelperEnv(t, "escape")}, nil, "--ack", "--", exe)
	engine := s.ack(t)
	escapee := watch(t, s.pidLine(t))
	st, err := proc.ReadStat(escapee.pid)
	if err != nil || st.Pgrp != escapee.pid || st.Pgrp == engine {
		t.Fatalf("escapee: ReadStat(%d) = %+v, %v; want the leader of a group of its own, not group %d", escapee.pid, st, err, engine)
	}
	return s, escapee
}

// TestBSDTheReaperEndsAnEscapee: on FreeBSD the starter is the reaper of
// the Engine's tree: a process that left group E is adopted once
// orphaned, and ended with the session.
func TestBSDTheReaperEndsAnEscapee(t *testing.T) {
	if runtime.GOOS != "freebsd" {
		t.Skip("macOS has no subreaper: TestBSDTheLineageSweepEndsAnEscapeeOnMacOS")
	}
	s, escapee := startEscape(t)
	s.stdin.Close() // the Engine exits 0, orphaning the escapee
	if got := exitCode(t, s.cmd.Wait()); got != 0 {
		t.Fatalf("exit status = %d, want 0", got)
	}
	escapee.gone(t, "the reaper must end an escapee with the session")
}

// startDoubleFork starts a session whose Engine is the helper
// double-fork, and returns it with the daemon, whose parent has exited.
func startDoubleFork(t *testing.T) (*bsdSession, watched) {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	s := startBSDEnv(t, []string{testproc.HelperEnv(t, "double-fork")}, nil, "--ack", "--", exe, testproc.HelperEnv(t, "middle"), testproc.HelperEnv(t, "daemon"))
	s.ack(t)
	pid := s.pidLine(t)
	st, err := proc.ReadStat(pid)
	if err != nil || !st.Live() || st.StartTime == 0 {
		t.Fatalf("the daemon: ReadStat(%d) = %+v, %v; want a live process with a start time", pid, st, err)
	}
	daemon := watched{pid: pid, start: st.StartTime}
	t.Cleanup(func() {
		if daemon.alive() {
			_ = syscall.Kill(daemon.pid, syscall.SIGKILL)
		}
	})
	return s, daemon
}

// TestBSDADoubleForkedDaemonEndsWithTheSession: a daemon whose parent
// exited long before the end is ended with it — on FreeBSD by the reaper,
// on macOS by the session mark in its environment (its parent unique id
// names a process the end never saw).
func TestBSDADoubleForkedDaemonEndsWithTheSession(t *testing.T) {
	s, daemon := startDoubleFork(t)
	s.stdin.Close()
	if got := exitCode(t, s.cmd.Wait()); got != 0 {
		t.Fatalf("exit status = %d, want 0", got)
	}
	daemon.gone(t, "a double-forked daemon must end with the session")
}

// TestBSDTheLineageSweepEndsAnEscapeeOnMacOS: without a subreaper, the
// end finds a process that left group E by its parent's unique id (the
// Engine's, kept after the Engine exited and launchd adopted it), and
// ends it; a sleep of the same user that is not the session's, started
// after the session began and carrying the mark's variable with another
// session's id — only the id tells it from the session's — is left alone.
func TestBSDTheLineageSweepEndsAnEscapeeOnMacOS(t *testing.T) {
	if runtime.GOOS != "darwin" {
		t.Skip("FreeBSD's reaper ends escapees: TestBSDTheReaperEndsAnEscapee")
	}
	s, escapee := startEscape(t)
	stranger := exec.Command("/bin/sleep", "600")
	stranger.Env = append(os.Environ(), "SESSION_STARTER_SESSION=0123456789abcdef0123456789abcdef")
	if err := stranger.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = stranger.Process.Kill()
		_ = stranger.Wait()
	})
	s.stdin.Close()
	if got := exitCode(t, s.cmd.Wait()); got != 0 {
		t.Fatalf("exit status = %d, want 0", got)
	}
	escapee.gone(t, "the lineage sweep must end an escapee with the session")
	if st, err := proc.ReadStat(stranger.Process.Pid); err != nil || !st.Live() || st.State == 'T' {
		t.Fatalf("the stranger %d: %+v, %v; want it live and running, untouched", stranger.Process.Pid, st, err)
	}
}

// TestBSDAnEscapeeEndsWhenTheStarterIsKilled: once the starter is
// SIGKILLed — on FreeBSD the reaper is gone with it, on macOS there was
// none — the guard finds the process that left group E by its parent's
// identity, the Engine's, and ends it with the group.
func TestBSDAnEscapeeEndsWhenTheStarterIsKilled(t *testing.T) {
	s, escapee := startEscape(t)
	if err := s.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = s.cmd.Wait()
	escapee.gone(t, "the guard must end an escapee once the starter is gone")
}

// TestBSDADoubleForkedDaemonEndsWhenTheStarterIsKilled: the daemon's
// parent exited long before, so the guard finds it by the session mark
// in its environment, as the end does on macOS.
func TestBSDADoubleForkedDaemonEndsWhenTheStarterIsKilled(t *testing.T) {
	s, daemon := startDoubleFork(t)
	if err := s.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = s.cmd.Wait()
	daemon.gone(t, "the guard must end a double-forked daemon once the starter is gone")
}

// TestBSDWithoutTheMarkAnEscapeeOutlivesAKilledStarter pins what
// --no-mark gives up here: the guard ends group E, the Engine with it,
// but sweeps nothing; the escapee is the documented survivor (the test's
// cleanup ends it).
func TestBSDWithoutTheMarkAnEscapeeOutlivesAKilledStarter(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	s := startBSDEnv(t, []string{testproc.HelperEnv(t, "escape")}, nil, "--no-mark", "--ack", "--", exe)
	pid := s.ack(t)
	st, err := proc.ReadStat(pid)
	if err != nil || !st.Live() || st.StartTime == 0 {
		t.Fatalf("the Engine: ReadStat(%d) = %+v, %v; want a live process with a start time", pid, st, err)
	}
	engine := watched{pid: pid, start: st.StartTime}
	escapee := watch(t, s.pidLine(t))
	if err := s.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = s.cmd.Wait()
	engine.gone(t, "the guard must end the Engine's group")
	if !escapee.alive() {
		t.Fatal("the escapee ended: the guard swept where --no-mark turns the sweep off")
	}
}

// awaitRecord waits for the session's one ledger record in dir.
func awaitRecord(t *testing.T, dir string) ledger.Record {
	t.Helper()
	var recs []ledger.Record
	testproc.Eventually(t, "the session's one ledger record", func() bool {
		recs, _, _ = ledger.Read(dir)
		return len(recs) == 1
	})
	return recs[0]
}

// startEscapeWithLedger is startEscape with the ledger in a directory of
// the test's own: the session, its escapee, the Engine (watched) and the
// session's record.
func startEscapeWithLedger(t *testing.T) (*bsdSession, watched, watched, string, ledger.Record) {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	dir := privateDir(t)
	s := startBSDEnv(t, []string{testproc.HelperEnv(t, "escape"), ledger.EnvDir + "=" + dir}, nil, "--ack", "--", exe)
	pid := s.ack(t)
	st, err := proc.ReadStat(pid)
	if err != nil || !st.Live() || st.StartTime == 0 {
		t.Fatalf("the Engine: ReadStat(%d) = %+v, %v; want a live process with a start time", pid, st, err)
	}
	engine := watched{pid: pid, start: st.StartTime}
	t.Cleanup(func() {
		if engine.alive() {
			_ = syscall.Kill(engine.pid, syscall.SIGKILL)
		}
	})
	escapee := watch(t, s.pidLine(t))
	return s, escapee, engine, dir, awaitRecord(t, dir)
}

// TestBSDTheGuardRemovesTheRecordOfASessionItEnded: the starter
// SIGKILLed, the guard ends the session — its escapee too — and then
// removes the session's ledger record: nothing is left for a reclaim.
func TestBSDTheGuardRemovesTheRecordOfASessionItEnded(t *testing.T) {
	s, escapee, engine, dir, rec := startEscapeWithLedger(t)
	if rec.Engine.PID != engine.pid || rec.Starter.PID != s.cmd.Process.Pid {
		t.Fatalf("the record %+v; want the Engine %d and the starter %d", rec, engine.pid, s.cmd.Process.Pid)
	}
	if err := s.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = s.cmd.Wait()
	escapee.gone(t, "the guard must end the escapee once the starter is gone")
	engine.gone(t, "the guard must end the Engine once the starter is gone")
	testproc.Eventually(t, "the guard to remove the record of the session it ended", func() bool {
		_, err := os.Lstat(filepath.Join(dir, ledger.FileName(rec.Session)))
		return errors.Is(err, os.ErrNotExist)
	})
}

// TestBSDReclaimEndsWhatASessionLeftWhenItsStarterAndGuardDiedTogether:
// the starter and the guard are stopped, then SIGKILLed, so that neither
// can act: the Engine and its escapee are nobody's. A dry run lists them
// and ends nothing; --reclaim ends both — the Engine by its token, the
// escapee by lineage — and removes the record; a second finds nothing.
func TestBSDReclaimEndsWhatASessionLeftWhenItsStarterAndGuardDiedTogether(t *testing.T) {
	s, escapee, engine, dir, rec := startEscapeWithLedger(t)
	if rec.Guard.PID <= 1 {
		t.Fatalf("the record %+v names no guard", rec)
	}
	// The guard is the starter's unreaped child: its number is its own
	// until the starter is gone, and then init's to reap.
	for _, sig := range []syscall.Signal{syscall.SIGSTOP, syscall.SIGKILL} {
		for _, pid := range []int{rec.Guard.PID, s.cmd.Process.Pid} {
			if err := syscall.Kill(pid, sig); err != nil {
				t.Fatalf("kill(%d, %v): %v", pid, sig, err)
			}
		}
	}
	_ = s.cmd.Wait()
	// The guard, orphaned, is init's to reap: the reclaim is to find it
	// gone, not a zombie whose identity may be unreadable.
	testproc.Eventually(t, "init to reap the SIGKILLed guard", func() bool {
		st, err := proc.ReadStat(rec.Guard.PID)
		return errors.Is(err, os.ErrNotExist) || (err == nil && st.StartTime != rec.Guard.Token.Start) // its number maybe another's since
	})
	if !escapee.alive() || !engine.alive() {
		t.Fatal("the Engine or the escapee ended with the starter and guard SIGKILLed together: nothing was left to reclaim")
	}

	_, dry, code := reclaimCmd(t, dir, "--dry-run")
	if code != 0 || len(dry.Sessions) != 1 || dry.Sessions[0].Action != "would-reclaim" {
		t.Fatalf("--reclaim --dry-run: exit %d, %+v; want the session, would-reclaim", code, dry)
	}
	if !endedPIDs(dry.Sessions[0], engine.pid, escapee.pid) {
		t.Fatalf("--reclaim --dry-run listed %+v; want the Engine %d and the escapee %d", dry.Sessions[0], engine.pid, escapee.pid)
	}
	if !escapee.alive() || !engine.alive() {
		t.Fatal("--reclaim --dry-run ended something")
	}

	out, rep, code := reclaimCmd(t, dir)
	if code != 0 || len(rep.Sessions) != 1 || rep.Sessions[0].Action != "reclaimed" || !endedPIDs(rep.Sessions[0], engine.pid, escapee.pid) {
		t.Fatalf("--reclaim: exit %d, %q, %+v; want the Engine %d and the escapee %d ended", code, out, rep, engine.pid, escapee.pid)
	}
	escapee.gone(t, "--reclaim must end the escapee")
	engine.gone(t, "--reclaim must end the Engine")
	out, rep, code = reclaimCmd(t, dir)
	if code != 0 || len(rep.Sessions) != 0 || !strings.Contains(out, "no dead session") {
		t.Fatalf("a second --reclaim: exit %d, %q, %+v; want nothing found", code, out, rep)
	}
}

// endedPIDs reports whether s lists each of pids as ended, and leaves
// nothing.
func endedPIDs(s ledger.Session, pids ...int) bool {
	for _, pid := range pids {
		if !slices.ContainsFunc(s.Ended, func(e ledger.Ended) bool { return e.PID == pid }) {
			return false
		}
	}
	return len(s.Left) == 0
}
