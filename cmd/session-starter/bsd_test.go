//go:build darwin || freebsd

package main

// Sessions on the kernel of macOS or FreeBSD itself: the product binary,
// built once in TestMain, holds real sessions, with kqueue watching the
// Engine, the launcher and the starter's pipe, and sysctl kern.proc
// listing group E. These run on the CI's macOS and FreeBSD machines; the
// Linux machine only builds them (make cross), and runs the same code
// paths through the portable build (make test-portable).

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/session-starter/session-starter/internal/proc"
	"github.com/session-starter/session-starter/internal/sys"
	"github.com/session-starter/session-starter/internal/testproc"
)

var binary string

func TestMain(m *testing.M) {
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
	os.Exit(code)
}

// bsdSession is a started session-starter with its stdout read by line.
type bsdSession struct {
	cmd   *exec.Cmd
	lines *bufio.Reader
}

func startBSD(t *testing.T, files []*os.File, args ...string) *bsdSession {
	t.Helper()
	cmd := exec.Command(binary, args...)
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
		if cmd.ProcessState == nil {
			_ = cmd.Process.Kill()
			_ = cmd.Wait()
		}
	})
	return &bsdSession{cmd: cmd, lines: bufio.NewReader(out)}
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

// gone waits until the process pid, a sleep of the session, is no longer
// a live sleep (a PID reused meanwhile by another command counts as gone).
func gone(t *testing.T, pid int, what string) {
	t.Helper()
	deadline := time.Now().Add(testproc.TooLong)
	for wait := time.Millisecond; ; wait = min(2*wait, 100*time.Millisecond) {
		st, err := proc.ReadStat(pid)
		if err != nil || !st.Live() || st.Comm != "sleep" {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("after %v: %s: pid %d is still a live %s (state %c)", testproc.TooLong, what, pid, st.Comm, st.State)
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
	s := startBSD(t, nil, "--ack", "--", "sh", "-c", "sleep 600 & echo $!; exit 4")
	s.ack(t)
	child := s.pidLine(t)
	if got := exitCode(t, s.cmd.Wait()); got != 4 {
		t.Fatalf("exit status = %d, want 4", got)
	}
	gone(t, child, "the Engine's child must end with the session")
}

func TestBSDTheGuardEndsTheGroupWhenTheStarterIsKilled(t *testing.T) {
	s := startBSD(t, nil, "--ack", "--", "sh", "-c", "sleep 600 & echo $!; wait")
	s.ack(t)
	child := s.pidLine(t)
	if err := s.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = s.cmd.Wait()
	gone(t, child, "the guard must end the Engine's group once the starter is gone")
}

func TestBSDTheEndOfTheControlDescriptorEndsTheSession(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	s := startBSD(t, []*os.File{r}, "--ack", "--control-fd", "3", "--", "sh", "-c", "sleep 600 & echo $!; wait")
	r.Close()
	s.ack(t)
	child := s.pidLine(t)
	w.Close()
	_ = s.cmd.Wait()
	gone(t, child, "the session must end at the control descriptor's end of input")
}

func TestBSDAStopSignalEndsTheSession(t *testing.T) {
	s := startBSD(t, nil, "--ack", "--", "sh", "-c", "sleep 600 & echo $!; wait")
	s.ack(t)
	child := s.pidLine(t)
	if err := s.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	_ = s.cmd.Wait()
	gone(t, child, "a stop signal must end the session")
}
