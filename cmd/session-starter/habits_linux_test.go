package main

// Tests of launchers and habits met in the wild: how people type a
// command line, what odd descriptors, terminals and sizes they hand over.

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestTheFirstArgumentThatIsNotAFlagStartsProgram: `session-starter npm
// run dev`, typed as timeout, env or nohup are; everything from PROGRAM on
// is the Engine's, flags and "--" included.
func TestTheFirstArgumentThatIsNotAFlagStartsProgram(t *testing.T) {
	mark := newMark(t)
	s := start(t, mark, []string{"--ack", "sh", "-c", `echo "$@"; exit 3`, "sh", "--ack", "--", "-x"})
	s.ack()
	if got := s.line(); got != "--ack -- -x" {
		t.Fatalf("Engine's arguments = %q, want --ack -- -x", got)
	}
	wantExit(t, s.wait(), 3, s.stderr)
}

// TestDurationsAreTakenAsCoreutilsTimeoutTakesThem: bare seconds,
// fractions, one suffix s, m, h or d, Go's forms; --timeout 0 is no
// timeout and --grace 0 is SIGKILL at once.
func TestDurationsAreTakenAsCoreutilsTimeoutTakesThem(t *testing.T) {
	tests := []struct {
		name   string
		flags  []string
		script string
		want   int
		report string
	}{
		{"a fraction of a second", []string{"--timeout", ".2"}, "sleep 600 & wait", 124, "timed out after 200ms"},
		{"bare seconds", []string{"--timeout", "600", "--grace", "10"}, "exit 3", 3, ""},
		{"timeout 0 is no timeout", []string{"--timeout", "0"}, "exit 3", 3, ""},
		{"days and minutes", []string{"--timeout", "1d", "--grace", "1.5m", "--kill-budget", "20"}, "exit 3", 3, ""},
		{"Go's form", []string{"--timeout", "1h0m0s", "--grace", "1m30s"}, "exit 3", 3, ""},
		{"grace 0 is SIGKILL at once", []string{"--timeout", "0.2s", "--grace", "0"}, "trap '' TERM; sleep 600 & wait", 124, "timed out after 200ms"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			mark := newMark(t)
			s := start(t, mark, append(tt.flags, "--", "sh", "-c", tt.script))
			wantExit(t, s.wait(), tt.want, s.stderr)
			if !strings.Contains(s.stderr.String(), tt.report) {
				t.Fatalf("stderr = %q, want %q", s.stderr, tt.report)
			}
			noSurvivors(t, mark)
		})
	}
}

// closedPipe returns the write end of a pipe whose reader is gone, as a
// launcher leaves the stderr it stopped reading.
func closedPipe(t *testing.T) *os.File {
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	r.Close()
	t.Cleanup(func() { w.Close() })
	return w
}

func withStderr(f *os.File) startOpt { return func(c *exec.Cmd) { c.Stderr = f } }

// TestAClosedStderrCostsTheReportsNotTheSession: a launcher that stops
// reading stderr. Every diagnostic (at info the session end, at debug
// each step and each forwarded signal) fails with EPIPE, and the session
// goes on to mirror the Engine's status.
func TestAClosedStderrCostsTheReportsNotTheSession(t *testing.T) {
	for _, level := range []string{"info", "debug"} {
		t.Run(level, func(t *testing.T) {
			mark := newMark(t)
			s := start(t, mark, []string{"--ack", "--log-level", level, "--", "sh", "-c",
				`trap 'echo got USR1' USR1; echo ready; i=0; while ! read x && [ $i -lt 100 ]; do i=$((i+1)); done; exit 3`},
				withStderr(closedPipe(t)))
			s.ack()
			if got := s.line(); got != "ready" {
				t.Fatalf("Engine said %q, want ready", got)
			}
			s.signal(syscall.SIGUSR1)
			if got := s.line(); got != "got USR1" {
				t.Fatalf("Engine said %q, want got USR1", got)
			}
			if _, err := s.in.Write([]byte("x\n")); err != nil {
				t.Fatal(err)
			}
			wantExit(t, s.wait(), 3, s.stderr)
			noSurvivors(t, mark)
		})
	}
}

// TestAnEngineWritingToAClosedStderrDiesOfSIGPIPEAsADirectLaunchDoes:
// session-starter's own writes survive EPIPE without touching the SIGPIPE
// disposition the Engine gets.
func TestAnEngineWritingToAClosedStderrDiesOfSIGPIPEAsADirectLaunchDoes(t *testing.T) {
	script := `echo to-stderr >&2; exit 3`
	direct := exec.Command("sh", "-c", script)
	direct.Stderr = closedPipe(t)
	_ = direct.Run()
	want := direct.ProcessState.Sys().(syscall.WaitStatus)
	if !want.Signaled() || want.Signal() != syscall.SIGPIPE {
		t.Fatalf("direct launch ended with %s, want death by SIGPIPE (is SIGPIPE ignored here?)", statusString(want))
	}
	mark := newMark(t)
	s := start(t, mark, []string{"--log-level", "debug", "--", "sh", "-c", script}, withStderr(closedPipe(t)))
	wantSignal(t, s.wait(), syscall.SIGPIPE, s.stderr)
	noSurvivors(t, mark)
}

// TestAScriptWithoutAShebangRunsUnderShAsExecvpRunsIt: execve refuses it
// with ENOEXEC; env (an execvp caller) runs it with /bin/sh, found by path
// and by PATH alike, and so must session-starter.
func TestAScriptWithoutAShebangRunsUnderShAsExecvpRunsIt(t *testing.T) {
	dir := t.TempDir()
	script := filepath.Join(dir, "no-shebang")
	if err := os.WriteFile(script, []byte("echo \"ran as $0 with $*\"\nexit 5\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct{ name, program string }{{"by path", script}, {"by PATH", "no-shebang"}} {
		program := tt.program
		t.Run(tt.name, func(t *testing.T) {
			env := append(os.Environ(), "PATH="+dir+":"+os.Getenv("PATH"))
			direct := exec.Command("env", program, "a", "b")
			direct.Env = env
			want, _ := direct.Output()
			if direct.ProcessState.ExitCode() != 5 {
				t.Fatalf("env %s exited %d, want 5", program, direct.ProcessState.ExitCode())
			}
			mark := newMark(t)
			cmd := exec.Command(binary, "--ack", "--", program, "a", "b")
			cmd.Env = append(env, markVar+"="+mark)
			s := startCmd(t, mark, cmd)
			s.ack()
			if got := s.rest(); got != string(want) {
				t.Fatalf("the Engine wrote %q, want what env's run wrote: %q", got, want)
			}
			wantExit(t, s.wait(), 5, s.stderr)
		})
	}
}
