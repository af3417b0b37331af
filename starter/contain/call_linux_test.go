package contain

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
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

	"github.com/session-starter/session-starter/internal/cgroup"
	"github.com/session-starter/session-starter/internal/mark"
	"github.com/session-starter/session-starter/internal/proc"
	"github.com/session-starter/session-starter/internal/sys"
	"github.com/session-starter/session-starter/internal/testproc"
	"github.com/session-starter/session-starter/starter"
	"github.com/session-starter/session-starter/starter/launch"
)

// watched is a process a test saw start, held by a pidfd opened while
// its parent (the call's shell, waiting for it) still lived, so the
// number was its own: gone and end act on it, never on a reused number.
type watched struct {
	pid, fd int
}

func watch(t *testing.T, pid int) watched {
	t.Helper()
	fd, err := sys.PidfdOpen(pid)
	if err != nil {
		t.Fatalf("pidfd_open(%d): %v", pid, err)
	}
	w := watched{pid: pid, fd: fd}
	t.Cleanup(func() {
		_ = sys.PidfdSignal(fd, syscall.SIGKILL)
		sys.Close(fd)
	})
	return w
}

// gone reports whether the process has exited.
func (w watched) gone() bool {
	n, err := sys.Poll([]sys.PollFd{{Fd: int32(w.fd), Events: sys.POLLIN}}, 0)
	return err == nil && n > 0
}

// goneWithin waits up to d for the process to exit.
func (w watched) goneWithin(d time.Duration) bool {
	n, err := sys.Poll([]sys.PollFd{{Fd: int32(w.fd), Events: sys.POLLIN}}, d)
	return err == nil && n > 0
}

// pidsFrom reads n PIDs, one a line, from r.
func pidsFrom(t *testing.T, r *bufio.Reader, n int) []int {
	t.Helper()
	var out []int
	for range n {
		line, err := r.ReadString('\n')
		if err != nil {
			t.Fatalf("read a pid: %v (got %q)", err, line)
		}
		pid, err := strconv.Atoi(strings.TrimSpace(line))
		if err != nil {
			t.Fatalf("not a pid: %q", line)
		}
		out = append(out, pid)
	}
	return out
}

// startWithPIDs starts script with its stdout on a pipe and returns the
// PIDs it prints first, each held.
func startWithPIDs(t *testing.T, c *Cmd, n int) []watched {
	t.Helper()
	out, err := c.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if !c.waited.Load() {
			_ = c.Kill()
			_ = c.Wait()
		}
	})
	var ws []watched
	for _, pid := range pidsFrom(t, bufio.NewReader(out), n) {
		ws = append(ws, watch(t, pid))
	}
	return ws
}

func TestCancelEndsTheLeadersWholeGroupBeforeItIsReaped(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	c := Command(ctx, "sh", "-c", `sleep 300 & echo $!; sleep 300 & echo $!; wait`)
	ws := startWithPIDs(t, c, 2)
	cancel()
	err := c.Wait()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.Sys().(syscall.WaitStatus).Signal() != syscall.SIGKILL {
		t.Fatalf("Wait() = %v, want the leader killed by SIGKILL", err)
	}
	for _, w := range ws {
		if !w.gone() {
			t.Errorf("pid %d of the call's group is alive after Wait", w.pid)
		}
	}
	if r := c.Result(); r.Executed != Started || r.Tree != Killed || r.Group != c.Process.Pid {
		t.Errorf("Result() = %+v, want Started, Killed, group %d", r, c.Process.Pid)
	}
}

func TestKillEndsTheTreeAndWaitThenReaps(t *testing.T) {
	c := Command(context.Background(), "sh", "-c", `sleep 300 & echo $!; wait`)
	ws := startWithPIDs(t, c, 1)
	if err := c.Kill(); err != nil {
		t.Fatalf("Kill() = %v", err)
	}
	if !ws[0].gone() {
		t.Fatalf("pid %d alive after Kill returned", ws[0].pid)
	}
	// Not reaped by Kill: the leader's number is still held.
	if _, err := os.Stat("/proc/" + strconv.Itoa(c.Process.Pid)); err != nil {
		t.Fatalf("the leader was reaped before Wait: %v", err)
	}
	_ = c.Wait()
	if c.ProcessState == nil {
		t.Fatal("Wait did not reap the leader")
	}
}

// TestAStartThatCannotHoldItsLeaderLeavesKillAndWaitReturningItsError:
// the leader ran, so the call is Started, but without its exit handle no
// watch runs; Kill and Wait return Start's error at once.
func TestAStartThatCannotHoldItsLeaderLeavesKillAndWaitReturningItsError(t *testing.T) {
	held := exitHandle
	t.Cleanup(func() { exitHandle = held })
	exitHandle = func(_ int, pidfd *int) (int, error) {
		if pidfd != nil && *pidfd >= 0 {
			_ = syscall.Close(*pidfd)
		}
		return -1, syscall.EMFILE
	}
	c := Command(context.Background(), "sleep", "600")
	err := c.Start()
	if !errors.Is(err, syscall.EMFILE) || c.Result().Executed != Started {
		t.Fatalf("Start() = %v, Executed %v; want EMFILE, Started", err, c.Result().Executed)
	}
	for _, call := range []struct {
		name string
		f    func() error
	}{{"Kill", c.Kill}, {"Wait", c.Wait}} {
		done := make(chan error, 1)
		go func() { done <- call.f() }()
		select {
		case got := <-done:
			if !errors.Is(got, syscall.EMFILE) {
				t.Errorf("%s() = %v, want Start's error", call.name, got)
			}
		case <-time.After(time.Minute):
			t.Fatalf("%s() still blocks a minute after a Start that could not hold its leader", call.name)
		}
	}
}

// TestGraceSendsTheStopSignalToTheWholeGroupFirst: with a grace, the
// tree gets the stop signal and may exit on it, before any SIGKILL.
func TestGraceSendsTheStopSignalToTheWholeGroupFirst(t *testing.T) {
	dir := t.TempDir()
	c := Command(context.Background(), "sh", "-c",
		`trap 'echo term >"$1"/leader; exit 7' TERM
		 sh -c 'trap "echo term >$1/child; exit 0" TERM; echo $$; while :; do sleep 0.05; done' - "$1" &
		 wait`, "-", dir)
	c.Grace = testproc.TooLong
	ws := startWithPIDs(t, c, 1)
	if err := c.Kill(); err != nil {
		t.Fatalf("Kill() = %v", err)
	}
	_ = c.Wait()
	for _, f := range []string{"leader", "child"} {
		if b, err := os.ReadFile(filepath.Join(dir, f)); err != nil || string(b) != "term\n" {
			t.Errorf("%s: %q, %v; want it to have caught SIGTERM", f, b, err)
		}
	}
	if !ws[0].gone() {
		t.Error("the child outlived the end")
	}
}

func TestReleaseLeavesWhatTheLeaderLeftAndListsIt(t *testing.T) {
	needsRelease(t)
	c := Command(context.Background(), "sh", "-c", `sleep 300 >/dev/null & echo $!; read _; exit 0`)
	in, err := c.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	ws := startWithPIDs(t, c, 1)
	in.Close() // the leader exits on its own
	if err := c.Wait(); err != nil {
		t.Fatalf("Wait() = %v", err)
	}
	r := c.Result()
	if r.Tree != Released || !slices.Equal(r.Left, []int{ws[0].pid}) {
		t.Fatalf("Result() = %+v, want Released with Left [%d]", r, ws[0].pid)
	}
	if ws[0].gone() {
		t.Fatal("a released process was ended")
	}
	// Kill ends nothing after a release: what was released is the
	// session's (EndReleased ends it).
	if err := c.Kill(); err != nil || ws[0].gone() {
		t.Fatalf("Kill() after the release = %v, released process gone %v; want nil and it running", err, ws[0].gone())
	}
	_ = c.Close()
}

func TestEndOnExitEndsWhatTheLeaderLeft(t *testing.T) { endOnExitEndsWhatTheLeaderLeft(t, false) }

// endOnExitEndsWhatTheLeaderLeft: at the leader's exit what it left is
// ended, and nothing released; helped asks that the call be the spawn
// helper's.
func endOnExitEndsWhatTheLeaderLeft(t *testing.T, helped bool) {
	c := Command(context.Background(), "sh", "-c", `sleep 300 >/dev/null & echo $!; read _; exit 0`)
	c.EndOnExit = true
	in, err := c.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	ws := startWithPIDs(t, c, 1)
	if helped && c.via == nil {
		t.Fatal("the call did not go through the spawn helper")
	}
	in.Close()
	if err := c.Wait(); err != nil {
		t.Fatalf("Wait() = %v", err)
	}
	if r := c.Result(); r.Tree != Killed || len(r.Left) != 0 {
		t.Fatalf("Result() = %+v, want Killed and nothing left", r)
	}
	if !ws[0].gone() {
		t.Fatal("what the leader left outlived its exit with EndOnExit")
	}
}

// TestWaitReturnsWithinTheDrainBoundWhenAnEscapeeHoldsStdout: a
// grandchild in a session of its own holds the output pipe; Wait gives
// up on the pipe after the bound and names the holder. (A pipe held by a
// member of the group would be closed by the end itself.)
func TestWaitReturnsWithinTheDrainBoundWhenAnEscapeeHoldsStdout(t *testing.T) {
	needsRelease(t)
	var out bytes.Buffer
	c := Command(context.Background(), "sh", "-c", `setsid sleep 300 & echo $! >"$1"; echo started`, "-", filepath.Join(t.TempDir(), "pid"))
	c.Stdout = &out
	c.Drain = 200 * time.Millisecond
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- c.Wait() }()
	var err error
	select {
	case err = <-done:
	case <-time.After(testproc.TooLong):
		t.Fatal("Wait did not return while a grandchild held stdout")
	}
	b, rerr := os.ReadFile(c.Args[4])
	if rerr != nil {
		t.Fatal(rerr)
	}
	pid, _ := strconv.Atoi(strings.TrimSpace(string(b)))
	w := watch(t, pid) // still alive: it holds the pipe's other end
	if !errors.Is(err, exec.ErrWaitDelay) || !slices.Contains(c.Result().PipeHolders, pid) {
		t.Fatalf("Wait() = %v, PipeHolders %v; want ErrWaitDelay naming pid %d", err, c.Result().PipeHolders, pid)
	}
	if out.String() != "started\n" {
		t.Errorf("output %q, want what was written before the bound", out.String())
	}
	if w.gone() {
		t.Error("the escapee was ended: released processes stay")
	}
}

func TestOutputAndCombinedOutputReadTheWholeOutput(t *testing.T) {
	out, err := Command(context.Background(), "sh", "-c", `echo out; echo err >&2; exit 3`).Output()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 3 || string(out) != "out\n" || string(ee.Stderr) != "err\n" {
		t.Fatalf("Output() = %q, %v (stderr %q); want out, exit 3, err", out, err, stderrOf(ee))
	}
	both, err := Command(context.Background(), "sh", "-c", `echo out; echo err >&2`).CombinedOutput()
	if err != nil || string(both) != "out\nerr\n" {
		t.Fatalf("CombinedOutput() = %q, %v", both, err)
	}
}

func stderrOf(ee *exec.ExitError) []byte {
	if ee == nil {
		return nil
	}
	return ee.Stderr
}

func TestStdinFromAReaderReachesTheCall(t *testing.T) {
	c := Command(context.Background(), "cat")
	c.Stdin = strings.NewReader("hello\n")
	out, err := c.Output()
	if err != nil || string(out) != "hello\n" {
		t.Fatalf("Output() = %q, %v", out, err)
	}
}

// TestBadInputIsRefusedBeforeAnythingRuns: each case would run a
// program that creates a file; none may.
func TestBadInputIsRefusedBeforeAnythingRuns(t *testing.T) {
	dir := t.TempDir()
	mk := func(name string) *exec.Cmd {
		return exec.Command("sh", "-c", `touch "$1"`, "-", filepath.Join(dir, name))
	}
	started := mk("started")
	if err := started.Start(); err != nil {
		t.Fatal(err)
	}
	_ = started.Wait()
	fd := 0
	for name, c := range map[string]*Cmd{
		"nil":         Wrap(nil),
		"started":     Wrap(started),
		"setsid":      Wrap(withAttr(mk("setsid"), &syscall.SysProcAttr{Setsid: true})),
		"pgid":        Wrap(withAttr(mk("pgid"), &syscall.SysProcAttr{Setpgid: true, Pgid: 1})),
		"setctty":     Wrap(withAttr(mk("setctty"), &syscall.SysProcAttr{Setctty: true})),
		"foreground":  Wrap(withAttr(mk("foreground"), &syscall.SysProcAttr{Foreground: true})),
		"usecgroupfd": Wrap(withAttr(mk("usecgroupfd"), &syscall.SysProcAttr{UseCgroupFD: true})),
		"pidfd":       Wrap(withAttr(mk("pidfd"), &syscall.SysProcAttr{PidFD: &fd})),
	} {
		if err := c.Start(); err == nil || !strings.Contains(err.Error(), "contain:") {
			t.Errorf("%s: Start() = %v, want a contain error", name, err)
		}
		if c.Result().Executed != NotStarted {
			t.Errorf("%s: outcome %v, want NotStarted", name, c.Result().Executed)
		}
	}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if e.Name() != "started" {
			t.Errorf("%s ran", e.Name())
		}
	}
}

func withAttr(c *exec.Cmd, a *syscall.SysProcAttr) *exec.Cmd {
	c.SysProcAttr = a
	return c
}

// TestTheInnerCmdStartedDirectlyIsNotContained: calling the embedded
// exec.Cmd's own Start is detected and refused by Start and Wait, not
// silently treated as contained.
func TestTheInnerCmdStartedDirectlyIsNotContained(t *testing.T) {
	c := Command(context.Background(), "true")
	if err := c.Cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = c.Cmd.Wait() }()
	if err := c.Start(); err == nil || !strings.Contains(err.Error(), "inner exec.Cmd") {
		t.Errorf("Start() after the inner Start = %v, want it refused", err)
	}
	if err := c.Wait(); err == nil || !strings.Contains(err.Error(), "inner exec.Cmd") {
		t.Errorf("Wait() after the inner Start = %v, want it refused", err)
	}
}

func TestAStartThatFailsIsNotStarted(t *testing.T) {
	c := Command(context.Background(), "/no/such/program")
	if err := c.Start(); err == nil {
		t.Fatal("Start of a missing program succeeded")
	}
	if c.Result().Executed != NotStarted {
		t.Fatalf("outcome %v, want NotStarted", c.Result().Executed)
	}
}

// TestAnEnvWithoutTheMarkKeepsTheSessionsMark: a call carries the
// session's mark, even with an Env of its own that left it out, and an id
// of its own after it (in group mode: no cgroup of its own decides),
// another for each call. Where no marked process is verified (the
// portable build, as macOS), the session's mark alone.
func TestAnEnvWithoutTheMarkKeepsTheSessionsMark(t *testing.T) {
	id, _ := mark.New()
	t.Setenv(mark.Var, id.String())
	var calls []string
	for range 2 {
		c := Command(context.Background(), "sh", "-c", `printf %s "$`+mark.Var+`"`)
		c.Env = []string{"PATH=" + os.Getenv("PATH")}
		out, err := c.Output()
		if sys.Pidless {
			if err != nil || string(out) != id.String() {
				t.Fatalf("the call's mark = %q, %v; want the session's %s alone", out, err, id)
			}
			continue
		}
		session, call, ok := strings.Cut(string(out), ":")
		if _, perr := mark.Parse(call); err != nil || !ok || session != id.String() || perr != nil {
			t.Fatalf("the call's mark = %q, %v; want %s followed by the call's id", out, err, id)
		}
		calls = append(calls, call)
	}
	if len(calls) == 2 && calls[0] == calls[1] {
		t.Errorf("two calls have the same id %s", calls[0])
	}
}

// The cgroup-mode tests run an Engine (this binary, as the role
// "calls-engine") in a real session in cgroup mode; it makes the call and
// writes what it saw to a file.

type engineReport struct {
	Cgroup, Err string
	EndedLeft   bool // release-end: what was left is gone after EndReleased
	Tree        TreeState
	Pids        []int
	Left        []int
	CPUMS       float64 // Result.Usage.CPUMS, 0 when nil
	CPUSource   string
	// many: the call cgroups left in the session cgroup, and the
	// descriptors the Engine holds more than before the calls.
	CallCgroups, MoreFDs int
	// orphan-exit and orphan-release: how the call ended, and which of
	// Pids lived after Wait (and EndReleased).
	Survivors, Escaped, AliveAfter []int
}

func init() {
	testproc.Register("calls-engine", callsEngine)
	testproc.Register("calls-session", callsSession)
}

// callsSession runs callsEngine (args[1:]) in a session in the mode
// args[0], as session-starter does: a subreaper.
func callsSession(args []string) int {
	return runSession("calls-engine", args[1:], starter.Options{Containment: launch.Containment(args[0])})
}

// runSession runs this binary as the role engine with args, in a session
// of o (its Argv, Env, Exe, KillBudget and Subreaper set here), and
// returns the helper's exit code.
func runSession(engine string, args []string, o starter.Options) int {
	self, err := os.Executable()
	if err != nil {
		return 1
	}
	ctx, cancel := context.WithTimeout(context.Background(), testproc.TooLong)
	defer cancel()
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, testproc.HelperVar+"=") {
			env = append(env, kv)
		}
	}
	o.Argv, o.Env, o.Exe = append([]string{self}, args...), append(env, testproc.HelperVar+"="+engine), self
	o.KillBudget, o.Subreaper = testproc.TooLong, true
	_, err = starter.Run(ctx, o)
	if err != nil && !strings.Contains(err.Error(), "signal: killed") {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}

// callsEngine runs args[1] as a contained shell call, which prints the
// PIDs it starts, args[2] of them; "kill" ends the call after reading
// them, "release" lets it exit. The report goes to args[0].
func callsEngine(args []string) int {
	n, _ := strconv.Atoi(args[2])
	rep := engineReport{}
	if args[3] == "many" {
		var err error
		if rep.CallCgroups, rep.MoreFDs, err = manyCalls(n); err != nil {
			rep.Err = err.Error()
		}
		b, _ := json.Marshal(rep)
		_ = os.WriteFile(args[0], b, 0o644)
		return 0
	}
	c := Command(context.Background(), "sh", "-c", args[1])
	if strings.HasPrefix(args[3], "orphan-") {
		orphans(c, args[0], n, args[3] == "orphan-exit")
		return 0
	}
	out, _ := c.StdoutPipe()
	in, _ := c.StdinPipe()
	if err := c.Start(); err != nil {
		rep.Err = err.Error()
	} else {
		r := bufio.NewReader(out)
		for range n {
			line, _ := r.ReadString('\n')
			pid, _ := strconv.Atoi(strings.TrimSpace(line))
			rep.Pids = append(rep.Pids, pid)
		}
		switch args[3] {
		case "kill":
			_ = c.Kill()
		case "hold":
			// Report, then hold the call until this process is ended.
			b, _ := json.Marshal(rep)
			_ = os.WriteFile(args[0]+".tmp", b, 0o644)
			_ = os.Rename(args[0]+".tmp", args[0])
			select {}
		case "die":
			// The Engine dies mid-call: nothing of the call's may outlive
			// the session.
			b, _ := json.Marshal(rep)
			_ = os.WriteFile(args[0], b, 0o644)
			_ = syscall.Kill(os.Getpid(), syscall.SIGKILL)
		default:
			in.Close()
		}
		_ = c.Wait()
		res := c.Result()
		rep.Cgroup, rep.Tree, rep.Left = res.Cgroup, res.Tree, res.Left
		if res.Usage.CPUMS != nil {
			rep.CPUMS, rep.CPUSource = *res.Usage.CPUMS, res.Usage.CPUSource
		}
		if args[3] == "release-end" && len(res.Left) == 1 {
			fd, err := sys.PidfdOpen(res.Left[0])
			if err == nil {
				if err := c.EndReleased(); err != nil {
					rep.Err = err.Error()
				}
				n, _ := sys.Poll([]sys.PollFd{{Fd: int32(fd), Events: sys.POLLIN}}, 0)
				rep.EndedLeft = n > 0
				sys.Close(fd)
			}
		}
	}
	b, _ := json.Marshal(rep)
	_ = os.WriteFile(args[0], b, 0o644)
	return 0
}

// orphans runs c, whose script prints n PIDs and exits, orphaning them:
// with EndOnExit (exit) or released and then ended by EndReleased. It
// reports how the call ended, and which of the PIDs lived after.
func orphans(c *Cmd, report string, n int, exit bool) {
	rep := engineReport{}
	defer func() {
		b, _ := json.Marshal(rep)
		_ = os.WriteFile(report, b, 0o644)
	}()
	c.EndOnExit = exit
	out, _ := c.StdoutPipe()
	if err := c.Start(); err != nil {
		rep.Err = err.Error()
		return
	}
	r := bufio.NewReader(out)
	var fds []int
	for range n {
		line, _ := r.ReadString('\n')
		pid, _ := strconv.Atoi(strings.TrimSpace(line))
		fd, err := sys.PidfdOpen(pid)
		if err != nil {
			rep.Err = fmt.Sprintf("pidfd_open(%d): %v", pid, err)
			return
		}
		defer sys.Close(fd)
		rep.Pids, fds = append(rep.Pids, pid), append(fds, fd)
	}
	werr := c.Wait()
	res := c.Result()
	rep.Tree, rep.Left, rep.Survivors, rep.Escaped = res.Tree, res.Left, res.Survivors, res.Escaped
	if !exit {
		werr = c.EndReleased()
	}
	if werr != nil {
		rep.Err = werr.Error()
	}
	for i, fd := range fds {
		if n, _ := sys.Poll([]sys.PollFd{{Fd: int32(fd), Events: sys.POLLIN}}, 0); n == 0 {
			rep.AliveAfter = append(rep.AliveAfter, rep.Pids[i])
		}
	}
}

// manyCalls makes n calls of true, the README's way (CombinedOutput, no
// Close), and tells how many call cgroups and descriptors they left.
func manyCalls(n int) (cgroups, moreFDs int, err error) {
	before, err := proc.OpenFDs()
	if err != nil {
		return 0, 0, err
	}
	for range n {
		c := Command(context.Background(), "true")
		if out, err := c.CombinedOutput(); err != nil || c.Result().Tree != Released || c.Result().Cgroup == "" {
			return 0, 0, fmt.Errorf("a call of true: %q, %v, %+v", out, err, c.Result())
		}
	}
	after, err := proc.OpenFDs()
	if err != nil {
		return 0, 0, err
	}
	p, ok := cgroup.InSession()
	if !ok {
		return 0, 0, errors.New("not in a cgroup-mode session")
	}
	entries, err := os.ReadDir(p.Dir)
	if err != nil {
		return 0, 0, err
	}
	for _, e := range entries {
		if e.IsDir() && strings.HasPrefix(e.Name(), "call-") {
			cgroups++
		}
	}
	return cgroups, len(after) - len(before), nil
}

// TestCallsThatLeftNothingHoldNoCgroupAndNoDescriptor: in a cgroup-mode
// session, a released call that left nothing releases its cgroup and its
// descriptors at Wait, without Close.
func TestCallsThatLeftNothingHoldNoCgroupAndNoDescriptor(t *testing.T) {
	rep := runEngine(t, "", 200, "many")
	if rep.CallCgroups != 0 || rep.MoreFDs > 2 {
		t.Errorf("200 calls of true left %d call cgroups and %d more descriptors, want none", rep.CallCgroups, rep.MoreFDs)
	}
}

// runEngine runs callsEngine in a session in cgroup mode, and returns
// its report; the session ends once the Engine exits.
func runEngine(t *testing.T, script string, n int, end string) engineReport {
	return runEngineIn(t, launch.ContainCgroup, script, n, end)
}

func runEngineIn(t *testing.T, mode launch.Containment, script string, n int, end string) engineReport {
	t.Helper()
	report := filepath.Join(t.TempDir(), "report")
	// The session runs in a child, as session-starter runs it: a
	// subreaper, which adopts what the Engine's death orphans.
	cmd := testproc.HelperCommand(t, "calls-session", string(mode), report, script, strconv.Itoa(n), end)
	_ = testproc.HelperEnv(t, "calls-engine") // the session's Engine plays it
	out, err := cmd.CombinedOutput()
	if err != nil {
		if strings.Contains(string(out), "cgroup") {
			t.Skipf("no cgroup mode here: %s", out)
		}
		t.Fatalf("session: %v: %s", err, out)
	}
	b, err := os.ReadFile(report)
	if err != nil {
		t.Fatal(err)
	}
	var rep engineReport
	if err := json.Unmarshal(b, &rep); err != nil {
		t.Fatal(err)
	}
	if rep.Err != "" {
		t.Fatalf("the Engine's call failed: %s", rep.Err)
	}
	return rep
}

// TestKillInCgroupModeEndsASetsidGrandchild: in its own cgroup below the
// session's, the call's tree is ended whole, escapees of its group too.
func TestKillInCgroupModeEndsASetsidGrandchild(t *testing.T) {
	rep := runEngine(t, `sleep 300 & echo $!; setsid sleep 300 & echo $!; echo ready >&2; read _; exit 0`, 2, "kill")
	if !strings.HasPrefix(filepath.Base(filepath.Dir(rep.Cgroup)), cgroup.Prefix) ||
		!strings.HasPrefix(filepath.Base(rep.Cgroup), "call-") || rep.Tree != Killed {
		t.Fatalf("report %+v: want Killed in a call- cgroup", rep)
	}
	for _, pid := range rep.Pids {
		if alive(pid) {
			t.Errorf("pid %d of the call is alive after the session", pid)
		}
	}
}

// TestReleaseInCgroupModeLeavesTheLeftoversToTheSession: what a
// released call left is listed, and the session's end ends it.
func TestReleaseInCgroupModeLeavesTheLeftoversToTheSession(t *testing.T) {
	rep := runEngine(t, `setsid sleep 300 >/dev/null & echo $!; read _; exit 0`, 1, "release")
	if rep.Tree != Released || !slices.Equal(rep.Left, rep.Pids) {
		t.Fatalf("report %+v: want Released leaving %v", rep, rep.Pids)
	}
	if alive(rep.Pids[0]) {
		t.Errorf("pid %d outlived the session", rep.Pids[0])
	}
}

// TestACallsCPUTimeIsTold: a call whose leader waits for a child that
// burns CPU tells its CPU time: from its own cgroup's cpu.stat in cgroup
// mode, from the leader's reap in group mode.
func TestACallsCPUTimeIsTold(t *testing.T) {
	for _, c := range []struct {
		mode   launch.Containment
		source string
	}{{launch.ContainCgroup, "cpu.stat"}, {launch.ContainGroup, "rusage"}} {
		t.Run(string(c.mode), func(t *testing.T) {
			rep := runEngineIn(t, c.mode, `sh -c 'i=0; while [ $i -lt 300000 ]; do i=$((i+1)); done' & echo $!; wait`, 1, "exit")
			if rep.CPUSource != c.source || rep.CPUMS < 50 {
				t.Errorf("report %+v: want at least 50ms of CPU from %s", rep, c.source)
			}
		})
	}
}

// alive reports whether pid is a live process whose command is sleep:
// the session ended before this look, so a number in use by another
// program is not the test's.
func alive(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	return err == nil && strings.Contains(string(b), "(sleep)") && !strings.Contains(string(b), ") Z ")
}

// TestAnEngineKilledMidCallLeavesNothingOfTheCall: the Engine dies of
// SIGKILL while its call runs, with a member in the call's group and an
// escapee of it. In cgroup mode the session cgroup holds the call's
// cgroup; in group mode the call's own group is outside the Engine's, and
// the session's mark is what finds it.
func TestAnEngineKilledMidCallLeavesNothingOfTheCall(t *testing.T) {
	for _, mode := range []launch.Containment{launch.ContainGroup, launch.ContainCgroup} {
		t.Run(string(mode), func(t *testing.T) {
			rep := runEngineIn(t, mode, `sleep 300 & echo $!; setsid sleep 300 & echo $!; read _`, 2, "die")
			if len(rep.Pids) != 2 {
				t.Fatalf("report %+v", rep)
			}
			for _, pid := range rep.Pids {
				if alive(pid) {
					t.Errorf("pid %d of the call outlived the session", pid)
				}
			}
		})
	}
}

// TestAStarterKilledMidCallLeavesNothingOfTheCall: the starter itself is
// SIGKILLed while the Engine's call runs. The guard ends the session: in
// cgroup mode the session cgroup with the call's below it; in group mode
// group E, and the call's own group by the session's mark.
func TestAStarterKilledMidCallLeavesNothingOfTheCall(t *testing.T) {
	for _, mode := range []launch.Containment{launch.ContainGroup, launch.ContainCgroup} {
		t.Run(string(mode), func(t *testing.T) {
			if sys.Pidless && mode == launch.ContainGroup {
				t.Skip("the guard of the portable build finds no marked process (as on macOS): a limit of the package doc")
			}
			report := filepath.Join(t.TempDir(), "report")
			_ = testproc.HelperEnv(t, "calls-engine")
			cmd := testproc.HelperCommand(t, "calls-session", string(mode), report,
				`sleep 300 & echo $!; setsid sleep 300 & echo $!; read _`, "2", "hold")
			var out bytes.Buffer
			cmd.Stdout, cmd.Stderr = &out, &out
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			exited := make(chan struct{})
			go func() { _ = cmd.Wait(); close(exited) }()
			defer func() { _ = cmd.Process.Kill(); <-exited }()
			var rep engineReport
			testproc.Eventually(t, "the Engine's report", func() bool {
				select {
				case <-exited:
					if strings.Contains(out.String(), "cgroup") {
						t.Skipf("no cgroup mode here: %s", out.String())
					}
					t.Fatalf("the session ended before the Engine's report: %s", out.String())
				default:
				}
				b, err := os.ReadFile(report)
				return err == nil && json.Unmarshal(b, &rep) == nil
			})
			if rep.Err != "" || len(rep.Pids) != 2 {
				t.Fatalf("report %+v", rep)
			}
			var ws []watched
			for _, pid := range rep.Pids {
				ws = append(ws, watch(t, pid))
			}
			if err := cmd.Process.Kill(); err != nil {
				t.Fatal(err)
			}
			<-exited
			for _, w := range ws {
				if !w.goneWithin(testproc.TooLong) {
					t.Errorf("pid %d of the call outlived the starter's SIGKILL", w.pid)
				}
			}
			if t.Failed() {
				t.Logf("session output: %s", out.String())
			}
		})
	}
}

// TestKillInGroupModeEndsAndReportsASetsidGrandchild: outside a cgroup,
// a grandchild that left the call's group while its parent lives is
// found by the walk of the call's descendants, ended, and reported.
func TestKillInGroupModeEndsAndReportsASetsidGrandchild(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	c := Command(ctx, "sh", "-c", `sleep 300 & echo $!; setsid sleep 300 & echo $!; wait`)
	ws := startWithPIDs(t, c, 2)
	testproc.Eventually(t, "the grandchild's setsid", func() bool {
		pg, err := sys.Getpgid(ws[1].pid)
		return err == nil && pg == ws[1].pid
	})
	cancel()
	_ = c.Wait()
	for i, w := range ws {
		// Without pidfds an escapee is reported, never signalled by
		// number: the session ends it.
		if !w.gone() && (i == 0 || !sys.Pidless) {
			t.Errorf("pid %d of the call is alive after Wait", w.pid)
		}
	}
	if r := c.Result(); !slices.Equal(r.Escaped, []int{ws[1].pid}) {
		t.Errorf("Result().Escaped = %v, want [%d]", r.Escaped, ws[1].pid)
	}
}

// TestEndReleasedEndsWhatAReleasedCallLeft: "stop my dev server" after
// the call that started it returned, through the pidfds kept since the
// release (the leader is reaped: its group's number is not held any
// more).
func TestEndReleasedEndsWhatAReleasedCallLeft(t *testing.T) {
	needsRelease(t)
	c := Command(context.Background(), "sh", "-c", `sleep 300 >/dev/null & echo $!; read _; exit 0`)
	in, err := c.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	ws := startWithPIDs(t, c, 1)
	in.Close()
	if err := c.Wait(); err != nil {
		t.Fatal(err)
	}
	if ws[0].gone() {
		t.Fatal("released process gone before EndReleased")
	}
	err = c.EndReleased()
	if sys.Pidless {
		// Nothing could be held past the reap: said, not guessed.
		if !errors.Is(err, ErrNotSupported) {
			t.Fatalf("EndReleased() without pidfds = %v, want ErrNotSupported", err)
		}
		return
	}
	if err != nil {
		t.Fatalf("EndReleased() = %v", err)
	}
	if !ws[0].gone() {
		t.Fatal("EndReleased returned and the released process lives")
	}
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
}

// orphanScript orphans a setsid grandchild before the leader's own exit:
// its parent is gone when the call ends, so no walk from the leader
// finds it.
const orphanScript = `setsid sleep 330 >/dev/null & echo $!; sleep 0.3; exit 0`

// TestOnlyACallWithoutACgroupAddsAnIDOfItsOwn: in cgroup mode the call's
// cgroup decides and its mark is the session's alone; in group mode the
// call's id follows the session's. The script prints how many ":" the
// mark holds (read as the report's one "PID").
func TestOnlyACallWithoutACgroupAddsAnIDOfItsOwn(t *testing.T) {
	if sys.Pidless {
		t.Skip("no call has a mark of its own where no marked process is verified (the portable build, as macOS): a limit of the package doc")
	}
	for _, tt := range []struct {
		mode   launch.Containment
		colons int
	}{{launch.ContainCgroup, 0}, {launch.ContainGroup, 1}} {
		t.Run(string(tt.mode), func(t *testing.T) {
			rep := runEngineIn(t, tt.mode, `printf %s "$`+mark.Var+`" | tr -cd : | wc -c`, 1, "exit")
			if len(rep.Pids) != 1 || rep.Pids[0] != tt.colons {
				t.Fatalf("the call's mark holds %v \":\", want %d", rep.Pids, tt.colons)
			}
		})
	}
}

// TestInGroupModeEndOnExitEndsTheCallsOrphan: under a group-mode session
// the orphan is the starter's (the subreaper), not the Engine's; the
// call's own mark finds it, the end reaches it, and the Result is true.
func TestInGroupModeEndOnExitEndsTheCallsOrphan(t *testing.T) {
	if sys.Pidless {
		t.Skip("no call has a mark of its own where no marked process is verified (the portable build, as macOS): a limit of the package doc")
	}
	rep := runEngineIn(t, launch.ContainGroup, orphanScript, 1, "orphan-exit")
	if rep.Tree != Killed || len(rep.Survivors) != 0 || len(rep.AliveAfter) != 0 {
		t.Fatalf("report %+v: want Killed, no survivors and nothing alive after Wait", rep)
	}
	if !slices.Equal(rep.Escaped, rep.Pids) {
		t.Errorf("Escaped = %v, want the orphan %v", rep.Escaped, rep.Pids)
	}
}

// TestInGroupModeAReleasedCallsOrphanIsLeftAndEndReleasedEndsIt: the
// orphan is in Left, and EndReleased ends it.
func TestInGroupModeAReleasedCallsOrphanIsLeftAndEndReleasedEndsIt(t *testing.T) {
	if sys.Pidless {
		t.Skip("no call has a mark of its own where no marked process is verified (the portable build, as macOS): a limit of the package doc")
	}
	rep := runEngineIn(t, launch.ContainGroup, orphanScript, 1, "orphan-release")
	if rep.Tree != Released || !slices.Equal(rep.Left, rep.Pids) || len(rep.AliveAfter) != 0 {
		t.Fatalf("report %+v: want Released leaving %v, and nothing alive after EndReleased", rep, rep.Pids)
	}
}

// TestEndReleasedInCgroupModeEndsTheCallsCgroup: in cgroup mode the
// call's cgroup is kept for it, and a setsid leftover is ended too.
func TestEndReleasedInCgroupModeEndsTheCallsCgroup(t *testing.T) {
	rep := runEngine(t, `setsid sleep 300 >/dev/null & echo $!; read _`, 1, "release-end")
	if rep.Tree != Released || !rep.EndedLeft {
		t.Fatalf("report %+v: want the released leftover ended by EndReleased", rep)
	}
}

// needsRelease skips a test of releasing where there is none: without a
// subreaper a leader's exit ends its tree (TestWithoutASubreaperALeadersExitEndsItsTree).
func needsRelease(t *testing.T) {
	t.Helper()
	if !sys.CanAdoptOrphans {
		t.Skip("no subreaper in this build: a leader's exit ends its tree, nothing is released")
	}
}

// TestWithoutASubreaperALeadersExitEndsItsTree: where orphans would go to
// init (macOS, the portable build), what a leader left cannot stay inside
// the session, so its exit ends it, as with EndOnExit.
func TestWithoutASubreaperALeadersExitEndsItsTree(t *testing.T) {
	if sys.CanAdoptOrphans {
		t.Skip("this build has the subreaper: the leader's exit releases")
	}
	c := Command(context.Background(), "sh", "-c", `sleep 300 >/dev/null & echo $!; read _; exit 0`)
	in, err := c.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	ws := startWithPIDs(t, c, 1)
	in.Close()
	if err := c.Wait(); err != nil {
		t.Fatalf("Wait() = %v", err)
	}
	if r := c.Result(); r.Tree != Killed || !ws[0].gone() {
		t.Fatalf("Result() = %+v, left alive %v; want Killed and nothing left", r, !ws[0].gone())
	}
}

func init() {
	testproc.Register("pressure-engine", pressureEngine)
	testproc.Register("pressure-session", func(args []string) int {
		return runSession("pressure-engine", args[1:], starter.Options{Containment: launch.Containment(args[0])})
	})
}

// pressureFree are the free descriptors pressureEngine leaves for a call.
var pressureFree = []int{8, 9, 10, 12, 16}

// pressureRun is what one call under descriptor pressure came to.
type pressureRun struct {
	Free   int
	Err    string
	Cgroup string
}

// pressureEngine lowers RLIMIT_NOFILE to 128, opens 16 files to pass,
// and for each count of pressureFree fills the table up to leave that
// many free, then runs echo with the 16 as ExtraFiles. The report (a
// JSON list of pressureRun) goes to args[0].
func pressureEngine(args []string) int {
	const limit = 128
	var extra []*os.File
	for range 16 {
		f, err := os.Open(os.DevNull)
		if err != nil {
			return 1
		}
		extra = append(extra, f)
	}
	if err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &syscall.Rlimit{Cur: limit, Max: limit}); err != nil {
		return 1
	}
	var runs []pressureRun
	for _, free := range pressureFree {
		fds, err := proc.OpenFDs()
		if err != nil {
			return 1
		}
		var hold []int
		for len(fds)+len(hold) < limit-free {
			fd, err := syscall.Open(os.DevNull, syscall.O_RDONLY|syscall.O_CLOEXEC, 0)
			if err != nil {
				return 1
			}
			hold = append(hold, fd)
		}
		c := Command(context.Background(), "/bin/echo", "hi")
		c.ExtraFiles = extra
		run := pressureRun{Free: free}
		if out, err := c.Output(); err != nil || string(out) != "hi\n" {
			run.Err = fmt.Sprintf("%q, %v", out, err)
		}
		run.Cgroup = c.Result().Cgroup
		runs = append(runs, run)
		for _, fd := range hold {
			_ = syscall.Close(fd)
		}
	}
	b, _ := json.Marshal(runs)
	_ = os.WriteFile(args[0], b, 0o644)
	return 0
}

// TestUnderDescriptorPressureACallRunsInCgroupModeAsInGroupMode: at
// RLIMIT_NOFILE 128 with 16 ExtraFiles and few descriptors free, a call
// runs in cgroup mode wherever it runs in group mode (without a cgroup
// of its own when its two descriptors would fail the start); with
// enough free it has its cgroup.
func TestUnderDescriptorPressureACallRunsInCgroupModeAsInGroupMode(t *testing.T) {
	got := map[launch.Containment][]pressureRun{}
	for _, mode := range []launch.Containment{launch.ContainGroup, launch.ContainCgroup} {
		report := filepath.Join(t.TempDir(), "report")
		cmd := testproc.HelperCommand(t, "pressure-session", string(mode), report)
		_ = testproc.HelperEnv(t, "pressure-engine")
		if out, err := cmd.CombinedOutput(); err != nil {
			if mode == launch.ContainCgroup && strings.Contains(string(out), "cgroup") {
				t.Skipf("no cgroup mode here: %s", out)
			}
			t.Fatalf("%s session: %v: %s", mode, err, out)
		}
		b, err := os.ReadFile(report)
		if err != nil {
			t.Fatal(err)
		}
		var runs []pressureRun
		if err := json.Unmarshal(b, &runs); err != nil || len(runs) != len(pressureFree) {
			t.Fatalf("%s: report %s: %v", mode, b, err)
		}
		got[mode] = runs
	}
	for i, g := range got[launch.ContainGroup] {
		c := got[launch.ContainCgroup][i]
		if g.Err == "" && c.Err != "" {
			t.Errorf("with %d descriptors free a call runs in group mode, and in cgroup mode fails: %s", g.Free, c.Err)
		}
	}
	if last := got[launch.ContainCgroup][len(pressureFree)-1]; last.Err != "" || last.Cgroup == "" {
		t.Errorf("with %d descriptors free: %+v, want the call run in a cgroup of its own", last.Free, last)
	}
	if first := got[launch.ContainGroup][0]; first.Err != "" {
		t.Errorf("with %d descriptors free a call fails in group mode: %s (the test's pressure is too high)", first.Free, first.Err)
	}
}

// TestAPipeOfAStreamAlreadySetIsRefusedAsExecRefusesIt: StdinPipe,
// StdoutPipe and StderrPipe refuse a stream the caller already set, with
// exec's words, and set nothing.
func TestAPipeOfAStreamAlreadySetIsRefusedAsExecRefusesIt(t *testing.T) {
	c := Command(context.Background(), "true")
	c.Stdin, c.Stdout, c.Stderr = strings.NewReader(""), &bytes.Buffer{}, &bytes.Buffer{}
	for name, pipe := range map[string]func() error{
		"Stdin":  func() error { _, err := c.StdinPipe(); return err },
		"Stdout": func() error { _, err := c.StdoutPipe(); return err },
		"Stderr": func() error { _, err := c.StderrPipe(); return err },
	} {
		if err := pipe(); err == nil || err.Error() != "exec: "+name+" already set" {
			t.Errorf("%sPipe with %s set: %v, want exec: %s already set", name, name, err, name)
		}
	}
	if len(c.closers) != 0 || len(c.parents) != 0 {
		t.Errorf("the refused pipes left %d ends to close, want none", len(c.closers)+len(c.parents))
	}
}
