package gate

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"go.uber.org/goleak"
	"golang.org/x/sys/unix"

	"github.com/session-starter/session-starter/internal/sys"
	"github.com/session-starter/session-starter/internal/testproc"
)

// The test binary plays the gate: Start starts it with Arg first.
func TestMain(m *testing.M) {
	if Invoked(os.Args) {
		Main(os.Args)
	}
	// Hidden modes first: they never return. Then the tests, which
	// must leave no goroutine behind.
	goleak.VerifyTestMain(m)
}

// startGate starts a gate whose Engine would write its PID to a file
// named ran in dir.
func startGate(t *testing.T, dir string, path string) *Gate {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	g, err := Start(Spec{
		Exe:   exe,
		Path:  path,
		Argv:  []string{"sh", "-c", `echo $$ > "$0"`, filepath.Join(dir, "ran")},
		Env:   append(os.Environ(), "GORACE=atexit_sleep_ms=0"),
		Files: []int{0, 1, 2},
	})
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	t.Cleanup(func() {
		if g.Pidfd >= 0 {
			_ = sys.PidfdSignal(g.Pidfd, syscall.SIGKILL)
			_, _ = sys.ReapWithin(g.Pidfd, testproc.TooLong)
			g.Close()
		}
	})
	return g
}

// reap waits for the gate (or its Engine) to exit and reaps it.
func reap(t *testing.T, g *Gate) sys.WaitStatus {
	t.Helper()
	fds := []unix.PollFd{{Fd: int32(g.Pidfd), Events: unix.POLLIN}}
	if n, err := sys.Poll(fds, testproc.TooLong); err != nil || n == 0 {
		t.Fatalf("gate pid %d still running after %v (%v)", g.PID, testproc.TooLong, err)
	}
	st, err := sys.ReapWithin(g.Pidfd, testproc.TooLong)
	if err != nil {
		t.Fatal(err)
	}
	return st
}

func ran(dir string) bool {
	_, err := os.Stat(filepath.Join(dir, "ran"))
	return err == nil
}

func TestStartedGateLeadsItsGroupAndHasExecutedNothing(t *testing.T) {
	dir := t.TempDir()
	g := startGate(t, dir, "/bin/sh")
	if pgid, err := unix.Getpgid(g.PID); err != nil || pgid != g.PID {
		t.Fatalf("getpgid(%d) = %d, %v; want its own group", g.PID, pgid, err)
	}
	if ran(dir) {
		t.Fatal("the Engine ran before the go-ahead")
	}
	comm, _ := os.ReadFile("/proc/" + strconv.Itoa(g.PID) + "/cmdline")
	if !strings.Contains(string(comm), Arg) {
		t.Fatalf("gate's command line = %q, want the hidden gate mode", comm)
	}
}

func TestReleaseExecutesTheEngineAsTheSameProcess(t *testing.T) {
	dir := t.TempDir()
	g := startGate(t, dir, "/bin/sh")
	if err := g.Release(); err != nil {
		t.Fatal(err)
	}
	if st := reap(t, g); !st.Exited || st.Code != 0 {
		t.Fatalf("Engine ended with %v", st)
	}
	if err := g.ExecResult(); err != nil {
		t.Fatalf("ExecResult = %v, want nil", err)
	}
	b, err := os.ReadFile(filepath.Join(dir, "ran"))
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.TrimSpace(string(b)); got != strconv.Itoa(g.PID) {
		t.Fatalf("the Engine's PID was %s, want the gate's %d", got, g.PID)
	}
}

func TestExecFailureComesBackAsItsErrno(t *testing.T) {
	dir := t.TempDir()
	g := startGate(t, dir, filepath.Join(dir, "missing"))
	if err := g.Release(); err != nil {
		t.Fatal(err)
	}
	st := reap(t, g)
	var ee *ExecError
	if err := g.ExecResult(); !errors.As(err, &ee) || ee.Errno != syscall.ENOENT {
		t.Fatalf("ExecResult = %v, want an ExecError with ENOENT", err)
	}
	if !st.Exited || st.Code != 127 {
		t.Fatalf("gate ended with %v, want exit 127", st)
	}
}

// TestGateExecutesNothingUnlessTheGoAheadIsExact: a starter that is gone,
// or sends anything but "go PID", gets no Engine.
func TestGateExecutesNothingUnlessTheGoAheadIsExact(t *testing.T) {
	for _, tt := range []struct {
		name string
		msg  func(pid int) string
	}{
		{"starter gone", func(int) string { return "" }},
		{"go without pid", func(int) string { return "go\n" }},
		{"go for another pid", func(p int) string { return "go " + strconv.Itoa(p+1) + "\n" }},
		{"go without newline", func(p int) string { return "go " + strconv.Itoa(p) }},
		{"finish instead", func(p int) string { return "finish " + strconv.Itoa(p) + "\n" }},
		{"garbage", func(int) string { return "\x00\xff go go go\n" }},
	} {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			g := startGate(t, dir, "/bin/sh")
			if msg := tt.msg(g.PID); msg != "" {
				if err := sys.WriteAll(g.goW, []byte(msg)); err != nil {
					t.Fatal(err)
				}
			}
			g.Abort()
			if st := reap(t, g); !st.Exited || st.Code != exitNotReleased {
				t.Fatalf("gate ended with %v, want exit %d", st, exitNotReleased)
			}
			if ran(dir) {
				t.Fatal("the Engine ran without a valid go-ahead")
			}
		})
	}
}

func TestExitStatusForNotFoundIs127AndOtherwise126(t *testing.T) {
	for err, want := range map[error]int{syscall.ENOENT: 127, syscall.ENOTDIR: 127, syscall.EACCES: 126, syscall.ENOEXEC: 126, syscall.ETXTBSY: 126} {
		if got := ExitStatusFor(err); got != want {
			t.Errorf("ExitStatusFor(%v) = %d, want %d", err, got, want)
		}
	}
}

func TestTheEngineCommandLineGoesThroughTheSpecUnchanged(t *testing.T) {
	spec := Spec{Path: "/bin/sh", Argv: []string{"sh", "", "-c", "a\nb", "é\xff"}, Env: []string{"A=1", "", "B=x=y"}}
	fd, err := writeSpec(spec)
	if err != nil {
		t.Fatal(err)
	}
	defer sys.Close(fd)
	path, argv, env, err := readSpec(fd)
	if err != nil || path != spec.Path || !slices.Equal(argv, spec.Argv) || !slices.Equal(env, spec.Env) {
		t.Fatalf("readSpec = %q, %q, %q, %v; want %q, %q, %q", path, argv, env, err, spec.Path, spec.Argv, spec.Env)
	}
	for _, bad := range []string{"", "1\x000\x00/bin/sh", "0\x000\x00/bin/sh\x00", "2\x000\x00/bin/sh\x00sh\x00", "1\x00-1\x00p\x00a\x00", "x\x000\x00p\x00a\x00"} {
		if _, _, _, err := parseSpec([]byte(bad)); err == nil {
			t.Errorf("parseSpec(%q) succeeded, want an error", bad)
		}
	}
}
