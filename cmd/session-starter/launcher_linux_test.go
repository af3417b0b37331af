package main

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/session-starter/session-starter/internal/testproc"
	"github.com/session-starter/session-starter/starter/launch"
)

func init() {
	testproc.Register("thread-launcher", threadLauncher)
}

// threadLauncher starts session-starter --watch-parent from a goroutine
// locked to its thread, lets that thread exit, then checks that the
// session goes on: the Engine answers and exits 0. It exits 0 on success.
func threadLauncher([]string) int {
	cmd := exec.Command(os.Getenv("SESSION_STARTER_BIN"), "--watch-parent", "--", "sh", "-c", `echo ready; read x; echo alive`)
	in, _ := cmd.StdinPipe()
	out, _ := cmd.StdoutPipe()
	cmd.Stderr = os.Stderr
	// The launching goroutine must run on a thread that exits when it
	// returns still locked. The main thread never does (the runtime parks
	// it instead), and this goroutine need not be on it: so it keeps its
	// own thread, and a launcher that finds itself on the main thread
	// holds it and launches from a new goroutine.
	runtime.LockOSThread()
	started := make(chan int)
	var launcher func()
	launcher = func() {
		runtime.LockOSThread() // never unlocked: the thread exits with the goroutine
		if unix.Gettid() == os.Getpid() {
			go launcher()
			select {}
		}
		if err := cmd.Start(); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		started <- unix.Gettid()
	}
	go launcher()
	tid := <-started
	lines := bufio.NewReader(out)
	if l, _ := lines.ReadString('\n'); l != "ready\n" {
		fmt.Fprintf(os.Stderr, "Engine said %q\n", l)
		return 1
	}
	// Wait until the thread that started the starter is gone.
	for i := 0; ; i++ {
		if _, err := os.Stat(fmt.Sprintf("/proc/self/task/%d", tid)); os.IsNotExist(err) {
			break
		}
		if i > 6000 {
			fmt.Fprintln(os.Stderr, "the launching thread did not exit")
			return 1
		}
		time.Sleep(10 * time.Millisecond)
	}
	// A parent-death signal would have fired by now; give a wrong
	// implementation time to act on it.
	time.Sleep(300 * time.Millisecond)
	fmt.Fprintln(in, "x")
	if l, _ := lines.ReadString('\n'); l != "alive\n" {
		fmt.Fprintf(os.Stderr, "after the thread exit the Engine said %q, want alive\n", l)
		return 1
	}
	if err := cmd.Wait(); err != nil {
		fmt.Fprintf(os.Stderr, "session-starter: %v\n", err)
		return 1
	}
	return 0
}

// TestLauncherThreadExitDoesNotEndTheSession: the parent is
// watched as a process, so a launcher thread that exits is not a launcher
// that died (PR_SET_PDEATHSIG would fire here, golang/go#27505).
func TestLauncherThreadExitDoesNotEndTheSession(t *testing.T) {
	mark := newMark(t)
	cmd := helperCommand(t, mark, "thread-launcher")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("thread launcher: %v: %s", err, out)
	}
	noSurvivors(t, mark)
}

// TestParentPIDOfAGoneLauncherRunsNothing: the launcher passes its PID,
// but by the time the starter runs, its parent is someone else, so the
// launcher is gone: nothing is executed, exit 125.
func TestParentPIDOfAGoneLauncherRunsNothing(t *testing.T) {
	mark := newMark(t)
	dir := t.TempDir()
	// The outer shell is the launcher; the inner one waits (bounded)
	// until it has exited, then starts the starter with its PID.
	script := `P=$$; ( i=0; while kill -0 $P 2>/dev/null && [ $i -lt 3000 ]; do sleep 0.01; i=$((i+1)); done
	"$0" --parent-pid $P -- touch ran 2>err; echo $? > status.tmp; mv status.tmp status ) & exit 0`
	cmd := exec.Command("sh", "-c", script, binary)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), markVar+"="+mark)
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	var status []byte
	testproc.Eventually(t, "the starter must report its status", func() bool {
		var err error
		status, err = os.ReadFile(filepath.Join(dir, "status"))
		return err == nil
	})
	if got := strings.TrimSpace(string(status)); got != "125" {
		errText, _ := os.ReadFile(filepath.Join(dir, "err"))
		t.Fatalf("status %s, want 125; stderr: %s", got, errText)
	}
	if _, err := os.Stat(filepath.Join(dir, "ran")); err == nil {
		t.Fatal("the Engine ran, want nothing executed")
	}
	errText, _ := os.ReadFile(filepath.Join(dir, "err"))
	if !strings.Contains(string(errText), "parent-gone") {
		t.Fatalf("stderr = %q, want a report that the parent is gone", errText)
	}
	noSurvivors(t, mark)
}

func TestParentPIDOfTheRealParentRunsTheEngine(t *testing.T) {
	mark := newMark(t)
	s := start(t, mark, []string{"--parent-pid", strconv.Itoa(os.Getpid()), "--", "sh", "-c", "exit 7"})
	wantExit(t, s.wait(), 7, s.stderr)
}

// TestAParentPIDThatIsNotTheParentNamesTheParent: --parent-pid names a
// process that is not session-starter's parent (a wrapper between, or
// the launcher gone). The report names the parent it has, so that the
// launcher's author sees which.
func TestAParentPIDThatIsNotTheParentNamesTheParent(t *testing.T) {
	mark := newMark(t)
	s := start(t, mark, []string{"--parent-pid", "1", "--", "sh", "-c", "exit 7"})
	wantExit(t, s.wait(), 125, s.stderr)
	want := fmt.Sprintf("(parent-gone: its parent at start is PID %d, not 1, the launcher's PID given); nothing was executed", os.Getpid())
	if !strings.Contains(s.stderr.String(), want) {
		t.Fatalf("stderr = %q, want %q", s.stderr, want)
	}
}

// TestBadInputIsAUsageErrorAndNothingRuns: each bad
// command line exits with its status and a clear message, and the Engine,
// which would write a marker file, never runs.
func TestBadInputIsAUsageErrorAndNothingRuns(t *testing.T) {
	notExec := filepath.Join(t.TempDir(), "not-executable")
	if err := os.WriteFile(notExec, []byte("#!/bin/sh\ntouch ran\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	engine := []string{"sh", "-c", "touch ran"}
	tests := []struct {
		name    string
		args    []string
		extra   []*os.File
		code    int
		message string
	}{
		{"unknown flag", append([]string{"--bogus", "--"}, engine...), nil, 2, "unknown flag: --bogus"},
		{"missing program", []string{"--ack", "--"}, nil, 2, "missing PROGRAM"},
		{"missing program, no dashes", []string{"--ack"}, nil, 2, "missing PROGRAM"},
		{"program starting with a dash", []string{"-program", "x"}, nil, 2, "unknown shorthand flag"},
		{"control fd 2", append([]string{"--control-fd", "2", "--"}, engine...), nil, 2, "must be greater than 2"},
		{"control fd 0", append([]string{"--control-fd", "0", "--"}, engine...), nil, 2, "must be greater than 2"},
		{"control fd not a number", append([]string{"--control-fd", "three", "--"}, engine...), nil, 2, "invalid argument \"three\""},
		{"control fd not open", append([]string{"--control-fd", "77", "--"}, engine...), nil, 2, "not a descriptor the launcher passed"},
		{"control fd not a pipe", append([]string{"--control-fd", "3", "--"}, engine...), []*os.File{regularFile(t)}, 2, "not a pipe or socket"},
		{"control fd write only", append([]string{"--control-fd", "3", "--"}, engine...), []*os.File{writeOnly(t)}, 2, "--control-fd 3: not open for reading"},
		{"parent pid not a pid", append([]string{"--parent-pid", "-4", "--"}, engine...), nil, 2, "must be a PID"},
		{"bad kill budget", append([]string{"--kill-budget", "0s", "--"}, engine...), nil, 2, "--kill-budget"},
		{"kill budget 0", append([]string{"--kill-budget", "0", "--"}, engine...), nil, 2, "--kill-budget"},
		{"negative timeout", append([]string{"--timeout", "-1s", "--"}, engine...), nil, 2, "--timeout"},
		{"duration with two suffixes", append([]string{"--grace", "1sm", "--"}, engine...), nil, 2, "a number with one suffix s, m, h or d"},
		{"bad log level", append([]string{"--log-level", "loud", "--"}, engine...), nil, 2, "--log-level"},
		{"program not found", []string{"--ack", "--", "no-such-program-anywhere"}, nil, 127, "no-such-program-anywhere: no such file or directory"},
		{"program not executable", []string{"--ack", "--", notExec}, nil, 126, "permission denied"},
		{"program is a directory", []string{"--ack", "--", "/"}, nil, 126, "session-starter: /: is a directory, not a program\n"},
		{"program is empty", []string{"--ack", "--", ""}, nil, 127, "session-starter: \"\": an empty PROGRAM names no file\n"},
		{"a long flag with one dash", append([]string{"-timeout", "1", "--"}, engine...), nil, 2, "unknown shorthand flag: 't' in -timeout; did you mean --timeout?"},
		{"a long flag with one dash and a value", append([]string{"-watch-stdin=true", "--"}, engine...), nil, 2, "; did you mean --watch-stdin?"},
		{"a long flag with one dash read as its shorthand", append([]string{"-stop-signal", "TERM", "--"}, engine...), nil, 2, "; did you mean --stop-signal?"},
		{"a long flag with one dash read as another's shorthand", append([]string{"-kill-budget", "5s", "--"}, engine...), nil, 2, "; did you mean --kill-budget?"},
		{"stdin grace without watch stdin", append([]string{"--stdin-grace", "1", "--"}, engine...), nil, 2, "--stdin-grace goes with --watch-stdin"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			cmd := exec.Command(binary, tt.args...)
			cmd.Dir = dir
			cmd.ExtraFiles = tt.extra
			var stdout, stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			_ = cmd.Run()
			if got := cmd.ProcessState.ExitCode(); got != tt.code {
				t.Errorf("exit status %d, want %d; stderr: %s", got, tt.code, &stderr)
			}
			if !strings.HasPrefix(stderr.String(), "session-starter: ") || !strings.Contains(stderr.String(), tt.message) {
				t.Errorf("stderr = %q, want a session-starter: line with %q", &stderr, tt.message)
			}
			if stdout.Len() != 0 {
				t.Errorf("stdout = %q, want nothing (no ack)", &stdout)
			}
			if _, err := os.Stat(filepath.Join(dir, "ran")); err == nil {
				t.Error("the Engine ran, want nothing executed")
			}
		})
	}
}

func regularFile(t *testing.T) *os.File {
	t.Helper()
	f, err := os.CreateTemp(t.TempDir(), "control")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return f
}

// writeOnly is a regular file opened for writing only.
func writeOnly(t *testing.T) *os.File {
	t.Helper()
	f, err := os.OpenFile(regularFile(t).Name(), os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return f
}

// TestControlDescriptorSharingStdinIsRefused: reading it would steal the
// Engine's input.
func TestControlDescriptorSharingStdinIsRefused(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	defer r.Close()
	dir := t.TempDir()
	cmd := exec.Command(binary, "--control-fd", "3", "--", "touch", "ran")
	cmd.Dir = dir
	cmd.Stdin = r
	cmd.ExtraFiles = []*os.File{r}
	out, _ := cmd.CombinedOutput()
	if cmd.ProcessState.ExitCode() != 2 || !strings.Contains(string(out), "standard input") {
		t.Fatalf("exit %d, output %q; want 2 and a report about standard input", cmd.ProcessState.ExitCode(), out)
	}
	if _, err := os.Stat(filepath.Join(dir, "ran")); err == nil {
		t.Fatal("the Engine ran, want nothing executed")
	}
}

func TestHelpAndVersionExitZeroAndRunNothing(t *testing.T) {
	for _, flag := range []string{"--help", "-h", "--version"} {
		out, err := exec.Command(binary, flag).Output()
		if err != nil {
			t.Fatalf("%s: %v", flag, err)
		}
		if !strings.Contains(string(out), "session-starter") {
			t.Fatalf("%s printed %q", flag, out)
		}
	}
}

// TestEngineSeesWhatADirectLaunchGives compares what the Engine sees
// through session-starter with what it sees launched directly: argv, cwd,
// umask, environment (less the request variable), the open-files limit
// and the blocked-signal mask.
func TestEngineSeesWhatADirectLaunchGives(t *testing.T) {
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("python3 is needed to block a signal before exec")
	}
	mark := newMark(t)
	dir := t.TempDir()
	probe := `umask; pwd; ulimit -Sn; ulimit -Hn; printf '%s|' "$0" "$@"; echo; env | sort`
	// python3 plays the launcher: it blocks SIGUSR2, sets umask 027 and a
	// lower open-files limit, then executes the command. It puts SIGPIPE
	// and SIGXFSZ back to default first, as subprocess does (other
	// ignored signals are a documented limit, tested below).
	launcher := `import os, resource, signal, sys
signal.signal(signal.SIGPIPE, signal.SIG_DFL)
signal.signal(signal.SIGXFSZ, signal.SIG_DFL)
signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGUSR2})
os.umask(0o027)
resource.setrlimit(resource.RLIMIT_NOFILE, (512, 4096))
os.execv(sys.argv[1], sys.argv[1:])`
	run := func(args ...string) string {
		cmd := exec.Command("python3", append([]string{"-c", launcher}, args...)...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), markVar+"="+mark, "SESSION_STARTER_CONTAIN=1")
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("%v: %v", args, err)
		}
		return string(out)
	}
	// The signal masks are read by grep from its own status: a shell
	// blocks every signal for a moment whenever it forks.
	for _, tt := range []struct {
		engine []string
		want   string // shows that the launcher's setting got through
	}{
		{[]string{"/bin/sh", "-c", probe, "arg 0", "arg 1", "", "*"}, "0027\n" + dir + "\n512\n4096\narg 0|arg 1||*|\n"},
		{[]string{"/bin/grep", "-E", "^Sig(Blk|Ign)", "/proc/self/status"}, "SigBlk:\t0000000000000800\n"},
	} {
		engine := tt.engine
		direct := run(engine...)
		direct = strings.Replace(direct, "SESSION_STARTER_CONTAIN=1\n", "", 1)
		// With --no-mark: exactly what a direct launch gives.
		if through := run(append([]string{binary, "--no-mark", "--"}, engine...)...); direct != through {
			t.Fatalf("direct launch:\n%s\nthrough session-starter --no-mark:\n%s", direct, through)
		}
		// Without: that, with exactly the session mark added or extended.
		through := run(append([]string{binary, "--"}, engine...)...)
		if got := withoutMark(t, through, direct, strings.Contains(tt.want, "SigBlk")); direct != got {
			t.Fatalf("direct launch:\n%s\nthrough session-starter, less the mark:\n%s", direct, got)
		}
		if !strings.Contains(through, tt.want) {
			t.Fatalf("probe output lacks the launcher's settings:\n%s", through)
		}
	}
	noSurvivors(t, mark)
}

// withoutMark returns out, the output of a probe that printed its sorted
// environment, with the session mark's line put back as direct (the same
// probe launched directly) has it; it fails the test unless out has
// exactly one such line, and that line adds one session id to direct's.
// With noEnv the probe printed no environment: out must hold no mark.
func withoutMark(t *testing.T, out, direct string, noEnv bool) string {
	t.Helper()
	prefix := launch.SessionVar + "="
	lines := strings.SplitAfter(out, "\n")
	var marks []int
	for i, l := range lines {
		if strings.HasPrefix(l, prefix) {
			marks = append(marks, i)
		}
	}
	if noEnv {
		if len(marks) != 0 {
			t.Fatalf("the probe printed no environment, but %q", lines[marks[0]])
		}
		return out
	}
	if len(marks) != 1 {
		t.Fatalf("the Engine's environment has %d %s lines, want exactly one:\n%s", len(marks), launch.SessionVar, out)
	}
	got := strings.TrimSuffix(strings.TrimPrefix(lines[marks[0]], prefix), "\n")
	inherited := ""
	for l := range strings.SplitSeq(direct, "\n") {
		if v, ok := strings.CutPrefix(l, prefix); ok {
			inherited = v
		}
	}
	id := got
	if inherited != "" {
		var ok bool
		if id, ok = strings.CutPrefix(got, inherited+":"); !ok {
			t.Fatalf("%s=%s does not extend the inherited %s", launch.SessionVar, got, inherited)
		}
	}
	if len(id) != 32 || strings.Trim(id, "0123456789abcdef") != "" {
		t.Fatalf("%s=%s: the session's id %q is not 32 hexadecimal digits", launch.SessionVar, got, id)
	}
	if inherited != "" {
		lines[marks[0]] = prefix + inherited + "\n"
	} else {
		lines = slices.Delete(lines, marks[0], marks[0]+1)
	}
	return strings.Join(lines, "")
}

// TestIgnoredSignalsOtherThanHUPAndINTReachTheEngineAtDefault pins a
// documented limit: the Go runtime replaces an inherited ignore of every
// signal it handles before main runs, keeping only SIGHUP, SIGINT and the
// two it never touches, 32 and 34. So
// PIPE, USR1 and TERM ignored by the launcher reach the Engine at their
// default. If this starts failing, the limit is gone: update the manual.
func TestIgnoredSignalsOtherThanHUPAndINTReachTheEngineAtDefault(t *testing.T) {
	mark := newMark(t)
	sigIgn := func(args ...string) uint64 {
		t.Helper()
		cmd := exec.Command("sh", append([]string{"-c", `trap "" HUP INT PIPE USR1 TERM && exec "$@"`, "sh"}, args...)...)
		cmd.Env = append(os.Environ(), markVar+"="+mark)
		out, err := cmd.Output()
		if err != nil {
			t.Fatal(err)
		}
		ign, err := strconv.ParseUint(strings.TrimSpace(strings.TrimPrefix(string(out), "SigIgn:")), 16, 64)
		if err != nil {
			t.Fatal(err)
		}
		return ign
	}
	probe := []string{"grep", "SigIgn", "/proc/self/status"}
	direct := sigIgn(probe...)
	through := sigIgn(append([]string{binary, "--"}, probe...)...)
	bit := func(sig int) uint64 { return 1 << (sig - 1) }
	kept := bit(int(unix.SIGHUP)) | bit(int(unix.SIGINT)) | bit(32) | bit(34)
	lost := bit(int(unix.SIGPIPE)) | bit(int(unix.SIGUSR1)) | bit(int(unix.SIGTERM))
	if direct&lost != lost {
		t.Fatalf("direct launch SigIgn = %#x, want PIPE, USR1 and TERM ignored", direct)
	}
	if through != direct&kept {
		t.Fatalf("Engine's SigIgn = %#x, direct %#x: want exactly the launcher's HUP, INT, 32 and 34 (%#x) as documented", through, direct, direct&kept)
	}
}
