package main

// Session tests run the product binary, built once without -race in
// TestMain (a race-built binary takes about a second to exit and uses
// ~16 MB). The test binary itself plays small helpers, selected
// by an environment variable.

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/session-starter/session-starter/internal/ledger"
	"github.com/session-starter/session-starter/internal/testproc"
)

// markVar tags every process of a test's sessions, through the
// environment the Engine inherits, so that cleanup and the survivor checks
// find exactly them.
const markVar = "SESSION_STARTER_E2E_MARK"

var binary string // the product binary

// gcflagsVar names the -gcflags the product (and the Go Engine of the
// SDK tests) are built with, as `go build -gcflags` takes them.
const gcflagsVar = "SESSION_STARTER_TEST_GCFLAGS"

func TestMain(m *testing.M) {
	if asLauncher() {
		return // not reached: the launcher executes the product
	}
	testproc.RunHelper()
	dir, err := os.MkdirTemp("", "session-starter-e2e-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	binary = filepath.Join(dir, "session-starter")
	// The sessions' ledger records (internal/ledger) go to a directory of
	// this run's, not this user's: a session a test SIGKILLs leaves its
	// record, and a test of --reclaim sees only its own.
	ledgerDir := filepath.Join(dir, "ledger")
	if err := os.Mkdir(ledgerDir, 0o700); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	os.Setenv(ledger.EnvDir, ledgerDir)
	if gc := os.Getenv(gcflagsVar); gc != "" {
		// The debug pass (make test-debug): the product as a debugger
		// builds it, with the raw children linked under -N -l.
		buildFlags = append(buildFlags, "-gcflags="+gc)
	}
	if err := buildProduct(); err != nil {
		fmt.Fprintln(os.Stderr, "build session-starter:", err)
		os.Exit(1)
	}
	if err := installLauncher(binary); err != nil {
		fmt.Fprintln(os.Stderr, "install the launcher:", err)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	// The tests must leave no goroutine behind (helpers exit above).
	os.Exit(testproc.CheckGoroutinesEnded(code))
}

// productVar names a product binary built already, which TestMain copies
// instead of building one (scripts/vm/kernels builds it on the host, not
// under the emulator). Only the native build takes it.
const productVar = "SESSION_STARTER_TEST_PRODUCT"

// buildProduct puts the product at productPath(binary): a copy of
// $SESSION_STARTER_TEST_PRODUCT where that is set, else a fresh build.
func buildProduct() error {
	if src := os.Getenv(productVar); src != "" && !portable && os.Getenv(gcflagsVar) == "" {
		b, err := os.ReadFile(src)
		if err != nil {
			return err
		}
		return os.WriteFile(productPath(binary), b, 0o755)
	}
	build := exec.Command("go", append(append([]string{"build"}, buildFlags...), "-o", productPath(binary), ".")...)
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	return build.Run()
}

// helperCommand runs the test binary as helper name.
func helperCommand(t *testing.T, mark, name string, args ...string) *exec.Cmd {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe, args...)
	cmd.Env = append(os.Environ(), testproc.HelperVar+"="+name, markVar+"="+mark, "GORACE=atexit_sleep_ms=0", "SESSION_STARTER_BIN="+binary)
	return cmd
}

// newMark returns a fresh marker and registers the cleanup that ends
// every process carrying it.
func newMark(t *testing.T) string {
	t.Helper()
	mark := fmt.Sprintf("%s-%d-%d", strings.ReplaceAll(t.Name(), "/", "_"), os.Getpid(), rand.Uint64())
	t.Cleanup(func() {
		if left := killMarked(mark); len(left) > 0 {
			t.Errorf("processes of this test were still live at cleanup and were killed: %v", left)
		}
	})
	return mark
}

// marked lists the live processes whose environment carries mark. Zombies
// and processes whose environment cannot be read have none.
func marked(mark string) []int {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	want := []byte(markVar + "=" + mark + "\x00")
	var out []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == os.Getpid() {
			continue
		}
		env, err := os.ReadFile("/proc/" + e.Name() + "/environ")
		if err != nil || !bytes.Contains(env, want) {
			continue
		}
		if stat, err := os.ReadFile("/proc/" + e.Name() + "/stat"); err == nil {
			if i := bytes.LastIndexByte(stat, ')'); i > 0 && len(stat) > i+2 && stat[i+2] == 'Z' {
				continue
			}
		}
		out = append(out, pid)
	}
	return out
}

// killMarked SIGKILLs every live process carrying mark, each through a
// pidfd opened first and the mark checked again after the open, so that a
// reused PID is never signalled, and waits for each to exit. It returns
// each PID it killed once.
func killMarked(mark string) []int {
	var killed []int
	for range 20 {
		pids := marked(mark)
		if len(pids) == 0 {
			return killed
		}
		for _, pid := range pids {
			fd, err := unix.PidfdOpen(pid, 0)
			if err != nil {
				continue
			}
			env, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/environ")
			if err == nil && bytes.Contains(env, []byte(markVar+"="+mark+"\x00")) {
				if unix.PidfdSendSignal(fd, unix.SIGKILL, nil, 0) == nil && !slices.Contains(killed, pid) {
					killed = append(killed, pid)
				}
				// Its pidfd is readable once it has exited: the next
				// look finds it no more (a zombie is not listed).
				_, _ = unix.Poll([]unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}, 10_000)
			}
			unix.Close(fd)
		}
	}
	return killed
}

// noSurvivors waits until no process of mark is live.
func noSurvivors(t *testing.T, mark string) {
	t.Helper()
	var left []int
	testproc.Eventually(t, "no process of the session may be left", func() bool {
		left = marked(mark)
		return len(left) == 0
	})
}

// session is one session-starter process started by a test, which plays
// the launcher.
type session struct {
	t      *testing.T
	cmd    *exec.Cmd
	out    *os.File      // read end of the starter's stdout
	lines  *bufio.Reader // over out
	stderr *lockedBuffer
	in     *os.File // write end of the starter's stdin, or nil
	mark   string
}

type startOpt func(*exec.Cmd)

// withExtraFiles passes files to the starter from fd 3 on.
func withExtraFiles(files ...*os.File) startOpt {
	return func(c *exec.Cmd) { c.ExtraFiles = files }
}

func withDir(dir string) startOpt { return func(c *exec.Cmd) { c.Dir = dir } }

// start runs session-starter with args (flags, "--", Engine) as a launcher
// would: stdout and stdin are pipes, stderr is collected.
func start(t *testing.T, mark string, args []string, opts ...startOpt) *session {
	t.Helper()
	cmd := exec.Command(binary, args...)
	cmd.Env = append(os.Environ(), markVar+"="+mark)
	return startCmd(t, mark, cmd, opts...)
}

// startCmd starts cmd with a stdin and a stdout pipe kept by the test and
// stderr collected, and registers its cleanup.
func startCmd(t *testing.T, mark string, cmd *exec.Cmd, opts ...startOpt) *session {
	t.Helper()
	out, outW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	inR, inW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	stderr := &lockedBuffer{}
	cmd.Stdin, cmd.Stdout, cmd.Stderr = inR, outW, stderr
	// A survivor holding the starter's stderr (the documented escapee of a
	// SIGKILLed starter) must not hold Wait up.
	cmd.WaitDelay = time.Second
	for _, o := range opts {
		o(cmd)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	outW.Close()
	inR.Close()
	s := &session{t: t, cmd: cmd, out: out, lines: bufio.NewReader(out), stderr: stderr, in: inW, mark: mark}
	t.Cleanup(func() {
		inW.Close()
		out.Close()
		if cmd.ProcessState == nil {
			_ = cmd.Process.Kill()
			_ = cmd.Wait()
		}
	})
	return s
}

// line reads the next line of the starter's stdout.
func (s *session) line() string {
	s.t.Helper()
	_ = s.out.SetReadDeadline(time.Now().Add(testproc.TooLong))
	l, err := s.lines.ReadString('\n')
	if err != nil {
		s.t.Fatalf("read a line of stdout: %v (got %q); stderr: %s", err, l, s.stderr)
	}
	return strings.TrimSuffix(l, "\n")
}

// rest reads the starter's stdout to its end and returns what it read.
func (s *session) rest() string {
	s.t.Helper()
	_ = s.out.SetReadDeadline(time.Now().Add(testproc.TooLong))
	b, err := io.ReadAll(s.lines)
	if err != nil {
		s.t.Fatalf("read stdout to its end: %v (got %q); stderr: %s", err, b, s.stderr)
	}
	return string(b)
}

// wait waits for the starter and returns its wait status.
func (s *session) wait() syscall.WaitStatus {
	s.t.Helper()
	done := make(chan struct{})
	go func() {
		_ = s.cmd.Wait()
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(testproc.TooLong):
		s.t.Fatalf("%s did not exit within %v; stderr: %s", s.cmd.Path, testproc.TooLong, s.stderr)
	}
	return s.cmd.ProcessState.Sys().(syscall.WaitStatus)
}

// signal sends sig to the starter, our unreaped child.
func (s *session) signal(sig syscall.Signal) {
	s.t.Helper()
	if err := s.cmd.Process.Signal(sig); err != nil {
		s.t.Fatal(err)
	}
}

// ack reads the ack line and returns the Engine's PID from it. The mode
// is "group" or "cgroup" (what --containment auto gives on this machine).
func (s *session) ack() int {
	s.t.Helper()
	pid, _ := s.ackMode()
	return pid
}

// ackMode reads the ack line and returns the Engine's PID and the mode.
func (s *session) ackMode() (int, string) {
	s.t.Helper()
	l := s.line()
	var pid int
	var mode string
	for _, m := range []string{"group", "cgroup"} {
		if _, err := fmt.Sscanf(l, `{"session_containment":1,"pid":%d,"mode":"`+m+`"}`, &pid); err == nil && pid > 1 {
			mode = m
			break
		}
	}
	if mode == "" {
		s.t.Fatalf("first stdout line = %q, want the ack line", l)
	}
	return pid, mode
}

// guardOf finds the guard: the live child of pid whose command is
// session-guard.
func guardOf(t *testing.T, pid int) int {
	t.Helper()
	var guard int
	testproc.Eventually(t, "the starter must have a guard child", func() bool {
		entries, _ := os.ReadDir("/proc")
		for _, e := range entries {
			stat, err := os.ReadFile("/proc/" + e.Name() + "/stat")
			if err != nil {
				continue
			}
			i := bytes.LastIndexByte(stat, ')')
			f := strings.Fields(string(stat[i+1:]))
			// Not a zombie: a guard abandoned with its gate (killed at
			// birth in the session cgroup) may be one still, unreaped.
			if len(f) > 1 && f[0] != "Z" && f[1] == strconv.Itoa(pid) && bytes.Contains(stat[:i], []byte("(session-guard")) {
				guard, _ = strconv.Atoi(e.Name())
				return true
			}
		}
		return false
	})
	return guard
}

// statusString renders a wait status for failure messages.
func statusString(ws syscall.WaitStatus) string {
	switch {
	case ws.Exited():
		return fmt.Sprintf("exit %d", ws.ExitStatus())
	case ws.Signaled():
		s := "signal " + ws.Signal().String()
		if ws.CoreDump() {
			s += " (core dumped)"
		}
		return s
	}
	return fmt.Sprintf("status %#x", int(ws))
}

func wantExit(t *testing.T, ws syscall.WaitStatus, code int, stderr fmt.Stringer) {
	t.Helper()
	if !ws.Exited() || ws.ExitStatus() != code {
		t.Fatalf("session-starter ended with %s, want exit %d; stderr: %s", statusString(ws), code, stderr)
	}
}

func wantSignal(t *testing.T, ws syscall.WaitStatus, sig syscall.Signal, stderr fmt.Stringer) {
	t.Helper()
	if !ws.Signaled() || ws.Signal() != sig || ws.CoreDump() {
		t.Fatalf("session-starter ended with %s, want death by %v without core; stderr: %s", statusString(ws), sig, stderr)
	}
}

func unixPidfdOpen(pid int) (int, error) { return unix.PidfdOpen(pid, 0) }

// awaitExit waits until the process a pidfd names has exited.
func awaitExit(t *testing.T, pidfd int, what string) {
	t.Helper()
	fds := []unix.PollFd{{Fd: int32(pidfd), Events: unix.POLLIN}}
	deadline := time.Now().Add(testproc.TooLong)
	for {
		n, err := unix.Poll(fds, int(time.Until(deadline)/time.Millisecond)+1)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		if n > 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("after %v: %s", testproc.TooLong, what)
		}
	}
}

// lockedBuffer is a bytes.Buffer that exec's copying goroutine and a
// failing test may use at once.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

func (b *lockedBuffer) Len() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Len()
}

func (b *lockedBuffer) Bytes() []byte {
	b.mu.Lock()
	defer b.mu.Unlock()
	return bytes.Clone(b.buf.Bytes())
}
