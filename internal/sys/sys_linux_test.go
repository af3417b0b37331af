package sys

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/session-starter/session-starter/internal/testproc"
)

func init() {
	// catch-usr1: say "ready" once SIGUSR1 is caught, then "trapped" when
	// it comes, and exit 0; exit 6 if it does not come within testproc.TooLong.
	testproc.Register("catch-usr1", func([]string) int {
		c := make(chan os.Signal, 1)
		signal.Notify(c, syscall.SIGUSR1)
		fmt.Println("ready")
		select {
		case <-c:
			fmt.Println("trapped")
			return 0
		case <-time.After(testproc.TooLong):
			return 6
		}
	})
	// trace PID D: trace PID (PTRACE_SEIZE), say "seized", and wait D
	// before waiting for its exit as its tracer; exit 0 once it has seen
	// that exit, 7 if PID cannot be traced.
	testproc.Register("trace", func(args []string) int {
		pid, _ := strconv.Atoi(args[0])
		d, _ := time.ParseDuration(args[1])
		runtime.LockOSThread() // ptrace requests come from the thread that seized
		if err := unix.PtraceSeize(pid); err != nil {
			fmt.Println("seize:", err)
			return 7
		}
		fmt.Println("seized")
		time.Sleep(d)
		for deadline := time.Now().Add(testproc.TooLong); time.Now().Before(deadline); {
			var ws unix.WaitStatus
			got, err := unix.Wait4(pid, &ws, unix.WALL, nil)
			if err == unix.EINTR {
				continue
			}
			if err != nil || got != pid {
				fmt.Println("wait4:", got, err)
				return 8
			}
			if ws.Exited() || ws.Signaled() {
				return 0
			}
			// A stop reported to the tracer: let the tracee go on.
			_ = unix.PtraceCont(pid, 0)
		}
		return 9
	})
}

// corePatternIsAFile reports whether the kernel writes core files into the
// crashing process's working directory, where the tests look for them.
func corePatternIsAFile(t *testing.T) bool {
	t.Helper()
	b, err := os.ReadFile("/proc/sys/kernel/core_pattern")
	if err != nil {
		t.Fatal(err)
	}
	p := strings.TrimSpace(string(b))
	return p != "" && !strings.HasPrefix(p, "|") && !strings.Contains(p, "/")
}

// Control for TestDieEndsTheProcessByEveryDeadlySignalWithoutCoreOrTraceback:
// a process that dies of SEGV with RLIMIT_CORE raised leaves a core file
// in its working directory here, so finding none after Die means
// something.
func TestACrashWithCoreDumpsEnabledLeavesACoreFile(t *testing.T) {
	if !corePatternIsAFile(t) {
		t.Skip("core_pattern does not write into the working directory")
	}
	dir := t.TempDir()
	cmd := exec.Command("/bin/sh", "-c", "ulimit -c unlimited && kill -SEGV $$")
	cmd.Dir = dir
	err := cmd.Run()
	ws, _ := cmd.ProcessState.Sys().(syscall.WaitStatus)
	if !ws.Signaled() || ws.Signal() != syscall.SIGSEGV || !ws.CoreDump() {
		t.Fatalf("sh killing itself with SEGV: %v (status %#x), want signal SEGV with core dump", err, ws)
	}
	if names := dirNames(t, dir); len(names) == 0 {
		t.Fatalf("no core file in %s after a core dump", dir)
	}
}

// child is a process started with a pidfd by ForkExec, as the starter
// starts the gate.
type child struct {
	pid, pidfd int
	reaped     bool
}

// startChild starts argv in its own process group with a pidfd; cleanup
// kills it through the pidfd and reaps it unless the test reaped it.
func startChild(t *testing.T, dir string, stdin, stdout uintptr, argv ...string) *child {
	t.Helper()
	return startChildEnv(t, dir, nil, stdin, stdout, argv...)
}

// startChildEnv is startChild with extra environment variables.
func startChildEnv(t *testing.T, dir string, env []string, stdin, stdout uintptr, argv ...string) *child {
	t.Helper()
	null, err := os.OpenFile(os.DevNull, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer null.Close()
	if stdin == 0 {
		stdin = null.Fd()
	}
	if stdout == 0 {
		stdout = null.Fd()
	}
	pidfd := -1
	attr := &syscall.ProcAttr{
		Dir:   dir,
		Env:   append([]string{"PATH=/usr/bin:/bin"}, env...),
		Files: []uintptr{stdin, stdout, null.Fd()},
		Sys:   &syscall.SysProcAttr{Setpgid: true, PidFD: &pidfd},
	}
	pid, err := syscall.ForkExec(argv[0], argv, attr)
	if err != nil {
		t.Fatalf("ForkExec(%v) = %v", argv, err)
	}
	if pidfd < 0 {
		t.Fatalf("ForkExec(%v) gave no pidfd", argv)
	}
	c := &child{pid: pid, pidfd: pidfd}
	t.Cleanup(func() {
		if !c.reaped {
			// SAFETY: the pidfd names this process only, reaped or not.
			_ = PidfdSignal(c.pidfd, syscall.SIGKILL)
			_, _ = ReapWithin(c.pidfd, testproc.TooLong)
		}
		_ = Close(c.pidfd)
	})
	return c
}

func (c *child) reap(t *testing.T) WaitStatus {
	t.Helper()
	ws, err := ReapWithin(c.pidfd, testproc.TooLong)
	c.reaped = true
	if err != nil {
		t.Fatalf("Reap(pid %d) = %v", c.pid, err)
	}
	ws.CPU = 0 // how it ended is compared; the CPU time has its own test
	return ws
}

// TestAReapReportsTheCPUTimeOfTheChildAndOfWhatItReaped: a shell that
// waits for a grandchild burning CPU is reaped with the grandchild's time
// in its rusage.
func TestAReapReportsTheCPUTimeOfTheChildAndOfWhatItReaped(t *testing.T) {
	c := startChild(t, "", 0, 0, "/bin/sh", "-c", `sh -c 'i=0; while [ $i -lt 300000 ]; do i=$((i+1)); done' & wait`)
	ws, err := ReapWithin(c.pidfd, testproc.TooLong)
	c.reaped = true
	if err != nil {
		t.Fatal(err)
	}
	if ws.CPU < 50*time.Millisecond {
		t.Errorf("CPU of a shell that waited for 300,000 loops of a child: %v, want at least 50ms", ws.CPU)
	}
	cpu, reaped, err := ReapIfExited(c.pid)
	if err == nil || reaped || cpu != 0 {
		t.Errorf("ReapIfExited of a child reaped already = %v, %v, %v; want an error", cpu, reaped, err)
	}
}

// TestAReapOfATracedChildWaitsForItsTracer: a traced child (strace -f)
// that has exited is readable at once, but waitable by its parent only
// once its tracer has waited for it; the reap waits for that, within its
// bound, rather than report the child still running.
func TestAReapOfATracedChildWaitsForItsTracer(t *testing.T) {
	c := startChild(t, t.TempDir(), 0, 0, "/bin/sleep", "600")
	tracer := helperCommand(t, "trace", strconv.Itoa(c.pid), "300ms")
	out, err := tracer.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := tracer.Start(); err != nil {
		t.Fatal(err)
	}
	line, _ := bufio.NewReader(out).ReadString('\n')
	if line != "seized\n" {
		_ = tracer.Wait()
		t.Skipf("cannot trace a child here: %q", line)
	}
	if err := PidfdSignal(c.pidfd, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	ws := c.reap(t)
	if ws.Exited || ws.Signal != syscall.SIGKILL {
		t.Fatalf("reaped %v, want signal KILL", ws)
	}
	if err := tracer.Wait(); err != nil {
		t.Fatalf("tracer: %v", err)
	}
}

// waitExit blocks until the child has ended, without reaping it.
func (c *child) waitExit(t *testing.T) {
	t.Helper()
	fds := []unix.PollFd{{Fd: int32(c.pidfd), Events: unix.POLLIN}}
	n, err := Poll(fds, testproc.TooLong)
	if err != nil || n != 1 {
		t.Fatalf("Poll(pidfd of %d) = %d, %v; want 1, nil", c.pid, n, err)
	}
}

// procState reads the state letter of /proc/PID/stat, the field after the
// ")" that ends the command name. (Package proc, which reads the file in
// full, imports this package, so its test cannot use it.)
func procState(t *testing.T, pid int) byte {
	t.Helper()
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		t.Fatal(err)
	}
	i := bytes.LastIndexByte(b, ')')
	if i < 0 || i+2 >= len(b) {
		t.Fatalf("/proc/%d/stat: %q", pid, b)
	}
	return b[i+2]
}

func TestPeekDoesNotReapAndReapDoes(t *testing.T) {
	c := startChild(t, "", 0, 0, "/bin/sh", "-c", "exit 7")
	c.waitExit(t)
	want := WaitStatus{Exited: true, Code: 7}
	for i := range 2 {
		ws, done, err := Peek(c.pidfd)
		if err != nil || !done || ws != want {
			t.Fatalf("Peek #%d = %+v, %v, %v; want %+v, true, nil", i+1, ws, done, err, want)
		}
	}
	if state := procState(t, c.pid); state != 'Z' {
		t.Fatalf("state of %d after Peek = %q; want Z", c.pid, state)
	}
	if ws := c.reap(t); ws != want {
		t.Fatalf("Reap = %+v, want %+v", ws, want)
	}
	if ws, done, err := Peek(c.pidfd); err == nil {
		t.Fatalf("Peek after Reap = %+v, %v, nil; want an error", ws, done)
	} else if !errors.Is(err, unix.ECHILD) {
		t.Fatalf("Peek after Reap error = %v, want ECHILD", err)
	}
	if err := PidfdSignal(c.pidfd, 0); !errors.Is(err, ErrGone) {
		t.Fatalf("PidfdSignal after Reap = %v, want ErrGone", err)
	}
}

func TestPeekOfARunningChildReportsNothing(t *testing.T) {
	c := startChild(t, "", 0, 0, "/bin/sleep", "60")
	ws, done, err := Peek(c.pidfd)
	if err != nil || done || ws != (WaitStatus{}) {
		t.Fatalf("Peek(running) = %+v, %v, %v; want zero, false, nil", ws, done, err)
	}
	// A zombie still takes signals through its pidfd; only a reaped
	// process is gone.
	if err := PidfdSignal(c.pidfd, syscall.SIGKILL); err != nil {
		t.Fatalf("PidfdSignal(SIGKILL) = %v", err)
	}
	c.waitExit(t)
	if err := PidfdSignal(c.pidfd, 0); err != nil {
		t.Fatalf("PidfdSignal(zombie, 0) = %v, want nil", err)
	}
	if ws := c.reap(t); ws != (WaitStatus{Signal: syscall.SIGKILL}) {
		t.Fatalf("Reap = %+v, want death by KILL", ws)
	}
}

func TestStatusOfReportsExitCodesAndSignals(t *testing.T) {
	tests := []struct {
		name   string
		script string
		want   WaitStatus
		text   string
	}{
		{"exit 0", "exit 0", WaitStatus{Exited: true, Code: 0}, "exit status 0"},
		{"exit 1", "exit 1", WaitStatus{Exited: true, Code: 1}, "exit status 1"},
		{"exit 42", "exit 42", WaitStatus{Exited: true, Code: 42}, "exit status 42"},
		{"exit 255", "exit 255", WaitStatus{Exited: true, Code: 255}, "exit status 255"},
		{"killed by TERM", "kill -TERM $$", WaitStatus{Signal: syscall.SIGTERM}, "signal TERM"},
		{"killed by USR1", "kill -USR1 $$", WaitStatus{Signal: syscall.SIGUSR1}, "signal USR1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := startChild(t, "", 0, 0, "/bin/sh", "-c", tt.script)
			c.waitExit(t)
			peeked, done, err := Peek(c.pidfd)
			if err != nil || !done || peeked != tt.want {
				t.Fatalf("Peek = %+v, %v, %v; want %+v, true, nil", peeked, done, err, tt.want)
			}
			ws := c.reap(t)
			if ws != tt.want {
				t.Fatalf("Reap = %+v, want %+v", ws, tt.want)
			}
			if ws.String() != tt.text {
				t.Fatalf("WaitStatus.String() = %q, want %q", ws.String(), tt.text)
			}
		})
	}
}

func TestStatusOfReportsACoreDump(t *testing.T) {
	if !corePatternIsAFile(t) {
		t.Skip("core_pattern does not write into the working directory")
	}
	c := startChild(t, t.TempDir(), 0, 0, "/bin/sh", "-c", "ulimit -c unlimited && kill -SEGV $$")
	want := WaitStatus{Signal: syscall.SIGSEGV, CoreDumped: true}
	if ws := c.reap(t); ws != want || ws.String() != "signal SEGV (core dumped)" {
		t.Fatalf("Reap = %+v (%q), want %+v", ws, ws, want)
	}
}

// The group signal goes through the leader's pid object, so it still
// reaches a member after the leader was reaped, and reports ErrGone once
// the group has no member left.
func TestPidfdSignalGroupReachesAMemberAfterTheLeaderWasReaped(t *testing.T) {
	inR, inW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { inR.Close(); inW.Close(); outR.Close(); outW.Close() })
	// The leader starts the member and waits for its stdin to close. The
	// member is this binary as the helper "catch-usr1", whose output proves
	// that our signal reached it. (A shell member with a trap would need a
	// child to wait on, and a child forked but not yet exec'd runs the
	// shell's handler, which swallows the signal.)
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	env := []string{testproc.HelperEnv(t, "catch-usr1"), "GORACE=atexit_sleep_ms=0"}
	// Asked before the member starts: without the group signal the
	// cleanup below could not end it.
	if !GroupSignalSupported() {
		// CI's own machine runs Linux 6.18; scripts/vm/run's guests (its
		// variable set) run older kernels too.
		if os.Getenv("CI") == "true" && os.Getenv("SESSION_STARTER_TEST_VM") != "1" {
			t.Fatalf("PidfdSignalGroup: %v (this machine runs Linux 6.18)", ErrNoGroupSignal)
		}
		t.Skipf("PidfdSignalGroup: %v", ErrNoGroupSignal)
	}
	leader := startChildEnv(t, "", env, inR.Fd(), outW.Fd(), "/bin/sh", "-c", `"$1" & read x; exit 0`, "leader", exe)
	t.Cleanup(func() {
		// SAFETY: the pidfd names the group the leader led, and only that
		// group, however its number is reused.
		_ = PidfdSignalGroup(leader.pidfd, syscall.SIGKILL)
	})
	inR.Close()
	outW.Close()
	out := bufio.NewReader(outR)
	if line, err := out.ReadString('\n'); err != nil || line != "ready\n" {
		t.Fatalf("read from member = %q, %v; want %q", line, err, "ready\n")
	}
	inW.Close() // the leader's read ends: it exits
	if ws := leader.reap(t); ws != (WaitStatus{Exited: true}) {
		t.Fatalf("Reap(leader) = %+v, want exit status 0", ws)
	}

	err = PidfdSignalGroup(leader.pidfd, syscall.SIGUSR1)
	if err != nil {
		t.Fatalf("PidfdSignalGroup(USR1) after the leader was reaped = %v, want nil", err)
	}
	if line, err := out.ReadString('\n'); err != nil || line != "trapped\n" {
		t.Fatalf("read from member = %q, %v; want %q", line, err, "trapped\n")
	}
	// EOF: the member has ended.
	if rest, err := io.ReadAll(out); err != nil || len(rest) > 0 {
		t.Fatalf("read to EOF = %q, %v; want nothing", rest, err)
	}
	// Their zombies are PID 1's now, and still count until it reaps them.
	deadline := time.Now().Add(testproc.TooLong)
	for {
		err = PidfdSignalGroup(leader.pidfd, 0)
		if errors.Is(err, ErrGone) {
			break
		}
		if err != nil {
			t.Fatalf("PidfdSignalGroup(0) = %v, want nil or ErrGone", err)
		}
		if time.Now().After(deadline) {
			t.Fatalf("PidfdSignalGroup(0) still nil after %v, want ErrGone", testproc.TooLong)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func TestPidfdSignalGroupOfAnEmptyGroupIsGone(t *testing.T) {
	c := startChild(t, "", 0, 0, "/bin/true")
	c.waitExit(t)
	// The zombie leader still is a member.
	if err := PidfdSignalGroup(c.pidfd, 0); errors.Is(err, ErrNoGroupSignal) {
		t.Skipf("PidfdSignalGroup: %v", err)
	} else if err != nil {
		t.Fatalf("PidfdSignalGroup(zombie leader, 0) = %v, want nil", err)
	}
	c.reap(t)
	if err := PidfdSignalGroup(c.pidfd, 0); !errors.Is(err, ErrGone) {
		t.Fatalf("PidfdSignalGroup(reaped, 0) = %v, want ErrGone", err)
	}
}

func TestPidfdOpenOfAMissingPIDIsGone(t *testing.T) {
	b, err := os.ReadFile("/proc/sys/kernel/pid_max")
	if err != nil {
		t.Fatal(err)
	}
	pidMax, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		t.Fatal(err)
	}
	// No process has a PID of pid_max or more.
	if fd, err := PidfdOpen(pidMax); !errors.Is(err, ErrGone) {
		if err == nil {
			Close(fd)
		}
		t.Fatalf("PidfdOpen(pid_max) = %d, %v; want ErrGone", fd, err)
	}
}

func TestSignalNamesRoundTrip(t *testing.T) {
	for sig, name := range signalNames {
		if got := SignalName(sig); got != name {
			t.Errorf("SignalName(%d) = %q, want %q", sig, got, name)
		}
		for _, s := range []string{name, "SIG" + name, strings.ToLower(name), "sig" + strings.ToLower(name), "Sig" + name} {
			if got, ok := SignalByName(s); !ok || got != sig {
				t.Errorf("SignalByName(%q) = %d, %v; want %d, true", s, got, ok, sig)
			}
		}
	}
}

func TestLinuxsOwnDeadlySignalsHaveTheirNames(t *testing.T) {
	for sig, want := range map[syscall.Signal]string{unix.SIGSTKFLT: "STKFLT", unix.SIGIO: "IO", unix.SIGPWR: "PWR"} {
		if got := SignalName(sig); got != want {
			t.Errorf("SignalName(%d) = %q, want %q", sig, got, want)
		}
	}
}

func TestSignalNumbersRoundTrip(t *testing.T) {
	for n := 1; n <= 64; n++ {
		sig := syscall.Signal(n)
		if got, ok := SignalByName(strconv.Itoa(n)); !ok || got != sig {
			t.Errorf("SignalByName(%q) = %d, %v; want %d, true", strconv.Itoa(n), got, ok, n)
		}
		name := SignalName(sig)
		if got, ok := SignalByName(name); !ok || got != sig {
			t.Errorf("SignalByName(SignalName(%d) = %q) = %d, %v; want %d, true", n, name, got, ok, n)
		}
	}
}

func TestSignalByNameRejectsJunk(t *testing.T) {
	for _, s := range []string{
		"", "SIG", "sig", "FOO", "SIGFOO", "SIGSIGTERM", "TERM ", " TERM", "TE RM",
		"0", "65", "-1", "+15", "015", "15x", "1.5", " 15", "15 ", "0x0f", "SIG15",
		"99999999999999999999",
	} {
		if got, ok := SignalByName(s); ok {
			t.Errorf("SignalByName(%q) = %d, true; want false", s, got)
		}
	}
}

// Poll must not return EINTR: signals that reach its thread interrupt
// poll(2) even under SA_RESTART. SIGURG is the Go runtime's own preemption
// signal, so sending it to our own thread is harmless.
func TestPollWaitsOutItsTimeoutThroughSignals(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close(); w.Close() })
	const timeout = 300 * time.Millisecond
	type result struct {
		n       int
		err     error
		elapsed time.Duration
	}
	tids := make(chan int, 1)
	done := make(chan result, 1)
	go func() {
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		tids <- unix.Gettid()
		start := time.Now()
		n, err := Poll([]unix.PollFd{{Fd: int32(r.Fd()), Events: unix.POLLIN}}, timeout)
		done <- result{n, err, time.Since(start)}
	}()
	tid := <-tids
	sent := 0
	var res result
loop:
	for range 1000 { // bounded: at most 1000 signals, 1 ms apart
		select {
		case res = <-done:
			break loop
		default:
		}
		if err := unix.Tgkill(os.Getpid(), tid, syscall.SIGURG); err == nil {
			sent++
		}
		time.Sleep(time.Millisecond)
	}
	if sent == 0 {
		t.Fatal("sent no signal")
	}
	if res == (result{}) {
		select {
		case res = <-done:
		case <-time.After(testproc.TooLong):
			t.Fatalf("Poll(%v) did not return within %v", timeout, testproc.TooLong)
		}
	}
	if res.err != nil || res.n != 0 {
		t.Fatalf("Poll(idle pipe, %v) = %d, %v; want 0, nil", timeout, res.n, res.err)
	}
	if res.elapsed < timeout {
		t.Fatalf("Poll(idle pipe, %v) returned after %v, want the whole timeout", timeout, res.elapsed)
	}
	t.Logf("%d signals sent during Poll", sent)
}

func TestPollReportsAReadyDescriptor(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close(); w.Close() })
	if _, err := w.Write([]byte("x")); err != nil {
		t.Fatal(err)
	}
	fds := []unix.PollFd{{Fd: int32(r.Fd()), Events: unix.POLLIN}}
	n, err := Poll(fds, -1)
	if err != nil || n != 1 || fds[0].Revents&unix.POLLIN == 0 {
		t.Fatalf("Poll(readable pipe) = %d, %v, revents %#x; want 1, nil, POLLIN", n, err, fds[0].Revents)
	}
}

// ErrNoGroupSignal claims the kernel lacks PIDFD_SIGNAL_PROCESS_GROUP. The
// kernel also answers EINVAL for a signal number it does not know, and
// this kernel (6.18) has the flag, so that EINVAL must not be reported as
// a missing kernel feature.
func TestPidfdSignalGroupDoesNotBlameTheKernelForABadSignal(t *testing.T) {
	c := startChild(t, "", 0, 0, "/bin/sleep", "60")
	if err := PidfdSignalGroup(c.pidfd, 0); err != nil {
		t.Skipf("PidfdSignalGroup(0) = %v: no group signals here", err)
	}
	const bad = syscall.Signal(200) // beyond SIGRTMAX (64): never delivered
	err := PidfdSignalGroup(c.pidfd, bad)
	if err == nil {
		t.Fatalf("PidfdSignalGroup(%d) = nil, want an error", bad)
	}
	if errors.Is(err, ErrNoGroupSignal) {
		t.Fatalf("PidfdSignalGroup(%d) = %v, want EINVAL without blaming the kernel version", bad, err)
	}
	if !errors.Is(err, unix.EINVAL) {
		t.Fatalf("PidfdSignalGroup(%d) = %v, want EINVAL", bad, err)
	}
}

// TestPidfdOpenOfALiveThreadThatIsNotALeaderIsGone: no process has the
// number of a non-leader thread. The kernel answers EINVAL (before 6.15)
// or ENOENT, and both are ErrGone.
func TestPidfdOpenOfALiveThreadThatIsNotALeaderIsGone(t *testing.T) {
	tid := testproc.LiveThread(t)
	if fd, err := PidfdOpen(tid); !errors.Is(err, ErrGone) {
		if err == nil {
			Close(fd)
		}
		t.Fatalf("PidfdOpen(a live thread's TID %d) = %d, %v; want ErrGone", tid, fd, err)
	}
	if _, err := PidfdOpen(0); err == nil || errors.Is(err, ErrGone) {
		t.Fatalf("PidfdOpen(0) = %v; want an error that is not ErrGone", err)
	}
}
