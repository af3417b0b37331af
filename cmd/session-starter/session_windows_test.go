package main

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"golang.org/x/sys/windows"

	"github.com/session-starter/session-starter/internal/sys"
	"github.com/session-starter/session-starter/internal/testproc"
	"github.com/session-starter/session-starter/internal/wire"
	"github.com/session-starter/session-starter/starter/launch"
)

func args(flags []string, engine []string) []string {
	return append(append(slices.Clone(flags), "--"), engine...)
}

func TestEngineExitEndsItsChildAndGrandchild(t *testing.T) {
	s := startSession(t, "engine", args([]string{"--ack"}, helperArgv(t, "3", "stdin")), nil)
	tree := s.tree(s.ack())
	if _, err := io.WriteString(s.stdin, "go\n"); err != nil {
		t.Fatal(err)
	}
	if got := s.exitCode(); got != 3 {
		t.Errorf("exit code = %d, want the Engine's 3; stderr: %s", got, s.stderr.String())
	}
	allEnd(t, tree[1:])
}

// TestKillingTheStarterEndsTheTree: when session-starter is terminated
// (TerminateProcess, as a crash or Task Manager would), the system closes
// its handle to the job, the job's last, and ends every process in it.
func TestKillingTheStarterEndsTheTree(t *testing.T) {
	s := startSession(t, "engine", args([]string{"--ack"}, helperArgv(t, "0", "forever")), nil)
	tree := s.tree(s.ack())
	if err := s.cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	s.exitCode()
	allEnd(t, tree)
}

func TestExitCodesAreMirrored(t *testing.T) {
	for _, code := range []uint32{0, 1, 2, 124, 125, 126, 127, 255, 256, 0xC000013A} {
		t.Run(strconv.FormatUint(uint64(code), 10), func(t *testing.T) {
			s := startSession(t, "exit", args(nil, helperArgv(t, strconv.FormatUint(uint64(code), 10))), nil)
			if got := s.exitCode(); uint32(got) != code {
				t.Errorf("exit code = %d, want %d; stderr: %s", got, code, s.stderr.String())
			}
		})
	}
}

func TestMissingProgramExits127WithoutAck(t *testing.T) {
	s := startSession(t, "", []string{"--ack", "--", "session-starter-no-such-program"}, nil)
	out := s.rest()
	if got := s.exitCode(); got != wire.ExitNotFound {
		t.Errorf("exit code = %d, want %d; stderr: %s", got, wire.ExitNotFound, s.stderr.String())
	}
	if len(out) != 0 {
		t.Errorf("stdout = %q, want nothing: no ack without a session", out)
	}
	if !strings.Contains(s.stderr.String(), "session-starter-no-such-program") {
		t.Errorf("stderr = %q, want the program named", s.stderr.String())
	}
}

func TestAckComesBeforeAnyEngineOutput(t *testing.T) {
	s := startSession(t, "print", args([]string{"--ack"}, helperArgv(t)), nil)
	out := s.rest()
	if got := s.exitCode(); got != 0 {
		t.Errorf("exit code = %d, want 0; stderr: %s", got, s.stderr.String())
	}
	lines := strings.Split(strings.TrimRight(out, "\r\n"), "\n")
	if len(lines) != 2 {
		t.Fatalf("stdout = %q, want the ack line, then the Engine's", out)
	}
	if _, _, err := launch.ParseAck([]byte(lines[0])); err != nil {
		t.Errorf("first line %q is not the ack: %v", lines[0], err)
	}
	if strings.TrimSpace(lines[1]) != "engine output" {
		t.Errorf("second line = %q, want the Engine's output", lines[1])
	}
}

// inheritablePipe returns a pipe whose read end (r) a child can inherit:
// its handle value is what --control-fd and --status-fd take.
func inheritablePipe(t *testing.T, end string) (r, w *os.File) {
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close(); w.Close() })
	f := r
	if end == "w" {
		f = w
	}
	if err := windows.SetHandleInformation(windows.Handle(f.Fd()), windows.HANDLE_FLAG_INHERIT, windows.HANDLE_FLAG_INHERIT); err != nil {
		t.Fatal(err)
	}
	return r, w
}

func passHandle(f *os.File) func(*exec.Cmd) {
	return func(c *exec.Cmd) {
		c.SysProcAttr = &syscall.SysProcAttr{AdditionalInheritedHandles: []syscall.Handle{syscall.Handle(f.Fd())}}
	}
}

func TestControlHandleAtEndOfInputEndsTheSession(t *testing.T) {
	r, w := inheritablePipe(t, "r")
	flags := []string{"--ack", "--control-fd", strconv.Itoa(int(r.Fd()))}
	s := startSession(t, "engine", args(flags, helperArgv(t, "0", "forever")), passHandle(r))
	tree := s.tree(s.ack())
	w.Close()
	if got := s.exitCode(); got != 1 {
		t.Errorf("exit code = %d, want 1 (the job was terminated with 1); stderr: %s", got, s.stderr.String())
	}
	allEnd(t, tree)
}

// TestTimeoutEndsTheSessionWith124: the timeout may fire before the
// Engine has started its child and grandchild, so the end of the tree is
// shown by the end of file on stdout, which every process of the tree
// holds.
func TestTimeoutEndsTheSessionWith124(t *testing.T) {
	s := startSession(t, "engine", args([]string{"--ack", "--timeout", "300ms"}, helperArgv(t, "0", "forever")), nil)
	s.ack()
	s.rest()
	if got := s.exitCode(); got != wire.ExitTimeout {
		t.Errorf("exit code = %d, want %d; stderr: %s", got, wire.ExitTimeout, s.stderr.String())
	}
}

func TestLauncherGoneEndsTheSession(t *testing.T) {
	l := startSession(t, "engine", args([]string{"--ack", "--watch-parent"}, helperArgv(t, "0", "forever")), func(c *exec.Cmd) {
		// The test binary as a launcher that starts session-starter.
		c.Env = append(c.Env, testproc.HelperVar+"=launcher")
	})
	tree := l.tree(l.ack())
	if _, err := io.WriteString(l.stdin, "go\n"); err != nil {
		t.Fatal(err)
	}
	if got := l.exitCode(); got != 0 {
		t.Fatalf("launcher exit code = %d; stderr: %s", got, l.stderr.String())
	}
	allEnd(t, tree)
}

func TestAParentPIDThatIsNotTheParentStartsNothing(t *testing.T) {
	// A live process of this test's that is not the starter's parent.
	other := exec.Command(testExe(t), "0")
	other.Env = append(os.Environ(), testproc.HelperVar+"=leaf")
	if err := other.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = other.Process.Kill(); _ = other.Wait() })
	flags := []string{"--ack", "--parent-pid", strconv.Itoa(other.Process.Pid)}
	s := startSession(t, "print", args(flags, helperArgv(t)), nil)
	out := s.rest()
	if got := s.exitCode(); got != wire.ExitContainment {
		t.Errorf("exit code = %d, want %d; stderr: %s", got, wire.ExitContainment, s.stderr.String())
	}
	if len(out) != 0 {
		t.Errorf("stdout = %q, want nothing executed", out)
	}
}

func TestStatusRecordsTellTheStartAndTheEnd(t *testing.T) {
	r, w := inheritablePipe(t, "w")
	flags := []string{"--status-fd", strconv.Itoa(int(w.Fd()))}
	s := startSession(t, "exit", args(flags, helperArgv(t, "5")), passHandle(w))
	if got := s.exitCode(); got != 5 {
		t.Errorf("exit code = %d, want 5; stderr: %s", got, s.stderr.String())
	}
	w.Close()
	sc := bufio.NewScanner(r)
	var recs []map[string]any
	for sc.Scan() {
		var m map[string]any
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			t.Fatalf("record %q: %v", sc.Text(), err)
		}
		recs = append(recs, m)
	}
	if len(recs) != 2 {
		t.Fatalf("got %d records, want started and ended: %v", len(recs), recs)
	}
	if recs[0]["event"] != "started" || recs[0]["mode"] != wire.ModeJob {
		t.Errorf("first record = %v, want started in mode job", recs[0])
	}
	end := recs[1]
	if end["event"] != "ended" || end["reason"] != "engine-exit" || end["exit_code"] != 5.0 || end["outcome"] != "empty" {
		t.Errorf("last record = %v, want ended, engine-exit, exit_code 5, outcome empty", end)
	}
}

// scratchDir is t.TempDir for Wine too: Go's RemoveAll fails there
// (unlinkat: Invalid function), so the cleanup removes each file by name.
func scratchDir(t *testing.T) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "session-starter-test-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		entries, _ := os.ReadDir(dir)
		for _, e := range entries {
			if err := os.Remove(filepath.Join(dir, e.Name())); err != nil {
				t.Errorf("remove scratch file: %v", err)
			}
		}
		if err := os.Remove(dir); err != nil {
			t.Errorf("remove scratch directory: %v", err)
		}
	})
	return dir
}

// TestBatchFileGetsItsArgumentsUnchanged: cmd.exe metacharacters, quotes,
// spaces, a trailing backslash and an empty argument all reach the batch
// file's arguments as they were. A quote inside an argument is doubled
// for cmd.exe; how it then reads depends on the receiving program's
// parser (Go's ends the quoting at "", the C runtime since 2008 does not),
// so only a quote that opens and closes an argument is checked here.
// The % cases need cmd.exe's own
// %cd:~,% substring syntax, which Wine's cmd.exe does not implement: they
// run on Windows only.
func TestBatchFileGetsItsArgumentsUnchanged(t *testing.T) {
	dir := scratchDir(t)
	script := filepath.Join(dir, "echo args.cmd")
	// The batch file passes its arguments on to the argv helper.
	body := "@echo off\r\n\"" + testExe(t) + "\" %*\r\n"
	if err := os.WriteFile(script, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	want := []string{"plain", "two words", `"quoted"`, "a&b", "a|b", "^caret", `trail\`, "", "!bang!", "(paren)", "<in>", `back\slash`}
	if !onWine() {
		want = append(want, "%PATH%", "100%", "%%")
	}
	s := startSession(t, "argv", args(nil, append([]string{script}, want...)), nil)
	out := s.rest()
	if got := s.exitCode(); got != 0 {
		t.Fatalf("exit code = %d; stderr: %s", got, s.stderr.String())
	}
	var got []string
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatalf("output %q: %v", out, err)
	}
	if !slices.Equal(got, want) {
		t.Errorf("batch file got %q, want %q", got, want)
	}
}

func TestBatchArgumentWithANewlineIsRefused(t *testing.T) {
	dir := scratchDir(t)
	script := filepath.Join(dir, "x.bat")
	if err := os.WriteFile(script, []byte("@echo ran\r\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	s := startSession(t, "", []string{"--ack", "--", script, "a\ncalc.exe"}, nil)
	out := s.rest()
	if got := s.exitCode(); got != wire.ExitCannotExecute {
		t.Errorf("exit code = %d, want %d; stderr: %s", got, wire.ExitCannotExecute, s.stderr.String())
	}
	if len(out) != 0 {
		t.Errorf("stdout = %q, want nothing executed", out)
	}
}

// needConsole skips a test that sends console control events where none
// can be: under Wine, which delivers none, and without a console.
func needConsole(t *testing.T) {
	t.Helper()
	if onWine() {
		t.Skip("Wine delivers no console control events")
	}
	if !sys.HasConsoleWindow() {
		t.Skip("no console: no control event can be sent")
	}
}

// TestGraceSendsCtrlBreakFirst: with a grace, the end sends
// CTRL_BREAK_EVENT to the Engine's process group before it terminates the
// job; an Engine that exits on it has its own status mirrored. Needs a
// console that the starter shares with the Engine.
func TestGraceSendsCtrlBreakFirst(t *testing.T) {
	needConsole(t)
	r, w := inheritablePipe(t, "r")
	flags := []string{"--ack", "--grace", "30s", "--control-fd", strconv.Itoa(int(r.Fd()))}
	s := startSession(t, "exit-on-break", args(flags, helperArgv(t)), passHandle(r))
	s.ack()
	if l := s.line(); l != "waiting" {
		t.Fatalf("line = %q, want the Engine waiting", l)
	}
	w.Close()
	if l := s.line(); l != "break" {
		t.Errorf("line = %q, want the Engine to have seen CTRL_BREAK_EVENT", l)
	}
	if got := s.exitCode(); got != 7 {
		t.Errorf("exit code = %d, want 7, the Engine's own on CTRL_BREAK_EVENT; stderr: %s", got, s.stderr.String())
	}
}

// TestCtrlBreakToTheStarterEndsTheSession: Ctrl-C, Ctrl-Break and closing
// the console are stops for session-starter. The event goes to the
// starter's own console process group only; the Engine, in a group of its
// own, is ended by the job.
func TestCtrlBreakToTheStarterEndsTheSession(t *testing.T) {
	needConsole(t)
	s := startSession(t, "engine", args([]string{"--ack"}, helperArgv(t, "0", "forever")), func(c *exec.Cmd) {
		c.SysProcAttr = &syscall.SysProcAttr{CreationFlags: windows.CREATE_NEW_PROCESS_GROUP}
	})
	tree := s.tree(s.ack())
	if err := windows.GenerateConsoleCtrlEvent(windows.CTRL_BREAK_EVENT, uint32(s.cmd.Process.Pid)); err != nil {
		t.Fatalf("GenerateConsoleCtrlEvent: %v", err)
	}
	if got := s.exitCode(); got != 1 {
		t.Errorf("exit code = %d, want 1, the Engine's code from TerminateJobObject; stderr: %s", got, s.stderr.String())
	}
	allEnd(t, tree)
}

// TestLaunchPassesTheControlAndStatusHandles: launch.Start on Windows
// passes its pipes as inheritable handle values, and closing the control
// pipe (what Stop and a cancelled ctx do there) ends the session with the
// Engine's status mirrored.
func TestLaunchPassesTheControlAndStatusHandles(t *testing.T) {
	sess, err := launch.Start(context.Background(), launch.Options{
		Binary:      testExe(t),
		Argv:        helperArgv(t, "0", "forever"),
		Env:         append(os.Environ(), testproc.HelperVar+"=session-starter", engineVar+"=engine"),
		ControlPipe: true,
		StatusPipe:  true,
	})
	if err != nil {
		t.Fatal(err)
	}
	defer sess.Stdout.Close()
	defer sess.Status.Close()
	s := &session{t: t, stdout: bufio.NewReader(sess.Stdout)}
	tree := s.tree(sess.PID)
	if err := sess.Stop(); err != nil {
		t.Fatal(err)
	}
	state, err := sess.Wait()
	if err != nil || state.ExitCode() != 1 {
		t.Errorf("Wait() = %v, %v; want exit code 1, the Engine's from TerminateJobObject; stderr: %s", state, err, sess.StderrTail())
	}
	allEnd(t, tree)
	recs, err := io.ReadAll(sess.Status)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(recs), `"reason":"control-closed"`) {
		t.Errorf("status records %s: want the session ended by control-closed", recs)
	}
}

// TestEngineGetsTheLaunchersCommandLineAsWritten: the Engine's part of
// the command line reaches it byte for byte (its spacing and quoting
// included), not split and composed again.
func TestEngineGetsTheLaunchersCommandLineAsWritten(t *testing.T) {
	engine := windows.ComposeCommandLine([]string{testExe(t)}) + `   plain  "two  words"	a\\\"b ""`
	s := startSession(t, "cmdline", nil, func(c *exec.Cmd) {
		c.SysProcAttr = &syscall.SysProcAttr{CmdLine: windows.ComposeCommandLine([]string{testExe(t), "--ack", "--"}) + " " + engine}
	})
	s.ack()
	if got := s.line(); got != engine {
		t.Errorf("the Engine's command line = %s\nwant %s", got, engine)
	}
	if got := s.exitCode(); got != 0 {
		t.Errorf("exit code = %d; stderr: %s", got, s.stderr.String())
	}
}

func TestBadHandlesAndLinuxModesAreUsageErrors(t *testing.T) {
	for _, tt := range []struct {
		name  string
		flags []string
	}{
		{"control handle not open", []string{"--control-fd", "1000004"}},
		{"status handle not open", []string{"--status-fd", "1000004"}},
		{"cgroup containment", []string{"--containment", "cgroup"}},
		{"group containment", []string{"--containment", "group"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s := startSession(t, "print", args(append([]string{"--ack"}, tt.flags...), helperArgv(t)), nil)
			out := s.rest()
			if got := s.exitCode(); got != wire.ExitUsage {
				t.Errorf("exit code = %d, want %d; stderr: %s", got, wire.ExitUsage, s.stderr.String())
			}
			if len(out) != 0 {
				t.Errorf("stdout = %q, want nothing executed", out)
			}
		})
	}
}

func TestAProgramThatCannotBeExecutedExits126WithoutAck(t *testing.T) {
	bad := filepath.Join(scratchDir(t), "garbage.exe")
	if err := os.WriteFile(bad, []byte("not a program\r\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	s := startSession(t, "", []string{"--ack", "--", bad}, nil)
	out := s.rest()
	if got := s.exitCode(); got != wire.ExitCannotExecute {
		t.Errorf("exit code = %d, want %d; stderr: %s", got, wire.ExitCannotExecute, s.stderr.String())
	}
	if out != "" {
		t.Errorf("stdout = %q, want nothing: no ack without a session", out)
	}
}
