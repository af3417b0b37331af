package main

// Tests of launchers and habits met in the wild: how people type a
// command line, what odd descriptors, terminals and sizes they hand over.

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/session-starter/session-starter/internal/testproc"
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
// fractions, exponents, one suffix s, m, h or d, Go's forms; --timeout 0
// is no timeout and --grace 0 is SIGKILL at once. A positive timeout too
// small for a float64 or a nanosecond is 1ns, and fires at once.
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
		{"an exponent", []string{"--timeout", "2e-1", "--grace", "2.34e-5d"}, "sleep 600 & wait", 124, "timed out after 200ms"},
		{"grace 0 is SIGKILL at once", []string{"--timeout", "0.2s", "--grace", "0"}, "trap '' TERM; sleep 600 & wait", 124, "timed out after 200ms"},
		{"an underflow is not 0", []string{"--timeout", "1e-10000"}, "sleep 5 & wait", 124, "timed out after 1ns"},
		{"less than a nanosecond is not 0", []string{"--timeout", "0.1ns"}, "sleep 5 & wait", 124, "timed out after 1ns"},
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

// socketEnd returns one end of a socket pair of type typ, its other end
// kept open by the test: a launcher's.
func socketEnd(t *testing.T, typ int) *os.File {
	t.Helper()
	fds, err := unix.Socketpair(unix.AF_UNIX, typ|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	peer := os.NewFile(uintptr(fds[1]), "peer")
	end := os.NewFile(uintptr(fds[0]), "end")
	t.Cleanup(func() { peer.Close(); end.Close() })
	return end
}

// TestAControlDescriptorThatCouldNeverEndIsRefused: when a descriptor the
// launcher passed can write to the control pipe or FIFO (the control
// descriptor itself opened read-write, or the write end passed too), or is
// the other end of the control socket pair, the session could never end by
// it; a socket that is not a stream cannot tell its end of input (none
// comes on a datagram socket; an empty message reads as one): exit 2, the
// descriptor named, nothing run.
func TestAControlDescriptorThatCouldNeverEndIsRefused(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "control")
	if err := unix.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	keep := func(f *os.File) *os.File { t.Cleanup(func() { f.Close() }); return f }
	pipe := func() []*os.File {
		r, w, err := os.Pipe()
		if err != nil {
			t.Fatal(err)
		}
		return []*os.File{keep(r), keep(w)}
	}
	tests := []struct {
		name    string
		files   func() []*os.File
		message string
	}{
		{"a FIFO opened read-write", func() []*os.File {
			f, err := os.OpenFile(fifo, os.O_RDWR, 0) // exec 3<>fifo
			if err != nil {
				t.Fatal(err)
			}
			return []*os.File{keep(f)}
		}, "--control-fd 3: open for writing too"},
		{"both ends of a pipe", pipe, "--control-fd 3: descriptor 4 writes to the same pipe"},
		{"the write end as stdout", nil, "--control-fd 3: descriptor 1 writes to the same pipe"},
		{"both ends of a socket pair", func() []*os.File {
			fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
			if err != nil {
				t.Fatal(err)
			}
			return []*os.File{keep(os.NewFile(uintptr(fds[0]), "a")), keep(os.NewFile(uintptr(fds[1]), "b"))}
		}, "--control-fd 3: descriptor 4 is the other end of the same socket pair"},
		{"a datagram socket", func() []*os.File { return []*os.File{socketEnd(t, unix.SOCK_DGRAM)} }, "--control-fd 3: not a stream socket"},
		{"a SEQPACKET socket", func() []*os.File { return []*os.File{socketEnd(t, unix.SOCK_SEQPACKET)} }, "--control-fd 3: not a stream socket"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			cmd := exec.Command(binary, "--control-fd", "3", "--", "touch", "ran")
			cmd.Dir = dir
			if tt.files != nil {
				cmd.ExtraFiles = tt.files()
			} else {
				p := pipe()
				cmd.ExtraFiles, cmd.Stdout = p[:1], p[1]
			}
			var stderr lockedBuffer
			cmd.Stderr = &stderr
			done := make(chan struct{})
			go func() { _ = cmd.Run(); close(done) }()
			select {
			case <-done:
			case <-time.After(testproc.TooLong):
				_ = cmd.Process.Kill()
				<-done
				t.Fatalf("session-starter still ran after %v, want a usage error at start", testproc.TooLong)
			}
			if got := cmd.ProcessState.ExitCode(); got != 2 || !strings.Contains(stderr.String(), tt.message) {
				t.Fatalf("exit %d, stderr %q; want 2 and %q", got, &stderr, tt.message)
			}
			if _, err := os.Stat(filepath.Join(dir, "ran")); err == nil {
				t.Fatal("the Engine ran, want nothing executed")
			}
		})
	}
}

// readOnlyFIFO makes a FIFO and opens it as a launcher does: read-only
// without blocking (r, passed to session-starter), then for writing (w,
// the launcher's writer). The test ends both.
func readOnlyFIFO(t *testing.T) (r, w *os.File) {
	t.Helper()
	fifo := filepath.Join(t.TempDir(), "control")
	if err := unix.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	r, err := os.OpenFile(fifo, os.O_RDONLY|unix.O_NONBLOCK, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	if w, err = os.OpenFile(fifo, os.O_WRONLY, 0); err != nil {
		t.Fatal(err)
	}
	return r, w
}

// TestAFIFOOpenedReadOnlyEndsTheSessionWhenItsWriterCloses: the FIFO a
// launcher opens read-only (without blocking) is a control descriptor like
// a pipe.
func TestAFIFOOpenedReadOnlyEndsTheSessionWhenItsWriterCloses(t *testing.T) {
	r, w := readOnlyFIFO(t)
	defer w.Close()
	mark := newMark(t)
	s := start(t, mark, []string{"--ack", "--control-fd", "3", "--", "sh", "-c", "echo ready; sleep 600 & wait"}, withExtraFiles(r))
	s.ack()
	if got := s.line(); got != "ready" {
		t.Fatalf("Engine said %q, want ready", got)
	}
	w.Close()
	wantSignal(t, s.wait(), syscall.SIGKILL, s.stderr)
	noSurvivors(t, mark)
}

// TestAnEngineCommandLineAtTheLimitOfSessionStartersOwnStarts measures
// ARG_MAX as the kernel applies it: the largest command line with which
// session-starter itself can still be executed, found by trying. The
// Engine, whose command line is that one less session-starter's own
// arguments, must start with it.
func TestAnEngineCommandLineAtTheLimitOfSessionStartersOwnStarts(t *testing.T) {
	mark := newMark(t)
	const chunk = 100_000 // below MAX_ARG_STRLEN, 128 KiB per string
	filler := strings.Repeat("x", chunk)
	// args returns a command line whose Engine is `true` with n bytes of
	// arguments; its size grows with n.
	args := func(n int) []string {
		a := []string{"--", "true"}
		for ; n > chunk; n -= chunk {
			a = append(a, filler)
		}
		if n > 0 {
			a = append(a, filler[:n])
		}
		return a
	}
	// try runs session-starter with n bytes of arguments for the Engine:
	// false when it could not be executed at all (E2BIG), else its status.
	try := func(n int) (syscall.WaitStatus, bool) {
		cmd := exec.Command(binary, args(n)...)
		cmd.Env = append(os.Environ(), markVar+"="+mark)
		var stderr lockedBuffer
		cmd.Stderr = &stderr
		if err := cmd.Start(); err != nil {
			if !errors.Is(err, syscall.E2BIG) {
				t.Fatalf("start session-starter with %d bytes of arguments: %v, want success or E2BIG", n, err)
			}
			return 0, false
		}
		s := &session{t: t, cmd: cmd, stderr: &stderr}
		return s.wait(), true
	}
	// The kernel's limit is at most 6 MiB (three quarters of _STK_LIM);
	// 8 MiB of arguments never fits.
	lo, hi := 0, 8<<20
	if _, ok := try(hi); ok {
		t.Fatalf("session-starter could be executed with %d bytes of arguments; want E2BIG", hi)
	}
	for hi-lo > 1 { // about 23 rounds
		mid := lo + (hi-lo)/2
		if _, ok := try(mid); ok {
			lo = mid
		} else {
			hi = mid
		}
	}
	ws, ok := try(lo)
	if !ok {
		t.Fatalf("session-starter could be executed with %d bytes of arguments, then not", lo)
	}
	if !ws.Exited() || ws.ExitStatus() != 0 {
		t.Fatalf("with the largest command line session-starter can be executed with (%d bytes of Engine arguments), it ended with %s, want exit 0 from the Engine", lo, statusString(ws))
	}
	noSurvivors(t, mark)
}

// TestTheEngineCannotCallSetsidButSetsidWForksAndWaits pins a limit of
// leading group E: setsid() in the Engine fails with EPERM; `setsid -w`,
// the documented way out, forks, waits, and passes the status on.
func TestTheEngineCannotCallSetsidButSetsidWForksAndWaits(t *testing.T) {
	python := needTool(t, "python3")
	setsid := needTool(t, "setsid")
	mark := newMark(t)
	s := start(t, mark, []string{"--", python, "-c", "import os, sys\ntry:\n    os.setsid()\nexcept PermissionError:\n    sys.exit(7)"})
	wantExit(t, s.wait(), 7, s.stderr)

	// The child leads a session of its own: field 6 of its stat is its PID.
	s = start(t, mark, []string{"--", setsid, "-w", "sh", "-c", `[ "$(cut -d' ' -f6 /proc/$$/stat)" = "$$" ] && exit 5`})
	wantExit(t, s.wait(), 5, s.stderr)
	noSurvivors(t, mark)
}

// TestAnEngineThatKillsTheGuardAndTheStarterEscapes pins the limit of the
// threat model: the Engine runs as the launcher's user, so an Engine that
// means to escape can stop the starter, SIGKILL the guard and then the
// starter, and nothing ends it.
func TestAnEngineThatKillsTheGuardAndTheStarterEscapes(t *testing.T) {
	mark := newMark(t)
	s := start(t, mark, []string{"--ack", "--", "sh", "-c", `read g; kill -STOP $PPID; kill -KILL $g $PPID; echo escaped; exec sleep 600`})
	engine := s.ack()
	guard := guardOf(t, s.cmd.Process.Pid)
	guardFD, err := unixPidfdOpen(guard)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Close(guardFD)
	if _, err := s.in.Write([]byte(strconv.Itoa(guard) + "\n")); err != nil {
		t.Fatal(err)
	}
	if got := s.line(); got != "escaped" {
		t.Fatalf("Engine said %q, want escaped", got)
	}
	wantSignal(t, s.wait(), syscall.SIGKILL, s.stderr)
	awaitExit(t, guardFD, "the guard must be dead")
	// Nothing of session-starter's is left to end the Engine.
	if killed := killMarked(mark); !slices.Contains(killed, engine) {
		t.Fatalf("live processes of the session after the starter and the guard died: %v, want the Engine %d among them", killed, engine)
	}
	noSurvivors(t, mark)
}

// TestAnUndrainedStderrDoesNotHoldTheExit: a launcher that reads its end
// of standard error only later (here: never, the pipe full) does not keep
// session-starter alive, during the session or after its end: its final
// report, and each diagnostic (debug: a dozen lines), is dropped after a
// short wait, and the exit status is what it would be.
func TestAnUndrainedStderrDoesNotHoldTheExit(t *testing.T) {
	for _, tt := range []struct{ name, level string }{{"the final report", "warn"}, {"diagnostics", "debug"}} {
		t.Run(tt.name, func(t *testing.T) {
			r, w, err := os.Pipe()
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			defer w.Close()
			// Fill the pipe: writes fail with EAGAIN once it is full. (Fd,
			// once: each call of it makes the descriptor blocking again.)
			fd := int(w.Fd())
			if err := unix.SetNonblock(fd, true); err != nil {
				t.Fatal(err)
			}
			chunk := make([]byte, 4096)
			for {
				if _, err := unix.Write(fd, chunk); err != nil {
					break
				}
			}
			if err := unix.SetNonblock(fd, false); err != nil {
				t.Fatal(err)
			}
			mark := newMark(t)
			cmd := exec.Command(binary, "--log-level", tt.level, "--timeout", "0.1", "--", "sleep", "600")
			cmd.Env = append(os.Environ(), markVar+"="+mark)
			cmd.Stderr = w
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			done := make(chan error, 1)
			go func() { done <- cmd.Wait() }()
			select {
			case err := <-done:
				var ee *exec.ExitError
				if !errors.As(err, &ee) || ee.ExitCode() != 124 {
					t.Fatalf("session-starter: %v, want exit 124 (the timeout)", err)
				}
			case <-time.After(testproc.TooLong):
				_ = cmd.Process.Kill()
				<-done
				t.Fatalf("session-starter still ran %v after its session's end: what it wrote to a full stderr held it", testproc.TooLong)
			}
			noSurvivors(t, mark)
		})
	}
}

// TestAFIFOWhoseWriterClosedBeforeTheStartEndsTheSession: the launcher
// opened the FIFO for reading, its writer came and went before
// session-starter started (the hang-up happened already): the session
// ends by it at once, as with an anonymous pipe, with nothing executed.
// A reopening of the FIFO made after the writer left would never see
// the hang-up (Linux keeps a reader opened without a writer from seeing
// the end of writers it never saw).
func TestAFIFOWhoseWriterClosedBeforeTheStartEndsTheSession(t *testing.T) {
	r, w := readOnlyFIFO(t)
	w.Close()
	mark := newMark(t)
	dir := t.TempDir()
	s := start(t, mark, []string{"--control-fd", "3", "--", "sh", "-c", `echo > ran; sleep 600`}, withExtraFiles(r), withDir(dir))
	if st := s.wait(); !st.Exited() || st.ExitStatus() != 125 {
		t.Fatalf("session-starter: %v, want exit 125 (control EOF before the go-ahead); stderr:\n%s", st, s.stderr)
	}
	if fileExists(filepath.Join(dir, "ran")) {
		t.Fatal("the Engine ran")
	}
	noSurvivors(t, mark)
}
