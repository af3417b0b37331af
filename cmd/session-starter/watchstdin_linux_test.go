package main

// --watch-stdin: the launcher's own end of the Engine's standard input as
// the launcher's life.

import (
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/session-starter/session-starter/internal/testproc"
)

// stdinSession starts a session with --watch-stdin and a status
// descriptor; the test holds the write end of the Engine's stdin (s.in).
func stdinSession(t *testing.T, mark string, flags []string, engine string) (*session, *os.File) {
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	args := append(append([]string{"--watch-stdin", "--status-fd", "3"}, flags...), "--", "sh", "-c", engine)
	s := start(t, mark, args, withExtraFiles(w))
	w.Close()
	if got := s.line(); got != "ready" {
		t.Fatalf("Engine said %q, want ready; stderr:\n%s", got, s.stderr)
	}
	return s, r
}

// endedRecord returns the ended status record.
func endedRecord(t *testing.T, r *os.File) map[string]any {
	t.Helper()
	recs := statusRecords(t, r)
	if len(recs) == 0 || recs[len(recs)-1]["event"] != "ended" {
		t.Fatalf("status records %v, want an ended record last", recs)
	}
	return recs[len(recs)-1]
}

// TestWatchStdinEndsTheSessionWhenTheLaunchersPipeCloses: the launcher
// closes its end; an Engine that does not read (and ignores SIGTERM) gets
// its own time, then the session is ended: SIGKILL, mirrored, reason
// stdin-closed, the whole tree gone.
func TestWatchStdinEndsTheSessionWhenTheLaunchersPipeCloses(t *testing.T) {
	mark := newMark(t)
	s, status := stdinSession(t, mark, []string{"--stdin-grace", "0.2"}, `trap "" TERM; sleep 600 & echo ready; exec sleep 600`)
	s.in.Close()
	s.in = nil
	wantSignal(t, s.wait(), syscall.SIGKILL, s.stderr)
	if ended := endedRecord(t, status); ended["reason"] != "stdin-closed" {
		t.Errorf("ended = %v, want reason stdin-closed", ended)
	}
	noSurvivors(t, mark)
}

// TestStdioEndsAPipelinesConsumerAStdinGraceAfterItsProducersEnd: --stdio
// watches a pipe on standard input as --watch-stdin does, so
// `producer | session-starter --stdio -- consumer` ends a consumer that
// reads nothing a stdin grace after the producer's end: SIGKILL after
// its ignored SIGTERM, reason stdin-closed, the whole tree gone.
func TestStdioEndsAPipelinesConsumerAStdinGraceAfterItsProducersEnd(t *testing.T) {
	mark := newMark(t)
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	s := start(t, mark, []string{"--stdio", "--stdin-grace", "0.2", "--status-fd", "3", "--", "sh", "-c",
		`trap "" TERM; sleep 600 & echo ready; exec sleep 600`}, withExtraFiles(w))
	w.Close()
	if got := s.line(); got != "ready" {
		t.Fatalf("Engine said %q, want ready; stderr:\n%s", got, s.stderr)
	}
	s.in.Close() // the producer's end
	s.in = nil
	wantSignal(t, s.wait(), syscall.SIGKILL, s.stderr)
	if ended := endedRecord(t, r); ended["reason"] != "stdin-closed" {
		t.Errorf("ended = %v, want reason stdin-closed", ended)
	}
	noSurvivors(t, mark)
}

// TestAnEngineThatExitsOnEndOfInputIsMirroredAndNotSignalled: an Engine
// that reads its input to the end and exits (an MCP server does) exits
// within its time: its own status is mirrored, and nothing was signalled.
func TestAnEngineThatExitsOnEndOfInputIsMirroredAndNotSignalled(t *testing.T) {
	mark := newMark(t)
	s, status := stdinSession(t, mark, nil, `trap 'echo TERM >&2' TERM; echo ready; cat >/dev/null; exit 7`)
	s.in.Close()
	s.in = nil
	wantExit(t, s.wait(), 7, s.stderr)
	if ended := endedRecord(t, status); ended["reason"] != "engine-exit" {
		t.Errorf("ended = %v, want reason engine-exit", ended)
	}
	if strings.Contains(s.stderr.String(), "TERM") {
		t.Errorf("the Engine got SIGTERM: stderr %q", s.stderr)
	}
	noSurvivors(t, mark)
}

// TestAHangUpBeforeTheGoAheadStillRunsTheEngine: `printf x |
// session-starter --watch-stdin -- cat`. The writer closes its end before
// the Engine runs; that hang-up is one like any other: the Engine runs,
// reads what was written and exits within its time. Twenty runs, since
// which comes first was a matter of scheduling.
func TestAHangUpBeforeTheGoAheadStillRunsTheEngine(t *testing.T) {
	for i := range 20 {
		mark := newMark(t)
		s := start(t, mark, []string{"--watch-stdin", "--", "cat"})
		if _, err := s.in.Write([]byte("x")); err != nil {
			t.Fatal(err)
		}
		s.in.Close()
		s.in = nil
		if got := s.rest(); got != "x" {
			t.Fatalf("run %d: the Engine wrote %q, want x; stderr: %s", i, got, s.stderr)
		}
		wantExit(t, s.wait(), 0, s.stderr)
		noSurvivors(t, mark)
	}
}

// TestAnEngineIgnoringEndOfInputGetsTheStopSignalAfterItsTime: with
// --grace the normal end follows the Engine's own time: the stop signal,
// which this Engine answers with exit 9.
func TestAnEngineIgnoringEndOfInputGetsTheStopSignalAfterItsTime(t *testing.T) {
	mark := newMark(t)
	s, status := stdinSession(t, mark, []string{"--stdin-grace", "0.1", "--grace", "5s"}, `trap 'exit 9' TERM; echo ready; while :; do sleep 1; done`)
	s.in.Close()
	s.in = nil
	wantExit(t, s.wait(), 9, s.stderr)
	if ended := endedRecord(t, status); ended["reason"] != "stdin-closed" {
		t.Errorf("ended = %v, want reason stdin-closed", ended)
	}
	noSurvivors(t, mark)
}

// TestAStopSignalDuringAnEndBegunByStdinOnlyJoinsIt: an MCP SDK closes the
// server's stdin, then sends SIGTERM two seconds later. That is the
// session's first stop signal: the end keeps its grace. Here the Engine,
// once it got the stop signal, exits 9 only after that SIGTERM.
func TestAStopSignalDuringAnEndBegunByStdinOnlyJoinsIt(t *testing.T) {
	mark := newMark(t)
	goOn := filepath.Join(t.TempDir(), "go-on")
	s, status := stdinSession(t, mark, []string{"--stdin-grace", "0.1", "--grace", "1h"},
		fmt.Sprintf(`trap 'echo term; while [ ! -e %q ]; do sleep 0.01; done; exit 9' TERM; echo ready; while :; do sleep 1; done`, goOn))
	s.in.Close()
	s.in = nil
	if got := s.line(); got != "term" {
		t.Fatalf("Engine said %q, want term; stderr:\n%s", got, s.stderr)
	}
	s.signal(syscall.SIGTERM)
	testproc.Eventually(t, "the starter to take its SIGTERM", func() bool { return !signalPending(t, s.cmd.Process.Pid, syscall.SIGTERM) })
	if err := os.WriteFile(goOn, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	wantExit(t, s.wait(), 9, s.stderr)
	if ended := endedRecord(t, status); ended["reason"] != "stdin-closed" {
		t.Errorf("ended = %v, want reason stdin-closed", ended)
	}
	noSurvivors(t, mark)
}

// signalPending says whether sig is pending for process pid, for one of
// its threads or for the whole process.
func signalPending(t *testing.T, pid int, sig syscall.Signal) bool {
	t.Helper()
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range strings.Split(string(b), "\n") {
		k, v, _ := strings.Cut(l, ":")
		if k != "SigPnd" && k != "ShdPnd" {
			continue
		}
		mask, err := strconv.ParseUint(strings.TrimSpace(v), 16, 64)
		if err != nil {
			t.Fatalf("%s: %v", l, err)
		}
		if mask&(1<<(sig-1)) != 0 {
			return true
		}
	}
	return false
}

// TestDataTheEngineHasNotReadDoesNotEndTheSession: the watch asks for
// the hang-up only, never for data: a launcher that wrote what the Engine
// has not read yet does not end the session; its close then does.
func TestDataTheEngineHasNotReadDoesNotEndTheSession(t *testing.T) {
	mark := newMark(t)
	s, status := stdinSession(t, mark, []string{"--stdin-grace", "0.1"}, `echo ready; exec sleep 600`)
	if _, err := s.in.Write([]byte("unread\n")); err != nil {
		t.Fatal(err)
	}
	// A negative: nothing may happen. Several times the Engine's own time
	// (0.1 s) after the write, the session still runs.
	time.Sleep(time.Second)
	if err := s.cmd.Process.Signal(syscall.Signal(0)); err != nil {
		t.Fatalf("session-starter ended on unread data: %v; stderr:\n%s", err, s.stderr)
	}
	s.in.Close()
	s.in = nil
	wantSignal(t, s.wait(), syscall.SIGKILL, s.stderr)
	if ended := endedRecord(t, status); ended["reason"] != "stdin-closed" {
		t.Errorf("ended = %v, want reason stdin-closed", ended)
	}
	noSurvivors(t, mark)
}

// TestWatchStdinOnASocketEndsWhenThePeerShutsDown: a launcher that gives
// the Engine one end of a stream socket as stdin (Node does) ends the
// session by closing the other.
func TestWatchStdinOnASocketEndsWhenThePeerShutsDown(t *testing.T) {
	fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	end, peer := os.NewFile(uintptr(fds[0]), "stdin"), os.NewFile(uintptr(fds[1]), "peer")
	defer end.Close()
	defer peer.Close()
	mark := newMark(t)
	s := start(t, mark, []string{"--watch-stdin", "--stdin-grace", "0.1", "--", "sh", "-c", `echo ready; exec sleep 600`}, func(c *exec.Cmd) { c.Stdin = end })
	if got := s.line(); got != "ready" {
		t.Fatalf("Engine said %q, want ready; stderr:\n%s", got, s.stderr)
	}
	peer.Close()
	wantSignal(t, s.wait(), syscall.SIGKILL, s.stderr)
	noSurvivors(t, mark)
}

// TestStandardInputThatCanNeverHangUpIsRefused: a terminal, /dev/null, a
// regular file, a listening or a datagram socket, and a pipe whose write
// end is passed too: exit 2, nothing executed. --stdio runs the Engine
// with the first five unwatched; the pipe it refuses as --watch-stdin
// does, since it is a pipe that could never tell the launcher's end.
func TestStandardInputThatCanNeverHangUpIsRefused(t *testing.T) {
	dir := t.TempDir()
	keep := func(f *os.File) *os.File { t.Cleanup(func() { f.Close() }); return f }
	open := func(path string, flag int) *os.File {
		f, err := os.OpenFile(path, flag, 0o600)
		if err != nil {
			t.Fatal(err)
		}
		return keep(f)
	}
	terminal := func() []*os.File {
		ptmx := open("/dev/ptmx", os.O_RDWR)
		if err := unix.IoctlSetPointerInt(int(ptmx.Fd()), unix.TIOCSPTLCK, 0); err != nil {
			t.Fatal(err)
		}
		n, err := unix.IoctlGetInt(int(ptmx.Fd()), unix.TIOCGPTN)
		if err != nil {
			t.Fatal(err)
		}
		return []*os.File{open("/dev/pts/"+strconv.Itoa(n), os.O_RDWR)}
	}
	for _, tt := range []struct {
		name    string
		stdin   func() []*os.File // stdin, then descriptors from 3
		message string
	}{
		{"a terminal", terminal, "standard input is a terminal"},
		{"/dev/null", func() []*os.File { return []*os.File{open(os.DevNull, os.O_RDONLY)} }, "character device"},
		{"a regular file", func() []*os.File {
			return []*os.File{open(filepath.Join(dir, "input"), os.O_RDWR|os.O_CREATE)}
		}, "a file or directory"},
		{"a listening socket", func() []*os.File {
			l, err := net.Listen("unix", filepath.Join(t.TempDir(), "listening"))
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { l.Close() })
			f, err := l.(*net.UnixListener).File()
			if err != nil {
				t.Fatal(err)
			}
			return []*os.File{keep(f)}
		}, "a listening socket"},
		{"a datagram socket", func() []*os.File { return []*os.File{socketEnd(t, unix.SOCK_DGRAM)} }, "not a stream"},
		{"a pipe whose write end is passed", func() []*os.File {
			r, w, err := os.Pipe()
			if err != nil {
				t.Fatal(err)
			}
			return []*os.File{keep(r), keep(w)}
		}, "descriptor 3 writes to the same pipe"},
	} {
		for _, flag := range []string{"--watch-stdin", "--stdio"} {
			t.Run(tt.name+"/"+flag, func(t *testing.T) {
				files := tt.stdin()
				run := t.TempDir()
				cmd := exec.Command(binary, flag, "--", "touch", "ran")
				cmd.Dir = run
				cmd.Stdin, cmd.ExtraFiles = files[0], files[1:]
				out, err := cmd.CombinedOutput()
				if flag == "--stdio" && len(files) == 1 {
					if err != nil || !fileExists(filepath.Join(run, "ran")) {
						t.Fatalf("%v, %q; want the Engine run, its stdin unwatched", err, out)
					}
					return
				}
				var ee *exec.ExitError
				if !errors.As(err, &ee) || ee.ExitCode() != 2 || !strings.Contains(string(out), tt.message) {
					t.Fatalf("%v, %q; want exit 2 and %q", err, out, tt.message)
				}
				if fileExists(filepath.Join(run, "ran")) {
					t.Fatal("the Engine ran")
				}
			})
		}
	}
}

// TestThroughAWrapperShellTheSessionEndsWithTheLaunchersPipe: the MCP
// client config shape that --watch-parent cannot see through —
// `bash -c "… session-starter … -- server"` — ends when the client's end
// of the server's stdin closes (here the test, as the client, closes
// it), while the wrapper shell, the watched parent, lives on.
func TestThroughAWrapperShellTheSessionEndsWithTheLaunchersPipe(t *testing.T) {
	mark := newMark(t)
	wrapper := `"$0" --watch-parent --watch-stdin --stdin-grace 0.2 -- sh -c 'sleep 600 & echo ready; exec sleep 600'; echo "after $?"; exec sleep 600`
	cmd := exec.Command("bash", "-c", wrapper, binary)
	cmd.Env = append(os.Environ(), markVar+"="+mark)
	s := startCmd(t, mark, cmd)
	if got := s.line(); got != "ready" {
		t.Fatalf("Engine said %q, want ready; stderr:\n%s", got, s.stderr)
	}
	s.in.Close()
	s.in = nil
	if got := s.line(); got != "after 137" {
		t.Fatalf("the wrapper said %q, want %q (the session ended by SIGKILL, the wrapper alive)", got, "after 137")
	}
	// Left: the wrapper itself, now a sleep, which the test ends. Its
	// environment reads empty while it executes the sleep: eventually.
	var left []int
	testproc.Eventually(t, "only the wrapper may be left", func() bool {
		left = marked(mark)
		return len(left) == 1 && left[0] == cmd.Process.Pid
	})
	_ = cmd.Process.Kill()
	_ = cmd.Wait()
}

// TestThroughSudoTheHangUpStillArrives: sudo (with Debian's "Defaults
// use_pty"), run from a pipe as an MCP client runs its server, hands the
// command a pipe of its own for stdin and relays it; the client's close
// still reaches session-starter as a hang-up.
func TestThroughSudoTheHangUpStillArrives(t *testing.T) {
	if _, err := exec.LookPath("sudo"); err != nil || os.Getuid() != 0 {
		t.Skip("needs sudo, run as root (sudo -n)")
	}
	mark := newMark(t)
	cmd := exec.Command("sudo", "-n", "--preserve-env="+markVar, binary, "--watch-stdin", "--stdin-grace", "0.2", "--", "sh", "-c", `echo ready; exec sleep 600`)
	cmd.Env = append(os.Environ(), markVar+"="+mark)
	s := startCmd(t, mark, cmd)
	if got := s.line(); got != "ready" {
		t.Fatalf("Engine said %q, want ready; stderr:\n%s", got, s.stderr)
	}
	s.in.Close()
	s.in = nil
	wantSignal(t, s.wait(), syscall.SIGKILL, s.stderr)
	noSurvivors(t, mark)
}
