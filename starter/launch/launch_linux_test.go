package launch_test

// The launcher tests and the examples need a session-starter in PATH. The
// test binary plays it: a symlink named session-starter to it, in a
// directory of this run put first in PATH, runs standIn below (its gate
// and guard are the test binary too, dispatched by TestMain). The
// session-starter binary itself is launched by cmd/session-starter's
// sdk_linux_test.go.

import (
	"bytes"
	"context"
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

	"github.com/session-starter/session-starter/internal/exit"
	"github.com/session-starter/session-starter/internal/proc"
	"github.com/session-starter/session-starter/internal/sys"
	"github.com/session-starter/session-starter/internal/testproc"
	"github.com/session-starter/session-starter/internal/wire"
	"github.com/session-starter/session-starter/starter"
	"github.com/session-starter/session-starter/starter/launch"
)

// standInPrefix names the directories holding the stand-in symlink:
// prefix + PID of the test process + random suffix.
const standInPrefix = "session-starter-standin-"

// standInVar names the stand-in's directory in the environment of the test
// process, so that its children set up no other.
const standInVar = "SESSION_STARTER_TEST_STANDIN"

func init() {
	if len(os.Args) > 1 && isHidden(os.Args[1]) {
		return // TestMain plays them
	}
	if filepath.Base(os.Args[0]) == "session-starter" {
		standIn(os.Args[1:])
	}
	if os.Getenv(standInVar) != "" {
		return // a child of a test process (a fuzz worker): PATH has it
	}
	if err := setUpStandIn(); err != nil {
		fmt.Fprintln(os.Stderr, "stand-in session-starter:", err)
		os.Exit(1)
	}
}

// setUpStandIn puts a directory with the symlink first in PATH. Nothing
// runs after the examples to remove it, so directories of earlier runs
// whose process is gone are removed here.
func setUpStandIn() error {
	stale, _ := filepath.Glob(filepath.Join(os.TempDir(), standInPrefix+"*"))
	for _, dir := range stale {
		pid, _, _ := strings.Cut(strings.TrimPrefix(filepath.Base(dir), standInPrefix), "-")
		if _, err := os.Stat("/proc/" + pid); errors.Is(err, os.ErrNotExist) {
			_ = os.RemoveAll(dir)
		}
	}
	exe, err := os.Executable()
	if err != nil {
		return err
	}
	dir, err := os.MkdirTemp("", standInPrefix+strconv.Itoa(os.Getpid())+"-")
	if err != nil {
		return err
	}
	if err := os.Symlink(exe, filepath.Join(dir, "session-starter")); err != nil {
		return err
	}
	// A race-built stand-in would linger a second at exit.
	_ = os.Setenv("GORACE", "atexit_sleep_ms=0")
	_ = os.Setenv(standInVar, dir)
	return os.Setenv("PATH", dir+string(os.PathListSeparator)+os.Getenv("PATH"))
}

// TestMain: the test binary plays session-starter's gate and guard (its
// hidden modes) for the stand-in.
func TestMain(m *testing.M) {
	starter.RunHidden(os.Args)
	code := m.Run()
	if dir := os.Getenv(standInVar); dir != "" {
		os.RemoveAll(dir)
	}
	os.Exit(code)
}

// standIn is session-starter's command line, as far as launch.Start uses
// it: the flags of Options' fields, read as the command reads them.
func standIn(args []string) {
	o := starter.Options{}
	ack := false
	usage := func(format string, a ...any) {
		fmt.Fprintf(os.Stderr, "session-starter: "+format+"\n", a...)
		os.Exit(wire.ExitUsage)
	}
	for ; len(args) > 0 && args[0] != "--"; args = args[1:] {
		flag := args[0]
		if flag == "--ack" {
			ack = true
			continue
		}
		if len(args) < 2 {
			usage("%s: no value", flag)
		}
		value := args[1]
		args = args[1:]
		switch flag {
		case "--containment":
			o.Containment = launch.Containment(value) // Run refuses another
		case "--parent-pid", "--control-fd", "--status-fd":
			n, err := strconv.Atoi(value)
			if err != nil {
				usage("%s %q: %v", flag, value, err)
			}
			switch flag {
			case "--parent-pid":
				o.ParentPID = n
			case "--control-fd":
				o.ControlFD = n
			default:
				o.StatusFD = n
			}
		case "--grace", "--timeout", "--kill-budget":
			d, err := time.ParseDuration(value) // as Start writes it
			if err != nil || d < 0 {
				usage("%s %q: %v", flag, value, err)
			}
			switch flag {
			case "--grace":
				o.Grace = d
			case "--timeout":
				o.Timeout = d
			default:
				o.KillBudget = d
			}
		case "--stop-signal":
			sig, ok := sys.SignalByName(value)
			if !ok {
				usage("--stop-signal %q: not a signal", value)
			}
			o.StopSignal = sig
		default:
			usage("unknown flag %s", flag)
		}
	}
	if len(args) < 2 {
		usage("no PROGRAM given")
	}
	o.Argv = args[1:]
	exit.Apply(exit.Main(context.Background(), o, ack))
}

// launch launches opts and registers a cleanup that ends the session: a
// SIGKILL of session-starter, after which its guard ends the group.
func launchSession(t *testing.T, ctx context.Context, opts launch.Options) *launch.Session {
	t.Helper()
	s, err := launch.Start(ctx, opts)
	if err != nil {
		t.Fatalf("launch.Start(%q) = %v", opts.Argv, err)
	}
	t.Cleanup(func() {
		_ = s.Process.Kill()
		if _, err := s.Wait(); err != nil && !errors.Is(err, launch.ErrStopTimedOut) && !errors.Is(err, exec.ErrWaitDelay) {
			t.Error(err)
		}
		s.Stdout.Close()
	})
	return s
}

// waitSession waits for s, bounded, and checks that its group is empty.
func waitSession(t *testing.T, s *launch.Session) syscall.WaitStatus {
	t.Helper()
	done := make(chan struct{})
	var state *os.ProcessState
	var err error
	go func() {
		state, err = s.Wait()
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(testproc.TooLong):
		t.Fatalf("session-starter did not exit within %v; stderr: %s", testproc.TooLong, s.StderrTail())
	}
	if err != nil {
		t.Fatalf("Wait() = %v", err)
	}
	if live, err := proc.LiveMembers(s.PID); err != nil || len(live) != 0 {
		t.Fatalf("live members of group %d after Wait: %v, %v; want none", s.PID, live, err)
	}
	return state.Sys().(syscall.WaitStatus)
}

// readLine reads one line of the Engine's stdout, bounded.
func readLine(t *testing.T, f *os.File) string {
	t.Helper()
	_ = f.SetReadDeadline(time.Now().Add(testproc.TooLong))
	defer f.SetReadDeadline(time.Time{})
	var line []byte
	var b [1]byte
	for {
		if _, err := f.Read(b[:]); err != nil {
			t.Fatalf("read a line of the Engine's stdout: %v (got %q)", err, line)
		}
		if b[0] == '\n' {
			return string(line)
		}
		line = append(line, b[0])
	}
}

func TestLaunchHandsOverTheEnginesStdioAndItsStatus(t *testing.T) {
	s := launchSession(t, context.Background(), launch.Options{
		Argv: []string{"sh", "-c", `echo "first $$"; read l; echo "got $l"; exit 3`},
	})
	if s.PID <= 1 || (s.Mode != wire.ModeGroup && s.Mode != wire.ModeCgroup) {
		t.Fatalf("launch.Start() PID, Mode = %d, %q; want a PID and %q or %q", s.PID, s.Mode, wire.ModeGroup, wire.ModeCgroup)
	}
	if got, want := readLine(t, s.Stdout), fmt.Sprintf("first %d", s.PID); got != want {
		t.Fatalf("first Engine line = %q, want %q (the Engine's first bytes after the ack)", got, want)
	}
	fmt.Fprintln(s.Stdin, "hello")
	if got := readLine(t, s.Stdout); got != "got hello" {
		t.Fatalf("Engine answered %q, want %q", got, "got hello")
	}
	if ws := waitSession(t, s); !ws.Exited() || ws.ExitStatus() != 3 {
		t.Fatalf("Wait() status = %v, want exit 3", ws)
	}
}

func TestLaunchReportsAStarterThatExitedBeforeTheAck(t *testing.T) {
	_, err := launch.Start(context.Background(), launch.Options{Argv: []string{"no-such-engine-7f3a"}})
	var le *launch.Error
	if !errors.As(err, &le) || !errors.Is(err, launch.ErrNoAck) {
		t.Fatalf("launch.Start() error = %v, want a *launch.Error wrapping launch.ErrNoAck", err)
	}
	if le.ExitCode() != wire.ExitNotFound {
		t.Fatalf("launch.Error.ExitCode() = %d, want %d", le.ExitCode(), wire.ExitNotFound)
	}
	if !strings.Contains(le.Stderr, "no-such-engine-7f3a") || !strings.Contains(err.Error(), "exit status 127") {
		t.Fatalf("launch.Start() error = %q, want the exit status and the report naming the program", err)
	}
}

// fakeStarter writes an executable script to stand in for a binary that
// is not session-starter. Its last command is exec'd, so that the
// process launch.Start kills is the only one.
func fakeStarter(t *testing.T, script string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "fake-starter")
	if err := os.WriteFile(path, []byte("#!/bin/sh\n"+script+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestLaunchRejectsAFirstLineThatIsNotAnAck(t *testing.T) {
	tests := []struct{ name, line string }{
		{"text", "hello"},
		{"other JSON", `{"pid":1234,"mode":"group"}`},
		{"wrong version", `{"session_containment":2,"pid":1234,"mode":"group"}`},
		{"no mode", `{"session_containment":1,"pid":1234}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			bin := fakeStarter(t, "printf '%s\\n' '"+tt.line+"'; exec sleep 600")
			_, err := launch.Start(context.Background(), launch.Options{Binary: bin, Argv: []string{"true"}})
			var le *launch.Error
			if !errors.As(err, &le) || !errors.Is(err, launch.ErrMalformedAck) {
				t.Fatalf("launch.Start() error = %v, want launch.ErrMalformedAck", err)
			}
			if le.Line != tt.line {
				t.Fatalf("launch.Error.Line = %q, want %q", le.Line, tt.line)
			}
			if ws := le.State.Sys().(syscall.WaitStatus); !ws.Signaled() || ws.Signal() != syscall.SIGKILL {
				t.Fatalf("the fake starter ended with %v, want killed by launch.Start", le.State)
			}
		})
	}
}

func TestLaunchGivesUpAfterTheAckTimeout(t *testing.T) {
	bin := fakeStarter(t, "exec sleep 600")
	start := time.Now()
	_, err := launch.Start(context.Background(), launch.Options{Binary: bin, Argv: []string{"true"}, AckTimeout: 100 * time.Millisecond})
	var le *launch.Error
	if !errors.As(err, &le) || !errors.Is(err, launch.ErrAckTimeout) || le.State == nil {
		t.Fatalf("launch.Start() error = %v after %v, want launch.ErrAckTimeout with the fake starter reaped", err, time.Since(start))
	}
}

func TestLaunchEndsWhenItsContextEndsBeforeTheAck(t *testing.T) {
	bin := fakeStarter(t, "exec sleep 600")
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	_, err := launch.Start(ctx, launch.Options{Binary: bin, Argv: []string{"true"}})
	var le *launch.Error
	if !errors.As(err, &le) || !errors.Is(err, context.DeadlineExceeded) || le.State == nil {
		t.Fatalf("launch.Start() error = %v, want context.DeadlineExceeded with the fake starter reaped", err)
	}
}

func TestLaunchOfAMissingBinaryStartsNothing(t *testing.T) {
	_, err := launch.Start(context.Background(), launch.Options{Binary: filepath.Join(t.TempDir(), "none"), Argv: []string{"true"}})
	var le *launch.Error
	if !errors.As(err, &le) || !errors.Is(err, os.ErrNotExist) || le.State != nil {
		t.Fatalf("launch.Start() error = %v, want a start error wrapping os.ErrNotExist", err)
	}
}

// endedBySIGKILL waits for a session ended from outside and checks that the
// Engine's death by SIGKILL was mirrored and its group is empty.
func endedBySIGKILL(t *testing.T, s *launch.Session) {
	t.Helper()
	if ws := waitSession(t, s); !ws.Signaled() || ws.Signal() != syscall.SIGKILL {
		t.Fatalf("Wait() status = %v, want death by SIGKILL (mirrored); stderr: %s", ws, s.StderrTail())
	}
}

// engineWithChild is an Engine with a background child, which says
// "ready" once both run.
var engineWithChild = []string{"sh", "-c", `sleep 600 & echo ready; exec sleep 600`}

func TestClosingTheControlPipeEndsTheSession(t *testing.T) {
	s := launchSession(t, context.Background(), launch.Options{Argv: engineWithChild, ControlPipe: true})
	if s.Control == nil {
		t.Fatal("launch.Start() with ControlPipe: launch.Session.Control is nil")
	}
	readLine(t, s.Stdout)
	s.Control.Close()
	endedBySIGKILL(t, s)
}

// TestControlPipeFollowsTheExtraFiles: the Engine gets ExtraFiles at 3, …
// and the control descriptor is not among them.
func TestControlPipeFollowsTheExtraFiles(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	s := launchSession(t, context.Background(), launch.Options{
		Argv:        []string{"sh", "-c", `echo via3 >&3; [ -e /proc/$$/fd/4 ] && echo "fd 4 open" || echo "no fd 4"; exec sleep 600`},
		ExtraFiles:  []*os.File{w},
		ControlPipe: true,
	})
	w.Close()
	if got := readLine(t, r); got != "via3" {
		t.Fatalf("the Engine's fd 3 got %q, want via3", got)
	}
	if got := readLine(t, s.Stdout); got != "no fd 4" {
		t.Fatalf("the Engine says %q, want %q (4 is the control pipe)", got, "no fd 4")
	}
	s.Control.Close()
	endedBySIGKILL(t, s)
}

func TestStopEndsTheSession(t *testing.T) {
	s := launchSession(t, context.Background(), launch.Options{Argv: engineWithChild})
	readLine(t, s.Stdout)
	if err := s.Stop(); err != nil {
		t.Fatal(err)
	}
	endedBySIGKILL(t, s)
}

func TestTheEndOfTheContextEndsTheSession(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	s := launchSession(t, ctx, launch.Options{Argv: engineWithChild})
	readLine(t, s.Stdout)
	cancel()
	endedBySIGKILL(t, s)
}

// TestStderrIsDrainedToItsEndAndItsTailKept: the caller's writer gets all
// of stderr once Wait returns; the tail is the last 4 KiB.
func TestStderrIsDrainedToItsEndAndItsTailKept(t *testing.T) {
	var all bytes.Buffer
	s := launchSession(t, context.Background(), launch.Options{
		Argv:   []string{"sh", "-c", `i=0; while [ $i -lt 1000 ]; do echo "line $i" >&2; i=$((i+1)); done`},
		Stderr: &all,
	})
	if ws := waitSession(t, s); !ws.Exited() || ws.ExitStatus() != 0 {
		t.Fatalf("Wait() status = %v, want exit 0", ws)
	}
	var want strings.Builder
	for i := range 1000 {
		fmt.Fprintf(&want, "line %d\n", i)
	}
	if all.String() != want.String() {
		t.Fatalf("the caller's stderr writer got %d bytes, want %d", all.Len(), want.Len())
	}
	if tail, w := s.StderrTail(), want.String(); tail != w[len(w)-launch.TailSize:] {
		t.Fatalf("StderrTail() = %d bytes ending %q, want the last %d bytes", len(tail), tail[max(0, len(tail)-20):], launch.TailSize)
	}
}

// TestRequestEnvDoesNotReachTheEngine: a Go Engine that got it would
// become a starter of its own.
func TestRequestEnvDoesNotReachTheEngine(t *testing.T) {
	s := launchSession(t, context.Background(), launch.Options{
		Argv: []string{"sh", "-c", `echo "[${` + launch.RequestEnv + `-unset}]"`},
		Env:  append(os.Environ(), launch.RequestEnv+"=1"),
	})
	if got := readLine(t, s.Stdout); got != "[unset]" {
		t.Fatalf("the Engine saw %s=%s, want it unset", launch.RequestEnv, got)
	}
	waitSession(t, s)
}

func TestParseAck(t *testing.T) {
	tests := []struct {
		name, line string
		pid        int
		mode       string
	}{
		{"as written", string(exit.Ack(1234, "group")), 1234, "group"},
		{"without newline", `{"session_containment":1,"pid":1234,"mode":"cgroup"}`, 1234, "cgroup"},
		{"unknown keys", `{"session_containment":1,"pid":7,"mode":"group","guard":8}`, 7, "group"},
		{"empty", "", 0, ""},
		{"key order", `{"pid":1234,"session_containment":1,"mode":"group"}`, 0, ""},
		{"version 2", `{"session_containment":2,"pid":1234,"mode":"group"}`, 0, ""},
		{"version as string", `{"session_containment":"1","pid":1234,"mode":"group"}`, 0, ""},
		{"pid 1", `{"session_containment":1,"pid":1,"mode":"group"}`, 0, ""},
		{"negative pid", `{"session_containment":1,"pid":-5,"mode":"group"}`, 0, ""},
		{"pid as string", `{"session_containment":1,"pid":"1234","mode":"group"}`, 0, ""},
		{"fractional pid", `{"session_containment":1,"pid":12.5,"mode":"group"}`, 0, ""},
		{"huge pid", `{"session_containment":1,"pid":99999999999999999999,"mode":"group"}`, 0, ""},
		{"no pid", `{"session_containment":1,"mode":"group"}`, 0, ""},
		{"empty mode", `{"session_containment":1,"pid":1234,"mode":""}`, 0, ""},
		{"mode not a string", `{"session_containment":1,"pid":1234,"mode":1}`, 0, ""},
		{"trailing data", `{"session_containment":1,"pid":1234,"mode":"group"} x`, 0, ""},
		{"cut short", `{"session_containment":1,"pid":1234,"mo`, 0, ""},
		{"two lines", "{\"session_containment\":1,\"pid\":1234,\"mode\":\"group\"}\n\n", 0, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pid, mode, err := launch.ParseAck([]byte(tt.line))
			if pid != tt.pid || mode != tt.mode || (err == nil) != (tt.pid != 0) {
				t.Fatalf("launch.ParseAck(%q) = %d, %q, %v; want %d, %q", tt.line, pid, mode, err, tt.pid, tt.mode)
			}
		})
	}
}

// FuzzParseAck: an error comes with zero results, and what exit.Ack writes is
// read back.
func FuzzParseAck(f *testing.F) {
	f.Add([]byte(exit.Ack(1234, "group")), 1234, "group")
	f.Add([]byte(`{"session_containment":1,"pid":"x"}`), 2, "cgroup")
	f.Fuzz(func(t *testing.T, line []byte, pid int, mode string) {
		p, m, err := launch.ParseAck(line)
		if err != nil && (p != 0 || m != "") {
			t.Fatalf("launch.ParseAck(%q) = %d, %q, %v: results with an error", line, p, m, err)
		}
		if err == nil && (p <= 1 || m == "") {
			t.Fatalf("launch.ParseAck(%q) = %d, %q: accepted a bad ack", line, p, m)
		}
		if pid <= 1 || mode == "" || strings.ContainsFunc(mode, func(r rune) bool { return r < ' ' || r > '~' }) {
			return // exit.Ack quotes as Go does; JSON agrees on printable ASCII
		}
		if p, m, err := launch.ParseAck(exit.Ack(pid, mode)); err != nil || p != pid || m != mode {
			t.Fatalf("launch.ParseAck(exit.Ack(%d, %q)) = %d, %q, %v", pid, mode, p, m, err)
		}
	})
}

// TestOptionsReachSessionStarterAsItsFlags: each field of Options that is
// a flag is passed as that flag, in a form session-starter reads, before
// ExtraFlags and "--"; a zero field passes nothing.
func TestOptionsReachSessionStarterAsItsFlags(t *testing.T) {
	// A fake session-starter that acknowledges, then prints its arguments.
	bin := fakeStarter(t, "printf '%s' '"+string(exit.Ack(1234, "group"))+"'; printf '%s\\n' \"$@\"; exec sleep 600")
	pid := strconv.Itoa(os.Getpid())
	for _, tt := range []struct {
		name string
		opts launch.Options
		want []string
	}{
		{"zero", launch.Options{}, []string{"--ack", "--parent-pid", pid, "--", "engine"}},
		{"every flag", launch.Options{
			Ending:      launch.Ending{Grace: 90 * time.Second, StopSignal: syscall.SIGINT, KillBudget: 1500 * time.Millisecond},
			Timeout:     12 * time.Hour,
			Containment: launch.ContainCgroup,
			NoMark:      true,
			WatchStdin:  true,
			StdinGrace:  500 * time.Millisecond,
			ExtraFlags:  []string{"--log-level", "debug"},
		}, []string{"--ack", "--parent-pid", pid, "--grace", "1m30s", "--timeout", "12h0m0s", "--kill-budget", "1.5s",
			"--stop-signal", "2", "--containment", "cgroup", "--no-mark", "--watch-stdin", "--stdin-grace", "500ms", "--log-level", "debug", "--", "engine"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			opts := tt.opts
			opts.Binary, opts.Argv = bin, []string{"engine"}
			s := launchSession(t, context.Background(), opts)
			var got []string
			for range tt.want {
				got = append(got, readLine(t, s.Stdout))
			}
			if !slices.Equal(got, tt.want) {
				t.Fatalf("session-starter's arguments = %q, want %q", got, tt.want)
			}
		})
	}
}

// TestTheWaitDelayCoversTheEndAskedFor: with a grace and a kill budget
// the wait for session-starter's exit after a stop is their whole end
// plus five seconds, so a session still within its grace is not killed.
func TestTheWaitDelayCoversTheEndAskedFor(t *testing.T) {
	bin := fakeStarter(t, "printf '%s' '"+string(exit.Ack(1234, "group"))+"'; exec sleep 600")
	for _, tt := range []struct {
		name string
		opts launch.Options
		want time.Duration
	}{
		{"default", launch.Options{}, launch.DefaultWaitDelay},
		{"half a day of grace", launch.Options{Ending: launch.Ending{Grace: 12 * time.Hour}}, 12*time.Hour + launch.DefaultKillBudget + launch.EndSlack + 5*time.Second},
		{"grace and budget", launch.Options{Ending: launch.Ending{Grace: time.Minute, KillBudget: 2 * time.Second}}, time.Minute + 2*time.Second + launch.EndSlack + 5*time.Second},
		{"set by the caller", launch.Options{Ending: launch.Ending{Grace: time.Minute}, WaitDelay: time.Second}, time.Second},
	} {
		t.Run(tt.name, func(t *testing.T) {
			opts := tt.opts
			opts.Binary, opts.Argv = bin, []string{"engine"}
			s := launchSession(t, context.Background(), opts)
			if got := launch.WaitDelayOf(s); got != tt.want {
				t.Fatalf("wait delay = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestBadDurationsAreRefusedBeforeAnythingStarts(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "none") // nothing may be started
	for _, opts := range []launch.Options{
		{Ending: launch.Ending{Grace: -time.Second}},
		{Timeout: -1},
		{Ending: launch.Ending{KillBudget: -time.Hour}},
		{Timeout: launch.MaxDuration + 1},
		{StdinGrace: time.Second},
		// A grace Start could not see would not bound its wait.
		{ExtraFlags: []string{"--grace", "0.5d"}},
		{ExtraFlags: []string{"--kill-budget=1m"}},
	} {
		opts.Binary, opts.Argv = missing, []string{"engine"}
		_, err := launch.Start(context.Background(), opts)
		var le *launch.Error
		if !errors.As(err, &le) || le.State != nil || errors.Is(err, os.ErrNotExist) {
			t.Errorf("launch.Start(%+v) = %v; want an *launch.Error before starting anything", opts, err)
		}
	}
}

// TestReadEndedReadsTheSessionsEnd: with a status pipe, the ended record
// of a real session says how the Engine ended.
func TestReadEndedReadsTheSessionsEnd(t *testing.T) {
	s := launchSession(t, context.Background(), launch.Options{
		Argv:       []string{"sh", "-c", "exit 5"},
		StatusPipe: true,
	})
	defer s.Status.Close()
	ended, err := launch.ReadEnded(s.Status)
	if err != nil {
		t.Fatalf("launch.ReadEnded() = %v", err)
	}
	if ended.Event != "ended" || ended.Reason != "engine-exit" || !ended.Executed || ended.ExitCode == nil || *ended.ExitCode != 5 ||
		ended.Starter.ExitStatus != 5 {
		t.Fatalf("launch.ReadEnded() = %+v; want the Engine's exit 5", ended)
	}
	if ws := waitSession(t, s); ws.ExitStatus() != 5 {
		t.Fatalf("Wait() status = %v, want exit 5", ws)
	}
}

// TestACleanStopThroughTheContextIsNoError: an Engine that ends on the
// grace's stop signal and exits 0 has its exit 0 mirrored, and Wait
// reports no error: the end of the context is the stop asked for, not a
// failure to wait.
func TestACleanStopThroughTheContextIsNoError(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	s := launchSession(t, ctx, launch.Options{
		Argv:   []string{"sh", "-c", `trap 'exit 0' TERM; echo ready; while :; do sleep 0.05; done`},
		Ending: launch.Ending{Grace: testproc.TooLong},
	})
	readLine(t, s.Stdout)
	cancel()
	state, err := s.Wait()
	if err != nil || state == nil || !state.Success() {
		t.Fatalf("Wait() = %v, %v; want exit 0 and no error", state, err)
	}
}

// TestAStarterThatOutlivesTheWaitDelayIsKilledAndSaysSo: after the end of
// the context, a session-starter that has not exited within the wait
// delay is SIGKILLed (its guard ends the session), and Wait says so
// rather than pass its death by SIGKILL off as the Engine's.
func TestAStarterThatOutlivesTheWaitDelayIsKilledAndSaysSo(t *testing.T) {
	bin := fakeStarter(t, "trap '' TERM; printf '%s' '"+string(exit.Ack(1234, "group"))+"'; exec sleep 600")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	s := launchSession(t, ctx, launch.Options{Binary: bin, Argv: []string{"engine"}, WaitDelay: 100 * time.Millisecond})
	cancel()
	state, err := s.Wait()
	if !errors.Is(err, launch.ErrStopTimedOut) || state == nil {
		t.Fatalf("Wait() = %v, %v; want launch.ErrStopTimedOut", state, err)
	}
	if ws := state.Sys().(syscall.WaitStatus); !ws.Signaled() || ws.Signal() != syscall.SIGKILL {
		t.Fatalf("Wait() status = %v, want session-starter's death by SIGKILL", state)
	}
}

// TestStderrHeldPastTheExitIsClosedAfterTheWaitDelay: a process that
// keeps session-starter's stderr open after it exited (one that escaped
// the session) holds Wait for the wait delay only, and Wait says so.
func TestStderrHeldPastTheExitIsClosedAfterTheWaitDelay(t *testing.T) {
	// The holder ends by itself, 3 s later.
	bin := fakeStarter(t, "printf '%s' '"+string(exit.Ack(1234, "group"))+"'; sleep 3 >/dev/null & exit 0")
	s := launchSession(t, context.Background(), launch.Options{Binary: bin, Argv: []string{"engine"}, WaitDelay: 100 * time.Millisecond})
	start := time.Now()
	state, err := s.Wait()
	if !errors.Is(err, exec.ErrWaitDelay) || state == nil || !state.Success() {
		t.Fatalf("Wait() = %v, %v after %v; want exit 0 and exec.ErrWaitDelay", state, err, time.Since(start))
	}
	if d := time.Since(start); d >= 3*time.Second {
		t.Fatalf("Wait() took %v: it waited for the holder, not the wait delay", d)
	}
}

// isHidden reports whether arg selects a hidden mode.
func isHidden(arg string) bool {
	_, _, ok := wire.ParseHidden(arg)
	return ok
}
